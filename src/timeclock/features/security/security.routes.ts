// Security: the blacklist of mock-location apps (read by every signed-in user, managed by
// managers), a worker's risk status, and the alert list for managers. Alerts are raised by the
// server from what it observes (security.service.ts); clients cannot post them.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { assertSelfOrManager } from '../../auth.ts';
import type { FeatureOptions } from '../../context.ts';
import { errors, UserIdParam } from '../../http.ts';
import {
  AlertsQuery, AlertsReply, BlacklistBody, BlacklistEntry, BlacklistParam, BlacklistReply, SecurityStatusReply,
} from './security.schema.ts';
import { RISK_THRESHOLDS, RISK_WINDOW_DAYS, SEVERITY_WEIGHT } from './security.service.ts';

const tags = ['Security'];
const SCORING = `Risk score: the alerts of the last ${RISK_WINDOW_DAYS} days weighted by severity (low ${SEVERITY_WEIGHT.low}, medium ${SEVERITY_WEIGHT.medium}, high ${SEVERITY_WEIGHT.high}), capped at 100; `
  + `level high from ${RISK_THRESHOLDS.high}, medium from ${RISK_THRESHOLDS.medium}, low below. Alerts come from refused clock events outside the fence, invalid QR codes, duplicate events, `
  + 'punches captured before an event already recorded (`out_of_order_event`), forced clock-outs, late punches with an implausible gap (`late_punch`), '
  + 'device mismatches, impossible travel between consecutive positions and implausible accuracy.';

export const securityRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const service = ctx.security;

  app.get('/security/app-blacklist', {
    config: { access: 'user' },
    schema: {
      tags,
      summary: 'Blacklisted application package identifiers',
      description: 'Mock-location and GPS-spoofing apps a client should refuse to run alongside; managed by managers under `/api/managers/security/app-blacklist`.',
      response: { 200: BlacklistReply },
    },
  }, async () => service.blacklist());

  app.post('/managers/security/app-blacklist', {
    config: { access: 'manager' },
    schema: {
      tags,
      summary: 'Add an application to the blacklist',
      description: '201 when added; 200 with the existing entry when it was listed already (idempotent).',
      body: BlacklistBody,
      response: { 200: BlacklistEntry, 201: BlacklistEntry },
    },
  }, async (request, reply) => {
    const { added, entry } = await service.addToBlacklist(request.body.packageId);
    return reply.status(added ? 201 : 200).send(entry);
  });

  app.delete('/managers/security/app-blacklist/:packageId', {
    config: { access: 'manager' },
    schema: {
      tags,
      summary: 'Remove an application from the blacklist',
      params: BlacklistParam,
      response: { 204: Type.Null(), ...errors(404) },
    },
  }, async (request, reply) => {
    await service.removeFromBlacklist(request.params.packageId);
    return reply.status(204).send(null);
  });

  app.get('/security/status/:userId', {
    config: { access: 'user' },
    schema: {
      tags,
      summary: 'Security status of a worker',
      description: `The worker themself or a manager. \`latestSecurityCheck\` is the risk recorded at the latest alert; \`securityStatus\` is the level now (alerts age out). ${SCORING}`,
      params: UserIdParam,
      response: { 200: SecurityStatusReply, ...errors(403, 404) },
    },
  }, async (request) => {
    const { userId } = request.params;
    assertSelfOrManager(request, userId);
    return service.status(userId);
  });

  app.get('/managers/security/alerts', {
    config: { access: 'manager' },
    schema: {
      tags,
      summary: 'Security alerts across workers',
      description: `Newest first; filters \`userId\`, \`severity\`, \`type\`, \`since\` (ISO 8601); paging \`page\` (from 1) and \`limit\` (1..100, default 20). ${SCORING}`,
      querystring: AlertsQuery,
      response: { 200: AlertsReply },
    },
  }, async (request) => service.listAlerts(request.query));
};
