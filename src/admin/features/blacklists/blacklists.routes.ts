// IP blacklist rules (CRUD and batch delete). Every change applies on this instance before the
// reply and on the others within a second (see blacklists.service.ts); the gate that enforces
// the rules is blacklists.gate.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FeatureOptions } from '../../context.ts';
import { audited } from '../../kernel/audit.ts';
import { ErrorEnvelope, IdParam, ok, okList } from '../../http.ts';
import {
  BatchDeleteBody, BlacklistList, BlacklistQuery, BlacklistReply, CreateBlacklistBody, DeleteReply, UpdateBlacklistBody,
} from './blacklists.schema.ts';
import { renderBlacklist } from './blacklists.view.ts';

const tags = ['IP blacklist'];

const RULE_FORMS =
  '`ip` is an IPv4 or IPv6 address, a CIDR block (`203.0.113.0/24`, `2001:db8::/32`) or a range `start-end` of one family; '
  + 'anything else, a prefix beyond 32/128 or a range whose start is after its end is a 400 (30001). It is stored in canonical form '
  + '(host bits cleared, IPv6 compressed, IPv4-mapped IPv6 as IPv4, a one-address block or range as the address); the same rule twice is a 400 (30002). '
  + 'An active rule (status 1) that covers the caller’s own current address is refused with 400 (40001), so that an administrator cannot lock themself out by mistake.';

export const blacklistsRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const service = ctx.blacklists;
  const tz = ctx.platform.config.DISPLAY_TIMEZONE;
  const audit = audited('blacklist', async (id) => renderBlacklist(await service.get(id), tz));

  app.get('/blacklists', {
    config: { permission: 'blacklist.list' },
    schema: {
      tags,
      summary: 'IP blacklist rules',
      description: 'Paged; `ip` is a fuzzy filter over the stored rule text; `status` 1 active / 0 inactive.',
      querystring: BlacklistQuery,
      response: { 200: BlacklistList },
    },
  }, async (request) => {
    const { rows, total } = await service.list(request.query);
    return okList(request, rows.map((r) => renderBlacklist(r, tz)), request.query, total);
  });

  app.post('/blacklists', {
    config: { permission: 'blacklist.create', audit },
    schema: {
      tags,
      summary: 'Add an IP blacklist rule',
      description: `Active rules refuse every admin request (login included) from a covered address with 403 (20003), on every instance within a second. ${RULE_FORMS}`,
      body: CreateBlacklistBody,
      response: { 200: BlacklistReply },
    },
  }, async (request) => ok(request, renderBlacklist(await service.create(request.body, request.ip), tz)));

  app.get('/blacklists/:id', {
    config: { permission: 'blacklist.list' },
    schema: { tags, summary: 'One IP blacklist rule', params: IdParam, response: { 200: BlacklistReply, 404: ErrorEnvelope } },
  }, async (request) => ok(request, renderBlacklist(await service.get(request.params.id), tz)));

  app.put('/blacklists/:id', {
    config: { permission: 'blacklist.update', audit },
    schema: {
      tags,
      summary: 'Change an IP blacklist rule',
      description: `Send any of \`ip\`, \`remark\`, \`status\`; the others are kept. ${RULE_FORMS}`,
      params: IdParam,
      body: UpdateBlacklistBody,
      response: { 200: BlacklistReply, 404: ErrorEnvelope },
    },
  }, async (request) => ok(request, renderBlacklist(await service.update(request.params.id, request.body, request.ip), tz)));

  app.delete('/blacklists/batch', {
    config: { permission: 'blacklist.delete', audit: { ...audit, ids: (request) => (request.body as { ids: number[] }).ids } },
    schema: {
      tags,
      summary: 'Delete several IP blacklist rules',
      description: 'One statement: the existing rules among `ids` are deleted together; ids that do not exist are reported in `not_found`.',
      body: BatchDeleteBody,
      response: { 200: DeleteReply },
    },
  }, async (request) => ok(request, await service.removeMany(request.body.ids)));

  app.delete('/blacklists/:id', {
    config: { permission: 'blacklist.delete', audit },
    schema: { tags, summary: 'Delete an IP blacklist rule', params: IdParam, response: { 200: DeleteReply, 404: ErrorEnvelope } },
  }, async (request) => {
    await service.remove(request.params.id);
    return ok(request, { deleted: 1, not_found: [] });
  });
};
