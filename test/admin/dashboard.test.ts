// GET /dashboard/stats: counts that follow the data, today's logins and operations, the
// newest log rows, and its permission.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
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
    'admin_count', 'login_count_today', 'menu_count', 'operation_count_today', 'recent_logins', 'recent_operations', 'role_count',
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
