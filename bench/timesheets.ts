// Timesheets (issue 29) over 10,000 workers with a month of punches: 22 working days of 2–4
// sessions each (about 660,000 sessions, 1.3 million clock events), at five sites in four time
// zones, a few forced clock-outs and late offline punches.
//
// - Page: GET /api/managers/timesheets?from=…&to=…&limit=50 (a manager's token, sorted by name)
//   vs a bare route on a plain Fastify instance in this process, on the same pool, replaying
//   the statements HoursService.page issues (the rules, the page and its count together, the
//   page's punches; recorded through Database.trace) and replying their rows raw: "a bare route
//   that runs the same SQL", so the ratio counts the timesheet computation as well as
//   authentication, validation and the reply. Throughput ratio (target >= 0.8) and the route's
//   p99 (target < 300 ms). A diagnostic pair follows: the route vs a bare route calling
//   HoursService.page itself (the server's own overhead alone).
// - Corrections (issue 30): the page's 50 workers get three corrections each through the API and
//   PENDING requests wait; the corrected page, a corrected worker's month and the exceptions
//   inbox (GET /api/managers/corrections) each vs a bare route replaying its service's SQL
//   (target >= 0.8).
// - Export: the XLSX payroll export of every worker for the month, per worker (POST
//   /api/managers/timesheets/export, then GET /api/managers/exports/:id every 50 ms until
//   completed), vs the same rows (the payroll kind's rows, i.e. HoursService.all) streamed
//   through the same writer (streamXlsx: exceljs's WorkbookWriter with the export's settings)
//   into a file, in this process: rows per second ratio (target >= 0.8), and the server
//   process's resident memory growth during the export (sampled every 50 ms; target < 100 MiB).
//   The server is this process, so its RSS includes PGlite's when that is the database.
//
// Seeded with SQL (generate_series) in one transaction, skipped when the workers are there
// (re-runs on the same database are idempotent), then ANALYZE. The month is BENCH_MONTH
// (2026-10). Runs on PGlite by default; BENCH_DATABASE_URL / BENCH_REDIS_URL for PostgreSQL and
// Redis (the database is used as given: make a fresh one). Knobs: BENCH_WORKERS, or BENCH_SCALE
// (1 = 10,000 workers), BENCH_SECONDS (5), BENCH_ROUNDS (3), BENCH_CONCURRENCY (4),
// BENCH_EXPORT_ROUNDS (3; 0 skips the export). The server is pinned to core 0 and the load client to core 1.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import type { TracedStatement } from '../src/platform/db/database.ts';
import { loadConfig } from '../src/platform/config.ts';
import { streamXlsx } from '../src/platform/jobs/export-kinds.ts';
import { buildServer } from '../src/server.ts';
import { payrollKind, type PayrollParams } from '../src/timeclock/features/hours/hours.export.ts';
import type { TimesheetsQueryT } from '../src/timeclock/features/hours/hours.schema.ts';
import { CorrectionsService } from '../src/timeclock/features/corrections/corrections.service.ts';
import { HoursService } from '../src/timeclock/features/hours/hours.service.ts';
import { closedLoop, concurrentGroups, fmt, median, pair, pairFigures, pinServerAndClient, replayHandler, type ClosedLoad, type SideFigures } from './lib.ts';
import { SITE_CENTRE } from './routes-seed.ts';

const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const WORKERS = Number(process.env.BENCH_WORKERS ?? Math.max(50, Math.round(10_000 * SCALE)));
const MONTH = process.env.BENCH_MONTH ?? '2026-10';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const EXPORT_ROUNDS = Number(process.env.BENCH_EXPORT_ROUNDS ?? 3);
const MANAGER_PASSWORD = 'Bench-manager-123';
const PAGE_TARGET = 0.8;
const P99_TARGET_MS = 300;
const EXPORT_TARGET = 0.8;
const RSS_TARGET_MIB = 100;
const SAMPLE_MS = 50;
/** Correction requests waiting in the exceptions inbox. */
const PENDING = Math.max(100, Math.round(2000 * SCALE));
const MiB = 1024 * 1024;

const from = `${MONTH}-01`;
const to = new Date(Date.UTC(Number(MONTH.slice(0, 4)), Number(MONTH.slice(5, 7)), 0)).toISOString().slice(0, 10);

const CORES = availableParallelism();
const pinned = pinServerAndClient();
const dataDir = mkdtempSync(path.join(tmpdir(), 'fieldops-bench-timesheets-'));
const config = loadConfig({
  DATA_DIR: dataDir,
  JWT_SECRET: 'bench-secret-that-is-long-enough-0123456789',
  MANAGER_PASSWORD,
  CAPTCHA_ENABLED: 'false',
  LOG_LEVEL: 'warn',
  TIMECLOCK_RATE_LIMIT_AUTH: '1000000',
  TIMECLOCK_RATE_LIMIT_GENERAL: '1000000',
  ...(process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : {}),
  ...(process.env.BENCH_REDIS_URL ? { REDIS_URL: process.env.BENCH_REDIS_URL, REDIS_KEY_PREFIX: `bench${process.pid}:` } : {}),
});
const server = await buildServer(config);
const { platform } = server;
const { db } = platform;
const hours = new HoursService({ db, config });
const bare = Fastify({ logger: false });

try {
  await main();
} finally {
  await bare.close();
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
}

async function main() {
  console.log(`# timesheets benchmark (${db.kind}${platform.redis ? ' + redis' : ''}, Node ${process.versions.node}, ${CORES} cores${pinned ? ', server on core 0, load client on core 1' : ''}, `
    + `${fmt(WORKERS)} workers, ${from} to ${to})`);
  await seed();
  const [{ events }] = await db.query<{ events: number }>(
    "SELECT count(*)::int AS events FROM timeclock.clock_events e JOIN timeclock.users u ON u.id = e.user_id WHERE u.username LIKE 'ts_w%'",
  ) as [{ events: number }];
  console.log(`data: ${fmt(WORKERS)} workers, ${fmt(events)} clock events (${fmt(events / 2)} sessions)`);

  await server.app.listen({ host: '127.0.0.1', port: 0 });
  const origin = `http://127.0.0.1:${(server.app.server.address() as { port: number }).port}`;
  const json = async <T>(method: string, url: string, body?: unknown, token?: string): Promise<T> => {
    const res = await fetch(`${origin}${url}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const data = (await res.json()) as T;
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(data)}`);
    return data;
  };
  const { token } = await json<{ token: string }>('POST', '/api/auth/login', { username: 'manager', password: MANAGER_PASSWORD, deviceUuid: `web-${crypto.randomUUID()}` });
  const auth = { authorization: `Bearer ${token}` };

  // ---------------------------------------------------------------- page of 50
  const query: TimesheetsQueryT = { from, to, page: 1, limit: 50, sort: 'name' };
  const pageUrl = `/api/managers/timesheets?from=${from}&to=${to}&limit=50`;
  const sample = await json<{ items: { fullName: string; paidSeconds: number; days: number }[]; total: number }>('GET', pageUrl, undefined, token);
  const first = sample.items[0]!;
  console.log(`query: GET ${pageUrl} -> ${sample.items.length} workers of ${fmt(sample.total)} (first: ${first.fullName}, ${first.days} days, ${fmt(first.paidSeconds / 3600, 2)} h paid)`);

  // The statements of one page() call, recorded with nothing else of ours in flight (the export
  // queue's poller runs in another async context, so its statements are not recorded).
  const recording = new AsyncLocalStorage<TracedStatement[]>();
  const statements: TracedStatement[] = [];
  db.trace = (s) => recording.getStore()?.push(s);
  try {
    await recording.run(statements, () => hours.page(query, 'en-US'));
  } finally {
    db.trace = undefined;
  }
  const groups = concurrentGroups(statements);
  bare.get('/bare/sql', replayHandler(db, groups));
  bare.get('/bare/page', async (_request, reply) => reply.type('application/json').send(JSON.stringify(await hours.page(query, 'en-US'))));
  // The twins of the corrections section: the recorded steps of each, replayed by index.
  const twinSteps: TracedStatement[][][] = [];
  bare.get<{ Params: { n: string } }>('/bare/twin/:n', async (request, reply) => {
    const out: unknown[] = [];
    for (const group of twinSteps[Number(request.params.n)]!) out.push(...(await Promise.all(group.map((st) => db.query(st.text, st.params)))));
    return reply.type('application/json').send(JSON.stringify(out));
  });
  await bare.listen({ host: '127.0.0.1', port: 0 });
  const bareOrigin = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}`;
  const replay = (await (await fetch(`${bareOrigin}/bare/sql`)).json()) as unknown[][];
  const punchRows = replay.find((rows) => (rows[0] as { punches?: unknown } | undefined)?.punches !== undefined) as { punches: unknown[] }[];
  const punches = punchRows.reduce((n, r) => n + r.punches.length, 0);
  console.log(`bare twin: ${statements.length} statements in ${groups.length} steps (the rules; the page and its count; the punches, ${fmt(punches)} in ${fmt(punchRows.length)} rows, one per worker; their sites; the approved and locked periods)`);

  // Each run also counts this process's CPU time per request (the load client is another
  // process; PostgreSQL's time is not in it): on a busy machine, steadier than the rates.
  const side = (load: ClosedLoad, cpu: number[]) => async (warmUp: boolean): Promise<SideFigures> => {
    const before = process.cpuUsage();
    const r = await closedLoop({ ...load, connections: CONCURRENCY, seconds: warmUp ? Math.min(2, SECONDS) : SECONDS });
    const used = process.cpuUsage(before);
    if (!warmUp) cpu.push((used.user + used.system) / 1000 / r.sent);
    return { rps: r.requests / r.seconds, p99: r.p99 };
  };
  const pagePair = async (label: string, bareUrl: string, target: boolean) => {
    const cpuRoute: number[] = [];
    const cpuBare: number[] = [];
    const f = await pairFigures(ROUNDS, side({ url: `${origin}${pageUrl}`, headers: auth }, cpuRoute), side({ url: `${bareOrigin}${bareUrl}` }, cpuBare));
    const ratio = median(f.ratios);
    const p99 = median(f.a.map((x) => x.p99));
    const verdict = target
      ? `(target >= ${PAGE_TARGET}) ${ratio >= PAGE_TARGET ? 'PASS' : 'BELOW TARGET'}; route p99 ${fmt(p99, 1)} ms (target < ${P99_TARGET_MS}) ${p99 < P99_TARGET_MS ? 'PASS' : 'ABOVE TARGET'}`
      : `(diagnostic, no target); route p99 ${fmt(p99, 1)} ms`;
    console.log(`${label}: ${fmt(median(f.a.map((x) => x.rps)), 1)} vs ${fmt(median(f.b.map((x) => x.rps)), 1)} per second; ratio ${fmt(ratio, 3)} ${verdict}; `
      + `bare p99 ${fmt(median(f.b.map((x) => x.p99)), 1)} ms; server CPU per request ${fmt(median(cpuRoute), 1)} vs ${fmt(median(cpuBare), 1)} ms; per-round ratios ${f.ratios.map((r) => fmt(r, 2)).join(' ')}`);
  };
  console.log(`page pairs: ${CONCURRENCY} connections, ${ROUNDS} rounds x ${SECONDS} s per side`);
  await pagePair('GET /api/managers/timesheets, 50 workers, one month (auth, validation, timesheet computation, reply schema) vs bare route running the same SQL, rows raw', '/bare/sql', true);
  await pagePair('  same route vs bare route calling HoursService.page (SQL and computation, no auth, validation or reply schema)', '/bare/page', false);
  const alone = await closedLoop({ url: `${origin}${pageUrl}`, headers: auth, connections: 1, seconds: SECONDS });
  console.log(`  same route alone (1 connection, ${SECONDS} s, diagnostic): ${fmt(alone.requests / alone.seconds, 1)} per second, p50 ${fmt(alone.p50, 1)} ms, p99 ${fmt(alone.p99, 1)} ms`);

  // ---------------------------------------------------------------- corrections (issue 30)
  // The page's workers get corrections through the API (a clock-out moved, a session voided, a
  // session added) and PENDING requests wait in the inbox; then the corrected page, one corrected
  // worker's timesheet and the exceptions inbox each run against a bare route replaying the SQL
  // its service issues (recorded as above).
  const items = sample.items as unknown as { userId: number }[];
  const made = await correct(items.map((w) => w.userId), json, token);
  const pending = await seedPending();
  console.log(`corrections: ${fmt(made)} made through the API on the page's ${items.length} workers; ${fmt(pending)} requests pending`);
  const twin = async (label: string, url: string, record: () => Promise<unknown>) => {
    const recorded: TracedStatement[] = [];
    db.trace = (st) => recording.getStore()?.push(st);
    try {
      await recording.run(recorded, record);
    } finally {
      db.trace = undefined;
    }
    const bareUrl = `/bare/twin/${twinSteps.push(concurrentGroups(recorded)) - 1}`;
    const cpuRoute: number[] = [];
    const cpuBare: number[] = [];
    const f = await pairFigures(ROUNDS, side({ url: `${origin}${url}`, headers: auth }, cpuRoute), side({ url: `${bareOrigin}${bareUrl}` }, cpuBare));
    const ratio = median(f.ratios);
    console.log(`${label}: ${fmt(median(f.a.map((x) => x.rps)), 1)} vs ${fmt(median(f.b.map((x) => x.rps)), 1)} per second; ratio ${fmt(ratio, 3)} (target >= ${PAGE_TARGET}) ${ratio >= PAGE_TARGET ? 'PASS' : 'BELOW TARGET'}; `
      + `route p99 ${fmt(median(f.a.map((x) => x.p99)), 1)} ms, bare p99 ${fmt(median(f.b.map((x) => x.p99)), 1)} ms; ${recorded.length} statements; per-round ratios ${f.ratios.map((r) => fmt(r, 2)).join(' ')}`);
  };
  const corrections = new CorrectionsService({ db, config });
  await twin('GET /api/managers/timesheets, 50 corrected workers, one month vs bare route running the same SQL', pageUrl, () => hours.page(query, 'en-US'));
  const one = items[0]!.userId;
  await twin(`GET /api/managers/timesheets/${one}, a corrected worker's month vs bare route running the same SQL`, `/api/managers/timesheets/${one}?from=${from}&to=${to}`, () => hours.worker(one, { from, to }, 'en-US'));
  await twin('GET /api/managers/corrections (the exceptions inbox: pending requests, page of 20) vs bare route running the same SQL', '/api/managers/corrections',
    () => corrections.page({ status: 'pending', page: 1, limit: 20 }, 'en-US'));
  if (EXPORT_ROUNDS === 0) return;

  // ---------------------------------------------------------------- XLSX export of everyone
  const body = { from, to, format: 'xlsx', detail: 'workers' } as const;
  const params: PayrollParams = { ...body, lang: 'en-US' };
  const kind = payrollKind(hours);
  const api: Measured[] = [];
  const reference: Measured[] = [];
  const exportApi = async () => {
    const m = await measured(async () => {
      let task = await json<{ id: number; status: string; rowsWritten: number }>('POST', '/api/managers/timesheets/export', body, token);
      while (task.status === 'pending' || task.status === 'processing') {
        await sleep(SAMPLE_MS);
        task = await json('GET', `/api/managers/exports/${task.id}`, undefined, token);
      }
      if (task.status !== 'completed') throw new Error(`export ${task.id}: ${task.status}`);
      return task.rowsWritten;
    });
    api.push(m);
    return m.rows / (m.ms / 1000);
  };
  let files = 0;
  let fileSize = 0;
  const exportBare = async () => {
    const m = await measured(async () => {
      const file = path.join(dataDir, `bare-${++files}.xlsx`);
      let rows = 0;
      await streamXlsx(kind, params, createWriteStream(file, { flags: 'wx' }), new AbortController().signal, async (n) => {
        rows = n;
      });
      fileSize = statSync(file).size;
      rmSync(file);
      return rows;
    });
    reference.push(m);
    return m.rows / (m.ms / 1000);
  };
  console.log(`export pair: ${EXPORT_ROUNDS} rounds after a warm-up of each`);
  await pair(EXPORT_ROUNDS, `XLSX payroll export, ${fmt(WORKERS)} workers x one month, one row per worker (POST, queue, poll every ${SAMPLE_MS} ms until completed) vs the same rows (HoursService.all through the payroll kind) streamed through the same writer (streamXlsx) into a file, rows`,
    exportApi, exportBare, EXPORT_TARGET, db.kind === 'postgres' ? '' : ' on PostgreSQL; this is PGlite');
  const seconds = (xs: Measured[]) => xs.slice(1).map((x) => `${fmt(x.ms / 1000, 1)} (CPU ${fmt(x.cpu / 1000, 1)})`).join(' ');
  console.log(`  export seconds (this process's CPU seconds): ${seconds(api)} (API) vs ${seconds(reference)} (bare); ${fmt(median(api.map((x) => x.rows)))} rows, file ${fmt(fileSize / 1024, 0)} KiB`);
  const worst = Math.max(...api.map((x) => x.growth));
  console.log(`  server RSS growth during an export: ${api.map((x) => fmt(x.growth / MiB, 1)).join(', ')} MiB (first is the warm-up; before ${fmt(api[0]!.before / MiB, 0)} MiB) `
    + `-> worst ${fmt(worst / MiB, 1)} MiB (target < ${RSS_TARGET_MIB}) ${worst / MiB < RSS_TARGET_MIB ? 'PASS' : 'ABOVE TARGET'}; bare writer: ${reference.map((x) => fmt(x.growth / MiB, 1)).join(', ')} MiB`);
}

interface Measured {
  rows: number;
  ms: number;
  /** This process's CPU time, ms. */
  cpu: number;
  before: number;
  growth: number;
}

/** Runs `fn`, timing it and sampling this process's RSS every SAMPLE_MS: the peak's growth over the RSS at the start. */
async function measured(fn: () => Promise<number>): Promise<Measured> {
  const before = process.memoryUsage.rss();
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, SAMPLE_MS);
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  try {
    const rows = await fn();
    const ms = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    peak = Math.max(peak, process.memoryUsage.rss());
    return { rows, ms, cpu: (cpu.user + cpu.system) / 1000, before, growth: peak - before };
  } finally {
    clearInterval(timer);
  }
}

/**
 * Corrections through the API on each of these workers' month: the first session's clock-out
 * moved 15 minutes later, the second session voided (both punches), a session added on the first
 * Saturday (both punches at once). Skipped for a worker who has corrections already (re-runs). Answers how many were made.
 */
async function correct(userIds: number[], json: <T>(method: string, url: string, body?: unknown, token?: string) => Promise<T>, token: string): Promise<number> {
  let made = 0;
  const saturday = [...Array(7).keys()].map((i) => new Date(Date.parse(`${from}T00:00:00Z`) + i * 86_400_000)).find((d) => d.getUTCDay() === 6)!.toISOString().slice(0, 10);
  for (const userId of userIds) {
    const [{ n }] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM timeclock.corrections WHERE user_id = $1', [userId]) as [{ n: number }];
    if (n > 0) continue;
    const sheet = await json<{ days: { sessions: { startEventId: number; endEventId: number; end: string }[] }[] }>('GET', `/api/managers/timesheets/${userId}?from=${from}&to=${to}`, undefined, token);
    const [first, second] = sheet.days.flatMap((d) => d.sessions);
    const corrections = [
      { userId, kind: 'move', eventId: first!.endEventId, at: new Date(Date.parse(first!.end) + 15 * 60_000).toISOString(), reason: 'bench: stayed longer' },
      { userId, kind: 'void', eventId: second!.startEventId, pairEventId: second!.endEventId, reason: 'bench: not worked' },
      { userId, kind: 'add', eventType: 'clock_in', at: `${saturday}T08:00:00Z`, endAt: `${saturday}T12:00:00Z`, reason: 'bench: Saturday shift' },
    ];
    for (const body of corrections) {
      await json('POST', '/api/managers/corrections', body, token);
      made++;
    }
  }
  return made;
}

/** PENDING requests to add a missed clock-out (the inbox's rows), inserted unless there (re-runs). */
async function seedPending(): Promise<number> {
  const [{ n }] = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM timeclock.corrections WHERE status = 'pending'") as [{ n: number }];
  if (n >= PENDING) return n;
  await db.query(
    `INSERT INTO timeclock.corrections (user_id, kind, before, after, reason, status, requested_by)
     SELECT u.id, 'add', '[]'::jsonb, jsonb_build_array(jsonb_build_object('eventId', NULL, 'eventType', 'clock_out', 'at', $1::text, 'siteId', NULL)),
            'bench: forgot to clock out', 'pending', u.id
     FROM timeclock.users u WHERE u.username LIKE 'ts_w%' ORDER BY u.id LIMIT $2`,
    [`${to}T17:00:00.000Z`, PENDING - n],
  );
  return PENDING;
}

function sleep(ms: number) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * WORKERS workers (`ts_w00001`…) with a month of punches, in one transaction, unless they are
 * there. Five sites with fences, time zones and a QR code each; each worker punches at one of
 * them on every weekday of the month: 2–4 sessions a day from about 07:00 local, 20–30 minute
 * breaks between them; about 1 % of the days end with a forced clock-out (no QR code) and
 * about 1 % of the punches were sent late (received two hours after their capture).
 */
async function seed() {
  const [{ n }] = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM timeclock.users WHERE username LIKE 'ts_w%'") as [{ n: number }];
  if (n >= WORKERS) return;
  if (n > 0) throw new Error(`the database holds ${n} benchmark workers, not ${WORKERS}: use a fresh database`);
  const { latitude: lat, longitude: lon } = SITE_CENTRE;
  const started = performance.now();
  await db.transaction((tx) => tx.allowLongStatements().then(() => tx.script(`
    INSERT INTO timeclock.sites (name, fence, timezone)
    SELECT 'Hours site ' || s,
           jsonb_build_object('type', 'circle', 'center', jsonb_build_object('latitude', ${lat} + (s - 1) * 0.05, 'longitude', ${lon}), 'radiusMetres', 300),
           (ARRAY['Europe/Paris', 'Europe/Paris', 'Europe/London', 'America/New_York', 'Asia/Kathmandu'])[s]
    FROM generate_series(1, 5) s;
    INSERT INTO timeclock.qr_codes (id, name, site_id)
    SELECT gen_random_uuid(), s.name || ' gate', s.id FROM timeclock.sites s WHERE s.name LIKE 'Hours site %';
    INSERT INTO timeclock.users (username, password_hash, full_name, role, status, created_at)
    SELECT 'ts_w' || lpad(g::text, 5, '0'), 'not-a-hash',
           (ARRAY['Ada', 'Bruno', 'Chen', 'Dana', 'Emil', 'Fatima', 'Goran', 'Hana', 'Ivan', 'Jia'])[1 + g % 10] || ' '
             || (ARRAY['Keller', 'Li', 'Moreau', 'Novak', 'Okafor', 'Petit', 'Quinn', 'Rossi', 'Silva', 'Tanaka', 'Wang'])[1 + (g / 10) % 11] || ' ' || g,
           'worker', 1, timestamptz '${from}' - interval '1 year'
    FROM generate_series(1, ${WORKERS}) g;
    WITH w AS (
      SELECT id, row_number() OVER (ORDER BY id) AS k FROM timeclock.users WHERE username LIKE 'ts_w%'
    ), q AS (
      SELECT q.id AS qr, q.site_id, s.timezone, row_number() OVER (ORDER BY s.id) - 1 AS k, count(*) OVER () AS n
      FROM timeclock.qr_codes q JOIN timeclock.sites s ON s.id = q.site_id WHERE s.name LIKE 'Hours site %'
    ), d AS (
      SELECT day::date AS day, extract(doy FROM day)::int AS doy
      FROM generate_series(date '${from}', date '${to}', interval '1 day') day WHERE extract(isodow FROM day) < 6
    ), days AS (
      SELECT w.id AS user_id, w.k, q.qr, q.site_id, q.timezone, d.day, d.doy, 2 + ((w.k * 7 + d.doy) % 3)::int AS n
      FROM w JOIN q ON q.k = w.k % q.n CROSS JOIN d
    ), sessions AS (
      SELECT days.*, i,
             (days.day + time '07:00' + make_interval(mins => (k % 60)::int + i * (570 / n))) AT TIME ZONE timezone AS start_at,
             make_interval(mins => 570 / n - 20 - ((k + i) % 10)::int) AS length,
             i = n - 1 AND (k + doy) % 97 = 0 AS forced_out
      FROM days CROSS JOIN LATERAL generate_series(0, days.n - 1) i
    ), punches AS (
      SELECT s.user_id, p.event_type, s.site_id, s.qr, p.at, p.event_type = 'clock_out' AND s.forced_out AS forced,
             (s.k * 3 + s.i + s.doy + (p.event_type = 'clock_out')::int) % 89 = 0 AS late
      FROM sessions s CROSS JOIN LATERAL (VALUES ('clock_in', s.start_at), ('clock_out', s.start_at + s.length)) p(event_type, at)
    )
    INSERT INTO timeclock.clock_events (user_id, event_type, qr_code_id, site_id, latitude, longitude, forced, late, created_at, received_at, captured_at)
    SELECT user_id, event_type, CASE WHEN forced THEN NULL ELSE qr END, site_id, ${lat} + (site_id % 5) * 0.0001, ${lon}, forced, late,
           at, at + CASE WHEN late THEN interval '2 hours' ELSE interval '0' END, CASE WHEN late THEN at END
    FROM punches ORDER BY at;
    ANALYZE timeclock.users; ANALYZE timeclock.clock_events; ANALYZE timeclock.sites; ANALYZE timeclock.qr_codes;`)));
  console.log(`seeded in ${fmt((performance.now() - started) / 1000, 1)} s`);
}
