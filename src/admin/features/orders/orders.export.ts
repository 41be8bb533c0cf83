// The `orders` export kind: the orders matching the list filters, written as the orders CSV
// (orders.csv.ts) by PostgreSQL itself. One SELECT formats every cell (display times, the
// formula guard, the products as JSON) and `COPY (SELECT …) TO STDOUT` streams it to the
// file: no per-row work in Node, memory bounded by the stream buffers. On PGlite, which cannot
// stream COPY, the same SELECT is copied in keyset pages of PGLITE_PAGE rows. The filters are
// the orders list's declaration (`ordersList`, orders.service.ts); the statements are Drizzle
// SQL rendered as text with `$n` parameters (`rendered`), which COPY quotes into its text.
import { and, sql, type SQL } from 'drizzle-orm';
import type { Static } from 'typebox';
import type { Database } from '../../../platform/db/database.ts';
import { rendered } from '../../../platform/db/statements.ts';
import type { CsvExportKind } from '../../../platform/jobs/export-kinds.ts';
import { orderDetails, orders } from '../../db/schema.ts';
import type { DataScope } from '../../kernel/data-scope.ts';
import { ORDER_CSV_COLUMNS } from './orders.csv.ts';
import type { OrderExportQuery, OrderOrderField } from './orders.schema.ts';
import { ORDER_RANGE_MONTHS, orderFilterValues, ordersList, type OrdersList } from './orders.service.ts';

export const ORDERS_EXPORT_KIND = 'orders';
export const EXPORT_MAX_MONTHS = ORDER_RANGE_MONTHS;
const PGLITE_PAGE = 5000;

/**
 * What is queued with the task: the request, and the time it was made, so that a default
 * time range ("the last 3 months") means the same when the worker runs it.
 */
export type OrderExportParams = Static<typeof OrderExportQuery> & { requested_at: string; scope?: DataScope };

/**
 * The task parameters of a request, with the caller's data scope when it is not `all` (the file
 * holds what the caller could list); invalid filters (a range over 3 months…) throw InvalidInput (400).
 */
export function orderExportParams(q: Static<typeof OrderExportQuery>, tz: string, scope: DataScope, now = new Date()): OrderExportParams {
  orderFilterValues(q, tz, now);
  const params: OrderExportParams = { order_by: q.order_by, requested_at: now.toISOString(), ...(scope.all ? {} : { scope }) };
  for (const key of ['user_id', 'order_no', 'status', 'min_amount', 'max_amount', 'start_time', 'end_time'] as const) {
    if (q[key] !== undefined) Object.assign(params, { [key]: q[key] });
  }
  return params;
}

/**
 * The sort key of each order_by field, with the type its text form casts back to (keyset
 * pages). The order is the list's: ties by id, unpaid orders last either way.
 */
const SORT_KEYS: Record<Exclude<OrderOrderField, 'paid_at'>, { expr: SQL; type: string }> = {
  id: { expr: sql`${orders.id}`, type: 'bigint' },
  order_no: { expr: sql`${orders.orderNo}`, type: 'text' },
  user_id: { expr: sql`${orders.userId}`, type: 'bigint' },
  amount: { expr: sql`${orders.amount}`, type: 'numeric' },
  status: { expr: sql`${orders.status}`, type: 'text' },
  created_at: { expr: sql`${orders.createdAt}`, type: 'timestamptz' },
  updated_at: { expr: sql`${orders.updatedAt}`, type: 'timestamptz' },
};

function sortOf(orderBy: string): { expr: SQL; type: string; direction: 'asc' | 'desc' } {
  const [field, direction] = orderBy.split(':') as [OrderOrderField, 'asc' | 'desc'];
  if (field === 'paid_at') {
    return { expr: sql`coalesce(${orders.paidAt}, ${sql.raw(`'${direction === 'asc' ? '' : '-'}infinity'`)}::timestamptz)`, type: 'timestamptz', direction };
  }
  return { ...SORT_KEYS[field], direction };
}

/** Text that a spreadsheet would run as a formula gets a leading quote (reversibly, see csv.ts). */
const guard = (x: SQL) => sql`CASE WHEN left(ltrim(${x}, ''''), 1) IN ('=', '+', '-', '@', chr(9), chr(13)) THEN '''' || ${x} ELSE ${x} END`;

/** The cells of ORDER_CSV_COLUMNS, in that order. */
function selectList(tz: string): SQL {
  const display = (x: SQL) => sql`to_char(${x} AT TIME ZONE ${tz}::text, 'YYYY-MM-DD HH24:MI:SS')`;
  const d = orderDetails;
  const cells: Record<(typeof ORDER_CSV_COLUMNS)[number], SQL> = {
    order_no: guard(sql`${orders.orderNo}`),
    request_id: guard(sql`${orders.requestId}`),
    user_id: sql`${orders.userId}`,
    amount: sql`${orders.amount}`,
    status: sql`${orders.status}`,
    paid_at: display(sql`${orders.paidAt}`),
    created_at: display(sql`${orders.createdAt}`),
    products: sql`(SELECT json_agg(json_build_object('product_id', ${d.productId}, 'product_name', ${d.productName}, 'price', ${d.price}, 'quantity', ${d.quantity}) ORDER BY ${d.id})
      FROM ${d} WHERE ${d.orderId} = ${orders.id})`,
  };
  return sql.join(ORDER_CSV_COLUMNS.map((c) => cells[c]), sql`,\n  `);
}

interface Key {
  key: string;
  id: number;
}

/** The list's filters and, for PGlite pages, the keyset range after `after` and up to `through`. */
function whereOf(list: OrdersList, p: OrderExportParams, tz: string, range: { after?: Key | undefined; through?: Key | undefined }) {
  const values = { ...orderFilterValues(p, tz, new Date(p.requested_at)), scope: p.scope };
  const sort = sortOf(p.order_by);
  const [after, through] = sort.direction === 'asc' ? ['>', '<='] : ['<', '>='];
  const keyset = (op: string, k: Key | undefined) =>
    k && sql`(${sort.expr}, ${orders.id}) ${sql.raw(op)} (${k.key}::${sql.raw(sort.type)}, ${k.id}::bigint)`;
  const params = list.params(values);
  return {
    where: and(list.where(values, params), keyset(after, range.after), keyset(through, range.through)),
    params,
    orderBy: sql`${sort.expr} ${sql.raw(sort.direction)}, ${orders.id} ${sql.raw(sort.direction)}`,
    sort,
  };
}

/** The export's SELECT: the CSV cells of the matching orders, in order (also the bench's COPY reference). */
export function orderExportSelect(list: OrdersList, p: OrderExportParams, tz: string, range: { after?: Key | undefined; through?: Key | undefined } = {}) {
  const w = whereOf(list, p, tz, range);
  const { text, params } = rendered(sql`SELECT ${selectList(tz)}
FROM ${orders}
WHERE ${w.where}
ORDER BY ${w.orderBy}`, w.params.values);
  return { text, values: params };
}

/** The sort key of the last order of the next PGlite page, or undefined when the rest fits in one. */
async function pageEnd(db: Database, list: OrdersList, p: OrderExportParams, tz: string, after: Key | undefined): Promise<Key | undefined> {
  const w = whereOf(list, p, tz, { after });
  const { text, params } = rendered(sql`SELECT (${w.sort.expr})::text AS key, ${orders.id} AS id FROM ${orders} WHERE ${w.where}
     ORDER BY ${w.orderBy} OFFSET ${sql.raw(String(PGLITE_PAGE - 1))} LIMIT 1`, w.params.values);
  // Raw: the keyset of the export's own SELECT (its filter text is the one COPY runs).
  const [row] = await db.query<Key>(text, params);
  return row;
}

export function ordersExportKind(db: Database, tz: string): CsvExportKind {
  const list = ordersList(db.orm);
  return {
    header: ORDER_CSV_COLUMNS,
    async *csv(raw, signal) {
      const p = raw as unknown as OrderExportParams;
      if (db.kind === 'postgres') {
        const { text, values } = orderExportSelect(list, p, tz);
        yield* db.copyOut(text, values);
        return;
      }
      let after: Key | undefined;
      for (;;) {
        signal.throwIfAborted();
        const through = await pageEnd(db, list, p, tz, after);
        const { text, values } = orderExportSelect(list, p, tz, { after, through });
        yield* db.copyOut(text, values);
        if (!through) return;
        after = through;
      }
    },
  };
}
