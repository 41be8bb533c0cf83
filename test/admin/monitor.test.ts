// GET /monitor/system: host CPU, memory and disk of DATA_DIR's file system, the Node.js
// runtime block (in place of the contract's `go` block), and the database and cache blocks
// (PGlite and memory in the first pass, PostgreSQL and Redis in the second). Outages of the
// database and Redis are in test/server/outage.test.ts.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { onPostgres, startApp, withRedis, within, type TestApp } from '../helpers/app.ts';
import { call, login, signedInAdmin } from '../helpers/http.ts';
import { assertOk } from '../helpers/assert.ts';

let app: TestApp;
let superToken: string;

before(async () => {
  app = await startApp();
  superToken = await login(app);
});
after(() => app?.close());

const isPercent = (x: unknown) => typeof x === 'number' && x >= 0 && x <= 100;

test('sane numbers for cpu, memory, disk and runtime', async () => {
  const started = Date.now();
  const data = assertOk(await call(app, 'GET', '/api/admin/monitor/system', { token: superToken }));
  assert.ok(Date.now() - started >= 150, 'CPU usage is sampled over a window');
  assert.deepEqual(Object.keys(data).sort(), ['cache', 'cpu', 'database', 'disk', 'memory', 'runtime']);

  assert.ok(Number.isInteger(data.cpu.cores) && data.cpu.cores >= 1);
  assert.ok(isPercent(data.cpu.usage), String(data.cpu.usage));

  for (const part of [data.memory, data.disk]) {
    assert.ok(Number.isInteger(part.total) && part.total > 0);
    assert.ok(Number.isInteger(part.used) && part.used >= 0 && part.used <= part.total);
    assert.ok(isPercent(part.usage));
    assert.ok(Math.abs(part.usage - (part.used / part.total) * 100) < 0.01);
  }

  const rt = data.runtime;
  assert.equal(rt.version, process.version);
  assert.ok(typeof rt.event_loop_delay === 'number' && rt.event_loop_delay >= 0);
  assert.ok(rt.heap_used > 0 && rt.heap_total >= rt.heap_used);
  assert.ok(rt.external > 0, 'external memory (buffers, WebAssembly) is reported');
  assert.ok(Number.isInteger(rt.uptime) && rt.uptime >= 0);
  assert.equal(typeof rt.gc_pause, 'string');
  assert.ok(rt.gc_pause.length > 0);
  for (const k of ['gc_pause_last_ms', 'gc_pause_avg_ms', 'gc_pause_max_ms']) assert.ok(typeof rt[k] === 'number' && rt[k] >= 0, k);
});

test('the garbage-collection line says what it is, in the reader’s language', async () => {
  // A collection now, so that there are pauses to describe.
  (globalThis as { gc?: () => void }).gc?.();
  const en = assertOk(await call(app, 'GET', '/api/admin/monitor/system', { token: superToken })).runtime;
  const zhRes = await call(app, 'GET', '/api/admin/monitor/system', { token: superToken, headers: { 'accept-language': 'zh-CN' } });
  assert.equal(zhRes.status, 200);
  const zh = zhRes.body.data.runtime;
  assert.match(en.gc_summary, /^Garbage collection \(the runtime’s automatic memory clean-up\)/);
  assert.match(zh.gc_summary, /^垃圾回收（运行时自动清理内存）/);
  assert.doesNotMatch(zh.gc_summary + zh.gc_pause, /[A-Za-z]{3}/, 'no English in the Chinese line');
  if (en.gc_count > 0) {
    assert.match(en.gc_pause, /^last \d+\.\d{2} ms · average \d+\.\d{2} ms · longest \d+\.\d{2} ms$/);
    assert.match(zh.gc_pause, /^最近 \d+\.\d{2} 毫秒 · 平均 \d+\.\d{2} 毫秒 · 最长 \d+\.\d{2} 毫秒$/);
    assert.ok(en.gc_summary.includes(`${en.gc_count} times`), en.gc_summary);
  }
});

test('the database: its kind, up, a latency, the server version, the database size and the pool', async () => {
  const { database: db } = assertOk(await call(app, 'GET', '/api/admin/monitor/system', { token: superToken }));
  assert.deepEqual(Object.keys(db).sort(), ['kind', 'latency_ms', 'pool', 'reason', 'size', 'status', 'version']);
  assert.equal(db.kind, onPostgres ? 'postgres' : 'pglite');
  assert.equal(db.status, 'up');
  assert.equal(db.reason, null);
  assert.ok(typeof db.latency_ms === 'number' && db.latency_ms >= 0, String(db.latency_ms));
  const [{ version }] = (await app.platform.db.query<{ version: string }>("SELECT current_setting('server_version') AS version")) as [{ version: string }];
  assert.match(db.version, onPostgres ? /^PostgreSQL \d+/ : /^PostgreSQL \d+.*PGlite/);
  assert.ok(db.version.startsWith(`PostgreSQL ${version.split(' ')[0]}`), `${db.version} is the server's ${version}`);
  const [{ size }] = (await app.platform.db.query<{ size: number }>('SELECT pg_database_size(current_database()) AS size')) as [{ size: number }];
  assert.ok(Number.isInteger(db.size) && db.size > 0);
  assert.ok(Math.abs(db.size - Number(size)) <= Number(size) / 10, `${db.size} is about ${size} bytes`);
  assert.equal(db.pool.max, onPostgres ? app.platform.config.DB_POOL_MAX : 1);
  // Background work (the export queue's polling, say) may be under way.
  assert.ok(Number.isInteger(db.pool.active) && db.pool.active >= 0 && Number.isInteger(db.pool.waiting) && db.pool.waiting >= 0);
});

test('the cache: Redis with its version, memory, clients and keys; or this process’s memory', async () => {
  const { cache } = assertOk(await call(app, 'GET', '/api/admin/monitor/system', { token: superToken }));
  assert.deepEqual(Object.keys(cache).sort(), ['connected_clients', 'keys', 'kind', 'latency_ms', 'reason', 'status', 'used_memory', 'version']);
  assert.equal(cache.status, 'up');
  assert.equal(cache.reason, null);
  if (!withRedis) {
    assert.deepEqual(cache, { kind: 'memory', status: 'up', reason: null, latency_ms: null, version: null, used_memory: null, connected_clients: null, keys: null });
    return;
  }
  assert.equal(cache.kind, 'redis');
  const redis = app.platform.redis!.client;
  assert.ok(typeof cache.latency_ms === 'number' && cache.latency_ms >= 0);
  assert.match(cache.version, /^\d+\.\d+\.\d+/);
  assert.ok((await redis.info('server')).includes(`redis_version:${cache.version}`));
  assert.ok(Number.isInteger(cache.used_memory) && cache.used_memory > 0);
  assert.ok(Number.isInteger(cache.connected_clients) && cache.connected_clients >= 2, 'this instance’s two connections at least');
  assert.ok(Number.isInteger(cache.keys) && cache.keys >= 0);
  // A key of ours is counted (other test files share this Redis, so only a lower bound holds).
  const key = `monitor-test:${Date.now()}`;
  await redis.set(key, '1', 'PX', 60_000);
  try {
    const { cache: again } = assertOk(await call(app, 'GET', '/api/admin/monitor/system', { token: superToken }));
    assert.ok(again.keys >= 1, String(again.keys));
  } finally {
    await redis.del(key);
  }
});

test('the pool counts what is in flight: a transaction holding the one connection, and a statement waiting for it', async () => {
  // On PostgreSQL, an instance whose pool has one connection, as the embedded database has.
  const one = onPostgres ? await app.sibling({ DB_POOL_MAX: '1' }) : app;
  try {
    const db = one.platform.db;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const transaction = db.transaction(async (tx) => {
      await tx.query('SELECT 1');
      entered();
      await held;
    });
    await inside;
    const statement = db.query('SELECT 1');
    const during = db.pool();
    release();
    await Promise.all([transaction, statement]);
    assert.equal(during.max, 1);
    assert.equal(during.active, 1, 'the transaction, on the one connection');
    // Background work (the export queue's polling, say) may wait too.
    assert.ok(during.waiting >= 1, `the statement waits for it: ${JSON.stringify(during)}`);
    // Settled, they are no longer counted.
    const idle = await within(5000, async () => {
      const now = db.pool();
      return now.active === 0 && now.waiting === 0 ? now : undefined;
    });
    assert.ok(idle, `nothing in flight once settled: ${JSON.stringify(db.pool())}`);
  } finally {
    if (one !== app) await one.close();
  }
});

test('concurrent requests share one sampling window', async () => {
  const started = Date.now();
  const replies = await Promise.all(Array.from({ length: 5 }, () => call(app, 'GET', '/api/admin/monitor/system', { token: superToken })));
  for (const r of replies) assertOk(r);
  assert.ok(Date.now() - started < 2000);
});

test("'monitor.system' is enough to read it", async () => {
  const { token } = await signedInAdmin(app, { permissions: ['monitor.system'] });
  assertOk(await call(app, 'GET', '/api/admin/monitor/system', { token }));
});
