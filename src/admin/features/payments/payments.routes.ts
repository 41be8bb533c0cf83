import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FeatureOptions } from '../../context.ts';
import { ErrorEnvelope, IdParam, ok, okCappedList } from '../../http.ts';
import { PaymentList, PaymentListQuery, PaymentReply } from './payments.schema.ts';
import { renderPaymentWithMethod } from './payments.view.ts';

const tags = ['Payments'];

export const paymentsRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const tz = ctx.platform.config.DISPLAY_TIMEZONE;
  const service = ctx.payments;

  app.get('/payments', {
    config: { permission: 'payment.list' },
    schema: {
      tags,
      summary: 'List payment records',
      description: [
        'Payment records are read-only: marking an order paid (`PUT /orders/{id}` with `status: paid`) writes one.',
        '`payment_no` and `order_no` are fuzzy (contains); `start_time`/`end_time` bound `created_at` (no range limit); filters combine with AND.',
        'Each record names its payment method (`payment_method_name`, `payment_method_code`). Money is a JSON number with at most 2 decimals.',
        'A record outlives its order: after the order is deleted, `order_id` is null and `order_no` remains.',
      ].join(' '),
      querystring: PaymentListQuery,
      response: { 200: PaymentList },
    },
  }, async (request) => {
    const { rows, total, capped } = await service.list(request.query, request.admin!.scope);
    return okCappedList(request, rows.map((r) => renderPaymentWithMethod(r, tz)), request.query, total, capped);
  });

  app.get('/payments/:id', {
    config: { permission: 'payment.view' },
    schema: { tags, summary: 'One payment record', params: IdParam, response: { 200: PaymentReply, 404: ErrorEnvelope } },
  }, async (request) => ok(request, renderPaymentWithMethod(await service.get(request.params.id, request.admin!.scope), tz)));
};
