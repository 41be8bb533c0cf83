// Webhooks (DESIGN §7.9): managers register endpoints for `worker.clock_in`,
// `worker.clock_out` and `security.violation`; deliveries come from a durable outbox written
// with the event and are sent by each instance's dispatcher (once across instances).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FeatureOptions } from '../../context.ts';
import { errors, IdParam } from '../../http.ts';
import {
  CreateWebhookBody, DeliveriesQuery, DeliveriesReply, DeliveryIdParam, DeliveryRecord, UpdateWebhookBody, WebhookList,
  WebhookRecord, WebhookWithSecret,
} from './webhooks.schema.ts';

const tags = ['Webhooks'];

export const WEBHOOK_DOC = [
  'Each delivery is a POST of `{ "event": "<name>", "data": { … } }` (JSON) with the headers',
  '`X-Webhook-Id` (delivery id; the same on every retry of a delivery), `X-Webhook-Event`, `X-Webhook-Attempt` and',
  '`X-Webhook-Signature: t=<unix seconds>,v1=<hex>`, where `v1` is HMAC-SHA256 keyed with the endpoint’s secret (the whole `whsec_…` string, UTF-8)',
  'over `<t>.<raw body>`. Verify it with a constant-time comparison and refuse a `t` older than a few minutes.',
  'A 2xx answer within `WEBHOOK_TIMEOUT_MS` (5 s) is success; anything else (redirects included) is retried with exponential back-off',
  '(5 s, 10 s, 20 s … at most 1 h apart) until an attempt fails more than `WEBHOOK_MAX_AGE_HOURS` (24) after the event; the delivery is then `failed`.',
  'Delivery is at least once: deduplicate on `X-Webhook-Id`. Deliveries of an inactive endpoint wait until it is active again.',
].join(' ');

export const webhooksRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const { webhooks: service, dispatcher } = ctx;
  ctx.platform.metrics.watchQueue('webhook_deliveries', () => dispatcher.backlog());
  app.addHook('onReady', async () => dispatcher.start());
  app.addHook('onClose', async () => dispatcher.stop());

  const urlRule = service.allowPrivate
    ? 'Loopback and private addresses are allowed (`WEBHOOK_ALLOW_PRIVATE`).'
    : 'Loopback, private, link-local and other non-public addresses are refused, also when a name resolves to one at delivery time (`WEBHOOK_ALLOW_PRIVATE=false`).';

  app.post('/managers/webhooks', {
    config: { access: 'manager' },
    schema: {
      tags,
      summary: 'Register a webhook endpoint',
      description: `\`url\` is http or https without credentials. ${urlRule} The reply carries the signing \`secret\`, shown this once. ${WEBHOOK_DOC}`,
      body: CreateWebhookBody,
      response: { 201: WebhookWithSecret },
    },
  }, async (request, reply) => reply.status(201).send(await service.create(request.body, request.user!.userId)));

  app.get('/managers/webhooks', {
    config: { access: 'manager' },
    schema: { tags, summary: 'Webhook endpoints (secrets are never shown again)', response: { 200: WebhookList } },
  }, async () => service.list());

  app.get('/managers/webhooks/:id', {
    config: { access: 'manager' },
    schema: { tags, summary: 'One webhook endpoint', params: IdParam, response: { 200: WebhookRecord, ...errors(404) } },
  }, async (request) => service.get(request.params.id));

  app.patch('/managers/webhooks/:id', {
    config: { access: 'manager' },
    schema: {
      tags,
      summary: 'Change a webhook endpoint',
      description: `Any of \`url\`, \`events\`, \`description\`, \`is_active\`; the others are kept. ${urlRule}`,
      params: IdParam,
      body: UpdateWebhookBody,
      response: { 200: WebhookRecord, ...errors(404) },
    },
  }, async (request) => service.update(request.params.id, request.body));

  app.delete('/managers/webhooks/:id', {
    config: { access: 'manager' },
    schema: {
      tags,
      summary: 'Delete a webhook endpoint',
      description: 'Its delivery log goes with it; deliveries not yet sent are dropped.',
      params: IdParam,
      response: { 204: Type.Null(), ...errors(404) },
    },
  }, async (request, reply) => {
    await service.remove(request.params.id);
    return reply.status(204).send(null);
  });

  app.post('/managers/webhooks/:id/rotate-secret', {
    config: { access: 'manager' },
    schema: {
      tags,
      summary: 'Replace the signing secret',
      description: 'The new secret is in this reply only; deliveries sent from now on are signed with it.',
      params: IdParam,
      response: { 200: WebhookWithSecret, ...errors(404) },
    },
  }, async (request) => service.rotateSecret(request.params.id));

  app.get('/managers/webhooks/:id/deliveries', {
    config: { access: 'manager' },
    schema: {
      tags,
      summary: 'Delivery log of an endpoint',
      description: 'Newest first; filter `status`; paging `page` (from 1) and `limit` (1..100, default 20). Finished deliveries are kept `WEBHOOK_RETENTION_DAYS` (30).',
      params: IdParam,
      querystring: DeliveriesQuery,
      response: { 200: DeliveriesReply, ...errors(404) },
    },
  }, async (request) => service.deliveries(request.params.id, request.query));

  app.post('/managers/webhooks/deliveries/:id/resend', {
    config: { access: 'manager' },
    schema: {
      tags,
      summary: 'Send a delivery again',
      description: 'Queues a new delivery (`resend_of` names the original) with the same body to the same endpoint, sent at once and retried like any other. 409 `CONFLICT` when the endpoint is inactive.',
      params: DeliveryIdParam,
      response: { 202: DeliveryRecord, ...errors(404, 409) },
    },
  }, async (request, reply) => reply.status(202).send(await service.resend(request.params.id)));
};
