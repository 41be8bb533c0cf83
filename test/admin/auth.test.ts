// Administrator sign-in and profile: captcha, login (credentials, lockout, disabled accounts,
// authenticator codes, login log), logout, token refresh, GET /info and PUT /password.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CAPTCHA_ALPHABET, CAPTCHA_LENGTH, CAPTCHA_MARGIN, renderCaptcha } from '../../src/platform/auth/captcha.ts';
import { newTotpSecret, totpCode, TOTP_PERIOD } from '../../src/platform/auth/totp.ts';
import { ADMIN_PASSWORD, closeAll, startApp, startApps, type TestApp } from '../helpers/app.ts';
import { call, login, seedAdmin, signedInAdmin, type Reply } from '../helpers/http.ts';
import { assertError, assertLimitHeaders, assertOk } from '../helpers/assert.ts';

const UA = 'auth-tests/1.0 (node:test)';
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

let app: TestApp; // captcha disabled
let captchaApp: TestApp; // captcha enabled

before(async () => {
  // Started together: if one fails, startApps closes the other.
  [app, captchaApp] = await startApps([{}, { CAPTCHA_ENABLED: 'true' }]);
});
after(() => closeAll(captchaApp, app));

function postLogin(a: TestApp, body: Record<string, unknown>, ua = UA): Promise<Reply> {
  return call(a, 'POST', '/api/admin/login', { body, headers: { 'user-agent': ua } });
}

/** A fresh captcha and its answer, read from where the server keeps it. */
async function newCaptcha(a: TestApp): Promise<{ id: string; answer: string; res: Reply }> {
  const res = await call(a, 'GET', '/api/admin/captcha');
  assertOk(res);
  const id = res.body.data.captcha_id as string;
  const answer = await a.platform.kv.get(`admin:captcha:${id}`);
  assert.ok(answer, 'the captcha answer is stored server side');
  return { id, answer, res };
}

interface LoginLogRow {
  admin_id: number | string | null;
  username: string;
  ip: string;
  user_agent: string;
  status: number;
  reason: string;
}

async function loginLogsOf(a: TestApp, username: string) {
  const rows = await a.platform.db.query<LoginLogRow>(
    'SELECT admin_id, username, ip, user_agent, status, reason FROM admin.login_logs WHERE lower(username) = lower($1) ORDER BY id',
    [username],
  );
  return rows.map((r) => ({ ...r, admin_id: r.admin_id === null ? null : Number(r.admin_id), status: Number(r.status) }));
}

interface MenuNode {
  slug: string;
  type: number;
  children: MenuNode[];
}

function findMenu(nodes: MenuNode[], slug: string): MenuNode | undefined {
  for (const n of nodes) {
    if (n.slug === slug) return n;
    const found = findMenu(n.children, slug);
    if (found) return found;
  }
  return undefined;
}

function allSlugs(nodes: MenuNode[]): string[] {
  return nodes.flatMap((n) => [n.slug, ...allSlugs(n.children)]);
}

/** A six-digit code that matches no time step near now. */
function wrongTotpCode(secret: string): string {
  const near = new Set<string>();
  for (let d = -3; d <= 3; d++) near.add(totpCode(secret, Date.now() + d * TOTP_PERIOD * 1000));
  for (let n = 0; ; n++) {
    const candidate = String(n).padStart(6, '0');
    if (!near.has(candidate)) return candidate;
  }
}

describe('GET /captcha and login with a captcha', () => {
  test('returns an id and a base64 PNG data URI', async () => {
    const { res, answer } = await newCaptcha(captchaApp);
    const { captcha_id, captcha_image } = res.body.data;
    assert.equal(typeof captcha_id, 'string');
    assert.ok(captcha_id.length > 0);
    assert.equal(typeof captcha_image, 'string');
    assert.ok(captcha_image.startsWith('data:image/png;base64,'), captcha_image.slice(0, 40));
    const png = Buffer.from(captcha_image.slice('data:image/png;base64,'.length), 'base64');
    assert.ok(png.length > PNG_SIGNATURE.length);
    assert.deepEqual(png.subarray(0, 8), PNG_SIGNATURE);
    // The answer is never sent to the client.
    assert.ok(!JSON.stringify(res.body).includes(`"${answer}"`));
    assert.equal(answer, answer.toLowerCase());
  });

  test('each captcha has its own id', async () => {
    const a = await newCaptcha(captchaApp);
    const b = await newCaptcha(captchaApp);
    assert.notEqual(a.id, b.id);
  });

  test('the right answer in another case signs in; the same captcha cannot be used twice', async () => {
    const { id, answer } = await newCaptcha(captchaApp);
    const ok = await postLogin(captchaApp, { username: 'admin', password: ADMIN_PASSWORD, captcha_id: id, captcha_code: answer.toUpperCase() });
    assertOk(ok);
    assert.equal(typeof ok.body.data.token, 'string');

    const again = await postLogin(captchaApp, { username: 'admin', password: ADMIN_PASSWORD, captcha_id: id, captcha_code: answer });
    assertError(again, 400, 10005);
  });

  test('a wrong answer fails with 10005 and uses the captcha up', async () => {
    const { id, answer } = await newCaptcha(captchaApp);
    const wrong = answer === 'zzzz' ? 'yyyy' : 'zzzz';
    const res = await postLogin(captchaApp, { username: 'admin', password: ADMIN_PASSWORD, captcha_id: id, captcha_code: wrong });
    assertError(res, 400, 10005);
    assert.equal(await captchaApp.platform.kv.get(`admin:captcha:${id}`), null);

    const retry = await postLogin(captchaApp, { username: 'admin', password: ADMIN_PASSWORD, captcha_id: id, captcha_code: answer });
    assertError(retry, 400, 10005);
  });

  test('an unknown captcha id fails with 10005', async () => {
    const res = await postLogin(captchaApp, { username: 'admin', password: ADMIN_PASSWORD, captcha_id: 'no-such-captcha', captcha_code: 'abcd' });
    assertError(res, 400, 10005);
  });

  test('an expired captcha fails with 10005', async () => {
    const { id } = await newCaptcha(captchaApp);
    await captchaApp.platform.kv.set(`admin:captcha:${id}`, 'abcd', 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const res = await postLogin(captchaApp, { username: 'admin', password: ADMIN_PASSWORD, captcha_id: id, captcha_code: 'abcd' });
    assertError(res, 400, 10005);
  });

  test('missing captcha fields are a 400 validation error when the captcha is enabled', async () => {
    const { id, answer } = await newCaptcha(captchaApp);
    assertError(await postLogin(captchaApp, { username: 'admin', password: ADMIN_PASSWORD }), 400, 30001);
    assertError(await postLogin(captchaApp, { username: 'admin', password: ADMIN_PASSWORD, captcha_id: id }), 400, 30001);
    assertError(await postLogin(captchaApp, { username: 'admin', password: ADMIN_PASSWORD, captcha_code: answer }), 400, 30001);
  });

  test('a failed captcha is written to the login log', async () => {
    const admin = await seedAdmin(captchaApp);
    const { id, answer } = await newCaptcha(captchaApp);
    const wrong = answer === 'zzzz' ? 'yyyy' : 'zzzz';
    assertError(await postLogin(captchaApp, { username: admin.username, password: admin.password, captcha_id: id, captcha_code: wrong }), 400, 10005);
    const logs = await loginLogsOf(captchaApp, admin.username);
    assert.equal(logs.length, 1);
    assert.equal(logs[0]!.status, 0);
    assert.equal(logs[0]!.reason, 'captcha');
    assert.equal(logs[0]!.user_agent, UA);
  });

  test('the picture is at least 150x50, says its natural size, and no glyph touches an edge', async () => {
    const { res } = await newCaptcha(captchaApp);
    const { captcha_image, width, height, enabled } = res.body.data;
    assert.equal(enabled, true);
    const png = Buffer.from(captcha_image.slice('data:image/png;base64,'.length), 'base64');
    // IHDR: the picture's own size, as the reply says.
    assert.equal(png.readUInt32BE(16), width);
    assert.equal(png.readUInt32BE(20), height);
    assert.ok(width >= 150 && height >= 50, `${width}x${height}`);
    // Every character four times over (the widest fill their slots), then random ones.
    const texts = [...[...CAPTCHA_ALPHABET].map((ch) => ch.repeat(CAPTCHA_LENGTH)), ...Array.from({ length: 40 }, () => undefined)];
    for (const text of texts) {
      const c = await renderCaptcha(text);
      assert.equal(c.glyphs.length, CAPTCHA_LENGTH);
      for (const g of c.glyphs) {
        const inside = g.x1 >= CAPTCHA_MARGIN - 0.01 && g.y1 >= CAPTCHA_MARGIN - 0.01
          && g.x2 <= c.width - CAPTCHA_MARGIN + 0.01 && g.y2 <= c.height - CAPTCHA_MARGIN + 0.01;
        assert.ok(inside, `${c.text}: ${g.char} drawn at ${JSON.stringify(g)} in ${c.width}x${c.height}`);
        // Large enough to read: at least 20 px tall.
        assert.ok(g.y2 - g.y1 >= 20, `${g.char} is ${g.y2 - g.y1} px tall`);
      }
    }
  });

  test('the alphabet has no look-alikes once case is ignored, and every answer comes from it', async () => {
    const alphabet = CAPTCHA_ALPHABET.toLowerCase();
    assert.equal(new Set(alphabet).size, alphabet.length);
    for (const group of ['0o', '1li', 's53', 'adq', '2z', '8b', '6g']) {
      const present = [...group].filter((ch) => alphabet.includes(ch));
      assert.ok(present.length === 0, `look-alikes ${present.join('/')} in ${CAPTCHA_ALPHABET}`);
    }
    for (let i = 0; i < 20; i++) {
      const { answer } = await newCaptcha(captchaApp);
      assert.match(answer, new RegExp(`^[${alphabet}]{${CAPTCHA_LENGTH}}$`));
    }
  });

  test('the answer is compared without case: typed in small letters it signs in', async () => {
    const { id, answer } = await newCaptcha(captchaApp);
    // Drawn in capitals; typed as a person would, in small letters with a stray space.
    const res = await postLogin(captchaApp, { username: 'admin', password: ADMIN_PASSWORD, captcha_id: id, captcha_code: ` ${answer.toLowerCase()} ` });
    assertOk(res);
  });

  test('says enabled: false when the server runs with the captcha off, and login then needs none', async () => {
    const res = await call(app, 'GET', '/api/admin/captcha');
    assertOk(res);
    assert.equal(res.body.data.enabled, false);
    assertOk(await postLogin(app, { username: 'admin', password: ADMIN_PASSWORD }));
  });
});

describe('POST /login', () => {
  test('succeeds with a JWT and a future ISO 8601 expiry', async () => {
    const startedAt = Date.now();
    const res = await postLogin(app, { username: 'admin', password: ADMIN_PASSWORD });
    assertOk(res);
    const { token, expires_at } = res.body.data;
    assert.equal(typeof token, 'string');
    assert.equal(token.split('.').length, 3);
    assert.ok(token.split('.').every((part: string) => /^[A-Za-z0-9_-]+$/.test(part)));
    assert.match(expires_at, ISO_UTC);
    const expires = Date.parse(expires_at);
    const ttlMs = 7200 * 1000;
    assert.ok(expires > Date.now(), 'expiry is in the future');
    assert.ok(expires >= startedAt + ttlMs - 5000 && expires <= Date.now() + ttlMs + 5000, `expires_at ${expires_at} is about 2 hours ahead`);

    const info = await call(app, 'GET', '/api/admin/info', { token });
    assertOk(info);
    assert.equal(info.body.data.username, 'admin');
  });

  test('a wrong password and an unknown username both fail with 401 10001 and the same message', async () => {
    const admin = await seedAdmin(app);
    const wrongPassword = await postLogin(app, { username: admin.username, password: 'Not-the-password-1' });
    assertError(wrongPassword, 401, 10001);
    const unknown = await postLogin(app, { username: `ghost_${admin.username}`, password: 'Not-the-password-1' });
    assertError(unknown, 401, 10001);
    assert.equal(unknown.body.message, wrongPassword.body.message);
  });

  test('usernames are case-insensitive', async () => {
    const admin = await seedAdmin(app, { username: `CaseUser_${Date.now().toString(36)}` });
    const lower = await postLogin(app, { username: admin.username.toLowerCase(), password: admin.password });
    assertOk(lower);
    const upper = await postLogin(app, { username: admin.username.toUpperCase(), password: admin.password });
    assertOk(upper);
    const info = await call(app, 'GET', '/api/admin/info', { token: lower.body.data.token });
    assertOk(info);
    assert.equal(info.body.data.id, admin.id);
    assert.equal(info.body.data.username, admin.username);
  });

  test('the password is case-sensitive', async () => {
    const admin = await seedAdmin(app);
    assertError(await postLogin(app, { username: admin.username, password: admin.password.toUpperCase() }), 401, 10001);
  });

  test('a missing password or unknown body field is a 400 validation error', async () => {
    assertError(await postLogin(app, { username: 'admin' }), 400, 30001);
    assertError(await postLogin(app, { username: 'admin', password: ADMIN_PASSWORD, remember_me: true }), 400, 30001);
  });

  test('a disabled account: right password 403 10002, wrong password 401 10001', async () => {
    const admin = await seedAdmin(app, { status: 0 });
    assertError(await postLogin(app, { username: admin.username, password: admin.password }), 403, 10002);
    assertError(await postLogin(app, { username: admin.username, password: 'Not-the-password-1' }), 401, 10001);
  });
});

describe('login lockout', () => {
  test('five wrong passwords lock the account (429 10006 with Retry-After), even for the right password', async () => {
    const admin = await seedAdmin(app);
    for (let i = 0; i < 5; i++) {
      assertError(await postLogin(app, { username: admin.username, password: `Wrong-pass-${i}` }), 401, 10001);
    }
    const locked = await postLogin(app, { username: admin.username, password: admin.password });
    assertError(locked, 429, 10006);
    const retryAfter = Number(locked.headers['retry-after']);
    assert.ok(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 900, `Retry-After: ${String(locked.headers['retry-after'])}`);
    // The lock is per account: another account is not affected.
    const other = await seedAdmin(app);
    assertOk(await postLogin(app, { username: other.username, password: other.password }));
  });

  test('four failures do not lock, and a success resets the count', async () => {
    const admin = await seedAdmin(app);
    for (let i = 0; i < 4; i++) {
      assertError(await postLogin(app, { username: admin.username, password: `Wrong-pass-${i}` }), 401, 10001);
    }
    assertOk(await postLogin(app, { username: admin.username, password: admin.password }));
    for (let i = 0; i < 4; i++) {
      assertError(await postLogin(app, { username: admin.username, password: `Wrong-pass-${i}` }), 401, 10001);
    }
    assertOk(await postLogin(app, { username: admin.username, password: admin.password }));
  });

  test('the lock applies to the username in any case', async () => {
    const admin = await seedAdmin(app, { username: `LockCase_${Date.now().toString(36)}` });
    for (let i = 0; i < 5; i++) {
      const name = i % 2 ? admin.username.toUpperCase() : admin.username.toLowerCase();
      assertError(await postLogin(app, { username: name, password: `Wrong-pass-${i}` }), 401, 10001);
    }
    assertError(await postLogin(app, { username: admin.username, password: admin.password }), 429, 10006);
  });

  test('an unknown username locks the same way, so accounts cannot be told apart', async () => {
    const ghost = `ghost_${Date.now().toString(36)}`;
    for (let i = 0; i < 5; i++) {
      assertError(await postLogin(app, { username: ghost, password: `Wrong-pass-${i}` }), 401, 10001);
    }
    const locked = await postLogin(app, { username: ghost, password: `Wrong-pass-x` });
    assertError(locked, 429, 10006);
    assert.ok(Number(locked.headers['retry-after']) > 0);
  });

  test('the lock ends after LOGIN_LOCK_SECONDS', async () => {
    // Two failures lock here, so that locking surely happens within the one-second window.
    const short = await startApp({ LOGIN_LOCK_SECONDS: '1', LOGIN_MAX_FAILURES: '2' });
    try {
      const admin = await seedAdmin(short);
      for (let i = 0; i < 2; i++) {
        assertError(await postLogin(short, { username: admin.username, password: `Wrong-pass-${i}` }), 401, 10001);
      }
      const locked = await postLogin(short, { username: admin.username, password: admin.password });
      assertError(locked, 429, 10006);
      assert.equal(locked.headers['retry-after'], '1');
      await new Promise((resolve) => setTimeout(resolve, 1100));
      assertOk(await postLogin(short, { username: admin.username, password: admin.password }));
    } finally {
      await short.close();
    }
  });
});

describe('rate limit of captcha and login (AUTH_RATE_LIMIT per client IP)', () => {
  let limited: TestApp;
  before(async () => {
    limited = await startApp({ AUTH_RATE_LIMIT: '3' });
  });
  after(() => limited?.close());
  const from = async (ip: string, method: 'GET' | 'POST', url: string, payload?: object): Promise<Reply> => {
    const res = await limited.app.inject({ method, url, remoteAddress: ip, ...(payload ? { payload } : {}) });
    return { status: res.statusCode, body: res.json(), headers: res.headers };
  };

  test('every answer carries X-RateLimit-* (reset in epoch seconds, as on the time clock); the 4th is 429 10009 with Retry-After', async () => {
    const body = { username: 'nobody', password: 'Wrong-pass-1' };
    for (let i = 1; i <= 3; i++) {
      const res = await from('10.1.0.1', 'POST', '/api/admin/login', body);
      assertError(res, 401, 10001);
      assertLimitHeaders(res, 3, 3 - i);
    }
    const over = await from('10.1.0.1', 'POST', '/api/admin/login', body);
    assertError(over, 429, 10009);
    assertLimitHeaders(over, 3, 0);
    const retryAfter = Number(over.headers['retry-after']);
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, String(over.headers['retry-after']));
    // The captcha counts separately; another address is not affected; a refused body counts too.
    assertLimitHeaders(await from('10.1.0.1', 'GET', '/api/admin/captcha'), 3, 2);
    const invalid = await from('10.1.0.2', 'POST', '/api/admin/login', {});
    assertError(invalid, 400, 30001);
    assertLimitHeaders(invalid, 3, 2);
  });
});

describe('login log', () => {
  test('every attempt is recorded with its outcome, ip and user agent', async () => {
    const admin = await seedAdmin(app);
    const disabled = await seedAdmin(app, { status: 0 });
    const ghost = `ghost_${Date.now().toString(36)}`;

    assertOk(await postLogin(app, { username: admin.username, password: admin.password }));
    assertError(await postLogin(app, { username: admin.username, password: 'Wrong-pass-1' }), 401, 10001);
    assertError(await postLogin(app, { username: ghost, password: 'Wrong-pass-1' }), 401, 10001);
    assertError(await postLogin(app, { username: disabled.username, password: disabled.password }), 403, 10002);

    const [success, badPassword] = await loginLogsOf(app, admin.username);
    assert.deepEqual(
      { ...success },
      { admin_id: admin.id, username: admin.username, ip: '127.0.0.1', user_agent: UA, status: 1, reason: 'success' },
    );
    assert.deepEqual(
      { ...badPassword },
      { admin_id: admin.id, username: admin.username, ip: '127.0.0.1', user_agent: UA, status: 0, reason: 'bad_password' },
    );
    const ghostLogs = await loginLogsOf(app, ghost);
    assert.equal(ghostLogs.length, 1);
    assert.deepEqual(
      { ...ghostLogs[0] },
      { admin_id: null, username: ghost, ip: '127.0.0.1', user_agent: UA, status: 0, reason: 'unknown_user' },
    );
    const disabledLogs = await loginLogsOf(app, disabled.username);
    assert.equal(disabledLogs.length, 1);
    assert.equal(disabledLogs[0]!.status, 0);
    assert.equal(disabledLogs[0]!.reason, 'disabled');
    assert.equal(disabledLogs[0]!.admin_id, disabled.id);
  });

  test('attempts on a locked account are recorded as locked', async () => {
    const admin = await seedAdmin(app);
    for (let i = 0; i < 5; i++) {
      assertError(await postLogin(app, { username: admin.username, password: `Wrong-pass-${i}` }), 401, 10001);
    }
    assertError(await postLogin(app, { username: admin.username, password: admin.password }, 'locked-agent/2'), 429, 10006);
    const logs = await loginLogsOf(app, admin.username);
    assert.deepEqual(logs.map((l) => l.reason), ['bad_password', 'bad_password', 'bad_password', 'bad_password', 'bad_password', 'locked']);
    assert.ok(logs.every((l) => l.status === 0 && l.ip === '127.0.0.1'));
    assert.equal(logs[5]!.user_agent, 'locked-agent/2');
  });
});

describe('authenticator code at login', () => {
  test('required when bound, checked, and usable once', async () => {
    const admin = await seedAdmin(app);
    const secret = newTotpSecret();
    await app.platform.db.query('UPDATE admin.admins SET totp_secret = $1 WHERE id = $2', [secret, admin.id]);

    const missing = await postLogin(app, { username: admin.username, password: admin.password });
    assertError(missing, 401, 10008);
    const wrong = await postLogin(app, { username: admin.username, password: admin.password, google_code: wrongTotpCode(secret) });
    assertError(wrong, 401, 10008);

    const code = totpCode(secret);
    const ok = await postLogin(app, { username: admin.username, password: admin.password, google_code: code });
    assertOk(ok);
    const info = await call(app, 'GET', '/api/admin/info', { token: ok.body.data.token });
    assertOk(info);
    assert.equal(info.body.data.is_2fa_bound, true);

    const replay = await postLogin(app, { username: admin.username, password: admin.password, google_code: code });
    assertError(replay, 401, 10008);
  });

  test('a wrong password is reported before the authenticator code', async () => {
    const admin = await seedAdmin(app);
    const secret = newTotpSecret();
    await app.platform.db.query('UPDATE admin.admins SET totp_secret = $1 WHERE id = $2', [secret, admin.id]);
    assertError(await postLogin(app, { username: admin.username, password: 'Wrong-pass-1', google_code: totpCode(secret) }), 401, 10001);
  });
});

describe('POST /logout', () => {
  test('ends the session: the token is then revoked', async () => {
    const { token, ...admin } = await signedInAdmin(app);
    const other = await login(app, admin.username, admin.password);
    const res = await call(app, 'POST', '/api/admin/logout', { token });
    assertOk(res);
    assert.equal(res.body.data, null);
    assertError(await call(app, 'GET', '/api/admin/info', { token }), 401, 10004);
    assertError(await call(app, 'POST', '/api/admin/logout', { token }), 401, 10004);
    // Only that session ends.
    assertOk(await call(app, 'GET', '/api/admin/info', { token: other }));
  });

  test('without a token is 401 10007', async () => {
    assertError(await call(app, 'POST', '/api/admin/logout'), 401, 10007);
  });
});

describe('POST /refresh-token', () => {
  test('rotates the token of the same session', async () => {
    const oldToken = await login(app);
    const listed = await call(app, 'GET', '/api/admin/online-admins?page_size=100', { token: oldToken });
    assertOk(listed);
    const mine = listed.body.data.list.filter((s: { is_current: boolean }) => s.is_current);
    assert.equal(mine.length, 1);
    const tokenId = mine[0].token_id as number;

    const res = await call(app, 'POST', '/api/admin/refresh-token', { token: oldToken });
    assertOk(res);
    const { token: newToken, expires_at } = res.body.data;
    assert.equal(typeof newToken, 'string');
    assert.equal(newToken.split('.').length, 3);
    assert.notEqual(newToken, oldToken);
    assert.match(expires_at, ISO_UTC);
    assert.ok(Date.parse(expires_at) > Date.now());

    assertOk(await call(app, 'GET', '/api/admin/info', { token: newToken }));
    assertError(await call(app, 'GET', '/api/admin/info', { token: oldToken }), 401, 10004);

    const afterList = await call(app, 'GET', '/api/admin/online-admins?page_size=100', { token: newToken });
    assertOk(afterList);
    const current = afterList.body.data.list.filter((s: { is_current: boolean }) => s.is_current);
    assert.equal(current.length, 1);
    assert.equal(current[0].token_id, tokenId);
    assert.equal(afterList.body.data.list.filter((s: { token_id: number }) => s.token_id === tokenId).length, 1);
  });

  test('an old token cannot refresh', async () => {
    const oldToken = await login(app);
    const res = await call(app, 'POST', '/api/admin/refresh-token', { token: oldToken });
    assertOk(res);
    assertError(await call(app, 'POST', '/api/admin/refresh-token', { token: oldToken }), 401, 10004);
    assertOk(await call(app, 'GET', '/api/admin/info', { token: res.body.data.token }));
  });
});

describe('GET /info', () => {
  test('without Authorization is 401 10007', async () => {
    assertError(await call(app, 'GET', '/api/admin/info'), 401, 10007);
    assertError(await call(app, 'GET', '/api/admin/info', { headers: { authorization: 'Bearer not-a-jwt' } }), 401, 10007);
    assertError(await call(app, 'GET', '/api/admin/info', { headers: { authorization: 'Basic YWRtaW46eA==' } }), 401, 10007);
  });

  test('the super administrator has every permission and the whole menu tree', async () => {
    const token = await login(app);
    const res = await call(app, 'GET', '/api/admin/info', { token });
    assertOk(res);
    const data = res.body.data;
    assert.equal(data.username, 'admin');
    assert.equal(typeof data.id, 'number');
    assert.deepEqual(data.department, { id: 1, name: 'Head Office' });
    assert.ok(data.roles.some((r: { slug: string }) => r.slug === 'super_admin'), JSON.stringify(data.roles));
    for (const r of data.roles) assert.deepEqual(Object.keys(r).sort(), ['id', 'name', 'slug']);

    assert.ok(data.permissions.includes('online.list'));
    assert.ok(data.permissions.includes('online.kick'));
    const catalogue = await app.platform.db.query<{ slug: string }>('SELECT slug FROM admin.permissions WHERE status = 1');
    assert.deepEqual([...data.permissions].sort(), catalogue.map((p) => p.slug).sort());

    const menus = data.menus as MenuNode[];
    assert.ok(Array.isArray(menus));
    const system = menus.find((m) => m.slug === 'system');
    assert.ok(system, 'system is a root directory');
    assert.equal(system.type, 1);
    assert.ok(system.children.length > 0);
    assert.ok(system.children.some((c) => c.slug === 'admin'));
    assert.ok(menus.some((m) => m.slug === 'dashboard'));
    assert.ok(findMenu(menus, 'online'));
    const [{ n }] = (await app.platform.db.query<{ n: number }>('SELECT count(*)::int AS n FROM admin.menus WHERE status = 1')) as [{ n: number }];
    assert.equal(allSlugs(menus).length, Number(n));
    // Secrets never leave the server.
    for (const key of ['password', 'password_hash', 'passwordHash', 'totp_secret', 'totpSecret']) assert.ok(!(key in data), key);
  });

  test('an administrator sees only what their role grants, with the ancestor directories', async () => {
    const { token, ...admin } = await signedInAdmin(app, { permissions: ['online.list'], menus: ['online'] });
    const res = await call(app, 'GET', '/api/admin/info', { token });
    assertOk(res);
    const data = res.body.data;
    assert.equal(data.id, admin.id);
    assert.equal(data.username, admin.username);
    assert.deepEqual(data.roles.map((r: { id: number }) => r.id), [admin.roleId]);
    assert.deepEqual(data.permissions, ['online.list']);
    const menus = data.menus as MenuNode[];
    assert.deepEqual(menus.map((m) => m.slug), ['monitor']);
    assert.deepEqual(menus[0]!.children.map((m) => m.slug), ['online']);
    assert.deepEqual(menus[0]!.children[0]!.children, []);
  });

  test('a disabled role grants no permissions and no menus', async () => {
    const { token } = await signedInAdmin(app, { permissions: ['online.list', 'online.kick'], menus: ['online', 'dashboard'], roleStatus: 0 });
    const res = await call(app, 'GET', '/api/admin/info', { token });
    assertOk(res);
    assert.deepEqual(res.body.data.permissions, []);
    assert.deepEqual(res.body.data.menus, []);
    assertError(await call(app, 'GET', '/api/admin/online-admins', { token }), 403, 20001);
  });

  test('a disabled menu is left out', async () => {
    const { token } = await signedInAdmin(app, { permissions: ['online.list'], menus: ['online', 'monitor-system'] });
    const superToken = await login(app);
    await app.platform.db.query(`UPDATE admin.menus SET status = 0 WHERE slug = 'online'`);
    try {
      const mine = await call(app, 'GET', '/api/admin/info', { token });
      assertOk(mine);
      assert.deepEqual(mine.body.data.menus.map((m: MenuNode) => m.slug), ['monitor']);
      assert.deepEqual(mine.body.data.menus[0].children.map((m: MenuNode) => m.slug), ['monitor-system']);

      const sup = await call(app, 'GET', '/api/admin/info', { token: superToken });
      assertOk(sup);
      const menus = sup.body.data.menus as MenuNode[];
      assert.equal(findMenu(menus, 'online'), undefined);
      assert.ok(findMenu(menus, 'monitor-system'));
    } finally {
      await app.platform.db.query(`UPDATE admin.menus SET status = 1 WHERE slug = 'online'`);
    }
  });
});

describe('PUT /password', () => {
  test('refuses a wrong confirmation, a wrong old password and a short new one', async () => {
    const { token, ...admin } = await signedInAdmin(app);
    const put = (body: Record<string, unknown>) => call(app, 'PUT', '/api/admin/password', { token, body });

    assertError(await put({ old_password: admin.password, password: 'New-pass-456', password_confirmation: 'New-pass-457' }), 400, 30001);
    assertError(await put({ old_password: 'Wrong-old-pass', password: 'New-pass-456', password_confirmation: 'New-pass-456' }), 400, 30001);
    assertError(await put({ old_password: admin.password, password: 'Short1', password_confirmation: 'Short1' }), 400, 30001);
    assertError(await put({ old_password: admin.password, password: 'New-pass-456' }), 400, 30001);
    assertError(await put({ old_password: admin.password, password: admin.password, password_confirmation: admin.password }), 400, 30001);

    // Nothing changed.
    assertOk(await call(app, 'GET', '/api/admin/info', { token }));
    assertOk(await postLogin(app, { username: admin.username, password: admin.password }));
  });

  test('changes the password and ends the other sessions', async () => {
    const { token, ...admin } = await signedInAdmin(app);
    const otherSession = await login(app, admin.username, admin.password);
    const { token: bystanderToken } = await signedInAdmin(app);
    const newPassword = 'Brand-new-pass-789';
    // Both sessions have been used (and so are known to the server) before the change.
    assertOk(await call(app, 'GET', '/api/admin/info', { token }));
    assertOk(await call(app, 'GET', '/api/admin/info', { token: otherSession }));

    const res = await call(app, 'PUT', '/api/admin/password', {
      token,
      body: { old_password: admin.password, password: newPassword, password_confirmation: newPassword },
    });
    assertOk(res);
    assert.equal(res.body.data, null);

    assertOk(await call(app, 'GET', '/api/admin/info', { token }));
    assertError(await call(app, 'GET', '/api/admin/info', { token: otherSession }), 401, 10004);
    assertOk(await call(app, 'GET', '/api/admin/info', { token: bystanderToken }));

    assertError(await postLogin(app, { username: admin.username, password: admin.password }), 401, 10001);
    assertOk(await postLogin(app, { username: admin.username, password: newPassword }));
  });

  test('without a token is 401 10007', async () => {
    const res = await call(app, 'PUT', '/api/admin/password', {
      body: { old_password: ADMIN_PASSWORD, password: 'New-pass-456', password_confirmation: 'New-pass-456' },
    });
    assertError(res, 401, 10007);
  });
});
