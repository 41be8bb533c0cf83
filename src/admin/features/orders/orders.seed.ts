// Demo and benchmark data: realistic orders with 1 to 5 detail rows each, created over the
// last ~6 months, 60 % paid (each with its payment record), 25 % pending, 15 % cancelled,
// and a few payment methods. Generated inside the database (INSERT … SELECT over
// generate_series, one statement per batch for orders, details and payments), so a million
// orders take seconds to minutes rather than a million round trips. Every order obeys the
// rules of POST /orders: amount = sum(price × quantity), prices with 2 decimals.
import type { Database } from '../../../platform/db/database.ts';
import { isUniqueViolation } from '../../../platform/db/errors.ts';

export const SEED_METHODS = [
  { name: 'Alipay', code: 'alipay', type: 'wallet', sort: 1, config: { app_id: 'demo-app', private_key: 'demo-private-key', gateway: 'https://openapi.alipay.com/gateway.do' } },
  { name: 'WeChat Pay', code: 'wechat_pay', type: 'wallet', sort: 2, config: { mch_id: 'demo-mch', api_v3_key: 'demo-api-key' } },
  { name: 'Credit card', code: 'card', type: 'card', sort: 3, config: { provider: 'demo', secret_key: 'demo-secret' } },
  { name: 'Bank transfer', code: 'bank_transfer', type: 'offline', sort: 4, config: { account: 'DE00 0000 0000 0000 0000 00' } },
] as const;

const PRODUCTS = ['Coffee beans', 'Green tea', 'Notebook', 'Desk lamp', 'USB cable', 'Water bottle', 'Backpack', 'Headphones', 'Keyboard', 'Mouse pad'];

export interface SeedOptions {
  orders: number;
  batchSize?: number;
  /** Distinct customers the orders are spread over. */
  users?: number;
  onProgress?: (done: number, total: number) => void;
}

/*
 * One batch: $1..$2 are the order numbers g of this batch, $3 the run tag (request_id prefix),
 * $4 the number of users, $5 the payment method ids. Per order g, deterministic from g:
 * the item count (1..5), each item's product, price (1.00..500.99) and quantity (1..4);
 * random: the creation time (last 183 days), the status and the time of payment.
 */
const BATCH_SQL = `
WITH src AS (
  SELECT g,
         1 + (abs(hashint8(g)) % 5)::int AS n_items,
         now() - random() * interval '183 days' AS created,
         random() AS r
  FROM generate_series($1::bigint, $2::bigint) AS g
), priced AS (
  SELECT s.*,
         (SELECT sum(((abs(hashint8(s.g * 8 + i)) % 50000) + 100)::numeric / 100 * (1 + abs(hashint8(s.g * 8 + i + 4)) % 4))
          FROM generate_series(1, s.n_items) AS i) AS amount,
         CASE WHEN s.r < 0.60 THEN 'paid' WHEN s.r < 0.85 THEN 'pending' ELSE 'cancelled' END AS status,
         least(now(), s.created + random() * interval '2 hours') AS settled
  FROM src s
), o AS (
  INSERT INTO admin.orders (order_no, request_id, user_id, amount, status, paid_at, created_at, updated_at)
  SELECT to_char(created AT TIME ZONE 'UTC', 'YYYYMMDDHH24MISSMS') || lpad(floor(random() * 1e10)::bigint::text, 10, '0'),
         $3 || g, 1 + abs(hashint8(g + 7)) % $4::int, amount, status,
         CASE WHEN status = 'paid' THEN settled END,
         created,
         CASE WHEN status = 'pending' THEN created ELSE settled END
  FROM priced
  ORDER BY created
  RETURNING id, order_no, request_id, user_id, amount, status, paid_at, created_at
), d AS (
  INSERT INTO admin.order_details (order_id, product_id, product_name, price, quantity)
  SELECT o.id, p.product_id, ($6::text[])[1 + (p.product_id - 1) % array_length($6::text[], 1)] || ' #' || p.product_id, p.price, p.quantity
  FROM o
  CROSS JOIN LATERAL (SELECT substring(o.request_id FROM '[0-9]+$')::bigint AS g) AS k
  CROSS JOIN LATERAL generate_series(1, 1 + (abs(hashint8(k.g)) % 5)::int) AS i
  CROSS JOIN LATERAL (
    SELECT 1 + abs(hashint8(k.g * 8 + i + 2)) % 500 AS product_id,
           ((abs(hashint8(k.g * 8 + i)) % 50000) + 100)::numeric / 100 AS price,
           (1 + abs(hashint8(k.g * 8 + i + 4)) % 4)::int AS quantity
  ) AS p
  RETURNING order_id
)
-- d is not read below: PostgreSQL runs every data-modifying WITH clause to completion anyway.
INSERT INTO admin.payments (payment_no, order_id, order_no, user_id, payment_method_id, amount, status, paid_at, created_at, updated_at)
SELECT 'P' || to_char(o.paid_at AT TIME ZONE 'UTC', 'YYYYMMDDHH24MISSMS') || lpad(floor(random() * 1e10)::bigint::text, 10, '0'),
       o.id, o.order_no, o.user_id, ($5::bigint[])[1 + abs(hashint8(o.id)) % array_length($5::bigint[], 1)], o.amount, 'paid', o.paid_at, o.paid_at, o.paid_at
FROM o WHERE o.status = 'paid'`;

/** Inserts the demo payment methods that are missing (by code); returns the ids of all active methods. */
export async function seedPaymentMethods(db: Database): Promise<number[]> {
  for (const m of SEED_METHODS) {
    await db.query(
      `INSERT INTO admin.payment_methods (name, code, type, config, sort, description)
       VALUES ($1, $2, $3, $4::jsonb, $5, 'demo data') ON CONFLICT DO NOTHING`,
      [m.name, m.code, m.type, JSON.stringify(m.config), m.sort],
    );
  }
  const rows = await db.query<{ id: number }>('SELECT id FROM admin.payment_methods WHERE is_active ORDER BY sort, id');
  return rows.map((r) => Number(r.id));
}

/** Adds `orders` orders (with details and payments) in batches, each batch one transaction. */
export async function seedOrders(db: Database, opts: SeedOptions): Promise<{ orders: number; ms: number }> {
  const started = performance.now();
  const batchSize = opts.batchSize ?? 50_000;
  const methods = await seedPaymentMethods(db);
  if (methods.length === 0) throw new Error('no active payment method to pay seeded orders with');
  const tag = `seed-${Date.now().toString(36)}-`;
  let done = 0;
  while (done < opts.orders) {
    const n = Math.min(batchSize, opts.orders - done);
    for (let attempt = 1; ; attempt++) {
      try {
        await db.transaction((tx) => tx.query(BATCH_SQL, [done + 1, done + n, tag, opts.users ?? 100_000, methods, PRODUCTS]));
        break;
      } catch (err) {
        // A random order or payment number met an existing one: the batch is rolled back; redo it.
        if (isUniqueViolation(err) && attempt < 3) continue;
        throw err;
      }
    }
    done += n;
    opts.onProgress?.(done, opts.orders);
  }
  // Fresh statistics and visibility map: the planner and index-only scans see the new rows (and
  // the dashboard's sums, which the batches' triggers kept: migration 0019).
  for (const table of ['orders', 'order_details', 'payments', 'business_orders_daily', 'business_payments_daily', 'business_products_daily']) {
    await db.query(`VACUUM ANALYZE admin.${table}`);
  }
  return { orders: done, ms: performance.now() - started };
}
