// Worker accounts and tags managed by managers, the workers list (search, tags, paging) and
// GET /api/workers/:id.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hashPassword, verifyPassword } from '../../src/platform/auth/password.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { call } from '../helpers/http.ts';
import { assertTcError, tokenUserId, clock, createWorker, managerToken, newDeviceUuid, siteWithQr, workerLogin, signedInWorker } from '../helpers/timeclock.ts';

describe('workers and tags', () => {
  let app: TestApp;
  let manager: string;
  let managerId: number;
  before(async () => {
    app = await startApp();
    manager = await managerToken(app);
    managerId = tokenUserId(manager);
  });
  after(() => app?.close());

  const tag = async (name: string) => {
    const res = await call(app, 'POST', '/api/managers/tags', { token: manager, body: { name } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.id as number;
  };

  test('create a worker: 201 with the record; the password is stored as argon2id and never returned', async () => {
    const night = await tag('Night');
    const res = await call(app, 'POST', '/api/managers/workers', {
      token: manager,
      body: { username: 'grace', password: 'Hopper-pass-1', fullName: 'Grace Hopper', tagIds: [night] },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.username, 'grace');
    assert.equal(res.body.full_name, 'Grace Hopper');
    assert.equal(res.body.tags, 'Night');
    assert.deepEqual(res.body.tag_ids, [night]);
    assert.equal(res.body.status, 'active');
    assert.equal(res.body.clock_state, 'clock_out');
    assert.equal(res.body.device, null);
    assert.match(res.body.created_at, /Z$/);
    assert.doesNotMatch(JSON.stringify(res.body), /password|argon/i);
    const [row] = await app.platform.db.query<{ password_hash: string; role: string }>(`SELECT password_hash, role FROM timeclock.users WHERE id = $1`, [res.body.id]);
    assert.match(row!.password_hash, /^\$argon2id\$/);
    assert.equal(row!.role, 'worker');
    assert.ok(await verifyPassword(row!.password_hash, 'Hopper-pass-1'));
  });

  test('create: duplicate username (any case, managers included) is 409; bad fields and unknown tags are 400', async () => {
    await createWorker(app, manager, { username: 'dupe.user' });
    assertTcError(await call(app, 'POST', '/api/managers/workers', { token: manager, body: { username: 'DUPE.user', password: 'Secret-pass-1', fullName: 'X' } }), 409, 'CONFLICT');
    assertTcError(await call(app, 'POST', '/api/managers/workers', { token: manager, body: { username: 'Manager', password: 'Secret-pass-1', fullName: 'X' } }), 409, 'CONFLICT');
    for (const body of [
      { username: 'ok_name', password: 'short', fullName: 'X' },
      { username: 'a b', password: 'Secret-pass-1', fullName: 'X' },
      { username: 'ok_name', password: 'Secret-pass-1', fullName: '   ' },
      { username: 'ok_name', password: 'Secret-pass-1' },
      { username: 'ok_name', password: 'Secret-pass-1', fullName: 'X', role: 'manager' },
    ]) {
      assertTcError(await call(app, 'POST', '/api/managers/workers', { token: manager, body }), 400, 'VALIDATION_ERROR');
    }
    const res = await call(app, 'POST', '/api/managers/workers', { token: manager, body: { username: 'ok_name', password: 'Secret-pass-1', fullName: 'X', tagIds: [999_999] } });
    assertTcError(res, 400, 'VALIDATION_ERROR');
    assert.deepEqual(res.body.details.unknown, [999_999]);
    // Nothing was created by the refused request.
    assert.equal((await app.platform.db.query(`SELECT 1 FROM timeclock.users WHERE username = 'ok_name'`)).length, 0);
  });

  test('list: exact shape, search over username and full name (case-insensitive, wildcards literal), tags (all must match), paging', async () => {
    const prefix = `ls${Date.now().toString(36)}`;
    const red = await tag(`${prefix}-red`);
    const blue = await tag(`${prefix}-blue`);
    const w1 = await createWorker(app, manager, { username: `${prefix}_alice`, fullName: 'Alice Martin', tagIds: [red, blue] });
    const w2 = await createWorker(app, manager, { username: `${prefix}_bob`, fullName: 'Bob 100% Martin', tagIds: [red] });
    const w3 = await createWorker(app, manager, { username: `${prefix}_carol`, fullName: 'Carol King' });

    const all = await call(app, 'GET', `/api/managers/workers?search=${prefix}`, { token: manager });
    assert.equal(all.status, 200);
    assert.deepEqual(Object.keys(all.body).sort(), ['currentPage', 'totalCount', 'totalPages', 'workers']);
    assert.deepEqual([all.body.totalCount, all.body.currentPage, all.body.totalPages], [3, 1, 1]);
    assert.deepEqual(all.body.workers.map((w: { id: number }) => w.id), [w1.id, w2.id, w3.id]);
    for (const w of all.body.workers) assert.deepEqual(Object.keys(w).sort(), ['created_at', 'full_name', 'id', 'lockedUntil', 'tags', 'username']);
    assert.equal(all.body.workers[0].lockedUntil, null);
    assert.equal(all.body.workers[0].tags, `${prefix}-blue,${prefix}-red`);
    assert.equal(all.body.workers[2].tags, '');

    const byName = await call(app, 'GET', '/api/managers/workers?search=mARTIN', { token: manager });
    assert.deepEqual(byName.body.workers.map((w: { id: number }) => w.id), [w1.id, w2.id]);
    const literal = await call(app, 'GET', `/api/managers/workers?search=${encodeURIComponent('100%')}`, { token: manager });
    assert.deepEqual(literal.body.workers.map((w: { id: number }) => w.id), [w2.id]);
    const underscore = await call(app, 'GET', `/api/managers/workers?search=${encodeURIComponent(`${prefix}_`)}`, { token: manager });
    assert.equal(underscore.body.totalCount, 3);
    assert.equal((await call(app, 'GET', `/api/managers/workers?search=${encodeURIComponent(`${prefix}%`)}`, { token: manager })).body.totalCount, 0);

    const both = await call(app, 'GET', `/api/managers/workers?tags=${red},${blue}`, { token: manager });
    assert.deepEqual(both.body.workers.map((w: { id: number }) => w.id), [w1.id]);
    const onlyRed = await call(app, 'GET', `/api/managers/workers?tags=${red}`, { token: manager });
    assert.deepEqual(onlyRed.body.workers.map((w: { id: number }) => w.id), [w1.id, w2.id]);
    assert.equal((await call(app, 'GET', `/api/managers/workers?tags=${red},999999`, { token: manager })).body.totalCount, 0);
    assertTcError(await call(app, 'GET', '/api/managers/workers?tags=red', { token: manager }), 400, 'VALIDATION_ERROR');

    const page2 = await call(app, 'GET', `/api/managers/workers?search=${prefix}&page=2&limit=2`, { token: manager });
    assert.deepEqual([page2.body.totalCount, page2.body.currentPage, page2.body.totalPages], [3, 2, 2]);
    assert.deepEqual(page2.body.workers.map((w: { id: number }) => w.id), [w3.id]);
    const past = await call(app, 'GET', `/api/managers/workers?search=${prefix}&page=9&limit=2`, { token: manager });
    assert.deepEqual(past.body.workers, []);
    assertTcError(await call(app, 'GET', '/api/managers/workers?page=0', { token: manager }), 400, 'VALIDATION_ERROR');
    assertTcError(await call(app, 'GET', '/api/managers/workers?limit=0', { token: manager }), 400, 'VALIDATION_ERROR');
  });

  test('list defaults: page 1, limit 20; a limit above 100 is capped at 100', async () => {
    const existing = (await call(app, 'GET', '/api/managers/workers', { token: manager })).body.totalCount as number;
    for (let i = existing; i < 105; i++) {
      await app.platform.db.query(
        `INSERT INTO timeclock.users (username, password_hash, full_name, role) VALUES ($1, 'x', $2, 'worker')`,
        [`bulk${i}`, `Bulk ${i}`],
      );
    }
    const def = await call(app, 'GET', '/api/managers/workers', { token: manager });
    assert.equal(def.body.workers.length, 20);
    assert.equal(def.body.currentPage, 1);
    assert.equal(def.body.totalPages, Math.ceil(def.body.totalCount / 20));
    const capped = await call(app, 'GET', '/api/managers/workers?limit=1000', { token: manager });
    assert.equal(capped.body.workers.length, 100);
    assert.equal(capped.body.totalPages, Math.ceil(capped.body.totalCount / 100));
  });

  test('update: only the fields sent change; tags replaced; a new password applies to the next sign-in', async () => {
    const t1 = await tag(`upd-${Date.now()}`);
    const w = await createWorker(app, manager);
    const res = await call(app, 'PATCH', `/api/managers/workers/${w.id}`, { token: manager, body: { fullName: 'Renamed Person', tagIds: [t1] } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.full_name, 'Renamed Person');
    assert.equal(res.body.username, w.username);
    assert.deepEqual(res.body.tag_ids, [t1]);
    assert.deepEqual((await call(app, 'PATCH', `/api/managers/workers/${w.id}`, { token: manager, body: { tagIds: [] } })).body.tag_ids, []);
    assert.equal((await call(app, 'PATCH', `/api/managers/workers/${w.id}`, { token: manager, body: { password: 'Another-pass-2' } })).status, 200);
    assertTcError(await call(app, 'POST', '/api/auth/login', { body: { username: w.username, password: w.password, deviceUuid: newDeviceUuid() } }), 401, 'INVALID_CREDENTIALS');
    await workerLogin(app, w.username, 'Another-pass-2');
    assertTcError(await call(app, 'PATCH', `/api/managers/workers/${w.id}`, { token: manager, body: {} }), 400, 'VALIDATION_ERROR');
    assertTcError(await call(app, 'PATCH', `/api/managers/workers/${w.id}`, { token: manager, body: { username: 'manager' } }), 409, 'CONFLICT');
    assertTcError(await call(app, 'PATCH', '/api/managers/workers/999999', { token: manager, body: { fullName: 'x' } }), 404, 'NOT_FOUND');
    // A manager account is not a worker.
    assertTcError(await call(app, 'PATCH', `/api/managers/workers/${managerId}`, { token: manager, body: { fullName: 'x' } }), 404, 'NOT_FOUND');
  });

  test('no manager route changes a manager’s password, their own or another manager’s: PATCH /managers/workers/:id is 404 and nothing changes', async () => {
    const hashOf = async (id: number) =>
      (await app.platform.db.query<{ password_hash: string }>('SELECT password_hash FROM timeclock.users WHERE id = $1', [id]))[0]!.password_hash;
    const [other] = await app.platform.db.query<{ id: number }>(
      `INSERT INTO timeclock.users (username, password_hash, full_name, role) VALUES ($1, $2, 'Other Manager', 'manager') RETURNING id`,
      [`mgr${Date.now().toString(36)}`, await hashPassword('Other-manager-1')],
    );
    for (const id of [managerId, Number(other!.id)]) {
      const hash = await hashOf(id);
      for (const body of [{ password: 'Taken-over-123' }, { fullName: 'x', password: 'Taken-over-123' }, { status: 'disabled' }]) {
        assertTcError(await call(app, 'PATCH', `/api/managers/workers/${id}`, { token: manager, body }), 404, 'NOT_FOUND');
      }
      assert.equal(await hashOf(id), hash, 'the password is unchanged');
    }
    // The manager's token still works and the old password still signs in.
    assert.equal((await call(app, 'GET', `/api/workers/${managerId}`, { token: manager })).status, 200);
    await managerToken(app);
  });

  test('a new password revokes the worker’s current tokens; a token issued afterwards works', async () => {
    const w = await createWorker(app, manager);
    const device = newDeviceUuid();
    const old = await workerLogin(app, w.username, w.password, device);
    assert.equal((await call(app, 'GET', `/api/workers/${w.id}`, { token: old })).status, 200);
    // No wait: revocation is by token version, so a token of the same second is revoked too.
    assert.equal((await call(app, 'PATCH', `/api/managers/workers/${w.id}`, { token: manager, body: { password: 'Changed-pass-9' } })).status, 200);
    assertTcError(await call(app, 'GET', `/api/workers/${w.id}`, { token: old }), 401, 'TOKEN_INVALID');
    const fresh = await workerLogin(app, w.username, 'Changed-pass-9', device);
    assert.equal((await call(app, 'GET', `/api/workers/${w.id}`, { token: fresh })).status, 200);
    // A change that is not a password leaves tokens alone.
    assert.equal((await call(app, 'PATCH', `/api/managers/workers/${w.id}`, { token: manager, body: { fullName: 'Still Signed In' } })).status, 200);
    assert.equal((await call(app, 'GET', `/api/workers/${w.id}`, { token: fresh })).status, 200);
  });

  test('disable and enable: the worker’s token stops working and stays revoked; signing in again works', async () => {
    const { token, ...w } = await signedInWorker(app, manager);
    assert.equal((await call(app, 'PATCH', `/api/managers/workers/${w.id}`, { token: manager, body: { status: 'disabled' } })).body.status, 'disabled');
    assertTcError(await call(app, 'GET', `/api/workers/${w.id}`, { token }), 401, 'TOKEN_INVALID');
    const listed = await call(app, 'GET', `/api/managers/workers?search=${w.username}&status=disabled`, { token: manager });
    assert.equal(listed.body.totalCount, 1);
    assert.equal((await call(app, 'PATCH', `/api/managers/workers/${w.id}`, { token: manager, body: { status: 'active' } })).body.status, 'active');
    // Re-enabling does not bring the earlier token back (issue 27, item 18).
    assertTcError(await call(app, 'GET', `/api/workers/${w.id}`, { token }), 401, 'TOKEN_INVALID');
    const fresh = await workerLogin(app, w.username, w.password, w.deviceUuid);
    assert.equal((await call(app, 'GET', `/api/workers/${w.id}`, { token: fresh })).status, 200);
  });

  test('delete: soft; the worker disappears, the token stops, the username is free; clock history is kept', async () => {
    const site = await siteWithQr(app, manager);
    const w = await createWorker(app, manager, { username: `gone${Date.now()}` });
    const device = newDeviceUuid();
    const token = await workerLogin(app, w.username, w.password, device);
    assert.equal((await clock(app, token, { userId: w.id, eventType: 'clock_in', qrCodeValue: site.qr, ...site.center })).status, 200);
    assert.equal((await call(app, 'DELETE', `/api/managers/workers/${w.id}`, { token: manager })).status, 204);
    assertTcError(await call(app, 'GET', `/api/workers/${w.id}`, { token }), 401, 'TOKEN_INVALID');
    assertTcError(await call(app, 'GET', `/api/managers/workers/${w.id}`, { token: manager }), 404, 'NOT_FOUND');
    assertTcError(await call(app, 'GET', `/api/workers/${w.id}`, { token: manager }), 404, 'NOT_FOUND');
    assert.equal((await call(app, 'GET', `/api/managers/workers?search=${w.username}`, { token: manager })).body.totalCount, 0);
    assertTcError(await call(app, 'DELETE', `/api/managers/workers/${w.id}`, { token: manager }), 404, 'NOT_FOUND');
    const [kept] = await app.platform.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM timeclock.clock_events WHERE user_id = $1`, [w.id]);
    assert.equal(kept!.n, 1);
    const again = await createWorker(app, manager, { username: w.username });
    assert.notEqual(again.id, w.id);
    // The released device can be used by someone else; managers are not deleted here.
    await workerLogin(app, again.username, again.password, device);
    assertTcError(await call(app, 'DELETE', `/api/managers/workers/${managerId}`, { token: manager }), 404, 'NOT_FOUND');
  });

  test('a manager reads a worker’s detail: clock state and bound device', async () => {
    const site = await siteWithQr(app, manager);
    const w = await createWorker(app, manager);
    const device = newDeviceUuid('ios');
    const token = await workerLogin(app, w.username, w.password, device);
    await clock(app, token, { userId: w.id, eventType: 'clock_in', qrCodeValue: site.qr, ...site.center });
    const res = await call(app, 'GET', `/api/managers/workers/${w.id}`, { token: manager });
    assert.equal(res.status, 200);
    assert.equal(res.body.clock_state, 'clock_in');
    assert.equal(res.body.device.deviceUuid, device);
    assert.match(res.body.device.registeredAt, /Z$/);
    assert.equal((await call(app, 'DELETE', `/api/managers/workers/${w.id}/device`, { token: manager })).status, 204);
    assert.equal((await call(app, 'GET', `/api/managers/workers/${w.id}`, { token: manager })).body.device, null);
    assertTcError(await call(app, 'DELETE', '/api/managers/workers/999999/device', { token: manager }), 404, 'NOT_FOUND');
  });

  test('tags: list with counts, rename, duplicate names 409, delete removes them from workers', async () => {
    const name = `crew${Date.now()}`;
    const id = await tag(name);
    assertTcError(await call(app, 'POST', '/api/managers/tags', { token: manager, body: { name: name.toUpperCase() } }), 409, 'CONFLICT');
    assertTcError(await call(app, 'POST', '/api/managers/tags', { token: manager, body: { name: 'a,b' } }), 400, 'VALIDATION_ERROR');
    const w = await createWorker(app, manager, { tagIds: [id] });
    const listed = (await call(app, 'GET', '/api/managers/tags', { token: manager })).body.find((t: { id: number }) => t.id === id);
    assert.deepEqual([listed.name, listed.worker_count], [name, 1]);
    const renamed = await call(app, 'PATCH', `/api/managers/tags/${id}`, { token: manager, body: { name: `${name}-x` } });
    assert.equal(renamed.body.name, `${name}-x`);
    assert.equal((await call(app, 'GET', `/api/managers/workers/${w.id}`, { token: manager })).body.tags, `${name}-x`);
    assert.equal((await call(app, 'DELETE', `/api/managers/tags/${id}`, { token: manager })).status, 204);
    assert.equal((await call(app, 'GET', `/api/managers/workers/${w.id}`, { token: manager })).body.tags, '');
    assertTcError(await call(app, 'DELETE', `/api/managers/tags/${id}`, { token: manager }), 404, 'NOT_FOUND');
    assertTcError(await call(app, 'PATCH', `/api/managers/tags/${id}`, { token: manager, body: { name: 'zzz' } }), 404, 'NOT_FOUND');
  });

  test('GET /api/workers/:id: own record for a worker, anyone’s for a manager; another worker’s is 403', async () => {
    const a = await createWorker(app, manager, { fullName: 'Worker A' });
    const b = await createWorker(app, manager);
    const token = await workerLogin(app, a.username, a.password);
    const mine = await call(app, 'GET', `/api/workers/${a.id}`, { token });
    assert.equal(mine.status, 200);
    assert.equal(mine.body.full_name, 'Worker A');
    assert.deepEqual(Object.keys(mine.body).sort(), ['created_at', 'full_name', 'id', 'role', 'tags', 'username']);
    assertTcError(await call(app, 'GET', `/api/workers/${b.id}`, { token }), 403, 'FORBIDDEN');
    assert.equal((await call(app, 'GET', `/api/workers/${b.id}`, { token: manager })).status, 200);
    assertTcError(await call(app, 'GET', '/api/workers/999999', { token: manager }), 404, 'NOT_FOUND');
    assertTcError(await call(app, 'GET', '/api/workers/x', { token: manager }), 400, 'VALIDATION_ERROR');
  });
});
