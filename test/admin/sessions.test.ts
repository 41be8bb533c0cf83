// Online administrators: listing live sessions, forced logout of one or several sessions,
// protected administrators, and token expiry.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createSigner } from 'fast-jwt';
import { deriveKey } from '../../src/platform/auth/jwt.ts';
import { ADMIN_PASSWORD, JWT_SECRET, startApp, type TestApp } from '../helpers/app.ts';
import { call, login, seedAdmin, signedInAdmin, type Reply } from '../helpers/http.ts';
import { assertError, assertOk } from '../helpers/assert.ts';

const DISPLAY_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const UNKNOWN_ID = 987_654_321;

let app: TestApp;
let superToken: string;
let superId: number;

before(async () => {
  app = await startApp();
  superToken = await login(app);
  const info = await call(app, 'GET', '/api/admin/info', { token: superToken });
  superId = info.body.data.id as number;
});
after(() => app?.close());

interface OnlineRow {
  token_id: number;
  admin_id: number;
  username: string;
  nickname: string;
  ip: string;
  user_agent: string;
  login_at: string;
  last_active_at: string;
  expires_at: string;
  is_current: boolean;
}

/** The claims of a token (the session id is `sid`). */
function claimsOf(token: string): { sid: number; uid: number; jti: string; iat: number; exp: number } {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
}
const sidOf = (token: string) => claimsOf(token).sid;

async function loginWithAgent(a: TestApp, username: string, password: string, userAgent: string): Promise<string> {
  const res = await call(a, 'POST', '/api/admin/login', { body: { username, password }, headers: { 'user-agent': userAgent } });
  assertOk(res);
  return res.body.data.token as string;
}

async function list(a: TestApp, token: string, query = ''): Promise<Reply> {
  return call(a, 'GET', `/api/admin/online-admins${query}`, { token });
}

async function sessionRow(a: TestApp, id: number) {
  const [row] = await a.platform.db.query<{ ended_at: Date | string | null; end_reason: string | null }>(
    'SELECT ended_at, end_reason FROM admin.sessions WHERE id = $1',
    [id],
  );
  assert.ok(row, `session ${id} exists`);
  return row;
}

function kick(a: TestApp, token: string, id: number | string) {
  return call(a, 'DELETE', `/api/admin/online-admins/${id}`, { token });
}

function batchKick(a: TestApp, token: string, body: unknown) {
  return call(a, 'POST', '/api/admin/online-admins/batch-kick-out', { token, body });
}

const info = (a: TestApp, token: string) => call(a, 'GET', '/api/admin/info', { token });

describe('GET /online-admins', () => {
  test("lists the caller's session with its details", async () => {
    const ua = 'sessions-tests/1.0 (listing)';
    const token = await loginWithAgent(app, 'admin', ADMIN_PASSWORD, ua);
    const res = await list(app, token, '?page_size=100');
    assertOk(res);
    const data = res.body.data;
    assert.equal(data.page, 1);
    assert.equal(data.page_size, 100);
    assert.ok(Number.isInteger(data.total) && data.total >= data.list.length && data.list.length >= 2, JSON.stringify(data));

    const current = (data.list as OnlineRow[]).filter((r) => r.is_current);
    assert.equal(current.length, 1);
    const mine = current[0]!;
    assert.equal(mine.token_id, sidOf(token));
    assert.equal(mine.admin_id, superId);
    assert.equal(mine.username, 'admin');
    assert.equal(typeof mine.nickname, 'string');
    assert.equal(mine.ip, '127.0.0.1');
    assert.equal(mine.user_agent, ua);
    for (const field of ['login_at', 'last_active_at', 'expires_at'] as const) assert.match(mine[field], DISPLAY_TIME, field);
    // Display times are in UTC by default: the session lives ADMIN_TOKEN_TTL (2 hours).
    const loginAt = Date.parse(mine.login_at.replace(' ', 'T') + 'Z');
    const expiresAt = Date.parse(mine.expires_at.replace(' ', 'T') + 'Z');
    assert.ok(Math.abs(loginAt - Date.now()) < 60_000, mine.login_at);
    assert.ok(Math.abs(expiresAt - loginAt - 7200_000) <= 2000, `${mine.login_at} -> ${mine.expires_at}`);

    // The bootstrap session opened in before() is listed, and is not the current one.
    const other = (data.list as OnlineRow[]).find((r) => r.token_id === sidOf(superToken));
    assert.ok(other);
    assert.equal(other.is_current, false);
    assert.equal(new Set((data.list as OnlineRow[]).map((r) => r.token_id)).size, data.list.length);
  });

  test('pages with defaults 1 and 10, and pages through the results', async () => {
    const res = await list(app, superToken);
    assertOk(res);
    assert.equal(res.body.data.page, 1);
    assert.equal(res.body.data.page_size, 10);

    const admin = await seedAdmin(app);
    const tokens = [];
    for (let i = 0; i < 3; i++) tokens.push(await login(app, admin.username, admin.password));
    const page1 = await list(app, superToken, `?username=${admin.username}&page_size=2`);
    assertOk(page1);
    assert.equal(page1.body.data.total, 3);
    assert.equal(page1.body.data.list.length, 2);
    const page2 = await list(app, superToken, `?username=${admin.username}&page_size=2&page=2`);
    assertOk(page2);
    assert.equal(page2.body.data.page, 2);
    assert.equal(page2.body.data.total, 3);
    assert.equal(page2.body.data.list.length, 1);
    const seen = [...page1.body.data.list, ...page2.body.data.list].map((r: OnlineRow) => r.token_id).sort((a, b) => a - b);
    assert.deepEqual(seen, tokens.map(sidOf).sort((a, b) => a - b));
  });

  test('refuses out-of-range paging with 400 30001', async () => {
    assertError(await list(app, superToken, '?page_size=101'), 400, 30001);
    assertError(await list(app, superToken, '?page_size=0'), 400, 30001);
    assertError(await list(app, superToken, '?page=0'), 400, 30001);
    assertError(await list(app, superToken, '?page=abc'), 400, 30001);
    assertOk(await list(app, superToken, '?page_size=100'));
  });

  test('the username filter narrows the list', async () => {
    const tag = Date.now().toString(36);
    const a = await seedAdmin(app, { username: `filter_a_${tag}` });
    const b = await seedAdmin(app, { username: `filter_b_${tag}` });
    const tokenA = await login(app, a.username, a.password);
    const tokenB = await login(app, b.username, b.password);

    const res = await list(app, superToken, `?username=${a.username}`);
    assertOk(res);
    const rows = res.body.data.list as OnlineRow[];
    assert.equal(res.body.data.total, 1);
    assert.deepEqual(rows.map((r) => [r.token_id, r.admin_id, r.username]), [[sidOf(tokenA), a.id, a.username]]);
    assert.equal(rows[0]!.is_current, false);

    // Fuzzy and case-insensitive: the common part matches both.
    const both = await list(app, superToken, `?username=FILTER_&page_size=100`);
    assertOk(both);
    const ids = (both.body.data.list as OnlineRow[]).map((r) => r.token_id);
    assert.ok(ids.includes(sidOf(tokenA)) && ids.includes(sidOf(tokenB)));
    assert.ok(!ids.includes(sidOf(superToken)));

    const none = await list(app, superToken, `?username=no_such_user_${tag}`);
    assertOk(none);
    assert.equal(none.body.data.total, 0);
    assert.deepEqual(none.body.data.list, []);
  });

  test('ended sessions are not listed', async () => {
    const { token, ...admin } = await signedInAdmin(app);
    assertOk(await call(app, 'POST', '/api/admin/logout', { token }));
    const res = await list(app, superToken, `?username=${admin.username}`);
    assertOk(res);
    assert.equal(res.body.data.total, 0);
  });

  test("needs 'online.list': 403 20001 without it, 200 with it", async () => {
    const without = await seedAdmin(app, { permissions: ['online.kick'] });
    const withIt = await seedAdmin(app, { permissions: ['online.list'] });
    const t1 = await login(app, without.username, without.password);
    const t2 = await login(app, withIt.username, withIt.password);
    assertError(await list(app, t1), 403, 20001);
    const res = await list(app, t2, '?page_size=100');
    assertOk(res);
    const ids = (res.body.data.list as OnlineRow[]).map((r) => r.token_id);
    assert.ok(ids.includes(sidOf(t2)));
    assert.ok(ids.includes(sidOf(superToken)), 'other administrators are listed too');
  });
});

describe('DELETE /online-admins/{token_id}', () => {
  test("ends another administrator's session at once", async () => {
    const { token: kicked, ...victim } = await signedInAdmin(app);
    const kept = await login(app, victim.username, victim.password);
    assertOk(await info(app, kicked));
    const id = sidOf(kicked);

    const res = await kick(app, superToken, id);
    assertOk(res);
    assert.deepEqual(res.body.data, { kicked: [id], not_found: [] });
    assertError(await info(app, kicked), 401, 10004);
    assertOk(await info(app, kept));
    const row = await sessionRow(app, id);
    assert.notEqual(row.ended_at, null);
    assert.equal(row.end_reason, 'kicked');

    const listed = await list(app, superToken, `?username=${victim.username}`);
    assert.deepEqual((listed.body.data.list as OnlineRow[]).map((r) => r.token_id), [sidOf(kept)]);
  });

  test('an unknown or already ended session is 404 30003', async () => {
    const { token, ...victim } = await signedInAdmin(app);
    assertOk(await kick(app, superToken, sidOf(token)));
    assertError(await kick(app, superToken, sidOf(token)), 404, 30003);
    assertError(await kick(app, superToken, UNKNOWN_ID), 404, 30003);

    const loggedOut = await login(app, victim.username, victim.password);
    assertOk(await call(app, 'POST', '/api/admin/logout', { token: loggedOut }));
    assertError(await kick(app, superToken, sidOf(loggedOut)), 404, 30003);
    assert.equal((await sessionRow(app, sidOf(loggedOut))).end_reason, 'logout');
  });

  test('a token_id that is not a positive integer is 400 30001', async () => {
    assertError(await kick(app, superToken, 'abc'), 400, 30001);
    assertError(await kick(app, superToken, '1.5'), 400, 30001);
    assertError(await kick(app, superToken, 0), 400, 30001);
    assertError(await kick(app, superToken, -3), 400, 30001);
  });

  test("needs 'online.kick': 403 20001 without it", async () => {
    const { token } = await signedInAdmin(app, { permissions: ['online.list'] });
    const { token: victimToken } = await signedInAdmin(app);
    assertError(await kick(app, token, sidOf(victimToken)), 403, 20001);
    assertOk(await info(app, victimToken));
  });

  test("the super administrator's session is protected from others (403 20003)", async () => {
    const { token } = await signedInAdmin(app, { permissions: ['online.list', 'online.kick'] });
    const superSession = await login(app);
    assertOk(await info(app, superSession));

    assertError(await kick(app, token, sidOf(superSession)), 403, 20003);
    assertOk(await info(app, superSession));
    assert.equal((await sessionRow(app, sidOf(superSession))).ended_at, null);

    // An ordinary administrator's session can be kicked by the same caller.
    const { token: victimToken } = await signedInAdmin(app);
    assertOk(await kick(app, token, sidOf(victimToken)));
    assertError(await info(app, victimToken), 401, 10004);
  });

  test('administrators can end their own other sessions, the super administrator included', async () => {
    const { token: first, ...admin } = await signedInAdmin(app, { permissions: ['online.kick'] });
    const second = await login(app, admin.username, admin.password);
    assertOk(await info(app, second));
    const res = await kick(app, first, sidOf(second));
    assertOk(res);
    assert.deepEqual(res.body.data, { kicked: [sidOf(second)], not_found: [] });
    assertError(await info(app, second), 401, 10004);
    assertOk(await info(app, first));

    const superOther = await login(app);
    assertOk(await kick(app, superToken, sidOf(superOther)));
    assertError(await info(app, superOther), 401, 10004);
    assertOk(await info(app, superToken));
  });

  test('without PROTECTED_ADMINS, an ordinary account named boss is not protected', async () => {
    const { token: bossToken } = await signedInAdmin(app, { username: 'boss' });
    const { token } = await signedInAdmin(app, { permissions: ['online.kick'] });
    assertOk(await kick(app, token, sidOf(bossToken)));
  });
});

describe('PROTECTED_ADMINS', () => {
  let protectedApp: TestApp;
  before(async () => {
    protectedApp = await startApp({ PROTECTED_ADMINS: 'boss' });
  });
  after(() => protectedApp?.close());

  test('protects the listed administrators from being kicked by others', async () => {
    const boss = await seedAdmin(protectedApp, { username: 'boss', permissions: ['online.kick'] });
    const bossToken = await login(protectedApp, boss.username, boss.password);
    const bossOther = await login(protectedApp, boss.username, boss.password);
    const kicker = await seedAdmin(protectedApp, { permissions: ['online.kick'] });
    const token = await login(protectedApp, kicker.username, kicker.password);
    const victim = await seedAdmin(protectedApp);
    const victimToken = await login(protectedApp, victim.username, victim.password);

    assertError(await kick(protectedApp, token, sidOf(bossToken)), 403, 20003);
    assertOk(await info(protectedApp, bossToken));

    assertError(await batchKick(protectedApp, token, { token_ids: [sidOf(victimToken), sidOf(bossToken)] }), 403, 20003);
    assertOk(await info(protectedApp, victimToken));
    assertOk(await info(protectedApp, bossToken));

    // The protected administrator may still end their own other session.
    assertOk(await info(protectedApp, bossOther));
    assertOk(await kick(protectedApp, bossToken, sidOf(bossOther)));
    assertError(await info(protectedApp, bossOther), 401, 10004);
  });
});

describe('POST /online-admins/batch-kick-out', () => {
  test('ends several sessions and reports the ids that were not live', async () => {
    const a = await seedAdmin(app);
    const b = await seedAdmin(app);
    const ta = await login(app, a.username, a.password);
    const tb = await login(app, b.username, b.password);
    const ended = await login(app, b.username, b.password);
    assertOk(await call(app, 'POST', '/api/admin/logout', { token: ended }));
    assertOk(await info(app, ta));
    assertOk(await info(app, tb));

    const res = await batchKick(app, superToken, { token_ids: [sidOf(ta), UNKNOWN_ID, sidOf(tb), sidOf(ended)] });
    assertOk(res);
    const byNumber = (x: number, y: number) => x - y;
    assert.deepEqual([...res.body.data.kicked].sort(byNumber), [sidOf(ta), sidOf(tb)].sort(byNumber));
    assert.deepEqual([...res.body.data.not_found].sort(byNumber), [sidOf(ended), UNKNOWN_ID].sort(byNumber));
    assertError(await info(app, ta), 401, 10004);
    assertError(await info(app, tb), 401, 10004);
    assert.equal((await sessionRow(app, sidOf(ta))).end_reason, 'kicked');
    assert.equal((await sessionRow(app, sidOf(ended))).end_reason, 'logout');
  });

  test('only unknown ids: nothing kicked, all reported', async () => {
    const res = await batchKick(app, superToken, { token_ids: [UNKNOWN_ID] });
    assertOk(res);
    assert.deepEqual(res.body.data, { kicked: [], not_found: [UNKNOWN_ID] });
  });

  test("refuses the whole batch when one session is a protected administrator's", async () => {
    const { token } = await signedInAdmin(app, { permissions: ['online.kick'] });
    const { token: victimToken } = await signedInAdmin(app);
    const superSession = await login(app);

    const res = await batchKick(app, token, { token_ids: [sidOf(victimToken), sidOf(superSession)] });
    assertError(res, 403, 20003);
    assertOk(await info(app, victimToken));
    assertOk(await info(app, superSession));
    assert.equal((await sessionRow(app, sidOf(victimToken))).ended_at, null);
    assert.equal((await sessionRow(app, sidOf(superSession))).ended_at, null);
  });

  test('validates the body: 400 30001 and nothing ended', async () => {
    const { token } = await signedInAdmin(app);
    const id = sidOf(token);
    assertError(await batchKick(app, superToken, { token_ids: [] }), 400, 30001);
    assertError(await batchKick(app, superToken, { token_ids: [id, id] }), 400, 30001);
    assertError(await batchKick(app, superToken, { token_ids: [id], reason: 'x' }), 400, 30001);
    assertError(await batchKick(app, superToken, { token_ids: [String(id)] }), 400, 30001);
    assertError(await batchKick(app, superToken, { token_ids: [0] }), 400, 30001);
    assertError(await batchKick(app, superToken, {}), 400, 30001);
    assertError(await batchKick(app, superToken, { token_ids: Array.from({ length: 101 }, (_, i) => id + i) }), 400, 30001);
    assertOk(await info(app, token));
    assert.equal((await sessionRow(app, id)).ended_at, null);
  });

  test("needs 'online.kick': 403 20001 without it", async () => {
    const { token } = await signedInAdmin(app, { permissions: ['online.list'] });
    assertError(await batchKick(app, token, { token_ids: [UNKNOWN_ID] }), 403, 20001);
  });
});

describe('token checks', () => {
  const key = deriveKey(JWT_SECRET, 'admin');
  const sign = createSigner({ key, algorithm: 'HS256' });

  test('an expired token of a live session is 401 10003', async () => {
    const { token } = await signedInAdmin(app);
    const { sid, uid, jti } = claimsOf(token);
    const now = Math.floor(Date.now() / 1000);

    // The same key and claims with a live expiry are accepted: only the expiry differs.
    const live = sign({ sid, uid, jti, iat: now, exp: now + 600 });
    assertOk(await info(app, live));

    const expired = sign({ sid, uid, jti, iat: now - 120, exp: now - 60 });
    assertError(await info(app, expired), 401, 10003);
    assertOk(await info(app, token));
  });

  test('a token for the right session with another jti is revoked (10004); another key is invalid (10007)', async () => {
    const { token } = await signedInAdmin(app);
    const { sid, uid } = claimsOf(token);
    const now = Math.floor(Date.now() / 1000);
    assertError(await info(app, sign({ sid, uid, jti: 'not-the-jti', iat: now, exp: now + 600 })), 401, 10004);

    const foreign = createSigner({ key: deriveKey(JWT_SECRET, 'timeclock'), algorithm: 'HS256' });
    assertError(await info(app, foreign({ sid, uid, jti: claimsOf(token).jti, iat: now, exp: now + 600 })), 401, 10007);
  });
});

test('HEAD twins of GET routes are guarded like the GET', async () => {
  const anonymous = await call(app, 'HEAD', '/api/admin/online-admins');
  assert.equal(anonymous.status, 401);
  const { username, password } = await seedAdmin(app, { permissions: [] });
  const token = await login(app, username, password);
  assert.equal((await call(app, 'HEAD', '/api/admin/online-admins', { token })).status, 403);
  assert.equal((await call(app, 'HEAD', '/api/admin/online-admins', { token: superToken })).status, 200);
});
