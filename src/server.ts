// Builds the whole HTTP server for a configuration without listening: platform, migrations,
// the enabled services under their prefixes, and the process-level health endpoints.
import type { FastifyBaseLogger, FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import Fastify, { LogController } from 'fastify';
import { randomUUID } from 'node:crypto';
import { ADMIN_PREFIX, adminService } from './admin/app.ts';
import type { Config } from './platform/config.ts';
import { migrate } from './platform/db/migrate.ts';
import { buildValidator, describeValidation } from './platform/http/validation.ts';
import { createPlatform, type Platform, type PlatformOptions } from './platform/platform.ts';
import { resolveJwtSecret } from './platform/secrets.ts';
import { TIMECLOCK_PREFIX, timeclockService } from './timeclock/app.ts';

export interface Server {
  app: FastifyInstance;
  platform: Platform;
  /** Readiness starts failing; the listener keeps serving until close(). */
  beginShutdown(): void;
  close(): Promise<void>;
}

export interface ServerOptions extends PlatformOptions {
  /** Extra routes inside the admin service context (benchmarks). */
  adminExtras?: FastifyPluginAsync;
}

const TRACE_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** Applies the migrations of the enabled services (also `npm run migrate`). */
export async function migrateAll(platform: Platform): Promise<void> {
  for (const service of ['admin', 'timeclock'] as const) {
    if (platform.config.services.has(service)) await migrate(platform.db, service, platform.logger);
  }
}

export async function buildServer(config: Config, opts: ServerOptions = {}): Promise<Server> {
  const platform = await createPlatform(config, opts);
  let shuttingDown = false;
  try {
    await migrateAll(platform);
    const jwtSecret = resolveJwtSecret(config.JWT_SECRET, config.dataDir, platform.logger);

    const loggerInstance: FastifyBaseLogger = platform.logger;
    const app = Fastify({
      loggerInstance,
      bodyLimit: config.BODY_LIMIT,
      // The socket address is the client unless TRUST_PROXY names the proxies in front of us;
      // then request.ip is the address the nearest untrusted hop added to X-Forwarded-For.
      trustProxy: config.trustedProxies.length > 0 ? [...config.trustedProxies] : false,
      requestIdHeader: false,
      logController: new LogController({ requestIdLogLabel: 'trace_id' }),
      genReqId: (req) => {
        const given = req.headers['x-trace-id'] ?? req.headers['x-request-id'];
        return typeof given === 'string' && TRACE_ID.test(given) ? given : randomUUID().replaceAll('-', '');
      },
      schemaErrorFormatter: (errors, dataVar) => new Error(describeValidation(errors, dataVar)),
      // Fastify's type says an Ajv compile function; at run time it calls the result with the route schema.
      schemaController: { compilersFactory: { buildValidator: buildValidator as never } },
      return503OnClosing: true,
      forceCloseConnections: 'idle',
      routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    });
    // JSON only (uploads add multipart where they need it): anything else is a 415.
    app.removeContentTypeParser(['text/plain']);
    // Requests still being handled. Fastify's close() waits for connections, not handlers: a
    // client that hangs up mid-request (a login still hashing, an order being saved) leaves its
    // handler running, with no onResponse ever to come. A request is done once its reply is
    // produced (onSend) and its response has closed (sent, or its connection gone), in either
    // order. WebSocket upgrades are left out: their sockets end in the notification hub's preClose.
    const inFlight = new Map<FastifyRequest, { replied: boolean; closed: boolean }>();
    let allDone: (() => void) | undefined;
    const progress = (request: FastifyRequest, step: 'replied' | 'closed') => {
      const state = inFlight.get(request);
      if (!state) return;
      state[step] = true;
      if (state.replied && state.closed && inFlight.delete(request) && inFlight.size === 0) allDone?.();
    };
    app.addHook('onRequest', async (request, reply) => {
      if (request.headers.upgrade === undefined) {
        inFlight.set(request, { replied: false, closed: false });
        reply.raw.once('close', () => progress(request, 'closed'));
      }
      reply.header('X-Trace-ID', request.id);
      // While shutting down, a finished response also ends its keep-alive connection.
      if (shuttingDown) reply.header('Connection', 'close');
    });
    app.addHook('onSend', async (request, _reply, payload) => {
      progress(request, 'replied');
      return payload;
    });

    app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
    app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
      if (shuttingDown) return reply.status(503).send({ status: 'shutting_down' });
      const checks = await platform.ping();
      const ready = checks.database && checks.redis !== false;
      return reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'unavailable', checks });
    });
    app.get('/', { schema: { hide: true } }, async () => ({
      services: Object.fromEntries(
        [...config.services].map((s) => {
          const prefix = s === 'admin' ? ADMIN_PREFIX : TIMECLOCK_PREFIX;
          return [s, { base: prefix, docs: `${prefix}/docs`, openapi: `${prefix}/docs/openapi.json` }];
        }),
      ),
    }));
    app.setNotFoundHandler((request, reply) =>
      reply.status(404).send({ message: 'Not Found', code: 'NOT_FOUND', details: { path: request.url.split('?')[0] } }),
    );

    if (config.services.has('admin')) {
      await app.register(async (admin) => {
        await adminService(admin, { platform, jwtSecret });
        if (opts.adminExtras) await admin.register(opts.adminExtras);
      }, { prefix: ADMIN_PREFIX });
    }
    if (config.services.has('timeclock')) {
      await app.register(timeclockService, { prefix: TIMECLOCK_PREFIX, platform, jwtSecret });
    }
    // onClose hooks run last-registered first: this one runs right after the listener has
    // closed and before the services' own hooks (log writers, pollers) and the database close.
    app.addHook('onClose', async () => {
      if (inFlight.size === 0) return;
      platform.logger.info({ requests: inFlight.size }, 'waiting for the handlers of requests whose clients have gone');
      await new Promise<void>((resolve) => (allDone = resolve));
    });
    await app.ready();

    return {
      app,
      platform,
      beginShutdown() {
        shuttingDown = true;
      },
      async close() {
        shuttingDown = true;
        // Connections that go idle after their in-flight request are closed as they appear.
        const sweeper = setInterval(() => app.server.closeIdleConnections(), 100);
        try {
          await app.close();
        } finally {
          clearInterval(sweeper);
        }
        await platform.close();
      },
    };
  } catch (err) {
    await platform.close().catch(() => {});
    throw err;
  }
}
