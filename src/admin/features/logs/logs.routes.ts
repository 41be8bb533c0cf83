// The three logs, read-only: operation (state-changing admin requests), login (every sign-in
// attempt) and system (warnings and errors of the admin service).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FeatureOptions } from '../../context.ts';
import { localeOf } from '../../../platform/http/conventions.ts';
import { okCappedList } from '../../http.ts';
import { LoginLogList, LoginLogQuery, OperationLogList, OperationLogQuery, SystemLogList, SystemLogQuery } from './logs.schema.ts';

const tags = ['Logs'];
const DATES = '`start_date`/`end_date` take `YYYY-MM-DD HH:mm:ss` or `YYYY-MM-DD` (the whole day), both inclusive; a reversed or impossible date is a 400 (30001).';

export const logsRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const { logs } = ctx;

  app.get('/logs/operation', {
    config: { permission: 'log.operation' },
    schema: {
      tags,
      summary: 'Operation log: every state-changing request of a signed-in administrator',
      description: `Rows appear within a moment of the response. \`trace_id\` (an extension of the contract, exact, as for the system log) keeps the rows of the request whose reply carried that trace ID (\`X-Trace-ID\`, the envelope’s \`trace_id\`); it needs no date range. ${DATES}`,
      querystring: OperationLogQuery,
      response: { 200: OperationLogList },
    },
  }, async (request) => {
    const { list, total, capped } = await logs.operations(request.query, request.admin!.scope, localeOf(request));
    return okCappedList(request, list, request.query, total, capped);
  });

  app.get('/logs/login', {
    config: { permission: 'log.login' },
    schema: {
      tags,
      summary: 'Login log: every sign-in attempt with its outcome and where it came from',
      description: 'Each row carries `location`: where its address is (this machine, a private network, or a country and often a city, from the offline GeoLite data shipped with the server; IPv4 only), '
        + 'with the country’s name and a one-line `label` in the reader’s language (Accept-Language). Rows written before locations were recorded say `unknown`. '
        + `\`country\` (ISO 3166-1 alpha-2) keeps the rows placed in that country. ${DATES}`,
      querystring: LoginLogQuery,
      response: { 200: LoginLogList },
    },
  }, async (request) => {
    const { list, total, capped } = await logs.logins(request.query, request.admin!.scope, localeOf(request));
    return okCappedList(request, list, request.query, total, capped);
  });

  app.get('/logs/system', {
    config: { permission: 'log.system' },
    schema: {
      tags,
      summary: 'System log: warnings and errors of the admin service',
      description: `Every warning or error logged while serving an admin request (500s included), with the request’s trace_id. ${DATES}`,
      querystring: SystemLogQuery,
      response: { 200: SystemLogList },
    },
  }, async (request) => {
    const { list, total, capped } = await logs.system(request.query);
    return okCappedList(request, list, request.query, total, capped);
  });
};
