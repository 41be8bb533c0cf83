// Security: the blacklist of mock-location apps (read by every signed-in user, managed by
// managers), a worker's risk status, and the alert list for managers. Alerts are raised by the
// server from what it observes (../../kernel/security-events.ts); clients cannot post them.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { localeOf } from '../../../platform/http/conventions.ts';
import { assertSelfOrManager } from '../../kernel/auth.ts';
import type { FeatureOptions } from '../../context.ts';
import { errors, UserIdParam } from '../../http.ts';
import {
  AlertIdParam, AlertItem, AlertsQuery, AlertsReply, AlertStepBody, BlacklistBody, BlacklistEntry, BlacklistParam, BlacklistReply, SecurityStatusReply,
} from './security.schema.ts';
import { RISK_THRESHOLDS, RISK_WINDOW_DAYS, SEVERITY_WEIGHT } from '../../kernel/security-events.ts';

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
      description:
        'Newest first; filters `status` (default `unresolved`: `open` and `acknowledged` alerts, so resolved ones leave the default view; `open`, `acknowledged`, `resolved` or `all`), ' +
        '`userId`, `severity`, `type`, `since` (ISO 8601); paging `page` (from 1) and `limit` (1..100, default 20). ' +
        'Each alert has its `status` and, once a manager acknowledged or resolved it, `acknowledged` / `resolved`: `{ at, by: { id, username, full_name }, note }`. ' +
        `Acknowledging or resolving an alert does not change the worker’s risk score (alerts age out of it). ${SCORING}`,
      querystring: AlertsQuery,
      response: { 200: AlertsReply },
    },
  }, async (request) => service.listAlerts(request.query, localeOf(request)));

  const STEP_DOC =
    'Body `{ "note": "…" }` (optional, up to 1000 characters), `{}` or none. Records the calling manager, the time and the note, and answers the alert. ' +
    '404 `NOT_FOUND` for an unknown alert; 409 `ALERT_ALREADY_RESOLVED` for an alert already resolved; `details` say who did it and when (`status`, `at`, `by`).';

  app.post('/managers/security/alerts/:id/acknowledge', {
    config: { access: 'manager' },
    schema: {
      tags,
      summary: 'Acknowledge a security alert (a manager is on it)',
      description: `An \`open\` alert becomes \`acknowledged\`; it stays in the default list until resolved. 409 \`ALERT_ALREADY_ACKNOWLEDGED\` when it was acknowledged already. ${STEP_DOC}`,
      params: AlertIdParam,
      body: AlertStepBody,
      response: { 200: AlertItem, ...errors(404, 409) },
    },
  }, async (request) => service.step('acknowledge', request.params.id, request.user!.userId, request.body?.note, localeOf(request)));

  app.post('/managers/security/alerts/:id/resolve', {
    config: { access: 'manager' },
    schema: {
      tags,
      summary: 'Resolve a security alert',
      description: `An \`open\` or \`acknowledged\` alert becomes \`resolved\` (acknowledging first is not required) and leaves the default list (\`status=resolved\` or \`all\` lists it). ${STEP_DOC}`,
      params: AlertIdParam,
      body: AlertStepBody,
      response: { 200: AlertItem, ...errors(404, 409) },
    },
  }, async (request) => service.step('resolve', request.params.id, request.user!.userId, request.body?.note, localeOf(request)));
};
