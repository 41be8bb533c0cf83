// Security headers (issue 27, item 19): every page and asset of both web clients and of the API
// reference pages, and every API answer, forbids framing (frame-ancestors 'none', X-Frame-Options
// DENY), MIME sniffing and full-URL referrers, and carries a Content-Security-Policy: the clients
// run scripts of this origin only (no inline script), the reference pages their one inline script
// by its hash, the APIs nothing at all. The map tile origin is allowed only when configured.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.ts';

type Headers = Record<string, string | string[] | number | undefined>;

/** The CSP as directive -> sources. */
function csp(headers: Headers): Map<string, string[]> {
  const raw = String(headers['content-security-policy'] ?? '');
  assert.ok(raw, 'a Content-Security-Policy');
  return new Map(raw.split(';').map((d) => d.trim().split(/\s+/)).filter((d) => d[0]).map(([k, ...v]) => [k!, v]));
}

function assertCommon(headers: Headers, what: string): void {
  assert.equal(headers['x-frame-options'], 'DENY', what);
  assert.equal(headers['x-content-type-options'], 'nosniff', what);
  assert.equal(headers['referrer-policy'], 'strict-origin-when-cross-origin', what);
  assert.deepEqual(csp(headers).get('frame-ancestors'), ["'none'"], what);
  const permissions = String(headers['permissions-policy']);
  assert.match(permissions, /camera=\(self\)/, what);
  assert.match(permissions, /geolocation=\(self\)/, what);
}

/** The policy of the clients' pages: scripts of this origin only, never inline. */
function assertAppPolicy(headers: Headers, what: string): Map<string, string[]> {
  assertCommon(headers, what);
  const p = csp(headers);
  assert.deepEqual(p.get('script-src'), ["'self'"], what);
  assert.deepEqual(p.get('default-src'), ["'self'"], what);
  assert.deepEqual(p.get('object-src'), ["'none'"], what);
  assert.deepEqual(p.get('connect-src'), ["'self'"], what);
  assert.ok(!String(headers['content-security-policy']).includes('unsafe-eval'), what);
  return p;
}

const html = { accept: 'text/html' };

describe('security headers', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp();
  });
  after(() => app?.close());
  const get = (url: string, headers: Record<string, string> = html) => app.app.inject({ url, headers });

  test('the console at / and a client route, and their assets', async () => {
    const index = await get('/');
    assert.equal(index.statusCode, 200);
    const p = assertAppPolicy(index.headers, '/');
    assert.ok(!p.get('img-src')!.some((s) => s.startsWith('http')), 'no tile origin unless configured');
    assertAppPolicy((await get('/system/admins')).headers, 'a client route');
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(index.body)![1]!;
    const asset = await get(script, {});
    assert.equal(asset.statusCode, 200);
    assertAppPolicy(asset.headers, script);
    // No inline script in the built page, so none needs allowing.
    assert.doesNotMatch(index.body, /<script(?![^>]*\bsrc=)[^>]*>/);
  });

  test('the time-clock app at /clock/, its assets and its service worker', async () => {
    const index = await get('/clock/');
    assert.equal(index.statusCode, 200);
    assertAppPolicy(index.headers, '/clock/');
    assert.doesNotMatch(index.body, /<script(?![^>]*\bsrc=)[^>]*>/);
    const script = /src="(\/clock\/assets\/[^"]+\.js)"/.exec(index.body)![1]!;
    assertAppPolicy((await get(script, {})).headers, script);
    const sw = await get('/clock/sw.js', {});
    assert.equal(sw.statusCode, 200);
    // The service worker's own policy lets it fetch from this origin.
    assertAppPolicy(sw.headers, 'sw.js');
  });

  test('the API reference pages: their inline set-up script allowed by its hash, nothing else inline', async () => {
    for (const url of ['/api/admin/docs/', '/api/docs/']) {
      const page = await get(url);
      assert.equal(page.statusCode, 200, url);
      assertCommon(page.headers, url);
      const scripts = csp(page.headers).get('script-src')!;
      const inline = [...page.body.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
      assert.ok(inline.length > 0, url);
      for (const body of inline) assert.ok(scripts.includes(`'sha256-${createHash('sha256').update(body).digest('base64')}'`), `${url}: its inline script's hash`);
      assert.deepEqual(scripts.filter((s) => !s.startsWith("'sha256-")), ["'self'"], url);
    }
  });

  test('API answers: nothing may load, run or frame them', async () => {
    for (const url of ['/api/admin/captcha', '/api/health', '/api/admin/nope', '/healthz']) {
      const res = await get(url, { accept: 'application/json' });
      assertCommon(res.headers, url);
      if (url.startsWith('/api/')) assert.equal(csp(res.headers).get('default-src')?.[0], "'none'", url);
    }
  });
});

describe('with CLOCK_MAP_TILE_URL', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp({ CLOCK_MAP_TILE_URL: 'https://{s}.tile.example.org/{z}/{x}/{y}.png' });
  });
  after(() => app?.close());

  test('the tile origin may serve images, and nothing else', async () => {
    const res = await app.app.inject({ url: '/clock/', headers: html });
    const p = assertAppPolicy(res.headers, '/clock/');
    assert.ok(p.get('img-src')!.includes('https://*.tile.example.org'));
    assert.ok(!p.get('connect-src')!.includes('https://*.tile.example.org'));
  });
});
