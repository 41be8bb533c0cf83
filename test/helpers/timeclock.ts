// Helpers for the time-clock tests: sign-in of the bootstrap manager and of workers, worker,
// site and QR-code creation through the real endpoints, and the `{ message, code, details }`
// error assertion.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Server } from '../../src/server.ts';
import { MANAGER_PASSWORD } from './app.ts';
import { TIMECLOCK_AUTH_CHANNEL } from '../../src/timeclock/kernel/auth.ts';
import { broadcast, call, type Reply } from './http.ts';

/** A fence as the sites API takes it. */
export type Fence =
  | { type: 'circle'; center: { latitude: number; longitude: number }; radiusMetres: number }
  | { type: 'polygon'; points: { latitude: number; longitude: number }[] };

/** A well-formed device UUID: `<ios|android|web>-<RFC 4122 UUID>`. */
export function newDeviceUuid(platform: 'ios' | 'android' | 'web' = 'android'): string {
  return `${platform}-${randomUUID()}`;
}

/** Asserts the time-clock error shape `{ message, code, details }`, its status and code. */
export function assertTcError(res: Reply, status: number, code: string): void {
  const shown = JSON.stringify(res.body);
  assert.equal(res.status, status, shown);
  assert.match(String(res.headers['content-type']), /^application\/json/, shown);
  assert.deepEqual(Object.keys(res.body).sort(), ['code', 'details', 'message'], shown);
  assert.equal(res.body.code, code, shown);
  assert.equal(typeof res.body.message, 'string', shown);
  assert.ok(res.body.message.length > 0, shown);
  assert.equal(typeof res.body.details, 'object', shown);
  assert.notEqual(res.body.details, null, shown);
  assert.doesNotMatch(shown, /\n\s*at |\.ts:\d+|FST_ERR|stack|password_hash/i, shown);
}

/** The `userId` claim of a token. */
export function tokenUserId(token: string): number {
  return (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { userId: number }).userId;
}

/** Signs in the bootstrap manager (`manager` / MANAGER_PASSWORD) and returns the token. */
export async function managerToken(app: Server): Promise<string> {
  const res = await call(app, 'POST', '/api/auth/login', {
    body: { username: app.platform.config.MANAGER_USERNAME, password: MANAGER_PASSWORD, deviceUuid: newDeviceUuid('web') },
  });
  if (res.status !== 200) throw new Error(`manager login failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.token as string;
}

let seq = 0;

/**
 * Takes a worker's (or manager's) password as their own choice, as if they had replaced the one a
 * manager gave them: such an account must otherwise choose a new one before anything else
 * (test/timeclock/password-policy.test.ts covers that), and tests about other things sign in with
 * the password the manager set.
 */
export async function acceptGivenPassword(app: Server, username: string): Promise<void> {
  const changed = await app.platform.db.query<{ id: number }>(
    'UPDATE timeclock.users SET must_change_password = false WHERE lower(username) = lower($1) AND must_change_password RETURNING id',
    [username],
  );
  // Accounts the server has cached are read again, as after any change of an account.
  if (changed.length > 0) await broadcast(app, TIMECLOCK_AUTH_CHANNEL, { users: changed.map((r) => Number(r.id)) });
}

/** Creates a worker through `POST /api/managers/workers` (its password taken as its own: acceptGivenPassword); returns its id and credentials. */
export async function createWorker(
  app: Server,
  token: string,
  opts: { username?: string; password?: string; fullName?: string; tagIds?: number[] } = {},
): Promise<{ id: number; username: string; password: string; fullName: string }> {
  seq += 1;
  const username = opts.username ?? `worker${seq}_${Date.now().toString(36)}`;
  const password = opts.password ?? 'Worker-pass-123';
  const fullName = opts.fullName ?? `Worker ${seq}`;
  const res = await call(app, 'POST', '/api/managers/workers', {
    token,
    body: { username, password, fullName, ...(opts.tagIds ? { tagIds: opts.tagIds } : {}) },
  });
  if (res.status !== 201) throw new Error(`worker creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  await acceptGivenPassword(app, username);
  return { id: res.body.id as number, username, password, fullName };
}

/** Signs in a worker (binding `deviceUuid` on the first login; the password taken as their own: acceptGivenPassword) and returns the token. */
export async function workerLogin(app: Server, username: string, password: string, deviceUuid = newDeviceUuid()): Promise<string> {
  await acceptGivenPassword(app, username);
  const res = await call(app, 'POST', '/api/auth/login', { body: { username, password, deviceUuid } });
  if (res.status !== 200) throw new Error(`login of ${username} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.token as string;
}

/** A worker created and signed in on a fresh device: id, token and device. */
export async function signedInWorker(
  app: Server,
  manager: string,
  opts: { username?: string; password?: string; fullName?: string } = {},
): Promise<{ id: number; username: string; password: string; token: string; deviceUuid: string }> {
  const w = await createWorker(app, manager, opts);
  const deviceUuid = newDeviceUuid();
  const token = await workerLogin(app, w.username, w.password, deviceUuid);
  return { ...w, token, deviceUuid };
}

/** Creates a site with this fence through `POST /api/managers/sites`; returns its id. */
export async function createSite(app: Server, token: string, fence: Fence | null, name?: string): Promise<{ id: number }> {
  seq += 1;
  const res = await call(app, 'POST', '/api/managers/sites', { token, body: { name: name ?? `Site ${seq}`, fence } });
  if (res.status !== 201) throw new Error(`site creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.id as number };
}

/** Creates a QR code through `POST /api/managers/qr-codes`; returns its UUID (the value a worker scans). */
export async function createQr(app: Server, token: string, opts: { name: string; siteId?: number }): Promise<{ id: string }> {
  const res = await call(app, 'POST', '/api/managers/qr-codes', { token, body: opts });
  if (res.status !== 201) throw new Error(`QR code creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.id as string };
}

/** A circle fence of `radiusMetres` around a point (default: a point in central Paris, 100 m). */
export function circle(latitude = 48.8566, longitude = 2.3522, radiusMetres = 100): Fence {
  return { type: 'circle', center: { latitude, longitude }, radiusMetres };
}

/** A site with a circle fence and an active QR code on it: the QR value and the fence centre. */
export async function siteWithQr(
  app: Server,
  manager: string,
  fence: Fence = circle(),
): Promise<{ siteId: number; qr: string; center: { latitude: number; longitude: number } }> {
  const site = await createSite(app, manager, fence);
  const qr = await createQr(app, manager, { name: `QR ${site.id}`, siteId: site.id });
  const center = fence.type === 'circle' ? fence.center : fence.points[0]!;
  return { siteId: site.id, qr: qr.id, center };
}

/** `POST /api/clock` for `userId` with this token. */
export function clock(
  app: Server,
  token: string,
  body: { userId: number; eventType: string; qrCodeValue: string; latitude: number; longitude: number; notes?: string },
): Promise<Reply> {
  return call(app, 'POST', '/api/clock', { token, body });
}
