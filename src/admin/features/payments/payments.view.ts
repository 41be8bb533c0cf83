// How payment records look in replies: display times, money as JSON numbers (the database's
// decimal text read as a number, for display only).
import { renderPayment } from '../../kernel/payment-records.ts';
import type { PaymentListRow } from './payments.service.ts';

export function renderPaymentWithMethod(r: PaymentListRow, tz: string) {
  return { ...renderPayment(r, tz), payment_method_name: r.paymentMethodName, payment_method_code: r.paymentMethodCode };
}
