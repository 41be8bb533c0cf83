// GET /dashboard/stats: counts that follow the data, today's logins and operations, the
// newest log rows, and its permission.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startOfDay } from '../../src/admin/features/dashboard/dashboard.service.ts';
import { formatDisplay } from '../../src/platform/time.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { call, login, seedAdmin, signedInAdmin } from '../helpers/http.ts';
import { assertError, assertOk } from '../helpers/assert.ts';

let app: TestApp;
let superToken: string;

before(async () => {
  app = await startApp();
  superToken = await login(app);
});
after(() => app?.close());

async function stats(token = superToken) {
  const res = await call(app, 'GET', '/api/admin/dashboard/stats', { token });
  return assertOk(res);
}

async function countOf(table: string): Promise<number> {
  const [row] = await app.platform.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM admin.${table}`);
  return Number(row!.n);
}

test('the contract fields, with counts equal to the tables', async () => {
  const data = await stats();
  assert.deepEqual(Object.keys(data).sort(), [
    'activity_today', 'admin_count', 'login_count_today', 'menu_count', 'operation_count_today', 'recent_logins', 'recent_operations', 'role_count',
  ]);
  assert.equal(data.admin_count, await countOf('admins'));
  assert.equal(data.role_count, await countOf('roles'));
  assert.equal(data.menu_count, await countOf('menus'));
  assert.ok(data.menu_count > 0);
  assert.ok(data.login_count_today >= 1, 'the super administrator signed in');
  assert.ok(Array.isArray(data.recent_logins) && data.recent_logins.length >= 1);
  assert.ok(Array.isArray(data.recent_operations));
});

test('a new administrator and a login change the counts; the login is the newest row', async () => {
  const before = await stats();
  const { token, ...admin } = await signedInAdmin(app);
  const failed = await call(app, 'POST', '/api/admin/login', { body: { username: admin.username, password: 'Wrong-pass-123' } });
  assertError(failed, 401, 10001);

  const after = await stats();
  assert.equal(after.admin_count, before.admin_count + 1);
  assert.equal(after.role_count, before.role_count + 1, 'seedAdmin adds a role');
  assert.equal(after.login_count_today, before.login_count_today + 1, 'successful logins only');
  const [newest, previous] = after.recent_logins;
  assert.equal(newest.username, admin.username);
  assert.equal(newest.status, 0);
  assert.equal(previous.username, admin.username);
  assert.equal(previous.status, 1);
  assert.match(newest.created_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  assert.ok(after.recent_logins.length <= 10);

  // An operation shows up in today's count and in recent_operations shortly after.
  const op = await call(app, 'POST', '/api/admin/logout', { token });
  assertOk(op);
  const until = Date.now() + 3000;
  let latest = await stats();
  // (The counts and the lists are separate statements: wait until both show the row.)
  while ((latest.operation_count_today === before.operation_count_today || latest.recent_operations[0]?.trace_id !== op.body.trace_id) && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 25));
    latest = await stats();
  }
  assert.equal(latest.operation_count_today, before.operation_count_today + 1);
  assert.equal(latest.recent_operations[0].trace_id, op.body.trace_id);
  assert.equal(latest.recent_operations[0].action, 'logout');
  assert.equal(latest.recent_operations[0].action_label, 'Sign out');
});

test('only the newest 10 rows are listed', async () => {
  const admin = await seedAdmin(app);
  for (let i = 0; i < 11; i++) await call(app, 'POST', '/api/admin/login', { body: { username: admin.username, password: 'Wrong-pass-123' } });
  const data = await stats();
  assert.equal(data.recent_logins.length, 10);
  const ids = data.recent_logins.map((r: { id: number }) => r.id);
  assert.deepEqual(ids, [...ids].sort((a, b) => b - a));
});

test("'dashboard.view' is enough to read the figures", async () => {
  const { token } = await signedInAdmin(app, { permissions: ['dashboard.view'] });
  assertOk(await call(app, 'GET', '/api/admin/dashboard/stats', { token }));
});

test('"today" starts at midnight of the display time zone', () => {
  const now = new Date('2026-03-10T20:30:00Z');
  assert.equal(startOfDay(now, 'UTC').toISOString(), '2026-03-10T00:00:00.000Z');
  // 04:30 on the 11th in Shanghai (UTC+8): the day began at 16:00 UTC on the 10th.
  assert.equal(startOfDay(now, 'Asia/Shanghai').toISOString(), '2026-03-10T16:00:00.000Z');
  assert.equal(formatDisplay(startOfDay(now, 'America/New_York'), 'America/New_York'), '2026-03-10 00:00:00');
});

describe('today’s activity per hour', () => {
  const HOURS = Array.from({ length: 24 }, (_, h) => `${String(h).padStart(2, '0')}:00`);
  const seriesOf = (data: any, key: string) => data.activity_today.series.find((s: any) => s.key === key);

  test('is aggregated over the whole day (not the newest rows): every hour, zero-filled, summing to the totals', async () => {
    const before = await stats();
    const start = startOfDay(new Date(), 'UTC').getTime();
    const span = Math.max(1, Date.now() - start - 1000);
    // 53 operations spread over today (far more than the 10 newest rows), 7 successful and 4
    // failed logins, and rows of yesterday, which do not count.
    const at = (i: number, n: number) => new Date(start + Math.floor((span * i) / n));
    const opTimes = Array.from({ length: 53 }, (_, i) => at(i, 53));
    const loginTimes = Array.from({ length: 7 }, (_, i) => at(i, 7));
    const db = app.platform.db;
    for (const t of opTimes) {
      await db.query(`INSERT INTO admin.operation_logs (module, action, method, path, status_code, duration_ms, created_at) VALUES ('order', 'create', 'POST', '/x', 200, 1, $1)`, [t.toISOString()]);
    }
    for (const [i, t] of loginTimes.entries()) {
      await db.query(`INSERT INTO admin.login_logs (username, status, reason, created_at) VALUES ('chart', 1, 'success', $1)`, [t.toISOString()]);
      if (i < 4) await db.query(`INSERT INTO admin.login_logs (username, status, reason, created_at) VALUES ('chart', 0, 'bad_password', $1)`, [t.toISOString()]);
    }
    const yesterday = new Date(start - 3600_000).toISOString();
    await db.query(`INSERT INTO admin.operation_logs (module, action, method, path, status_code, duration_ms, created_at) VALUES ('order', 'create', 'POST', '/x', 200, 1, $1)`, [yesterday]);
    await db.query(`INSERT INTO admin.login_logs (username, status, reason, created_at) VALUES ('chart', 1, 'success', $1)`, [yesterday]);

    const after = await stats();
    const activity = after.activity_today;
    assert.deepEqual(activity.hours, HOURS);
    assert.equal(activity.time_zone, 'UTC');
    assert.equal(activity.date, formatDisplay(new Date(), 'UTC')!.slice(0, 10));
    assert.deepEqual(activity.series.map((s: any) => [s.key, s.name]), [['operations', 'Operations'], ['logins', 'Successful sign-ins']]);
    const ops = seriesOf(after, 'operations');
    const logins = seriesOf(after, 'logins');
    for (const s of [ops, logins]) {
      assert.equal(s.data.length, 24);
      assert.ok(s.data.every((n: unknown) => Number.isInteger(n) && (n as number) >= 0));
      assert.equal(s.total, s.data.reduce((a: number, b: number) => a + b, 0));
    }
    // Consistent with the totals beside the chart.
    assert.equal(ops.total, after.operation_count_today);
    assert.equal(logins.total, after.login_count_today);
    assert.equal(after.operation_count_today - before.operation_count_today, 53);
    assert.equal(after.login_count_today - before.login_count_today, 7);
    // Each hour gained exactly the rows written in it.
    const perHour = (times: Date[]) => HOURS.map((_, h) => times.filter((t) => t.getUTCHours() === h).length);
    const gained = (key: string) => seriesOf(after, key).data.map((n: number, h: number) => n - seriesOf(before, key).data[h]);
    assert.deepEqual(gained('operations'), perHour(opTimes));
    assert.deepEqual(gained('logins'), perHour(loginTimes));
  });

  test('the legend and the recent operations are in the reader’s language', async () => {
    await app.platform.db.query(`INSERT INTO admin.operation_logs (module, action, method, path, status_code, duration_ms) VALUES ('order', 'create', 'POST', '/x', 200, 1)`);
    const res = await call(app, 'GET', '/api/admin/dashboard/stats', { token: superToken, headers: { 'accept-language': 'zh-CN' } });
    assert.equal(res.status, 200);
    const data = res.body.data;
    assert.deepEqual(data.activity_today.series.map((s: any) => s.name), ['操作', '成功登录']);
    const created = data.recent_operations.find((r: any) => r.module === 'order' && r.action === 'create');
    assert.equal(created?.action_label, '新增订单');
  });

  test('hours are those of the display time zone', async () => {
    const shanghai = await startApp({ DISPLAY_TIMEZONE: 'Asia/Shanghai' });
    try {
      const token = await login(shanghai);
      const start = startOfDay(new Date(), 'Asia/Shanghai');
      // One operation at 00:30 local time today (16:30 UTC the day before).
      await shanghai.platform.db.query(
        `INSERT INTO admin.operation_logs (module, action, method, path, status_code, duration_ms, created_at) VALUES ('order', 'create', 'POST', '/x', 200, 1, $1)`,
        [new Date(Math.min(start.getTime() + 1800_000, Date.now() - 1000)).toISOString()],
      );
      const data = assertOk(await call(shanghai, 'GET', '/api/admin/dashboard/stats', { token }));
      assert.equal(data.activity_today.time_zone, 'Asia/Shanghai');
      const ops = data.activity_today.series.find((s: any) => s.key === 'operations');
      assert.equal(ops.total, data.operation_count_today);
      const expectedHour = Number(formatDisplay(new Date(Math.min(start.getTime() + 1800_000, Date.now() - 1000)), 'Asia/Shanghai')!.slice(11, 13));
      assert.ok(ops.data[expectedHour] >= 1, JSON.stringify(ops.data));
    } finally {
      await shanghai.close();
    }
  });
});
