import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Config } from '../../../platform/config.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { formatDisplay } from '../../../platform/time.ts';
import { E } from '../../errors.ts';
import { authErrors, ErrorEnvelope, ok, okList } from '../../http.ts';
import type { Principal } from '../../guard.ts';
import type { NotificationService } from '../notifications/notifications.service.ts';
import type { SessionService } from './sessions.service.ts';
import { BatchKickBody, KickReply, OnlineList, OnlineQuery, TokenIdParam } from './sessions.schema.ts';

const tags = ['Online administrators'];
const security = [{ bearer: [] }];

export const sessionsRoutes: FastifyPluginAsyncTypebox<{
  sessions: SessionService;
  config: Config;
  isProtected: (adminId: number) => Promise<boolean>;
  notifications: NotificationService;
}> = async (app, { sessions, config, isProtected, notifications }) => {
  const tz = config.DISPLAY_TIMEZONE;

  /** Ends live sessions among `ids`; refuses the whole call if one belongs to a protected administrator other than the caller. */
  async function kick(caller: Principal, ids: number[]) {
    const owners = await sessions.liveOwners(ids);
    for (const owner of owners) {
      if (owner.adminId !== caller.adminId && (await isProtected(owner.adminId))) {
        throw new AppError(E.ACCESS_DENIED, { detail: `session ${owner.id} belongs to protected administrator ${owner.username}` });
      }
    }
    const kicked = await sessions.end(owners.map((o) => o.id), 'kicked');
    await notifyKicked(caller, owners.filter((o) => kicked.includes(o.id) && o.adminId !== caller.adminId));
    return { kicked, not_found: ids.filter((id) => !kicked.includes(id)) };
  }

  /** Each administrator whose sessions someone else ended is told so (one notification each). */
  async function notifyKicked(caller: Principal, owners: { id: number; adminId: number }[]) {
    const byAdmin = Map.groupBy(owners, (o) => o.adminId);
    for (const [adminId, ended] of byAdmin) {
      const ids = ended.map((o) => o.id).join(', ');
      await notifications.notify(adminId, {
        kind: 'session',
        title: 'Signed out by an administrator',
        content: `Administrator ${caller.username} ended your session${ended.length > 1 ? 's' : ''} ${ids}. Sign in again to continue; if you did not expect this, contact them.`,
      });
    }
  }

  app.get('/online-admins', {
    config: { permission: 'online.list' },
    schema: { tags, summary: 'Live administrator sessions', security, querystring: OnlineQuery, response: { 200: OnlineList, ...authErrors } },
  }, async (request) => {
    const { rows, total } = await sessions.listLive(request.query);
    const list = rows.map((r) => ({
      ...r,
      login_at: formatDisplay(r.login_at, tz)!,
      last_active_at: formatDisplay(r.last_active_at, tz)!,
      expires_at: formatDisplay(r.expires_at, tz)!,
      is_current: r.token_id === request.admin!.sessionId,
    }));
    return okList(request, list, request.query, total);
  });

  app.delete('/online-admins/:token_id', {
    config: { permission: 'online.kick' },
    schema: {
      tags,
      summary: 'Force one session to log out',
      description: 'Sessions of protected administrators cannot be ended by others (403, 20003).',
      security,
      params: TokenIdParam,
      response: { 200: KickReply, ...authErrors, 404: ErrorEnvelope },
    },
  }, async (request) => {
    const result = await kick(request.admin!, [request.params.token_id]);
    if (result.kicked.length === 0) throw new AppError(E.DATA_NOT_FOUND, { detail: `no live session ${request.params.token_id}` });
    return ok(request, result);
  });

  app.post('/online-admins/batch-kick-out', {
    config: { permission: 'online.kick' },
    schema: {
      tags,
      summary: 'Force several sessions to log out',
      description: 'All or nothing: if one session belongs to a protected administrator other than the caller, none is ended. Ids that are not live sessions are reported in `not_found`.',
      security,
      body: BatchKickBody,
      response: { 200: KickReply, ...authErrors },
    },
  }, async (request) => ok(request, await kick(request.admin!, request.body.token_ids)));
};
