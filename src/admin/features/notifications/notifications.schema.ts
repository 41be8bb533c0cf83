import { Type } from 'typebox';
import { OrderByQuery, PagingQuery } from '../../../platform/http/schemas.ts';
import { Body, Envelope } from '../../http.ts';
import { LOCALES } from '../../../platform/i18n.ts';
import { TICKET_PATTERN } from './notifications.push.ts';
import { NOTIFICATION_KINDS } from '../../kernel/notifier.ts';
import { CONTENT_MAX, TITLE_MAX } from './notifications.service.ts';

const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const Iso = (description: string) => Type.String({ format: 'date-time', description: `${description}, ISO 8601 UTC` });

export const NotificationListQuery = Type.Object({
  ...PagingQuery,
  is_read: Type.Optional(Type.Union([Type.Literal('1'), Type.Literal('0')], { description: '"1" read only, "0" unread only; absent: both' })),
  order_by: OrderByQuery(['id', 'created_at'], 'id:desc'),
});

export const NotificationRecord = Type.Object({
  id: Type.Integer(),
  title: Type.String({ description: 'a system notification’s title in the reader’s language (Accept-Language); an administrator’s as written' }),
  content: Type.String({ description: 'a system notification’s text in the reader’s language; an administrator’s as written. It never carries a raw path or time: see `link`' }),
  kind: Type.String({ enum: [...NOTIFICATION_KINDS], description: 'where it came from: `message` (sent by an administrator), `export`, `import`, `session`, `security`, `system`' }),
  link: Type.Union([Type.String(), Type.Null()], {
    description: 'the API path the notification points at, relative to the server (an export’s download: `/api/admin/exports/{id}/download`, fetched with the bearer token); null when none',
  }),
  link_expires_at: Type.Union([Iso('when `link` stops working (show it in the reader’s time zone and language)'), Type.Null()], {
    description: 'null when there is no link or it does not expire',
  }),
  sender_id: Type.Union([Type.Integer(), Type.Null()], {
    description: 'the administrator who sent a `message`; null for a system notification, or once the sender was deleted',
  }),
  sender_name: Type.Union([Type.String(), Type.Null()], {
    description: 'that administrator’s nickname (the username when the nickname is empty); null when sender_id is null',
  }),
  is_read: Type.Boolean(),
  read_at: Type.Union([Iso('when it was first marked read'), Type.Null()]),
  created_at: Iso('when it was sent'),
});

export const NotificationListReply = Envelope(
  Type.Object({
    list: Type.Array(NotificationRecord),
    page: Type.Integer(),
    page_size: Type.Integer(),
    total: Type.Integer({ description: 'notifications matching the filter' }),
    unread: Type.Integer({ description: 'all unread notifications of the caller, whatever the filter' }),
  }),
);

export const NotificationReply = Envelope(NotificationRecord);

export const ReadAllReply = Envelope(Type.Object({ updated: Type.Integer({ description: 'notifications that were unread' }) }));

export const SendNotificationBody = Body({
  title: Type.String({ minLength: 1, maxLength: TITLE_MAX, pattern: '\\S', description: `1 to ${TITLE_MAX} characters, not blank` }),
  content: Type.String({ minLength: 1, maxLength: CONTENT_MAX, pattern: '\\S', description: `1 to ${CONTENT_MAX} characters, not blank` }),
  admin_ids: Type.Optional(Type.Array(Id, { minItems: 1, maxItems: 1000, uniqueItems: true, description: 'these administrators (existing ids; disabled ones included)' })),
  role_id: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'the enabled members of this role' })),
  all: Type.Optional(Type.Boolean({ description: '`true`: every enabled administrator' })),
});

export const SentReply = Envelope(
  Type.Object({
    id: Type.Integer(),
    title: Type.String(),
    content: Type.String(),
    created_at: Iso('when it was sent'),
    recipients: Type.Integer({ description: 'administrators it was stored for' }),
  }),
);

export const TicketReply = Envelope(
  Type.Object({
    ticket: Type.String({ description: 'single use; pass it as `?ticket=` to GET /ws/notifications' }),
    expires_at: Iso('unused tickets expire'),
  }),
);

export const SocketQuery = Type.Object({
  ticket: Type.Optional(Type.String({ pattern: TICKET_PATTERN, description: 'a ticket from POST /ws/ticket (browsers, which cannot set the Authorization header)' })),
  lang: Type.Optional(Type.Union(LOCALES.map((l) => Type.Literal(l)), {
    description: 'the language of the system notifications pushed on this socket; default: the `Accept-Language` of the ticket request, else of the upgrade request',
  })),
});
