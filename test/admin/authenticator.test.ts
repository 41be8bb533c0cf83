// Self-service authenticator (2FA): status, a pending secret with its otpauth URI and QR
// code, binding with a code, sign-in then requiring google_code, unbinding; codes accepted
// once; secrets never shown after binding; other sessions ended on each change. Recovery codes
// (issue 31): given once at binding, each usable once in place of a code (also under
// concurrency), replaced by new ones, counted, logged and notified, never in any log. A role
// that requires an authenticator: sign-in then gives a token good only for binding one.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Writable } from 'node:stream';
import pino from 'pino';
import { totpCode, TOTP_PERIOD } from '../../src/platform/auth/totp.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { call, login, seedAdmin, signedInAdmin } from '../helpers/http.ts';
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
    const bound = assertOk(await bind(a.token, { secret: data.secret, code }));
    assert.deepEqual(Object.keys(bound), ['recovery_codes']);
    assert.equal(bound.recovery_codes.length, 10);
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

// ---- recovery codes (issue 31) ---------------------------------------------------------

const RECOVERY = /^[23456789abcdefghjkmnpqrstuvwxyz]{5}-[23456789abcdefghjkmnpqrstuvwxyz]{5}$/;
const regenerate = (token: string, body: unknown) => call(app, 'POST', `${BASE}/recovery-codes`, { token, body });
const fullStatus = async (token: string) => assertOk(await call(app, 'GET', `${BASE}/status`, { token })) as { is_bound: boolean; recovery_codes_left: number };
const loginWith = (a: { username: string; password: string }, google_code: string) => postLogin({ username: a.username, password: a.password, google_code });

/** An administrator with an authenticator bound: their token, secret and recovery codes. */
async function boundAdmin() {
  const a = await signedIn();
  const secret = assertOk(await qrcode(a.token)).secret as string;
  const codes = assertOk(await bind(a.token, { secret, code: totpCode(secret) })).recovery_codes as string[];
  return { ...a, secret, codes };
}

async function systemLogRows(adminId: number) {
  return app.platform.db.query<{ level: string; message: string; context: any; trace_id: string }>(
    `SELECT level, message, context, trace_id FROM admin.system_logs WHERE (context->>'admin_id')::bigint = $1 ORDER BY id`,
    [adminId],
  );
}

async function eventually<T>(probe: () => Promise<T | undefined | null | false>, what: string, ms = 5000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > until) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('recovery codes', () => {
  test('binding gives 10 distinct codes once; only their argon2id hashes are stored; the status counts them', async () => {
    const a = await boundAdmin();
    assert.equal(a.codes.length, 10);
    assert.equal(new Set(a.codes).size, 10);
    for (const c of a.codes) assert.match(c, RECOVERY);
    assert.deepEqual(await fullStatus(a.token), { is_bound: true, recovery_codes_left: 10 });
    const rows = await app.platform.db.query<{ code_hash: string; used_at: Date | null }>('SELECT code_hash, used_at FROM admin.recovery_codes WHERE admin_id = $1', [a.id]);
    assert.equal(rows.length, 10);
    for (const r of rows) {
      assert.match(r.code_hash, /^\$argon2id\$/);
      assert.equal(r.used_at, null);
    }
    const stored = JSON.stringify(rows);
    for (const c of a.codes) {
      assert.ok(!stored.includes(c) && !stored.includes(c.replace('-', '')), 'no code stored as it is');
    }
    // Never shown again: not in the status, the profile or another binding's answer.
    const profile = JSON.stringify(assertOk(await info(a.token)));
    for (const c of a.codes) assert.ok(!profile.includes(c));
    assert.deepEqual(await fullStatus((await signedIn()).token), { is_bound: false, recovery_codes_left: 0 });
  });

  test('each code signs in once, in place of the 6-digit code (any case, with or without its hyphen); the count goes down', async () => {
    const a = await boundAdmin();
    const first = assertOk(await loginWith(a, a.codes[0]!));
    assert.equal(first.must_bind_authenticator, false);
    assertOk(await info(first.token));
    assertError(await loginWith(a, a.codes[0]!), 401, 10008);
    assertError(await loginWith(a, a.codes[0]!.replace('-', '').toUpperCase()), 401, 10008);
    // Typed as a person might: capitals, spaces, no hyphen.
    const second = a.codes[1]!;
    assertOk(await loginWith(a, ` ${second.slice(0, 5).toUpperCase()} ${second.slice(6)} `));
    assertError(await loginWith(a, second), 401, 10008);
    assert.equal((await fullStatus(a.token)).recovery_codes_left, 8);
    // The 6-digit codes keep working beside them.
    assertOk(await loginWith(a, nextCode(a.secret)));
    // A recovery code of someone else, or a near miss, is refused.
    const b = await boundAdmin();
    assertError(await loginWith(a, b.codes[0]!), 401, 10008);
    assert.equal((await fullStatus(b.token)).recovery_codes_left, 10);
  });

  test('five sign-ins at once with the same code: exactly one succeeds', async () => {
    const a = await boundAdmin();
    const code = a.codes[3]!;
    const results = await Promise.all(Array.from({ length: 5 }, () => loginWith(a, code)));
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, 401, 401, 401, 401]);
    for (const r of results.filter((x) => x.status !== 200)) assertError(r, 401, 10008);
    assert.equal((await fullStatus(a.token)).recovery_codes_left, 9);
    const [used] = await app.platform.db.query<{ n: number }>('SELECT count(*)::int AS n FROM admin.recovery_codes WHERE admin_id = $1 AND used_at IS NOT NULL', [a.id]);
    assert.equal(used!.n, 1);
    // The failures counted towards the lockout, and the success cleared them.
    assertOk(await loginWith(a, a.codes[4]!));
  });

  test('a use is in the login log (recovery_code) and the system log (warning), and the account is notified', async () => {
    const a = await boundAdmin();
    const res = await call(app, 'POST', '/api/admin/login', {
      body: { username: a.username, password: a.password, google_code: a.codes[0] },
      headers: { 'x-trace-id': `recovery-login-${a.id}-trace` },
    });
    const token = assertOk(res).token as string;
    const [log] = await app.platform.db.query<{ status: number; reason: string }>(
      'SELECT status, reason FROM admin.login_logs WHERE admin_id = $1 ORDER BY id DESC LIMIT 1', [a.id]);
    assert.deepEqual(log, { status: 1, reason: 'recovery_code' });

    const rows = await eventually(async () => {
      const r = await systemLogRows(a.id);
      return r.length > 0 ? r : undefined;
    }, 'the system log row');
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.level, 'warning');
    assert.equal(rows[0]!.trace_id, `recovery-login-${a.id}-trace`);
    assert.match(rows[0]!.message, new RegExp(`administrator ${a.username} used a recovery code \\(login\\); 9 left`));
    assert.deepEqual(rows[0]!.context, { admin_id: a.id, username: a.username, purpose: 'login', ip: '127.0.0.1', recovery_codes_left: 9 });

    const en = assertOk(await call(app, 'GET', '/api/admin/notifications', { token }));
    const note = en.list.find((n: { title: string }) => n.title === 'A recovery code was used');
    assert.ok(note, JSON.stringify(en.list));
    assert.equal(note.kind, 'security');
    assert.match(note.content, /One of your recovery codes was used to sign in from IP 127\.0\.0\.1; 9 unused codes are left/);
    const zh = (await call(app, 'GET', '/api/admin/notifications', { token, headers: { 'accept-language': 'zh-CN' } })).body.data;
    assert.ok(zh.list.some((n: { title: string; content: string }) => n.title === '有恢复码被使用' && /用于登录（IP 127\.0\.0\.1），还剩 9 个未用/.test(n.content)), JSON.stringify(zh.list));
  });

  test('new codes (with the 6-digit code, a recovery code or the password) replace the old ones', async () => {
    const a = await boundAdmin();
    assertOk(await loginWith(a, a.codes[0]!));
    assertError(await regenerate(a.token, {}), 400, 30001);
    assertError(await regenerate(a.token, { code: nextCode(a.secret), password: a.password }), 400, 30001);
    assertError(await regenerate(a.token, { code: wrongCode(a.secret) }), 400, 10010);
    assertError(await regenerate(a.token, { code: a.codes[0] }), 400, 10010);
    const wrongPassword = await regenerate(a.token, { password: 'Not-the-password-1' });
    assertError(wrongPassword, 400, 30001);
    assert.match(wrongPassword.body.message, /the password is incorrect/);
    assert.equal((await fullStatus(a.token)).recovery_codes_left, 9);

    const byPassword = assertOk(await regenerate(a.token, { password: a.password })).recovery_codes as string[];
    assert.equal(byPassword.length, 10);
    for (const c of byPassword) assert.match(c, RECOVERY);
    assert.equal(byPassword.filter((c) => a.codes.includes(c)).length, 0);
    assert.equal((await fullStatus(a.token)).recovery_codes_left, 10);
    // Every old code, used or not, stops working; the new ones work.
    for (const old of a.codes.slice(0, 3)) assertError(await loginWith(a, old), 401, 10008);
    assertOk(await loginWith(a, byPassword[0]!));

    const byCode = assertOk(await regenerate(a.token, { code: nextCode(a.secret) })).recovery_codes as string[];
    assertError(await loginWith(a, byPassword[1]!), 401, 10008);
    // A recovery code proves it too (and is used up with the set it belonged to).
    const byRecovery = assertOk(await regenerate(a.token, { code: byCode[0] })).recovery_codes as string[];
    assertError(await loginWith(a, byCode[1]!), 401, 10008);
    assertOk(await loginWith(a, byRecovery[9]!));
    assert.equal((await fullStatus(a.token)).recovery_codes_left, 9);

    // Only with an authenticator bound.
    const plain = await signedIn();
    assertError(await regenerate(plain.token, { password: plain.password }), 400, 30001);
  });

  test('a recovery code unbinds the authenticator (someone who lost the app); the codes go with it', async () => {
    const a = await boundAdmin();
    assertOk(await unbind(a.token, { code: a.codes[5] }));
    assert.deepEqual(await fullStatus(a.token), { is_bound: false, recovery_codes_left: 0 });
    const [left] = await app.platform.db.query<{ n: number }>('SELECT count(*)::int AS n FROM admin.recovery_codes WHERE admin_id = $1', [a.id]);
    assert.equal(left!.n, 0);
    await login(app, a.username, a.password);
    // Binding again gives a new set; the old codes are gone for good.
    const secret = assertOk(await qrcode(a.token)).secret as string;
    // (The step of the first binding's code is used: the next step's code binds.)
    const fresh = assertOk(await bind(a.token, { secret, code: nextCode(secret) })).recovery_codes as string[];
    assertError(await loginWith(a, a.codes[6]!), 401, 10008);
    assertOk(await loginWith(a, fresh[0]!));
  });

  test('another administrator removing the authenticator removes the recovery codes too', async () => {
    const a = await boundAdmin();
    const operator = await signedInAdmin(app, { permissions: ['admin.unbind_2fa'] });
    const operatorSecret = assertOk(await qrcode(operator.token)).secret as string;
    assertOk(await bind(operator.token, { secret: operatorSecret, code: totpCode(operatorSecret) }));
    assertOk(await call(app, 'POST', `/api/admin/admins/${a.id}/unbind-google-auth`, { token: operator.token, body: { code: nextCode(operatorSecret) } }));
    const [left] = await app.platform.db.query<{ n: number }>('SELECT count(*)::int AS n FROM admin.recovery_codes WHERE admin_id = $1', [a.id]);
    assert.equal(left!.n, 0);
  });
});

test('recovery codes never reach a log: process log, operation log, system log, login log', async () => {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const logged = await startApp({ LOG_LEVEL: 'trace' }, { logger: pino({ level: 'trace' }, stream) });
  try {
    const a = await seedAdmin(logged, { permissions: [] });
    const token = await login(logged, a.username, a.password);
    const secret = assertOk(await call(logged, 'GET', `${BASE}/qrcode`, { token })).secret as string;
    const shown: string[] = [];
    shown.push(...assertOk(await call(logged, 'POST', `${BASE}/bind`, { token, body: { secret, code: totpCode(secret) } })).recovery_codes);
    const used = [shown[0]!, shown[1]!];
    assertOk(await call(logged, 'POST', '/api/admin/login', { body: { username: a.username, password: a.password, google_code: used[0] } }));
    assertError(await call(logged, 'POST', '/api/admin/login', { body: { username: a.username, password: a.password, google_code: used[0] } }), 401, 10008);
    shown.push(...assertOk(await call(logged, 'POST', `${BASE}/recovery-codes`, { token, body: { code: used[1] } })).recovery_codes);
    shown.push(...assertOk(await call(logged, 'POST', `${BASE}/recovery-codes`, { token, body: { password: a.password } })).recovery_codes);
    assertOk(await call(logged, 'POST', `${BASE}/unbind`, { token, body: { code: shown[25] } }));

    // The writer flushes just after the response; the rows of this app are few.
    const db = logged.platform.db;
    await eventually(async () => (await db.query('SELECT 1 FROM admin.operation_logs WHERE route LIKE $1', ['%/unbind'])).length > 0, 'the operation rows');
    await eventually(async () => (await db.query(`SELECT 1 FROM admin.system_logs WHERE context->>'purpose' = 'unbind'`)).length > 0, 'the system rows');
    const stored = JSON.stringify([
      await db.query('SELECT * FROM admin.operation_logs'),
      await db.query('SELECT * FROM admin.system_logs'),
      await db.query('SELECT * FROM admin.login_logs'),
    ]);
    const operations = await db.query<{ route: string; params: any }>('SELECT route, params FROM admin.operation_logs WHERE route LIKE $1 ORDER BY id', ['%google-authenticator%']);
    assert.ok(operations.some((o) => o.route.endsWith('/recovery-codes') && o.params.body.code === '[redacted]'), JSON.stringify(operations));
    assert.ok(operations.some((o) => o.route.endsWith('/recovery-codes') && o.params.body.password === '[redacted]'));
    assert.ok(lines.length > 10, `${lines.length} process log lines`);
    const processLog = lines.join('');
    assert.match(processLog, /google-authenticator\/recovery-codes/, 'the requests are in the process log');
    for (const c of shown) {
      for (const form of [c, c.replace('-', '')]) {
        assert.ok(!stored.includes(form), `${form} is in a log table`);
        assert.ok(!processLog.includes(form), `${form} is in the process log`);
      }
    }
  } finally {
    await logged.close();
  }
});

// ---- a role that requires an authenticator ----------------------------------------------

describe('a role that requires an authenticator', () => {
  const superToken = () => login(app);

  test('is set on the role; open sessions go on; the next sign-in gets a token good only for binding, then the binding opens it', async () => {
    const a = await seedAdmin(app, { permissions: ['admin.list', 'role.list'], menus: ['system', 'admin'] });
    const before = await login(app, a.username, a.password);
    const operator = await superToken();
    const role = assertOk(await call(app, 'PUT', `/api/admin/roles/${a.roleId}`, { token: operator, body: { require_authenticator: true } }));
    assert.equal(role.require_authenticator, true);
    assert.equal(assertOk(await call(app, 'GET', `/api/admin/roles/${a.roleId}`, { token: operator })).require_authenticator, true);
    // A session opened before goes on (the rule applies at the next sign-in).
    assertOk(await info(before));

    const signed = assertOk(await postLogin({ username: a.username, password: a.password }));
    assert.equal(signed.must_bind_authenticator, true);
    const limited = signed.token as string;
    // Nothing but the binding steps works with it, in both languages.
    for (const [method, url] of [['GET', '/api/admin/info'], ['GET', '/api/admin/admins'], ['GET', '/api/admin/notifications'], ['POST', '/api/admin/ws/ticket'],
      ['POST', `${BASE}/recovery-codes`], ['POST', `${BASE}/unbind`], ['PUT', '/api/admin/password']] as const) {
      const res = await call(app, method, url, { token: limited, ...(method === 'GET' ? {} : { body: {} }) });
      assertError(res, 403, 10011);
      assert.match(res.body.message, /requires an authenticator: bind one/, `${method} ${url}`);
    }
    const zh = await call(app, 'GET', '/api/admin/info', { token: limited, headers: { 'accept-language': 'zh-CN' } });
    assertError(zh, 403, 10011);
    assert.match(zh.body.message, /要求使用身份验证器/);
    // The notification socket refuses it too (bearer upgrade).
    const socket = await app.app.inject({ method: 'GET', url: '/api/admin/ws/notifications', headers: { authorization: `Bearer ${limited}`, connection: 'upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' } });
    assert.equal(socket.statusCode, 403);
    assert.equal(socket.json().code, 10011);

    assert.deepEqual(await fullStatus(limited), { is_bound: false, recovery_codes_left: 0 });
    // A refresh keeps it limited.
    const refreshed = assertOk(await call(app, 'POST', '/api/admin/refresh-token', { token: limited }));
    assert.equal(refreshed.must_bind_authenticator, true);
    const token = refreshed.token as string;
    assertError(await info(token), 403, 10011);

    const secret = assertOk(await qrcode(token)).secret as string;
    const codes = assertOk(await bind(token, { secret, code: totpCode(secret) })).recovery_codes as string[];
    assert.equal(codes.length, 10);
    // The same token now opens what the roles grant.
    assert.equal(assertOk(await info(token)).is_2fa_bound, true);
    assertOk(await call(app, 'GET', '/api/admin/admins', { token }));
    assert.equal(assertOk(await call(app, 'POST', '/api/admin/refresh-token', { token })).must_bind_authenticator, false);
    // The next sign-in asks for the code, and is a full one.
    assertError(await postLogin({ username: a.username, password: a.password }), 401, 10008);
    assert.equal(assertOk(await loginWith(a, nextCode(secret))).must_bind_authenticator, false);
    assert.equal(assertOk(await loginWith(a, codes[0]!)).must_bind_authenticator, false);
  });

  test('only an enabled role requires it; a sign-out works with the limited token', async () => {
    const a = await seedAdmin(app, { permissions: [] });
    const operator = await superToken();
    assert.equal(assertOk(await call(app, 'GET', `/api/admin/roles/${a.roleId}`, { token: operator })).require_authenticator, false);
    assertOk(await call(app, 'PUT', `/api/admin/roles/${a.roleId}`, { token: operator, body: { require_authenticator: true, status: 0 } }));
    assert.equal(assertOk(await postLogin({ username: a.username, password: a.password })).must_bind_authenticator, false);
    assertOk(await call(app, 'PUT', `/api/admin/roles/${a.roleId}`, { token: operator, body: { status: 1 } }));
    const limited = assertOk(await postLogin({ username: a.username, password: a.password })).token as string;
    assertOk(await call(app, 'POST', '/api/admin/logout', { token: limited }));
    assertError(await call(app, 'GET', `${BASE}/status`, { token: limited }), 401, 10004);
    // Turned off again: sign-in is ordinary.
    assertOk(await call(app, 'PUT', `/api/admin/roles/${a.roleId}`, { token: operator, body: { require_authenticator: false } }));
    assert.equal(assertOk(await postLogin({ username: a.username, password: a.password })).must_bind_authenticator, false);
  });

  test('a new role can require it from the start', async () => {
    const operator = await superToken();
    const created = assertOk(await call(app, 'POST', '/api/admin/roles', { token: operator, body: { name: 'Auditors', slug: `auditors_${Date.now()}`, require_authenticator: true } }));
    assert.equal(created.require_authenticator, true);
    const plain = assertOk(await call(app, 'POST', '/api/admin/roles', { token: operator, body: { name: 'Clerks', slug: `clerks_${Date.now()}` } }));
    assert.equal(plain.require_authenticator, false);
    assertError(await call(app, 'POST', '/api/admin/roles', { token: operator, body: { name: 'X', slug: `x_${Date.now()}`, require_authenticator: 'yes' } }), 400, 30001);
  });
});
