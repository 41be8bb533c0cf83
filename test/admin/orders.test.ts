// Orders: creation rules (items, money to the cent, idempotent request_id under concurrency),
// the list filters and the 3-month window, the lookup rule, status moves with their payment
// record, deletion with the details, and permissions.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { orderProblems as problemsOf } from '../../src/admin/features/orders/orders.service.ts';
import { translate } from '../../src/platform/i18n.ts';

const orderProblems = (input: Parameters<typeof problemsOf>[0]) => problemsOf(input).map((p) => translate(p, 'en-US'));
import { startApp, type TestApp } from '../helpers/app.ts';
import { assertError, assertOk } from '../helpers/assert.ts';
import { call, login, signedInAdmin, type Reply } from '../helpers/http.ts';

const BASE = '/api/admin/orders';
const DISPLAY_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const ORDER_FIELDS = ['amount', 'created_at', 'created_by', 'created_by_name', 'id', 'order_no', 'paid_at', 'request_id', 'status', 'updated_at', 'user_id'];
const DETAIL_FIELDS = ['id', 'order_id', 'price', 'product_id', 'product_name', 'quantity'];

interface Item { product_id: number; product_name: string; price: number; quantity: number }
interface Order { id: number; order_no: string; request_id: string; user_id: number; amount: number; status: string; created_by: number | null; created_by_name: string | null; paid_at: string | null; created_at: string; updated_at: string }
interface Detail { id: number; order_id: number; product_id: number; product_name: string; price: number; quantity: number }

let app: TestApp;
let token: string;
let adminId: number;
let userSeq = 1000;

before(async () => {
  app = await startApp();
  token = await login(app);
  const [row] = await app.platform.db.query<{ id: number }>(`SELECT id FROM admin.admins WHERE username = 'admin'`);
  adminId = Number(row!.id);
});
after(() => app?.close());

const db = () => app.platform.db;
const create = (body: unknown, t = token): Promise<Reply> => call(app, 'POST', BASE, { token: t, body });
const list = (query = '', t = token): Promise<Reply> => call(app, 'GET', `${BASE}${query}`, { token: t });
const getOne = (path: string, t = token): Promise<Reply> => call(app, 'GET', `${BASE}/${path}`, { token: t });
const update = (path: string, body: unknown, t = token): Promise<Reply> => call(app, 'PUT', `${BASE}/${path}`, { token: t, body });
const remove = (path: string, t = token): Promise<Reply> => call(app, 'DELETE', `${BASE}/${path}`, { token: t });

const items = (): Item[] => [
  { product_id: 1, product_name: 'Widget', price: 19.99, quantity: 3 },
  { product_id: 2, product_name: 'Gadget', price: 0.1, quantity: 3 },
];
/** 19.99 × 3 + 0.10 × 3 = 60.27 (in binary floating point it is 60.269999…). */
const validBody = (extra: Record<string, unknown> = {}) => ({ user_id: (userSeq += 1), amount: 60.27, products: items(), ...extra });

async function newOrder(extra: Record<string, unknown> = {}): Promise<{ order: Order; details: Detail[] }> {
  return assertOk(await create(validBody(extra))) as { order: Order; details: Detail[] };
}

const counts = async () => {
  const [row] = await db().query<{ orders: number; details: number; payments: number }>(
    `SELECT (SELECT count(*)::int FROM admin.orders) AS orders, (SELECT count(*)::int FROM admin.order_details) AS details,
            (SELECT count(*)::int FROM admin.payments) AS payments`,
  );
  return row!;
};

/** A payment method straight in the table (its own endpoints are tested elsewhere). */
async function method(code: string, opts: { sort?: number; active?: boolean } = {}): Promise<number> {
  const [row] = await db().query<{ id: number }>(
    `INSERT INTO admin.payment_methods (name, code, type, config, is_active, sort) VALUES ($1, $2, 'online', '{}'::jsonb, $3, $4) RETURNING id`,
    [`Method ${code}`, code, opts.active ?? true, opts.sort ?? 0],
  );
  return Number(row!.id);
}

/** An order placed `daysAgo` days ago, straight in the table (the API stamps `now`). */
async function pastOrder(daysAgo: number, extra: { status?: string; amount?: string; user_id?: number } = {}): Promise<Order & { created: Date }> {
  const [row] = await db().query<{ id: number; order_no: string; created_at: Date | string }>(
    `INSERT INTO admin.orders (order_no, request_id, user_id, amount, status, created_at, updated_at)
     VALUES ($1, $2, $3, $4::numeric, $5, now() - make_interval(days => $6::int), now() - make_interval(days => $6::int)) RETURNING id, order_no, created_at`,
    [`T${randomUUID().replaceAll('-', '').slice(0, 20)}`, randomUUID(), extra.user_id ?? 42, extra.amount ?? '10.00', extra.status ?? 'pending', daysAgo],
  );
  return { ...(row as unknown as Order), id: Number(row!.id), created: new Date(row!.created_at) };
}

const pad = (n: number) => String(n).padStart(2, '0');
const display = (d: Date) => `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000);

describe('POST /orders', () => {
  test('creates the order and its details with every stored field', async () => {
    const before = await counts();
    const res = await create(validBody({ request_id: 'req-create-1' }));
    const data = assertOk(res);
    assert.deepEqual(Object.keys(data).sort(), ['details', 'order']);
    const { order, details } = data as { order: Order; details: Detail[] };
    assert.deepEqual(Object.keys(order).sort(), ORDER_FIELDS);
    assert.match(order.order_no, /^\d{27}$/);
    assert.equal(order.request_id, 'req-create-1');
    assert.equal(order.amount, 60.27);
    assert.equal(order.status, 'pending');
    assert.equal(order.created_by, adminId);
    assert.equal(order.paid_at, null);
    assert.match(order.created_at, DISPLAY_TIME);
    assert.match(order.updated_at, DISPLAY_TIME);
    // The order number starts with the UTC creation time.
    assert.equal(order.order_no.slice(0, 8), order.created_at.slice(0, 10).replaceAll('-', ''));
    assert.equal(details.length, 2);
    for (const d of details) {
      assert.deepEqual(Object.keys(d).sort(), DETAIL_FIELDS);
      assert.equal(d.order_id, order.id);
    }
    assert.deepEqual(details.map(({ product_id, product_name, price, quantity }) => ({ product_id, product_name, price, quantity })), items());
    const [stored] = await db().query<{ amount: string; n: number; total: string }>(
      `SELECT o.amount::text AS amount, count(d.id)::int AS n, sum(d.price * d.quantity)::text AS total
       FROM admin.orders o JOIN admin.order_details d ON d.order_id = o.id WHERE o.id = $1 GROUP BY o.amount`,
      [order.id],
    );
    assert.deepEqual(stored, { amount: '60.27', n: 2, total: '60.27' });
    const afterCounts = await counts();
    assert.equal(afterCounts.orders, before.orders + 1);
    assert.equal(afterCounts.details, before.details + 2);
  });

  test('a request_id is generated when omitted; order numbers are unique and sort by time', async () => {
    const a = (await newOrder()).order;
    const b = (await newOrder()).order;
    assert.match(a.request_id, /^[0-9a-f-]{36}$/);
    assert.notEqual(a.request_id, b.request_id);
    assert.notEqual(a.order_no, b.order_no);
    assert.ok(a.order_no.slice(0, 17) <= b.order_no.slice(0, 17));
  });

  test('money is exact to the cent, never through floating point', async () => {
    // 0.1 + 0.2 style sums: 0.1 × 3 is 0.30000000000000004 in floating point.
    const ok1 = await create({ user_id: 7, amount: 0.3, products: [{ product_id: 1, product_name: 'a', price: 0.1, quantity: 3 }] });
    assert.equal(assertOk(ok1).order.amount, 0.3);
    const ok2 = await create({ user_id: 7, amount: 1234567.89, products: [{ product_id: 1, product_name: 'a', price: 1234567.89, quantity: 1 }] });
    assert.equal(assertOk(ok2).order.amount, 1234567.89);
    const free = await create({ user_id: 7, amount: 0, products: [{ product_id: 1, product_name: 'gift', price: 0, quantity: 2 }] });
    assert.equal(assertOk(free).order.amount, 0);
    // One cent off either way is refused.
    for (const amount of [60.26, 60.28]) assertError(await create(validBody({ amount })), 400, 30001);
    const off = await create(validBody({ amount: 60.26 }));
    assert.match(off.body.message, /60\.26.*60\.27/);
  });

  test('every rule of the body is checked and nothing is written on a refusal', async () => {
    const before = await counts();
    const item = items()[0]!;
    const bad: [string, unknown][] = [
      ['no user_id', { amount: 59.97, products: [item] }],
      ['no amount', { user_id: 1, products: [item] }],
      ['no products', { user_id: 1, amount: 59.97 }],
      ['empty products', { user_id: 1, amount: 0, products: [] }],
      ['user_id as text', { user_id: '1', amount: 59.97, products: [item] }],
      ['user_id 0', { user_id: 0, amount: 59.97, products: [item] }],
      ['amount as text', { user_id: 1, amount: '59.97', products: [item] }],
      ['amount with 3 decimals', { user_id: 1, amount: 59.971, products: [item] }],
      ['negative amount', { user_id: 1, amount: -1, products: [item] }],
      ['unknown body field', { ...validBody(), status: 'paid' }],
      ['request_id with a space', validBody({ request_id: 'a b' })],
      ['request_id too long', validBody({ request_id: 'x'.repeat(65) })],
      ['products not a list', { user_id: 1, amount: 59.97, products: item }],
    ];
    for (const field of ['product_id', 'product_name', 'price', 'quantity'] as const) {
      const { [field]: _, ...partial } = item;
      bad.push([`item without ${field}`, { user_id: 1, amount: 59.97, products: [partial] }]);
    }
    bad.push(
      ['price with 3 decimals', { user_id: 1, amount: 0.03, products: [{ ...item, price: 0.001, quantity: 30 }] }],
      ['negative price', { user_id: 1, amount: 0, products: [{ ...item, price: -1, quantity: 1 }] }],
      ['quantity 0', { user_id: 1, amount: 0, products: [{ ...item, quantity: 0 }] }],
      ['fractional quantity', { user_id: 1, amount: 29.985, products: [{ ...item, quantity: 1.5 }] }],
      ['blank product name', { user_id: 1, amount: 59.97, products: [{ ...item, product_name: '   ' }] }],
      ['unknown item field', { user_id: 1, amount: 59.97, products: [{ ...item, sku: 'x' }] }],
      ['price as text', { user_id: 1, amount: 59.97, products: [{ ...item, price: '19.99' }] }],
    );
    for (const [label, body] of bad) {
      const res = await create(body);
      assert.equal(res.status, 400, `${label}: ${JSON.stringify(res.body)}`);
      assertError(res, 400, 30001);
    }
    assertError(await call(app, 'POST', BASE, { token, payload: '{"user_id":', headers: { 'content-type': 'application/json' } }), 400, 30004);
    assert.deepEqual(await counts(), before);
  });

  test('a duplicate request_id is 400 30002 naming the existing order', async () => {
    const first = (await newOrder({ request_id: 'dup-1' })).order;
    const before = await counts();
    const res = await create(validBody({ request_id: 'dup-1' }));
    assertError(res, 400, 30002);
    assert.ok(res.body.message.includes(first.order_no), res.body.message);
    assert.deepEqual(await counts(), before);
  });

  test('50 concurrent creates with one request_id make exactly one order', async () => {
    const requestId = `race-${randomUUID()}`;
    const body = validBody({ request_id: requestId });
    const results = await Promise.all(Array.from({ length: 50 }, () => create(body)));
    const okOnes = results.filter((r) => r.status === 200);
    assert.equal(okOnes.length, 1, JSON.stringify(results.map((r) => r.status)));
    const orderNo = okOnes[0]!.body.data.order.order_no as string;
    for (const r of results.filter((x) => x.status !== 200)) {
      assertError(r, 400, 30002);
      assert.ok(r.body.message.includes(orderNo), r.body.message);
    }
    const [row] = await db().query<{ n: number; details: number }>(
      `SELECT count(DISTINCT o.id)::int AS n, count(d.id)::int AS details FROM admin.orders o JOIN admin.order_details d ON d.order_id = o.id WHERE o.request_id = $1`,
      [requestId],
    );
    assert.deepEqual(row, { n: 1, details: 2 });
  });
});

describe('orderProblems (shared with the CSV import)', () => {
  test('applies the rules of POST /orders and accepts numbers given as text', () => {
    assert.deepEqual(orderProblems({ user_id: 1, amount: 60.27, products: items() }), []);
    assert.deepEqual(orderProblems({ user_id: '1', amount: '25.00', products: [{ product_id: '3', product_name: 'x', price: '12.5', quantity: '2' }], request_id: 'r-1' }), []);
    const problems = orderProblems({ user_id: 0, amount: 1.001, products: [{ product_id: 1, product_name: '', price: -1, quantity: 0 }], request_id: 'a b' });
    for (const part of ['user_id', 'amount', 'request_id', 'products[0].product_name', 'products[0].price', 'products[0].quantity']) {
      assert.ok(problems.some((p) => p.startsWith(part)), `${part} in ${JSON.stringify(problems)}`);
    }
    assert.match(orderProblems({ user_id: 1, amount: 1, products: items() })[0]!, /does not equal/);
    assert.equal(orderProblems({ user_id: 1, amount: 1, products: [] }).length, 1);
  });
});

describe('GET /orders', () => {
  const ids = (res: Reply) => (assertOk(res).list as Order[]).map((o) => o.id);

  test('filters: order_no (fuzzy), user_id, status, amounts, combined with AND', async () => {
    const user = (userSeq += 1);
    const a = (await newOrder({ user_id: user })).order;
    const b = (await create({ user_id: user, amount: 5, products: [{ product_id: 9, product_name: 'cheap', price: 2.5, quantity: 2 }] })).body.data.order as Order;
    const c = (await newOrder({ user_id: user })).order;
    assertOk(await update(`${c.id}`, { status: 'cancelled' }));

    const byUser = assertOk(await list(`?user_id=${user}`));
    assert.equal(byUser.total, 3);
    assert.deepEqual(byUser.list.map((o: Order) => o.id), [c.id, b.id, a.id], 'default order id:desc');
    for (const o of byUser.list as Order[]) assert.deepEqual(Object.keys(o).sort(), ORDER_FIELDS);

    assert.deepEqual(ids(await list(`?order_no=${a.order_no.slice(5, 22)}`)), [a.id]);
    assert.deepEqual(ids(await list(`?user_id=${user}&status=cancelled`)), [c.id]);
    assert.deepEqual(ids(await list(`?user_id=${user}&status=pending&order_by=id:asc`)), [a.id, b.id]);
    assert.deepEqual(ids(await list(`?user_id=${user}&max_amount=5`)), [b.id]);
    assert.deepEqual(ids(await list(`?user_id=${user}&min_amount=5.01`)), [c.id, a.id]);
    assert.deepEqual(ids(await list(`?user_id=${user}&min_amount=5&max_amount=5`)), [b.id]);
    assert.deepEqual(ids(await list(`?user_id=${user}&order_by=amount:asc`)), [b.id, a.id, c.id]);
    // Amounts sort as numbers, not as their text ("100.00" < "20.00").
    const other = (userSeq += 1);
    const item = (price: number) => [{ product_id: 1, product_name: 'p', price, quantity: 1 }];
    const big = (await create({ user_id: other, amount: 100, products: item(100) })).body.data.order as Order;
    const small = (await create({ user_id: other, amount: 20, products: item(20) })).body.data.order as Order;
    assert.deepEqual(ids(await list(`?user_id=${other}&order_by=amount:asc`)), [small.id, big.id]);
    assert.deepEqual(ids(await list(`?user_id=${other}&order_by=amount:desc`)), [big.id, small.id]);
    // LIKE wildcards in order_no match themselves.
    assert.equal(assertOk(await list('?order_no=%25')).total, 0);
    assert.equal(assertOk(await list(`?user_id=${user}&status=paid`)).total, 0);

    const page = assertOk(await list(`?user_id=${user}&page=2&page_size=2`));
    assert.deepEqual({ page: page.page, page_size: page.page_size, total: page.total, n: page.list.length }, { page: 2, page_size: 2, total: 3, n: 1 });
  });

  test('time range: default last 3 months, at most 3 months, one end widens to 3 months', async () => {
    const user = (userSeq += 1);
    const recent = await pastOrder(10, { user_id: user });
    const old = await pastOrder(120, { user_id: user });
    assert.deepEqual(ids(await list(`?user_id=${user}`)), [recent.id], 'no range: the last 3 months');

    const start = display(daysAgo(150));
    const end = display(daysAgo(100));
    assert.deepEqual(ids(await list(`?user_id=${user}&start_time=${encodeURIComponent(start)}&end_time=${encodeURIComponent(end)}`)), [old.id]);
    assert.deepEqual(ids(await list(`?user_id=${user}&start_time=${encodeURIComponent(start)}`)), [old.id], 'start only: 3 months from it');
    assert.deepEqual(ids(await list(`?user_id=${user}&end_time=${encodeURIComponent(display(daysAgo(5)))}`)), [recent.id], 'end only: 3 months up to it');
    // Bounds are inclusive: an order stamped at a whole second is found by that second at either end.
    const [whole] = await db().query<{ id: number }>(
      `UPDATE admin.orders SET created_at = date_trunc('second', created_at) WHERE id = $1 RETURNING id`, [recent.id]);
    const at = encodeURIComponent(display(new Date(Math.floor(recent.created.getTime() / 1000) * 1000)));
    assert.deepEqual(ids(await list(`?user_id=${user}&start_time=${at}&end_time=${at}`)), [Number(whole!.id)]);

    const tooLong = await list(`?start_time=${encodeURIComponent('2025-01-01 00:00:00')}&end_time=${encodeURIComponent('2025-04-01 00:00:01')}`);
    assertError(tooLong, 400, 30001);
    assert.match(tooLong.body.message, /3 months/);
    assertOk(await list(`?start_time=${encodeURIComponent('2025-01-01 00:00:00')}&end_time=${encodeURIComponent('2025-04-01 00:00:00')}`));
    assertError(await list(`?start_time=${encodeURIComponent('2025-03-01 00:00:00')}&end_time=${encodeURIComponent('2025-02-01 00:00:00')}`), 400, 30001);
    assertError(await list(`?start_time=${encodeURIComponent('2025-02-30 00:00:00')}`), 400, 30001);
    assertError(await list('?start_time=yesterday'), 400, 30001);
  });

  test('bad queries are 400 30001', async () => {
    for (const q of ['?order_by=request_id:asc', '?order_by=id', '?status=shipped', '?min_amount=-1', '?min_amount=abc', '?user_id=0', '?page=0', '?page_size=101', '?min_amount=10&max_amount=5']) {
      assertError(await list(q), 400, 30001);
    }
    for (const field of ['id', 'order_no', 'user_id', 'amount', 'status', 'created_at', 'updated_at', 'paid_at']) {
      assertOk(await list(`?order_by=${field}:asc`));
      assertOk(await list(`?order_by=${field}:desc`));
    }
  });
});

describe('GET /orders/{id}', () => {
  test('by id, or by order_no which wins over the id', async () => {
    const { order, details } = await newOrder();
    const other = (await newOrder()).order;
    const byId = assertOk(await getOne(`${order.id}`));
    assert.deepEqual(byId, { order, details });
    assert.deepEqual(assertOk(await getOne(`0?order_no=${order.order_no}`)).order.id, order.id);
    assert.deepEqual(assertOk(await getOne(`-?order_no=${order.order_no}`)).order.id, order.id);
    assert.deepEqual(assertOk(await getOne(`${other.id}?order_no=${order.order_no}`)).order.id, order.id, 'order_no preferred');
  });

  test('unknown is 404 30003; a bad id is 400', async () => {
    assertError(await getOne('987654321'), 404, 30003);
    assertError(await getOne('0?order_no=NOPE123'), 404, 30003);
    assertError(await getOne('0'), 400, 30001);
    assertError(await getOne('-'), 400, 30001);
    assertError(await getOne('abc'), 400, 30001);
    assertError(await getOne('1?order_no=bad%20no'), 400, 30001);
  });
});

describe('PUT /orders/{id}', () => {
  test('pending → paid writes the payment record with the default method, in one transaction', async () => {
    await db().query(`UPDATE admin.payment_methods SET is_active = false`);
    const { order } = await newOrder();
    const none = await update(`${order.id}`, { status: 'paid' });
    assertError(none, 400, 40003);
    assert.match(none.body.message, /no active payment method/);
    assert.equal((await counts()).payments, 0, 'nothing written');

    await method('late-second', { sort: 5 });
    const first = await method('first-by-sort', { sort: 1 });
    await method('inactive-zero', { sort: 0, active: false });
    const res = assertOk(await update(`${order.id}`, { status: 'paid' }));
    assert.deepEqual(Object.keys(res).sort(), ['details', 'order', 'payment']);
    assert.equal(res.order.status, 'paid');
    assert.match(res.order.paid_at, DISPLAY_TIME);
    assert.equal(res.details.length, 2);
    assert.deepEqual(Object.keys(res.payment).sort(), ['amount', 'created_at', 'id', 'order_id', 'order_no', 'paid_at', 'payment_method_id', 'payment_no', 'status', 'updated_at', 'user_id']);
    assert.deepEqual({ order_id: res.payment.order_id, order_no: res.payment.order_no, user_id: res.payment.user_id }, { order_id: order.id, order_no: order.order_no, user_id: order.user_id });
    assert.equal(res.payment.payment_method_id, first);
    assert.equal(res.payment.amount, 60.27);
    assert.equal(res.payment.status, 'paid');
    assert.equal(res.payment.paid_at, res.order.paid_at);
    assert.match(res.payment.payment_no, /^P\d{27}$/);
    const rows = await db().query<{ order_id: number; order_no: string; user_id: number; amount: string }>(
      `SELECT order_id, order_no, user_id, amount::text AS amount FROM admin.payments WHERE payment_no = $1`,
      [res.payment.payment_no],
    );
    assert.deepEqual(rows.map((r) => ({ ...r, order_id: Number(r.order_id), user_id: Number(r.user_id) })), [{ order_id: order.id, order_no: order.order_no, user_id: order.user_id, amount: '60.27' }]);
  });

  test('paid with a chosen method; unknown or inactive methods are refused', async () => {
    const chosen = await method('chosen', { sort: 99 });
    const off = await method('switched-off', { active: false });
    const { order } = await newOrder();
    assertError(await update(`${order.id}`, { status: 'paid', payment_method_id: 987654 }), 400, 30001);
    assertError(await update(`${order.id}`, { status: 'paid', payment_method_id: off }), 400, 30001);
    assertError(await update(`${order.id}`, { status: 'cancelled', payment_method_id: chosen }), 400, 30001);
    const res = assertOk(await update(`0?order_no=${order.order_no}`, { status: 'paid', payment_method_id: chosen }));
    assert.equal(res.payment.payment_method_id, chosen);
  });

  test('only pending → paid | cancelled; other moves are 400 40003, unknown statuses 30001', async () => {
    const { order: paid } = await newOrder();
    assertOk(await update(`${paid.id}`, { status: 'paid' }));
    const { order: cancelled } = await newOrder();
    const c = assertOk(await update(`${cancelled.id}`, { status: 'cancelled' }));
    assert.equal(c.order.status, 'cancelled');
    assert.equal(c.order.paid_at, null);
    assert.equal(c.payment, null);
    const { order: pending } = await newOrder();
    const before = await counts();
    for (const [id, status] of [[paid.id, 'cancelled'], [paid.id, 'paid'], [paid.id, 'pending'], [cancelled.id, 'paid'], [cancelled.id, 'pending'], [pending.id, 'pending']] as const) {
      const res = await update(`${id}`, { status });
      assertError(res, 400, 40003);
    }
    assertError(await update(`${pending.id}`, { status: 'shipped' }), 400, 30001);
    assertError(await update(`${pending.id}`, {}), 400, 30001);
    assertError(await update(`${pending.id}`, { status: 'paid', note: 'x' }), 400, 30001);
    assertError(await update('987654321', { status: 'paid' }), 404, 30003);
    assert.deepEqual(await counts(), before);
    assert.equal(assertOk(await getOne(`${pending.id}`)).order.status, 'pending');
  });

  test('concurrent payments of one order: exactly one succeeds', async () => {
    const { order } = await newOrder();
    const results = await Promise.all(Array.from({ length: 10 }, () => update(`${order.id}`, { status: 'paid' })));
    assert.equal(results.filter((r) => r.status === 200).length, 1, JSON.stringify(results.map((r) => r.status)));
    for (const r of results.filter((x) => x.status !== 200)) assertError(r, 400, 40003);
    const [row] = await db().query<{ n: number }>('SELECT count(*)::int AS n FROM admin.payments WHERE order_no = $1', [order.order_no]);
    assert.equal(row!.n, 1);
  });
});

describe('DELETE /orders/{id}', () => {
  test('deletes the order and its details; payment records stay', async () => {
    const { order } = await newOrder();
    const paid = assertOk(await update(`${order.id}`, { status: 'paid' }));
    const before = await counts();
    const res = assertOk(await remove(`${order.id}`));
    assert.deepEqual(res, { id: order.id, order_no: order.order_no, details_deleted: 2 });
    const afterCounts = await counts();
    assert.deepEqual(afterCounts, { orders: before.orders - 1, details: before.details - 2, payments: before.payments });
    const [payment] = await db().query<{ order_id: number | null; order_no: string }>('SELECT order_id, order_no FROM admin.payments WHERE payment_no = $1', [paid.payment.payment_no]);
    assert.deepEqual(payment, { order_id: null, order_no: order.order_no });
    assertError(await getOne(`${order.id}`), 404, 30003);
    assertError(await remove(`${order.id}`), 404, 30003);
  });

  test('by order_no, which wins over the id', async () => {
    const { order } = await newOrder();
    const { order: other } = await newOrder();
    assertOk(await remove(`${other.id}?order_no=${order.order_no}`));
    assertError(await getOne(`${order.id}`), 404, 30003);
    assertOk(await getOne(`${other.id}`));
  });
});

describe('permissions', () => {
  test('each route needs its permission', async () => {
    const { order } = await newOrder();
    const { token: viewer } = await signedInAdmin(app, { permissions: ['order.list', 'order.view'] });
    assertOk(await list('', viewer));
    assertOk(await getOne(`${order.id}`, viewer));
    assertError(await create(validBody(), viewer), 403, 20001);
    assertError(await update(`${order.id}`, { status: 'cancelled' }, viewer), 403, 20001);
    assertError(await remove(`${order.id}`, viewer), 403, 20001);
    const { token: creator } = await signedInAdmin(app, { permissions: ['order.create'] });
    const created = assertOk(await create(validBody(), creator));
    assert.notEqual(created.order.created_by, adminId);
  });

  test('creating an order is in the operation log', async () => {
    const { order } = await newOrder({ request_id: `logged-${randomUUID()}` });
    let rows: { params: { body?: { request_id?: string } } }[] = [];
    for (let i = 0; i < 80 && rows.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 25));
      rows = await db().query(`SELECT params FROM admin.operation_logs WHERE module = 'order' AND action = 'create' AND params->'body'->>'request_id' = $1`, [order.request_id]);
    }
    assert.equal(rows.length, 1);
  });
});

describe('the creator’s name', () => {
  test('list, detail, create and status replies name the creator; null once that administrator is deleted or for none', async () => {
    const creator = await signedInAdmin(app, { permissions: ['order.create'] });
    const nick = `Nick ${creator.username}`;
    const created = assertOk(await create(validBody({ request_id: `named-${randomUUID()}` }), creator.token)).order as Order;
    assert.equal(created.created_by, creator.id);
    assert.equal(created.created_by_name, nick);
    const listed = (): Promise<Order | undefined> =>
      list(`?order_no=${created.order_no}`).then((r) => (assertOk(r).list as Order[]).find((o) => o.id === created.id));
    assert.equal((await listed())?.created_by_name, nick);
    assert.equal(assertOk(await getOne(`${created.id}`)).order.created_by_name, nick);
    // An empty nickname shows the username.
    await db().query(`UPDATE admin.admins SET nickname = '' WHERE id = $1`, [creator.id]);
    assert.equal((await listed())?.created_by_name, creator.username);
    // A list filtered and sorted by columns the joined administrator also has (id, status, created_at) stays unambiguous.
    const sorted = assertOk(await list(`?status=pending&order_by=created_at:desc&user_id=${created.user_id}`)).list as Order[];
    assert.deepEqual(sorted.map((o) => [o.id, o.created_by_name]), [[created.id, creator.username]]);
    const mine = (await newOrder()).order;
    const [me] = await db().query<{ name: string }>(`SELECT coalesce(nullif(nickname, ''), username) AS name FROM admin.admins WHERE id = $1`, [adminId]);
    assert.equal(mine.created_by_name, me!.name);

    assertOk(await call(app, 'DELETE', `/api/admin/admins/${creator.id}`, { token }));
    assert.equal((await listed())?.created_by_name, null);
    assert.equal((await listed())?.created_by, creator.id);
    assert.equal(assertOk(await getOne(`${created.id}`)).order.created_by_name, null);
    const cancelled = assertOk(await update(`${created.id}`, { status: 'cancelled' }));
    assert.equal(cancelled.order.created_by_name, null);
    const moved = assertOk(await update(`${mine.id}`, { status: 'cancelled' }));
    assert.equal(moved.order.created_by_name, mine.created_by_name);

    // Imported or seeded orders have no creator.
    await db().query(`UPDATE admin.orders SET created_by = NULL WHERE id = $1`, [mine.id]);
    assert.equal(assertOk(await getOne(`${mine.id}`)).order.created_by_name, null);
  });
});
