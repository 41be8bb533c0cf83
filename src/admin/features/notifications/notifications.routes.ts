// Notifications (list, read marks, sending) and their live push over WebSocket
// (GET /ws/notifications). System events of other features reach administrators through
// ctx.notifications; export tasks are hooked here.
import websocket from '@fastify/websocket';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { originAllowed } from '../../../platform/http/cors.ts';
import { AppError, InvalidInput } from '../../../platform/http/errors.ts';
import type { ExportTasks } from '../../../platform/jobs/export-tasks.ts';
import type { FeatureOptions } from '../../context.ts';
import { E } from '../../errors.ts';
import { ErrorEnvelope, IdParam, ok } from '../../http.ts';
import { TICKET_TTL_MS, type SocketGrant } from './notifications.push.ts';
import {
  NotificationListQuery,
  NotificationListReply,
  NotificationReply,
  ReadAllReply,
  SendNotificationBody,
  SentReply,
  SocketQuery,
  TicketReply,
} from './notifications.schema.ts';
import type { Audience, NotificationsService } from './notifications.service.ts';
import { msg, type MessageKey } from '../../../platform/i18n.ts';
import { localeOf } from '../../../platform/http/conventions.ts';

const tags = ['Notifications'];

/** Frames from clients larger than this close the socket (1009). */
const MAX_CLIENT_FRAME = 64 * 1024;

export const notificationsRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const notifications = ctx.notifications;
  const { push } = ctx;
  hookExportTasks(ctx.exports, notifications, app.prefix);

  app.addHook('onReady', () => push.start());
  // Before @fastify/websocket's own preClose (registered below): sockets get 1001 and a grace.
  app.addHook('preClose', () => push.stop());
  await app.register(websocket, {
    options: { maxPayload: MAX_CLIENT_FRAME, perMessageDeflate: false },
    // Errors of the socket handler itself; errors of an attached socket go to the hub's listener.
    errorHandler: (err, socket, request) => {
      request.log.error({ err }, 'WebSocket handler failed');
      socket.terminate();
    },
  });

  app.get('/notifications', {
    config: { auth: 'self' },
    schema: {
      tags,
      summary: 'The caller’s notifications',
      description: [
        'Newest first by default. `data` holds the list fields and `unread`, the caller’s unread count whatever the filter. Times are ISO 8601 UTC.',
        'Notifications the system sends (exports, imports, sign-outs, password resets) are written in the language of `Accept-Language` (en-US or zh-CN);',
        'those an administrator sent are shown as written, with who sent them (`sender_id`, `sender_name`). `link` and `link_expires_at` say where a notification points (an export’s download) and until when.',
      ].join(' '),
      querystring: NotificationListQuery,
      response: { 200: NotificationListReply },
    },
  }, async (request) => {
    const { list, total, unread } = await notifications.list(request.admin!.adminId, request.query, localeOf(request));
    return ok(request, { list, page: request.query.page, page_size: request.query.page_size, total, unread });
  });

  app.put('/notifications/read-all', {
    config: { auth: 'self' },
    schema: {
      tags,
      summary: 'Mark all the caller’s notifications read',
      response: { 200: ReadAllReply },
    },
  }, async (request) => ok(request, { updated: await notifications.markAllRead(request.admin!.adminId) }));

  app.put('/notifications/:id/read', {
    config: { auth: 'self' },
    schema: {
      tags,
      summary: 'Mark one of the caller’s notifications read',
      description: 'Marking it again keeps the first `read_at`. Another administrator’s notification is answered like an unknown one (404, 30003), so ids do not reveal anything.',
      params: IdParam,
      response: { 200: NotificationReply, 404: ErrorEnvelope },
    },
  }, async (request) => ok(request, await notifications.markRead(request.admin!.adminId, request.params.id, localeOf(request))));

  app.post('/notifications', {
    config: { permission: 'notification.send', audit: { entity: 'notification' } },
    schema: {
      tags,
      summary: 'Send a notification to administrators',
      description: [
        'Exactly one audience: `admin_ids` (existing administrators, disabled ones included), `role_id` (the enabled members of an existing role)',
        'or `all: true` (every enabled administrator), within the sender’s data scope (administrators outside it are unknown; a role or `all` reaches its members within it).',
        'Unknown ids or role: 400 (30001); an audience with nobody in it: 400 (40001).',
        'It is stored for each recipient and pushed at once to their open sockets on every instance.',
      ].join(' '),
      body: SendNotificationBody,
      response: { 200: SentReply },
    },
  }, async (request) => {
    const { title, content, admin_ids, role_id, all } = request.body;
    const targets = [admin_ids !== undefined, role_id !== undefined, all === true].filter(Boolean).length;
    if (targets !== 1 || all === false) throw new InvalidInput(msg('admin.notifications.oneAudience'), 'admin_ids');
    const audience: Audience = admin_ids ? { adminIds: admin_ids } : role_id !== undefined ? { roleId: role_id } : { everyone: true };
    return ok(request, await notifications.send(audience, { title, content, kind: 'message', senderId: request.admin!.adminId }, request.admin!.scope));
  });

  app.post('/ws/ticket', {
    config: { auth: 'self' },
    schema: {
      tags,
      summary: 'A single-use ticket to open the notification socket from a browser',
      description: [
        `Browsers cannot set the Authorization header on a WebSocket: open \`/ws/notifications?ticket=<ticket>\` instead, within ${TICKET_TTL_MS / 1000} seconds.`,
        'A ticket works once and belongs to the caller’s session. The socket opened with it writes notifications in the language of this request’s',
        '`Accept-Language` (unless the socket asks for another with `?lang=`); a client whose language changes opens a new socket.',
      ].join(' '),
      response: { 200: TicketReply },
    },
  }, async (request) => ok(request, await push.issueTicket(request.admin!, localeOf(request))));

  const grants = new WeakMap<FastifyRequest, { grant: SocketGrant; reply: FastifyReply }>();
  app.route({
    method: 'GET',
    url: '/ws/notifications',
    config: { auth: 'public' },
    // The ticket is a credential: request log lines show the path only.
    logSerializers: { req: (req: FastifyRequest) => ({ method: req.method, url: req.url.split('?')[0], remoteAddress: req.ip }) },
    schema: {
      tags,
      summary: 'Live notifications (WebSocket)',
      description: [
        'Upgrade to WebSocket, authenticated before the upgrade by `Authorization: Bearer <token>` or by `?ticket=` from `POST /ws/ticket`',
        '(401 without either; 403 when a browser page of another origin than this server or those of `CORS_ORIGINS` asks; 429 when the session already holds `WS_MAX_SOCKETS_PER_SESSION` sockets on this instance).',
        'Each new notification of the caller arrives as `{ "type": "notification", "data": { id, title, content, created_at, kind, link, link_expires_at, sender_id, sender_name } }`',
        '(the contract’s four fields, then the additive ones of the notification list: `kind`, where it came from; `link`, the API path it points at, such as an export’s',
        'download, which needs the bearer token, or null; `link_expires_at`, ISO 8601 UTC, when that link stops working, or null; `sender_id` and `sender_name`,',
        'the administrator who sent a message and their nickname or username, null for a system notification).',
        'System notifications are written in the socket’s language: `?lang=en-US|zh-CN` when given, else the `Accept-Language` of the `POST /ws/ticket` request',
        'that issued the ticket, else that of the upgrade request; a client whose language changes opens a new socket.',
        'When what the caller’s roles grant changes (their roles, or the permissions, menus or status of one of their roles), each of their sockets gets',
        '`{ "type": "permissions_changed" }`: read `GET /info` again to redraw the menu and the permitted actions. Clients ignore types they do not know.',
        'The server pings every `WS_HEARTBEAT_MS` and drops sockets that do not answer. Close codes: 1008 the session ended (logout, kick-out,',
        'password change, account disabled) or expired; 1009 a client frame over 64 KiB; 1013 the client reads too slowly, or its session has too many sockets;',
        '1001 the server is stopping.',
        'Messages from the client are ignored. A plain GET without upgrade is a 400.',
      ].join(' '),
      // Public to the guard, since the route authenticates itself (bearer or ticket): it states what the guard would imply.
      security: [{ bearer: [] }],
      querystring: SocketQuery,
      response: { 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope, 429: ErrorEnvelope },
    },
    preHandler: async (request, reply) => {
      if (!originAllowed(request, ctx.platform.config)) {
        throw new AppError(E.ACCESS_DENIED, { detail: msg('admin.notifications.originNotAllowed', { origin: request.headers.origin }) });
      }
      const lang = { asked: request.query.lang, upgrade: localeOf(request) };
      grants.set(request, { grant: await push.authenticate(request.query.ticket, request.headers.authorization, lang), reply });
    },
    wsHandler: (socket, request) => {
      const { grant, reply } = grants.get(request)!;
      grants.delete(request);
      // Listeners that would keep the request, its reply and logger alive as long as the
      // socket: the plugin's per-socket error listener (the hub's shared one does its job) and
      // the response's, which an upgraded request never fires.
      socket.removeAllListeners('error');
      reply.raw.removeAllListeners('finish').removeAllListeners('error');
      if (reply.raw.socket) reply.raw.detachSocket(reply.raw.socket);
      push.attach(socket, grant);
    },
    handler: async () => {
      throw new AppError(E.VALIDATION, { detail: msg('admin.notifications.upgradeRequired') });
    },
  });
};

/** Export kinds whose name has a message (admin.notifications.system.exportKind.<kind>); others are named as registered. */
const EXPORT_KINDS = new Set(['admins', 'orders']);

/** The owner of an export task is told when it finished or failed. */
function hookExportTasks(tasks: ExportTasks, notifications: NotificationsService, prefix: string) {
  tasks.onSettled(async (task) => {
    if (task.owner_id === null) return;
    const kind = EXPORT_KINDS.has(task.kind) ? msg(`admin.notifications.system.exportKind.${task.kind}` as MessageKey) : task.kind;
    if (task.status === 'completed') {
      // The text says what is ready; where to download it and until when are fields the console turns into a link.
      await notifications.notify(task.owner_id, {
        kind: 'export',
        title: msg('admin.notifications.system.exportFinishedTitle'),
        content: msg('admin.notifications.system.exportFinished', { kind, id: task.id, rows: task.rows_written }),
        link: `${prefix}/exports/${task.id}/download`,
        linkExpiresAt: task.expires_at,
      });
    } else if (task.status === 'failed') {
      await notifications.notify(task.owner_id, {
        kind: 'export',
        title: msg('admin.notifications.system.exportFailedTitle'),
        content: msg('admin.notifications.system.exportFailed', { kind, id: task.id, error: task.error ?? msg('admin.notifications.system.unknownError') }),
      });
    }
  });
}
