// Payment records: read-only through the API. They are written by the flows that take money
// (an order marked paid, see orders.service.ts; the seed command) and outlive their order:
// a deleted order leaves its payments with order_id null and their order number.
import { and, eq, getTableColumns, ilike } from 'drizzle-orm';
import type { Static } from 'typebox';
import type { Config } from '../../../platform/config.ts';
import type { Database, Orm } from '../../../platform/db/database.ts';
import { contains } from '../../../platform/db/like.ts';
import { atOrAfter, atOrBefore, pagedList } from '../../../platform/db/list.ts';
import { p } from '../../../platform/db/statements.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { parseTimeRange } from '../../../platform/http/schemas.ts';
import { paymentMethods, payments, type PaymentRow } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import { scopeCondition, scopeFilter, scopeValues, type DataScope } from '../../kernel/data-scope.ts';
import type { PaymentListQuery, PaymentOrderField } from './payments.schema.ts';
import { msg } from '../../../platform/i18n.ts';

export type PaymentListRow = PaymentRow & { paymentMethodName: string; paymentMethodCode: string };

const LIST_COLUMNS = { ...getTableColumns(payments), paymentMethodName: paymentMethods.name, paymentMethodCode: paymentMethods.code };

const paymentsList = (orm: Orm, countLimit: number) =>
  pagedList(orm, {
    name: 'payments',
    countLimit,
    rows: (orm) => orm.select(LIST_COLUMNS).from(payments).innerJoin(paymentMethods, eq(paymentMethods.id, payments.paymentMethodId)).$dynamic(),
    table: payments,
    filters: {
      payment_no: { param: contains, where: (x) => ilike(payments.paymentNo, x) },
      order_no: { param: contains, where: (x) => ilike(payments.orderNo, x) },
      payment_method_id: (x) => eq(payments.paymentMethodId, x),
      user_id: (x) => eq(payments.userId, x),
      status: (x) => eq(payments.status, x),
      from: atOrAfter(payments.createdAt),
      to: atOrBefore(payments.createdAt),
      // The caller's data scope: the order's creator and their department then.
      scope: scopeFilter(payments.departmentId, payments.createdBy),
    },
    sort: {
      id: payments.id,
      payment_no: payments.paymentNo,
      order_no: payments.orderNo,
      user_id: payments.userId,
      amount: payments.amount,
      status: payments.status,
      paid_at: payments.paidAt,
      created_at: payments.createdAt,
    } satisfies Record<PaymentOrderField, unknown>,
    id: payments.id,
    nullsLast: ['paid_at'],
  });

/** A payment with its method's name and code (placeholder `id`), in the scope (scopeValues). */
const paymentOf = (orm: Orm) =>
  orm.select(LIST_COLUMNS).from(payments).innerJoin(paymentMethods, eq(paymentMethods.id, payments.paymentMethodId))
    .where(and(eq(payments.id, p('id')), scopeCondition(payments.departmentId, payments.createdBy))).prepare('payment');

export class PaymentsService {
  private readonly db: Database;
  private readonly tz: string;
  private readonly paymentsList: ReturnType<typeof paymentsList>;
  private readonly paymentOf: ReturnType<typeof paymentOf>;
  constructor(deps: { db: Database; config: Config }) {
    this.db = deps.db;
    this.tz = deps.config.DISPLAY_TIMEZONE;
    this.paymentsList = paymentsList(this.db.orm, deps.config.LIST_COUNT_LIMIT);
    this.paymentOf = paymentOf(this.db.orm);
  }

  /** The payments of the caller's data scope matching the filters. */
  async list(q: Static<typeof PaymentListQuery>, scope: DataScope): Promise<{ rows: PaymentListRow[]; total: number; capped: boolean }> {
    return this.paymentsList.page({ ...q, ...parseTimeRange(q, this.tz), scope }, q);
  }

  /** A payment; outside the caller's scope, 404. */
  async get(id: number, scope: DataScope): Promise<PaymentListRow> {
    const [row] = await this.paymentOf.execute({ id, ...scopeValues(scope) });
    if (!row) throw new AppError(E.DATA_NOT_FOUND, { detail: msg('admin.payments.paymentNotFound', { id }) });
    return row;
  }
}
