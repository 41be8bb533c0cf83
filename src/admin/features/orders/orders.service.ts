// Orders (DESIGN §7.8): create (idempotent on request_id), list, detail, status moves, delete.
//
// - An order and its detail rows are written by one INSERT … INSERT statement, which is one
//   transaction: both or neither. A duplicate request_id is refused by the unique index
//   (ON CONFLICT DO NOTHING waits for a concurrent insert of the same key and then yields
//   nothing), so under any concurrency exactly one order exists per request_id.
// - Money is checked in integer cents (orders.rules.ts) and stored as numeric(12,2); the
//   database does the rest of the arithmetic.
// - `pending → paid | cancelled` only. Marking paid locks the order, picks the payment method
//   and writes the payment record in the same transaction, so an order is paid at most once.
import { randomUUID } from 'node:crypto';
import { and, asc, eq, getTableColumns, gte, ilike, lte, sql, type Placeholder } from 'drizzle-orm';
import type { Static } from 'typebox';
import type { Database, Executor, Orm } from '../../../platform/db/database.ts';
import type { Config } from '../../../platform/config.ts';
import { isUniqueViolation } from '../../../platform/db/errors.ts';
import { contains } from '../../../platform/db/like.ts';
import { atOrAfter, atOrBefore, pagedList, type FilterValues } from '../../../platform/db/list.ts';
import { p } from '../../../platform/db/statements.ts';
import { AppError, InvalidInput } from '../../../platform/http/errors.ts';
import { parseTimeRange } from '../../../platform/http/schemas.ts';
import { addMonths } from '../../../platform/time.ts';
import { admins, orderDetails, orders, paymentMethods, payments, type OrderDetailRow, type OrderRow, type OrderStatus, type PaymentRow } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import { inScope, scopeCondition, scopeFilter, scopeValues, type DataScope } from '../../kernel/data-scope.ts';
import { newPaymentNo } from '../../kernel/payment-records.ts';
import { checkOrder, newOrderNo } from './orders.rules.ts';
import type { CreateOrderBody, OrderListQuery, OrderOrderField } from './orders.schema.ts';
import { msg, type Msg } from '../../../platform/i18n.ts';

export { newOrderNo, orderProblems } from './orders.rules.ts';

/** The longest time range of the list and the export, and the default window. */
export const ORDER_RANGE_MONTHS = 3;
const INSERT_ATTEMPTS = 3;

export type OrderListInput = Static<typeof OrderListQuery>;
/** The filters of the list, which the CSV export shares. */
type OrderFilter = Omit<OrderListInput, 'page' | 'page_size' | 'order_by'>;

/** An order is found by `order_no` when given, else by id (the contract's lookup rule). */
export interface OrderLookup {
  id: string | number;
  order_no?: string | undefined;
}

/** admin.orders as the create's statement returns it: the columns named and typed as in OrderRow. */
const ORDER_COLUMNS = `id, order_no AS "orderNo", request_id AS "requestId", user_id AS "userId", amount::text AS amount, status,
  created_by AS "createdBy", department_id AS "departmentId", paid_at AS "paidAt", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** An order as read: its row and its creator's name (null when none, or that administrator was deleted). */
export type OrderView = OrderRow & { createdByName: string | null };

/** The creator's name: the nickname, or the username when the nickname is empty (over admin.admins). */
const CREATOR_NAME = sql<string | null>`coalesce(nullif(${admins.nickname}, ''), ${admins.username})`;

/**
 * The filter values of the list and the CSV export: the time range resolved (both ends at most
 * 3 months apart; only `start_time`: the 3 months from it; only `end_time`: the 3 months up to
 * it; neither: the last 3 months). Invalid input throws InvalidInput (400, 30001).
 */
export function orderFilterValues(q: OrderFilter, tz: string, now = new Date()): FilterValues<OrderFilters> {
  let { from, to } = parseTimeRange(q, tz, ORDER_RANGE_MONTHS);
  if (from && !to) to = addMonths(from, ORDER_RANGE_MONTHS);
  else if (!from && to) from = addMonths(to, -ORDER_RANGE_MONTHS);
  else if (!from && !to) from = addMonths(now, -ORDER_RANGE_MONTHS);
  if (q.min_amount !== undefined && q.max_amount !== undefined && q.min_amount > q.max_amount) {
    throw new InvalidInput(msg('admin.orders.amountRangeReversed'), 'min_amount');
  }
  return { ...q, from, to };
}

const orderFilters = {
  from: atOrAfter(orders.createdAt),
  to: atOrBefore(orders.createdAt),
  status: (x: Placeholder) => eq(orders.status, x),
  user_id: (x: Placeholder) => eq(orders.userId, x),
  order_no: { param: contains, where: (x: Placeholder) => ilike(orders.orderNo, x) },
  // Numbers go to numeric as their decimal text: no binary rounding on the way.
  min_amount: { param: (n: number) => String(n), where: (x: Placeholder) => gte(orders.amount, sql`${x}::numeric`) },
  max_amount: { param: (n: number) => String(n), where: (x: Placeholder) => lte(orders.amount, sql`${x}::numeric`) },
  // The caller's data scope: the creator's department when the order was made, or the creator.
  scope: scopeFilter(orders.departmentId, orders.createdBy),
};
type OrderFilters = typeof orderFilters;

/**
 * The orders list, whose filters the CSV export shares. The creator's name is a correlated
 * subquery (run for the page's rows only, after the sort and limit), so the count reads the
 * orders alone; its column comparison is a nested condition, which Drizzle keeps qualified.
 */
export const ordersList = (orm: Orm, countLimit?: number) =>
  pagedList(orm, {
    name: 'orders',
    countLimit,
    rows: (orm) => orm.select({
      ...getTableColumns(orders),
      createdByName: sql<string | null>`(SELECT ${CREATOR_NAME} FROM ${admins} WHERE ${eq(admins.id, orders.createdBy)})`,
    }).from(orders).$dynamic(),
    table: orders,
    filters: orderFilters,
    sort: {
      id: orders.id,
      order_no: orders.orderNo,
      user_id: orders.userId,
      amount: orders.amount,
      status: orders.status,
      created_at: orders.createdAt,
      updated_at: orders.updatedAt,
      paid_at: orders.paidAt,
    } satisfies Record<OrderOrderField, unknown>,
    id: orders.id,
    nullsLast: ['paid_at'],
  });
export type OrdersList = ReturnType<typeof ordersList>;

// Raw: one statement writes the order and its details (a CTE write), on the hot POST /orders.
const CREATE_SQL = `
WITH o AS (
  INSERT INTO admin.orders (order_no, request_id, user_id, amount, created_by, department_id)
  VALUES ($1, $2, $3, $4::numeric, $5, (SELECT department_id FROM admin.admins WHERE id = $5))
  ON CONFLICT (request_id) DO NOTHING
  RETURNING ${ORDER_COLUMNS}
), d AS (
  INSERT INTO admin.order_details (order_id, product_id, product_name, price, quantity)
  SELECT o.id, x.product_id, x.product_name, x.price, x.quantity
  FROM o CROSS JOIN ROWS FROM (
    jsonb_to_recordset($6::jsonb) AS (product_id bigint, product_name text, price numeric, quantity integer)
  ) WITH ORDINALITY AS x (product_id, product_name, price, quantity, n)
  ORDER BY x.n
  RETURNING id, order_id, product_id, product_name, price::text AS price, quantity
)
SELECT o.*, (SELECT coalesce(nullif(a.nickname, ''), a.username) FROM admin.admins a WHERE a.id = o."createdBy") AS "createdByName",
  d.id AS d_id, d.product_id AS d_product_id, d.product_name AS d_product_name, d.price AS d_price, d.quantity AS d_quantity
FROM o JOIN d ON d.order_id = o.id
ORDER BY d.id`;

type CreatedRow = OrderView & { d_id: number; d_product_id: number; d_product_name: string; d_price: string; d_quantity: number };

/**
 * The reads of POST /orders (the order holding a request_id: placeholder `request_id`) and of
 * the detail (an order and its details by `order_no` or by `id`), built once.
 */
const inOrdersScope = scopeCondition(orders.departmentId, orders.createdBy);

const readStatements = (orm: Orm) => {
  const withDetails = () => orm.select({ orders, order_details: orderDetails, createdByName: CREATOR_NAME }).from(orders)
    .leftJoin(orderDetails, eq(orderDetails.orderId, orders.id))
    .leftJoin(admins, eq(admins.id, orders.createdBy));
  return {
    byRequestId: orm.select({ orderNo: orders.orderNo }).from(orders).where(eq(orders.requestId, p('request_id'))).prepare('order_by_request_id'),
    detail: {
      order_no: withDetails().where(and(eq(orders.orderNo, p('key')), inOrdersScope)).orderBy(asc(orderDetails.id)).prepare('order_detail_by_no'),
      id: withDetails().where(and(eq(orders.id, p('key')), inOrdersScope)).orderBy(asc(orderDetails.id)).prepare('order_detail_by_id'),
    },
  };
};

export class OrdersService {
  private readonly db: Database;
  private readonly tz: string;
  private readonly reads: ReturnType<typeof readStatements>;
  private readonly orders: OrdersList;
  constructor(deps: { db: Database; config: Config }) {
    this.db = deps.db;
    this.tz = deps.config.DISPLAY_TIMEZONE;
    this.reads = readStatements(this.db.orm);
    this.orders = ordersList(this.db.orm, deps.config.LIST_COUNT_LIMIT);
  }

  /**
   * Creates an order and its details. Refuses (400) input that breaks the rules and a
   * request_id already used (30002, naming the existing order).
   */
  async create(input: Static<typeof CreateOrderBody>, createdBy: number | null): Promise<{ order: OrderView; details: OrderDetailRow[] }> {
    const checked = checkOrder(input);
    if (!checked.ok) throw new AppError(E.VALIDATION, { detail: checked.problems });
    const { order } = checked;
    const requestId = order.request_id ?? randomUUID();
    const products = JSON.stringify(order.products);
    for (let attempt = 1; ; attempt++) {
      let rows: CreatedRow[];
      try {
        rows = await this.db.query<CreatedRow>(CREATE_SQL, [newOrderNo(), requestId, order.user_id, order.amount, createdBy, products]);
      } catch (err) {
        // request_id conflicts are absorbed by ON CONFLICT: this is an order_no collision.
        if (isUniqueViolation(err) && attempt < INSERT_ATTEMPTS) continue;
        throw err;
      }
      if (rows.length > 0) {
        const first = rows[0]!;
        const details = rows.map((r) => ({ id: r.d_id, orderId: first.id, productId: r.d_product_id, productName: r.d_product_name, price: r.d_price, quantity: r.d_quantity }));
        const { d_id: _a, d_product_id: _b, d_product_name: _c, d_price: _d, d_quantity: _e, ...orderRow } = first;
        return { order: orderRow, details };
      }
      const [existing] = await this.reads.byRequestId.execute({ request_id: requestId });
      if (existing) {
        throw new AppError(E.ALREADY_EXISTS, {
          detail: msg('admin.orders.requestIdUsed', { requestId, orderNo: existing.orderNo }),
          details: { field: 'request_id', order_no: existing.orderNo },
        });
      }
      // The order holding that request_id was deleted meanwhile: the key is free again.
      if (attempt >= INSERT_ATTEMPTS) throw new AppError(E.CREATE_FAILED, { detail: msg('admin.orders.writeFailed') });
    }
  }

  /** The orders of the caller's data scope matching the filters. */
  async list(q: OrderListInput, scope: DataScope): Promise<{ rows: OrderView[]; total: number; capped: boolean }> {
    return this.orders.page({ ...orderFilterValues(q, this.tz), scope }, q);
  }

  /** The order and its details (one statement, one snapshot); outside the caller's scope, 404. */
  async get(lookup: OrderLookup, scope: DataScope): Promise<{ order: OrderView; details: OrderDetailRow[] }> {
    const { by, key, label } = lookupOf(lookup);
    const rows = await this.reads.detail[by].execute({ key, ...scopeValues(scope) });
    const first = rows[0];
    if (!first) throw notFound(label);
    return { order: { ...first.orders, createdByName: first.createdByName }, details: rows.flatMap((r) => (r.order_details ? [r.order_details] : [])) };
  }

  /**
   * Moves a pending order to `paid` (writing its payment record) or `cancelled`. Anything
   * else is refused with 40003; an unknown or inactive payment method with 30001.
   */
  async setStatus(lookup: OrderLookup, scope: DataScope, status: OrderStatus, paymentMethodId?: number): Promise<{ order: OrderView; details: OrderDetailRow[]; payment: PaymentRow | null }> {
    if (paymentMethodId !== undefined && status !== 'paid') {
      throw new AppError(E.VALIDATION, { detail: msg('admin.orders.paymentMethodOnlyWhenPaid'), details: { field: 'payment_method_id' } });
    }
    const { where, label } = lookupOf(lookup, scope);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.db.transaction(async (tx) => {
          const [current] = await tx.orm.select({ id: orders.id, orderNo: orders.orderNo, status: orders.status }).from(orders).where(where).for('update');
          if (!current) throw notFound(label);
          if (current.status !== 'pending' || status === 'pending') {
            throw new AppError(E.UPDATE_FAILED, {
              detail: msg('admin.orders.notPending', { orderNo: current.orderNo, status: current.status }),
              details: { field: 'status', current: current.status },
            });
          }
          const methodId = status === 'paid' ? await paymentMethodFor(tx, paymentMethodId) : null;
          const [order] = await tx.orm.update(orders)
            .set({ status, paidAt: status === 'paid' ? sql`now()` : null, updatedAt: sql`now()` })
            .where(eq(orders.id, current.id))
            .returning();
          let payment: PaymentRow | null = null;
          if (methodId !== null) {
            [payment] = await tx.orm.insert(payments).values({
              paymentNo: newPaymentNo(),
              orderId: order!.id,
              orderNo: order!.orderNo,
              userId: order!.userId,
              paymentMethodId: methodId,
              amount: order!.amount,
              status: 'paid',
              createdBy: order!.createdBy,
              departmentId: order!.departmentId,
              // now() is the transaction's start: the order's paid_at to the microsecond.
              paidAt: sql`now()`,
            }).returning() as [PaymentRow];
          }
          const details = await tx.orm.select().from(orderDetails).where(eq(orderDetails.orderId, current.id)).orderBy(asc(orderDetails.id));
          const [creator] = order!.createdBy === null ? [] : await tx.orm.select({ name: CREATOR_NAME }).from(admins).where(eq(admins.id, order!.createdBy));
          return { order: { ...order!, createdByName: creator?.name ?? null }, details, payment };
        });
      } catch (err) {
        // A payment_no collision rolls the whole move back; it is simply tried again.
        if (isUniqueViolation(err) && attempt < INSERT_ATTEMPTS) continue;
        throw err;
      }
    }
  }

  /** Deletes an order and its detail rows in one transaction; payment records stay (order_id becomes null). */
  async remove(lookup: OrderLookup, scope: DataScope): Promise<{ id: number; order_no: string; details_deleted: number }> {
    const { where, label } = lookupOf(lookup, scope);
    return this.db.transaction(async (tx) => {
      const [order] = await tx.orm.select({ id: orders.id, orderNo: orders.orderNo }).from(orders).where(where).for('update');
      if (!order) throw notFound(label);
      const deleted = await tx.orm.delete(orderDetails).where(eq(orderDetails.orderId, order.id)).returning({ id: orderDetails.id });
      await tx.orm.delete(orders).where(eq(orders.id, order.id));
      return { id: order.id, order_no: order.orderNo, details_deleted: deleted.length };
    });
  }
}

/**
 * The order's condition (within `scope` when given), and the column (`by`) and value (`key`) it
 * compares, for the detail's statements.
 */
function lookupOf(lookup: OrderLookup, scope?: DataScope) {
  const within = scope && inScope(scope, orders.departmentId, orders.createdBy);
  if (lookup.order_no) {
    return { where: and(eq(orders.orderNo, lookup.order_no), within)!, by: 'order_no' as const, key: lookup.order_no, label: msg('admin.orders.orderNumbered', { orderNo: lookup.order_no }) };
  }
  const id = Number(lookup.id);
  if (!Number.isSafeInteger(id) || id < 1) throw new InvalidInput(msg('admin.orders.invalidLookup'), 'id');
  return { where: and(eq(orders.id, id), within)!, by: 'id' as const, key: id, label: msg('admin.orders.orderWithId', { id }) };
}

const notFound = (label: Msg) => new AppError(E.DATA_NOT_FOUND, { detail: msg('admin.orders.notFound', { label }) });

/** The payment method of a payment: the one given (active), else the first active one by sort, then id. */
async function paymentMethodFor(tx: Executor, given: number | undefined): Promise<number> {
  if (given !== undefined) {
    // FOR SHARE: the method cannot be deleted or changed until this payment is committed.
    const [m] = await tx.orm.select({ id: paymentMethods.id, isActive: paymentMethods.isActive }).from(paymentMethods).where(eq(paymentMethods.id, given)).for('share');
    if (!m) throw new AppError(E.VALIDATION, { detail: msg('admin.orders.noPaymentMethod', { given }), details: { field: 'payment_method_id' } });
    if (!m.isActive) throw new AppError(E.VALIDATION, { detail: msg('admin.orders.paymentMethodNotActive', { given }), details: { field: 'payment_method_id' } });
    return m.id;
  }
  const [m] = await tx.orm.select({ id: paymentMethods.id }).from(paymentMethods).where(eq(paymentMethods.isActive, true))
    .orderBy(asc(paymentMethods.sort), asc(paymentMethods.id)).limit(1).for('share');
  if (!m) {
    throw new AppError(E.UPDATE_FAILED, {
      detail: msg('admin.orders.noActivePaymentMethod'),
      details: { field: 'payment_method_id' },
    });
  }
  return m.id;
}
