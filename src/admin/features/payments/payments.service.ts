// Payment records: read-only through the API. They are written by the flows that take money
// (an order marked paid, see orders.service.ts; the seed command) and outlive their order:
// a deleted order leaves its payments with order_id null and their order number.
import { randomInt } from 'node:crypto';
import type { Database } from '../../../platform/db/database.ts';
import { contains } from '../../../platform/db/like.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { offsetOf, parseOrderBy, parseTimeRange } from '../../../platform/http/schemas.ts';
import { E } from '../../errors.ts';
import type { PaymentOrderField, PaymentStatus } from './payments.schema.ts';

export interface PaymentRow {
  id: number;
  payment_no: string;
  order_id: number | null;
  order_no: string;
  user_id: number;
  payment_method_id: number;
  amount: string;
  status: PaymentStatus;
  paid_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

export interface PaymentListRow extends PaymentRow {
  payment_method_name: string;
  payment_method_code: string;
}

export interface PaymentListInput {
  page: number;
  page_size: number;
  payment_no?: string | undefined;
  order_no?: string | undefined;
  payment_method_id?: number | undefined;
  user_id?: number | undefined;
  status?: PaymentStatus | undefined;
  start_time?: string | undefined;
  end_time?: string | undefined;
  order_by: string;
}

export const PAYMENT_COLUMNS = 'id, payment_no, order_id, order_no, user_id, payment_method_id, amount::text AS amount, status, paid_at, created_at, updated_at';
const LIST_COLUMNS = `p.id, p.payment_no, p.order_id, p.order_no, p.user_id, p.payment_method_id, p.amount::text AS amount, p.status,
  p.paid_at, p.created_at, p.updated_at, m.name AS payment_method_name, m.code AS payment_method_code`;

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
  constructor(db: Database, tz: string) {
    this.db = db;
    this.tz = tz;
  }

  async list(q: PaymentListInput): Promise<{ rows: PaymentListRow[]; total: number }> {
    const { from, to } = parseTimeRange(q, this.tz);
    const clauses: string[] = [];
    const params: unknown[] = [];
    const add = (clause: (p: string) => string, value: unknown) => {
      params.push(value);
      clauses.push(clause(`$${params.length}`));
    };
    if (q.payment_no) add((p) => `p.payment_no ILIKE ${p}`, contains(q.payment_no));
    if (q.order_no) add((p) => `p.order_no ILIKE ${p}`, contains(q.order_no));
    if (q.payment_method_id !== undefined) add((p) => `p.payment_method_id = ${p}`, q.payment_method_id);
    if (q.user_id !== undefined) add((p) => `p.user_id = ${p}`, q.user_id);
    if (q.status !== undefined) add((p) => `p.status = ${p}`, q.status);
    if (from) add((p) => `p.created_at >= ${p}`, from);
    if (to) add((p) => `p.created_at <= ${p}`, to);
    const where = clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '';
    const { field, direction } = parseOrderBy<PaymentOrderField>(q.order_by);
    const dir = direction === 'asc' ? 'ASC' : 'DESC';
    const sort = field === 'id' ? `p.id ${dir}` : `p.${field} ${dir}${field === 'paid_at' ? ' NULLS LAST' : ''}, p.id ${dir}`;
    const n = params.length;
    const [rows, counted] = await Promise.all([
      this.db.query<PaymentListRow>(
        `SELECT ${LIST_COLUMNS} FROM admin.payments p JOIN admin.payment_methods m ON m.id = p.payment_method_id
         ${where} ORDER BY ${sort} LIMIT $${n + 1} OFFSET $${n + 2}`,
        [...params, q.page_size, offsetOf(q)],
      ),
      this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM admin.payments p ${where}`, params),
    ]);
    return { rows, total: counted[0]?.n ?? 0 };
  }

  async get(id: number): Promise<PaymentListRow> {
    const [row] = await this.db.query<PaymentListRow>(
      `SELECT ${LIST_COLUMNS} FROM admin.payments p JOIN admin.payment_methods m ON m.id = p.payment_method_id WHERE p.id = $1`,
      [id],
    );
    if (!row) throw new AppError(E.DATA_NOT_FOUND, { detail: `no payment record ${id}` });
    return row;
  }
}
