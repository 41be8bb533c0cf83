// Short-lived shared state and pub/sub. The in-process implementations always run; the Redis
// ones when TEST_REDIS_URL is set and the PostgreSQL LISTEN/NOTIFY one when TEST_DATABASE_URL
// is set, each between separate connections as two instances would use them.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import pino from 'pino';
import { Availability } from '../../src/platform/availability.ts';
import { MemoryKv, RedisKv, type KvStore } from '../../src/platform/cache/kv.ts';
import { MemoryPubSub, PostgresPubSub, RedisPubSub, type PubSub } from '../../src/platform/cache/pubsub.ts';
import { openDatabase, type Database } from '../../src/platform/db/database.ts';

const REDIS_URL = process.env.TEST_REDIS_URL;
const DATABASE_URL = process.env.TEST_DATABASE_URL;
const logger = pino({ level: 'silent' });
const uniquePrefix = (sep = ':') => `t${randomBytes(5).toString('hex')}${sep}`;
/** The availability of one Redis connection, as the platform makes it (its timer does not hold the process). */
const availabilityOf = (r: Redis) => new Availability({ name: 'redis', probe: () => r.ping(), timeoutMs: 3000, isConnectionError: () => true, logger });

// ---------------------------------------------------------------------------------------
// Key-value stores: one contract, run against each implementation.

function kvContract(make: () => KvStore) {
  let kv: KvStore;
  let n = 0;
  const key = () => `k${++n}`;
  before(() => {
    kv = make();
  });

  test('a missing key reads as null with ttl 0', async () => {
    const k = key();
    assert.equal(await kv.get(k), null);
    assert.equal(await kv.ttl(k), 0);
  });

  test('set then get returns the value; ttl is positive and at most the one given', async () => {
    const k = key();
    await kv.set(k, 'v1', 10_000);
    assert.equal(await kv.get(k), 'v1');
    const ttl = await kv.ttl(k);
    assert.ok(ttl > 9_000 && ttl <= 10_000, `ttl ${ttl}`);
  });

  test('set overwrites the value and its ttl', async () => {
    const k = key();
    await kv.set(k, 'old', 60_000);
    await kv.set(k, 'new', 5_000);
    assert.equal(await kv.get(k), 'new');
    assert.ok((await kv.ttl(k)) <= 5_000);
  });

  test('a value expires after its ttl', async () => {
    const k = key();
    await kv.set(k, 'short', 80);
    assert.equal(await kv.get(k), 'short');
    await sleep(200);
    assert.equal(await kv.get(k), null);
    assert.equal(await kv.ttl(k), 0);
    assert.equal(await kv.take(k), null);
  });

  test('take returns the value once, then null', async () => {
    const k = key();
    await kv.set(k, 'once', 10_000);
    assert.equal(await kv.take(k), 'once');
    assert.equal(await kv.take(k), null);
    assert.equal(await kv.get(k), null);
  });

  test('concurrent takes of one value: exactly one wins', async () => {
    const k = key();
    await kv.set(k, 'prize', 10_000);
    const results = await Promise.all(Array.from({ length: 10 }, () => kv.take(k)));
    assert.deepEqual(results.filter((r) => r !== null), ['prize']);
  });

  test('take of a missing key is null', async () => {
    assert.equal(await kv.take(key()), null);
  });

  test('del removes a key; deleting a missing key is fine', async () => {
    const k = key();
    await kv.set(k, 'x', 10_000);
    await kv.del(k);
    assert.equal(await kv.get(k), null);
    assert.equal(await kv.ttl(k), 0);
    await kv.del(k);
  });

  test('keys are independent', async () => {
    const a = key();
    const b = key();
    await kv.set(a, 'A', 10_000);
    await kv.set(b, 'B', 10_000);
    await kv.del(a);
    assert.equal(await kv.get(a), null);
    assert.equal(await kv.get(b), 'B');
  });
}

describe('MemoryKv', () => {
  let kv: MemoryKv;
  after(async () => kv.close());
  kvContract(() => (kv = new MemoryKv()));

  test('close empties the store', async () => {
    const other = new MemoryKv();
    await other.set('a', '1', 10_000);
    await other.close();
    assert.equal(await other.get('a'), null);
  });
});

describe('RedisKv', { skip: REDIS_URL ? false : 'TEST_REDIS_URL is not set' }, () => {
  let redis: Redis;
  let kv: RedisKv;
  const prefix = uniquePrefix();
  before(() => {
    redis = new Redis(REDIS_URL!, { maxRetriesPerRequest: 2 });
  });
  after(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await kv.close();
    await redis.quit();
  });
  kvContract(() => (kv = new RedisKv(redis, prefix, availabilityOf(redis))));

  test('keys live under the configured prefix', async () => {
    await kv.set('prefixed', 'yes', 10_000);
    assert.equal(await redis.get(`${prefix}prefixed`), 'yes');
    assert.equal(await redis.get('prefixed'), null);
    const other = new RedisKv(redis, uniquePrefix(), availabilityOf(redis));
    assert.equal(await other.get('prefixed'), null);
  });

  test('a second connection sees the same values (shared between instances)', async () => {
    const second = new Redis(REDIS_URL!);
    try {
      const kv2 = new RedisKv(second, prefix, availabilityOf(second));
      await kv.set('shared', 'S', 10_000);
      assert.equal(await kv2.take('shared'), 'S');
      assert.equal(await kv.get('shared'), null);
    } finally {
      await second.quit();
    }
  });
});

// ---------------------------------------------------------------------------------------
// Pub/sub helpers.

/** Collects what `handler` receives, and waits for the n-th message. */
function collector() {
  const received: unknown[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const handler = (m: unknown) => {
    received.push(m);
    for (const w of waiters.filter((x) => received.length >= x.n)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  };
  async function waitFor(n: number, ms = 3000) {
    if (received.length >= n) return;
    await Promise.race([
      new Promise<void>((resolve) => waiters.push({ n, resolve })),
      sleep(ms).then(() => {
        throw new Error(`waited ${ms} ms for message ${n}, got ${JSON.stringify(received)}`);
      }),
    ]);
  }
  return { received, handler, waitFor };
}

/** Delivery is asynchronous: give a message that should not arrive a chance to. */
const settle = (ms = 150) => sleep(ms);

// ---------------------------------------------------------------------------------------

describe('MemoryPubSub', () => {
  let ps: MemoryPubSub;
  before(() => {
    ps = new MemoryPubSub(logger);
  });
  after(async () => ps.close());

  test('kind is memory', () => {
    assert.equal(ps.kind, 'memory');
  });

  test('a subscriber receives a published message as a JSON copy', async () => {
    const c = collector();
    const stop = await ps.subscribe('a', c.handler);
    const message = { sessions: [1, 2], at: new Date('2026-01-01T00:00:00Z') };
    await ps.publish('a', message);
    message.sessions.push(3);
    await c.waitFor(1);
    assert.deepEqual(c.received, [{ sessions: [1, 2], at: '2026-01-01T00:00:00.000Z' }]);
    await stop();
  });

  test('every handler of a channel receives, other channels do not', async () => {
    const one = collector();
    const two = collector();
    const other = collector();
    const s1 = await ps.subscribe('b', one.handler);
    const s2 = await ps.subscribe('b', two.handler);
    const s3 = await ps.subscribe('c', other.handler);
    await ps.publish('b', 'hello');
    await one.waitFor(1);
    await two.waitFor(1);
    await settle();
    assert.deepEqual(one.received, ['hello']);
    assert.deepEqual(two.received, ['hello']);
    assert.deepEqual(other.received, []);
    await Promise.all([s1(), s2(), s3()]);
  });

  test('after unsubscribe a handler receives nothing; the others still do', async () => {
    const kept = collector();
    const dropped = collector();
    const stopKept = await ps.subscribe('d', kept.handler);
    const stopDropped = await ps.subscribe('d', dropped.handler);
    await stopDropped();
    await stopDropped(); // twice is harmless
    await ps.publish('d', 1);
    await kept.waitFor(1);
    await stopKept();
    await ps.publish('d', 2);
    await settle();
    assert.deepEqual(kept.received, [1]);
    assert.deepEqual(dropped.received, []);
  });

  test('a failing handler does not stop the others', async () => {
    const ok = collector();
    const s1 = await ps.subscribe('e', () => {
      throw new Error('boom');
    });
    const s2 = await ps.subscribe('e', ok.handler);
    await ps.publish('e', { x: 1 });
    await ok.waitFor(1);
    assert.deepEqual(ok.received, [{ x: 1 }]);
    await Promise.all([s1(), s2()]);
  });

  test('messages arrive in publication order', async () => {
    const c = collector();
    const stop = await ps.subscribe('f', c.handler);
    for (let i = 0; i < 20; i++) await ps.publish('f', i);
    await c.waitFor(20);
    assert.deepEqual(c.received, Array.from({ length: 20 }, (_, i) => i));
    await stop();
  });

  test('after close nothing is delivered', async () => {
    const local = new MemoryPubSub(logger);
    const c = collector();
    await local.subscribe('g', c.handler);
    await local.close();
    await local.publish('g', 1);
    await settle();
    assert.deepEqual(c.received, []);
  });
});

/** Two instances' worth of pub/sub over one shared broker. */
function crossInstanceContract(open: () => Promise<{ a: PubSub; b: PubSub; isolated: PubSub }>, kind: PubSub['kind']) {
  let a: PubSub;
  let b: PubSub;
  let isolated: PubSub;
  before(async () => {
    ({ a, b, isolated } = await open());
  });

  test(`kind is ${kind}`, () => {
    assert.equal(a.kind, kind);
    assert.equal(b.kind, kind);
  });

  test('a message published by one instance reaches the other', async () => {
    const c = collector();
    const stop = await b.subscribe('admin.auth', c.handler);
    await a.publish('admin.auth', { sessions: [7], admins: [] });
    await c.waitFor(1);
    assert.deepEqual(c.received, [{ sessions: [7], admins: [] }]);
    await stop();
  });

  test('both instances, the publisher included, receive', async () => {
    const onA = collector();
    const onB = collector();
    const sa = await a.subscribe('both', onA.handler);
    const sb = await b.subscribe('both', onB.handler);
    await b.publish('both', 'x');
    await onA.waitFor(1);
    await onB.waitFor(1);
    assert.deepEqual(onA.received, ['x']);
    assert.deepEqual(onB.received, ['x']);
    await Promise.all([sa(), sb()]);
  });

  test('channels are separate', async () => {
    const c1 = collector();
    const c2 = collector();
    const s1 = await b.subscribe('one', c1.handler);
    const s2 = await b.subscribe('two', c2.handler);
    await a.publish('one', 1);
    await c1.waitFor(1);
    await settle();
    assert.deepEqual(c1.received, [1]);
    assert.deepEqual(c2.received, []);
    await Promise.all([s1(), s2()]);
  });

  test('after unsubscribe nothing arrives; a second local handler keeps the channel alive', async () => {
    const kept = collector();
    const dropped = collector();
    const stopKept = await b.subscribe('unsub', kept.handler);
    const stopDropped = await b.subscribe('unsub', dropped.handler);
    await stopDropped();
    await a.publish('unsub', 1);
    await kept.waitFor(1);
    await stopKept();
    await a.publish('unsub', 2);
    await settle(300);
    assert.deepEqual(kept.received, [1]);
    assert.deepEqual(dropped.received, []);
  });

  test('a channel can be subscribed again after a full unsubscribe', async () => {
    const first = collector();
    const stop = await b.subscribe('again', first.handler);
    await stop();
    const second = collector();
    const stop2 = await b.subscribe('again', second.handler);
    await a.publish('again', 'back');
    await second.waitFor(1);
    assert.deepEqual(second.received, ['back']);
    assert.deepEqual(first.received, []);
    await stop2();
  });

  test('another deployment prefix does not receive', async () => {
    const mine = collector();
    const theirs = collector();
    const s1 = await b.subscribe('prefixed', mine.handler);
    const s2 = await isolated.subscribe('prefixed', theirs.handler);
    await a.publish('prefixed', 'p');
    await mine.waitFor(1);
    await settle();
    assert.deepEqual(theirs.received, []);
    await Promise.all([s1(), s2()]);
  });

  test('structured messages survive the trip', async () => {
    const c = collector();
    const stop = await b.subscribe('shape', c.handler);
    const message = { n: 1.5, s: '令牌 "quoted" \\ and \n newline', nested: { list: [null, true, 'x'] } };
    await a.publish('shape', message);
    await c.waitFor(1);
    assert.deepEqual(c.received, [message]);
    await stop();
  });

  test('after close an instance receives nothing', async () => {
    const c = collector();
    await b.subscribe('closing', c.handler);
    await b.close();
    await a.publish('closing', 1);
    await settle(300);
    assert.deepEqual(c.received, []);
  });
}

describe('RedisPubSub between two instances', { skip: REDIS_URL ? false : 'TEST_REDIS_URL is not set' }, () => {
  const connections: Redis[] = [];
  const instances: PubSub[] = [];
  const prefix = uniquePrefix();
  const connect = () => {
    const r = new Redis(REDIS_URL!, { maxRetriesPerRequest: 2 });
    connections.push(r);
    return r;
  };
  const make = (p: string) => {
    const pub = connect();
    const ps = new RedisPubSub(pub, connect(), p, availabilityOf(pub), logger);
    instances.push(ps);
    return ps;
  };
  after(async () => {
    for (const ps of instances) await ps.close();
    for (const r of connections) if (r.status === 'ready') await r.quit();
    for (const r of connections) r.disconnect();
  });

  crossInstanceContract(async () => ({ a: make(prefix), b: make(prefix), isolated: make(uniquePrefix()) }), 'redis');

  test('unsubscribing the last handler unsubscribes from Redis', async () => {
    const probe = connect();
    const ps = make(prefix);
    const stop = await ps.subscribe('numsub', () => {});
    const count = async () => Number(((await probe.pubsub('NUMSUB', `${prefix}numsub`)) as [string, number])[1]);
    assert.equal(await count(), 1);
    await stop();
    assert.equal(await count(), 0);
  });
});

describe('PostgresPubSub between two database handles', { skip: DATABASE_URL ? false : 'TEST_DATABASE_URL is not set' }, () => {
  const handles: Database[] = [];
  const instances: PubSub[] = [];
  const dir = mkdtempSync(path.join(tmpdir(), 'fieldops-pubsub-'));
  const prefix = uniquePrefix('_');
  const make = async (p: string) => {
    const db = await openDatabase({ url: DATABASE_URL, dataDir: dir, poolMax: 2, logger });
    handles.push(db);
    const ps = new PostgresPubSub(db, p, logger);
    instances.push(ps);
    return ps;
  };
  after(async () => {
    for (const ps of instances) await ps.close();
    for (const db of handles) await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  crossInstanceContract(async () => ({ a: await make(prefix), b: await make(prefix), isolated: await make(uniquePrefix('_')) }), 'postgres');
});
