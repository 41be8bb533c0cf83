// Messages to every instance (session revocations, permission changes, live pushes).
// Redis pub/sub when configured; without Redis, PostgreSQL LISTEN/NOTIFY when several
// instances share a PostgreSQL server; an in-process emitter for the embedded database.
// Publishing never fails the caller: a message that cannot be sent (Redis or the database
// down) is logged and lost. Every use is a speed-up of something that also happens without it
// (instances check sessions and grants against the database at least every SESSION_CACHE_MS,
// notifications are stored before they are pushed), so an outage delays, and loses nothing.
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Availability } from '../availability.ts';
import type { Database } from '../db/database.ts';

export type Handler = (message: unknown) => void;

export interface PubSub {
  readonly kind: 'redis' | 'postgres' | 'memory';
  /** Sends to every instance; never rejects (a failure is logged). */
  publish(channel: string, message: unknown): Promise<void>;
  subscribe(channel: string, handler: Handler): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** Shared bookkeeping: one upstream subscription per channel, many local handlers. */
abstract class FanOut {
  protected readonly handlers = new Map<string, Set<Handler>>();
  protected readonly logger: Logger;
  constructor(logger: Logger) {
    this.logger = logger;
  }
  protected deliver(channel: string, raw: string) {
    let message: unknown;
    try {
      message = JSON.parse(raw);
    } catch {
      this.logger.warn({ channel }, 'dropped a pub/sub message that is not JSON');
      return;
    }
    for (const h of this.handlers.get(channel) ?? []) {
      try {
        h(message);
      } catch (err) {
        this.logger.error({ err, channel }, 'pub/sub handler failed');
      }
    }
  }
  /** Runs a publish; a failure is logged (once in a row), not thrown. */
  private failing = false;
  protected async sending(channel: string, send: () => Promise<unknown>): Promise<void> {
    try {
      await send();
      this.failing = false;
    } catch (err) {
      if (!this.failing) this.logger.warn({ err, channel }, 'pub/sub message not sent; instances catch up from the database');
      this.failing = true;
    }
  }
  protected abstract upstreamSubscribe(channel: string): Promise<void>;
  protected abstract upstreamUnsubscribe(channel: string): Promise<void>;
  async subscribe(channel: string, handler: Handler) {
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      await this.upstreamSubscribe(channel);
    }
    set.add(handler);
    return async () => {
      set.delete(handler);
      if (set.size === 0 && this.handlers.get(channel) === set) {
        this.handlers.delete(channel);
        await this.upstreamUnsubscribe(channel);
      }
    };
  }
}

export class RedisPubSub extends FanOut implements PubSub {
  readonly kind = 'redis';
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly prefix: string;
  private readonly availability: Availability;
  constructor(pub: Redis, sub: Redis, prefix: string, availability: Availability, logger: Logger) {
    super(logger);
    this.pub = pub;
    this.sub = sub;
    this.prefix = prefix;
    this.availability = availability;
    sub.on('message', (ch: string, raw: string) => {
      if (ch.startsWith(prefix)) this.deliver(ch.slice(prefix.length), raw);
    });
  }
  async publish(channel: string, message: unknown) {
    await this.sending(channel, () => this.availability.run(() => this.pub.publish(this.prefix + channel, JSON.stringify(message))));
  }
  protected async upstreamSubscribe(channel: string) {
    await this.sub.subscribe(this.prefix + channel);
  }
  protected async upstreamUnsubscribe(channel: string) {
    await this.sub.unsubscribe(this.prefix + channel);
  }
  async close() {
    this.handlers.clear();
    this.sub.disconnect();
  }
}

export class PostgresPubSub extends FanOut implements PubSub {
  readonly kind = 'postgres';
  private readonly db: Database;
  private readonly prefix: string;
  private readonly unlisteners = new Map<string, () => Promise<void>>();
  constructor(db: Database, prefix: string, logger: Logger) {
    super(logger);
    this.db = db;
    this.prefix = prefix;
  }
  async publish(channel: string, message: unknown) {
    await this.sending(channel, () => this.db.notify(this.prefix + channel, JSON.stringify(message)));
  }
  protected async upstreamSubscribe(channel: string) {
    this.unlisteners.set(channel, await this.db.listen(this.prefix + channel, (raw) => this.deliver(channel, raw)));
  }
  protected async upstreamUnsubscribe(channel: string) {
    await this.unlisteners.get(channel)?.();
    this.unlisteners.delete(channel);
  }
  async close() {
    this.handlers.clear();
    for (const stop of this.unlisteners.values()) await stop().catch(() => {});
    this.unlisteners.clear();
  }
}

export class MemoryPubSub extends FanOut implements PubSub {
  readonly kind = 'memory';
  async publish(channel: string, message: unknown) {
    const raw = JSON.stringify(message);
    queueMicrotask(() => this.deliver(channel, raw));
  }
  protected async upstreamSubscribe() {}
  protected async upstreamUnsubscribe() {}
  async close() {
    this.handlers.clear();
  }
}
