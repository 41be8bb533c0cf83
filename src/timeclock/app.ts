// The worker time-clock service (/api): its own error shape `{ message, code, details }`,
// its health endpoint and its OpenAPI page. Features register here.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { installConventions, registerDocs } from '../platform/http/conventions.ts';
import type { Platform } from '../platform/platform.ts';
import { ensureBootstrapManager } from './bootstrap.ts';
import { E, TIMECLOCK_FRAMEWORK_ERRORS } from './errors.ts';

export const TIMECLOCK_PREFIX = '/api';

export interface TimeclockOptions {
  platform: Platform;
  jwtSecret: string;
}

export const ErrorBody = Type.Object(
  { message: Type.String(), code: Type.String(), details: Type.Object({}, { additionalProperties: true }) },
  { description: 'error' },
);

const ERROR_TABLE = Object.values(E)
  .map((d) => `| ${d.code} | ${d.status} | ${d.message['en-US']} |`)
  .join('\n');

export async function timeclockService(app: FastifyInstance, { platform }: TimeclockOptions): Promise<void> {
  installConventions(app, {
    errors: TIMECLOCK_FRAMEWORK_ERRORS,
    render: ({ def, message, details }) => ({ message, code: def.code, details }),
  });

  await registerDocs(app, {
    decorator: 'timeclockOpenapi',
    route: `${TIMECLOCK_PREFIX}/docs`,
    title: 'Worker time-clock API',
    version: '1.0',
    description: [
      'Success bodies are exactly as the contract lists them; errors are `{ message, code, details }`.',
      'Authenticate with `Authorization: Bearer <token>` from `POST /api/auth/login`.',
      '',
      '| code | HTTP | meaning |',
      '|---|---|---|',
      ERROR_TABLE,
    ].join('\n'),
  });

  app.get('/health', {
    schema: {
      tags: ['Health'],
      summary: 'Time-clock service health: database reachable',
      response: { 200: Type.Object({ status: Type.Literal('ok'), service: Type.Literal('timeclock') }), 503: ErrorBody },
    },
  }, async (_request, reply) => {
    const { database } = await platform.ping();
    if (!database) return reply.status(503).send({ message: 'database unreachable', code: 'INTERNAL_ERROR', details: {} });
    return { status: 'ok' as const, service: 'timeclock' as const };
  });

  app.addHook('onReady', async () => ensureBootstrapManager(platform.db, platform.config, platform.logger));
}
