// The time-clock service skeleton: health, its `{ message, code, details }` error shape for
// framework failures, localisation, running alone or not at all (SERVICES), and the
// bootstrap manager.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { verifyPassword } from '../../src/platform/auth/password.ts';
import { MANAGER_PASSWORD, startApp, type TestApp } from '../helpers/app.ts';
import { call, type Reply } from '../helpers/http.ts';

/** Asserts the time-clock error shape and its code. */
function assertTimeclockError(res: Reply, status: number, code: string): void {
  const shown = JSON.stringify(res.body);
  assert.equal(res.status, status, shown);
  assert.match(String(res.headers['content-type']), /^application\/json/, shown);
  assert.deepEqual(Object.keys(res.body).sort(), ['code', 'details', 'message'], shown);
  assert.equal(res.body.code, code, shown);
  assert.equal(typeof res.body.message, 'string');
  assert.ok(res.body.message.length > 0, shown);
  assert.equal(typeof res.body.details, 'object');
  assert.notEqual(res.body.details, null);
  assert.ok(!Array.isArray(res.body.details));
  assert.equal(typeof res.headers['x-trace-id'], 'string', 'X-Trace-ID header');
  assert.doesNotMatch(shown, /\n\s*at |\.ts:\d+|FST_ERR|stack/i, shown);
}

/** The process-level 404 for paths outside every enabled service. */
function assertRootNotFound(res: Reply, path: string): void {
  assert.equal(res.status, 404, JSON.stringify(res.body));
  assert.deepEqual(res.body, { message: 'Not Found', code: 'NOT_FOUND', details: { path } });
}

describe('both services (default)', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp({ SERVICES: 'admin,timeclock' });
  });
  after(() => app?.close());

  test('GET /api/health is 200 {status: "ok", service: "timeclock"} with no envelope', async () => {
    const res = await call(app, 'GET', '/api/health');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { status: 'ok', service: 'timeclock' });
    assert.equal(typeof res.headers['x-trace-id'], 'string');
  });

  test('an unknown /api path is a 404 {message, code: "NOT_FOUND", details: {}}', async () => {
    const res = await call(app, 'GET', '/api/whatever');
    assertTimeclockError(res, 404, 'NOT_FOUND');
    assert.deepEqual(res.body.details, {});
    assert.match(res.body.message, /^Not found/);
  });

  test('a deeper unknown path and another method are 404 too', async () => {
    assertTimeclockError(await call(app, 'POST', '/api/workers/1/nothing', { body: { a: 1 } }), 404, 'NOT_FOUND');
    assertTimeclockError(await call(app, 'DELETE', '/api/whatever'), 404, 'NOT_FOUND');
  });

  test('POST /api/health is a 405 "METHOD_NOT_ALLOWED" with an Allow header', async () => {
    const res = await call(app, 'POST', '/api/health');
    assertTimeclockError(res, 405, 'METHOD_NOT_ALLOWED');
    assert.equal(res.headers.allow, 'GET');
  });

  test('DELETE /api/health with a JSON body is a 405 too', async () => {
    const res = await call(app, 'DELETE', '/api/health', { body: { x: 1 } });
    assertTimeclockError(res, 405, 'METHOD_NOT_ALLOWED');
  });

  test('zh-CN localises the messages', async () => {
    const zh = { 'accept-language': 'zh-CN' };
    const notFound = await call(app, 'GET', '/api/whatever', { headers: zh });
    assertTimeclockError(notFound, 404, 'NOT_FOUND');
    assert.match(notFound.body.message, /^未找到/);
    const method = await call(app, 'POST', '/api/health', { headers: zh });
    assertTimeclockError(method, 405, 'METHOD_NOT_ALLOWED');
    assert.match(method.body.message, /^请求方法不被允许/);
  });

  test('en-US and no Accept-Language give English', async () => {
    for (const headers of [{ 'accept-language': 'en-US' }, {}] as Record<string, string>[]) {
      const res = await call(app, 'GET', '/api/whatever', { headers });
      assertTimeclockError(res, 404, 'NOT_FOUND');
      assert.match(res.body.message, /^Not found/);
    }
  });

  test('a well-formed X-Trace-ID is echoed on time-clock responses', async () => {
    const res = await call(app, 'GET', '/api/health', { headers: { 'x-trace-id': 'tc-trace-0123456789' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers['x-trace-id'], 'tc-trace-0123456789');
  });

  test('admin paths keep the admin envelope while /api paths use the time-clock shape', async () => {
    const res = await call(app, 'GET', '/api/admin/whatever');
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 20002);
    assert.equal(res.body.data, null);
  });

  test('messages follow Accept-Language: validation names the allowed values, in Chinese too', async () => {
    const login = await call(app, 'POST', '/api/auth/login', { body: { username: 'manager', password: MANAGER_PASSWORD, deviceUuid: 'web-00000000-0000-4000-8000-000000000001' } });
    assert.equal(login.status, 200);
    const token = (login.body as { token: string }).token;
    const body = { userId: 1, eventType: 'lunch', qrCodeValue: 'x', latitude: 0, longitude: 0 };
    const zh = await call(app, 'POST', '/api/clock', { body, headers: { authorization: `Bearer ${token}`, 'accept-language': 'zh-CN' } });
    assertTimeclockError(zh, 400, 'VALIDATION_ERROR');
    assert.equal(zh.body.message, '请求数据无效：body.eventType 必须是以下之一：clock_in、clock_out');
    assert.deepEqual(zh.body.details.errors, ['body.eventType 必须是以下之一：clock_in、clock_out']);
    const en = await call(app, 'POST', '/api/clock', { body, headers: { authorization: `Bearer ${token}` } });
    assert.equal(en.body.message, 'Invalid request data: body.eventType must be one of: clock_in, clock_out');
    const missing = await call(app, 'GET', '/api/workers/999999', { headers: { authorization: `Bearer ${token}`, 'accept-language': 'zh' } });
    assertTimeclockError(missing, 404, 'NOT_FOUND');
    assert.equal(missing.body.message, '未找到：员工 999999 不存在');
  });

  test('paths outside both services get the process-level 404', async () => {
    assertRootNotFound(await call(app, 'GET', '/nowhere'), '/nowhere');
  });

  test('GET / lists both services', async () => {
    const res = await call(app, 'GET', '/');
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body.services).sort(), ['admin', 'timeclock']);
    assert.equal(res.body.services.timeclock.base, '/api');
    assert.equal(res.body.services.timeclock.openapi, '/api/docs/openapi.json');
  });

  test('the bootstrap manager exists with role manager and an argon2id hash of MANAGER_PASSWORD', async () => {
    const rows = await app.platform.db.query<{ username: string; role: string; password_hash: string; status: number }>(
      `SELECT username, role, password_hash, status FROM timeclock.users WHERE role = 'manager'`,
    );
    assert.equal(rows.length, 1);
    const manager = rows[0]!;
    assert.equal(manager.username, 'manager');
    assert.equal(manager.role, 'manager');
    assert.equal(Number(manager.status), 1);
    assert.ok(manager.password_hash.startsWith('$argon2id$v=19$m=19456,t=2,p=1$'), manager.password_hash.slice(0, 32));
    assert.equal(await verifyPassword(manager.password_hash, MANAGER_PASSWORD), true);
    assert.equal(await verifyPassword(manager.password_hash, `${MANAGER_PASSWORD}x`), false);
    assert.ok(!manager.password_hash.includes(MANAGER_PASSWORD));
  });
});

describe('SERVICES=timeclock', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp({ SERVICES: 'timeclock' });
  });
  after(() => app?.close());

  test('/api/health works', async () => {
    const res = await call(app, 'GET', '/api/health');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { status: 'ok', service: 'timeclock' });
  });

  test('admin paths are 404 in the time-clock shape', async () => {
    for (const [method, url] of [['GET', '/api/admin/captcha'], ['POST', '/api/admin/login'], ['GET', '/api/admin/docs/openapi.json'], ['GET', '/api/admin/info']] as const) {
      const res = await call(app, method, url, method === 'POST' ? { body: { username: 'admin', password: 'x' } } : {});
      assertTimeclockError(res, 404, 'NOT_FOUND');
      assert.deepEqual(res.body.details, {});
    }
  });

  test('the time-clock docs are served', async () => {
    const res = await call(app, 'GET', '/api/docs/openapi.json');
    assert.equal(res.status, 200);
    assert.ok(Object.keys(res.body.paths).includes('/api/health'));
  });

  test('GET / lists only the time-clock service', async () => {
    const res = await call(app, 'GET', '/');
    assert.deepEqual(Object.keys(res.body.services), ['timeclock']);
  });

  test('the bootstrap manager is created', async () => {
    const rows = await app.platform.db.query<{ password_hash: string }>(`SELECT password_hash FROM timeclock.users WHERE role = 'manager'`);
    assert.equal(rows.length, 1);
    assert.equal(await verifyPassword(rows[0]!.password_hash, MANAGER_PASSWORD), true);
  });
});

describe('SERVICES=admin', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp({ SERVICES: 'admin' });
  });
  after(() => app?.close());

  test('/api/health is the process-level 404', async () => {
    assertRootNotFound(await call(app, 'GET', '/api/health'), '/api/health');
  });

  test('other /api paths and the time-clock docs are the process-level 404', async () => {
    assertRootNotFound(await call(app, 'GET', '/api/whatever?x=1'), '/api/whatever');
    assertRootNotFound(await call(app, 'GET', '/api/docs/openapi.json'), '/api/docs/openapi.json');
  });

  test('/api/admin/captcha works', async () => {
    const res = await call(app, 'GET', '/api/admin/captcha');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.code, 200);
    assert.equal(res.body.message, 'success');
    assert.match(res.body.data.captcha_image, /^data:image\/png;base64,[A-Za-z0-9+/]+=*$/);
    assert.equal(typeof res.body.data.captcha_id, 'string');
    assert.ok(res.body.data.expires_in > 0);
  });

  test('GET / lists only the admin service', async () => {
    const res = await call(app, 'GET', '/');
    assert.deepEqual(Object.keys(res.body.services), ['admin']);
  });
});
