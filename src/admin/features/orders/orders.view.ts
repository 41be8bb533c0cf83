// How orders and their detail rows look in replies: every stored field, display times, money
// as JSON numbers (the database's decimal text read as a number, for display only).
import { displayStamps, formatDisplay } from '../../../platform/time.ts';
import type { OrderDetailRow } from '../../db/schema.ts';
import type { OrderView } from './orders.service.ts';

export function renderOrder(r: OrderView, tz: string) {
  return {
    id: r.id,
    order_no: r.orderNo,
    request_id: r.requestId,
    user_id: r.userId,
    amount: Number(r.amount),
    status: r.status,
    created_by: r.createdBy,
    created_by_name: r.createdByName,
    paid_at: formatDisplay(r.paidAt, tz),
    ...displayStamps(r, tz),
  };
}

export function renderDetail(r: OrderDetailRow) {
  return { id: r.id, order_id: r.orderId, product_id: r.productId, product_name: r.productName, price: Number(r.price), quantity: r.quantity };
}

export function renderOrderWithDetails(o: { order: OrderView; details: OrderDetailRow[] }, tz: string) {
  return { order: renderOrder(o.order, tz), details: o.details.map(renderDetail) };
}
