// GET /dashboard/stats: counts that follow the data, today's logins and operations, the
// newest log rows, and its permission. GET /dashboard/business: the figures on exact seeded
// orders, the display time zone's day boundary, the data scope, and totals that agree.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Config } from '../../src/platform/config.ts';
import { addDays, DashboardService, startOfDay } from '../../src/admin/features/dashboard/dashboard.service.ts';
import { centsToNumber, decimalToCents } from '../../src/platform/money.ts';
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


describe('the business figures', () => {
  const db = () => app.platform.db;
  let seq = 0;
  let methods: { card: number; cash: number };

  /** One order (and its payment when `method` is given), written as the services write them. */
  async function order(o: {
    at: Date; amount: string; status: 'paid' | 'pending' | 'cancelled'; department: number | null; createdBy: number | null;
    items: [productId: number, name: string, price: string, quantity: number][]; method?: number;
  }) {
    seq += 1;
    const orderNo = `DASH${String(seq).padStart(8, '0')}`;
    const [row] = await db().query<{ id: number }>(
      `INSERT INTO admin.orders (order_no, request_id, user_id, amount, status, created_by, department_id, paid_at, created_at, updated_at)
       VALUES ($1, $2, 1, $3::numeric, $4, $5, $6, $7, $8, $8) RETURNING id`,
      [orderNo, `dash-${seq}`, o.amount, o.status, o.createdBy, o.department, o.status === 'paid' ? o.at.toISOString() : null, o.at.toISOString()],
    );
    for (const [productId, name, price, quantity] of o.items) {
      await db().query(`INSERT INTO admin.order_details (order_id, product_id, product_name, price, quantity) VALUES ($1, $2, $3, $4::numeric, $5)`, [row!.id, productId, name, price, quantity]);
    }
    if (o.method) {
      await db().query(
        `INSERT INTO admin.payments (payment_no, order_id, order_no, user_id, payment_method_id, amount, status, created_by, department_id, paid_at, created_at, updated_at)
         VALUES ($1, $2, $3, 1, $4, $5::numeric, 'paid', $6, $7, $8, $8, $8)`,
        [`P${orderNo}`, row!.id, orderNo, o.method, o.amount, o.createdBy, o.department, o.at.toISOString()],
      );
    }
  }

  const business = async (token: string, query = '') => assertOk(await call(app, 'GET', `/api/admin/dashboard/business${query}`, { token }));
  let scoped: { token: string; id: number };
  let today: string;

  before(async () => {
    const dept = async (name: string) => assertOk(await call(app, 'POST', '/api/admin/departments', { token: superToken, body: { name, parent_id: 1 } })).id as number;
    const [a, b] = [await dept('Dashboard A'), await dept('Dashboard B')];
    const method = async (name: string, code: string) =>
      Number((await db().query<{ id: number }>(`INSERT INTO admin.payment_methods (name, code, type) VALUES ($1, $2, 'offline') RETURNING id`, [name, code]))[0]!.id);
    methods = { card: await method('Dash card', 'dash_card'), cash: await method('Dash cash', 'dash_cash') };
    // A caller whose role reaches department A only (and their own orders).
    const seeded = await seedAdmin(app, { permissions: ['dashboard.view'] });
    assertOk(await call(app, 'PUT', `/api/admin/admins/${seeded.id}`, { token: superToken, body: { department_id: b } }));
    assertOk(await call(app, 'PUT', `/api/admin/roles/${seeded.roleId}`, { token: superToken, body: { data_scope: 'custom', department_ids: [a] } }));
    scoped = { token: await login(app, seeded.username, seeded.password), id: seeded.id };
    const other = await seedAdmin(app);

    const now = Date.now();
    today = formatDisplay(new Date(now), 'UTC')!.slice(0, 10);
    const todayAt = new Date(Math.max(startOfDay(new Date(now), 'UTC').getTime(), now - 60_000));
    const noon = (daysBack: number) => new Date(`${addDays(today, -daysBack)}T12:00:00Z`);
    const { card, cash } = methods;
    await order({ at: todayAt, amount: '100.00', status: 'paid', department: a, createdBy: other.id, items: [[1, 'Tea', '10.00', 3], [2, 'Cake', '35.00', 2]], method: card });
    await order({ at: todayAt, amount: '20.50', status: 'pending', department: b, createdBy: other.id, items: [[1, 'Tea', '10.25', 2]] });
    await order({ at: todayAt, amount: '5.00', status: 'cancelled', department: a, createdBy: other.id, items: [[3, 'Pen', '5.00', 1]] });
    await order({ at: noon(1), amount: '33.33', status: 'paid', department: b, createdBy: other.id, items: [[2, 'Cake', '33.33', 1]], method: cash });
    await order({ at: noon(5), amount: '0.10', status: 'paid', department: a, createdBy: other.id, items: [[3, 'Pen', '0.05', 2]], method: card });
    // The first instant of the period (29 days back at midnight) is in it; the last one before is not.
    await order({ at: new Date(`${addDays(today, -29)}T00:00:00Z`), amount: '10.00', status: 'paid', department: a, createdBy: other.id, items: [[1, 'Tea', '10.00', 1]], method: cash });
    await order({ at: new Date(new Date(`${addDays(today, -29)}T00:00:00Z`).getTime() - 1), amount: '999.99', status: 'paid', department: a, createdBy: other.id, items: [[1, 'Tea', '999.99', 1]], method: card });
    // The scoped caller's own order, in a department they do not reach: theirs all the same.
    await order({ at: noon(1), amount: '7.77', status: 'paid', department: b, createdBy: scoped.id, items: [[4, 'Mug', '7.77', 1]], method: cash });
  });

  test('the figures of the period, of today, by method and by product, on exact data', async () => {
    const data = await business(superToken, '?days=30');
    assert.equal(data.time_zone, 'UTC');
    assert.deepEqual(data.today, { date: today, orders: 3, revenue: 100, paid: 1, pending: 1, cancelled: 1, average_order_value: 100 });
    assert.deepEqual(data.period, {
      days: 30, from: addDays(today, -29), to: today, orders: 7, revenue: 151.2, paid: 5, pending: 1, cancelled: 1, average_order_value: 30.24,
    });
    assert.deepEqual(data.payments_by_method, [
      { method_id: methods.card, name: 'Dash card', count: 2, amount: 100.1 },
      { method_id: methods.cash, name: 'Dash cash', count: 3, amount: 51.1 },
    ]);
    assert.deepEqual(data.top_products, [
      { product_id: 1, product_name: 'Tea', quantity: 4, revenue: 40 },
      { product_id: 2, product_name: 'Cake', quantity: 3, revenue: 103.33 },
      { product_id: 3, product_name: 'Pen', quantity: 2, revenue: 0.1 },
      { product_id: 4, product_name: 'Mug', quantity: 1, revenue: 7.77 },
    ]);
    const day = (back: number) => data.by_day.find((d: any) => d.date === addDays(today, -back));
    assert.deepEqual(day(0), { date: today, orders: 3, paid: 1, revenue: 100 });
    assert.deepEqual(day(1), { date: addDays(today, -1), orders: 2, paid: 2, revenue: 41.1 });
    assert.deepEqual(day(29), { date: addDays(today, -29), orders: 1, paid: 1, revenue: 10 });
    assert.deepEqual(day(2), { date: addDays(today, -2), orders: 0, paid: 0, revenue: 0 });
  });

  test('the totals agree: every day of the period once, summing to the period; today is its last day', async () => {
    for (const days of [1, 7, 30, 90]) {
      const data = await business(superToken, `?days=${days}`);
      assert.equal(data.by_day.length, days);
      assert.deepEqual(data.by_day.map((d: any) => d.date), Array.from({ length: days }, (_, i) => addDays(today, i + 1 - days)));
      const sum = (key: string) => data.by_day.reduce((n: number, d: any) => n + d[key], 0);
      assert.equal(sum('orders'), data.period.orders);
      assert.equal(sum('paid'), data.period.paid);
      assert.equal(data.period.paid + data.period.pending + data.period.cancelled, data.period.orders);
      // Money added in cents, as the server does.
      assert.equal(centsToNumber(data.by_day.reduce((c: bigint, d: any) => c + decimalToCents(d.revenue.toFixed(2)), 0n)), data.period.revenue);
      const { date, orders, paid, revenue } = data.today;
      assert.deepEqual(data.by_day.at(-1), { date, orders, paid, revenue });
    }
    // The default period is 30 days; with 90 the order before the 30 days counts.
    assert.equal((await business(superToken)).period.days, 30);
    assert.equal((await business(superToken, '?days=90')).period.orders, 8);
  });

  test('a scoped caller sees the figures of their scope and their own orders only', async () => {
    const data = await business(scoped.token);
    assert.deepEqual(data.today, { date: today, orders: 2, revenue: 100, paid: 1, pending: 0, cancelled: 1, average_order_value: 100 });
    assert.deepEqual({ ...data.period, from: undefined, to: undefined }, {
      days: 30, from: undefined, to: undefined, orders: 5, revenue: 117.87, paid: 4, pending: 0, cancelled: 1, average_order_value: 29.47,
    });
    assert.deepEqual(data.payments_by_method, [
      { method_id: methods.card, name: 'Dash card', count: 2, amount: 100.1 },
      { method_id: methods.cash, name: 'Dash cash', count: 2, amount: 17.77 },
    ]);
    assert.deepEqual(data.top_products.map((p: any) => [p.product_id, p.quantity, p.revenue]), [[1, 4, 40], [2, 2, 70], [3, 2, 0.1], [4, 1, 7.77]]);
  });

  test('the period is checked, in the envelope and the reader’s language; dashboard.view is needed', async () => {
    for (const days of ['0', '91', 'x']) {
      const en = await call(app, 'GET', `/api/admin/dashboard/business?days=${days}`, { token: superToken });
      assertError(en, 400, 30001);
      const zh = await call(app, 'GET', `/api/admin/dashboard/business?days=${days}`, { token: superToken, headers: { 'accept-language': 'zh-CN' } });
      assertError(zh, 400, 30001);
      assert.notEqual(zh.body.message, en.body.message);
    }
    const { token } = await signedInAdmin(app, { permissions: ['order.list'] });
    assertError(await call(app, 'GET', '/api/admin/dashboard/business', { token }), 403, 20001);
  });

  test('days are those of the display time zone: the day boundary is its midnight', async () => {
    // In 2020, far from the period of the other tests. Shanghai is UTC+8: 2020-03-10 00:00 there is 16:00 UTC the day before.
    await order({ at: new Date('2020-03-09T15:59:59.999Z'), amount: '1.00', status: 'paid', department: null, createdBy: null, items: [[9, 'Boundary', '1.00', 1]] });
    await order({ at: new Date('2020-03-09T16:00:00Z'), amount: '2.00', status: 'paid', department: null, createdBy: null, items: [[9, 'Boundary', '2.00', 1]] });
    await order({ at: new Date('2020-03-10T15:59:59Z'), amount: '4.00', status: 'pending', department: null, createdBy: null, items: [[9, 'Boundary', '4.00', 1]] });
    const service = new DashboardService({ db: db(), config: { DISPLAY_TIMEZONE: 'Asia/Shanghai' } as Config, logs: undefined as never });
    const all = { all: true, departments: [], adminId: 1, departmentId: null };
    // 04:30 on 2020-03-11 in Shanghai: the period of 2 days is the 10th and the 11th.
    const data = await service.businessFigures(all, 2, new Date('2020-03-10T20:30:00Z'));
    assert.equal(data.time_zone, 'Asia/Shanghai');
    assert.deepEqual(data.by_day, [
      { date: '2020-03-10', orders: 2, paid: 1, revenue: 2 },
      { date: '2020-03-11', orders: 0, paid: 0, revenue: 0 },
    ]);
    assert.equal(data.today.date, '2020-03-11');
    assert.deepEqual([data.period.from, data.period.to, data.period.orders, data.period.revenue], ['2020-03-10', '2020-03-11', 2, 2]);
    // In UTC the same instants fall on the 9th and the 10th.
    const utc = new DashboardService({ db: db(), config: { DISPLAY_TIMEZONE: 'UTC' } as Config, logs: undefined as never });
    const inUtc = await utc.businessFigures(all, 2, new Date('2020-03-10T20:30:00Z'));
    assert.deepEqual(inUtc.by_day.map((d) => [d.date, d.orders]), [['2020-03-09', 2], ['2020-03-10', 1]]);
  });

  test('money helpers: decimal text to cents and back, never through a float sum', () => {
    assert.equal(decimalToCents('151.20'), 15120n);
    assert.equal(decimalToCents('0.1'), 10n);
    assert.equal(decimalToCents(null), 0n);
    assert.equal(centsToNumber(decimalToCents('0.10') + decimalToCents('0.20')), 0.3);
    assert.equal(centsToNumber(123456789012n), 1234567890.12);
  });
});
