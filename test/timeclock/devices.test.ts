// POST /api/device/register and /api/device/validate.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.ts';
import { call } from '../helpers/http.ts';
import { assertTcError, tokenUserId, createWorker, managerToken, newDeviceUuid, signedInWorker, workerLogin } from '../helpers/timeclock.ts';

describe('devices', () => {
  let app: TestApp;
  let manager: string;
  let managerId: number;
  before(async () => {
    app = await startApp();
    manager = await managerToken(app);
    managerId = tokenUserId(manager);
  });
  after(() => app?.close());

  const mismatches = async (userId: number) =>
    (await app.platform.db.query<{ details: { source: string } }>(
      `SELECT details FROM timeclock.security_alerts WHERE user_id = $1 AND alert_type = 'device_mismatch' ORDER BY id`,
      [userId],
    )).map((r) => r.details.source);

  test('register: the own bound device again is 200 with its registration time; another device 403 until reset; bad UUID 400', async () => {
    const w = await signedInWorker(app, manager);
    const res = await call(app, 'POST', '/api/device/register', { token: w.token, body: { userId: w.id, deviceUuid: w.deviceUuid } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(Object.keys(res.body).sort(), ['deviceUuid', 'message', 'registeredAt']);
    assert.equal(res.body.deviceUuid, w.deviceUuid);
    assert.match(res.body.registeredAt, /^\d{4}-\d{2}-\d{2}T.*Z$/);

    const other = newDeviceUuid('ios');
    assertTcError(await call(app, 'POST', '/api/device/register', { token: w.token, body: { userId: w.id, deviceUuid: other } }), 403, 'DEVICE_NOT_AUTHORIZED');
    assert.deepEqual(await mismatches(w.id), ['register']);
    assertTcError(await call(app, 'POST', '/api/device/register', { token: w.token, body: { userId: w.id, deviceUuid: 'ios-123' } }), 400, 'VALIDATION_ERROR');
    assertTcError(await call(app, 'POST', '/api/device/register', { token: w.token, body: { userId: w.id } }), 400, 'VALIDATION_ERROR');

    assert.equal((await call(app, 'DELETE', `/api/managers/workers/${w.id}/device`, { token: manager })).status, 204);
    const bound = await call(app, 'POST', '/api/device/register', { token: w.token, body: { userId: w.id, deviceUuid: other } });
    assert.equal(bound.status, 200);
    assert.equal(bound.body.deviceUuid, other);
    // Now the old device is refused at login and the new one works.
    assertTcError(await call(app, 'POST', '/api/auth/login', { body: { username: w.username, password: w.password, deviceUuid: w.deviceUuid } }), 403, 'DEVICE_NOT_AUTHORIZED');
    await workerLogin(app, w.username, w.password, other);
  });

  test('register: a device registered to another user is 409; worker A registering for B is 403', async () => {
    const a = await signedInWorker(app, manager);
    const b = await createWorker(app, manager);
    const bToken = await (async () => {
      // B signs in on a device, then a manager resets B, so B is unbound.
      const t = await workerLogin(app, b.username, b.password);
      await call(app, 'DELETE', `/api/managers/workers/${b.id}/device`, { token: manager });
      return t;
    })();
    const res = await call(app, 'POST', '/api/device/register', { token: bToken, body: { userId: b.id, deviceUuid: a.deviceUuid } });
    assertTcError(res, 409, 'DEVICE_ALREADY_REGISTERED');
    assertTcError(await call(app, 'POST', '/api/device/register', { token: a.token, body: { userId: b.id, deviceUuid: newDeviceUuid() } }), 403, 'FORBIDDEN');
    const [row] = await app.platform.db.query(`SELECT 1 FROM timeclock.devices WHERE user_id = $1`, [b.id]);
    assert.equal(row, undefined);
    // Bound to a device of their own, naming a device registered to another worker: still 409.
    const c = await signedInWorker(app, manager);
    const mine = await call(app, 'POST', '/api/device/register', { token: c.token, body: { userId: c.id, deviceUuid: a.deviceUuid } });
    assertTcError(mine, 409, 'DEVICE_ALREADY_REGISTERED');
    assert.deepEqual(await mismatches(c.id), ['register']);
  });

  test('register by a manager: binds or replaces a worker’s device; a device of another worker is 409; managers are not bound; unknown user 404', async () => {
    const w = await signedInWorker(app, manager);
    const replacement = newDeviceUuid('web');
    const res = await call(app, 'POST', '/api/device/register', { token: manager, body: { userId: w.id, deviceUuid: replacement } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await workerLogin(app, w.username, w.password, replacement);
    const other = await signedInWorker(app, manager);
    assertTcError(await call(app, 'POST', '/api/device/register', { token: manager, body: { userId: w.id, deviceUuid: other.deviceUuid } }), 409, 'DEVICE_ALREADY_REGISTERED');
    assertTcError(await call(app, 'POST', '/api/device/register', { token: manager, body: { userId: managerId, deviceUuid: newDeviceUuid() } }), 400, 'VALIDATION_ERROR');
    assertTcError(await call(app, 'POST', '/api/device/register', { token: manager, body: { userId: 999_999, deviceUuid: newDeviceUuid() } }), 404, 'NOT_FOUND');
  });

  test('validate: own device valid with deviceInfo and lastSeen updated; foreign device 403 recorded; unbound valid false', async () => {
    const w = await signedInWorker(app, manager);
    const [before] = await app.platform.db.query<{ last_seen: Date }>(`SELECT last_seen FROM timeclock.devices WHERE user_id = $1`, [w.id]);
    await new Promise((r) => setTimeout(r, 20));
    const res = await call(app, 'POST', '/api/device/validate', { token: w.token, body: { userId: w.id, deviceUuid: w.deviceUuid } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(Object.keys(res.body).sort(), ['deviceInfo', 'message', 'valid']);
    assert.equal(res.body.valid, true);
    assert.deepEqual(Object.keys(res.body.deviceInfo).sort(), ['lastSeen', 'registeredAt']);
    assert.ok(Date.parse(res.body.deviceInfo.lastSeen) > new Date(before!.last_seen).getTime());

    assertTcError(await call(app, 'POST', '/api/device/validate', { token: w.token, body: { userId: w.id, deviceUuid: newDeviceUuid() } }), 403, 'DEVICE_NOT_AUTHORIZED');
    assert.deepEqual(await mismatches(w.id), ['validate']);

    const other = await signedInWorker(app, manager);
    assertTcError(await call(app, 'POST', '/api/device/validate', { token: w.token, body: { userId: other.id, deviceUuid: other.deviceUuid } }), 403, 'FORBIDDEN');
    // A manager validates anyone's.
    assert.equal((await call(app, 'POST', '/api/device/validate', { token: manager, body: { userId: other.id, deviceUuid: other.deviceUuid } })).body.valid, true);

    await call(app, 'DELETE', `/api/managers/workers/${w.id}/device`, { token: manager });
    const unbound = await call(app, 'POST', '/api/device/validate', { token: w.token, body: { userId: w.id, deviceUuid: w.deviceUuid } });
    assert.equal(unbound.status, 200);
    assert.equal(unbound.body.valid, false);
    assert.equal(unbound.body.deviceInfo, null);
    assertTcError(await call(app, 'POST', '/api/device/validate', { token: w.token, body: { userId: w.id, deviceUuid: 'bad' } }), 400, 'VALIDATION_ERROR');
  });

  test('validate for a manager is always valid; unknown user is 404', async () => {
    const res = await call(app, 'POST', '/api/device/validate', { token: manager, body: { userId: managerId, deviceUuid: newDeviceUuid('web') } });
    assert.equal(res.status, 200);
    assert.equal(res.body.valid, true);
    assert.equal(res.body.deviceInfo, null);
    assertTcError(await call(app, 'POST', '/api/device/validate', { token: manager, body: { userId: 999_999, deviceUuid: newDeviceUuid() } }), 404, 'NOT_FOUND');
  });
});
