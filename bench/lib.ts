// Load generation for benchmarks: autocannon runs in a child process so that it does not
// share the server's event loop, and pairs are run alternately so drift hits both sides.
import { AsyncLocalStorage } from 'node:async_hooks';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import postgres from 'postgres';
import type { Page } from 'playwright-core';
import type { Server as HttpServer } from 'node:http';
import type { Database, TracedStatement } from '../src/platform/db/database.ts';
import { loadConfig } from '../src/platform/config.ts';
import { buildServer } from '../src/server.ts';
import { ensureConsoleBuilt } from '../test/helpers/browser.ts';
import type { Result as LoadResult, Spec as LoadSpec } from './load-client.ts';

const run = promisify(execFile);
const AUTOCANNON = path.resolve(import.meta.dirname, '../node_modules/autocannon/autocannon.js');
const LOAD_CLIENT = path.resolve(import.meta.dirname, 'load-client.ts');

export interface Load {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
  seconds?: number;
}

/** Requests per second (2xx only; any other status fails the run). */
export async function requestsPerSecond(load: Load): Promise<number> {
  const args = [AUTOCANNON, '-j', '-c', String(load.connections ?? 16), '-d', String(load.seconds ?? 5), '-m', load.method ?? 'GET'];
  for (const [k, v] of Object.entries(load.headers ?? {})) args.push('-H', `${k}=${v}`);
  if (load.body) args.push('-H', 'content-type=application/json', '-b', load.body);
  args.push(load.url);
  const { stdout } = await run(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 });
  const result = JSON.parse(stdout) as { requests: { total: number }; duration: number; non2xx: number; errors: number };
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${load.url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.total / result.duration;
}

/**
 * Requests per second from bench/load-client.ts (2xx only): for pairs whose other side is not
 * HTTP, so that the load generator's own CPU is as small as it can be (see that file).
 */
export async function closedLoopRate(load: Load): Promise<number> {
  const result = await closedLoop(load);
  return result.requests / result.seconds;
}

export interface ClosedLoad extends Load {
  /** Variants sent in turn (see load-client.ts), from the `offset`-th; `{{n}}` is rendered as runId + counter. */
  requests?: { headers?: Record<string, string>; body?: string }[];
  runId?: string;
  offset?: number;
}

let pinnedToCore0 = false;

/**
 * On a machine with more than one core: this process (the server, every thread of it) on core 0,
 * and the load clients spawned afterwards on core 1, so that they do not take each other's CPU.
 * Returns whether it pinned.
 */
export function pinServerAndClient(): boolean {
  if (availableParallelism() < 2) return false;
  execFileSync('taskset', ['-a', '-pc', '0', String(process.pid)], { stdio: 'ignore' });
  pinnedToCore0 = true;
  return true;
}

/** One run of bench/load-client.ts (on core 1 after pinServerAndClient); any non-2xx or socket error fails it. */
export async function closedLoop(load: ClosedLoad): Promise<LoadResult> {
  const headers = { ...load.headers, ...(load.body || load.requests?.some((r) => r.body) ? { 'content-type': 'application/json' } : {}) };
  const spec: LoadSpec = {
    url: load.url, method: load.method ?? 'GET', headers, body: load.body, requests: load.requests, runId: load.runId, offset: load.offset,
    connections: load.connections ?? 16, seconds: load.seconds ?? 5,
  };
  // The spec goes in a file: with many variants it exceeds what one argument may hold (128 KiB).
  const dir = mkdtempSync(path.join(tmpdir(), 'fieldops-load-'));
  const file = path.join(dir, 'spec.json');
  writeFileSync(file, JSON.stringify(spec));
  const args = [LOAD_CLIENT, `@${file}`];
  let stdout: string;
  try {
    ({ stdout } = pinnedToCore0
      ? await run('taskset', ['-c', '1', process.execPath, ...args], { maxBuffer: 16 * 1024 * 1024 })
      : await run(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const result = JSON.parse(stdout) as LoadResult;
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${load.method ?? 'GET'} ${load.url}: ${result.non2xx} non-2xx, ${result.errors} errors${result.firstFailure ? `; first: ${result.firstFailure}` : ''}`);
  }
  return result;
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

const SETTLE_MS = 1000;

/**
 * Runs `a` and `b` alternately for `rounds` rounds after one discarded warm-up of each, and
 * prints both medians and the median of the per-round ratios a/b against `target`.
 */
export async function pair(rounds: number, label: string, a: () => Promise<number>, b: () => Promise<number>, target?: number, targetNote = '') {
  // A load generator that stops leaves requests in flight on the server; a pause after each
  // side keeps that tail out of the other side's measurement.
  const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  await a();
  await settle();
  await b();
  await settle();
  const as: number[] = [];
  const bs: number[] = [];
  const ratios: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const ra = await a();
    await settle();
    const rb = await b();
    await settle();
    as.push(ra);
    bs.push(rb);
    ratios.push(ra / rb);
  }
  const ratio = median(ratios);
  const verdict = target === undefined ? '(diagnostic, no target)' : `(target >= ${target}${targetNote}) ${ratio >= target ? 'PASS' : 'BELOW TARGET'}`;
  console.log(`${label}: ${fmt(median(as), 1)} vs ${fmt(median(bs), 1)} per second; ratio ${fmt(ratio, 3)} ${verdict}`);
  return ratio;
}

export interface SideFigures {
  rps: number;
  p99: number;
}

export interface PairFigures {
  a: SideFigures[];
  b: SideFigures[];
  /** Per round: a's rps / b's rps, and a's p99 / b's p99. */
  ratios: number[];
  p99Ratios: number[];
}

/**
 * Like `pair`, for sides that report throughput and p99 latency: one discarded warm-up of each
 * side (`warmUp`), then `rounds` rounds alternating the two sides (a b, b a, …), with a pause
 * after each run. Returns every
 * round's figures; printing is the caller's.
 */
export async function pairFigures(rounds: number, a: (warmUp: boolean) => Promise<SideFigures>, b: (warmUp: boolean) => Promise<SideFigures>, settleMs = SETTLE_MS): Promise<PairFigures> {
  const settle = () => new Promise((resolve) => setTimeout(resolve, settleMs));
  await a(true);
  await settle();
  await b(true);
  await settle();
  const out: PairFigures = { a: [], b: [], ratios: [], p99Ratios: [] };
  for (let i = 0; i < rounds; i++) {
    // a then b, then b then a: a drift over the rounds weighs on both sides alike.
    let ra: SideFigures;
    let rb: SideFigures;
    if (i % 2 === 0) {
      ra = await a(false);
      await settle();
      rb = await b(false);
    } else {
      rb = await b(false);
      await settle();
      ra = await a(false);
    }
    await settle();
    out.a.push(ra);
    out.b.push(rb);
    out.ratios.push(ra.rps / rb.rps);
    out.p99Ratios.push(ra.p99 / rb.p99);
  }
  return out;
}

/** A new, empty database next to `baseUrl`'s (on its server), and how to drop it. */
export async function freshDatabase(baseUrl: string, name = 'db'): Promise<{ url: string; drop: () => Promise<void> }> {
  const dbName = `fieldops_bench_${name}_${process.pid}_${Date.now().toString(36)}`;
  const s = postgres(baseUrl, { max: 1, onnotice: () => {} });
  await s.unsafe(`CREATE DATABASE ${dbName}`);
  await s.end();
  const u = new URL(baseUrl);
  u.pathname = `/${dbName}`;
  return {
    url: u.toString(),
    async drop() {
      const d = postgres(baseUrl, { max: 1, onnotice: () => {} });
      await d.unsafe(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await d.end();
    },
  };
}

/**
 * The real server of a browser benchmark, listening on a free port with its web clients built:
 * on PGlite, or on a fresh database next to BENCH_DATABASE_URL (dropped by close()).
 */
export async function browserBenchServer(name: string, overrides: Record<string, string>) {
  ensureConsoleBuilt();
  const db = process.env.BENCH_DATABASE_URL ? await freshDatabase(process.env.BENCH_DATABASE_URL, name) : undefined;
  const dataDir = mkdtempSync(path.join(tmpdir(), `fieldops-bench-${name}-`));
  const server = await buildServer(loadConfig({
    DATA_DIR: dataDir,
    ...(db ? { DATABASE_URL: db.url } : {}),
    JWT_SECRET: 'bench-secret-that-is-long-enough-0123456789',
    LOG_LEVEL: 'warn',
    ...overrides,
  }));
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  return {
    server,
    base: `http://127.0.0.1:${(server.app.server.address() as { port: number }).port}`,
    dataDir,
    async close() {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
      await db?.drop();
    },
  };
}

/**
 * The recorded statements in steps: a statement that started before the previous one ended
 * (the route ran them together, as with Promise.all) joins its step; otherwise it starts a new one.
 */
export function concurrentGroups(statements: TracedStatement[]): TracedStatement[][] {
  const sorted = [...statements].sort((a, b) => a.start - b.start);
  const groups: TracedStatement[][] = [];
  let groupEnd = -Infinity;
  for (const s of sorted) {
    if (groups.length > 0 && s.start < groupEnd) {
      groups[groups.length - 1]!.push(s);
      groupEnd = Math.max(groupEnd, s.end);
    } else {
      groups.push([s]);
      groupEnd = s.end;
    }
  }
  return groups;
}

const RECORD_HEADER = 'x-bench-record';

/**
 * Records the statements routes issue, for their bare twins. The statements of a recorded
 * request are told from any background work's by their async context: the HTTP server's request
 * listener runs a request carrying the record header in the store of the recording (app.inject
 * does not keep the caller's context through Fastify). `of(send)` sends one request through
 * `send` (given the header to add) with nothing else in flight and answers its statements, in
 * steps as they overlapped; `stop()` turns the tracer off.
 */
export function statementRecorder(httpServer: HttpServer, db: Database) {
  const recording = new AsyncLocalStorage<TracedStatement[]>();
  let current: TracedStatement[] = [];
  const listeners = httpServer.listeners('request') as ((...args: unknown[]) => void)[];
  httpServer.removeAllListeners('request');
  httpServer.on('request', (req: { headers: Record<string, unknown> }, res: unknown) => {
    const dispatch = () => {
      for (const l of listeners) l.call(httpServer, req, res);
    };
    if (req.headers[RECORD_HEADER]) recording.run(current, dispatch);
    else dispatch();
  });
  db.trace = (s) => recording.getStore()?.push(s);
  return {
    async of(send: (headers: Record<string, string>) => Promise<unknown>): Promise<{ statements: TracedStatement[]; groups: TracedStatement[][] }> {
      const statements: TracedStatement[] = [];
      current = statements;
      await send({ [RECORD_HEADER]: '1' });
      return { statements, groups: concurrentGroups(statements) };
    },
    stop() {
      db.trace = undefined;
    },
  };
}

/**
 * A bare twin's handler: replays `groups` (statementRecorder's) through db.query on the same pool,
 * each step's statements together, and replies JSON.stringify of the results.
 */
export const replayHandler = (db: Database, groups: TracedStatement[][]) => async (_request: unknown, reply: { type(t: string): { send(body: string): unknown } }) => {
  const out: unknown[] = [];
  for (const group of groups) {
    if (group.length === 1) out.push(await db.query(group[0]!.text, group[0]!.params));
    else out.push(...(await Promise.all(group.map((s) => db.query(s.text, s.params)))));
  }
  return reply.type('application/json').send(JSON.stringify(out));
};

/** Network latency the browser benchmarks add to every request of the page (DevTools protocol), ms. */
export const PAGE_LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 40);

/**
 * Adds PAGE_LATENCY_MS to each request `page` makes (a request of realistic length, not a 14 ms
 * local one), and records in the page when each answer's body has arrived. Resource Timing's
 * `responseEnd` cannot say so here: Chromium's emulated latency holds a finished response back
 * from the page, and `responseEnd` is the network's finish, about the latency earlier.
 */
export async function addLatency(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: PAGE_LATENCY_MS, downloadThroughput: -1, uploadThroughput: -1 });
  await page.addInitScript(`{
    const fetch = window.fetch;
    window.__answers = [];
    window.fetch = async (...args) => {
      const res = await fetch(...args);
      res.clone().arrayBuffer().then(() => window.__answers.push({ url: res.url, at: performance.now() }), () => {});
      return res;
    };
  }`);
}

/** One user action timed in the page: until its request's answer arrived, and until the result was painted. */
export interface ActionTiming {
  /** From the action until the whole answer was in the page (the request's own length, seen from the page). */
  request: number;
  /** From the answer's arrival until the next frame after the result is in the DOM. */
  beyond: number;
}

/**
 * Page-side source of a promise that performs `act` (an expression run once the observer is in
 * place), waits until `shown` (an expression) is true after a DOM change, then for the next
 * animation frame, and resolves to an ActionTiming: the request is the last answer recorded by
 * addLatency whose URL matches `requestPattern` (a RegExp source) after the action. A string,
 * since it runs in the page, whose DOM types the server's program does not have.
 */
export function timedAction(act: string, shown: string, requestPattern: string): string {
  return `new Promise((resolve, reject) => {
    const start = performance.now();
    const observer = new MutationObserver(() => {
      if (!(${shown})) return;
      observer.disconnect();
      requestAnimationFrame(() => {
        const painted = performance.now();
        const answer = window.__answers.filter((a) => a.at >= start && new RegExp(${JSON.stringify(requestPattern)}).test(a.url)).at(-1);
        if (!answer) return reject(new Error('no answer matched ' + ${JSON.stringify(requestPattern)}));
        resolve({ request: answer.at - start, beyond: painted - answer.at });
      });
    });
    observer.observe(document.body, { childList: true, subtree: true, characterData: true });
    ${act};
  })`;
}

/** Prints the median of timed actions against a target in ms beyond the request, with the ratio to the request. */
export function reportAction(label: string, timings: ActionTiming[], targetMs: number): void {
  const beyond = median(timings.map((t) => t.beyond));
  const request = median(timings.map((t) => t.request));
  const ratio = median(timings.map((t) => (t.request + t.beyond) / t.request));
  console.log(`${label}: painted ${fmt(beyond, 1)} ms after its answer arrived (target <= ${targetMs} ms) ${beyond <= targetMs ? 'PASS' : 'ABOVE TARGET'}; request ${fmt(request, 1)} ms in the page with ${PAGE_LATENCY_MS} ms of latency; action to paint ${fmt(ratio, 2)} x the request; rounds ${timings.map((t) => fmt(t.beyond, 0)).join(', ')} ms`);
}

/** Whether something answers at `url` within 2 s (PostgreSQL: a connection and SELECT 1; Redis: PING). */
export async function reachable(kind: 'postgres' | 'redis', url: string): Promise<boolean> {
  if (kind === 'postgres') {
    const sql = postgres(url, { max: 1, connect_timeout: 2, onnotice: () => {} });
    try {
      await sql`SELECT 1`;
      return true;
    } catch {
      return false;
    } finally {
      await sql.end({ timeout: 1 });
    }
  }
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => {});
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

export { freePort } from '../test/helpers/services.ts';

/** The resident set (VmRSS) of a process, bytes. */
export function residentBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? 0) * 1024;
}

/** Samples the resident set of a process every 20 ms between start() and stop(); stop() gives the peak. */
export class RssSampler {
  private peak = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly pid: number;
  constructor(pid: number) {
    this.pid = pid;
  }
  read(): number {
    return residentBytes(this.pid);
  }
  /** Starts sampling; the resident set now. */
  start(): number {
    const now = this.read();
    this.peak = now;
    this.timer = setInterval(() => {
      try {
        this.peak = Math.max(this.peak, this.read());
      } catch {
        clearInterval(this.timer); // the process is gone: its absence is the caller's to report
      }
    }, 20);
    return now;
  }
  stop(): number {
    clearInterval(this.timer);
    return Math.max(this.peak, this.read());
  }
}
