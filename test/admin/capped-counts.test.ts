// The lists over tables that grow without bound (orders, payments, the three logs) count at most
// LIST_COUNT_LIMIT matching rows, so that a page costs the same at a million rows as at ten
// thousand: beyond the limit `total` is the limit and `total_capped` is true, every page can
// still be read, and a filter that matches fewer rows gets its exact count.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.ts';
import { assertOk } from '../helpers/assert.ts';
import { call, login } from '../helpers/http.ts';

const LIMIT = 10;
let app: TestApp;
let token: string;

before(async () => {
  app = await startApp({ LIST_COUNT_LIMIT: String(LIMIT) });
  token = await login(app);
  // 13 orders (3 of them paid) and 13 failed sign-ins of one made-up name, created just now.
  await app.platform.db.query(
    `INSERT INTO admin.orders (order_no, request_id, user_id, amount, status)
     SELECT 'CAP' || n, 'cap-' || n, 7, 10, CASE WHEN n <= 3 THEN 'paid' ELSE 'pending' END FROM generate_series(1, 13) n`,
  );
  await app.platform.db.query(
    `INSERT INTO admin.login_logs (username, ip, status, reason) SELECT 'capped', '192.0.2.' || n, 0, 'wrong_password' FROM generate_series(1, 13) n`,
  );
});
after(() => app?.close());

const list = async (url: string) => assertOk(await call(app, 'GET', url, { token })) as { list: unknown[]; total: number; total_capped: boolean };

test('more matching rows than LIST_COUNT_LIMIT: total is the limit, total_capped true, and the pages beyond it are read', async () => {
  const first = await list('/api/admin/orders?user_id=7&page_size=10');
  assert.equal(first.total, LIMIT);
  assert.equal(first.total_capped, true);
  assert.equal(first.list.length, 10);
  const second = await list('/api/admin/orders?user_id=7&page_size=10&page=2');
  assert.equal(second.list.length, 3, 'the rows past the limit are still listed');
  assert.equal(second.total_capped, true);

  const logins = await list('/api/admin/logs/login?ip=192.0.2.&page_size=5');
  assert.deepEqual([logins.total, logins.total_capped, logins.list.length], [LIMIT, true, 5]);
});

test('at most LIST_COUNT_LIMIT matching rows: the exact count, total_capped false', async () => {
  const paid = await list('/api/admin/orders?user_id=7&status=paid');
  assert.deepEqual([paid.total, paid.total_capped, paid.list.length], [3, false, 3]);
  const none = await list('/api/admin/payments?user_id=7');
  assert.deepEqual([none.total, none.total_capped], [0, false]);
  const oneLogin = await list('/api/admin/logs/login?ip=192.0.2.13');
  assert.deepEqual([oneLogin.total, oneLogin.total_capped], [1, false]);
});
