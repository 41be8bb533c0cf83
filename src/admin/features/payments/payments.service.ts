// Payment records: read-only through the API. They are written by the flows that take money
// (an order marked paid, see orders.service.ts; the seed command) and outlive their order:
// a deleted order leaves its payments with order_id null and their order number.
import { randomInt } from 'node:crypto';
import { and, count, eq, getTableColumns, gte, ilike, lte } from 'drizzle-orm';
import type { Static } from 'typebox';
import type { Config } from '../../../platform/config.ts';
import type { Database } from '../../../platform/db/database.ts';
import { contains } from '../../../platform/db/like.ts';
import { sortBy } from '../../../platform/db/order.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { offsetOf, parseTimeRange } from '../../../platform/http/schemas.ts';
import { paymentMethods, payments, type PaymentRow } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import type { PaymentListQuery, PaymentOrderField } from './payments.schema.ts';
import { msg } from '../../../platform/i18n.ts';

export type PaymentListRow = PaymentRow & { paymentMethodName: string; paymentMethodCode: string };

const LIST_COLUMNS = { ...getTableColumns(payments), paymentMethodName: paymentMethods.name, paymentMethodCode: paymentMethods.code };

const ORDER_COLUMNS = {
  id: payments.id,
  payment_no: payments.paymentNo,
  order_no: payments.orderNo,
  user_id: payments.userId,
  amount: payments.amount,
  status: payments.status,
  paid_at: payments.paidAt,
  created_at: payments.createdAt,
} as const;

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** `P` + the UTC time to the millisecond + 10 random digits (28 characters), like order numbers. */
export function newPaymentNo(now = new Date()): string {
  const stamp = `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}`
    + `${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}${pad(now.getUTCMilliseconds(), 3)}`;
  return `P${stamp}${pad(randomInt(0, 10_000_000_000), 10)}`;
}

export class PaymentsService {
  private readonly db: Database;
  private readonly tz: string;
  constructor(deps: { db: Database; config: Config }) {
    this.db = deps.db;
    this.tz = deps.config.DISPLAY_TIMEZONE;
  }

  async list(q: Static<typeof PaymentListQuery>): Promise<{ rows: PaymentListRow[]; total: number }> {
    const { from, to } = parseTimeRange(q, this.tz);
    const filter = and(
      q.payment_no ? ilike(payments.paymentNo, contains(q.payment_no)) : undefined,
      q.order_no ? ilike(payments.orderNo, contains(q.order_no)) : undefined,
      q.payment_method_id !== undefined ? eq(payments.paymentMethodId, q.payment_method_id) : undefined,
      q.user_id !== undefined ? eq(payments.userId, q.user_id) : undefined,
      q.status !== undefined ? eq(payments.status, q.status) : undefined,
      from ? gte(payments.createdAt, from) : undefined,
      to ? lte(payments.createdAt, to) : undefined,
    );
    const [rows, [counted]] = await Promise.all([
      this.db.orm.select(LIST_COLUMNS).from(payments).innerJoin(paymentMethods, eq(paymentMethods.id, payments.paymentMethodId)).where(filter)
        .orderBy(...sortBy<PaymentOrderField>(q.order_by, ORDER_COLUMNS, payments.id, ['paid_at']))
        .limit(q.page_size)
        .offset(offsetOf(q)),
      this.db.orm.select({ n: count() }).from(payments).where(filter),
    ]);
    return { rows, total: counted?.n ?? 0 };
  }

  async get(id: number): Promise<PaymentListRow> {
    const [row] = await this.db.orm.select(LIST_COLUMNS).from(payments).innerJoin(paymentMethods, eq(paymentMethods.id, payments.paymentMethodId))
      .where(eq(payments.id, id));
    if (!row) throw new AppError(E.DATA_NOT_FOUND, { detail: msg('admin.payments.noPaymentRecord', { id }) });
    return row;
  }
}
