// The server serves the built console: hashed assets cached for a year, index.html never cached,
// client routes answered with index.html, and nothing of it under /api.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
before(async () => {
  app = await startApp();
});
after(() => app?.close());

const get = (url: string, accept = 'text/html') => app.app.inject({ url, headers: { accept } });

test('the console: index.html uncached, hashed assets cached for a year', async () => {
  const index = await get('/');
  assert.equal(index.statusCode, 200);
  assert.match(String(index.headers['content-type']), /^text\/html/);
  assert.equal(index.headers['cache-control'], 'no-cache');
  const script = /src="(\/assets\/[^"]+\.js)"/.exec(index.body)?.[1];
  assert.ok(script, 'index.html loads a hashed script');
  const asset = await get(script);
  assert.equal(asset.statusCode, 200);
  assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable');
  assert.match(String(asset.headers['content-type']), /javascript/);
  const assets = readdirSync(path.resolve(import.meta.dirname, '../../web/admin/dist/assets'));
  assert.ok(assets.every((f) => /-[A-Za-z0-9_-]{8}\.(js|css)(\.br|\.gz)?$/.test(f)), 'every asset name carries its hash');
  // Compressed for browsers that accept it (the build's own brotli and gzip copies).
  const br = await app.app.inject({ url: script, headers: { 'accept-encoding': 'gzip, deflate, br' } });
  assert.equal(br.headers['content-encoding'], 'br');
  assert.ok(Number(br.headers['content-length']) < Number(asset.headers['content-length']) / 2);
  assert.equal(br.headers['cache-control'], 'public, max-age=31536000, immutable');
  const gz = await app.app.inject({ url: script, headers: { 'accept-encoding': 'gzip' } });
  assert.equal(gz.headers['content-encoding'], 'gzip');
});

test('client routes fall back to index.html; unknown files and anything under /api do not', async () => {
  for (const route of ['/system/admins', '/trade/orders?status=paid', '/login']) {
    const res = await get(route);
    assert.equal(res.statusCode, 200, route);
    assert.match(res.body, /<div id="root">/, route);
    assert.equal(res.headers['cache-control'], 'no-cache');
  }
  assert.equal((await get('/assets/missing-12345678.js')).statusCode, 404);
  const api = await get('/api/admin/nope');
  assert.equal(api.statusCode, 404);
  assert.match(String(api.headers['content-type']), /application\/json/);
  assert.equal((await get('/api/nope')).statusCode, 404);
});

test('`/` for an API client still lists the services', async () => {
  const res = await get('/', 'application/json');
  assert.equal(res.statusCode, 200);
  assert.deepEqual(Object.keys(res.json().services).sort(), ['admin', 'timeclock']);
});
