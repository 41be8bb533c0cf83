// Host and runtime figures for GET /monitor/system, and the state of the database and the cache.
// CPU usage is measured over a short window (concurrent requests share one window); event-loop
// delay and GC pauses are collected in the background from start-up (the delay over a rolling
// window of about a minute). The database and Redis are asked through their availability, like
// every other caller: during an outage they are refused at once, and a dependency that does not
// answer is given up after the dependency timeout, so that its block says `down` (with the
// reason) and the rest of the snapshot is still answered.
import { statfs } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance, PerformanceObserver, type ELDHistogram } from 'node:perf_hooks';
import type { Config } from '../../../platform/config.ts';
import { translate, type Locale } from '../../../platform/i18n.ts';
import type { Database } from '../../../platform/db/database.ts';
import type { RedisConnections } from '../../../platform/redis.ts';

export const CPU_SAMPLE_MS = 200;
const DELAY_WINDOW_MS = 60_000;

const round2 = (x: number) => Math.round(x * 100) / 100;
const percent = (part: number, whole: number) => (whole > 0 ? round2(Math.min(100, Math.max(0, (part / whole) * 100))) : 0);

function cpuTimes() {
  let idle = 0;
  let total = 0;
  for (const cpu of os.cpus()) {
    const t = cpu.times;
    idle += t.idle;
    total += t.user + t.nice + t.sys + t.idle + t.irq;
  }
  return { idle, total };
}

type Up<T> = { status: 'up'; reason: null } & T;
type Down<T> = { status: 'down'; reason: string } & { [K in keyof T]: null };

/** `ask()`'s figures, or `down` with why: its error, or no answer within `timeoutMs`. */
async function state<T extends object>(timeoutMs: number, ask: () => Promise<T>, none: { [K in keyof T]: null }): Promise<Up<T> | Down<T>> {
  let timer: NodeJS.Timeout | undefined;
  const answer = ask();
  answer.catch(() => {}); // settles after the race when given up
  try {
    const figures = await Promise.race([
      answer,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return { status: 'up' as const, reason: null, ...figures };
  } catch (err) {
    return { status: 'down' as const, reason: err instanceof Error ? err.message : String(err), ...none };
  } finally {
    clearTimeout(timer);
  }
}

/** Milliseconds `fn` takes, to the hundredth. */
async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return round2(performance.now() - start);
}

/** `INFO`'s `field:value` lines. */
function parseInfo(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0 && !line.startsWith('#')) fields.set(line.slice(0, i), line.slice(i + 1).trim());
  }
  return fields;
}

export class MonitorService {
  private readonly dataDir: string;
  private readonly db: Database;
  private readonly redis: RedisConnections | undefined;
  private readonly timeoutMs: number;
  private readonly delay: ELDHistogram;
  private delaySince = Date.now();
  private lastDelay = { mean: 0, p99: 0, max: 0 };
  private readonly gc = { count: 0, totalMs: 0, lastMs: 0, maxMs: 0 };
  private readonly observer: PerformanceObserver;
  private cpuSample: Promise<number> | undefined;

  /** `redis` is absent without REDIS_URL (the cache is then this process's memory). */
  constructor(deps: { db: Database; redis: RedisConnections | undefined; config: Config }) {
    this.dataDir = deps.config.dataDir;
    this.db = deps.db;
    this.redis = deps.redis;
    // DEPENDENCY_TIMEOUT_MS: the longest the database or Redis is waited for.
    this.timeoutMs = deps.config.DEPENDENCY_TIMEOUT_MS;
    this.delay = monitorEventLoopDelay({ resolution: 20 });
    this.delay.enable();
    this.observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        this.gc.count += 1;
        this.gc.totalMs += entry.duration;
        this.gc.lastMs = entry.duration;
        this.gc.maxMs = Math.max(this.gc.maxMs, entry.duration);
      }
    });
    this.observer.observe({ entryTypes: ['gc'] });
  }

  stop() {
    this.delay.disable();
    this.observer.disconnect();
  }

  /** Busy share of all cores over CPU_SAMPLE_MS, in percent. */
  cpuUsage(): Promise<number> {
    this.cpuSample ??= (async () => {
      const a = cpuTimes();
      await new Promise((resolve) => setTimeout(resolve, CPU_SAMPLE_MS));
      const b = cpuTimes();
      const total = b.total - a.total;
      return percent(total - (b.idle - a.idle), total);
    })().finally(() => {
      this.cpuSample = undefined;
    });
    return this.cpuSample;
  }

  /** The file system holding DATA_DIR (its nearest existing ancestor if it does not exist yet). */
  async disk() {
    let dir = this.dataDir;
    for (;;) {
      try {
        const s = await statfs(dir);
        const total = s.blocks * s.bsize;
        const used = (s.blocks - s.bfree) * s.bsize;
        return { total, used, usage: percent(used, total) };
      } catch (err) {
        const parent = path.dirname(dir);
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || parent === dir) throw err;
        dir = parent;
      }
    }
  }

  private eventLoopDelay() {
    const h = this.delay;
    if (h.count > 0) {
      this.lastDelay = { mean: round2(h.mean / 1e6), p99: round2(h.percentile(99) / 1e6), max: round2(h.max / 1e6) };
    }
    if (Date.now() - this.delaySince >= DELAY_WINDOW_MS) {
      h.reset();
      this.delaySince = Date.now();
    }
    return this.lastDelay;
  }

  /** The database: a trivial statement's round trip, the server's version and the database's size; the pool. */
  async database() {
    // Read first: this instance's other work, not the statements below.
    const pool = this.db.pool();
    const figures = await state(this.timeoutMs, async () => {
      const latency_ms = await timed(() => this.db.query('SELECT 1'));
      const [row] = await this.db.query<{ version: string; size: number | string }>(
        "SELECT split_part(version(), ' on ', 1) AS version, pg_database_size(current_database()) AS size",
      );
      return { latency_ms, version: row!.version, size: Number(row!.size) };
    }, { latency_ms: null, version: null, size: null });
    return { kind: this.db.kind, ...figures, pool };
  }

  /** The cache: Redis (PING's round trip, INFO, DBSIZE), or this process's memory. */
  async cache() {
    const none = { latency_ms: null, version: null, used_memory: null, connected_clients: null, keys: null };
    const redis = this.redis;
    if (!redis) return { kind: 'memory' as const, status: 'up' as const, reason: null, ...none };
    const figures = await state(this.timeoutMs, async () => {
      const run = <T>(command: () => Promise<T>) => redis.availability.run(command);
      const latency_ms = await timed(() => run(() => redis.client.ping()));
      const [text, keys] = await Promise.all([run(() => redis.client.info()), run(() => redis.client.dbsize())]);
      const info = parseInfo(text);
      const int = (field: string) => {
        const n = Number(info.get(field));
        return Number.isInteger(n) ? n : null;
      };
      return { latency_ms, version: info.get('redis_version') ?? null, used_memory: int('used_memory'), connected_clients: int('connected_clients'), keys };
    }, none);
    return { kind: 'redis' as const, ...figures };
  }

  /** Everything GET /monitor/system shows; the garbage-collection lines in `locale`. */
  async snapshot(locale: Locale) {
    const [usage, disk, database, cache] = await Promise.all([this.cpuUsage(), this.disk(), this.database(), this.cache()]);
    const total = os.totalmem();
    const used = total - os.freemem();
    const mem = process.memoryUsage();
    const delay = this.eventLoopDelay();
    const gc = this.gc;
    const avg = gc.count > 0 ? gc.totalMs / gc.count : 0;
    return {
      cpu: { cores: os.availableParallelism(), usage },
      memory: { total, used, usage: percent(used, total) },
      disk,
      runtime: {
        version: process.version,
        event_loop_delay: delay.mean,
        event_loop_delay_p99: delay.p99,
        event_loop_delay_max: delay.max,
        heap_used: mem.heapUsed,
        heap_total: mem.heapTotal,
        external: mem.external,
        rss: mem.rss,
        uptime: Math.floor(process.uptime()),
        gc_count: gc.count,
        gc_pause_last_ms: round2(gc.lastMs),
        gc_pause_avg_ms: round2(avg),
        gc_pause_max_ms: round2(gc.maxMs),
        ...gcLines(gc.count, { last: gc.lastMs.toFixed(2), avg: avg.toFixed(2), max: gc.maxMs.toFixed(2) }, locale),
      },
      database,
      cache,
    };
  }
}

/**
 * The garbage-collection figures in words, in `locale`: `gc_pause` (the pauses, briefly) and
 * `gc_summary` (a sentence that says what they are, for a reader who does not know the term).
 */
function gcLines(count: number, ms: { last: string; avg: string; max: string }, locale: Locale) {
  if (count === 0) {
    return { gc_pause: translate('admin.monitor.gcNoPauses', locale), gc_summary: translate('admin.monitor.gcSummaryNone', locale) };
  }
  return {
    gc_pause: translate('admin.monitor.gcPause', locale, ms),
    gc_summary: translate('admin.monitor.gcSummary', locale, { count, ...ms }),
  };
}
