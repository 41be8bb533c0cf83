// Payment records: read-only through the API. They are written by the flows that take money
// (an order marked paid, see orders.service.ts; the seed command) and outlive their order:
// a deleted order leaves its payments with order_id null and their order number.
import { and, count, eq, getTableColumns, gte, ilike, lte } from 'drizzle-orm';
import type { Static } from 'typebox';
import type { Config } from '../../../platform/config.ts';
import type { Database, Orm } from '../../../platform/db/database.ts';
import { contains } from '../../../platform/db/like.ts';
import { sortBy } from '../../../platform/db/order.ts';
import { p, Params, Statements } from '../../../platform/db/statements.ts';
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

/** A payment with its method's name and code (placeholder `id`). */
const paymentOf = (orm: Orm) =>
  orm.select(LIST_COLUMNS).from(payments).innerJoin(paymentMethods, eq(paymentMethods.id, payments.paymentMethodId))
    .where(eq(payments.id, p('id'))).prepare('payment');

export class PaymentsService {
  private readonly db: Database;
  private readonly tz: string;
  private readonly lists = new Statements<ReturnType<PaymentsService['listStatements']>>();
  private readonly paymentOf: ReturnType<typeof paymentOf>;
  constructor(deps: { db: Database; config: Config }) {
    this.db = deps.db;
    this.tz = deps.config.DISPLAY_TIMEZONE;
    this.paymentOf = paymentOf(this.db.orm);
  }

  private listStatements(q: Static<typeof PaymentListQuery>, params: Params) {
    const filter = and(
      params.has('payment_no') ? ilike(payments.paymentNo, p('payment_no')) : undefined,
      params.has('order_no') ? ilike(payments.orderNo, p('order_no')) : undefined,
      params.has('payment_method_id') ? eq(payments.paymentMethodId, p('payment_method_id')) : undefined,
      params.has('user_id') ? eq(payments.userId, p('user_id')) : undefined,
      params.has('status') ? eq(payments.status, p('status')) : undefined,
      params.has('from') ? gte(payments.createdAt, p('from')) : undefined,
      params.has('to') ? lte(payments.createdAt, p('to')) : undefined,
    );
    return {
      page: this.db.orm.select(LIST_COLUMNS).from(payments).innerJoin(paymentMethods, eq(paymentMethods.id, payments.paymentMethodId)).where(filter)
        .orderBy(...sortBy<PaymentOrderField>(q.order_by, ORDER_COLUMNS, payments.id, ['paid_at']))
        .limit(p('limit'))
        .offset(p('offset'))
        .prepare('payments_page'),
      total: this.db.orm.select({ n: count() }).from(payments).where(filter).prepare('payments_count'),
    };
  }

  async list(q: Static<typeof PaymentListQuery>): Promise<{ rows: PaymentListRow[]; total: number }> {
    const { from, to } = parseTimeRange(q, this.tz);
    const params = new Params()
      .set('payment_no', q.payment_no ? contains(q.payment_no) : undefined)
      .set('order_no', q.order_no ? contains(q.order_no) : undefined)
      .set('payment_method_id', q.payment_method_id)
      .set('user_id', q.user_id)
      .set('status', q.status)
      .set('from', from?.toISOString())
      .set('to', to?.toISOString())
      .shape(q.order_by)
      .set('limit', q.page_size)
      .set('offset', offsetOf(q));
    const { page, total } = this.lists.get(params.key, () => this.listStatements(q, params));
    const [rows, [counted]] = await Promise.all([page.execute(params.values), total.execute(params.values)]);
    return { rows, total: counted?.n ?? 0 };
  }

  async get(id: number): Promise<PaymentListRow> {
    const [row] = await this.paymentOf.execute({ id });
    if (!row) throw new AppError(E.DATA_NOT_FOUND, { detail: msg('admin.payments.noPaymentRecord', { id }) });
    return row;
  }
}
