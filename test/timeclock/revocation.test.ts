// Time-clock token revocation by token version (issue 27, item 18), the login reply's userId
// and role and GET /api/me (item 5, integrators), and validation errors that list every bad
// field (item 5).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { deriveKey, jwtCodec } from '../../src/platform/auth/jwt.ts';
import { JWT_SECRET, startApp, type TestApp } from '../helpers/app.ts';
import { call } from '../helpers/http.ts';
import { assertTcError, createWorker, managerToken, newDeviceUuid, signedInWorker, workerLogin } from '../helpers/timeclock.ts';

describe('time-clock token revocation, GET /api/me and validation of every field', () => {
  let app: TestApp;
  let manager: string;
  before(async () => {
    app = await startApp();
    manager = await managerToken(app);
  });
  after(() => app?.close());

  const works = async (token: string, userId: number) => (await call(app, 'GET', `/api/workers/${userId}`, { token })).status;

  test('20 trials: a password change right after issuing revokes every earlier token, in the same second too', async () => {
    const w = await createWorker(app, manager);
    const device = newDeviceUuid();
    let password = w.password;
    let sameSecond = 0;
    for (let i = 0; i < 20; i++) {
      const earlier = await workerLogin(app, w.username, password, device);
      const iat = (JSON.parse(Buffer.from(earlier.split('.')[1]!, 'base64url').toString()) as { iat: number }).iat;
      assert.equal(await works(earlier, w.id), 200);
      password = `Changed-pass-${i}`;
      assert.equal((await call(app, 'PATCH', `/api/managers/workers/${w.id}`, { token: manager, body: { password } })).status, 200);
      if (Math.floor(Date.now() / 1000) === iat) sameSecond += 1;
      assertTcError(await call(app, 'GET', `/api/workers/${w.id}`, { token: earlier }), 401, 'TOKEN_INVALID');
      assertTcError(await call(app, 'POST', '/api/auth/refresh', { token: earlier }), 401, 'TOKEN_INVALID');
      // The token issued right after the change works, in the same second as it too.
      const after = await workerLogin(app, w.username, password, device);
      assert.equal(await works(after, w.id), 200, `trial ${i}`);
    }
    assert.ok(sameSecond > 0, 'at least one trial changed the password in the second its token was issued');
  });

  test('disable then enable: every earlier token stays revoked, and refresh refuses it', async () => {
    const w = await signedInWorker(app, manager);
    const refreshed = (await call(app, 'POST', '/api/auth/refresh', { token: w.token })).body.token as string;
    assert.equal(await works(refreshed, w.id), 200);
    assert.equal((await call(app, 'PATCH', `/api/managers/workers/${w.id}`, { token: manager, body: { status: 'disabled' } })).status, 200);
    assert.equal((await call(app, 'PATCH', `/api/managers/workers/${w.id}`, { token: manager, body: { status: 'active' } })).status, 200);
    for (const token of [w.token, refreshed]) {
      assertTcError(await call(app, 'GET', `/api/workers/${w.id}`, { token }), 401, 'TOKEN_INVALID');
      const refresh = await call(app, 'POST', '/api/auth/refresh', { token });
      assertTcError(refresh, 401, 'TOKEN_INVALID');
      assert.match(refresh.body.message, /revoked/);
    }
    // Signing in again gives a working token that refreshes.
    const fresh = await workerLogin(app, w.username, w.password, w.deviceUuid);
    const renewed = await call(app, 'POST', '/api/auth/refresh', { token: fresh });
    assert.equal(renewed.status, 200);
    assert.equal(await works(renewed.body.token, w.id), 200);
  });

  test('a token signed before token versions (no claim) works until the account’s first revocation', async () => {
    const w = await signedInWorker(app, manager);
    const legacy = jwtCodec<{ userId: number; role: string }>(deriveKey(JWT_SECRET, 'timeclock')).sign({ userId: w.id, role: 'worker' }, new Date(Date.now() + 60_000));
    assert.equal(await works(legacy, w.id), 200);
    assert.equal((await call(app, 'PATCH', `/api/managers/workers/${w.id}`, { token: manager, body: { status: 'disabled' } })).status, 200);
    assert.equal((await call(app, 'PATCH', `/api/managers/workers/${w.id}`, { token: manager, body: { status: 'active' } })).status, 200);
    assertTcError(await call(app, 'GET', `/api/workers/${w.id}`, { token: legacy }), 401, 'TOKEN_INVALID');
  });

  test('the login reply carries userId and role; GET /api/me answers the signed-in account', async () => {
    const tag = (await call(app, 'POST', '/api/managers/tags', { token: manager, body: { name: `Night ${Date.now()}` } })).body;
    const w = await createWorker(app, manager, { fullName: 'Grace Hopper', tagIds: [tag.id] });
    const unbound = await call(app, 'POST', '/api/auth/login', { body: { username: w.username, password: w.password, deviceUuid: newDeviceUuid('web') } });
    assert.equal(unbound.status, 200);
    assert.equal(unbound.body.userId, w.id);
    assert.equal(unbound.body.role, 'worker');
    const me = await call(app, 'GET', '/api/me', { token: unbound.body.token });
    assert.equal(me.status, 200, JSON.stringify(me.body));
    assert.equal(me.body.userId, w.id);
    assert.equal(me.body.username, w.username);
    assert.equal(me.body.fullName, 'Grace Hopper');
    assert.equal(me.body.role, 'worker');
    assert.equal(me.body.deviceBinding, 'bound');
    assert.match(me.body.device.deviceUuid, /^web-/);
    assert.deepEqual(me.body.tags, [tag.name]);
    // A worker whose binding a manager reset is unbound.
    assert.equal((await call(app, 'DELETE', `/api/managers/workers/${w.id}/device`, { token: manager })).status, 204);
    const reset = (await call(app, 'GET', '/api/me', { token: unbound.body.token })).body;
    assert.equal(reset.deviceBinding, 'unbound');
    assert.equal(reset.device, null);
    // A manager is not bound.
    const m = (await call(app, 'GET', '/api/me', { token: manager })).body;
    assert.equal(m.role, 'manager');
    assert.equal(m.deviceBinding, 'not_required');
    assert.deepEqual(m.tags, []);
    assertTcError(await call(app, 'GET', '/api/me'), 401, 'TOKEN_INVALID');
  });

  test('a validation error lists every bad field, one message per field, in both languages', async () => {
    const res = await call(app, 'POST', '/api/managers/workers', {
      token: manager, body: { username: 'x', password: 'short', fullName: '', extra: 1 },
    });
    assertTcError(res, 400, 'VALIDATION_ERROR');
    const errors = res.body.details.errors as string[];
    assert.equal(errors.length, 4, JSON.stringify(errors));
    for (const field of ['body.extra', 'body.username', 'body.password', 'body.fullName']) {
      assert.equal(errors.filter((e) => e.startsWith(`${field} `)).length, 1, `${field}: ${JSON.stringify(errors)}`);
      assert.ok(res.body.message.includes(field), res.body.message);
    }
    const zh = await call(app, 'POST', '/api/clock', {
      token: manager, headers: { 'accept-language': 'zh-CN' }, body: { eventType: 'sideways', latitude: 91 },
    });
    assertTcError(zh, 400, 'VALIDATION_ERROR');
    const zhErrors = zh.body.details.errors as string[];
    for (const field of ['body.userId', 'body.qrCodeValue', 'body.longitude', 'body.eventType', 'body.latitude']) {
      assert.equal(zhErrors.filter((e) => e.startsWith(`${field} `)).length, 1, `${field}: ${JSON.stringify(zhErrors)}`);
    }
    assert.equal(zhErrors.length, 5, JSON.stringify(zhErrors));
  });
});
