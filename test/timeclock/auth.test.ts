// Time-clock sign-in, device binding at login, tokens and refresh.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { deriveKey, jwtCodec } from '../../src/platform/auth/jwt.ts';
import { JWT_SECRET, MANAGER_PASSWORD, startApp, type TestApp } from '../helpers/app.ts';
import { call } from '../helpers/http.ts';
import { assertTcError, createWorker, managerToken, newDeviceUuid, workerLogin, signedInWorker } from '../helpers/timeclock.ts';

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
