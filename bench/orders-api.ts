// Orders API over 1,000,000 seeded orders on PostgreSQL, each as a ratio to a bare route (no
// authentication, validation, hooks, operation log or response schema) in the same service
// that runs the same work on the same pool:
//   (a) POST /orders with 5 items vs the same OrdersService.create call (the same single
//       INSERT … INSERT statement through postgres.js): target >= 0.75;
//   (b) GET /orders?status=paid&start_time=…&end_time=… (a 3-month range) vs the same
//       OrdersService.list call (the same page and count SQL): target >= 0.80.
// Needs BENCH_DATABASE_URL: a fresh database is created next to it, seeded once (npm run seed's
// generator) and dropped at the end. BENCH_ORDERS (default 1000000), BENCH_SECONDS, BENCH_ROUNDS.
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { seedOrders } from '../src/admin/features/orders/orders.seed.ts';
import type { Static } from 'typebox';
import type { CreateOrderBody } from '../src/admin/features/orders/orders.schema.ts';
import { OrdersService, type OrderListInput } from '../src/admin/features/orders/orders.service.ts';
import { renderOrder, renderOrderWithDetails } from '../src/admin/features/orders/orders.view.ts';
import { ok } from '../src/admin/http.ts';
import { loadConfig } from '../src/platform/config.ts';
import { addMonths, formatDisplay } from '../src/platform/time.ts';
import { buildServer } from '../src/server.ts';
import { fmt, pair, requestsPerSecond } from './lib.ts';

/** The super administrator's data scope, as the route's caller has it. */
const ALL = { all: true, departments: [], adminId: 1, departmentId: null };
const BASE_URL = process.env.BENCH_DATABASE_URL;
if (!BASE_URL) {
  process.stderr.write('orders-api needs PostgreSQL: set BENCH_DATABASE_URL (a fresh database is created next to it)\n');
  process.exit(2);
}
const ORDERS = Number(process.env.BENCH_ORDERS ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 8;
const PASSWORD = 'Bench-pass-123';

const dbName = `fieldops_bench_orders_${process.pid}`;
const server0 = postgres(BASE_URL, { max: 1, onnotice: () => {} });
await server0.unsafe(`CREATE DATABASE ${dbName}`);
await server0.end();
const dbUrl = new URL(BASE_URL);
dbUrl.pathname = `/${dbName}`;

const dataDir = mkdtempSync(path.join(tmpdir(), 'fieldops-bench-'));
const config = loadConfig({
  DATA_DIR: dataDir,
  DATABASE_URL: dbUrl.toString(),
  JWT_SECRET: 'bench-secret-that-is-long-enough-0123456789',
  ADMIN_PASSWORD: PASSWORD,
  CAPTCHA_ENABLED: 'false',
  LOG_LEVEL: 'warn',
  ...(process.env.BENCH_REDIS_URL ? { REDIS_URL: process.env.BENCH_REDIS_URL, REDIS_KEY_PREFIX: `bench${process.pid}:` } : {}),
});
const tz = config.DISPLAY_TIMEZONE;

const PRODUCTS = [
  { product_id: 101, product_name: 'Coffee beans 1 kg', price: 24.9, quantity: 2 },
  { product_id: 102, product_name: 'Paper filters', price: 3.45, quantity: 3 },
  { product_id: 103, product_name: 'Grinder', price: 129, quantity: 1 },
  { product_id: 104, product_name: 'Mug', price: 8.99, quantity: 4 },
  { product_id: 105, product_name: 'Descaler', price: 11.5, quantity: 1 },
];
// 49.80 + 10.35 + 129.00 + 35.96 + 11.50
const CREATE: Static<typeof CreateOrderBody> = { user_id: 4242, amount: 236.61, products: PRODUCTS };
const CREATE_BODY = JSON.stringify(CREATE);

// A 3-month window ending at the start of today (display time).
const end = new Date(`${formatDisplay(new Date(), 'UTC')!.slice(0, 10)}T00:00:00Z`);
const LIST: OrderListInput = {
  page: 1,
  page_size: 10,
  status: 'paid',
  start_time: formatDisplay(addMonths(end, -3), 'UTC')!,
  end_time: formatDisplay(end, 'UTC')!,
  order_by: 'id:desc',
};
const LIST_QS = new URLSearchParams({ status: 'paid', start_time: LIST.start_time!, end_time: LIST.end_time! }).toString();

const holder: { service?: OrdersService } = {};
const server = await buildServer(config, {
  adminExtras: async (admin) => {
    admin.post('/bench/orders-bare', { config: { auth: 'public' } }, async (request) => ok(request, renderOrderWithDetails(await holder.service!.create(CREATE, null), tz)));
    admin.get('/bench/orders-list-bare', { config: { auth: 'public' } }, async (request) => {
      const { rows, total } = await holder.service!.list(LIST, ALL);
      return ok(request, { list: rows.map((r) => renderOrder(r, tz)), page: LIST.page, page_size: LIST.page_size, total });
    });
  },
});
const { platform } = server;
holder.service = new OrdersService({ db: platform.db, config });

try {
  const started = performance.now();
  await seedOrders(platform.db, { orders: ORDERS, onProgress: (done) => process.stderr.write(`\rseeding ${fmt(done)} / ${fmt(ORDERS)}`) });
  process.stderr.write('\n');
  console.log(`seeded ${fmt(ORDERS)} orders (with details and payments) in ${fmt((performance.now() - started) / 1000, 1)} s`);

  await server.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = server.app.server.address() as { port: number };
  const base = `http://127.0.0.1:${port}/api/admin`;
  const login = await fetch(`${base}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: PASSWORD }) });
  const token = ((await login.json()) as { data: { token: string } }).data.token;
  const auth = { authorization: `Bearer ${token}` };

  const sample = (await (await fetch(`${base}/orders?${LIST_QS}`, { headers: auth })).json()) as { data: { total: number; list: unknown[] } };
  console.log(`# orders API benchmark (${platform.db.kind}${platform.redis ? ' + redis' : ''}, Node ${process.versions.node}, ${availableParallelism()} cores, ${ROUNDS} rounds x ${SECONDS}s, ${CONNECTIONS} connections)`);
  console.log(`list query: GET /orders?${LIST_QS} -> ${sample.data.list.length} rows of ${fmt(sample.data.total)} matching`);

  await pair(
    ROUNDS,
    'POST /orders, 5 items (auth, validation, operation log, envelope) vs bare route with the same transaction',
    () => requestsPerSecond({ url: `${base}/orders`, method: 'POST', headers: auth, body: CREATE_BODY, seconds: SECONDS, connections: CONNECTIONS }),
    () => requestsPerSecond({ url: `${base}/bench/orders-bare`, method: 'POST', body: CREATE_BODY, seconds: SECONDS, connections: CONNECTIONS }),
    0.75,
  );
  await pair(
    ROUNDS,
    'GET /orders, status + 3-month range over the seeded orders vs bare route with the same SQL',
    () => requestsPerSecond({ url: `${base}/orders?${LIST_QS}`, headers: auth, seconds: SECONDS, connections: CONNECTIONS }),
    () => requestsPerSecond({ url: `${base}/bench/orders-list-bare`, seconds: SECONDS, connections: CONNECTIONS }),
    0.8,
  );
} finally {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
  const server1 = postgres(BASE_URL, { max: 1, onnotice: () => {} });
  await server1.unsafe(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await server1.end();
}
