// The shared mechanisms one process needs, opened once and closed once.
import type { Logger } from 'pino';
import { MemoryKv, RedisKv, type KvStore } from './cache/kv.ts';
import { MemoryPubSub, PostgresPubSub, RedisPubSub, type PubSub } from './cache/pubsub.ts';
import type { Config } from './config.ts';
import { openDatabase, type Database } from './db/database.ts';
import { installedTemplate } from './db/pglite-template.ts';
import { createLogger } from './logger.ts';
import { Metrics } from './metrics.ts';
import type { RedisConnections } from './redis.ts';
import { createStorage, type Storage } from './storage/index.ts';

export interface Platform {
  readonly config: Config;
  readonly logger: Logger;
  readonly db: Database;
  readonly kv: KvStore;
  readonly pubsub: PubSub;
  /** Present when REDIS_URL is set (rate-limit store, readiness). */
  readonly redis: RedisConnections | undefined;
  /** Files (uploads): the local disk or an S3-compatible bucket (STORAGE_DRIVER), one per process for every service. */
  readonly storage: Storage;
  /** Accounts this start created with generated passwords, for the start-up message to show once. */
  readonly generatedCredentials: GeneratedCredential[];
  /** Prometheus metrics; recording is a no-op unless METRICS_TOKEN or METRICS_PORT is set. */
  readonly metrics: Metrics;
  /** Aborted when the process begins to shut down: long requests (an import) stop at their next safe point. */
  readonly stopping: AbortSignal;
  beginStopping(): void;
  /** Readiness: false at once for a dependency in an outage, else whether it answers a probe; redis null without Redis, storage null on the local disk. */
  ping(): Promise<{ database: boolean; redis: boolean | null; storage: boolean | null }>;
  close(): Promise<void>;
}

export interface GeneratedCredential {
  /** `administrator`, `time-clock manager`. */
  account: string;
  username: string;
  password: string;
  /** The command that sets a new one. */
  reset: string;
}

export interface PlatformOptions {
  logger?: Logger;
  pgliteTemplate?: Blob;
  inMemoryDatabase?: boolean;
}

export async function createPlatform(config: Config, opts: PlatformOptions = {}): Promise<Platform> {
  const logger = opts.logger ?? createLogger(config);
  const db = await openDatabase({
    url: config.DATABASE_URL,
    dataDir: config.dataDir,
    poolMax: config.DB_POOL_MAX,
    pgliteSharedBuffersMb: config.PGLITE_SHARED_BUFFERS_MB,
    logger,
    // A new embedded data folder starts from the template made at install time, when there is one.
    pgliteTemplate: opts.pgliteTemplate ?? (config.DATABASE_URL || opts.inMemoryDatabase ? undefined : await installedTemplate()),
    inMemory: opts.inMemoryDatabase ?? false,
    timeoutMs: config.DEPENDENCY_TIMEOUT_MS,
    statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
    longStatementTimeoutMs: config.DB_LONG_STATEMENT_TIMEOUT_MS,
  });
  let redis: RedisConnections | undefined;
  let storage: Storage;
  try {
    // Loaded only when used (ioredis holds about 2 MB of heap).
    if (config.REDIS_URL) redis = await (await import('./redis.ts')).connectRedis(config.REDIS_URL, logger, config.DEPENDENCY_TIMEOUT_MS);
    storage = await createStorage(config, logger);
  } catch (err) {
    if (redis) {
      redis.availability.stop();
      redis.subscriber.disconnect();
      redis.client.disconnect();
    }
    await db.close();
    throw err;
  }
  const prefix = config.REDIS_KEY_PREFIX;
  const kv: KvStore = redis ? new RedisKv(redis.client, prefix, redis.availability) : new MemoryKv();
  const pubsub: PubSub = redis
    ? new RedisPubSub(redis.client, redis.subscriber, prefix, redis.availability, logger)
    : db.kind === 'postgres'
      ? new PostgresPubSub(db, prefix.replace(/\W/g, '_'), logger)
      : new MemoryPubSub(logger);

  const metrics = new Metrics(!!config.METRICS_TOKEN || config.METRICS_PORT > 0);
  metrics.watchPlatform(db, redis?.availability, storage);

  const stopping = new AbortController();
  return {
    metrics,
    generatedCredentials: [],
    config,
    logger,
    db,
    kv,
    pubsub,
    stopping: stopping.signal,
    beginStopping: () => stopping.abort(new Error('shutting down')),
    redis,
    storage,
    async ping() {
      const [database, red, files] = await Promise.all([
        db.availability.check(),
        redis ? redis.availability.check() : null,
        storage.check ? storage.check() : null,
      ]);
      return { database, redis: red, storage: files };
    },
    async close() {
      stopping.abort(new Error('shutting down'));
      await pubsub.close().catch((err: unknown) => logger.warn({ err }, 'closing pub/sub failed'));
      await kv.close();
      await storage.close?.();
      if (redis) {
        redis.availability.stop();
        redis.subscriber.disconnect();
        await redis.client.quit().catch(() => redis?.client.disconnect());
      }
      await db.close();
    },
  };
}
