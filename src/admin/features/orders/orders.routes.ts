import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FeatureOptions } from '../../context.ts';
import { orMissing, type AuditSpec } from '../../kernel/audit.ts';
import { everyRow } from '../../kernel/data-scope.ts';
import { ErrorEnvelope, ok, okCappedList } from '../../http.ts';
import { renderPayment } from '../../kernel/payment-records.ts';
import {
  CreateOrderBody, OrderDeletedReply, OrderIdParam, OrderList, OrderListQuery, OrderLookupQuery, OrderReply, OrderUpdateReply, UpdateOrderBody,
} from './orders.schema.ts';
import type { OrderLookup } from './orders.service.ts';
import { renderOrder, renderOrderWithDetails } from './orders.view.ts';

const tags = ['Orders'];
const withNotFound = { 404: ErrorEnvelope };
const LOOKUP = 'The order is found by the `order_no` query parameter when given (the path `id` is then ignored: send `0` or `-`), otherwise by the path `id`; unknown: 404 (30003).';

export const ordersRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const tz = ctx.platform.config.DISPLAY_TIMEZONE;
  const service = ctx.orders;
  // The operation log's before and after of an order (kernel/audit.ts): found, and named, by the
  // key the request used (LOOKUP); a create's is its reply.
  const read = (lookup: OrderLookup) => orMissing(service.get(lookup, everyRow).then((o) => renderOrderWithDetails(o, tz)));
  const created: AuditSpec = { entity: 'order', load: (id) => read({ id }), created: (data) => (data as { order?: { id?: number } } | null)?.order?.id };
  const changed: AuditSpec = {
    entity: 'order',
    after: 'load',
    ids: (request) => [(request.query as { order_no?: string }).order_no ?? (request.params as { id: string }).id],
    load: (key, request) => read((request.query as { order_no?: string }).order_no ? { id: 0, order_no: String(key) } : { id: key }),
  };

  app.get('/orders', {
    config: { permission: 'order.list' },
    schema: {
      tags,
      summary: 'List orders',
      description: [
        '`order_no` is fuzzy (contains); `min_amount`/`max_amount` bound `amount` (inclusive); `start_time`/`end_time` bound `created_at` (inclusive).',
        'The time range is at most 3 calendar months (longer: 400, 30001). Only `start_time`: the 3 months from it; only `end_time`: the 3 months up to it; neither: the last 3 months.',
        'Money is a JSON number with at most 2 decimals. `total` counts the matching orders up to LIST_COUNT_LIMIT (default 1,000; beyond it `total_capped` is true).',
      ].join(' '),
      querystring: OrderListQuery,
      response: { 200: OrderList },
    },
  }, async (request) => {
    const { rows, total, capped } = await service.list(request.query, request.admin!.scope);
    return okCappedList(request, rows.map((r) => renderOrder(r, tz)), request.query, total, capped);
  });

  app.post('/orders', {
    config: { permission: 'order.create', audit: created },
    schema: {
      tags,
      summary: 'Create an order',
      description: [
        'Each product item needs all four fields; `price` ≥ 0 and `amount` have at most 2 decimals; `quantity` ≥ 1.',
        '`amount` must equal the sum of `price × quantity` to the cent (computed in integer cents, never in floating point), else 400 30001.',
        'The order and its detail rows are written in one transaction. A unique `order_no` is generated: the UTC creation time to the millisecond (`YYYYMMDDHHmmssSSS`) then 10 random digits, so numbers sort by time and instances need no coordination.',
        '`request_id` (generated as a UUID when omitted) makes the request idempotent: a second order with the same `request_id` is refused with 400 30002 naming the existing order number, and under any concurrency exactly one order is created (a unique index decides).',
        'The reply is the order with its details, as `GET /orders/{id}`.',
      ].join(' '),
      body: CreateOrderBody,
      response: { 200: OrderReply },
    },
  }, async (request) => ok(request, renderOrderWithDetails(await service.create(request.body, request.admin?.adminId ?? null), tz)));

  app.get('/orders/:id', {
    config: { permission: 'order.view' },
    schema: {
      tags,
      summary: 'One order with its detail rows',
      description: `${LOOKUP} The reply is \`{ order, details }\` with every stored field.`,
      params: OrderIdParam,
      querystring: OrderLookupQuery,
      response: { 200: OrderReply, ...withNotFound },
    },
  }, async (request) => ok(request, renderOrderWithDetails(await service.get({ id: request.params.id, order_no: request.query.order_no }, request.admin!.scope), tz)));

  app.put('/orders/:id', {
    config: { permission: 'order.update', audit: changed },
    schema: {
      tags,
      summary: 'Change the status of an order',
      description: [
        LOOKUP,
        'Moves: `pending → paid` and `pending → cancelled` only. Any other move (from `paid` or `cancelled`, or to `pending`) is 400 with code 40003; a status outside pending/paid/cancelled is 400 30001.',
        'Marking paid writes the payment record in the same transaction (status `paid`, the order’s amount, user and number, `paid_at` = the order’s), with the active payment method `payment_method_id` or, when omitted, the active method with the lowest `sort` (then id).',
        'An unknown or inactive `payment_method_id` is 400 30001; no active method at all is 400 40003. Concurrent requests cannot pay one order twice.',
        'The reply is the order with its details and the payment record created (null when cancelled).',
      ].join(' '),
      params: OrderIdParam,
      querystring: OrderLookupQuery,
      body: UpdateOrderBody,
      response: { 200: OrderUpdateReply, ...withNotFound },
    },
  }, async (request) => {
    const { order, details, payment } = await service.setStatus(
      { id: request.params.id, order_no: request.query.order_no },
      request.admin!.scope,
      request.body.status,
      request.body.payment_method_id,
    );
    return ok(request, { ...renderOrderWithDetails({ order, details }, tz), payment: payment ? renderPayment(payment, tz) : null });
  });

  app.delete('/orders/:id', {
    config: { permission: 'order.delete', audit: changed },
    schema: {
      tags,
      summary: 'Delete an order and its detail rows',
      description: `${LOOKUP} The order and its detail rows are deleted in one transaction, whatever its status. Payment records are kept as financial history: their \`order_id\` becomes null and they keep the order number.`,
      params: OrderIdParam,
      querystring: OrderLookupQuery,
      response: { 200: OrderDeletedReply, ...withNotFound },
    },
  }, async (request) => ok(request, await service.remove({ id: request.params.id, order_no: request.query.order_no }, request.admin!.scope)));
};
