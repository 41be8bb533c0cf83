// HTTP conventions of the admin service (DESIGN §5): every failure, the framework's included,
// in the `{ code, message, data: null, trace_id }` envelope with the contract's codes; trace
// ids; localisation; token attacks on an authenticated route; docs, health and readiness;
// the permission catalogue seeded from the route table.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createSigner } from 'fast-jwt';
import { deriveKey } from '../../src/platform/auth/jwt.ts';
import { JWT_SECRET, startApp, withRedis, type TestApp } from '../helpers/app.ts';
import { call, login } from '../helpers/http.ts';
import { assertError, assertOk } from '../helpers/assert.ts';

const LOGIN = '/api/admin/login';
const INFO = '/api/admin/info';
const ONLINE = '/api/admin/online-admins';
const GENERATED_TRACE_ID = /^[0-9a-f]{32}$/;

/** Asserts the admin error envelope, its business code and its trace id header. */
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
function partsOf(token: string): [string, string, string] {
  const parts = token.split('.');
  assert.equal(parts.length, 3);
  return parts as [string, string, string];
}

let app: TestApp;
let token: string;

before(async () => {
  // Both services: the docs tests read the time clock's reference too.
  app = await startApp({ SERVICES: 'admin,timeclock' });
  token = await login(app);
});
after(() => app?.close());

describe('request bodies', () => {
  test('malformed JSON is a 400 with 30004', async () => {
    const res = await call(app, 'POST', LOGIN, { payload: '{"username": "admin", ', headers: { 'content-type': 'application/json' } });
    assertError(res, 400, 30004);
    assert.match(res.body.message, /^Invalid format/);
  });

  test('an empty body declared as JSON is a 400 with 30004', async () => {
    const res = await call(app, 'POST', LOGIN, { payload: '', headers: { 'content-type': 'application/json' } });
    assertError(res, 400, 30004);
  });

  test('a body with a __proto__ key is refused as malformed (30004), not merged', async () => {
    const res = await call(app, 'POST', LOGIN, {
      payload: '{"username":"admin","password":"x","__proto__":{"isAdmin":true}}',
      headers: { 'content-type': 'application/json' },
    });
    assertError(res, 400, 30004);
  });

  test('a wrong type is a 400 with 30001 naming the field', async () => {
    const res = await call(app, 'POST', LOGIN, { body: { username: 123, password: 'x' } });
    assertError(res, 400, 30001);
    assert.match(res.body.message, /^Parameter validation failed/);
    assert.match(res.body.message, /\busername\b/);
    assert.match(res.body.message, /must be string/);
  });

  test('every bad field is listed, one message per field, in the envelope’s message (issue 27)', async () => {
    const res = await call(app, 'POST', LOGIN, { body: { username: 123, password: 456, extra: true } });
    assertError(res, 400, 30001);
    for (const field of ['body.username must be string', 'body.password must be string', 'body.extra is not an accepted field']) {
      assert.equal(res.body.message.split(field).length - 1, 1, res.body.message);
    }
    const zh = await call(app, 'POST', LOGIN, { body: { username: 123, password: 456 }, headers: { 'accept-language': 'zh-CN' } });
    assert.match(zh.body.message, /body\.username 必须是字符串；body\.password 必须是字符串/);
  });

  test('a numeric string is not coerced into a body field of another type', async () => {
    const res = await call(app, 'POST', '/api/admin/online-admins/batch-kick-out', { token, body: { token_ids: ['1'] } });
    assertError(res, 400, 30001);
    assert.match(res.body.message, /token_ids/);
  });

  test('an unknown body field is a 400 with 30001 naming it', async () => {
    const res = await call(app, 'POST', LOGIN, { body: { username: 'admin', password: 'x', is_super: true } });
    assertError(res, 400, 30001);
    assert.match(res.body.message, /\bis_super\b/);
    assert.match(res.body.message, /not an accepted field/);
  });

  test('a missing required field is a 400 with 30001 naming it', async () => {
    const res = await call(app, 'POST', LOGIN, { body: { username: 'admin' } });
    assertError(res, 400, 30001);
    assert.match(res.body.message, /\bpassword\b/);
  });

  test('a JSON array instead of an object is a 400 with 30001', async () => {
    const res = await call(app, 'POST', LOGIN, { payload: '[]', headers: { 'content-type': 'application/json' } });
    assertError(res, 400, 30001);
  });

  test('text/plain is a 415 with 30006', async () => {
    const res = await call(app, 'POST', LOGIN, { payload: 'username=admin', headers: { 'content-type': 'text/plain' } });
    assertError(res, 415, 30006);
  });

  test('application/xml is a 415 with 30006', async () => {
    const res = await call(app, 'POST', LOGIN, { payload: '<login><username>admin</username></login>', headers: { 'content-type': 'application/xml' } });
    assertError(res, 415, 30006);
  });

  test('application/x-www-form-urlencoded is a 415 with 30006', async () => {
    const res = await call(app, 'POST', LOGIN, { payload: 'username=admin&password=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assertError(res, 415, 30006);
  });

  test('JSON with a charset parameter is accepted', async () => {
    const res = await call(app, 'POST', LOGIN, {
      payload: JSON.stringify({ username: 'admin', password: 'Admin-pass-123' }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    const data = assertOk(res);
    assert.equal(typeof data.token, 'string');
  });
});

describe('query validation (GET /online-admins with a token)', () => {
  const cases: [string, RegExp][] = [
    ['page=0', /page must be >= 1/],
    ['page_size=101', /page_size must be <= 100/],
    ['page_size=0', /page_size must be >= 1/],
    ['page=abc', /page must be integer/],
    ['page=1.5', /page must be integer/],
  ];
  for (const [query, message] of cases) {
    test(`${query} is a 400 with 30001`, async () => {
      const res = await call(app, 'GET', `${ONLINE}?${query}`, { token });
      assertError(res, 400, 30001);
      assert.match(res.body.message, message);
    });
  }

  test('the bounds themselves are accepted and echoed in the list envelope', async () => {
    const data = assertOk(await call(app, 'GET', `${ONLINE}?page=1&page_size=100`, { token }));
    assert.deepEqual(Object.keys(data).sort(), ['list', 'page', 'page_size', 'total']);
    assert.equal(data.page, 1);
    assert.equal(data.page_size, 100);
    assert.ok(Array.isArray(data.list));
    assert.ok(data.total >= 1);
  });

  test('defaults are page 1, page_size 10', async () => {
    const data = assertOk(await call(app, 'GET', ONLINE, { token }));
    assert.equal(data.page, 1);
    assert.equal(data.page_size, 10);
  });

  test('a bad path parameter is a 400 with 30001', async () => {
    const res = await call(app, 'DELETE', `${ONLINE}/abc`, { token });
    assertError(res, 400, 30001);
    assert.match(res.body.message, /token_id/);
  });
});

describe('routes and methods', () => {
  test('an unknown route is a 404 with 20002, with or without a token', async () => {
    assertError(await call(app, 'GET', '/api/admin/no-such-thing'), 404, 20002);
    assertError(await call(app, 'GET', '/api/admin/no-such-thing', { token }), 404, 20002);
    assertError(await call(app, 'POST', '/api/admin/no/such/thing', { body: { a: 1 } }), 404, 20002);
    assertError(await call(app, 'GET', '/api/admin'), 404, 20002);
  });

  test('DELETE on the login path is a 405 with 20004 and an Allow header', async () => {
    const res = await call(app, 'DELETE', LOGIN);
    assertError(res, 405, 20004);
    assert.equal(res.headers.allow, 'POST');
  });

  test('GET on the logout path is a 405 with 20004 and an Allow header', async () => {
    const res = await call(app, 'GET', '/api/admin/logout');
    assertError(res, 405, 20004);
    assert.equal(res.headers.allow, 'POST');
  });

  test('a wrong method on a parameterised path lists the allowed one', async () => {
    const res = await call(app, 'PATCH', `${ONLINE}/5`, { token });
    assertError(res, 405, 20004);
    assert.equal(res.headers.allow, 'DELETE');
  });

  test('PUT on a GET route is a 405 listing GET; the query string does not matter', async () => {
    const res = await call(app, 'PUT', `${INFO}?x=1`, { body: {} });
    assertError(res, 405, 20004);
    assert.match(String(res.headers.allow), /\bGET\b/);
  });

  // The router ignores a trailing slash (POST /login/ signs in), so the 405 check must too.
  test('a trailing slash gives the same 405 as the bare path', async () => {
    assertOk(await call(app, 'POST', `${LOGIN}/`, { body: { username: 'admin', password: 'Admin-pass-123' } }));
    const res = await call(app, 'DELETE', `${LOGIN}/`);
    assertError(res, 405, 20004);
    assert.equal(res.headers.allow, 'POST');
  });
});

describe('trace ids', () => {
  test('a generated trace id is in the body and the X-Trace-ID header', async () => {
    const res = await call(app, 'GET', INFO);
    assertError(res, 401, 10007);
    assert.match(res.body.trace_id, GENERATED_TRACE_ID);
  });

  test('each request gets its own trace id', async () => {
    const a = await call(app, 'GET', INFO);
    const b = await call(app, 'GET', INFO);
    assert.notEqual(a.body.trace_id, b.body.trace_id);
  });

  test('a well-formed X-Trace-ID is echoed back', async () => {
    const res = await call(app, 'GET', INFO, { headers: { 'x-trace-id': 'abcdef0123456789' } });
    assertError(res, 401, 10007);
    assert.equal(res.body.trace_id, 'abcdef0123456789');
  });

  test('a well-formed X-Request-ID is used when there is no X-Trace-ID', async () => {
    const res = await call(app, 'GET', '/api/admin/nope', { headers: { 'x-request-id': 'req-2026.01:abc_DEF' } });
    assertError(res, 404, 20002);
    assert.equal(res.body.trace_id, 'req-2026.01:abc_DEF');
  });

  test('X-Trace-ID wins over X-Request-ID', async () => {
    const res = await call(app, 'GET', INFO, { headers: { 'x-trace-id': 'trace-00000001', 'x-request-id': 'request-00000002' } });
    assert.equal(res.body.trace_id, 'trace-00000001');
    assert.equal(res.headers['x-trace-id'], 'trace-00000001');
  });

  test('the incoming trace id is echoed on success too', async () => {
    const res = await call(app, 'GET', INFO, { token, headers: { 'x-trace-id': 'success-trace-1234' } });
    assertOk(res);
    assert.equal(res.body.trace_id, 'success-trace-1234');
  });

  const malformed: [string, string][] = [
    ['spaces', 'has spaces in it'],
    ['300 characters', 'a'.repeat(300)],
    ['too short', 'abc'],
    ['percent-encoded CRLF', 'abc123%0d%0ax-y'],
    ['quotes', '"abcdef0123456789"'],
  ];
  for (const [what, value] of malformed) {
    test(`a malformed X-Trace-ID (${what}) is replaced`, async () => {
      const res = await call(app, 'GET', INFO, { headers: { 'x-trace-id': value } });
      assertError(res, 401, 10007);
      assert.notEqual(res.body.trace_id, value);
      assert.match(res.body.trace_id, GENERATED_TRACE_ID);
    });
  }

  test('a malformed X-Request-ID is replaced', async () => {
    const res = await call(app, 'GET', INFO, { headers: { 'x-request-id': 'x'.repeat(129) } });
    assertError(res, 401, 10007);
    assert.match(res.body.trace_id, GENERATED_TRACE_ID);
  });
});

describe('localisation', () => {
  test('zh-CN gives Chinese messages', async () => {
    const res = await call(app, 'GET', INFO, { headers: { 'accept-language': 'zh-CN' } });
    assertError(res, 401, 10007);
    assert.equal(res.body.message, '令牌无效或缺失');
  });

  test('en-US gives English messages', async () => {
    const res = await call(app, 'GET', INFO, { headers: { 'accept-language': 'en-US' } });
    assertError(res, 401, 10007);
    assert.equal(res.body.message, 'Token invalid or missing');
  });

  test('without Accept-Language messages are English', async () => {
    const res = await call(app, 'GET', INFO);
    assertError(res, 401, 10007);
    assert.equal(res.body.message, 'Token invalid or missing');
  });

  test('q-values choose between the two', async () => {
    const res = await call(app, 'GET', INFO, { headers: { 'accept-language': 'en;q=0.3, zh;q=0.8' } });
    assert.equal(res.body.message, '令牌无效或缺失');
  });

  test('framework errors are localised too (404, 405, 400, 415)', async () => {
    const zh = { 'accept-language': 'zh-CN' };
    const notFound = await call(app, 'GET', '/api/admin/nope', { headers: zh });
    assertError(notFound, 404, 20002);
    assert.match(notFound.body.message, /^资源不存在/);
    const method = await call(app, 'DELETE', LOGIN, { headers: zh });
    assertError(method, 405, 20004);
    assert.match(method.body.message, /^请求方法不被允许/);
    const invalid = await call(app, 'POST', LOGIN, { body: { username: 1, password: 'x' }, headers: zh });
    assertError(invalid, 400, 30001);
    assert.match(invalid.body.message, /^参数校验失败/);
    const media = await call(app, 'POST', LOGIN, { payload: 'x', headers: { ...zh, 'content-type': 'text/plain' } });
    assertError(media, 415, 30006);
    assert.match(media.body.message, /^不支持的内容类型/);
  });

  test('details are localised with the message, in both languages', async () => {
    const zh = { 'accept-language': 'zh-CN' };
    const missing = await call(app, 'GET', '/api/admin/admins/999999', { token, headers: zh });
    assertError(missing, 404, 30003);
    assert.equal(missing.body.message, '数据不存在：管理员 999999 不存在');
    const missingEn = await call(app, 'GET', '/api/admin/admins/999999', { token });
    assert.equal(missingEn.body.message, 'Data does not exist: no administrator 999999');
    const wrongType = await call(app, 'POST', LOGIN, { body: { username: 1, password: 'x' }, headers: zh });
    assert.equal(wrongType.body.message, '参数校验失败：body.username 必须是字符串');
    const union = await call(app, 'GET', '/api/admin/notifications?is_read=2', { token, headers: zh });
    assertError(union, 400, 30001);
    assert.equal(union.body.message, '参数校验失败：querystring.is_read 必须是以下之一：1、0');
    const unionEn = await call(app, 'GET', '/api/admin/notifications?is_read=2', { token });
    assert.equal(unionEn.body.message, 'Parameter validation failed: querystring.is_read must be one of: 1, 0');
    const route = await call(app, 'GET', '/api/admin/nope', { headers: zh });
    assert.equal(route.body.message, '资源不存在：GET /api/admin/nope');
    const json = await call(app, 'POST', LOGIN, { payload: '{"username":', headers: { ...zh, 'content-type': 'application/json' } });
    assertError(json, 400, 30004);
    assert.equal(json.body.message, '格式错误：请求体不是有效的 JSON');
  });

  test('success messages are localised', async () => {
    const res = await call(app, 'GET', INFO, { token, headers: { 'accept-language': 'zh-CN' } });
    assert.equal(res.status, 200);
    assert.equal(res.body.code, 200);
    assert.equal(res.body.message, '操作成功');
  });
});

describe('success envelope', () => {
  test('login answers { code: 200, message: "success", data, trace_id }', async () => {
    const res = await call(app, 'POST', LOGIN, { body: { username: 'admin', password: 'Admin-pass-123' } });
    const data = assertOk(res);
    assert.deepEqual(Object.keys(data).sort(), ['expires_at', 'must_bind_authenticator', 'must_change_password', 'token']);
    assert.match(data.expires_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    assert.match(res.body.trace_id, GENERATED_TRACE_ID);
  });

  test('the profile never carries a password hash', async () => {
    const res = await call(app, 'GET', INFO, { token });
    const data = assertOk(res);
    assert.equal(data.username, 'admin');
    assert.doesNotMatch(JSON.stringify(res.body), /\$argon2|password_hash|passwordHash|totp_secret/i);
    assert.ok(!('password' in data) && !('password_hash' in data));
  });
});

describe('token attacks on GET /info', () => {
  const adminKey = deriveKey(JWT_SECRET, 'admin');
  const nowSec = () => Math.floor(Date.now() / 1000);
  let claims: { sid: number; uid: number; jti: string; iat: number; exp: number };
  let otherSid: number;

  before(async () => {
    claims = decode(partsOf(token)[1]);
    const second = await login(app);
    otherSid = decode(partsOf(second)[1]).sid;
    assert.notEqual(otherSid, claims.sid);
  });

  const attack = async (authorization: string | undefined, code = 10007) => {
    const res = await call(app, 'GET', INFO, authorization === undefined ? {} : { headers: { authorization } });
    assertError(res, 401, code);
    return res;
  };

  test('the genuine token works (control)', async () => {
    const data = assertOk(await call(app, 'GET', INFO, { headers: { authorization: `Bearer ${token}` } }));
    assert.equal(data.username, 'admin');
  });

  test('no Authorization header: 10007', async () => {
    await attack(undefined);
  });

  test('an empty Bearer and garbage Bearer values: 10007', async () => {
    for (const value of ['Bearer', 'Bearer ', 'Bearer garbage', 'Bearer a.b.c', 'Bearer ....', `Bearer ${token}x`, `Basic ${token}`, token]) {
      await attack(value);
    }
  });

  test('alg "none" with the genuine payload: 10007', async () => {
    const [, payload] = partsOf(token);
    await attack(`Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`);
    await attack(`Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${payload}`);
    await attack(`Bearer ${b64({ alg: 'NONE' })}.${payload}.`);
  });

  test('an edited payload (another session id) with the original signature: 10007', async () => {
    const [header, , signature] = partsOf(token);
    await attack(`Bearer ${header}.${b64({ ...claims, sid: otherSid })}.${signature}`);
    await attack(`Bearer ${header}.${b64({ ...claims, exp: claims.exp + 86400 })}.${signature}`);
  });

  test('a token signed with a different secret: 10007', async () => {
    const sign = createSigner({ key: deriveKey('another-secret-that-is-long-enough-987654', 'admin'), algorithm: 'HS256' });
    await attack(`Bearer ${sign({ ...claims })}`);
  });

  test('a token signed HS512 with the right key: 10007', async () => {
    const sign = createSigner({ key: adminKey, algorithm: 'HS512' });
    await attack(`Bearer ${sign({ ...claims })}`);
  });

  test('an RS256 header over an HMAC signature with the right key: 10007', async () => {
    const signingInput = `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64(claims)}`;
    const signature = createHmac('sha256', adminKey).update(signingInput).digest('base64url');
    await attack(`Bearer ${signingInput}.${signature}`);
  });

  test('a correctly signed HS256 token built by hand is accepted (so the attacks above fail for the right reason)', async () => {
    const signingInput = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`;
    const signature = createHmac('sha256', adminKey).update(signingInput).digest('base64url');
    assertOk(await call(app, 'GET', INFO, { headers: { authorization: `Bearer ${signingInput}.${signature}` } }));
  });

  test('an expired token: 10003', async () => {
    const sign = createSigner({ key: adminKey, algorithm: 'HS256' });
    const res = await attack(`Bearer ${sign({ ...claims, iat: nowSec() - 7200, exp: nowSec() - 3600 })}`, 10003);
    assert.equal(res.body.message, 'Token expired');
  });

  test('a correctly signed token without exp: 10007', async () => {
    const sign = createSigner({ key: adminKey, algorithm: 'HS256' });
    const { exp: _exp, ...noExp } = claims;
    await attack(`Bearer ${sign(noExp)}`);
  });

  test('a correctly signed token with a non-integer session id: 10007', async () => {
    const sign = createSigner({ key: adminKey, algorithm: 'HS256' });
    await attack(`Bearer ${sign({ ...claims, sid: String(claims.sid) })}`);
  });

  test('a correctly signed token for a session that does not exist: 10004', async () => {
    const sign = createSigner({ key: adminKey, algorithm: 'HS256' });
    await attack(`Bearer ${sign({ ...claims, sid: 987654321 })}`, 10004);
  });

  test('a correctly signed token with another jti than the session’s: 10004', async () => {
    const sign = createSigner({ key: adminKey, algorithm: 'HS256' });
    await attack(`Bearer ${sign({ ...claims, jti: 'forged-jti' })}`, 10004);
  });

  test('a token signed with the time-clock key: 10007', async () => {
    const sign = createSigner({ key: deriveKey(JWT_SECRET, 'timeclock'), algorithm: 'HS256' });
    await attack(`Bearer ${sign({ ...claims })}`);
  });

  test('a token signed with the raw JWT_SECRET (not the derived key): 10007', async () => {
    const sign = createSigner({ key: JWT_SECRET, algorithm: 'HS256' });
    await attack(`Bearer ${sign({ ...claims })}`);
  });
});

describe('OpenAPI and docs', () => {
  test('GET /api/admin/docs/openapi.json is an OpenAPI 3.1 document of the admin routes', async () => {
    const res = await call(app, 'GET', '/api/admin/docs/openapi.json');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /json/);
    assert.equal(res.body.openapi, '3.1.0');
    assert.equal(res.body.info.version, '1.0');
    const paths = Object.keys(res.body.paths);
    for (const p of ['/api/admin/login', '/api/admin/online-admins', '/api/admin/info', '/api/admin/captcha']) assert.ok(paths.includes(p), p);
    assert.ok(res.body.paths['/api/admin/login'].post);
    assert.ok(res.body.paths['/api/admin/online-admins'].get);
    assert.ok(!paths.includes('/api/health'), 'time-clock routes are not in the admin document');
    assert.ok(!paths.some((p) => p.startsWith('/api/admin/docs')), 'the docs themselves are not documented');
    assert.ok(!paths.includes('/healthz'));
  });

  test('the admin document lists the error codes', async () => {
    const res = await call(app, 'GET', '/api/admin/docs/openapi.json');
    for (const code of ['10007', '20002', '20004', '30001', '30004', '30005', '30006']) assert.match(res.body.info.description, new RegExp(`\\| ${code} \\|`), code);
  });

  test('GET /api/admin/docs/ is an HTML page', async () => {
    const res = await call(app, 'GET', '/api/admin/docs/');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.match(String(res.body), /<html/i);
  });

  test('GET /api/docs/openapi.json is the time-clock document', async () => {
    const res = await call(app, 'GET', '/api/docs/openapi.json');
    assert.equal(res.status, 200);
    assert.equal(res.body.openapi, '3.1.0');
    const paths = Object.keys(res.body.paths);
    assert.ok(paths.includes('/api/health'));
    assert.ok(!paths.some((p) => p.startsWith('/api/admin')), 'admin routes are not in the time-clock document');
  });

  test('GET /api/docs/ is an HTML page', async () => {
    const res = await call(app, 'GET', '/api/docs/');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
  });
});

describe('permission catalogue', () => {
  test('online.list and online.kick are system permissions under the "online" menu', async () => {
    const rows = await app.platform.db.query<{ slug: string; is_system: boolean; menu: string | null; method: string; path: string }>(
      `SELECT p.slug, p.is_system, m.slug AS menu, p.method, p.path
         FROM admin.permissions p LEFT JOIN admin.menus m ON m.id = p.menu_id
        WHERE p.slug IN ('online.list', 'online.kick') ORDER BY p.slug`,
    );
    assert.deepEqual(rows.map((r) => [r.slug, r.is_system, r.menu]), [
      ['online.kick', true, 'online'],
      ['online.list', true, 'online'],
    ]);
    const list = rows.find((r) => r.slug === 'online.list')!;
    assert.equal(list.method, 'GET');
    assert.equal(list.path, '/api/admin/online-admins');
  });

  test('public and self routes declare no permission', async () => {
    const rows = await app.platform.db.query<{ slug: string }>(`SELECT slug FROM admin.permissions WHERE path IN ($1, $2, $3)`, [LOGIN, INFO, '/api/admin/captcha']);
    assert.deepEqual([...rows], []);
  });
});

describe('body limit (BODY_LIMIT=2048)', () => {
  let small: TestApp;
  before(async () => {
    small = await startApp({ BODY_LIMIT: '2048' });
  });
  after(() => small?.close());

  test('a body over the limit is a 413 with 30005', async () => {
    const payload = JSON.stringify({ username: 'admin', password: 'x'.repeat(4096) });
    const res = await call(small, 'POST', LOGIN, { payload, headers: { 'content-type': 'application/json' } });
    assertError(res, 413, 30005);
    assert.equal(res.body.message, 'Request body too large');
  });

  test('the 413 message is localised', async () => {
    const res = await call(small, 'POST', LOGIN, {
      payload: JSON.stringify({ username: 'admin', password: 'y'.repeat(3000) }),
      headers: { 'content-type': 'application/json', 'accept-language': 'zh-CN' },
    });
    assertError(res, 413, 30005);
    assert.equal(res.body.message, '请求体过大');
  });

  test('a body just under the limit is read (and then validated: 30001)', async () => {
    const payload = JSON.stringify({ username: 'admin', password: 'x'.repeat(1500) });
    assert.ok(Buffer.byteLength(payload) < 2048);
    const res = await call(small, 'POST', LOGIN, { payload, headers: { 'content-type': 'application/json' } });
    assertError(res, 400, 30001);
    assert.match(res.body.message, /password/);
  });

  test('the default app accepts the same large body (so the limit is the setting)', async () => {
    const payload = JSON.stringify({ username: 'admin', password: 'x'.repeat(4096) });
    const res = await call(app, 'POST', LOGIN, { payload, headers: { 'content-type': 'application/json' } });
    assertError(res, 400, 30001);
  });
});

describe('health and readiness', () => {
  test('GET /healthz is 200 {status: "ok"}', async () => {
    const res = await call(app, 'GET', '/healthz');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { status: 'ok' });
  });

  test('GET /readyz is 200 {status: "ready"} with its checks', async () => {
    const res = await call(app, 'GET', '/readyz');
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'ready');
    assert.deepEqual(res.body.checks, { database: true, redis: withRedis ? true : null, storage: app.platform.config.STORAGE_DRIVER === 's3' ? true : null });
  });

  // Last in this file: the app stops being ready.
  test('after beginShutdown /readyz is 503 while the app still serves', async () => {
    app.beginShutdown();
    const res = await call(app, 'GET', '/readyz');
    assert.equal(res.status, 503);
    assert.equal(res.body.status, 'shutting_down');
    assert.equal((await call(app, 'GET', '/healthz')).status, 200);
    assertOk(await call(app, 'GET', INFO, { token }));
  });
});
