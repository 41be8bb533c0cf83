// The web app's refresh cookie (issue 27, item 19): the app keeps its token in memory only; sign-in
// sets an HttpOnly cookie that only the refresh route receives, and a reloaded (or reopened) app
// gets a token back with it. The cookie is checked exactly like a bearer token (an enabled,
// unrevoked account), renewed at every refresh, and cleared by sign-out.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.ts';
import { call, type Reply } from '../helpers/http.ts';
import { assertTcError, createWorker, managerToken, newDeviceUuid, tokenUserId } from '../helpers/timeclock.ts';

const NAME = 'fieldops_clock_refresh';

interface Cookie {
  value: string;
  attrs: Map<string, string>;
}

function cookieOf(res: Reply): Cookie | undefined {
  const raw = [res.headers['set-cookie'] ?? []].flat().map(String).find((c) => c.startsWith(`${NAME}=`));
  if (!raw) return undefined;
  const [pair, ...attrs] = raw.split(';').map((s) => s.trim());
  return {
    value: pair!.slice(NAME.length + 1),
    attrs: new Map(attrs.map((a) => {
      const i = a.indexOf('=');
      return i < 0 ? [a.toLowerCase(), ''] : [a.slice(0, i).toLowerCase(), a.slice(i + 1)];
    })),
  };
}

let app: TestApp;
let manager: string;
before(async () => {
  app = await startApp({ TRUST_PROXY: '127.0.0.1' });
  manager = await managerToken(app);
});
after(() => app?.close());

async function signedIn(headers: Record<string, string> = {}) {
  const w = await createWorker(app, manager);
  const res = await call(app, 'POST', '/api/auth/login', { body: { username: w.username, password: w.password, deviceUuid: newDeviceUuid() }, headers });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const cookie = cookieOf(res);
  assert.ok(cookie, 'sign-in sets the refresh cookie');
  return { ...w, token: res.body.token as string, cookie, body: res.body };
}

const refreshByCookie = (value: string) => call(app, 'POST', '/api/auth/refresh', { headers: { cookie: `${NAME}=${value}` } });

describe('the refresh cookie set at sign-in', () => {
  test('HttpOnly, SameSite=Strict, only for the refresh route, TIMECLOCK_REFRESH_TTL long; Secure over HTTPS; the reply is the contract’s', async () => {
    const w = await signedIn();
    assert.deepEqual(Object.keys(w.body).sort(), ['fullName', 'mustChangePassword', 'role', 'token', 'userId']);
    assert.ok(w.cookie.attrs.has('httponly'));
    assert.equal(w.cookie.attrs.get('samesite'), 'Strict');
    assert.equal(w.cookie.attrs.get('path'), '/api/auth/refresh');
    assert.equal(Number(w.cookie.attrs.get('max-age')), app.platform.config.TIMECLOCK_REFRESH_TTL);
    assert.equal(app.platform.config.TIMECLOCK_REFRESH_TTL, 30 * 86400, 'a phone stays signed in for 30 days by default');
    assert.ok(!w.cookie.attrs.has('secure'));
    const https = await signedIn({ 'x-forwarded-proto': 'https' });
    assert.ok(https.cookie.attrs.has('secure'));
  });
});

describe('POST /api/auth/refresh with the cookie', () => {
  test('answers a token of the same account and a renewed cookie', async () => {
    const w = await signedIn();
    const res = await refreshByCookie(w.cookie.value);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(Object.keys(res.body), ['token', 'mustChangePassword']);
    assert.equal(tokenUserId(res.body.token), w.id);
    assert.equal((await call(app, 'GET', `/api/workers/${w.id}`, { token: res.body.token })).status, 200);
    const next = cookieOf(res);
    assert.ok(next);
    assert.equal(Number(next.attrs.get('max-age')), app.platform.config.TIMECLOCK_REFRESH_TTL);
    assert.equal((await refreshByCookie(next.value)).status, 200);
  });

  test('the bearer contract is unchanged, and renews the cookie too', async () => {
    const w = await signedIn();
    const res = await call(app, 'POST', '/api/auth/refresh', { token: w.token });
    assert.equal(res.status, 200);
    assert.equal(tokenUserId(res.body.token), w.id);
    assert.ok(cookieOf(res));
    // A bearer token is tried as such (not as a cookie) when both are sent.
    assertTcError(await call(app, 'POST', '/api/auth/refresh', { token: 'nope', headers: { cookie: `${NAME}=${w.cookie.value}` } }), 401, 'TOKEN_INVALID');
  });

  test('nothing, garbage, or a token in the cookie’s place: 401; the cookie is no bearer token', async () => {
    assertTcError(await call(app, 'POST', '/api/auth/refresh'), 401, 'TOKEN_INVALID');
    assertTcError(await refreshByCookie('garbage'), 401, 'TOKEN_INVALID');
    const w = await signedIn();
    assertTcError(await refreshByCookie(w.token), 401, 'TOKEN_INVALID');
    assertTcError(await call(app, 'GET', `/api/workers/${w.id}`, { token: w.cookie.value }), 401, 'TOKEN_INVALID');
  });
});

describe('revocation applies to the cookie', () => {
  test('a disabled worker’s cookie is refused', async () => {
    const w = await signedIn();
    assert.equal((await call(app, 'PATCH', `/api/managers/workers/${w.id}`, { token: manager, body: { status: 'disabled' } })).status, 200);
    assertTcError(await refreshByCookie(w.cookie.value), 401, 'TOKEN_INVALID');
  });

  test('a new password set by a manager refuses the cookie issued before (in the same second too: the token version)', async () => {
    const w = await signedIn();
    assert.equal((await call(app, 'PATCH', `/api/managers/workers/${w.id}`, { token: manager, body: { password: 'Changed-pass-456' } })).status, 200);
    assertTcError(await refreshByCookie(w.cookie.value), 401, 'TOKEN_INVALID');
  });
});

describe('POST /api/auth/logout', () => {
  test('clears the cookie (204), without needing a token', async () => {
    const res = await call(app, 'POST', '/api/auth/logout');
    assert.equal(res.status, 204);
    const cleared = cookieOf(res);
    assert.ok(cleared);
    assert.equal(cleared.value, '');
    assert.equal(cleared.attrs.get('max-age'), '0');
    assert.equal(cleared.attrs.get('path'), '/api/auth/refresh');
    assert.ok(cleared.attrs.has('httponly'));
  });
});
