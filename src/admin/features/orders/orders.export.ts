// The `orders` export kind: the orders matching the list filters, written as the orders CSV
// (orders.csv.ts) by PostgreSQL itself. One SELECT formats every cell (display times, the
// formula guard, the products as JSON) and `COPY (SELECT …) TO STDOUT` streams it to the
// file: no per-row work in Node, memory bounded by the stream buffers. On PGlite, which cannot
// stream COPY, the same SELECT is copied in keyset pages of PGLITE_PAGE rows.
import type { Static } from 'typebox';
import type { Database } from '../../../platform/db/database.ts';
import type { CsvExportKind } from '../../../platform/jobs/export-tasks.ts';
import { ORDER_CSV_COLUMNS } from './orders.csv.ts';
import type { OrderExportQuery, OrderOrderField } from './orders.schema.ts';
import { ORDER_RANGE_MONTHS, orderFilter } from './orders.service.ts';

export const ORDERS_EXPORT_KIND = 'orders';
export const EXPORT_MAX_MONTHS = ORDER_RANGE_MONTHS;
const PGLITE_PAGE = 5000;

/**
 * What is queued with the task: the request, and the time it was made, so that a default
 * time range ("the last 3 months") means the same when the worker runs it.
 */
export type OrderExportParams = Static<typeof OrderExportQuery> & { requested_at: string };

/** The task parameters of a request; invalid filters (a range over 3 months…) throw InvalidInput (400). */
export function orderExportParams(q: Static<typeof OrderExportQuery>, tz: string, now = new Date()): OrderExportParams {
  orderFilter(q, tz, 1, now);
  const params: OrderExportParams = { order_by: q.order_by, requested_at: now.toISOString() };
  for (const key of ['user_id', 'order_no', 'status', 'min_amount', 'max_amount', 'start_time', 'end_time'] as const) {
    if (q[key] !== undefined) Object.assign(params, { [key]: q[key] });
  }
  return params;
}

/**
 * The sort key of each order_by field, with the type its text form casts back to (keyset
 * pages). The order is the list's (orderSort): ties by id, unpaid orders last either way.
 */
const SORT_KEYS: Record<Exclude<OrderOrderField, 'paid_at'>, { expr: string; type: string }> = {
  id: { expr: 'o.id', type: 'bigint' },
  order_no: { expr: 'o.order_no', type: 'text' },
  user_id: { expr: 'o.user_id', type: 'bigint' },
  amount: { expr: 'o.amount', type: 'numeric' },
  status: { expr: 'o.status', type: 'text' },
  created_at: { expr: 'o.created_at', type: 'timestamptz' },
  updated_at: { expr: 'o.updated_at', type: 'timestamptz' },
};

function sortOf(orderBy: string): { expr: string; type: string; direction: 'asc' | 'desc' } {
  const [field, direction] = orderBy.split(':') as [OrderOrderField, 'asc' | 'desc'];
  if (field === 'paid_at') {
    return { expr: `coalesce(o.paid_at, '${direction === 'asc' ? '' : '-'}infinity'::timestamptz)`, type: 'timestamptz', direction };
  }
  return { ...SORT_KEYS[field], direction };
}

/** Text that a spreadsheet would run as a formula gets a leading quote (reversibly, see csv.ts). */
const guard = (x: string) => `CASE WHEN left(ltrim(${x}, ''''), 1) IN ('=', '+', '-', '@', chr(9), chr(13)) THEN '''' || ${x} ELSE ${x} END`;

/** The cells of ORDER_CSV_COLUMNS, in that order. */
function selectList(tz: string): string {
  const display = (x: string) => `to_char(${x} AT TIME ZONE ${tz}, 'YYYY-MM-DD HH24:MI:SS')`;
  const cells: Record<(typeof ORDER_CSV_COLUMNS)[number], string> = {
    order_no: guard('o.order_no'),
    request_id: guard('o.request_id'),
    user_id: 'o.user_id',
    amount: 'o.amount',
    status: 'o.status',
    paid_at: display('o.paid_at'),
    created_at: display('o.created_at'),
    products: `(SELECT json_agg(json_build_object('product_id', d.product_id, 'product_name', d.product_name, 'price', d.price, 'quantity', d.quantity) ORDER BY d.id)
      FROM admin.order_details d WHERE d.order_id = o.id)`,
  };
  return ORDER_CSV_COLUMNS.map((c) => cells[c]).join(',\n  ');
}

interface Key {
  key: string;
  id: number;
}

/** The filters (the list's WHERE clause, shared) and, for PGlite pages, the keyset range after `after` and up to `through`. */
function whereOf(p: OrderExportParams, tz: string, range: { after?: Key | undefined; through?: Key | undefined }) {
  const filter = orderFilter(p, tz, 1, new Date(p.requested_at));
  const values = [...filter.params];
  const param = (v: unknown) => `$${values.push(v)}`;
  const sort = sortOf(p.order_by);
  const where = [filter.where];
  const at = (k: Key) => `(${param(k.key)}::${sort.type}, ${param(k.id)}::bigint)`;
  const [after, through] = sort.direction === 'asc' ? ['>', '<='] : ['<', '>='];
  if (range.after) where.push(`(${sort.expr}, o.id) ${after} ${at(range.after)}`);
  if (range.through) where.push(`(${sort.expr}, o.id) ${through} ${at(range.through)}`);
  return { where: where.join(' AND '), values, param, orderBy: `${sort.expr} ${sort.direction}, o.id ${sort.direction}`, sort };
}

/** The export's SELECT: the CSV cells of the matching orders, in order (also the bench's COPY reference). */
export function orderExportSelect(p: OrderExportParams, tz: string, range: { after?: Key | undefined; through?: Key | undefined } = {}) {
  const w = whereOf(p, tz, range);
  const text = `SELECT ${selectList(`${w.param(tz)}::text`)}
FROM admin.orders o
WHERE ${w.where}
ORDER BY ${w.orderBy}`;
  return { text, values: w.values };
}

/** The sort key of the last order of the next PGlite page, or undefined when the rest fits in one. */
async function pageEnd(db: Database, p: OrderExportParams, tz: string, after: Key | undefined): Promise<Key | undefined> {
  const w = whereOf(p, tz, { after });
  // Raw: the keyset of the export's own SELECT (its filter text is the one COPY runs).
  const [row] = await db.query<{ key: string; id: number }>(
    `SELECT (${w.sort.expr})::text AS key, o.id FROM admin.orders o WHERE ${w.where}
     ORDER BY ${w.orderBy} OFFSET ${PGLITE_PAGE - 1} LIMIT 1`,
    w.values,
  );
  return row;
}

export function ordersExportKind(db: Database, tz: string): CsvExportKind {
  return {
    header: ORDER_CSV_COLUMNS,
    async *csv(raw, signal) {
      const p = raw as unknown as OrderExportParams;
      if (db.kind === 'postgres') {
        const { text, values } = orderExportSelect(p, tz);
        yield* db.copyOut(text, values);
        return;
      }
      let after: Key | undefined;
      for (;;) {
        signal.throwIfAborted();
        const through = await pageEnd(db, p, tz, after);
        const { text, values } = orderExportSelect(p, tz, { after, through });
        yield* db.copyOut(text, values);
        if (!through) return;
        after = through;
      }
    },
  };
}

