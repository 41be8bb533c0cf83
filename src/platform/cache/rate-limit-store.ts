// Where @fastify/rate-limit keeps its counters. With Redis, in Redis (so every instance counts
// together) while Redis answers, and in this instance's memory while it does not: a Redis
// outage never takes a limited route down, and the limits still hold, per instance, meanwhile
// (a warning says so once per outage). The counters in memory are forgotten when Redis is back.
// Without Redis, the plugin's own in-memory store.
import { createRequire } from 'node:module';
import type { FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Logger } from 'pino';
import type { RedisConnections } from '../redis.ts';

interface Counter {
  current: number;
  ttl: number;
}
/** The store interface of @fastify/rate-limit (its stores are CommonJS without type declarations). */
interface Store {
  incr(key: string, callback: (err: Error | null, result?: Counter) => void, timeWindow: number, max: number): void;
  child(routeOptions: StoreParams): Store;
}
interface StoreParams {
  continueExceeding?: boolean;
  exponentialBackoff?: boolean;
  cache?: number;
}
type StoreClass = new (...args: unknown[]) => Store;

const require = createRequire(import.meta.url);
const RedisStore = require('@fastify/rate-limit/store/RedisStore') as StoreClass;
const LocalStore = require('@fastify/rate-limit/store/LocalStore') as StoreClass;

class ResilientStore implements Store {
  private readonly shared: Store;
  private readonly local: Store;
  private readonly redis: RedisConnections;
  private readonly onFallback: () => void;

  constructor(shared: Store, local: Store, redis: RedisConnections, onFallback: () => void) {
    this.shared = shared;
    this.local = local;
    this.redis = redis;
    this.onFallback = onFallback;
  }

  incr(key: string, callback: (err: Error | null, result?: Counter) => void, timeWindow: number, max: number): void {
    this.redis.availability
      .run(() => new Promise<Counter>((resolve, reject) => {
        this.shared.incr(key, (err, result) => (err || !result ? reject(err ?? new Error('no counter')) : resolve(result)), timeWindow, max);
      }))
      .then(
        (result) => callback(null, result),
        () => {
          this.onFallback();
          this.local.incr(key, callback, timeWindow, max);
        },
      );
  }

  child(routeOptions: StoreParams): Store {
    return new ResilientStore(this.shared.child(routeOptions), this.local.child(routeOptions), this.redis, this.onFallback);
  }
}

/** Whether the fallback was announced during the current outage, per Redis (one line per outage, whatever the services). */
const announced = new WeakMap<RedisConnections, { warned: boolean }>();

function fallbackNotice(redis: RedisConnections, logger: Logger): () => void {
  let state = announced.get(redis);
  if (!state) {
    const fresh = { warned: false };
    announced.set(redis, (state = fresh));
    redis.availability.onChange((available) => {
      if (available) fresh.warned = false;
    });
  }
  const shared = state;
  return () => {
    if (shared.warned) return;
    shared.warned = true;
    logger.warn('Redis unreachable: rate limits are counted in this instance’s memory until it is back');
  };
}

/** The options that give @fastify/rate-limit its store: `{ store }` with Redis, `{}` (in memory) without. */
export function rateLimitStorage(connections: RedisConnections | undefined, nameSpace: string, logger: Logger): { store?: FastifyRateLimitStoreCtor } {
  if (!connections) return {};
  const redis = connections;
  const onFallback = fallbackNotice(redis, logger);
  return {
    store: class {
      constructor(params: StoreParams) {
        const { continueExceeding, exponentialBackoff, cache } = params;
        return new ResilientStore(
          new RedisStore(continueExceeding, exponentialBackoff, redis.client, nameSpace),
          new LocalStore(continueExceeding, exponentialBackoff, cache),
          redis,
          onFallback,
        );
      }
      // The plugin's type declares the store's incr() without the window and limit it passes.
    } as unknown as FastifyRateLimitStoreCtor,
  };
}
