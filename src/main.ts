// Composition root: configuration -> server -> listen, and a graceful stop on SIGTERM/SIGINT:
// readiness fails first, in-flight requests finish, connections close, exit 0.
import { enableCompileCache } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The modules the server runs, imported once Node's compile cache is on (scripts/compile-cache.ts
 * imports them ahead of `npm start`'s server, in a process of its own).
 */
export const serverModules = () =>
  Promise.all([
    import('./platform/config.ts'),
    import('./platform/http/metrics-endpoint.ts'),
    import('./platform/startup.ts'),
    import('./platform/logger.ts'),
    import('./platform/ready-message.ts'),
    import('./server.ts'),
  ]);

/**
 * The server's modules it loads only when a configuration needs them (one database driver, the
 * Redis connection, the S3 storage): scripts/compile-cache.ts compiles them ahead with the rest.
 */
export const lazyServerModules = () =>
  Promise.all([
    import('./platform/db/pglite.ts'),
    import('./platform/db/postgres.ts'),
    import('./platform/redis.ts'),
    import('./platform/storage/s3.ts'),
  ]);

async function main([{ loadConfig }, { listenMetrics }, { endpointOf }, { createLogger, prettyLogs }, { announceReady }, { buildServer }]: Awaited<ReturnType<typeof serverModules>>) {
  const config = loadConfig();
  const log = createLogger(config);
  const database = config.DATABASE_URL ? `PostgreSQL at ${endpointOf(config.DATABASE_URL)}` : `embedded PostgreSQL (PGlite) in ${config.dataDir}`;
  log.info(`starting: opening the database (${database}), applying migrations`);
  const server = await buildServer(config, { logger: log });
  const { app, platform } = server;
  await app.listen({ host: config.HOST, port: config.PORT });
  const address = app.server.address();
  const base = typeof address === 'object' && address ? `${config.TLS_CERT_FILE ? 'https' : 'http'}://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}` : '';
  log.info(
    {
      database: platform.db.kind,
      redis: platform.redis ? 'connected' : 'in-process',
      docs: [...config.services].map((s) => `${base}${s === 'admin' ? '/api/admin' : '/api'}/docs`),
    },
    `listening on ${base} (services: ${[...config.services].join(', ')})`,
  );

  const metricsServer = config.METRICS_PORT > 0
    ? await listenMetrics(platform.metrics, config.METRICS_HOST, config.METRICS_PORT, config.METRICS_TOKEN)
    : undefined;
  announceReady({
    base,
    services: config.services,
    database: `${database}${platform.redis ? ', Redis' : ''}`,
    seconds: performance.now() / 1000,
    metrics: metricsServer ? `http://${config.METRICS_HOST}:${config.METRICS_PORT}/metrics` : config.METRICS_TOKEN ? `${base}/metrics (bearer token)` : undefined,
    credentials: platform.generatedCredentials,
  }, prettyLogs(config.LOG_FORMAT), log);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: readiness now fails, then the listener closes');
    const hardStop = setTimeout(() => {
      log.error('graceful shutdown took too long; exiting');
      process.exit(1);
    }, config.SHUTDOWN_TIMEOUT_MS);
    hardStop.unref();
    server.beginShutdown();
    await sleep(config.SHUTDOWN_DRAIN_MS);
    try {
      metricsServer?.close();
      await server.close();
      log.info('stopped');
      clearTimeout(hardStop);
      process.exit(0);
    } catch (err) {
      log.error({ err }, 'error while shutting down');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

// Node keeps the compiled sources (TypeScript stripped, bytecode) between starts, in the
// system's temporary folder (or NODE_COMPILE_CACHE, as `npm start` sets it): the modules load in
// about half the time from the second start on. Turned on before they are imported, hence the
// dynamic imports.
if (import.meta.main) {
  enableCompileCache();
  const modules = await serverModules();
  main(modules).catch(modules[2].exitOnStartupError);
}
