// Self-service authenticator (2FA): status, a pending secret with its otpauth URI and QR
// code, binding with a code, sign-in then requiring google_code, unbinding; codes accepted
// once; secrets never shown after binding; other sessions ended on each change.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { totpCode, TOTP_PERIOD } from '../../src/platform/auth/totp.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { call, login, seedAdmin } from '../helpers/http.ts';
import { assertError, assertOk } from '../helpers/assert.ts';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const BASE = '/api/admin/google-authenticator';

let app: TestApp;

before(async () => {
  app = await startApp();
});
after(() => app?.close());

const status = async (token: string) => assertOk(await call(app, 'GET', `${BASE}/status`, { token })).is_bound as boolean;
const qrcode = (token: string) => call(app, 'GET', `${BASE}/qrcode`, { token });
const bind = (token: string, body: unknown) => call(app, 'POST', `${BASE}/bind`, { token, body });
const unbind = (token: string, body: unknown) => call(app, 'POST', `${BASE}/unbind`, { token, body });
const info = (token: string) => call(app, 'GET', '/api/admin/info', { token });
const postLogin = (body: Record<string, unknown>) => call(app, 'POST', '/api/admin/login', { body });

/** A code of the step after the current one: valid (±1 step) and newer than one used now. */
const nextCode = (secret: string) => totpCode(secret, Date.now() + TOTP_PERIOD * 1000);
const prevCode = (secret: string) => totpCode(secret, Date.now() - TOTP_PERIOD * 1000);
function wrongCode(secret: string): string {
  const near = new Set<string>();
  for (let d = -3; d <= 3; d++) near.add(totpCode(secret, Date.now() + d * TOTP_PERIOD * 1000));
  for (let n = 0; ; n++) if (!near.has(String(n).padStart(6, '0'))) return String(n).padStart(6, '0');
}

async function secretOf(id: number): Promise<string | null> {
  const [row] = await app.platform.db.query<{ totp_secret: string | null }>('SELECT totp_secret FROM admin.admins WHERE id = $1', [id]);
  return row!.totp_secret;
}

async function signedIn() {
  const a = await seedAdmin(app, { permissions: [] });
  return { ...a, token: await login(app, a.username, a.password) };
}

describe('qrcode and bind', () => {
  test('full flow: qrcode → bind → status bound → login needs google_code', async () => {
    const a = await signedIn();
    const other = await login(app, a.username, a.password);
    assert.equal(await status(a.token), false);

    const res = await qrcode(a.token);
    const data = assertOk(res);
    assert.deepEqual(Object.keys(data).sort(), ['expires_in', 'otpauth_url', 'qrcode', 'secret']);
    assert.match(data.secret, /^[A-Z2-7]{32}$/);
    assert.equal(data.expires_in, 600);
    const uri = new URL(data.otpauth_url);
    assert.equal(uri.protocol, 'otpauth:');
    assert.equal(uri.host, 'totp');
    assert.equal(uri.searchParams.get('secret'), data.secret);
    assert.equal(uri.searchParams.get('issuer'), 'FieldOps Admin');
    assert.ok(decodeURIComponent(uri.pathname).endsWith(`:${a.username}`), uri.pathname);
    assert.match(data.qrcode, /^data:image\/png;base64,/);
    const png = Buffer.from(data.qrcode.slice('data:image/png;base64,'.length), 'base64');
    assert.deepEqual(png.subarray(0, 8), PNG_SIGNATURE);
    assert.equal(await secretOf(a.id), null, 'pending, not bound');
    assert.equal(await status(a.token), false);

    const code = totpCode(data.secret);
    assert.equal(assertOk(await bind(a.token, { secret: data.secret, code })), null);
    assert.equal(await status(a.token), true);
    assert.equal(await secretOf(a.id), data.secret);
    assertOk(await info(a.token));
    assertError(await info(other), 401, 10004);

    // The secret is never shown again.
    assertError(await qrcode(a.token), 400, 30002);
    const profile = assertOk(await info(a.token));
    assert.equal(profile.is_2fa_bound, true);
    assert.doesNotMatch(JSON.stringify(profile), new RegExp(data.secret));

    // Sign-in now needs the code; the code used to bind cannot be replayed.
    assertError(await postLogin({ username: a.username, password: a.password }), 401, 10008);
    assertError(await postLogin({ username: a.username, password: a.password, google_code: code }), 401, 10008);
    const next = nextCode(data.secret);
    const second = assertOk(await postLogin({ username: a.username, password: a.password, google_code: next })).token as string;
    assertOk(await info(second));

    // Unbinding needs a fresh code: the one just used is refused.
    assertError(await unbind(a.token, { code: next }), 400, 10010);
    assert.equal(await status(a.token), true);
  });

  test('bind refuses a secret that is not the pending one (400 30001), a wrong, malformed or replayed code (400 10010)', async () => {
    const a = await signedIn();
    const first = assertOk(await qrcode(a.token)).secret as string;
    const latest = assertOk(await qrcode(a.token)).secret as string;
    assert.notEqual(first, latest);
    assertError(await bind(a.token, { secret: first, code: totpCode(first) }), 400, 30001);
    assertError(await bind(a.token, { secret: latest, code: wrongCode(latest) }), 400, 10010);
    assertError(await bind(a.token, { secret: latest, code: 'abcdef' }), 400, 10010);
    assertError(await bind(a.token, { secret: latest }), 400, 30001);
    assertError(await bind(a.token, { secret: latest, code: totpCode(latest), is_bound: true }), 400, 30001);
    assert.equal(await secretOf(a.id), null);

    // Another administrator cannot bind someone else's pending secret to themself.
    const b = await signedIn();
    assertError(await bind(b.token, { secret: latest, code: totpCode(latest) }), 400, 30001);
    assert.equal(await secretOf(b.id), null);

    assertOk(await bind(a.token, { secret: latest, code: totpCode(latest) }));
    assertError(await bind(a.token, { secret: latest, code: nextCode(latest) }), 400, 30002);
  });

  test('a pending secret that expired (or was never issued) cannot be bound', async () => {
    const a = await signedIn();
    const secret = assertOk(await qrcode(a.token)).secret as string;
    await app.platform.kv.del(`admin:totp:pending:${a.id}`);
    assertError(await bind(a.token, { secret, code: totpCode(secret) }), 400, 30001);
    assert.equal(await secretOf(a.id), null);
  });
});

describe('unbind', () => {
  test('with a current code: unbound, other sessions end, sign-in no longer needs a code', async () => {
    const a = await signedIn();
    const secret = assertOk(await qrcode(a.token)).secret as string;
    // Codes of the previous, current and next steps are all accepted once, in that order.
    assertOk(await bind(a.token, { secret, code: prevCode(secret) }));
    const used = totpCode(secret);
    const other = assertOk(await postLogin({ username: a.username, password: a.password, google_code: used })).token as string;
    assertOk(await info(other));

    assertError(await unbind(a.token, { code: wrongCode(secret) }), 400, 10010);
    assertError(await unbind(a.token, { code: used }), 400, 10010);
    assertError(await unbind(a.token, {}), 400, 30001);
    assertError(await unbind(a.token, { code: nextCode(secret), secret }), 400, 30001);
    assert.equal(await status(a.token), true);

    const fresh = nextCode(secret);
    assertOk(await unbind(a.token, { code: fresh }));
    assert.equal(await status(a.token), false);
    assert.equal(await secretOf(a.id), null);
    assertOk(await info(a.token));
    assertError(await info(other), 401, 10004);
    await login(app, a.username, a.password);
    assertError(await unbind(a.token, { code: fresh }), 400, 30001);
  });
});

describe('a wrong or malformed code is told plainly', () => {
  const JARGON = /Parameter validation failed|参数校验失败|pattern|google_code/;

  test('bind and unbind: the code of its own (10010), in both languages, with no validation prefix', async () => {
    const a = await signedIn();
    const secret = assertOk(await qrcode(a.token)).secret as string;
    for (const code of [wrongCode(secret), '12345', 'abcdef', '1234567']) {
      const en = await call(app, 'POST', `${BASE}/bind`, { token: a.token, body: { secret, code } });
      assertError(en, 400, 10010);
      assert.doesNotMatch(en.body.message, JARGON);
      assert.match(en.body.message, /authenticator code is wrong/);
      const zh = await call(app, 'POST', `${BASE}/bind`, { token: a.token, body: { secret, code }, headers: { 'accept-language': 'zh-CN' } });
      assertError(zh, 400, 10010);
      assert.doesNotMatch(zh.body.message, JARGON);
      assert.match(zh.body.message, /动态码错误/);
    }
    // Typed with a space, as some apps show it, the right code binds.
    const code = totpCode(secret);
    assertOk(await bind(a.token, { secret, code: `${code.slice(0, 3)} ${code.slice(3)}` }));
    const wrong = await call(app, 'POST', `${BASE}/unbind`, { token: a.token, body: { code: 'abc' }, headers: { 'accept-language': 'zh-CN' } });
    assertError(wrong, 400, 10010);
    assert.doesNotMatch(wrong.body.message, JARGON);
  });

  test('login: a malformed code is answered like a wrong one (401 10008), plainly, in both languages', async () => {
    const a = await signedIn();
    const secret = assertOk(await qrcode(a.token)).secret as string;
    assertOk(await bind(a.token, { secret, code: totpCode(secret) }));
    // Each wrong code counts towards the lockout (five): three here, one language each.
    const cases: [string | undefined, 'en-US' | 'zh-CN'][] = [['abcdef', 'en-US'], ['12 34', 'zh-CN'], [wrongCode(secret), 'en-US'], [undefined, 'zh-CN'], [undefined, 'en-US']];
    for (const [google_code, language] of cases) {
      const body = { username: a.username, password: a.password, ...(google_code === undefined ? {} : { google_code }) };
      const res = await call(app, 'POST', '/api/admin/login', { body, headers: { 'accept-language': language } });
      assertError(res, 401, 10008);
      assert.doesNotMatch(res.body.message, JARGON);
      assert.match(res.body.message, language === 'en-US' ? /6-digit code your authenticator app shows/ : /6 位动态码/);
    }
  });
});
