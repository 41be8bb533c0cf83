// Payment records: written by real flows (an order marked paid; the seed), read through the
// list with every filter and the detail; they outlive their order. Also the seed's data obeys
// the order rules.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { seedOrders } from '../../src/admin/features/orders/orders.seed.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { assertError, assertOk } from '../helpers/assert.ts';
import { call, login, signedInAdmin, type Reply } from '../helpers/http.ts';

const BASE = '/api/admin/payments';
const DISPLAY_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const FIELDS = [
  'amount', 'created_at', 'id', 'order_id', 'order_no', 'paid_at', 'payment_method_code', 'payment_method_id', 'payment_method_name',
  'payment_no', 'status', 'updated_at', 'user_id',
];

interface Payment { id: number; payment_no: string; order_id: number | null; order_no: string; user_id: number; payment_method_id: number; payment_method_name: string; payment_method_code: string; amount: number; status: string; paid_at: string | null; created_at: string; updated_at: string }

let app: TestApp;
let token: string;
let cardId: number;
let walletId: number;

before(async () => {
  app = await startApp();
  token = await login(app);
  cardId = assertOk(await call(app, 'POST', '/api/admin/payment-methods', { token, body: { name: 'Card', code: 'card', type: 'card', config: {}, sort: 1 } })).id;
  walletId = assertOk(await call(app, 'POST', '/api/admin/payment-methods', { token, body: { name: 'Wallet', code: 'wallet', type: 'wallet', config: {}, sort: 2 } })).id;
});
after(() => app?.close());

const db = () => app.platform.db;
const list = (query = '', t = token): Promise<Reply> => call(app, 'GET', `${BASE}${query}`, { token: t });
const getOne = (id: number | string, t = token): Promise<Reply> => call(app, 'GET', `${BASE}/${id}`, { token: t });

/** Creates an order through the API and pays it; returns the payment record of the reply. */
async function paidOrder(userId: number, price: number, methodId?: number): Promise<{ orderNo: string; orderId: number; payment: Payment }> {
  const created = assertOk(await call(app, 'POST', '/api/admin/orders', { token, body: { user_id: userId, amount: price, products: [{ product_id: 1, product_name: 'Thing', price, quantity: 1 }] } }));
  const paid = assertOk(await call(app, 'PUT', `/api/admin/orders/${created.order.id}`, { token, body: { status: 'paid', ...(methodId ? { payment_method_id: methodId } : {}) } }));
  return { orderNo: created.order.order_no, orderId: created.order.id, payment: paid.payment };
}

describe('payment records from paid orders', () => {
  test('detail: every field, with the method; 404 when unknown', async () => {
    const { orderNo, orderId, payment } = await paidOrder(501, 12.5);
    const p = assertOk(await getOne(payment.id)) as Payment;
    assert.deepEqual(Object.keys(p).sort(), FIELDS);
    assert.deepEqual(
      { order_id: p.order_id, order_no: p.order_no, user_id: p.user_id, amount: p.amount, status: p.status, method: p.payment_method_id, name: p.payment_method_name, code: p.payment_method_code },
      { order_id: orderId, order_no: orderNo, user_id: 501, amount: 12.5, status: 'paid', method: cardId, name: 'Card', code: 'card' },
    );
    assert.equal(p.payment_no, payment.payment_no);
    assert.match(p.paid_at!, DISPLAY_TIME);
    assert.match(p.created_at, DISPLAY_TIME);
    assertError(await getOne(987654321), 404, 30003);
    assertError(await getOne('x'), 400, 30001);
  });

  test('a payment outlives its order', async () => {
    const { orderNo, orderId, payment } = await paidOrder(502, 3);
    assertOk(await call(app, 'DELETE', `/api/admin/orders/${orderId}`, { token }));
    const p = assertOk(await getOne(payment.id)) as Payment;
    assert.equal(p.order_id, null);
    assert.equal(p.order_no, orderNo);
  });
});

describe('GET /payments', () => {
  test('filters: payment_no, order_no (fuzzy), method, user, status, time range; order_by; paging', async () => {
    const a = await paidOrder(601, 10, cardId);
    const b = await paidOrder(601, 20, walletId);
    const c = await paidOrder(602, 30, walletId);
    // A failed attempt, as a payment provider integration would record it.
    const [failed] = await db().query<{ id: number }>(
      `INSERT INTO admin.payments (payment_no, order_no, user_id, payment_method_id, amount, status, created_at)
       VALUES ('PFAILED0001', $1, 602, $2, 30, 'failed', now() - interval '40 days') RETURNING id`,
      [c.orderNo, cardId],
    );
    const failedId = Number(failed!.id);
    const ids = async (q: string) => {
      const data = assertOk(await list(q));
      for (const p of data.list as Payment[]) assert.deepEqual(Object.keys(p).sort(), FIELDS);
      return (data.list as Payment[]).map((p) => p.id);
    };

    assert.deepEqual(await ids('?user_id=601'), [b.payment.id, a.payment.id]);
    assert.deepEqual(await ids(`?payment_no=${a.payment.payment_no.slice(3, 20)}`), [a.payment.id]);
    assert.deepEqual(await ids(`?order_no=${c.orderNo.slice(4)}`), [failedId, c.payment.id]);
    assert.deepEqual(await ids(`?order_no=${c.orderNo}&status=failed`), [failedId]);
    assert.deepEqual(await ids(`?order_no=${c.orderNo}&status=paid`), [c.payment.id]);
    assert.deepEqual(await ids(`?payment_method_id=${walletId}&order_by=amount:desc`), [c.payment.id, b.payment.id]);
    assert.deepEqual(await ids(`?user_id=602&payment_method_id=${cardId}`), [failedId]);
    assert.deepEqual(await ids('?status=cancelled'), []);
    assert.deepEqual(await ids('?payment_no=%25'), [], 'wildcards match themselves');

    const day = (offset: number) => {
      const d = new Date(Date.now() + offset * 86_400_000);
      return encodeURIComponent(`${d.toISOString().slice(0, 10)} 00:00:00`);
    };
    assert.deepEqual(await ids(`?user_id=602&start_time=${day(-60)}&end_time=${day(-20)}`), [failedId]);
    assert.deepEqual(await ids(`?user_id=602&start_time=${day(-1)}`), [c.payment.id]);
    assert.deepEqual(await ids(`?user_id=602&end_time=${day(-1)}`), [failedId]);
    assertError(await list(`?start_time=${day(0)}&end_time=${day(-1)}`), 400, 30001);

    assert.deepEqual(await ids('?user_id=601&order_by=id:asc'), [a.payment.id, b.payment.id]);
    for (const f of ['id', 'payment_no', 'order_no', 'user_id', 'amount', 'status', 'paid_at', 'created_at']) assertOk(await list(`?order_by=${f}:asc`));
    const page = assertOk(await list('?user_id=601&page=2&page_size=1'));
    assert.deepEqual({ total: page.total, ids: page.list.map((p: Payment) => p.id) }, { total: 2, ids: [a.payment.id] });
    for (const q of ['?status=refunded', '?order_by=config:asc', '?user_id=abc', '?payment_method_id=0', '?page_size=500', '?start_time=2025-13-01%2000:00:00']) {
      assertError(await list(q), 400, 30001);
    }
  });

  test('permissions', async () => {
    const { payment } = await paidOrder(701, 1);
    const { token: lister } = await signedInAdmin(app, { permissions: ['payment.list'] });
    assertOk(await list('', lister));
    assertError(await getOne(payment.id, lister), 403, 20001);
    const { token: viewer } = await signedInAdmin(app, { permissions: ['payment.view'] });
    assertOk(await getOne(payment.id, viewer));
    assertError(await list('', viewer), 403, 20001);
  });
});

describe('seed', () => {
  test('generates orders that obey the order rules, with details and payments for the paid ones', async () => {
    const before = await db().query<{ n: number }>('SELECT count(*)::int AS n FROM admin.orders');
    const result = await seedOrders(db(), { orders: 500, batchSize: 200, users: 50 });
    assert.equal(result.orders, 500);
    const [stats] = await db().query<{
      orders: number; statuses: number; min_items: number; max_items: number; wrong_amount: number; paid_without_payment: number;
      unpaid_with_payment: number; oldest_days: number; newest_days: number; users: number;
    }>(
      `WITH s AS (SELECT * FROM admin.orders WHERE request_id LIKE 'seed-%'),
            items AS (SELECT order_id, count(*) AS n, sum(price * quantity) AS total FROM admin.order_details GROUP BY order_id)
       SELECT count(*)::int AS orders,
              count(DISTINCT status)::int AS statuses,
              min(i.n)::int AS min_items, max(i.n)::int AS max_items,
              count(*) FILTER (WHERE i.total IS DISTINCT FROM s.amount)::int AS wrong_amount,
              count(*) FILTER (WHERE s.status = 'paid' AND (SELECT count(*) FROM admin.payments p WHERE p.order_id = s.id AND p.amount = s.amount AND p.status = 'paid' AND p.paid_at = s.paid_at) <> 1)::int AS paid_without_payment,
              count(*) FILTER (WHERE s.status <> 'paid' AND EXISTS (SELECT 1 FROM admin.payments p WHERE p.order_id = s.id))::int AS unpaid_with_payment,
              floor(extract(epoch FROM now() - min(s.created_at)) / 86400)::int AS oldest_days,
              floor(extract(epoch FROM now() - max(s.created_at)) / 86400)::int AS newest_days,
              count(DISTINCT s.user_id)::int AS users
       FROM s LEFT JOIN items i ON i.order_id = s.id`,
    );
    assert.equal(stats!.orders, 500);
    assert.equal(stats!.statuses, 3);
    assert.equal(stats!.min_items, 1);
    assert.equal(stats!.max_items, 5);
    assert.equal(stats!.wrong_amount, 0);
    assert.equal(stats!.paid_without_payment, 0);
    assert.equal(stats!.unpaid_with_payment, 0);
    assert.ok(stats!.oldest_days >= 120 && stats!.oldest_days <= 183, `oldest ${stats!.oldest_days} days`);
    assert.ok(stats!.newest_days <= 7, `newest ${stats!.newest_days} days`);
    assert.ok(stats!.users > 1 && stats!.users <= 50);
    const [after] = await db().query<{ n: number }>('SELECT count(*)::int AS n FROM admin.orders');
    assert.equal(after!.n, before[0]!.n + 500);
    // Seeded orders are served by the API like any other (the list's default window is 3 months).
    const listed = assertOk(await call(app, 'GET', '/api/admin/orders?status=paid&page_size=100', { token }));
    assert.ok(listed.total > 0);
    const sample = listed.list[0];
    const detail = assertOk(await call(app, 'GET', `/api/admin/orders/0?order_no=${sample.order_no}`, { token }));
    const cents = detail.details.reduce((sum: number, d: { price: number; quantity: number }) => sum + Math.round(d.price * 100) * d.quantity, 0);
    assert.equal(cents, Math.round(detail.order.amount * 100));
  });
});
