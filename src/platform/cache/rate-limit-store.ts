// Where @fastify/rate-limit keeps its counters. With Redis, in Redis (so every instance counts
// together) while Redis answers, and in this instance's memory while it does not: a Redis
// outage never takes a limited route down, and the limits still hold, per instance, meanwhile
// (a warning says so once per outage). The counters in memory are forgotten when Redis is back.
// Without Redis, the plugin's own in-memory store.
//
// A rule may ask to be counted approximately (`reconcileMs`, LimitRule in http/rate-limit.ts):
// then each instance counts in its own memory, answering at once, and adds what it counted to
// the shared Redis counter every `reconcileMs` (one pipelined round trip for all keys), taking
// back the total that every instance counted. Within one instance the count is exact; across
// instances, an instance learns of the others' requests at its next reconciliation, so the
// instances together may accept, beyond the limit, at most the requests that the others accepted
// from the same key during one interval (and its round trip). While Redis is down the counts
// stay in memory, as above.
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
  /** Counted in memory, reconciled with Redis every so many milliseconds (see above). */
  reconcileMs?: number;
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
  private readonly nameSpace: string;

  constructor(shared: Store, local: Store, redis: RedisConnections, onFallback: () => void, nameSpace: string) {
    this.shared = shared;
    this.local = local;
    this.redis = redis;
    this.onFallback = onFallback;
    this.nameSpace = nameSpace;
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
    if (routeOptions.reconcileMs) return new ReconciledStore(this.redis, this.nameSpace, routeOptions.reconcileMs, routeOptions.cache, this.onFallback);
    return new ResilientStore(this.shared.child(routeOptions), this.local.child(routeOptions), this.redis, this.onFallback, this.nameSpace);
  }
}

/** One key's count on this instance, in its current window. */
interface Tally {
  window: number;
  /** Epoch ms at which the window ends (Redis's, once reconciled). */
  end: number;
  /** Every instance's count at the last reconciliation (this one's included). */
  shared: number;
  /** Counted here and being added to Redis now. */
  sending: number;
  /** Counted here since. */
  pending: number;
}

/** Adds a count to a key and returns its total and the ms left in its window (which the first count opens). */
const ADD_SCRIPT = `
local total = redis.call('INCRBY', KEYS[1], ARGV[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  ttl = tonumber(ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ttl)
end
return {total, ttl}
`;

type AddCommand = (key: string, count: number, windowMs: number) => unknown;

class ReconciledStore implements Store {
  /** By key, oldest first (insertion order): beyond `keys`, the oldest is dropped. */
  private readonly tallies = new Map<string, Tally>();
  /** Keys counted since the last reconciliation. */
  private dirty: [string, Tally][] = [];
  private timer: NodeJS.Timeout | undefined;
  private sending = false;
  private readonly redis: RedisConnections;
  private readonly nameSpace: string;
  private readonly reconcileMs: number;
  private readonly keys: number;
  private readonly onFallback: () => void;

  constructor(redis: RedisConnections, nameSpace: string, reconcileMs: number, keys: number | undefined, onFallback: () => void) {
    this.redis = redis;
    this.nameSpace = nameSpace;
    this.reconcileMs = reconcileMs;
    this.keys = keys ?? 5000;
    this.onFallback = onFallback;
    if (!(redis.client as unknown as { rateLimitAdd?: AddCommand }).rateLimitAdd) {
      redis.client.defineCommand('rateLimitAdd', { numberOfKeys: 1, lua: ADD_SCRIPT });
    }
  }

  incr(key: string, callback: (err: Error | null, result?: Counter) => void, timeWindow: number): void {
    const now = Date.now();
    let tally = this.tallies.get(key);
    if (!tally || tally.end <= now) {
      if (tally) this.tallies.delete(key);
      else if (this.tallies.size >= this.keys) this.tallies.delete(this.tallies.keys().next().value!);
      tally = { window: timeWindow, end: now + timeWindow, shared: 0, sending: 0, pending: 0 };
      this.tallies.set(key, tally);
    }
    if (tally.pending === 0) this.dirty.push([key, tally]);
    tally.pending += 1;
    this.schedule();
    callback(null, { current: tally.shared + tally.sending + tally.pending, ttl: tally.end - now });
  }

  child(): Store {
    return this;
  }

  private schedule(): void {
    if (!this.timer && !this.sending && this.dirty.length > 0) this.timer = setTimeout(() => this.reconcile(), this.reconcileMs).unref();
  }

  /** Adds every pending count to Redis in one round trip and takes back the totals. */
  private reconcile(): void {
    this.timer = undefined;
    if (this.redis.client.status === 'end') return; // closed with its service: nothing left to share
    const pipeline = this.redis.client.pipeline() as unknown as { rateLimitAdd: AddCommand; exec(): Promise<[Error | null, unknown][] | null> };
    const batch = this.dirty.map(([key, tally]): [Tally, number] => {
      const count = tally.pending;
      tally.pending = 0;
      tally.sending += count;
      pipeline.rateLimitAdd(this.nameSpace + key, count, tally.window);
      return [tally, count];
    });
    this.dirty = [];
    this.sending = true;
    const settle = (results: [Error | null, unknown][] | null | undefined) => {
      const now = Date.now();
      let failed = !results;
      batch.forEach(([tally, count], i) => {
        tally.sending -= count;
        const result = results?.[i];
        if (result && !result[0]) {
          const [total, ttl] = result[1] as [number, number];
          tally.shared = total - tally.sending; // what is still pending here is not in the total yet
          tally.end = now + ttl;
        } else {
          failed = true;
          tally.shared += count; // kept in this instance's count meanwhile
        }
      });
      if (failed) this.onFallback();
    };
    this.redis.availability.run(() => pipeline.exec()).then(settle, () => settle(undefined)).finally(() => {
      this.sending = false;
      this.schedule();
    });
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
          nameSpace,
        );
      }
      // The plugin's type declares the store's incr() without the window and limit it passes.
    } as unknown as FastifyRateLimitStoreCtor,
  };
}
