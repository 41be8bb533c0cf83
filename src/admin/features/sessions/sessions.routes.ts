import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError } from '../../../platform/http/errors.ts';
import type { FeatureOptions } from '../../context.ts';
import type { AuditSpec } from '../../kernel/audit.ts';
import { E } from '../../errors.ts';
import { ErrorEnvelope, ok, okList } from '../../http.ts';
import { BatchKickBody, KickReply, OnlineList, OnlineQuery, TokenIdParam } from './sessions.schema.ts';
import { msg } from '../../../platform/i18n.ts';

const tags = ['Online administrators'];

export const sessionsRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const online = ctx.onlineAdmins;
  // A kick-out ends the session (it stays, with when and why it ended): read again after.
  const audit: AuditSpec = { entity: 'session', after: 'load', ids: (request) => [(request.params as { token_id: number }).token_id], load: (id) => online.auditRecord(Number(id)) };

  app.get('/online-admins', {
    config: { permission: 'online.list' },
    schema: { tags, summary: 'Live administrator sessions', querystring: OnlineQuery, response: { 200: OnlineList } },
  }, async (request) => {
    const { list, total } = await online.list(request.query, request.admin!);
    return okList(request, list, request.query, total);
  });

  app.delete('/online-admins/:token_id', {
    config: { permission: 'online.kick', audit },
    schema: {
      tags,
      summary: 'Force one session to log out',
      description: 'Sessions of protected administrators cannot be ended by others (403, 20003).',
      params: TokenIdParam,
      response: { 200: KickReply, 404: ErrorEnvelope },
    },
  }, async (request) => {
    const result = await online.kick(request.admin!, [request.params.token_id]);
    if (result.kicked.length === 0) throw new AppError(E.DATA_NOT_FOUND, { detail: msg('admin.sessions.sessionNotFound', { token_id: request.params.token_id }) });
    return ok(request, result);
  });

  app.post('/online-admins/batch-kick-out', {
    config: { permission: 'online.kick', audit: { ...audit, ids: (request) => (request.body as { token_ids: number[] }).token_ids } },
    schema: {
      tags,
      summary: 'Force several sessions to log out',
      description: 'All or nothing: if one session belongs to a protected administrator other than the caller, none is ended. Ids that are not live sessions are reported in `not_found`.',
      body: BatchKickBody,
      response: { 200: KickReply },
    },
  }, async (request) => ok(request, await online.kick(request.admin!, request.body.token_ids)));
};
