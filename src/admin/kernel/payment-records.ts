// Payment records as the flows that take money write and show them: the orders feature (an
// order marked paid creates its payment) and the payments feature (the records' list and
// detail). Their number, their stored fields in replies, and how a row is rendered.
import { randomInt } from 'node:crypto';
import { Type } from 'typebox';
import { displayStamps, formatDisplay } from '../../platform/time.ts';
import { PAYMENT_STATUSES, type PaymentRow } from '../db/schema.ts';

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** `P` + the UTC time to the millisecond + 10 random digits (28 characters), like order numbers. */
export function newPaymentNo(now = new Date()): string {
  const stamp = `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}`
    + `${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}${pad(now.getUTCMilliseconds(), 3)}`;
  return `P${stamp}${pad(randomInt(0, 10_000_000_000), 10)}`;
}

const Time = (description: string) => Type.String({ description: `${description}, YYYY-MM-DD HH:mm:ss` });

/** A payment record as stored. */
export const PaymentFields = {
  id: Type.Integer(),
  payment_no: Type.String({ description: 'unique payment number' }),
  order_id: Type.Union([Type.Integer(), Type.Null()], { description: 'null once the order has been deleted' }),
  order_no: Type.String({ description: 'kept when the order is deleted' }),
  user_id: Type.Integer(),
  payment_method_id: Type.Integer(),
  amount: Type.Number({ description: 'money as a number with at most 2 decimals' }),
  status: Type.Enum([...PAYMENT_STATUSES]),
  paid_at: Type.Union([Time('when the money was received'), Type.Null()]),
  created_at: Time('created'),
  updated_at: Time('last changed'),
};

export function renderPayment(r: PaymentRow, tz: string) {
  return {
    id: r.id,
    payment_no: r.paymentNo,
    order_id: r.orderId,
    order_no: r.orderNo,
    user_id: r.userId,
    payment_method_id: r.paymentMethodId,
    amount: Number(r.amount),
    status: r.status,
    paid_at: formatDisplay(r.paidAt, tz),
    ...displayStamps(r, tz),
  };
}
