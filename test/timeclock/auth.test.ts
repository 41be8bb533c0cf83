// Time-clock sign-in, device binding at login, tokens and refresh; the sign-in lockout of the
// password policy (beside the back office, whose console sets it) and the managers' unlock.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { deriveKey, jwtCodec } from '../../src/platform/auth/jwt.ts';
import { closeAll, JWT_SECRET, MANAGER_PASSWORD, startApp, type TestApp } from '../helpers/app.ts';
import { call, login, type Reply } from '../helpers/http.ts';
import { assertTcError, createWorker, managerToken, newDeviceUuid, workerLogin, signedInWorker, tokenUserId } from '../helpers/timeclock.ts';

const decode = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
const signer = jwtCodec<{ userId: number; role: string }>(deriveKey(JWT_SECRET, 'timeclock'));

async function alerts(app: TestApp, userId: number, type: string) {
  return app.platform.db.query<{ details: Record<string, unknown> }>(
    `SELECT details FROM timeclock.security_alerts WHERE user_id = $1 AND alert_type = $2 ORDER BY id`,
    [userId, type],
  );
}

describe('time-clock authentication', () => {
  let app: TestApp;
  let manager: string;
  before(async () => {
    app = await startApp();
    manager = await managerToken(app);
  });
  after(() => app?.close());

  test('a worker signs in: { token, fullName, userId, role }; the JWT payload is userId, role, tokenVersion, iat, exp', async () => {
    const w = await createWorker(app, manager, { fullName: 'Ada Lovelace' });
    const res = await call(app, 'POST', '/api/auth/login', { body: { username: w.username, password: w.password, deviceUuid: newDeviceUuid('ios') } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(Object.keys(res.body).sort(), ['fullName', 'mustChangePassword', 'role', 'token', 'userId']);
    assert.equal(res.body.fullName, 'Ada Lovelace');
    assert.equal(res.body.userId, w.id);
    assert.equal(res.body.role, 'worker');
    const payload = decode(res.body.token);
    assert.deepEqual(Object.keys(payload).sort(), ['exp', 'iat', 'role', 'tokenVersion', 'userId']);
    assert.equal(payload.tokenVersion, 0);
    assert.equal(payload.userId, w.id);
    assert.equal(payload.role, 'worker');
    assert.equal((payload.exp as number) - (payload.iat as number), app.platform.config.TIMECLOCK_TOKEN_TTL);
    // The token works on a protected route.
    const me = await call(app, 'GET', `/api/workers/${w.id}`, { token: res.body.token });
    assert.equal(me.status, 200);
    assert.equal(me.body.full_name, 'Ada Lovelace');
  });

  test('usernames are case-insensitive; the manager signs in with role manager', async () => {
    const w = await createWorker(app, manager, { username: `MixedCase${Date.now()}` });
    await workerLogin(app, w.username.toLowerCase(), w.password);
    const res = await call(app, 'POST', '/api/auth/login', { body: { username: 'MANAGER', password: MANAGER_PASSWORD, deviceUuid: newDeviceUuid('web') } });
    assert.equal(res.status, 200);
    assert.equal(decode(res.body.token).role, 'manager');
    assert.equal(res.body.role, 'manager');
  });

  test('unknown username and wrong password answer the same 401 INVALID_CREDENTIALS', async () => {
    const w = await createWorker(app, manager);
    const wrong = await call(app, 'POST', '/api/auth/login', { body: { username: w.username, password: 'Wrong-pass-1', deviceUuid: newDeviceUuid() } });
    const unknown = await call(app, 'POST', '/api/auth/login', { body: { username: 'nobody-here', password: 'Wrong-pass-1', deviceUuid: newDeviceUuid() } });
    assertTcError(wrong, 401, 'INVALID_CREDENTIALS');
    assertTcError(unknown, 401, 'INVALID_CREDENTIALS');
    assert.deepEqual(wrong.body, unknown.body);
    // A wrong password does not bind the device.
    const [bound] = await app.platform.db.query(`SELECT 1 FROM timeclock.devices WHERE user_id = $1`, [w.id]);
    assert.equal(bound, undefined);
  });

  test('missing fields, a malformed device UUID and unknown fields are 400 VALIDATION_ERROR', async () => {
    const w = await createWorker(app, manager);
    const ok = { username: w.username, password: w.password, deviceUuid: newDeviceUuid() };
    for (const field of ['username', 'password', 'deviceUuid'] as const) {
      const body: Record<string, string> = { ...ok };
      delete body[field];
      const res = await call(app, 'POST', '/api/auth/login', { body });
      assertTcError(res, 400, 'VALIDATION_ERROR');
      assert.match(res.body.message, new RegExp(field));
    }
    for (const deviceUuid of ['0b8e7c1e-6a57-4c8e-9d1b-2f9f3f6b9c10', 'symbian-0b8e7c1e-6a57-4c8e-9d1b-2f9f3f6b9c10', 'ios-not-a-uuid', 'ios-0b8e7c1e-6a57-4c8e-cd1b-2f9f3f6b9c10']) {
      assertTcError(await call(app, 'POST', '/api/auth/login', { body: { ...ok, deviceUuid } }), 400, 'VALIDATION_ERROR');
    }
    assertTcError(await call(app, 'POST', '/api/auth/login', { body: { ...ok, role: 'manager' } }), 400, 'VALIDATION_ERROR');
    assertTcError(await call(app, 'POST', '/api/auth/login', { payload: '{"username":', headers: { 'content-type': 'application/json' } }), 400, 'VALIDATION_ERROR');
  });

  test('the first login binds the device; another device is 403 DEVICE_NOT_AUTHORIZED, recorded, until a manager resets', async () => {
    const w = await createWorker(app, manager);
    const phone = newDeviceUuid('android');
    await workerLogin(app, w.username, w.password, phone);
    await workerLogin(app, w.username, w.password, phone.toUpperCase().replace('ANDROID', 'android')); // same device, any case
    const other = newDeviceUuid('ios');
    const res = await call(app, 'POST', '/api/auth/login', { body: { username: w.username, password: w.password, deviceUuid: other } });
    assertTcError(res, 403, 'DEVICE_NOT_AUTHORIZED');
    assert.equal(res.body.details.reason, 'bound_to_another_device');
    const recorded = await alerts(app, w.id, 'device_mismatch');
    assert.equal(recorded.length, 1);
    assert.equal(recorded[0]!.details.deviceUuid, other);
    assert.equal(recorded[0]!.details.source, 'login');

    const reset = await call(app, 'DELETE', `/api/managers/workers/${w.id}/device`, { token: manager });
    assert.equal(reset.status, 204);
    await workerLogin(app, w.username, w.password, other);
    assertTcError(await call(app, 'POST', '/api/auth/login', { body: { username: w.username, password: w.password, deviceUuid: phone } }), 403, 'DEVICE_NOT_AUTHORIZED');
  });

  test('a device bound to another worker is refused at login', async () => {
    const a = await createWorker(app, manager);
    const b = await createWorker(app, manager);
    const phone = newDeviceUuid();
    await workerLogin(app, a.username, a.password, phone);
    const res = await call(app, 'POST', '/api/auth/login', { body: { username: b.username, password: b.password, deviceUuid: phone } });
    assertTcError(res, 403, 'DEVICE_NOT_AUTHORIZED');
    assert.equal(res.body.details.reason, 'device_of_another_user');
    assert.equal((await alerts(app, b.id, 'device_mismatch')).length, 1);
  });

  test('the seeded manager’s name is in the reader’s language (sign-in, /api/me, /api/workers/:id); a worker’s name is as written in both', async () => {
    const named = await createWorker(app, manager, { fullName: 'Manager' });
    for (const [language, seeded] of [['en-US', 'Manager'], ['zh-CN', '主管']] as const) {
      const headers = { 'accept-language': language };
      const res = await call(app, 'POST', '/api/auth/login', { headers, body: { username: 'manager', password: MANAGER_PASSWORD, deviceUuid: newDeviceUuid('web') } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.fullName, seeded);
      assert.equal((await call(app, 'GET', '/api/me', { token: res.body.token, headers })).body.fullName, seeded);
      assert.equal((await call(app, 'GET', `/api/workers/${res.body.userId}`, { token: res.body.token, headers })).body.full_name, seeded);
      // A worker someone called “Manager” keeps that name.
      assert.equal((await call(app, 'GET', `/api/workers/${named.id}`, { token: manager, headers })).body.full_name, 'Manager');
    }
  });

  test('managers are not bound to a device', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await call(app, 'POST', '/api/auth/login', { body: { username: 'manager', password: MANAGER_PASSWORD, deviceUuid: newDeviceUuid('web') } });
      assert.equal(res.status, 200);
    }
  });

  test('a disabled worker is told so only after the right password; a deleted one is unknown', async () => {
    const { token, ...w } = await signedInWorker(app, manager);
    assert.equal((await call(app, 'PATCH', `/api/managers/workers/${w.id}`, { token: manager, body: { status: 'disabled' } })).status, 200);
    assertTcError(await call(app, 'POST', '/api/auth/login', { body: { username: w.username, password: 'Wrong-pass-1', deviceUuid: newDeviceUuid() } }), 401, 'INVALID_CREDENTIALS');
    assertTcError(await call(app, 'POST', '/api/auth/login', { body: { username: w.username, password: w.password, deviceUuid: newDeviceUuid() } }), 403, 'ACCOUNT_DISABLED');
    // Its token stops working at once on this instance.
    assertTcError(await call(app, 'GET', `/api/workers/${w.id}`, { token }), 401, 'TOKEN_INVALID');
    assertTcError(await call(app, 'POST', '/api/auth/refresh', { token }), 401, 'TOKEN_INVALID');

    assert.equal((await call(app, 'DELETE', `/api/managers/workers/${w.id}`, { token: manager })).status, 204);
    assertTcError(await call(app, 'POST', '/api/auth/login', { body: { username: w.username, password: w.password, deviceUuid: newDeviceUuid() } }), 401, 'INVALID_CREDENTIALS');
  });

  test('refresh returns a new working token for a valid one; expired, forged or missing tokens are 401', async () => {
    const { token, ...w } = await signedInWorker(app, manager);
    const res = await call(app, 'POST', '/api/auth/refresh', { token });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(Object.keys(res.body), ['token', 'mustChangePassword']);
    const payload = decode(res.body.token);
    assert.deepEqual(Object.keys(payload).sort(), ['exp', 'iat', 'role', 'tokenVersion', 'userId']);
    assert.equal(payload.userId, w.id);
    assert.equal((await call(app, 'GET', `/api/workers/${w.id}`, { token: res.body.token })).status, 200);

    const expired = signer.sign({ userId: w.id, role: 'worker' }, new Date(Date.now() - 10_000));
    assertTcError(await call(app, 'POST', '/api/auth/refresh', { token: expired }), 401, 'TOKEN_EXPIRED');
    const forged = jwtCodec<{ userId: number; role: string }>(deriveKey('another-secret-that-is-long-enough-000', 'timeclock'))
      .sign({ userId: w.id, role: 'manager' }, new Date(Date.now() + 60_000));
    assertTcError(await call(app, 'POST', '/api/auth/refresh', { token: forged }), 401, 'TOKEN_INVALID');
    assertTcError(await call(app, 'POST', '/api/auth/refresh'), 401, 'TOKEN_INVALID');
    assertTcError(await call(app, 'POST', '/api/auth/refresh', { token: 'abc.def.ghi' }), 401, 'TOKEN_INVALID');
  });

  test('the OpenAPI document describes the routes, their errors and the added codes', async () => {
    const res = await call(app, 'GET', '/api/docs/openapi.json');
    assert.equal(res.status, 200);
    const paths = res.body.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
    for (const p of ['/api/auth/login', '/api/auth/refresh', '/api/clock', '/api/worker/clock-history/{userId}', '/api/workers/{id}',
      '/api/device/register', '/api/device/validate', '/api/managers/workers', '/api/managers/qr-codes', '/api/managers/sites']) {
      assert.ok(paths[p], p);
    }
    assert.ok(paths['/api/clock']!.post!.responses['409']);
    assert.ok(paths['/api/auth/login']!.post!.responses['429']);
    assert.match(res.body.info.description, /GEOFENCE_NOT_CONFIGURED/);
  });
});

describe('time-clock sign-in lockout', () => {
  let app: TestApp;
  let manager: string;
  before(async () => {
    // Beside the back office, whose console sets the one policy: 3 failures lock a name for 10 minutes.
    app = await startApp({ SERVICES: 'admin,timeclock' });
    const policy = await call(app, 'PUT', '/api/admin/password-policy', {
      token: await login(app),
      body: { min_length: 12, min_classes: 3, reject_common: true, reject_username: true, history: 5, max_age_days: 0, lock_max_failures: 3, lock_seconds: 600 },
    });
    assert.equal(policy.status, 200, JSON.stringify(policy.body));
    manager = await managerToken(app);
  });
  after(() => closeAll(app));

  const signIn = (username: string, password: string, deviceUuid = newDeviceUuid(), lang = 'en-US') =>
    call(app, 'POST', '/api/auth/login', { body: { username, password, deviceUuid }, headers: { 'accept-language': lang } });
  const lockOf = async (username: string) =>
    (await app.platform.db.query<{ failures: number; locked_until: Date | null }>(
      'SELECT failures, locked_until FROM timeclock.login_failures WHERE account_key = lower($1)', [username],
    ))[0];
  /** Locks `username` by the policy's 3 wrong passwords, each answered as any wrong password. */
  async function lock(username: string): Promise<Reply[]> {
    const replies: Reply[] = [];
    for (let i = 0; i < 3; i += 1) {
      const res = await signIn(username, 'Wrong-pass-1');
      assertTcError(res, 401, 'INVALID_CREDENTIALS');
      replies.push(res);
    }
    return replies;
  }
  /** A sign-in refused by the lock: 429 ACCOUNT_LOCKED, Retry-After and `details.retryAfterSeconds` (about the policy's 600 s). */
  function assertLocked(res: Reply): number {
    assertTcError(res, 429, 'ACCOUNT_LOCKED');
    const seconds = Number(res.headers['retry-after']);
    assert.ok(Number.isInteger(seconds) && seconds > 590 && seconds <= 600, String(res.headers['retry-after']));
    assert.deepEqual(res.body.details, { retryAfterSeconds: seconds });
    return seconds;
  }

  test('the policy’s failures lock a name: even the right password is refused before it is checked, in words, and the lock is not extended', async () => {
    const w = await createWorker(app, manager);
    await lock(w.username.toUpperCase());
    const locked = (await lockOf(w.username))!;
    assert.equal(locked.failures, 3);
    assert.ok(locked.locked_until);

    const refused = await signIn(w.username, w.password);
    assertLocked(refused);
    assert.equal(refused.body.message, 'Too many failed sign-ins: this account is locked. Try again in 10 min, or ask a manager to unlock it');
    assert.equal((await signIn(w.username, w.password, newDeviceUuid(), 'zh-CN')).body.message, '登录失败次数过多，该账号已被锁定。请 10 分钟后再试，或请管理人员解锁');
    // Refused before the device is bound or the password counted: a wrong one does not extend the lock.
    assertLocked(await signIn(w.username, 'Wrong-pass-1'));
    assert.deepEqual(await lockOf(w.username), locked);
    assert.deepEqual(await app.platform.db.query('SELECT 1 FROM timeclock.devices WHERE user_id = $1', [w.id]), []);

    // The manager's records say until when (ISO 8601 UTC).
    const listed = await call(app, 'GET', `/api/managers/workers?search=${w.username}`, { token: manager });
    assert.equal(listed.body.workers[0].lockedUntil, locked.locked_until.toISOString());
    assert.equal((await call(app, 'GET', `/api/managers/workers/${w.id}`, { token: manager })).body.lockedUntil, locked.locked_until.toISOString());

    // Once the lock has passed, the count starts again and the right password signs in.
    await app.platform.db.query(`UPDATE timeclock.login_failures SET ends_at = now() - interval '1 second', locked_until = now() - interval '1 second' WHERE account_key = lower($1)`, [w.username]);
    assertTcError(await signIn(w.username, 'Wrong-pass-1'), 401, 'INVALID_CREDENTIALS');
    assert.deepEqual(await lockOf(w.username), { failures: 1, locked_until: null });
    assert.equal((await signIn(w.username, w.password)).status, 200);
    assert.equal((await call(app, 'GET', `/api/managers/workers/${w.id}`, { token: manager })).body.lockedUntil, null);
  });

  test('an unknown name locks the same way, so that a lock reveals no account', async () => {
    const w = await createWorker(app, manager);
    const unknown = `nobody-${Date.now().toString(36)}`;
    const existing = await lock(w.username);
    const missing = await lock(unknown);
    assert.deepEqual(missing.map((r) => r.body), existing.map((r) => r.body));
    const a = await signIn(w.username, w.password);
    const b = await signIn(unknown, w.password);
    assertLocked(a);
    assertLocked(b);
    assert.equal(b.body.message, a.body.message);
  });

  test('a success forgets the failures; a window that passed starts them again; refusals of a device or a disabled account are not counted', async () => {
    const w = await createWorker(app, manager);
    const phone = newDeviceUuid();
    for (let i = 0; i < 2; i += 1) assertTcError(await signIn(w.username, 'Wrong-pass-1'), 401, 'INVALID_CREDENTIALS');
    assert.equal((await signIn(w.username, w.password, phone)).status, 200);
    assert.equal(await lockOf(w.username), undefined);
    for (let i = 0; i < 2; i += 1) assertTcError(await signIn(w.username, 'Wrong-pass-1'), 401, 'INVALID_CREDENTIALS');
    // Counted within the policy's window only.
    await app.platform.db.query(`UPDATE timeclock.login_failures SET ends_at = now() - interval '1 second' WHERE account_key = lower($1)`, [w.username]);
    assertTcError(await signIn(w.username, 'Wrong-pass-1'), 401, 'INVALID_CREDENTIALS');
    assert.deepEqual(await lockOf(w.username), { failures: 1, locked_until: null });
    // The right password on another phone, or for a disabled account, is no failure of the password.
    for (let i = 0; i < 3; i += 1) assertTcError(await signIn(w.username, w.password), 403, 'DEVICE_NOT_AUTHORIZED');
    assert.equal((await call(app, 'PATCH', `/api/managers/workers/${w.id}`, { token: manager, body: { status: 'disabled' } })).status, 200);
    for (let i = 0; i < 3; i += 1) assertTcError(await signIn(w.username, w.password, phone), 403, 'ACCOUNT_DISABLED');
    assert.equal((await call(app, 'PATCH', `/api/managers/workers/${w.id}`, { token: manager, body: { status: 'active' } })).status, 200);
    assert.deepEqual(await lockOf(w.username), { failures: 1, locked_until: null });
    assert.equal((await signIn(w.username, w.password, phone)).status, 200);
  });

  test('a manager unlocks a worker (idempotent); a worker may not; managers, deleted workers and unknown ids are out of reach (404)', async () => {
    const w = await createWorker(app, manager);
    const other = await signedInWorker(app, manager);
    await lock(w.username);
    assertLocked(await signIn(w.username, w.password));

    assertTcError(await call(app, 'POST', `/api/managers/workers/${w.id}/unlock`, { token: other.token }), 403, 'FORBIDDEN');
    assertLocked(await signIn(w.username, w.password));
    const unlocked = await call(app, 'POST', `/api/managers/workers/${w.id}/unlock`, { token: manager });
    assert.equal(unlocked.status, 204, JSON.stringify(unlocked.body));
    assert.equal(await lockOf(w.username), undefined);
    assert.equal((await call(app, 'GET', `/api/managers/workers/${w.id}`, { token: manager })).body.lockedUntil, null);
    assert.equal((await call(app, 'POST', `/api/managers/workers/${w.id}/unlock`, { token: manager })).status, 204);
    assert.equal((await signIn(w.username, w.password)).status, 200);

    const gone = await createWorker(app, manager);
    await lock(gone.username);
    assert.equal((await call(app, 'DELETE', `/api/managers/workers/${gone.id}`, { token: manager })).status, 204);
    assertTcError(await call(app, 'POST', `/api/managers/workers/${gone.id}/unlock`, { token: manager }), 404, 'NOT_FOUND');
    assertTcError(await call(app, 'POST', '/api/managers/workers/999999/unlock', { token: manager }), 404, 'NOT_FOUND');
    // A manager's name locks too; the route does not reach managers (the reset-password command does).
    await lock(app.platform.config.MANAGER_USERNAME);
    assertLocked(await signIn(app.platform.config.MANAGER_USERNAME, MANAGER_PASSWORD));
    assertTcError(await call(app, 'POST', `/api/managers/workers/${tokenUserId(manager)}/unlock`, { token: manager }), 404, 'NOT_FOUND');
    assert.ok(await lockOf(app.platform.config.MANAGER_USERNAME));
  });
});
