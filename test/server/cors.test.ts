// Cross-origin access: off by default; CORS_ORIGINS opens both APIs to the listed origins only,
// without credentials; WebSocket upgrades check Origin against the same list.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import { closeAll, startApps, type TestApp } from '../helpers/app.ts';
import { call, login } from '../helpers/http.ts';

const APP = 'https://console.example.com';
const DEV = 'http://localhost:5173';
const OTHER = 'https://elsewhere.example';

function preflight(app: TestApp, url: string, origin: string, method = 'POST', headers = 'content-type,authorization') {
  return call(app, 'OPTIONS', url, {
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
  });
}

/** The status of a WebSocket upgrade sent with these headers (101 when it is accepted). */
function upgradeStatus(app: TestApp, headers: Record<string, string>): Promise<number> {
  const { port } = app.app.server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/admin/ws/notifications`, { headers });
    ws.on('open', () => {
      ws.close();
      resolve(101);
    });
    ws.on('unexpected-response', (_req, res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    ws.on('error', reject);
  });
}

describe('CORS', () => {
  let closed: TestApp;
  let open: TestApp;
  before(async () => {
    [closed, open] = await startApps([{}, { CORS_ORIGINS: `${APP},${DEV}` }]);
    await open.app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(() => closeAll(closed, open));

  test('off by default: no access-control headers, on a preflight or a request', async () => {
    const pre = await preflight(closed, '/api/admin/login', APP);
    assert.equal(pre.headers['access-control-allow-origin'], undefined);
    const get = await call(closed, 'GET', '/api/admin/captcha', { headers: { origin: APP } });
    assert.equal(get.headers['access-control-allow-origin'], undefined);
  });

  test('a listed origin: the preflight of both services allows the methods and headers the APIs use, cached, without credentials', async () => {
    for (const url of ['/api/admin/login', '/api/auth/login', '/api/managers/sites/5']) {
      const pre = await preflight(open, url, APP, url.endsWith('5') ? 'PATCH' : 'POST');
      assert.equal(pre.status, 204, url);
      assert.equal(pre.headers['access-control-allow-origin'], APP);
      assert.match(String(pre.headers['access-control-allow-methods']), /PATCH/);
      assert.match(String(pre.headers['access-control-allow-headers']), /Authorization/);
      assert.match(String(pre.headers['access-control-allow-headers']), /Accept-Language/);
      assert.equal(pre.headers['access-control-max-age'], '3600');
      assert.equal(pre.headers['access-control-allow-credentials'], undefined);
    }
    assert.equal((await preflight(open, '/api/admin/orders', DEV, 'GET', 'authorization')).headers['access-control-allow-origin'], DEV);
  });

  test('a listed origin reads answers and refusals, with the headers a client needs exposed', async () => {
    const token = await login(open);
    const info = await call(open, 'GET', '/api/admin/info', { token, headers: { origin: APP } });
    assert.equal(info.status, 200);
    assert.equal(info.headers['access-control-allow-origin'], APP);
    assert.match(String(info.headers['access-control-expose-headers']), /X-Trace-ID/);
    assert.match(String(info.headers['access-control-expose-headers']), /Retry-After/);
    const refused = await call(open, 'GET', '/api/admin/info', { headers: { origin: APP } });
    assert.equal(refused.status, 401);
    assert.equal(refused.headers['access-control-allow-origin'], APP);
    const worker = await call(open, 'POST', '/api/auth/login', { headers: { origin: APP }, body: { username: 'x', password: 'y' } });
    assert.equal(worker.headers['access-control-allow-origin'], APP);
  });

  test('another origin gets no access-control headers', async () => {
    const pre = await preflight(open, '/api/admin/login', OTHER);
    assert.equal(pre.headers['access-control-allow-origin'], undefined);
    const get = await call(open, 'GET', '/api/admin/captcha', { headers: { origin: OTHER } });
    assert.equal(get.headers['access-control-allow-origin'], undefined);
  });

  test('WebSocket upgrades: a page of another origin is refused (403); the server’s own origin, a listed one and a client without Origin go on', async () => {
    const token = await login(open);
    const authorization = `Bearer ${token}`;
    const { port } = open.app.server.address() as AddressInfo;
    assert.equal(await upgradeStatus(open, { authorization, origin: OTHER }), 403);
    assert.equal(await upgradeStatus(open, { authorization, origin: APP }), 101);
    assert.equal(await upgradeStatus(open, { authorization, origin: `http://127.0.0.1:${port}` }), 101);
    assert.equal(await upgradeStatus(open, { authorization }), 101);
  });
});

test('CORS_ORIGINS must list origins', async () => {
  const { loadConfig } = await import('../../src/platform/config.ts');
  assert.throws(() => loadConfig({ CORS_ORIGINS: 'https://ok.example, https://bad.example/path,*' }), /CORS_ORIGINS=.*not an origin.*https:\/\/bad\.example\/path, \*/);
  assert.deepEqual(loadConfig({ CORS_ORIGINS: 'https://ok.example, http://localhost:5173' }).corsOrigins, ['https://ok.example', 'http://localhost:5173']);
});
