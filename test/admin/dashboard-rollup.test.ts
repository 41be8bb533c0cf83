// The business dashboard's rollup (migration 0019): after each kind of write (orders created,
// paid and cancelled through the API, re-priced and moved in SQL, details changed, deletes by
// the API and by the foreign key's cascade, an import, a seed batch, payments, concurrent
// writers of one day and department, TRUNCATE) its sums equal a fresh aggregation of the
// orders, details and payments, and GET /dashboard/business gives what plain SQL over those
// tables gives, for the super administrator and for a scoped caller with orders of their own
// outside their scope's departments. A start in another DISPLAY_TIMEZONE rebuilds it, once.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Logger } from 'pino';
import { DashboardService } from '../../src/admin/features/dashboard/dashboard.service.ts';
import { seedOrders } from '../../src/admin/features/orders/orders.seed.ts';
import type { Config } from '../../src/platform/config.ts';
import { onPostgres, startApp, type TestApp } from '../helpers/app.ts';
import { assertOk } from '../helpers/assert.ts';
import { call, login, seedAdmin } from '../helpers/http.ts';

// +05:30: its days are not UTC's, and its midnight is not on a whole UTC hour.
const ZONE = 'Asia/Kolkata';

let app: TestApp;
let superToken: string;
const db = () => app.platform.db;
const q = <T = Record<string, unknown>>(text: string, params: unknown[] = []) => db().query<T>(text, params);

interface Clerk { id: number; token: string }
let clerkA: Clerk;
let clerkB: Clerk;
/** In department B, whose role reaches department A only: their own orders (in B) are theirs all the same. */
let scoped: Clerk;
let departmentA: number;
let card: number;
let cash: number;

before(async () => {
  app = await startApp({ DISPLAY_TIMEZONE: ZONE, ORDER_IMPORT_BATCH_ROWS: '3' });
  superToken = await login(app);
  const department = async (name: string) => Number((await q<{ id: number }>(`INSERT INTO admin.departments (parent_id, name) VALUES (1, $1) RETURNING id`, [name]))[0]!.id);
  departmentA = await department('Rollup A');
  const departmentB = await department('Rollup B');
  const method = async (name: string) => Number((await q<{ id: number }>(`INSERT INTO admin.payment_methods (name, code, type) VALUES ($1, $1, 'offline') RETURNING id`, [name]))[0]!.id);
  [card, cash] = [await method('rollup_card'), await method('rollup_cash')];
  const clerk = async (departmentId: number, permissions: string[], reaches?: number): Promise<Clerk> => {
    const seeded = await seedAdmin(app, { permissions });
    await q('UPDATE admin.admins SET department_id = $1 WHERE id = $2', [departmentId, seeded.id]);
    if (reaches !== undefined) {
      await q(`UPDATE admin.roles SET data_scope = 'custom' WHERE id = $1`, [seeded.roleId]);
      await q('INSERT INTO admin.role_departments (role_id, department_id) VALUES ($1, $2)', [seeded.roleId, reaches]);
    }
    return { id: seeded.id, token: await login(app, seeded.username, seeded.password) };
  };
  const writes = ['order.create', 'order.update', 'order.delete', 'order.import'];
  clerkA = await clerk(departmentA, writes);
  clerkB = await clerk(departmentB, writes);
  scoped = await clerk(departmentB, [...writes, 'dashboard.view'], departmentA);
});
after(() => app?.close());

/** The rollup's sums (those fallen to zero left out) and the same sums afresh from the orders, details and payments, in the rollup's zone. */
async function rollupAndFresh() {
  const [zone] = await q<{ tz: string }>('SELECT time_zone AS tz FROM admin.business_rollup_zone');
  const tz = zone!.tz;
  const dayOf = (column: string) => `to_char((${column} AT TIME ZONE $1)::date, 'YYYY-MM-DD')`;
  const [keptOrders, keptPayments, keptProducts, freshOrders, freshPayments, freshProducts] = await Promise.all([
    // Each connection's share (slot) added up.
    q(`SELECT to_char(day, 'YYYY-MM-DD') AS day, department_id::int AS department, status, sum(orders)::int AS n, sum(amount)::numeric(20, 2)::text AS amount
       FROM admin.business_orders_daily GROUP BY 1, 2, 3 HAVING sum(orders) <> 0 OR sum(amount) <> 0 ORDER BY 1, 2, 3`),
    q(`SELECT to_char(day, 'YYYY-MM-DD') AS day, department_id::int AS department, payment_method_id::int AS method, payments AS n, amount::numeric(20, 2)::text AS amount
       FROM admin.business_payments_daily WHERE payments <> 0 OR amount <> 0 ORDER BY 1, 2, 3`),
    q(`SELECT to_char(day, 'YYYY-MM-DD') AS day, department_id::int AS department, product_id::int AS product, product_name AS name, quantity, revenue::numeric(20, 2)::text AS revenue
       FROM admin.business_products_daily WHERE quantity <> 0 OR revenue <> 0 ORDER BY 1, 2, 3, 4`),
    q(`SELECT ${dayOf('created_at')} AS day, coalesce(department_id, 0)::int AS department, status, count(*)::int AS n, sum(amount)::numeric(20, 2)::text AS amount
       FROM admin.orders GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`, [tz]),
    q(`SELECT ${dayOf('created_at')} AS day, coalesce(department_id, 0)::int AS department, payment_method_id::int AS method, count(*)::int AS n, sum(amount)::numeric(20, 2)::text AS amount
       FROM admin.payments WHERE status = 'paid' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`, [tz]),
    // By department, and (department -1) over every department.
    q(`SELECT ${dayOf('o.created_at')} AS day, coalesce(o.department_id, 0)::int AS department, d.product_id::int AS product, d.product_name AS name,
              sum(d.quantity)::int AS quantity, sum(d.price * d.quantity)::numeric(20, 2)::text AS revenue
       FROM admin.order_details d JOIN admin.orders o ON o.id = d.order_id WHERE o.status = 'paid' GROUP BY 1, 2, 3, 4
       UNION ALL
       SELECT ${dayOf('o.created_at')}, -1, d.product_id::int, d.product_name, sum(d.quantity)::int, sum(d.price * d.quantity)::numeric(20, 2)::text
       FROM admin.order_details d JOIN admin.orders o ON o.id = d.order_id WHERE o.status = 'paid' GROUP BY 1, 3, 4
       ORDER BY 1, 2, 3, 4`, [tz]),
  ]);
  return { tz, kept: { orders: keptOrders, payments: keptPayments, products: keptProducts }, fresh: { orders: freshOrders, payments: freshPayments, products: freshProducts } };
}

/**
 * The figures of GET /dashboard/business?days=90 for `token`, and the same computed by plain SQL
 * over the orders, details and payments in the caller's scope (`departments`, or every row; and
 * the rows of `owner`).
 */
async function routeAndFresh(token: string, scope: { departments: readonly number[] | 'all'; owner: number }) {
  const data = assertOk(await call(app, 'GET', '/api/admin/dashboard/business?days=90', { token }));
  const departments = scope.departments === 'all' ? null : scope.departments;
  const params = [ZONE, data.period.from, data.period.to, departments === null, `{${departments?.join(',') ?? ''}}`, scope.owner];
  const within = (t: string) => `(${t}.created_at AT TIME ZONE $1)::date BETWEEN $2::date AND $3::date
    AND ($4::boolean OR ${t}.department_id = any($5::bigint[]) OR ${t}.created_by = $6)`;
  const money = (rows: Record<string, unknown>[], key: string) => rows.map((r) => ({ ...r, [key]: Number(r[key]) }));
  const [days, methods, products] = await Promise.all([
    q(`SELECT to_char(o.created_at AT TIME ZONE $1, 'YYYY-MM-DD') AS date, count(*)::int AS orders, (count(*) FILTER (WHERE o.status = 'paid'))::int AS paid,
              coalesce(sum(o.amount) FILTER (WHERE o.status = 'paid'), 0)::text AS revenue,
              (count(*) FILTER (WHERE o.status = 'pending'))::int AS pending, (count(*) FILTER (WHERE o.status = 'cancelled'))::int AS cancelled
       FROM admin.orders o WHERE ${within('o')} GROUP BY 1 ORDER BY 1`, params),
    q(`SELECT m.id::int AS method_id, m.name, count(*)::int AS count, sum(p.amount)::text AS amount
       FROM admin.payments p JOIN admin.payment_methods m ON m.id = p.payment_method_id
       WHERE p.status = 'paid' AND ${within('p')} GROUP BY m.id, m.name ORDER BY sum(p.amount) DESC, m.id`, params),
    q(`SELECT d.product_id::int AS product_id, max(d.product_name) AS product_name, sum(d.quantity)::int AS quantity, sum(d.price * d.quantity)::text AS revenue
       FROM admin.order_details d JOIN admin.orders o ON o.id = d.order_id
       WHERE o.status = 'paid' AND ${within('o')} GROUP BY d.product_id ORDER BY sum(d.quantity) DESC, d.product_id LIMIT 10`, params),
  ]);
  const freshDays = money(days, 'revenue') as { date: string; orders: number; paid: number; revenue: number; pending: number; cancelled: number }[];
  const total = (key: 'orders' | 'paid' | 'pending' | 'cancelled') => freshDays.reduce((n, d) => n + d[key], 0);
  return {
    route: {
      by_day: data.by_day.filter((d: { orders: number }) => d.orders > 0),
      period: [data.period.orders, data.period.paid, data.period.pending, data.period.cancelled],
      payments_by_method: data.payments_by_method,
      top_products: data.top_products,
    },
    fresh: {
      by_day: freshDays.map(({ date, orders, paid, revenue }) => ({ date, orders, paid, revenue })),
      period: [total('orders'), total('paid'), total('pending'), total('cancelled')],
      payments_by_method: money(methods, 'amount'),
      top_products: money(products, 'revenue'),
    },
  };
}

/** The rollup equals its fresh aggregation, and the route's figures equal plain SQL's, for both callers. */
async function assertAgrees(what: string) {
  const { kept, fresh } = await rollupAndFresh();
  assert.deepEqual(kept, fresh, `${what}: the rollup`);
  for (const [caller, token, scope] of [
    ['the super administrator', superToken, { departments: 'all' as const, owner: 1 }],
    ['the scoped caller', scoped.token, { departments: [departmentA], owner: scoped.id }],
  ] as const) {
    const { route, fresh: expected } = await routeAndFresh(token, scope);
    assert.deepEqual(route, expected, `${what}: the figures of ${caller}`);
  }
}

const item = (productId: number, name: string, price: string, quantity: number) => ({ product_id: productId, product_name: name, price: Number(price), quantity });
let userSeq = 0;
async function create(clerk: Clerk, ...items: ReturnType<typeof item>[]): Promise<number> {
  const cents = items.reduce((n, i) => n + Math.round(i.price * 100) * i.quantity, 0);
  const data = assertOk(await call(app, 'POST', '/api/admin/orders', { token: clerk.token, body: { user_id: (userSeq += 1), amount: cents / 100, products: items } }));
  return Number(data.order.id);
}
const setStatus = async (clerk: Clerk, id: number, status: 'paid' | 'cancelled', method?: number) =>
  assertOk(await call(app, 'PUT', `/api/admin/orders/${id}`, { token: clerk.token, body: { status, ...(method ? { payment_method_id: method } : {}) } }));

const orderIds: Record<string, number> = {};

test('a start in another zone than the kept one rebuilt the rollup in its zone', async () => {
  const [zone] = await q<{ tz: string }>('SELECT time_zone AS tz FROM admin.business_rollup_zone');
  assert.equal(zone!.tz, ZONE, 'the migration keeps it in UTC; this app starts in Asia/Kolkata');
});

test('orders created through the API', async () => {
  orderIds.a1 = await create(clerkA, item(1, 'Tea', '10.00', 3), item(2, 'Cake', '35.00', 2));
  orderIds.a2 = await create(clerkA, item(1, 'Tea', '10.25', 2));
  orderIds.a3 = await create(clerkA, item(3, 'Pen', '0.05', 7));
  orderIds.b1 = await create(clerkB, item(2, 'Cake', '33.33', 1));
  orderIds.b2 = await create(clerkB, item(4, 'Mug', '7.77', 1));
  orderIds.own1 = await create(scoped, item(4, 'Mug', '7.77', 2));
  orderIds.own2 = await create(scoped, item(5, 'Spoon', '1.10', 1));
  orderIds.super = await create({ id: 1, token: superToken }, item(6, 'Plate', '12.00', 1));
  await assertAgrees('after creates');
});

test('pending → paid (with its payment) and pending → cancelled through the API', async () => {
  await setStatus(clerkA, orderIds.a1!, 'paid', card);
  await setStatus(clerkA, orderIds.a2!, 'paid', cash);
  await setStatus(clerkA, orderIds.a3!, 'cancelled');
  await setStatus(clerkB, orderIds.b1!, 'paid', card);
  await setStatus(scoped, orderIds.own1!, 'paid', cash);
  await setStatus({ id: 1, token: superToken }, orderIds.super!, 'paid', card);
  await assertAgrees('after status moves');
});

test('a paid order cancelled, re-priced, moved to other days and departments (in SQL: the API allows none of it)', async () => {
  await q(`UPDATE admin.orders SET status = 'cancelled' WHERE id = $1`, [orderIds.a2]);
  await assertAgrees('paid → cancelled');
  await q('UPDATE admin.orders SET amount = amount + 1.11 WHERE id = ANY($1::bigint[])', [`{${orderIds.a1},${orderIds.b2}}`]);
  await assertAgrees('amounts changed');
  // Days back, and around the zone's midnight (18:30 UTC): its last microsecond before and its first.
  const midnight = `(date_trunc('day', now() AT TIME ZONE '${ZONE}') - interval '3 days') AT TIME ZONE '${ZONE}'`;
  await q(`UPDATE admin.orders SET created_at = ${midnight} - interval '1 microsecond' WHERE id = $1`, [orderIds.a1]);
  await q(`UPDATE admin.orders SET created_at = ${midnight} WHERE id = $1`, [orderIds.b1]);
  await q(`UPDATE admin.orders SET created_at = now() - interval '40 days', department_id = $2 WHERE id = $1`, [orderIds.own1, departmentA]);
  await q(`UPDATE admin.payments SET created_at = created_at - interval '12 days' WHERE order_id = $1`, [orderIds.a2]);
  await q(`UPDATE admin.payments SET department_id = NULL WHERE order_id = $1`, [orderIds.b1]);
  // Every order at once, and back: one statement, one aggregated change.
  await q(`UPDATE admin.orders SET created_at = created_at - interval '1 day', department_id = NULL WHERE department_id = $1`, [departmentA]);
  await assertAgrees('moved');
  await q(`UPDATE admin.orders SET created_at = created_at + interval '1 day', department_id = $1 WHERE department_id IS NULL AND created_by = ANY($2::bigint[])`,
    [departmentA, `{${clerkA.id},${scoped.id}}`]);
  await assertAgrees('moved back');
});

test('details changed in SQL: quantity, price, product and name', async () => {
  await q(`UPDATE admin.order_details SET quantity = quantity + 1 WHERE order_id = $1 AND product_id = 1`, [orderIds.a1]);
  await q(`UPDATE admin.order_details SET price = 2.22, product_name = 'Cake (large)' WHERE order_id = $1`, [orderIds.b1]);
  await q(`UPDATE admin.order_details SET product_id = 9 WHERE order_id = $1`, [orderIds.super]);
  await q(`INSERT INTO admin.order_details (order_id, product_id, product_name, price, quantity) VALUES ($1, 2, 'Cake', 1.00, 1)`, [orderIds.own1]);
  await assertAgrees('details changed');
});

test('deletes: through the API (details first), and by the foreign key’s cascade in SQL', async () => {
  assertOk(await call(app, 'DELETE', `/api/admin/orders/${orderIds.a1}`, { token: clerkA.token }));
  await assertAgrees('deleted through the API');
  await q('DELETE FROM admin.orders WHERE id = ANY($1::bigint[])', [`{${orderIds.b1},${orderIds.own2}}`]);
  await assertAgrees('deleted with their details by the cascade');
  await q('DELETE FROM admin.payments WHERE order_id IS NULL');
  await assertAgrees('payments of deleted orders deleted');
});

test('an import: COPY, and the careful path of a file with a row already there', async () => {
  const header = 'order_no,request_id,user_id,amount,status,paid_at,created_at,products';
  const products = (...items: [number, string, string, number][]) =>
    `"${JSON.stringify(items.map(([product_id, product_name, price, quantity]) => ({ product_id, product_name, price, quantity }))).replaceAll('"', '""')}"`;
  const day = (back: number) => new Date(Date.now() - back * 86_400_000).toISOString().slice(0, 10);
  const rows = (tag: string) => [
    `,${tag}-1,1,20.00,paid,${day(2)} 09:00:00,${day(2)} 08:00:00,${products([1, 'Tea', '10.00', 2])}`,
    `,${tag}-2,2,5.00,pending,,${day(5)} 23:59:59,${products([7, 'Fork', '2.50', 2])}`,
    `,${tag}-3,3,3.30,cancelled,,${day(0)} 00:00:00,${products([3, 'Pen', '1.10', 3])}`,
    `,${tag}-4,4,99.99,paid,${day(60)} 12:00:00,${day(60)} 11:00:00,${products([8, 'Lamp', '99.99', 1])}`,
  ];
  const upload = async (lines: string[]) => {
    const boundary = 'rollupboundary';
    const payload = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="orders.csv"\r\nContent-Type: text/csv\r\n\r\n`
      + `${[header, ...lines].join('\r\n')}\r\n\r\n--${boundary}--\r\n`);
    return assertOk(await call(app, 'POST', '/api/admin/orders/import', { token: clerkA.token, payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }));
  };
  assert.equal((await upload(rows('rollup-import'))).succeeded, 4);
  await assertAgrees('after an import');
  const again = await upload([...rows('rollup-import').slice(0, 1), ...rows('rollup-again')]);
  assert.deepEqual([again.succeeded, again.duplicates], [4, 1]);
  await assertAgrees('after an import that met an existing row');
});

test('a seed batch (orders, details and payments in one statement) and payments written in SQL', async () => {
  await seedOrders(db(), { orders: 300, batchSize: 120, users: 50 });
  await assertAgrees('after the seed');
  const [order] = await q<{ id: number; order_no: string }>(`SELECT id, order_no FROM admin.orders WHERE created_by = $1 AND status = 'pending' LIMIT 1`, [clerkA.id]);
  await q(`INSERT INTO admin.payments (payment_no, order_id, order_no, user_id, payment_method_id, amount, status, created_by, department_id)
           VALUES ('PROLLUP1', $1, $2, 1, $3, 4.56, 'failed', $4, $5)`, [order!.id, order!.order_no, cash, clerkA.id, departmentA]);
  await assertAgrees('a failed payment');
  await q(`UPDATE admin.payments SET status = 'paid', payment_method_id = $1 WHERE payment_no = 'PROLLUP1'`, [card]);
  await assertAgrees('the payment paid, with another method');
});

test('concurrent writers of one day and department neither deadlock nor lose a change', async () => {
  const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => create(i % 2 ? clerkA : scoped, item(1, 'Tea', '1.00', 1 + i), item(2, 'Cake', '2.00', 1))));
  const paid = ids.slice(0, 8);
  await Promise.all(paid.map((id, i) => setStatus(i % 2 ? clerkA : scoped, id, 'paid', i % 3 ? card : cash)));
  // Deletes of paid orders (products, then orders) against payments and creates (orders, then products) of the same day and department.
  await Promise.all([
    ...paid.slice(0, 4).map((id, i) => call(app, 'DELETE', `/api/admin/orders/${id}`, { token: (i % 2 ? clerkA : scoped).token }).then(assertOk)),
    ...ids.slice(8).map((id, i) => (i % 2 ? setStatus(clerkA, id, 'paid', card) : setStatus(scoped, id, 'cancelled'))),
    ...Array.from({ length: 6 }, (_, i) => create(i % 2 ? clerkA : scoped, item(1, 'Tea', '1.00', 1), item(9, 'Napkin', '0.10', 10))),
  ]);
  await assertAgrees('after concurrent writes');
  if (onPostgres) {
    const [shares] = await q<{ n: number }>('SELECT count(DISTINCT slot)::int AS n FROM admin.business_orders_daily');
    assert.ok(shares!.n > 1, 'the connections wrote shares of their own');
  }
});

test('a start in another DISPLAY_TIMEZONE rebuilds the rollup in its days, once across instances starting together, while orders are written', async () => {
  const messages: string[] = [];
  const logger = { info: (_fields: unknown, message: string) => messages.push(message) } as unknown as Logger;
  const service = (tz: string) => new DashboardService({ db: db(), config: { DISPLAY_TIMEZONE: tz } as Config, logs: undefined as never });
  const newYork = [service('America/New_York'), service('America/New_York')];
  const [pending] = await q<{ id: number }>(`SELECT id FROM admin.orders WHERE created_by = $1 AND status = 'pending' LIMIT 1`, [clerkA.id]);
  const [paid] = await q<{ id: number }>(`SELECT id FROM admin.orders WHERE created_by = $1 AND status = 'paid' LIMIT 1`, [scoped.id]);
  await Promise.all([
    ...newYork.map((s) => s.start(logger)),
    create(clerkA, item(1, 'Tea', '1.00', 2)),
    setStatus(clerkA, pending!.id, 'paid', cash),
    call(app, 'DELETE', `/api/admin/orders/${paid!.id}`, { token: scoped.token }).then(assertOk),
    create(scoped, item(3, 'Pen', '0.50', 4)),
  ]);
  assert.equal(messages.length, 1, 'rebuilt once');
  const { tz, kept, fresh } = await rollupAndFresh();
  assert.equal(tz, 'America/New_York');
  assert.deepEqual(kept, fresh);
  // Its figures are those of New York's days.
  const all = { all: true, departments: [], adminId: 1, departmentId: null };
  const figures = await newYork[0]!.businessFigures(all, 90);
  const [byDay] = await q<{ days: number }>(`SELECT count(DISTINCT (created_at AT TIME ZONE 'America/New_York')::date)::int AS days FROM admin.orders
    WHERE (created_at AT TIME ZONE 'America/New_York')::date > (now() AT TIME ZONE 'America/New_York')::date - 90`);
  assert.equal(figures.by_day.filter((d) => d.orders > 0).length, byDay!.days);
  // Started again in the app's zone: rebuilt back, and the app's figures agree again.
  await service(ZONE).start(logger);
  assert.equal(messages.length, 2);
  await service(ZONE).start(logger);
  assert.equal(messages.length, 2, 'the zone kept is the display zone: nothing to rebuild');
  await assertAgrees('rebuilt in the app’s zone');
});

test('TRUNCATE empties the sums of what it empties', async () => {
  await q('TRUNCATE admin.order_details');
  await assertAgrees('details truncated');
  await q('TRUNCATE admin.orders CASCADE');
  await assertAgrees('orders and payments truncated');
  const [left] = await q<{ n: number }>(`SELECT (SELECT count(*) FROM admin.business_orders_daily WHERE orders <> 0 OR amount <> 0)
    + (SELECT count(*) FROM admin.business_payments_daily WHERE payments <> 0) + (SELECT count(*) FROM admin.business_products_daily WHERE quantity <> 0) AS n`);
  assert.equal(Number(left!.n), 0);
});
