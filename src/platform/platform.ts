// The shared mechanisms one process needs, opened once and closed once.
import type { Redis } from 'ioredis';
import pino, { type Logger } from 'pino';
import { MemoryKv, RedisKv, type KvStore } from './cache/kv.ts';
import { MemoryPubSub, PostgresPubSub, RedisPubSub, type PubSub } from './cache/pubsub.ts';
import type { Config } from './config.ts';
import { openDatabase, type Database } from './db/database.ts';
import { loggerOptions } from './logger.ts';
import { connectRedis } from './redis.ts';

export interface Platform {
  readonly config: Config;
  readonly logger: Logger;
  readonly db: Database;
  readonly kv: KvStore;
  readonly pubsub: PubSub;
  /** Present when REDIS_URL is set (rate-limit store, readiness). */
  readonly redis: Redis | undefined;
  ping(): Promise<{ database: boolean; redis: boolean | null }>;
  close(): Promise<void>;
}

export interface PlatformOptions {
  logger?: Logger;
  pgliteTemplate?: Blob;
  inMemoryDatabase?: boolean;
}

export async function createPlatform(config: Config, opts: PlatformOptions = {}): Promise<Platform> {
  const logger = opts.logger ?? pino(loggerOptions(config.LOG_LEVEL));
  const db = await openDatabase({
    url: config.DATABASE_URL,
    dataDir: config.dataDir,
    poolMax: config.DB_POOL_MAX,
    logger,
    pgliteTemplate: opts.pgliteTemplate,
    inMemory: opts.inMemoryDatabase ?? false,
  });
  let redis: { client: Redis; subscriber: Redis } | undefined;
  try {
    if (config.REDIS_URL) redis = await connectRedis(config.REDIS_URL, logger);
  } catch (err) {
    await db.close();
    throw err;
  }
  const prefix = config.REDIS_KEY_PREFIX;
  const kv: KvStore = redis ? new RedisKv(redis.client, prefix) : new MemoryKv();
  const pubsub: PubSub = redis
    ? new RedisPubSub(redis.client, redis.subscriber, prefix, logger)
    : db.kind === 'postgres'
      ? new PostgresPubSub(db, prefix.replace(/\W/g, '_'), logger)
      : new MemoryPubSub(logger);

  const within = <T>(p: Promise<T>, ms: number) =>
    Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref())]);

  return {
    config,
    logger,
    db,
    kv,
    pubsub,
    redis: redis?.client,
    async ping() {
      const database = await within(db.ping(), 2000).then(() => true, () => false);
      const red = redis ? await within(redis.client.ping(), 2000).then(() => true, () => false) : null;
      return { database, redis: red };
    },
    async close() {
      await pubsub.close().catch((err: unknown) => logger.warn({ err }, 'closing pub/sub failed'));
      await kv.close();
      if (redis) {
        redis.subscriber.disconnect();
        await redis.client.quit().catch(() => redis?.client.disconnect());
      }
      await db.close();
    },
  };
}
