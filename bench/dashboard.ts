// The business dashboard (issue 31, part 5): GET /api/admin/dashboard/business?days=30 at
// 1,000,000 orders (npm run seed's generator, ~6 months, so about 165,000 in the 30 days),
// made by 1,000 administrators in 50 departments (as bench/routes-seed.ts does), for the super
// administrator and for a caller scoped to a department and those below it (10 of the 50).
//
// Each side is measured against a bare route in the same process, on the same pool, that replays
// the statements the route issued on a recorded request (Database.trace; overlapping statements
// run together again, as routes.ts does) and replies JSON.stringify of the rows: no
// authentication, hooks, validation, schema or shaping. Closed loop (bench/load-client.ts),
// BENCH_CONCURRENCY connections, one discarded warm-up per side, then BENCH_ROUNDS rounds
// alternating the sides.
//
// The route reads the business rollup (migration 0019), which the seed's and the UPDATEs'
// triggers keep; the UPDATEs of every order and payment below rewrite most of its rows, so its
// tables are vacuumed afterwards, as autovacuum would soon after such a change (the products'
// sums of a scoped caller are read from their index alone, which needs the visibility map).
//
// Targets: >= 0.80 of the bare throughput, and a p99 under 200 ms on PostgreSQL.
// BENCH_DATABASE_URL (a fresh database next to it, dropped at the end); PGlite otherwise.
// Knobs: BENCH_ORDERS (1,000,000), BENCH_SECONDS (5), BENCH_ROUNDS (3), BENCH_CONCURRENCY (4).
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { seedOrders } from '../src/admin/features/orders/orders.seed.ts';
import { hashPassword } from '../src/platform/auth/password.ts';
import { loadConfig } from '../src/platform/config.ts';
import { buildServer } from '../src/server.ts';
import { closedLoop, fmt, freshDatabase, median, pairFigures, pinServerAndClient, replayHandler, statementRecorder, type ClosedLoad, type SideFigures } from './lib.ts';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const RATIO_TARGET = 0.8;
const P99_TARGET_MS = 200;
const ADMIN_PASSWORD = 'Bench-pass-123';
const SCOPED_PASSWORD = 'Bench-scoped-123';
const URL_PATH = '/api/admin/dashboard/business?days=30';

const startedAt = performance.now();
const pinned = pinServerAndClient();
const pg = process.env.BENCH_DATABASE_URL ? await freshDatabase(process.env.BENCH_DATABASE_URL, 'dashboard') : undefined;
const dataDir = mkdtempSync(path.join(tmpdir(), 'fieldops-bench-dashboard-'));
const config = loadConfig({
  DATA_DIR: dataDir,
  JWT_SECRET: 'bench-secret-that-is-long-enough-0123456789',
  ADMIN_PASSWORD,
  CAPTCHA_ENABLED: 'false',
  LOG_LEVEL: 'warn',
  AUTH_RATE_LIMIT: '1000000',
  // The seed's batches on a busy machine; no request comes near it.
  DB_STATEMENT_TIMEOUT_MS: '600000',
  ...(pg ? { DATABASE_URL: pg.url } : {}),
});
const server = await buildServer(config).catch(async (err: unknown) => {
  await pg?.drop();
  throw err;
});
const { db } = server.platform;
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
  console.log(`# business dashboard (${db.kind}, Node ${process.versions.node}, ${availableParallelism()} cores${pinned ? ', server on core 0, load client on core 1' : ''}, `
    + `${ROUNDS} rounds x ${SECONDS} s per side, ${CONCURRENCY} connections, ${fmt(ORDERS)} orders)`);
  let t = performance.now();
  await db.transaction((tx) => tx.allowLongStatements().then(() => tx.script(`
    INSERT INTO admin.departments (parent_id, name, leader, phone, email, sort)
      SELECT CASE WHEN d <= 5 THEN 1 ELSE 1 + (d % 5) END, 'Department ' || d, 'Leader ' || d, '', 'dept' || d || '@example.com', d FROM generate_series(1, 50) d;
    INSERT INTO admin.admins (username, password_hash, nickname, email, department_id)
      SELECT 'user' || g, 'not-a-hash', 'Nick ' || g, 'user' || g || '@example.com', 1 + g % 50 FROM generate_series(1, 1000) g;`)));
  await seedOrders(db, { orders: ORDERS, batchSize: 20_000 });
  await db.transaction((tx) => tx.allowLongStatements().then(() => tx.script(`
    UPDATE admin.orders o SET created_by = a.id, department_id = a.department_id FROM admin.admins a WHERE a.username = 'user' || (1 + o.id % 1000);
    UPDATE admin.payments p SET created_by = o.created_by, department_id = o.department_id FROM admin.orders o WHERE o.id = p.order_id;`)));
  await db.transaction(async (tx) => tx.allowLongStatements().then(async () => tx.script(`
    INSERT INTO admin.roles (name, slug, description, data_scope) VALUES ('Department lead', 'bench_scoped', 'dashboard, its department and below', 'department_and_below');
    INSERT INTO admin.role_permissions (role_id, permission_id) SELECT r.id, p.id FROM admin.roles r CROSS JOIN admin.permissions p WHERE r.slug = 'bench_scoped' AND p.slug = 'dashboard.view';
    INSERT INTO admin.admins (username, password_hash, nickname, department_id)
      SELECT 'bench_scoped', '${await hashPassword(SCOPED_PASSWORD)}', 'Department lead', d.id FROM admin.departments d WHERE d.name = 'Department 1';
    INSERT INTO admin.admin_roles (admin_id, role_id) SELECT a.id, r.id FROM admin.admins a, admin.roles r WHERE a.username = 'bench_scoped' AND r.slug = 'bench_scoped';
    ANALYZE;`)));
  await db.query('VACUUM ANALYZE admin.business_orders_daily, admin.business_payments_daily, admin.business_products_daily');
  const [inPeriod] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM admin.orders WHERE created_at >= now() - interval '30 days'`);
  console.log(`seed: ${fmt((performance.now() - t) / 1000, 1)} s; ${fmt(Number(inPeriod!.n))} orders in the last 30 days`);

  await server.app.listen({ host: '127.0.0.1', port: 0 });
  const origin = `http://127.0.0.1:${(server.app.server.address() as { port: number }).port}`;
  const login = async (username: string, password: string) => {
    const res = await fetch(`${origin}/api/admin/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
    return ((await res.json()) as { data: { token: string } }).data.token;
  };
  const callers = [
    { label: 'GET /dashboard/business?days=30 (all)', token: await login('admin', ADMIN_PASSWORD) },
    { label: 'GET /dashboard/business?days=30 (department and below)', token: await login('bench_scoped', SCOPED_PASSWORD) },
  ];

  // Record each caller's statements and build its bare twin (statementRecorder, bench/lib.ts).
  const recorder = statementRecorder(server.app.server, db);
  const pairs: { label: string; note: string; route: ClosedLoad; bare: string }[] = [];
  for (const [i, c] of callers.entries()) {
    const request = async (headers: Record<string, string> = {}) => {
      const res = await fetch(`${origin}${URL_PATH}`, { headers: { authorization: `Bearer ${c.token}`, ...headers } });
      if (!res.ok) throw new Error(`${c.label}: ${res.status} ${(await res.text()).slice(0, 300)}`);
      return res.json() as Promise<{ data: { period: { orders: number } } }>;
    };
    const first = await request();
    const { statements, groups } = await recorder.of(request);
    bare.get(`/bare/${i}`, replayHandler(db, groups));
    pairs.push({
      label: c.label,
      note: `${fmt(first.data.period.orders)} orders in the period; ${statements.length} stmts in ${groups.length} step${groups.length === 1 ? '' : 's'}`,
      route: { url: `${origin}${URL_PATH}`, headers: { authorization: `Bearer ${c.token}` } },
      bare: `/bare/${i}`,
    });
  }
  recorder.stop();
  await bare.listen({ host: '127.0.0.1', port: 0 });
  const bareOrigin = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}`;

  console.log(`targets: >= ${RATIO_TARGET} of the bare throughput, p99 < ${P99_TARGET_MS} ms`);
  console.log('| caller | route/s | bare/s | ratio | p99 ms | bare p99 ms | verdict | |');
  console.log('|---|--:|--:|--:|--:|--:|---|---|');
  for (const p of pairs) {
    const side = (load: ClosedLoad) => async (warmUp: boolean): Promise<SideFigures> => {
      const r = await closedLoop({ ...load, connections: CONCURRENCY, seconds: warmUp ? 1 : SECONDS });
      return { rps: r.requests / r.seconds, p99: r.p99 };
    };
    const f = await pairFigures(ROUNDS, side(p.route), side({ url: `${bareOrigin}${p.bare}` }), 500);
    const ratio = median(f.ratios);
    const p99 = median(f.a.map((x) => x.p99));
    const pass = ratio >= RATIO_TARGET && p99 < P99_TARGET_MS;
    console.log(`| ${p.label} | ${fmt(median(f.a.map((x) => x.rps)), 1)} | ${fmt(median(f.b.map((x) => x.rps)), 1)} | ${fmt(ratio, 2)} | ${fmt(p99, 1)} | ${fmt(median(f.b.map((x) => x.p99)), 1)} | ${pass ? 'PASS' : 'BELOW'} | ${p.note} |`);
  }
  t = performance.now();
  console.log(`total time: ${fmt((t - startedAt) / 1000, 1)} s`);
}
