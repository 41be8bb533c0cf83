// The signed-in account's notifications (workers: a correction decided; managers: a correction
// requested). The clients show them at their next open.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FeatureOptions } from '../../context.ts';
import { NotificationsQuery, NotificationsReply, ReadBody, ReadReply } from './notifications.schema.ts';

const tags = ['Notifications'];

export const notificationsRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const { notifications } = ctx;

  app.get('/notifications', {
    config: { access: 'user' },
    schema: { tags, summary: 'The signed-in account’s notifications', description: 'Newest first, with `unreadCount`; `unread=true` lists only unread ones.', querystring: NotificationsQuery, response: { 200: NotificationsReply } },
  }, async (request) => notifications.page(request.user!.userId, request.query));

  app.post('/notifications/read', {
    config: { access: 'user' },
    schema: { tags, summary: 'Mark notifications read', description: 'Only the caller’s own; ids of others are ignored.', body: ReadBody, response: { 200: ReadReply } },
  }, async (request) => notifications.read(request.user!.userId, request.body?.ids));
};
