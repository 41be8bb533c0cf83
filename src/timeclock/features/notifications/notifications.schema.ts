import { Type } from 'typebox';
import { Nullable } from '../../../platform/http/schemas.ts';
import { Body, Id } from '../../http.ts';
import { NOTIFICATION_KINDS } from '../../kernel/notifications.ts';

export const Notification = Type.Object({
  id: Type.Integer(),
  kind: Type.Enum(NOTIFICATION_KINDS, {
    description: '`correction_requested` (managers: a worker asked for a correction; `data.correctionId`, `data.userId`, `data.kind`) `correction_decided` (the worker: `data.correctionId`, `data.status`, `data.note`), `clock_reminder` (the worker: still clocked in; `data.reason` `left_fence` or `site_closed`, `data.sessionStart`) or `auto_clock_out` (the worker: the session was closed automatically; `data.closedAt`, `data.basis` `left_fence` or `limit`)',
  }),
  data: Type.Object({}, { additionalProperties: true }),
  createdAt: Type.String({ description: 'ISO 8601 UTC' }),
  readAt: Nullable(Type.String({ description: 'ISO 8601 UTC; null while unread' })),
});

export const NotificationsQuery = Type.Object({
  unread: Type.Optional(Type.Boolean({ description: 'only unread ones' })),
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
});

export const NotificationsReply = Type.Object({
  notifications: Type.Array(Notification),
  unreadCount: Type.Integer(),
  totalCount: Type.Integer(),
  currentPage: Type.Integer(),
  totalPages: Type.Integer(),
});

export const ReadBody = Type.Union([
  Body({ ids: Type.Optional(Type.Array(Id(), { maxItems: 100, description: 'the notifications to mark read; none: every one' })) }),
  Type.Null(),
], { description: '`{ "ids": [...] }`, `{}` or no body (every one)' });

export const ReadReply = Type.Object({ updated: Type.Integer({ description: 'how many were unread and are now read' }) });
