// How payment records look in replies; display times for the raw rows of the trade features.
import { formatDisplay } from '../../../platform/time.ts';
import type { PaymentListRow, PaymentRow } from './payments.service.ts';

/** `YYYY-MM-DD HH:mm:ss` in `tz` of a timestamptz as either driver returns it (Date or text). */
export function displayTime(value: Date | string | null, tz: string): string | null {
  return value === null ? null : formatDisplay(value instanceof Date ? value : new Date(value), tz);
}

export function renderPayment(r: PaymentRow, tz: string) {
  return {
    id: r.id,
    payment_no: r.payment_no,
    order_id: r.order_id,
    order_no: r.order_no,
    user_id: r.user_id,
    payment_method_id: r.payment_method_id,
    amount: Number(r.amount),
    status: r.status,
    paid_at: displayTime(r.paid_at, tz),
    created_at: displayTime(r.created_at, tz)!,
    updated_at: displayTime(r.updated_at, tz)!,
  };
}

export function renderPaymentWithMethod(r: PaymentListRow, tz: string) {
  return { ...renderPayment(r, tz), payment_method_name: r.payment_method_name, payment_method_code: r.payment_method_code };
}
