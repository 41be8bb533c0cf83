// Short-lived shared state (captcha answers, pending authenticator secrets, tickets): Redis when
// configured so every instance sees the same values, otherwise an in-process map.
import type { Redis } from 'ioredis';
import type { Availability } from '../availability.ts';

export interface KvStore {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /** Reads and deletes in one step: a value can be taken once. */
  take(key: string): Promise<string | null>;
  del(key: string): Promise<void>;
  /** Milliseconds the key still lives, or 0 when it does not exist. */
  ttl(key: string): Promise<number>;
  close(): Promise<void>;
}

/** Values in Redis; during a Redis outage every call is refused at once with ServiceUnavailable (503). */
export class RedisKv implements KvStore {
  private readonly redis: Redis;
  private readonly prefix: string;
  private readonly availability: Availability;
  constructor(redis: Redis, prefix: string, availability: Availability) {
    this.redis = redis;
    this.prefix = prefix;
    this.availability = availability;
  }
  private k(key: string) {
    return this.prefix + key;
  }
  async get(key: string) {
    return this.availability.run(() => this.redis.get(this.k(key)));
  }
  async set(key: string, value: string, ttlMs: number) {
    await this.availability.run(() => this.redis.set(this.k(key), value, 'PX', ttlMs));
  }
  async take(key: string) {
    return this.availability.run(() => this.redis.getdel(this.k(key)));
  }
  async del(key: string) {
    await this.availability.run(() => this.redis.del(this.k(key)));
  }
  async ttl(key: string) {
    return Math.max(0, await this.availability.run(() => this.redis.pttl(this.k(key))));
  }
  async close() {}
}

export class MemoryKv implements KvStore {
  private readonly map = new Map<string, { value: string; expiresAt: number }>();
  private readonly sweeper: NodeJS.Timeout;
  constructor() {
    this.sweeper = setInterval(() => {
      const now = Date.now();
      for (const [k, v] of this.map) if (v.expiresAt <= now) this.map.delete(k);
    }, 30_000);
    this.sweeper.unref();
  }
  private live(key: string) {
    const entry = this.map.get(key);
    if (entry && entry.expiresAt <= Date.now()) {
      this.map.delete(key);
      return undefined;
    }
    return entry;
  }
  async get(key: string) {
    return this.live(key)?.value ?? null;
  }
  async set(key: string, value: string, ttlMs: number) {
    this.map.set(key, { value, expiresAt: Date.now() + ttlMs });
  }
  async take(key: string) {
    const value = this.live(key)?.value ?? null;
    this.map.delete(key);
    return value;
  }
  async del(key: string) {
    this.map.delete(key);
  }
  async ttl(key: string) {
    const entry = this.live(key);
    return entry ? entry.expiresAt - Date.now() : 0;
  }
  async close() {
    clearInterval(this.sweeper);
    this.map.clear();
  }
}
