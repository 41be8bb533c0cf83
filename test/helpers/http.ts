// Small request helpers over app.inject, and direct seeding of administrators with chosen
// grants (administrator and role management arrive with their own endpoints later).
import { randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { AUTH_CHANNEL } from '../../src/admin/kernel/sessions.ts';
import { hashPassword } from '../../src/platform/auth/password.ts';
import type { Server } from '../../src/server.ts';
import { ADMIN_PASSWORD } from './app.ts';

export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | number | undefined>;
}

export async function call<T = any>(
  app: Server,
  method: InjectOptions['method'],
  url: string,
  opts: { token?: string; body?: unknown; headers?: Record<string, string>; payload?: string | Buffer } = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const res = await app.app.inject({
    method,
    url,
    headers,
    ...(opts.body !== undefined ? { payload: opts.body as object } : {}),
    ...(opts.payload !== undefined ? { payload: opts.payload } : {}),
  });
  let body: unknown = res.body;
  try {
    body = res.json();
  } catch {
    /* not JSON */
  }
  return { status: res.statusCode, body: body as T, headers: res.headers };
}

/**
 * Takes an administrator's password as their own choice, as if they had replaced the one someone
 * else gave them: an account created or given a password through the API must otherwise choose a
 * new one at its next sign-in (test/admin/password-policy.test.ts covers that), and tests about
 * other things sign in with the password they set.
 */
export async function acceptGivenPassword(app: Server, username: string): Promise<void> {
  const changed = await app.platform.db.query<{ id: number }>(
    'UPDATE admin.admins SET must_change_password = false WHERE lower(username) = lower($1) AND must_change_password RETURNING id',
    [username],
  );
  // Sessions the server has cached are read again, as after any change of an account.
  if (changed.length > 0) await broadcast(app, AUTH_CHANNEL, { admins: changed.map((r) => Number(r.id)) });
}

/**
 * Publishes `message` on `channel` as a service does after a change, and resolves once this
 * instance has handed it to its handlers (theirs were subscribed before ours, so they have run).
 */
export async function broadcast(app: Server, channel: string, message: Record<string, unknown>): Promise<void> {
  const mark = randomUUID();
  let heard!: () => void;
  const arrived = new Promise<void>((resolve) => (heard = resolve));
  const unsubscribe = await app.platform.pubsub.subscribe(channel, (m) => {
    if ((m as { mark?: string }).mark === mark) heard();
  });
  try {
    await app.platform.pubsub.publish(channel, { ...message, mark });
    await arrived;
  } finally {
    await unsubscribe();
  }
}

/** Signs in an administrator (their password taken as their own: acceptGivenPassword) and returns the token. */
export async function login(app: Server, username = 'admin', password = ADMIN_PASSWORD, extra: Record<string, string> = {}): Promise<string> {
  await acceptGivenPassword(app, username);
  const res = await call(app, 'POST', '/api/admin/login', { body: { username, password, ...extra } });
  if (res.status !== 200) throw new Error(`login of ${username} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.token as string;
}

let seq = 0;

/**
 * Creates an administrator holding one new role with the given permission slugs and menu
 * slugs. Returns its id and password.
 */
export interface AdminSeed {
  username?: string;
  password?: string;
  permissions?: string[];
  menus?: string[];
  roleStatus?: 0 | 1;
  status?: 0 | 1;
}

export interface SeededAdmin {
  id: number;
  username: string;
  password: string;
  roleId: number;
}

export async function seedAdmin(app: Server, opts: AdminSeed = {}): Promise<SeededAdmin> {
  const db = app.platform.db;
  seq += 1;
  const username = opts.username ?? `user${seq}_${Date.now().toString(36)}`;
  const password = opts.password ?? 'Secret-pass-1';
  const [role] = await db.query<{ id: number }>(
    `INSERT INTO admin.roles (name, slug, status) VALUES ($1, $2, $3) RETURNING id`,
    [`Role ${username}`, `role_${username}`.toLowerCase(), opts.roleStatus ?? 1],
  );
  const [admin] = await db.query<{ id: number }>(
    `INSERT INTO admin.admins (username, password_hash, nickname, status, department_id) VALUES ($1, $2, $3, $4, 1) RETURNING id`,
    [username, await hashPassword(password), `Nick ${username}`, opts.status ?? 1],
  );
  await db.query(`INSERT INTO admin.admin_roles (admin_id, role_id) VALUES ($1, $2)`, [admin!.id, role!.id]);
  if (opts.permissions?.length) {
    await db.query(
      `INSERT INTO admin.role_permissions (role_id, permission_id) SELECT $1, id FROM admin.permissions WHERE slug = ANY($2::text[])`,
      [role!.id, opts.permissions],
    );
  }
  if (opts.menus?.length) {
    await db.query(
      `INSERT INTO admin.role_menus (role_id, menu_id) SELECT $1, id FROM admin.menus WHERE slug = ANY($2::text[])`,
      [role!.id, opts.menus],
    );
  }
  return { id: Number(admin!.id), username, password, roleId: Number(role!.id) };
}

/** An administrator seeded as `seedAdmin` does, and signed in: the seeded record and its token. */
export async function signedInAdmin(app: Server, opts: AdminSeed = {}): Promise<SeededAdmin & { token: string }> {
  const admin = await seedAdmin(app, opts);
  return { ...admin, token: await login(app, admin.username, admin.password) };
}
