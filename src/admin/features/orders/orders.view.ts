// How orders and their detail rows look in replies: every stored field, display times, money
// as JSON numbers (the database's decimal text read as a number, for display only).
import { displayTime } from '../payments/payments.view.ts';
import type { OrderDetailRow, OrderRow } from './orders.service.ts';

export function renderOrder(r: OrderRow, tz: string) {
  return {
    id: r.id,
    order_no: r.order_no,
    request_id: r.request_id,
    user_id: r.user_id,
    amount: Number(r.amount),
    status: r.status,
    created_by: r.created_by,
    paid_at: displayTime(r.paid_at, tz),
    created_at: displayTime(r.created_at, tz)!,
    updated_at: displayTime(r.updated_at, tz)!,
  };
}

export function renderDetail(r: OrderDetailRow) {
  return { id: r.id, order_id: r.order_id, product_id: r.product_id, product_name: r.product_name, price: Number(r.price), quantity: r.quantity };
}

export function renderOrderWithDetails(o: { order: OrderRow; details: OrderDetailRow[] }, tz: string) {
  return { order: renderOrder(o.order, tz), details: o.details.map(renderDetail) };
}
