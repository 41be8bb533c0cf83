// Route sweep (issue 18): every GET list and detail route of both services (the back office's
// lists of departments' and administrators' rows also for a department-scoped caller), and the four hot
// writes (POST /api/admin/orders, POST /api/admin/admins, POST /api/location/update,
// POST /api/clock), each as a ratio to a bare route in the same process, on the same pool, at
// a fixed concurrency: throughput and p99 latency.
//
// - Seeds a realistic database (bench/routes-seed.ts; BENCH_SCALE multiplies its sizes).
// - The GET routes are read from the route table the app builds (the `onRoute` option of
//   buildServer), so a new route is measured as soon as it is declared; those that are not JSON
//   lists or details (documentation, health, captcha, WebSocket, downloads, …) are listed once as
//   skipped, with the reason. Path parameters come from seeded rows (ROUTE_IDS below; a route
//   with a parameter missing there is an error), list queries ask for page 1 of 20.
// - Each GET route's bare twin replays the statements the route itself issued on its second
//   warm-up request (the first warms caches such as the auth hook's sessions), recorded through
//   Database.trace with nothing else in flight, through db.query on the same pool: statements
//   that overlapped (Promise.all in the route) run together again, the others in turn. It replies
//   JSON.stringify of the result rows, from a plain Fastify instance in this process: no
//   authentication, hooks, validation or response schema.
// - Writes cannot be replayed (unique keys; the work done in code), so their bare twin calls the
//   service method the route calls. Bodies vary per request where they must: `{{n}}` (a run id
//   and a counter) makes usernames and idempotency keys unique; POST /api/clock cycles over
//   many workers, each clocking in then out in turn (the cycle carries on across runs), sent by
//   the manager for them; location updates go in turn from workers signed in on their devices.
// - The load comes from bench/load-client.ts in a child process (closed loop, BENCH_CONCURRENCY
//   connections, p99 from every request); with more than one core, this process is pinned to
//   core 0 and the load client to core 1. One discarded warm-up run per side, then BENCH_ROUNDS
//   rounds alternating the sides. A pair whose per-round throughput ratios spread by more than
//   15 % of their median is flagged NOISY.
//
// Targets, each a ratio to its own bare twin in the same run: lists and details >= 0.80 of the
// bare throughput with p99 <= 1.3 x the bare p99 on PostgreSQL (>= 0.75 on PGlite, p99 the
// same); writes >= 0.75 of the bare throughput (p99 shown, no target).
//
// Runs on PGlite by default; BENCH_DATABASE_URL (a fresh database is made next to it and dropped
// at the end) and BENCH_REDIS_URL for PostgreSQL and Redis. Knobs: BENCH_SECONDS (3),
// BENCH_ROUNDS (3), BENCH_CONCURRENCY (8), BENCH_ONLY (substrings of "METHOD /path", separated by |),
// BENCH_SCALE (1; 0.01 for a quick run).
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import Fastify, { type RouteOptions } from 'fastify';
import type { FeatureOptions } from '../src/admin/context.ts';
import type { Principal } from '../src/admin/kernel/guard.ts';
import { renderOrderWithDetails } from '../src/admin/features/orders/orders.view.ts';
import { loadConfig } from '../src/platform/config.ts';
import { addMonths, formatDisplay } from '../src/platform/time.ts';
import { buildServer } from '../src/server.ts';
import { ClockService } from '../src/timeclock/features/clock/clock.service.ts';
import { LocationService } from '../src/timeclock/features/location/location.service.ts';
import { SecurityEvents } from '../src/timeclock/kernel/security-events.ts';
import { closedLoop, fmt, freshDatabase, median, pairFigures, pinServerAndClient, replayHandler, statementRecorder, type ClosedLoad, type SideFigures } from './lib.ts';
import { deviceUuid, SCOPED_PASSWORD, SCOPED_USERNAME, seedRoutes, seedSizes, SITE_CENTRE, WORKER_PASSWORD } from './routes-seed.ts';

const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
/** The routes kept: those whose label contains one of BENCH_ONLY's `|`-separated substrings; all without it. */
const ONLY = process.env.BENCH_ONLY?.split('|').filter((s) => s !== '');
const kept = (label: string) => !ONLY?.length || ONLY.some((s) => label.includes(s));
const WARM_UP_SECONDS = Math.min(1, SECONDS);
const SETTLE_MS = 300;
const NOISE = 0.15;
const ADMIN_PASSWORD = 'Bench-pass-123';
const MANAGER_PASSWORD = 'Bench-manager-123';
/** Workers posting positions (each signed in on its device), and workers the manager clocks in and out. */
const LOCATION_WORKERS = 50;
const CLOCK_WORKERS = 2000;
/** The back office's lists measured again for a department-scoped caller (issue 31). */
const SCOPED_LISTS = /^\/api\/admin\/(admins|orders|payments|logs\/operation|logs\/login|online-admins|attachments|dashboard\/stats)$/;
const P99_TARGET = 1.3;
const WRITE_TARGET = 0.75;
const WIDTHS = [58, 9, 9, 6, 9, 9, 6, 18, 12];
const HEADER = row(['route', 'route/s', 'bare/s', 'ratio', 'p99 ms', 'bare p99', 'p99 x', 'target', 'verdict', 'bare twin']);

const startedAt = performance.now();
const CORES = availableParallelism();
const pinned = pinServerAndClient();
const pg = process.env.BENCH_DATABASE_URL ? await freshDatabase(process.env.BENCH_DATABASE_URL, 'routes') : undefined;
const dataDir = mkdtempSync(path.join(tmpdir(), 'fieldops-bench-routes-'));
const config = loadConfig({
  DATA_DIR: dataDir,
  JWT_SECRET: 'bench-secret-that-is-long-enough-0123456789',
  ADMIN_PASSWORD,
  MANAGER_PASSWORD,
  CAPTCHA_ENABLED: 'false',
  LOG_LEVEL: 'warn',
  AUTH_RATE_LIMIT: '1000000',
  TIMECLOCK_RATE_LIMIT_AUTH: '1000000',
  TIMECLOCK_RATE_LIMIT_CLOCK: '1000000',
  TIMECLOCK_RATE_LIMIT_LOCATION: '1000000',
  TIMECLOCK_RATE_LIMIT_GENERAL: '1000000',
  // The clock route punches each worker in and out in turn, faster than the duplicate-punch window.
  CLOCK_MIN_INTERVAL_SECONDS: '0',
  ...(pg ? { DATABASE_URL: pg.url } : {}),
  ...(process.env.BENCH_REDIS_URL ? { REDIS_URL: process.env.BENCH_REDIS_URL, REDIS_KEY_PREFIX: `bench${process.pid}:` } : {}),
});

const declared: RouteOptions[] = [];
const holder: { admin?: FeatureOptions['ctx'] } = {};
const server = await buildServer(config, {
  onRoute: (route) => void declared.push(route),
  adminExtras: async (_admin, { ctx }) => {
    holder.admin = ctx;
  },
}).catch(async (err: unknown) => {
  await pg?.drop();
  throw err;
});
const { platform } = server;
const { db } = platform;
const bare = Fastify({ logger: false });

try {
  await main();
} finally {
  await bare.close();
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
  await pg?.drop();
}

async function main() {
  const sizes = seedSizes(SCALE);
  console.log(`# route sweep (${db.kind}${platform.redis ? ' + redis' : ''}, Node ${process.versions.node}, ${CORES} cores${pinned ? ', server on core 0, load client on core 1' : ''}, `
    + `${ROUNDS} rounds x ${SECONDS} s per side, ${CONCURRENCY} connections, scale ${SCALE})`);
  console.log(`seeding (${fmt(sizes.admins)} administrators, ${fmt(sizes.orders)} orders, ${fmt(sizes.workers)} workers) …`);
  const seedMs = await seedRoutes(db, sizes, (line) => console.log(line));
  console.log(`seed: ${fmt(seedMs / 1000, 1)} s`);

  await server.app.listen({ host: '127.0.0.1', port: 0 });
  const origin = `http://127.0.0.1:${(server.app.server.address() as { port: number }).port}`;
  const json = async (method: string, url: string, body?: unknown, token?: string) => {
    const res = await fetch(`${origin}${url}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const data = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(data)}`);
    return data;
  };

  // ---------------------------------------------------------------- sign-ins and seeded ids
  const adminToken = ((await json('POST', '/api/admin/login', { username: 'admin', password: ADMIN_PASSWORD })).data as { token: string }).token;
  const scopedToken = ((await json('POST', '/api/admin/login', { username: SCOPED_USERNAME, password: SCOPED_PASSWORD })).data as { token: string }).token;
  const manager = await json('POST', '/api/auth/login', { username: 'manager', password: MANAGER_PASSWORD, deviceUuid: `web-${crypto.randomUUID()}` });
  const managerToken = manager.token as string;
  const managerId = (await db.query<{ id: number }>("SELECT id FROM timeclock.users WHERE username = 'manager'"))[0]!.id;
  const webhook = await json('POST', '/api/managers/webhooks', { url: 'https://hooks.example.com/bench', events: ['worker.clock_in'], description: 'bench', is_active: false }, managerToken);
  await db.query(`INSERT INTO timeclock.webhook_deliveries (endpoint_id, event, payload, status, attempts, last_status_code, delivered_at)
    SELECT $1, 'worker.clock_in', '{"event":"worker.clock_in","data":{"bench":true}}', 'delivered', 1, 200, now() - make_interval(mins => g) FROM generate_series(1, 100) g`, [webhook.id]);

  const one = async (sql: string) => {
    const rows = await db.query<{ id: number | string }>(sql);
    if (!rows[0]) throw new Error(`no seeded row for: ${sql}`);
    return String(rows[0].id);
  };
  const mid = (table: string, where = 'true') => `SELECT id FROM ${table} WHERE ${where} ORDER BY id OFFSET (SELECT count(*) / 2 FROM ${table} WHERE ${where}) LIMIT 1`;
  const workerId = await one(mid('timeclock.users', "username LIKE 'bench_w%'"));
  // Path parameters of the GET routes, by route; a route with a parameter not found here fails the run.
  const ROUTE_IDS: Record<string, string> = {
    '/api/admin/admins/:id': await one(mid('admin.admins', "username LIKE 'user%'")),
    '/api/admin/roles/:id': await one("SELECT id FROM admin.roles WHERE slug = 'bench_role_7'"),
    '/api/admin/permissions/:id': await one(mid('admin.permissions')),
    '/api/admin/menus/:id': await one("SELECT id FROM admin.menus WHERE slug = 'order'"),
    '/api/admin/departments/:id': await one("SELECT id FROM admin.departments WHERE name = 'Department 7'"),
    '/api/admin/dictionaries/:id': await one("SELECT id FROM admin.dictionaries WHERE code = 'bench_type_3'"),
    '/api/admin/blacklists/:id': await one(mid('admin.blacklists', "remark = 'bench'")),
    '/api/admin/orders/:id': await one(mid('admin.orders')),
    '/api/admin/payment-methods/:id': await one("SELECT id FROM admin.payment_methods WHERE code = 'card'"),
    '/api/admin/payments/:id': await one(mid('admin.payments')),
    '/api/admin/attachments/:id': await one(mid('admin.attachments', 'uploaded_by = 1')),
    '/api/managers/workers/:id': workerId,
    '/api/workers/:id': workerId,
    '/api/managers/sites/:id': await one("SELECT id FROM timeclock.sites WHERE name = 'Bench site 2'"),
    '/api/managers/qr-codes/:id': await one("SELECT q.id FROM timeclock.qr_codes q JOIN timeclock.sites s ON s.id = q.site_id WHERE s.name = 'Bench site 2' ORDER BY q.id LIMIT 1"),
    '/api/worker/clock-history/:userId': workerId,
    '/api/location/status/:userId': workerId,
    '/api/security/status/:userId': workerId,
    '/api/managers/webhooks/:id': String(webhook.id),
    '/api/managers/webhooks/:id/deliveries': String(webhook.id),
    '/api/managers/timesheets/:userId': workerId,
  };
  // A 3-month window ending at the start of today (display time), for the orders and payments lists.
  const end = new Date(`${formatDisplay(new Date(), 'UTC')!.slice(0, 10)}T00:00:00Z`);
  const range = { start_time: formatDisplay(addMonths(end, -3), 'UTC')!, end_time: formatDisplay(end, 'UTC')! };
  // The last 7 days (UTC dates), for the timesheets.
  const week = { from: new Date(end.getTime() - 6 * 86_400_000).toISOString().slice(0, 10), to: end.toISOString().slice(0, 10) };
  const EXTRA_QUERY: Record<string, Record<string, string>> = {
    '/api/managers/timesheets': week,
    '/api/managers/timesheets/:userId': week,
    '/api/worker/timesheet': week,
    '/api/admin/orders': { status: 'paid', ...range },
    '/api/admin/payments': { status: 'paid', ...range },
    '/api/managers/board': { limit: '100' },
  };

  // ---------------------------------------------------------------- the GET routes
  const SKIP: [RegExp, string][] = [
    [/\/docs(\/|$)/, 'API documentation'],
    [/\/health$/, 'health check'],
    [/\/captcha$/, 'captcha image: CPU-bound rendering, not a list or detail'],
    [/\/ws\//, 'WebSocket'],
    [/\/download$|\/public\/:/, 'file download'],
    [/\/import\/:id\/rejected$/, 'CSV download of an import’s refused rows'],
    [/\/google-authenticator\/qrcode$/, 'renders a QR code image: not a list or detail'],
    [/\/monitor\/system$/, 'samples the server’s CPU over an interval: not a database list or detail'],
    [/\/exports\/:id$|\/export\/status\/:id$/, 'status of an export task: exists only while an export runs'],
    [/\/attachments\/chunk\/:chunk_id$/, 'progress of a chunked upload: exists only while an upload is open'],
  ];
  const gets = declared
    .filter((r) => [r.method].flat().includes('GET') && r.url.startsWith('/api/') && !r.url.includes('*'))
    .map((r) => r.url);
  const skipped: string[] = [];
  const measured: { label: string; url: string; token: string }[] = [];
  for (const url of [...new Set(gets)]) {
    const reason = SKIP.find(([re]) => re.test(url))?.[1];
    if (reason) {
      skipped.push(`GET ${url} (${reason})`);
      continue;
    }
    let concrete = url;
    if (url.includes(':')) {
      const id = ROUTE_IDS[url];
      // A partial run (BENCH_ONLY) needs no seeded value for the routes it leaves out.
      if (id === undefined && !kept(`GET ${url}`)) continue;
      if (id === undefined) throw new Error(`GET ${url}: no seeded value for its path parameter; add it to ROUTE_IDS in bench/routes.ts`);
      concrete = url.replace(/:[A-Za-z_]+/, id);
    }
    const route = declared.find((r) => r.url === url && [r.method].flat().includes('GET'))!;
    const props = ((route.schema?.querystring ?? {}) as { properties?: Record<string, unknown> }).properties ?? {};
    const query: Record<string, string> = {};
    if ('page' in props) query.page = '1';
    if ('page_size' in props) query.page_size = '20';
    if ('limit' in props) query.limit = '20';
    Object.assign(query, EXTRA_QUERY[url]);
    const qs = new URLSearchParams(query).toString();
    const full = qs ? `${concrete}?${qs}` : concrete;
    const label = `GET ${full}`;
    if (!kept(`GET ${url} ${label}`)) continue;
    measured.push({ label, url: full, token: url.startsWith('/api/admin/') ? adminToken : managerToken });
    // The lists of rows that belong to departments or administrators, again for a caller whose
    // data scope is a department and those below it: the bare twin replays the scoped statements.
    if (SCOPED_LISTS.test(url)) measured.push({ label: `${label} (department scope)`, url: full, token: scopedToken });
  }
  console.log(`skipped (not JSON lists or details): ${skipped.length}`);
  for (const s of skipped) console.log(`  ${s}`);

  // Record each route's statements: a warm-up request, then one with the tracer on and nothing
  // else in flight (statementRecorder, bench/lib.ts).
  const recorder = statementRecorder(server.app.server, db);
  const pairs: Pair[] = [];
  try {
    for (const [i, m] of measured.entries()) {
      const request = async (headers: Record<string, string> = {}) => {
        const res = await fetch(`${origin}${m.url}`, { headers: { authorization: `Bearer ${m.token}`, ...headers } });
        const body = await res.text();
        if (!res.ok) throw new Error(`${m.label}: warm-up answered ${res.status} ${body.slice(0, 300)}`);
      };
      await request();
      const { statements, groups } = await recorder.of(request);
      const bareUrl = `/bare/${i}`;
      bare.get(bareUrl, replayHandler(db, groups));
      pairs.push({
        label: m.label,
        kind: 'read',
        note: `${statements.length} stmt${statements.length === 1 ? '' : 's'}${groups.length < statements.length ? ` in ${groups.length} step${groups.length === 1 ? '' : 's'}` : ''}`,
        route: { url: `${origin}${m.url}`, headers: { authorization: `Bearer ${m.token}` } },
        bare: { url: bareUrl },
      });
    }
  } finally {
    recorder.stop();
  }

  // ---------------------------------------------------------------- the writes
  const tz = config.DISPLAY_TIMEZONE;
  const runId = `${process.pid.toString(36)}${Date.now().toString(36)}r`;
  const orderBody = JSON.stringify({
    user_id: 4242,
    amount: 236.61,
    products: [
      { product_id: 101, product_name: 'Coffee beans 1 kg', price: 24.9, quantity: 2 },
      { product_id: 102, product_name: 'Paper filters', price: 3.45, quantity: 3 },
      { product_id: 103, product_name: 'Grinder', price: 129, quantity: 1 },
      { product_id: 104, product_name: 'Mug', price: 8.99, quantity: 4 },
      { product_id: 105, product_name: 'Descaler', price: 11.5, quantity: 1 },
    ],
    request_id: 'bench-{{n}}',
  });
  const adminBody = JSON.stringify({ username: 'b{{n}}', password: 'Bench-pass-123', nickname: 'Bench {{n}}', email: '', department_id: 1 });
  const superAdmin: Principal = { sessionId: 0, adminId: 1, username: 'admin', isSuper: true, permissions: new Set(), restriction: null, scope: { all: true, departments: [], adminId: 1, departmentId: null } };
  const ctx = holder.admin!;
  bare.post('/bare/orders', async (request, reply) =>
    reply.type('application/json').send(JSON.stringify(renderOrderWithDetails(await ctx.orders.create(request.body as never, 1), tz))));
  bare.post('/bare/admins', async (request, reply) =>
    reply.type('application/json').send(JSON.stringify(await ctx.admins.create(superAdmin, request.body as never))));

  const locations = new LocationService({ db, config, logger: platform.logger });
  const clocks = new ClockService({ db, logger: platform.logger, config, securityEvents: new SecurityEvents({ db, logger: platform.logger }) });
  bare.post('/bare/location', async (request, reply) => reply.type('application/json').send(JSON.stringify(await locations.update(request.body as never))));
  bare.post('/bare/clock', async (request, reply) =>
    reply.type('application/json').send(JSON.stringify(await clocks.clock({ userId: managerId, role: 'manager', tokenVersion: 0, mustChangePassword: false }, request.body as never))));

  // Location: workers signed in on their seeded devices, in turn. Clock: the manager clocks
  // CLOCK_WORKERS workers in, then out, in turn (all clocked out after the seed).
  const workerRows = await db.query<{ id: number; username: string }>(`SELECT id, username FROM timeclock.users WHERE username LIKE 'bench_w%' ORDER BY id LIMIT ${Math.max(LOCATION_WORKERS, CLOCK_WORKERS)}`);
  const locationVariants: { headers: Record<string, string>; body: string }[] = [];
  for (const { id, username } of workerRows.slice(0, LOCATION_WORKERS)) {
    const { token } = await json('POST', '/api/auth/login', { username, password: WORKER_PASSWORD, deviceUuid: deviceUuid(id) });
    locationVariants.push({
      headers: { authorization: `Bearer ${token as string}` },
      body: JSON.stringify({ userId: id, latitude: SITE_CENTRE.latitude + (id % 7) * 0.0001, longitude: SITE_CENTRE.longitude, accuracy: 8, source: 'background' }),
    });
  }
  const qr = await one("SELECT q.id FROM timeclock.qr_codes q JOIN timeclock.sites s ON s.id = q.site_id WHERE s.name = 'Bench site 1' AND q.is_active ORDER BY q.id LIMIT 1");
  const clockWorkers = workerRows.slice(0, CLOCK_WORKERS);
  const clockVariants = (['clock_in', 'clock_out'] as const).flatMap((eventType) =>
    clockWorkers.map(({ id }) => ({ body: JSON.stringify({ userId: id, eventType, qrCodeValue: qr, latitude: SITE_CENTRE.latitude, longitude: SITE_CENTRE.longitude }) })));
  const writes: Pair[] = [
    { label: 'POST /api/admin/orders (5 items)', kind: 'write', note: 'OrdersService.create', route: { url: `${origin}/api/admin/orders`, method: 'POST', headers: { authorization: `Bearer ${adminToken}` }, body: orderBody }, bare: { url: '/bare/orders', method: 'POST', body: orderBody } },
    { label: 'POST /api/admin/admins', kind: 'write', note: 'AdminsService.create (argon2)', route: { url: `${origin}/api/admin/admins`, method: 'POST', headers: { authorization: `Bearer ${adminToken}` }, body: adminBody }, bare: { url: '/bare/admins', method: 'POST', body: adminBody } },
    { label: 'POST /api/location/update', kind: 'write', note: `LocationService.update, ${locationVariants.length} workers`, route: { url: `${origin}/api/location/update`, method: 'POST', requests: locationVariants }, bare: { url: '/bare/location', method: 'POST', requests: locationVariants } },
    { label: 'POST /api/clock', kind: 'write', note: `ClockService.clock, ${clockWorkers.length} workers in turn`, cycle: true, route: { url: `${origin}/api/clock`, method: 'POST', headers: { authorization: `Bearer ${managerToken}` }, requests: clockVariants }, bare: { url: '/bare/clock', method: 'POST', requests: clockVariants } },
  ];
  pairs.push(...writes.filter((w) => kept(w.label)));

  await bare.listen({ host: '127.0.0.1', port: 0 });
  const bareOrigin = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}`;

  // ---------------------------------------------------------------- measure
  const setupSeconds = (performance.now() - startedAt) / 1000;
  console.log(`set-up (seed included): ${fmt(setupSeconds, 1)} s; ${pairs.length} routes to measure`);
  console.log(`targets: lists and details >= ${readTarget()} of the bare throughput with p99 <= ${P99_TARGET} x; writes >= ${WRITE_TARGET} of the bare throughput`);
  console.log(HEADER);
  const verdicts: { label: string; pass: boolean; noisy: boolean; ratio: number; p99Ratio: number }[] = [];
  let cycleOffset = 0;
  let runs = 0;
  for (const p of pairs) {
    const side = (load: ClosedLoad) => async (warmUp: boolean): Promise<SideFigures> => {
      // `{{n}}` is unique across runs and sides: the run id, this run's number, then the counter.
      runs += 1;
      const result = await closedLoop({
        ...load, runId: `${runId}${runs}x`, connections: CONCURRENCY, seconds: warmUp ? WARM_UP_SECONDS : SECONDS, ...(p.cycle ? { offset: cycleOffset } : {}),
      });
      if (p.cycle) cycleOffset += result.sent;
      return { rps: result.requests / result.seconds, p99: result.p99 };
    };
    const figures = await pairFigures(ROUNDS, side(p.route), side({ ...p.bare, url: `${bareOrigin}${p.bare.url}` }), SETTLE_MS);
    const ratio = median(figures.ratios);
    const p99Ratio = median(figures.p99Ratios);
    const spread = (Math.max(...figures.ratios) - Math.min(...figures.ratios)) / ratio;
    const noisy = spread > NOISE;
    const target = p.kind === 'read' ? readTarget() : WRITE_TARGET;
    const pass = ratio >= target && (p.kind === 'write' || p99Ratio <= P99_TARGET);
    verdicts.push({ label: p.label, pass, noisy, ratio, p99Ratio });
    console.log(row([
      p.label,
      fmt(median(figures.a.map((f) => f.rps))),
      fmt(median(figures.b.map((f) => f.rps))),
      fmt(ratio, 2),
      fmt(median(figures.a.map((f) => f.p99)), 2),
      fmt(median(figures.b.map((f) => f.p99)), 2),
      fmt(p99Ratio, 2),
      p.kind === 'read' ? `>=${target}, p99<=${P99_TARGET}` : `>=${target}`,
      `${pass ? 'PASS' : 'BELOW'}${noisy ? ' NOISY' : ''}`,
      p.note,
    ]));
  }

  const passed = verdicts.filter((v) => v.pass).length;
  const noisy = verdicts.filter((v) => v.noisy).length;
  console.log(`summary: ${passed} of ${verdicts.length} routes PASS, ${verdicts.length - passed} BELOW, ${noisy} NOISY (per-round throughput ratios spread > ${NOISE * 100} % of their median); ${skipped.length} skipped`);
  const worst = [...verdicts].sort((a, b) => a.ratio - b.ratio).slice(0, 5);
  console.log(`lowest throughput ratios: ${worst.map((v) => `${v.label} ${fmt(v.ratio, 2)}`).join('; ')}`);
  console.log(`total time: ${fmt((performance.now() - startedAt) / 1000, 1)} s (seed ${fmt(seedMs / 1000, 1)} s)`);
}

interface Pair {
  label: string;
  kind: 'read' | 'write';
  note: string;
  /** The requests go through one cycle of variants shared by both sides (clock in, then out). */
  cycle?: boolean;
  route: ClosedLoad;
  bare: ClosedLoad;
}

function readTarget() {
  return db.kind === 'postgres' ? 0.8 : 0.75;
}

function row(cells: string[]) {
  return cells.map((c, i) => (i === 0 ? c.padEnd(WIDTHS[0]!) : i < WIDTHS.length ? (i >= 7 ? c.padEnd(WIDTHS[i]!) : c.padStart(WIDTHS[i]!)) : c)).join(' ');
}
