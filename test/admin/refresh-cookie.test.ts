// The console's refresh cookie (issue 27, item 19): the console keeps its token in memory only;
// sign-in sets an HttpOnly cookie that only the refresh route receives, and a reloaded page gets
// a token back with it. The cookie lives and dies with its session: rotated at every refresh,
// refused once used, after sign-out, kick-out, a password change or a disabled account.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.ts';
import { assertError, assertOk } from '../helpers/assert.ts';
import { call, login, signedInAdmin, type Reply } from '../helpers/http.ts';

const NAME = 'fieldops_admin_refresh';

interface Cookie {
  value: string;
  attrs: Map<string, string>;
}

/** The refresh cookie a reply sets (undefined: none). */
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
before(async () => {
  // A TLS-terminating proxy on loopback (app.inject's address) may say the request came over HTTPS.
  app = await startApp({ TRUST_PROXY: '127.0.0.1' });
});
after(() => app?.close());

async function signIn(username = 'admin', password?: string, headers: Record<string, string> = {}) {
  const res = await call(app, 'POST', '/api/admin/login', { body: { username, ...(password ? { password } : { password: 'Admin-pass-123' }) }, headers });
  assertOk(res);
  const cookie = cookieOf(res);
  assert.ok(cookie, 'sign-in sets the refresh cookie');
  return { token: res.body.data.token as string, cookie };
}

const refreshByCookie = (value: string, headers: Record<string, string> = {}) =>
  call(app, 'POST', '/api/admin/refresh-token', { headers: { cookie: `other=1; ${NAME}=${value}`, ...headers } });

describe('the refresh cookie set at sign-in', () => {
  test('HttpOnly, SameSite=Strict, only for the refresh route, for the session’s lifetime; Secure over HTTPS', async () => {
    const { cookie } = await signIn();
    assert.ok(cookie.attrs.has('httponly'));
    assert.equal(cookie.attrs.get('samesite'), 'Strict');
    assert.equal(cookie.attrs.get('path'), '/api/admin/refresh-token');
    const maxAge = Number(cookie.attrs.get('max-age'));
    const ttl = app.platform.config.ADMIN_TOKEN_TTL;
    assert.ok(maxAge > ttl - 5 && maxAge <= ttl, `Max-Age ${maxAge} is the session's ${ttl}`);
    assert.ok(!cookie.attrs.has('secure'), 'plain HTTP: a Secure cookie would never come back');
    // Behind a TLS-terminating proxy (trusted), the cookie is Secure.
    const https = await signIn('admin', undefined, { 'x-forwarded-proto': 'https' });
    assert.ok(https.cookie.attrs.has('secure'));
    // The reply body is the contract's, unchanged.
    const res = await call(app, 'POST', '/api/admin/login', { body: { username: 'admin', password: 'Admin-pass-123' } });
    assert.deepEqual(Object.keys(res.body.data).sort(), ['expires_at', 'must_bind_authenticator', 'must_change_password', 'token']);
  });
});

describe('POST /refresh-token with the cookie', () => {
  test('gives a working token and a new cookie; the old token and the used cookie stop working', async () => {
    const first = await signIn();
    const res = await refreshByCookie(first.cookie.value);
    assertOk(res);
    const { token } = res.body.data;
    assert.notEqual(token, first.token);
    assertOk(await call(app, 'GET', '/api/admin/info', { token }));
    assertError(await call(app, 'GET', '/api/admin/info', { token: first.token }), 401, 10004);
    const next = cookieOf(res);
    assert.ok(next && next.value !== first.cookie.value, 'rotated');
    // A cookie is good once.
    assertError(await refreshByCookie(first.cookie.value), 401, 10004);
    assertOk(await refreshByCookie(next.value));
  });

  test('a refresh with the bearer token rotates the cookie too (the page refreshes with its token, then reloads)', async () => {
    const first = await signIn();
    const res = await call(app, 'POST', '/api/admin/refresh-token', { token: first.token });
    assertOk(res);
    const next = cookieOf(res);
    assert.ok(next);
    assertError(await refreshByCookie(first.cookie.value), 401, 10004);
    assertOk(await refreshByCookie(next.value));
  });

  test('without a token or a cookie, or with something else, 401', async () => {
    assertError(await call(app, 'POST', '/api/admin/refresh-token'), 401, 10007);
    assertError(await refreshByCookie('not-a-token'), 401, 10007);
    // An access token is not a refresh cookie, and a refresh cookie is not an access token.
    const { token, cookie } = await signIn();
    assertError(await refreshByCookie(token), 401, 10007);
    assertError(await call(app, 'GET', '/api/admin/info', { token: cookie.value }), 401, 10007);
    assertError(await call(app, 'POST', '/api/admin/refresh-token', { token: cookie.value }), 401, 10007);
  });
});

describe('the cookie dies with its session', () => {
  test('sign-out clears it, and it is refused after', async () => {
    const { token, cookie } = await signIn();
    const res = await call(app, 'POST', '/api/admin/logout', { token });
    assertOk(res);
    const cleared = cookieOf(res);
    assert.ok(cleared, 'sign-out sets the cookie');
    assert.equal(cleared.value, '');
    assert.equal(cleared.attrs.get('max-age'), '0');
    assert.equal(cleared.attrs.get('path'), '/api/admin/refresh-token');
    assertError(await refreshByCookie(cookie.value), 401, 10004);
  });

  test('a kicked-out session’s cookie is refused', async () => {
    const victim = await signedInAdmin(app);
    const { cookie } = await signIn(victim.username, victim.password);
    const admin = await login(app);
    const listed = await call(app, 'GET', `/api/admin/online-admins?page_size=100&username=${victim.username}`, { token: admin });
    assertOk(listed);
    const ids = (listed.body.data.list as { token_id: number; username: string }[]).filter((s) => s.username === victim.username).map((s) => s.token_id);
    assert.equal(ids.length, 2);
    for (const id of ids) assertOk(await call(app, 'DELETE', `/api/admin/online-admins/${id}`, { token: admin }));
    assertError(await refreshByCookie(cookie.value), 401, 10004);
  });

  test('a password change refuses the other sessions’ cookies (the session that changed it keeps its own)', async () => {
    const me = await signedInAdmin(app);
    const here = await signIn(me.username, me.password);
    const elsewhere = await signIn(me.username, me.password);
    const newPassword = 'Brand-new-pass-789';
    assertOk(await call(app, 'PUT', '/api/admin/password', {
      token: here.token,
      body: { old_password: me.password, password: newPassword, password_confirmation: newPassword },
    }));
    assertError(await refreshByCookie(elsewhere.cookie.value), 401, 10004);
    assertOk(await refreshByCookie(here.cookie.value));
  });

  test('a disabled administrator’s cookie is refused', async () => {
    const victim = await signedInAdmin(app);
    const { cookie } = await signIn(victim.username, victim.password);
    const admin = await login(app);
    assertOk(await call(app, 'PUT', `/api/admin/admins/${victim.id}`, { token: admin, body: { status: 0 } }));
    assertError(await refreshByCookie(cookie.value), 401, 10004);
  });
});
