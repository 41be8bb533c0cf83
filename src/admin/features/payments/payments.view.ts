// How payment records look in replies: display times, money as JSON numbers (the database's
// decimal text read as a number, for display only).
import { displayStamps, formatDisplay } from '../../../platform/time.ts';
import type { PaymentRow } from '../../db/schema.ts';
import type { PaymentListRow } from './payments.service.ts';

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

export function renderPaymentWithMethod(r: PaymentListRow, tz: string) {
  return { ...renderPayment(r, tz), payment_method_name: r.paymentMethodName, payment_method_code: r.paymentMethodCode };
}
