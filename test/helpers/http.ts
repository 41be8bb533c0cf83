// Small request helpers over app.inject, and direct seeding of administrators with chosen
// grants (administrator and role management arrive with their own endpoints later).
import type { InjectOptions } from 'fastify';
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

export async function login(app: Server, username = 'admin', password = ADMIN_PASSWORD, extra: Record<string, string> = {}): Promise<string> {
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
