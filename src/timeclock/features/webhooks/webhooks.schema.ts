import { Type } from 'typebox';
import { Nullable } from '../../../platform/http/schemas.ts';
import { Body, Id } from '../../http.ts';
import { DELIVERY_STATUSES } from '../../db/schema.ts';
import { WEBHOOK_EVENTS } from '../../kernel/webhook-outbox.ts';

const Url = Type.String({
  minLength: 8,
  maxLength: 2048,
  pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
  description: 'http or https URL the events are POSTed to, without user name or password',
  examples: ['https://hooks.example.com/fieldops'],
});
const Events = Type.Array(Type.Enum(WEBHOOK_EVENTS), {
  minItems: 1,
  maxItems: WEBHOOK_EVENTS.length,
  uniqueItems: true,
  description: `events to receive: ${WEBHOOK_EVENTS.join(', ')}`,
});
const Description = Type.String({ maxLength: 255 });

export const CreateWebhookBody = Body({
  url: Url,
  events: Events,
  description: Type.Optional(Description),
  is_active: Type.Optional(Type.Boolean({ description: 'default true' })),
});

export const UpdateWebhookBody = Type.Object(
  { url: Type.Optional(Url), events: Type.Optional(Events), description: Type.Optional(Description), is_active: Type.Optional(Type.Boolean()) },
  { additionalProperties: false, minProperties: 1 },
);

export const WebhookRecord = Type.Object({
  id: Type.Integer(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  description: Type.String(),
  is_active: Type.Boolean(),
  created_at: Type.String({ description: 'ISO 8601 UTC' }),
  updated_at: Type.String({ description: 'ISO 8601 UTC' }),
});

export const WebhookWithSecret = Type.Object({
  ...WebhookRecord.properties,
  secret: Type.String({ description: 'signing secret: shown only in this reply; store it now' }),
});

export const WebhookList = Type.Array(WebhookRecord);

export const DeliveryRecord = Type.Object({
  id: Type.Integer({ description: 'also sent as X-Webhook-Id' }),
  endpoint_id: Type.Integer(),
  event: Type.String(),
  status: Type.Enum(DELIVERY_STATUSES),
  attempts: Type.Integer(),
  next_attempt_at: Nullable(Type.String({ description: 'when the next attempt is due, ISO 8601 UTC; null once delivered or failed' })),
  last_status_code: Nullable(Type.Integer({ description: 'HTTP status of the latest attempt; null when none answered' })),
  last_error: Nullable(Type.String({ description: 'why the latest attempt failed' })),
  resend_of: Nullable(Type.Integer({ description: 'the delivery this one re-sends' })),
  payload: Type.Object({ event: Type.String(), data: Type.Object({}, { additionalProperties: true }) }, { description: 'the body sent' }),
  created_at: Type.String({ description: 'ISO 8601 UTC' }),
  updated_at: Type.String({ description: 'ISO 8601 UTC' }),
  delivered_at: Nullable(Type.String({ description: 'ISO 8601 UTC' })),
});

export const DeliveriesQuery = Type.Object({
  status: Type.Optional(Type.Enum(DELIVERY_STATUSES)),
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
});

export const DeliveriesReply = Type.Object({
  deliveries: Type.Array(DeliveryRecord),
  totalCount: Type.Integer(),
  currentPage: Type.Integer(),
  totalPages: Type.Integer(),
});

export const DeliveryIdParam = Type.Object({ id: Id('delivery id') });
