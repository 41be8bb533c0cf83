// Builds the whole HTTP server for a configuration without listening: platform, migrations,
// the enabled services under their prefixes, and the process-level health endpoints.
import type { FastifyBaseLogger, FastifyInstance, FastifyPluginAsync, FastifyRequest, onRouteHookHandler } from 'fastify';
import Fastify, { LogController } from 'fastify';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { ADMIN_PREFIX, adminService } from './admin/app.ts';
import type { FeatureOptions } from './admin/context.ts';
import { loadConfig, type Config } from './platform/config.ts';
import { migrate } from './platform/db/migrate.ts';
import { buildValidator, RequestValidationError, validationMessages } from './platform/http/validation.ts';
import { buildSerializer } from './platform/http/serializers.ts';
import { createPlatform, type Platform, type PlatformOptions } from './platform/platform.ts';
import type { PasswordPolicies } from './platform/auth/password-policy.ts';
import { resolveJwtSecret } from './platform/secrets.ts';
import { requestLogger } from './platform/logger.ts';
import { installCors } from './platform/http/cors.ts';
import { limitJsonDepth } from './platform/http/json-body.ts';
import { acceptPending, watchConnections } from './platform/http/connections.ts';
import { installSecurityHeaders, storeOrigin } from './platform/http/security-headers.ts';
import { recordRequests, serveMetrics } from './platform/http/metrics-endpoint.ts';
import { TIMECLOCK_PREFIX, timeclockService } from './timeclock/app.ts';
import { serveWebClients, webRoot } from './web/static.ts';

export interface Server {
  app: FastifyInstance;
  platform: Platform;
  /** Readiness starts failing; the listener keeps serving until close(). */
  beginShutdown(): void;
  close(): Promise<void>;
}

export interface ServerOptions extends PlatformOptions {
  /** Extra routes inside the admin service, given its context (benchmarks, tests). */
  adminExtras?: FastifyPluginAsync<FeatureOptions>;
  /** Sees each service route as it is declared: its options, which the services' own onRoute hooks then complete (tests read the route table). */
  onRoute?: onRouteHookHandler;
}

const TRACE_ID = /^[A-Za-z0-9._:-]{8,128}$/;
/** This process's trace IDs: 32 hex digits, a random half per process and a counter (a UUID per request cost more than the ID is worth). */
const TRACE_PREFIX = randomBytes(8).toString('hex');
let traceCounter = 0;
const nextTraceId = () => TRACE_PREFIX + (++traceCounter).toString(16).padStart(16, '0');

/** Applies the migrations of the enabled services (also `npm run migrate`). */
export async function migrateAll(platform: Platform): Promise<void> {
  for (const service of ['admin', 'timeclock'] as const) {
    if (platform.config.services.has(service)) await migrate(platform.db, service, platform.logger);
  }
}

/** An in-memory database with every migration applied, dumped: what a new embedded database can start from. */
export async function migratedTemplate(): Promise<Blob> {
  const dir = mkdtempSync(path.join(tmpdir(), 'fieldops-template-'));
  try {
    const silent = pino({ level: 'silent' });
    const platform = await createPlatform(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' }), { logger: silent, inMemoryDatabase: true });
    try {
      await migrateAll(platform);
      return await platform.db.dumpTemplate!();
    } finally {
      await platform.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function buildServer(config: Config, opts: ServerOptions = {}): Promise<Server> {
  const platform = await createPlatform(config, opts);
  let shuttingDown = false;
  try {
    await migrateAll(platform);
    const jwtSecret = resolveJwtSecret(config.JWT_SECRET, config.dataDir, platform.logger);

    const loggerInstance: FastifyBaseLogger = platform.logger;
    // Node's headers timeout is off (0): watchConnections enforces HTTP_HEADERS_TIMEOUT_MS instead.
    const httpOptions = { headersTimeout: 0 };
    // HTTPS with a configured certificate and key (Fastify's https server takes the http options too).
    const tls = config.TLS_CERT_FILE && config.TLS_KEY_FILE
      ? { https: { ...httpOptions, cert: readFileSync(config.TLS_CERT_FILE), key: readFileSync(config.TLS_KEY_FILE) } }
      : {};
    const app = Fastify({
      ...(tls as object),
      loggerInstance,
      bodyLimit: config.BODY_LIMIT,
      // The socket address is the client unless TRUST_PROXY names the proxies in front of us;
      // then request.ip is the address the nearest untrusted hop added to X-Forwarded-For.
      trustProxy: config.trustedProxies.length > 0 ? [...config.trustedProxies] : false,
      requestIdHeader: false,
      logController: new LogController({ requestIdLogLabel: 'trace_id' }),
      childLoggerFactory: requestLogger,
      genReqId: (req) => {
        const given = req.headers['x-trace-id'] ?? req.headers['x-request-id'];
        return typeof given === 'string' && TRACE_ID.test(given) ? given : nextTraceId();
      },
      schemaErrorFormatter: (errors, dataVar) => new RequestValidationError(validationMessages(errors, dataVar)),
      // Fastify's type says an Ajv compile function; at run time it calls the result with the route schema.
      schemaController: { compilersFactory: { buildValidator: buildValidator as never, buildSerializer } },
      // No per-plugin start-up timeout: Fastify's default (10 s of wall time per plugin) failed
      // healthy starts on a loaded machine. A start that hangs is bounded elsewhere: the
      // dependencies by DEPENDENCY_TIMEOUT_MS, the process by its orchestrator's start-up probe
      // (tests: STARTUP_LIMIT_MS in test/helpers/app.ts).
      pluginTimeout: 0,
      return503OnClosing: true,
      forceCloseConnections: 'idle',
      // Slow clients: headers within HTTP_HEADERS_TIMEOUT_MS (checked every second, watchConnections),
      // a connection idle for HTTP_IDLE_TIMEOUT_MS closed, keep-alive kept HTTP_KEEP_ALIVE_TIMEOUT_MS;
      // request bodies are limited below (Node's requestTimeout cannot spare uploads).
      http: httpOptions,
      requestTimeout: 0,
      connectionTimeout: config.HTTP_IDLE_TIMEOUT_MS,
      keepAliveTimeout: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    });
    // The headers timeout, and closing the connections idle between requests, never judge a
    // connection before its arrived request is read.
    watchConnections(app.server, { headersTimeoutMs: config.HTTP_HEADERS_TIMEOUT_MS, tls: 'https' in tls });
    // JSON only (uploads add multipart where they need it): anything else is a 415. JSON bodies
    // nest at most JSON_MAX_DEPTH levels (a deeper one is a 400 before anything parses it).
    app.removeContentTypeParser(['text/plain']);
    limitJsonDepth(app);
    await installCors(app, config);
    installSecurityHeaders(app, {
      mapTileUrl: config.CLOCK_MAP_TILE_URL,
      docsPrefixes: [`${ADMIN_PREFIX}/docs`, `${TIMECLOCK_PREFIX}/docs`],
      fileOrigin: platform.storage.presign && config.S3_PUBLIC_ENDPOINT ? storeOrigin(config.S3_PUBLIC_ENDPOINT, config.S3_FORCE_PATH_STYLE) : undefined,
    });
    recordRequests(app, platform.metrics);
    if (config.METRICS_TOKEN) serveMetrics(app, platform.metrics, config.METRICS_TOKEN);
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
    // A body other than a streamed (multipart) upload or import must arrive within
    // HTTP_BODY_TIMEOUT_MS: a client trickling it loses its connection.
    const bodyTimeoutMs = config.HTTP_BODY_TIMEOUT_MS;
    const timesBody = (request: FastifyRequest) =>
      bodyTimeoutMs > 0 &&
      (request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0) &&
      !String(request.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/');
    // Callback hooks (no promise per request): they run on every request.
    app.addHook('onRequest', (request, reply, done) => {
      if (request.headers.upgrade === undefined) {
        inFlight.set(request, { replied: false, closed: false });
        let bodyTimer: NodeJS.Timeout | undefined;
        if (timesBody(request)) {
          bodyTimer = setTimeout(() => {
            if (request.raw.complete) return;
            request.log.info({ timeout_ms: bodyTimeoutMs }, 'request body not received in time; connection closed');
            request.raw.socket.destroy();
          }, bodyTimeoutMs);
        }
        reply.raw.once('close', () => {
          clearTimeout(bodyTimer);
          progress(request, 'closed');
        });
      }
      reply.header('X-Trace-ID', request.id);
      // While shutting down, a finished response also ends its keep-alive connection.
      if (shuttingDown) reply.header('Connection', 'close');
      done();
    });
    app.addHook('onSend', (request, _reply, payload, done) => {
      progress(request, 'replied');
      done(null, payload);
    });

    app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
    app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
      if (shuttingDown) return reply.status(503).send({ status: 'shutting_down' });
      // Redis down is a degraded service, not an unready one: everything but the captcha and
      // WebSocket tickets keeps working, so the instance stays in the load balancer. So is the
      // object store down: only files are refused (503), on every instance alike.
      const checks = await platform.ping();
      const status = !checks.database ? 'unavailable' : checks.redis === false || checks.storage === false ? 'degraded' : 'ready';
      return reply.status(checks.database ? 200 : 503).send({ status, checks });
    });
    // The browser clients (when built): the administration console at `/`, the time-clock app
    // (worker app and manager console) at `/clock/`.
    const webRoute = await serveWebClients(app, [
      ...(config.services.has('admin') ? [{ prefix: '/' as const, root: webRoot('admin') }] : []),
      ...(config.services.has('timeclock') ? [{ prefix: '/clock/' as const, root: webRoot('clock') }] : []),
    ]);
    const services = {
      services: Object.fromEntries(
        [...config.services].map((s) => {
          const prefix = s === 'admin' ? ADMIN_PREFIX : TIMECLOCK_PREFIX;
          return [s, { base: prefix, docs: `${prefix}/docs`, openapi: `${prefix}/docs/openapi.json` }];
        }),
      ),
    };
    // `/`: the console for a browser, the list of services for anything else.
    app.get('/', { schema: { hide: true } }, async (request, reply) => webRoute(request, reply) ?? services);
    app.setNotFoundHandler((request, reply) =>
      webRoute(request, reply) ?? reply.status(404).send({ message: 'Not Found', code: 'NOT_FOUND', details: { path: request.url.split('?')[0] } }),
    );

    if (opts.onRoute) app.addHook('onRoute', opts.onRoute);
    // The one password policy is the back office's (stored in its schema); a time clock in the
    // same process applies it too, and one running without the back office its defaults.
    let passwordPolicies: PasswordPolicies | undefined;
    if (config.services.has('admin')) {
      await app.register(async (admin) => {
        const ctx = await adminService(admin, { platform, jwtSecret });
        passwordPolicies = ctx.passwordPolicies;
        if (opts.adminExtras) await admin.register(opts.adminExtras, { ctx });
      }, { prefix: ADMIN_PREFIX });
    }
    if (config.services.has('timeclock')) {
      await app.register(timeclockService, { prefix: TIMECLOCK_PREFIX, platform, jwtSecret, passwordPolicies });
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
        platform.beginStopping();
      },
      async close() {
        shuttingDown = true;
        platform.beginStopping();
        // Connections that go idle after their in-flight request are closed as they appear.
        const sweeper = setInterval(() => app.server.closeIdleConnections(), 100);
        try {
          // Connections the kernel completed are accepted before the listener closes (new ones are
          // then refused); each is answered, 503 once closing (return503OnClosing).
          // At most a quarter of the hard limit, so that the answers to what it accepted have the rest.
          const accept = app.server.listening ? await acceptPending(app.server, config.SHUTDOWN_TIMEOUT_MS / 4) : undefined;
          const connections = await new Promise<number>((resolve) => app.server.getConnections((_err, n) => resolve(n)));
          platform.logger.info({ accept, connections, requests: inFlight.size }, 'closing the listener');
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
