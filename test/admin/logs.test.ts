// Operation, login and system logs: what is recorded (and redacted) for each request, the
// read endpoints' filters and validation, permissions, flushing and retention.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyPluginAsync } from 'fastify';
import ExcelJS from 'exceljs';
import { parse } from 'csv-parse/sync';
import { formatDisplay } from '../../src/platform/time.ts';
import { moduleAndAction, recordSystemLog } from '../../src/admin/features/logs/logs.recorder.ts';
import { redact } from '../../src/admin/features/logs/logs.redact.ts';
import { isSecretFieldName } from '../../src/platform/secret-fields.ts';
import { LogWriter, purgeLogs } from '../../src/admin/features/logs/logs.writer.ts';
import { ADMIN_PASSWORD, startApp, type TestApp } from '../helpers/app.ts';
import { call, login, seedAdmin, signedInAdmin, type Reply } from '../helpers/http.ts';
import { assertError, assertOk } from '../helpers/assert.ts';
import { actionLabel, hasActionLabel } from '../../src/admin/kernel/action-labels.ts';

const DISPLAY_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

// Test-only routes inside the admin context, after the recorder: one fails with a 500, one
// logs a warning through the request logger.
const extras: FastifyPluginAsync = async (admin) => {
  admin.post('/test/boom', { config: { permission: 'testing.boom' } }, async () => {
    throw new Error('kaboom');
  });
  admin.get('/test/warn', { config: { permission: 'testing.warn' } }, async (request) => {
    request.log.warn({ password: 'Leaky-pass-9', detail: { token: 'tok-123', kept: 'visible' } }, 'something odd about %s', 'widgets');
    request.log.child({ component: 'sub' }).error(new Error('child failure'));
    return { ok: true };
  });
};

let app: TestApp;
let superToken: string;
let superId: number;

before(async () => {
  app = await startApp({}, { adminExtras: extras });
  superToken = await login(app);
  superId = (await call(app, 'GET', '/api/admin/info', { token: superToken })).body.data.id as number;
});
after(() => app?.close());

interface OperationRow {
  id: number;
  admin_id: number | null;
  username: string;
  module: string;
  action: string;
  method: string;
  route: string;
  path: string;
  ip: string;
  user_agent: string;
  params: any;
  status_code: number;
  duration_ms: number;
  trace_id: string;
  created_at: string;
}

/** Polls `fn` until it returns a truthy value (rows are written just after the response). */
async function eventually<T>(fn: () => Promise<T | undefined | null | false>, what: string, ms = 3000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function operationsOf(traceId: string): Promise<OperationRow[]> {
  const res = await call(app, 'GET', `/api/admin/logs/operation?page_size=100&trace_id=${encodeURIComponent(traceId)}`, { token: superToken });
  assertOk(res);
  return res.body.data.list as OperationRow[];
}

async function operationFor(res: Reply): Promise<OperationRow> {
  const traceId = res.body.trace_id as string;
  const rows = await eventually(async () => {
    const r = await operationsOf(traceId);
    return r.length > 0 ? r : undefined;
  }, `operation row of ${traceId}`);
  assert.equal(rows.length, 1, 'exactly one row per request');
  return rows[0]!;
}

async function settle() {
  // Longer than the writer's batching delay.
  await new Promise((r) => setTimeout(r, 300));
}

describe('operation log recording', () => {
  test('PUT /password: one row with the caller, route, status, duration and trace_id; passwords never stored', async () => {
    const { token, ...admin } = await signedInAdmin(app, { password: 'Old-secret-pass-1' });
    const res = await call(app, 'PUT', '/api/admin/password', {
      token,
      headers: { 'x-trace-id': `trace-pw-${Date.now()}`, 'user-agent': 'logs-test/1.0' },
      body: { old_password: 'Old-secret-pass-1', password: 'New-secret-pass-2', password_confirmation: 'New-secret-pass-2' },
    });
    assertOk(res);
    const row = await operationFor(res);
    assert.equal(row.trace_id, res.body.trace_id);
    assert.equal(row.trace_id, res.headers['x-trace-id']);
    assert.equal(row.admin_id, admin.id);
    assert.equal(row.username, admin.username);
    assert.equal(row.module, 'auth');
    assert.equal(row.action, 'password');
    assert.equal(row.method, 'PUT');
    assert.equal(row.route, '/api/admin/password');
    assert.equal(row.path, '/api/admin/password');
    assert.equal(row.status_code, 200);
    assert.ok(Number.isInteger(row.duration_ms) && row.duration_ms >= 0);
    assert.equal(row.user_agent, 'logs-test/1.0');
    assert.equal(row.ip, '127.0.0.1');
    assert.match(row.created_at, DISPLAY_TIME);
    assert.deepEqual(row.params.body, { old_password: '[redacted]', password: '[redacted]', password_confirmation: '[redacted]' });

    // Nowhere in the stored row, nor in the table at all.
    const [stored] = await app.platform.db.query<{ all: string }>(`SELECT row_to_json(o)::text AS all FROM admin.operation_logs o WHERE trace_id = $1`, [row.trace_id]);
    assert.ok(stored);
    assert.doesNotMatch(stored.all, /Old-secret-pass-1|New-secret-pass-2/);
    const [leak] = await app.platform.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM admin.operation_logs WHERE params::text LIKE '%secret-pass%'`,
    );
    assert.equal(Number(leak!.n), 0);
  });

  test('a failed password change is recorded with its status, still redacted', async () => {
    const { token } = await signedInAdmin(app);
    const res = await call(app, 'PUT', '/api/admin/password', {
      token,
      body: { old_password: 'Wrong-old-pass-1', password: 'Another-pass-22', password_confirmation: 'Another-pass-22' },
    });
    assertError(res, 400, 30001);
    const row = await operationFor(res);
    assert.equal(row.status_code, 400);
    assert.equal(row.params.body.old_password, '[redacted]');
    assert.doesNotMatch(JSON.stringify(row), /Wrong-old-pass-1|Another-pass-22/);
  });

  test('a dictionary keeps its code in the row; an authenticator code is censored on the routes that take one', async () => {
    const code = `audit_${Date.now()}`;
    const created = await call(app, 'POST', '/api/admin/dictionaries', { token: superToken, body: { name: 'Audit type', code } });
    assertOk(created);
    assert.equal((await operationFor(created)).params.body.code, code);

    const target = await seedAdmin(app);
    // Refused (nothing bound or pending, and the caller has no authenticator), recorded all the same.
    for (const [path, body, status] of [
      ['/api/admin/google-authenticator/bind', { secret: 'JBSWY3DPEHPK3PXPJBSWY3DP', code: '493817' }, 400],
      ['/api/admin/google-authenticator/unbind', { code: '493817' }, 400],
      [`/api/admin/admins/${target.id}/unbind-google-auth`, { code: '493817' }, 403],
    ] as const) {
      const res = await call(app, 'POST', path, { token: superToken, body });
      assert.equal(res.status, status, path);
      const row = await operationFor(res);
      assert.equal(row.params.body.code, '[redacted]', path);
      assert.doesNotMatch(JSON.stringify(row), /493817/);
    }
  });

  test('DELETE /online-admins/{token_id}: module and action from the permission slug, route and actual path', async () => {
    const { token: victimToken } = await signedInAdmin(app);
    const sid = JSON.parse(Buffer.from(victimToken.split('.')[1]!, 'base64url').toString()).sid as number;
    const res = await call(app, 'DELETE', `/api/admin/online-admins/${sid}`, { token: superToken });
    assertOk(res);
    const row = await operationFor(res);
    assert.equal(row.module, 'online');
    assert.equal(row.action, 'kick');
    assert.equal(row.method, 'DELETE');
    assert.equal(row.route, '/api/admin/online-admins/:token_id');
    assert.equal(row.path, `/api/admin/online-admins/${sid}`);
    assert.equal(row.admin_id, superId);
    assert.equal(row.status_code, 200);
    assert.deepEqual(row.params.params, { token_id: sid });

    // Not found is recorded too.
    const missing = await call(app, 'DELETE', '/api/admin/online-admins/987654321', { token: superToken });
    assertError(missing, 404, 30003);
    assert.equal((await operationFor(missing)).status_code, 404);
  });

  test('a refused operation (403) of a signed-in administrator is recorded; anonymous ones are not', async () => {
    const { token, ...admin } = await signedInAdmin(app, { permissions: [] });
    const res = await call(app, 'POST', '/api/admin/online-admins/batch-kick-out', { token, body: { token_ids: [987654321] } });
    assertError(res, 403, 20001);
    const row = await operationFor(res);
    assert.equal(row.status_code, 403);
    assert.equal(row.admin_id, admin.id);
    assert.equal(row.module, 'online');
    assert.equal(row.action, 'kick');
    assert.equal(row.params.body, undefined, 'the body of a refused request is not even parsed');

    const anonymous = await call(app, 'POST', '/api/admin/online-admins/batch-kick-out', { body: { token_ids: [1] } });
    assertError(anonymous, 401, 10007);
    await settle();
    assert.deepEqual(await operationsOf(anonymous.body.trace_id), []);
  });

  test('login, captcha and reads are not operations; logout is (auth / logout)', async () => {
    const admin = await seedAdmin(app);
    const loginRes = await call(app, 'POST', '/api/admin/login', { body: { username: admin.username, password: admin.password } });
    assertOk(loginRes);
    const token = loginRes.body.data.token as string;
    const read = await call(app, 'GET', '/api/admin/info', { token });
    assertOk(read);
    const logout = await call(app, 'POST', '/api/admin/logout', { token });
    assertOk(logout);
    const row = await operationFor(logout);
    assert.equal(row.module, 'auth');
    assert.equal(row.action, 'logout');
    assert.deepEqual(await operationsOf(loginRes.body.trace_id), []);
    assert.deepEqual(await operationsOf(read.body.trace_id), []);
  });

  test('a 500 is recorded in the operation log and, with its error, in the system log', async () => {
    const res = await call(app, 'POST', '/api/admin/test/boom', { token: superToken, body: { note: 'x'.repeat(2000), secret: 's3cr3t' } });
    assertError(res, 500, 50001);
    const row = await operationFor(res);
    assert.equal(row.status_code, 500);
    assert.equal(row.module, 'testing');
    assert.equal(row.action, 'boom');
    assert.equal(row.params.body.secret, '[redacted]');
    assert.ok(row.params.body.note.length < 600, 'long values are cut');

    const sys = await eventually(async () => {
      const r = await call(app, 'GET', `/api/admin/logs/system?trace_id=${res.body.trace_id}`, { token: superToken });
      assertOk(r);
      return r.body.data.list.length > 0 ? r.body.data.list : undefined;
    }, 'system log row');
    assert.equal(sys.length, 1);
    assert.equal(sys[0].level, 'error');
    assert.equal(sys[0].message, 'request failed');
    assert.equal(sys[0].trace_id, res.body.trace_id);
    assert.equal(sys[0].context.err.message, 'kaboom');
    assert.equal(sys[0].context.request.route, '/api/admin/test/boom');
    assert.match(sys[0].created_at, DISPLAY_TIME);
  });
});

describe('system log capture', () => {
  test('warnings and errors logged through the request logger (children too) are stored, redacted', async () => {
    const res = await call(app, 'GET', '/api/admin/test/warn', { token: superToken });
    assert.equal(res.status, 200);
    const traceId = res.headers['x-trace-id'] as string;
    const rows = await eventually(async () => {
      const r = await call(app, 'GET', `/api/admin/logs/system?trace_id=${traceId}&order_by=id:asc`, { token: superToken });
      assertOk(r);
      return r.body.data.list.length >= 2 ? r.body.data.list : undefined;
    }, 'two system log rows');
    assert.equal(rows[0].level, 'warning');
    assert.equal(rows[0].message, 'something odd about widgets');
    assert.equal(rows[0].context.password, '[redacted]');
    assert.deepEqual(rows[0].context.detail, { token: '[redacted]', kept: 'visible' });
    assert.equal(rows[1].level, 'error');
    assert.equal(rows[1].message, 'child failure');
    assert.equal(rows[1].context.err.type, 'Error');
    assert.doesNotMatch(JSON.stringify(rows), /Leaky-pass-9|tok-123/);

    const warnings = await call(app, 'GET', `/api/admin/logs/system?level=warning&trace_id=${traceId}`, { token: superToken });
    assertOk(warnings);
    assert.equal(warnings.body.data.total, 1);
  });

  test('recordSystemLog adds a row without a request', async () => {
    const marker = `marker-${Date.now()}`;
    recordSystemLog('info', `background job finished ${marker}`, { job: 'x', api_key: 'k-1' }, `trace-${marker}`);
    const row = await eventually(async () => {
      const r = await call(app, 'GET', `/api/admin/logs/system?level=info&trace_id=trace-${marker}`, { token: superToken });
      assertOk(r);
      return r.body.data.list[0];
    }, 'recorded system row');
    assert.equal(row.message, `background job finished ${marker}`);
    assert.deepEqual(row.context, { job: 'x', api_key: '[redacted]' });
  });
});

describe('GET /logs/operation', () => {
  test('each row names its action in the reader’s language (action_label), not only the raw module and action', async () => {
    const admin = await seedAdmin(app);
    const token = await login(app, admin.username, admin.password);
    const logout = await call(app, 'POST', '/api/admin/logout', { token });
    assertOk(logout);
    await operationFor(logout);
    const read = async (language: string) => {
      const res = await call(app, 'GET', `/api/admin/logs/operation?trace_id=${logout.body.trace_id}`, { token: superToken, headers: { 'accept-language': language } });
      assert.equal(res.status, 200);
      return res.body.data.list[0];
    };
    const en = await read('en-US');
    assert.deepEqual([en.module, en.action, en.action_label], ['auth', 'logout', 'Sign out']);
    assert.equal((await read('zh-CN')).action_label, '退出登录');
  });

  test('every self-service action and every permission slug has a name in both languages', () => {
    const selfService = ['/logout', '/password', '/google-authenticator/bind', '/google-authenticator/unbind', '/google-authenticator/recovery-codes',
      '/notifications/read-all', '/notifications/:id/read'];
    for (const path of selfService) {
      const { module, action } = moduleAndAction(undefined, `/api/admin${path}`, '/api/admin');
      assert.ok(hasActionLabel(`${module}.${action}`), `${module}.${action} (${path})`);
      assert.match(actionLabel(`${module}.${action}`, 'zh-CN'), /[\u4e00-\u9fff]/);
    }
    assert.equal(actionLabel('online.kick', 'en-US'), 'Sign out online administrators');
    assert.equal(actionLabel('no.such', 'zh-CN'), 'no.such');
  });

  test('filters by admin_id, module, action and dates (both date forms)', async () => {
    const { token, ...admin } = await signedInAdmin(app, { permissions: ['online.kick'] });
    const res = await call(app, 'POST', '/api/admin/online-admins/batch-kick-out', { token, body: { token_ids: [987654320] } });
    assertOk(res);
    const row = await operationFor(res);

    const q = async (query: string) => {
      const r = await call(app, 'GET', `/api/admin/logs/operation${query}`, { token: superToken });
      assertOk(r);
      return r.body.data as { list: OperationRow[]; total: number; page: number; page_size: number };
    };
    const mine = await q(`?admin_id=${admin.id}`);
    assert.ok(mine.total >= 1);
    assert.ok(mine.list.every((r) => r.admin_id === admin.id));
    assert.ok(mine.list.some((r) => r.id === row.id));

    const byModule = await q(`?admin_id=${admin.id}&module=online&action=kick`);
    assert.ok(byModule.list.some((r) => r.id === row.id));
    assert.equal((await q(`?admin_id=${admin.id}&module=auth`)).list.some((r) => r.id === row.id), false);
    assert.equal((await q(`?admin_id=${admin.id}&module=online&action=list`)).total, 0);

    const today = row.created_at.slice(0, 10);
    assert.ok((await q(`?admin_id=${admin.id}&start_date=${today}&end_date=${today}`)).list.some((r) => r.id === row.id));
    assert.ok((await q(`?admin_id=${admin.id}&start_date=${encodeURIComponent(row.created_at)}&end_date=${encodeURIComponent(row.created_at)}`)).list.some((r) => r.id === row.id), 'bounds are inclusive to the second');
    assert.equal((await q(`?admin_id=${admin.id}&start_date=2000-01-01&end_date=2000-01-02`)).total, 0);
    assert.equal((await q(`?admin_id=${admin.id}&end_date=2000-01-01`)).total, 0);

    const paged = await q(`?page_size=1&order_by=id:asc`);
    assert.equal(paged.list.length, 1);
    assert.equal(paged.page_size, 1);
  });

  test('filters by trace_id (exact), alone or with the other filters: the rows of the requests that carried it', async () => {
    const trace = `trace-filter-${Date.now()}`;
    const made = await call(app, 'POST', '/api/admin/dictionaries', { token: superToken, headers: { 'x-trace-id': trace }, body: { name: 'Traced', code: `traced_${Date.now()}` } });
    assertOk(made);
    assert.equal(made.body.trace_id, trace);
    // Another request with its own trace, and one whose trace only starts like the first.
    const other = await call(app, 'POST', '/api/admin/dictionaries', { token: superToken, body: { name: 'Untraced', code: `untraced_${Date.now()}` } });
    assertOk(other);
    const longer = await call(app, 'POST', '/api/admin/dictionaries', { token: superToken, headers: { 'x-trace-id': `${trace}-2` }, body: { name: 'Longer', code: `longer_${Date.now()}` } });
    assertOk(longer);
    for (const res of [made, other, longer]) await operationFor(res);

    const q = async (query: string) => {
      const r = await call(app, 'GET', `/api/admin/logs/operation${query}`, { token: superToken });
      assertOk(r);
      return r.body.data as { list: OperationRow[]; total: number };
    };
    const traced = await q(`?trace_id=${trace}`);
    assert.equal(traced.total, 1);
    assert.deepEqual(traced.list.map((r) => [r.trace_id, r.method, r.path]), [[trace, 'POST', '/api/admin/dictionaries']]);
    // The same row as in the unfiltered list.
    const all = await q('?page_size=100');
    assert.deepEqual(all.list.filter((r) => r.trace_id === trace), traced.list);
    assert.ok(all.total > traced.total);

    assert.equal((await q(`?trace_id=${trace}&module=dictionary`)).total, 1);
    assert.equal((await q(`?trace_id=${trace}&module=online`)).total, 0, 'with the other filters, all must hold');
    assert.equal((await q(`?trace_id=${trace}&start_date=2000-01-01&end_date=2000-01-02`)).total, 0);
    assert.equal((await q(`?trace_id=${trace.toUpperCase()}`)).total, 0, 'exact: case counts');
    assert.equal((await q(`?trace_id=${trace.slice(0, -1)}`)).total, 0, 'exact: no prefix match');
    assert.equal((await q(`?trace_id=${trace}-2`)).list[0]?.id, (await operationFor(longer)).id);
  });

  test('bad input is 400 30001', async () => {
    const bad = [
      '?trace_id=',
      `?trace_id=${'a'.repeat(129)}`,
      '?start_date=2026-13-01',
      '?start_date=2026-02-30',
      '?start_date=2026/01/01',
      '?end_date=yesterday',
      '?start_date=2026-01-01%2025:00:00',
      '?start_date=2026-03-02&end_date=2026-03-01',
      '?start_date=2026-03-01%2010:00:01&end_date=2026-03-01%2010:00:00',
      '?page_size=101',
      '?page=0',
      '?admin_id=abc',
      '?order_by=username:asc',
    ];
    for (const query of bad) assertError(await call(app, 'GET', `/api/admin/logs/operation${query}`, { token: superToken }), 400, 30001);
    assertOk(await call(app, 'GET', '/api/admin/logs/operation?start_date=2026-03-01&end_date=2026-03-01', { token: superToken }));
  });

  test('there are no write endpoints', async () => {
    for (const method of ['POST', 'PUT', 'DELETE'] as const) {
      const res = await call(app, method, '/api/admin/logs/operation', { token: superToken, body: {} });
      assert.equal(res.status, 405, method);
    }
  });
});

describe('GET /logs/login', () => {
  test('filters by admin_id, ip (fuzzy) and status', async () => {
    const admin = await seedAdmin(app);
    await login(app, admin.username, admin.password);
    const failed = await call(app, 'POST', '/api/admin/login', { body: { username: admin.username, password: 'Wrong-pass-123' } });
    assertError(failed, 401, 10001);

    const q = async (query: string) => {
      const r = await call(app, 'GET', `/api/admin/logs/login${query}`, { token: superToken });
      assertOk(r);
      return r.body.data as { list: any[]; total: number };
    };
    const all = await q(`?admin_id=${admin.id}`);
    assert.equal(all.total, 2);
    assert.deepEqual(all.list.map((r) => [r.status, r.reason]), [[0, 'bad_password'], [1, 'success']]);
    for (const r of all.list) {
      assert.equal(r.username, admin.username);
      assert.equal(r.admin_id, admin.id);
      assert.match(r.created_at, DISPLAY_TIME);
    }
    assert.deepEqual((await q(`?admin_id=${admin.id}&status=1`)).list.map((r) => r.reason), ['success']);
    assert.deepEqual((await q(`?admin_id=${admin.id}&status=0`)).list.map((r) => r.reason), ['bad_password']);
    assert.equal((await q(`?admin_id=${admin.id}&ip=127.0`)).total, 2);
    assert.equal((await q(`?admin_id=${admin.id}&ip=10.9.9`)).total, 0);
    const today = formatDisplay(new Date(), 'UTC')!.slice(0, 10);
    assert.equal((await q(`?admin_id=${admin.id}&start_date=${today}`)).total, 2);
    assert.equal((await q(`?admin_id=${admin.id}&order_by=id:asc`)).list[0].status, 1);
  });

  test('bad input is 400 30001', async () => {
    for (const query of ['?status=2', '?status=yes', '?page_size=101', '?start_date=2026-01-02&end_date=2026-01-01', '?end_date=2026-1-1']) {
      assertError(await call(app, 'GET', `/api/admin/logs/login${query}`, { token: superToken }), 400, 30001);
    }
  });
});

describe('GET /logs/system', () => {
  test('bad input is 400 30001', async () => {
    for (const query of ['?level=fatal', '?level=WARNING', '?page_size=101', '?start_date=2026-01-02%2000:00:00&end_date=2026-01-01', '?start_date=2026-02-29']) {
      assertError(await call(app, 'GET', `/api/admin/logs/system${query}`, { token: superToken }), 400, 30001);
    }
    for (const level of ['error', 'warning', 'info', 'debug']) assertOk(await call(app, 'GET', `/api/admin/logs/system?level=${level}`, { token: superToken }));
  });
});

describe('permissions', () => {
  test('each log needs its own slug: 403 20001 without it, 200 with it', async () => {
    const slugs = { operation: 'log.operation', login: 'log.login', system: 'log.system' } as const;
    for (const [which, slug] of Object.entries(slugs)) {
      const others = Object.values(slugs).filter((s) => s !== slug);
      const without = await seedAdmin(app, { permissions: others });
      const withIt = await seedAdmin(app, { permissions: [slug] });
      assertError(await call(app, 'GET', `/api/admin/logs/${which}`, { token: await login(app, without.username, without.password) }), 403, 20001);
      assertOk(await call(app, 'GET', `/api/admin/logs/${which}`, { token: await login(app, withIt.username, withIt.password) }));
    }
  });
});

describe('writer and retention', () => {
  test('close() writes rows that are still buffered', async () => {
    const writer = new LogWriter(app.platform.db.orm, app.platform.logger);
    const marker = `close-${Date.now()}`;
    for (let i = 0; i < 5; i++) writer.system('debug', `${marker} ${i}`, {}, marker);
    await writer.close();
    const [row] = await app.platform.db.query<{ n: number }>('SELECT count(*)::int AS n FROM admin.system_logs WHERE trace_id = $1', [marker]);
    assert.equal(Number(row!.n), 5);
  });

  test('NUL characters and unpaired surrogates are written out; the other rows of the batch are all kept', async () => {
    const writer = new LogWriter(app.platform.db.orm, app.platform.logger);
    const marker = `hostile-${Date.now()}`;
    writer.system('warning', `${marker} before`, {}, marker);
    writer.system('warning', 'nul \u0000 in the message', { 'key\u0000': 'value \u0000', lone: '\ud800', cut: `${'x'.repeat(3999)}😀` }, marker);
    writer.operation({
      adminId: superId, username: 'u\u0000', module: 'm', action: 'a', method: 'POST', route: '/r', path: '/p\u0000',
      ip: '', userAgent: '\udfff', params: redact({ body: { name: 'n\u0000', '\ud800': 1 } }) as Record<string, unknown>,
      statusCode: 400, durationMs: 1, traceId: marker, createdAt: new Date(),
    });
    writer.system('warning', `${marker} after`, {}, marker);
    await writer.close();
    const rows = await app.platform.db.query<{ message: string; context: any }>(
      'SELECT message, context FROM admin.system_logs WHERE trace_id = $1 ORDER BY id', [marker]);
    assert.deepEqual(rows.map((r) => r.message), [`${marker} before`, 'nul \\u0000 in the message', `${marker} after`]);
    assert.equal(rows[1]!.context['key\\u0000'], 'value \\u0000');
    assert.equal(rows[1]!.context.lone, '\\ud800');
    const [op] = await app.platform.db.query<{ username: string; path: string; user_agent: string; params: any }>(
      'SELECT username, path, user_agent, params FROM admin.operation_logs WHERE trace_id = $1', [marker]);
    assert.deepEqual([op!.username, op!.path, op!.user_agent], ['u\\u0000', '/p\\u0000', '\\udfff']);
    assert.deepEqual(op!.params.body, { name: 'n\\u0000', '\\ud800': 1 });
    assert.deepEqual(writer.lost, { overflow: 0, unwritable: 0 });
  });

  test('a row the database refuses for its own content is the only one lost, counted and reported', async () => {
    const writer = new LogWriter(app.platform.db.orm, app.platform.logger);
    const marker = `refused-${Date.now()}`;
    const op = (statusCode: number, i: number) => ({
      adminId: superId, username: 'u', module: 'm', action: `a${i}`, method: 'POST', route: '/r', path: '/p',
      ip: '', userAgent: '', params: {}, statusCode, durationMs: 1, traceId: marker, createdAt: new Date(),
    });
    // status_code is a smallint: 99999 is out of its range.
    for (let i = 0; i < 9; i++) writer.operation(op(i === 4 ? 99_999 : 200, i));
    await writer.close();
    const kept = await app.platform.db.query<{ action: string }>('SELECT action FROM admin.operation_logs WHERE trace_id = $1 ORDER BY id', [marker]);
    assert.deepEqual(kept.map((r) => r.action), ['a0', 'a1', 'a2', 'a3', 'a5', 'a6', 'a7', 'a8']);
    assert.deepEqual(writer.lost, { overflow: 0, unwritable: 1 });
    const [report] = await app.platform.db.query<{ level: string; message: string }>(
      `SELECT level, message FROM admin.system_logs WHERE trace_id = $1`, [marker]);
    assert.deepEqual(report, { level: 'error', message: 'an operation log row could not be written and was dropped' });
  });

  test('a hostile request and a concurrent ordinary one are both in the operation log', async () => {
    const [hostile, ordinary] = await Promise.all([
      call(app, 'POST', '/api/admin/dictionaries', { token: superToken, body: { name: 'bad\u0000', code: `nul_${Date.now()}` } }),
      call(app, 'POST', '/api/admin/dictionaries', { token: superToken, body: { name: 'Good one', code: `ok_${Date.now()}` } }),
    ]);
    assertError(hostile, 400, 30001);
    assert.match(hostile.body.message, /body\.name must not contain a NUL character/);
    assertOk(ordinary);
    const a = await operationFor(hostile);
    const b = await operationFor(ordinary);
    assert.equal(a.params.body.name, 'bad\\u0000');
    assert.equal(b.status_code, 200);
  });

  test('purgeLogs deletes rows older than the retention from all three logs and keeps the rest', async () => {
    const db = app.platform.db;
    const old = "now() - interval '100 days'";
    await db.query(`INSERT INTO admin.operation_logs (module, action, method, path, status_code, duration_ms, trace_id, created_at)
                    SELECT 'old', 'row', 'POST', '/x', 200, 1, 'purge-old', ${old} FROM generate_series(1, 7)`);
    await db.query(`INSERT INTO admin.system_logs (level, message, trace_id, created_at) VALUES ('error', 'old', 'purge-old', ${old})`);
    await db.query(`INSERT INTO admin.login_logs (username, status, reason, created_at) VALUES ('purge-old', 0, 'bad_password', ${old})`);
    await db.query(`INSERT INTO admin.operation_logs (module, action, method, path, status_code, duration_ms, trace_id, created_at)
                    VALUES ('new', 'row', 'POST', '/x', 200, 1, 'purge-new', now() - interval '10 days')`);
    const deleted = await purgeLogs(db.orm, 90);
    assert.deepEqual(deleted, { operation: 7, system: 1, login: 1 });
    const [left] = await db.query<{ old: number; fresh: number }>(
      `SELECT (SELECT count(*) FROM admin.operation_logs WHERE trace_id = 'purge-old')::int AS old,
              (SELECT count(*) FROM admin.operation_logs WHERE trace_id = 'purge-new')::int AS fresh`,
    );
    assert.equal(Number(left!.old), 0);
    assert.equal(Number(left!.fresh), 1);
    assert.deepEqual(await purgeLogs(db.orm, 90), { operation: 0, system: 0, login: 0 });
  });

  test('LOG_RETENTION_DAYS is validated', async () => {
    const { loadConfig } = await import('../../src/platform/config.ts');
    assert.equal(loadConfig({}).LOG_RETENTION_DAYS, 90);
    assert.equal(loadConfig({ LOG_RETENTION_DAYS: '0' }).LOG_RETENTION_DAYS, 0);
    assert.throws(() => loadConfig({ LOG_RETENTION_DAYS: '-1' }), /LOG_RETENTION_DAYS/);
  });
});

describe('units', () => {
  test('module and action', () => {
    assert.deepEqual(moduleAndAction('online.kick', '/api/admin/online-admins/:token_id', '/api/admin'), { module: 'online', action: 'kick' });
    assert.deepEqual(moduleAndAction('a.b.c', '/x', '/api/admin'), { module: 'a', action: 'b.c' });
    assert.deepEqual(moduleAndAction(undefined, '/api/admin/password', '/api/admin'), { module: 'auth', action: 'password' });
    assert.deepEqual(moduleAndAction(undefined, '/api/admin/google-authenticator/bind', '/api/admin'), { module: 'auth', action: 'google-authenticator.bind' });
  });

  test('redaction: any depth, any spelling, arrays, long values', () => {
    for (const k of ['password', 'oldPassword', 'password_confirmation', 'token', 'refresh_token', 'secret', 'app_secret', 'google_code', 'captcha_code', 'private_key', 'apiKey']) {
      assert.ok(isSecretFieldName(k), k);
    }
    // `code` names dictionaries and payment methods; routes taking an authenticator code censor it by route.
    for (const k of ['token_ids', 'username', 'status', 'ids', 'name', 'code', 'type_code']) assert.ok(!isSecretFieldName(k), k);
    const out = redact({
      username: 'u',
      config: { merchant_id: 'm1', app_secret: 'S', nested: [{ private_key: 'P', ok: 1 }] },
      list: Array.from({ length: 60 }, (_, i) => i),
      long: 'y'.repeat(1000),
      password: '',
    }) as any;
    assert.deepEqual(out.config, { merchant_id: 'm1', app_secret: '[redacted]', nested: [{ private_key: '[redacted]', ok: 1 }] });
    assert.equal(out.list.length, 51);
    assert.ok(out.long.length < 600);
    assert.equal(out.password, '');
    assert.equal(redact(Buffer.from('abc')), '[binary 3 bytes]');
  });
});

test('the bootstrap password never reaches a log table', async () => {
  await settle();
  const [row] = await app.platform.db.query<{ n: number }>(
    `SELECT ((SELECT count(*) FROM admin.operation_logs WHERE params::text LIKE $1) + (SELECT count(*) FROM admin.system_logs WHERE context::text LIKE $1))::int AS n`,
    [`%${ADMIN_PASSWORD}%`],
  );
  assert.equal(Number(row!.n), 0);
});

test('a 500 keeps the first lines of its stack in the system log', async () => {
  const res = await call(app, 'POST', '/api/admin/test/boom', { token: superToken, body: {} });
  assertError(res, 500, 50001);
  const row = await eventually(async () => {
    const r = await call(app, 'GET', `/api/admin/logs/system?level=error&trace_id=${res.body.trace_id}`, { token: superToken });
    return r.body.data.list[0];
  }, 'system row');
  assert.match(row.context.err.stack, /^Error: kaboom\n\s+at /);
  assert.ok(row.context.err.stack.split('\n').length > 3);
});

describe('log exports (CSV and XLSX, through the export queue)', () => {
  /** Queues an export, waits for it and downloads the file. */
  async function exported(path: string): Promise<Buffer> {
    const task = assertOk(await call(app, 'POST', path, { token: superToken, body: {} }));
    assert.equal(task.download_url, null);
    const done = await eventually(async () => {
      const t = assertOk(await call(app, 'GET', `/api/admin/exports/${task.id}`, { token: superToken }));
      return t.status === 'completed' || t.status === 'failed' ? t : undefined;
    }, 'the export');
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const file = await app.app.inject({ method: 'GET', url: done.download_url, headers: { authorization: `Bearer ${superToken}` } });
    assert.equal(file.statusCode, 200);
    return file.rawPayload;
  }

  test('the operation log with the list’s filters, as CSV; the login log as XLSX; a bad range is refused before queueing', async () => {
    const res = await call(app, 'POST', '/api/admin/test/boom', { token: superToken, body: {} });
    const traceId = res.body.trace_id as string;
    await eventually(async () => (await call(app, 'GET', `/api/admin/logs/operation?trace_id=${traceId}`, { token: superToken })).body.data.list[0], 'the row');
    const csv: string[][] = parse((await exported(`/api/admin/logs/operation/export?trace_id=${traceId}`)).toString('utf8'), { bom: true });
    assert.deepEqual(csv[0], ['id', 'created_at', 'admin_id', 'username', 'action', 'module', 'method', 'path', 'status_code', 'duration_ms', 'ip', 'trace_id', 'params', 'changes']);
    assert.equal(csv.length, 2);
    const listed = (await call(app, 'GET', `/api/admin/logs/operation?trace_id=${traceId}`, { token: superToken })).body.data.list[0];
    assert.deepEqual(csv[1]!.slice(0, 4), [String(listed.id), listed.created_at, String(superId), 'admin']);
    assert.equal(csv[1]![8], '500');
    assert.equal(csv[1]![11], traceId);

    const book = new ExcelJS.Workbook();
    await book.xlsx.load((await exported('/api/admin/logs/login/export?format=xlsx&status=1')) as unknown as ArrayBuffer);
    const sheet = book.worksheets[0]!;
    assert.deepEqual((sheet.getRow(1).values as unknown[]).slice(1), ['id', 'created_at', 'admin_id', 'username', 'status', 'reason', 'ip', 'user_agent', 'location', 'country', 'city']);
    const logins = (await call(app, 'GET', '/api/admin/logs/login?status=1&page_size=100', { token: superToken })).body.data;
    assert.equal(sheet.actualRowCount - 1, logins.total);
    assert.equal(sheet.getRow(2).getCell(1).value, logins.list[0].id);
    assert.equal(sheet.getRow(2).getCell(5).value, 1);

    assertError(await call(app, 'POST', '/api/admin/logs/login/export?start_date=2026-02-30', { token: superToken, body: {} }), 400, 30001);
    assertError(await call(app, 'POST', '/api/admin/logs/login/export?format=pdf', { token: superToken, body: {} }), 400, 30001);
  });
});
