// Cost of the Prometheus metrics (issue 19): the same authenticated route on two servers in this
// process, one with metrics on (METRICS_TOKEN: every request recorded by route and status) and
// one with them off, alternating rounds. Target: on/off >= 0.95. Also the cost of one scrape.
// Runs on the embedded PGlite (a folder per server), or on PostgreSQL/Redis when
// BENCH_DATABASE_URL/BENCH_REDIS_URL are set (both servers on that database).
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { ok } from '../src/admin/http.ts';
import { loadConfig } from '../src/platform/config.ts';
import { buildServer, type Server } from '../src/server.ts';
import { fmt, pair, requestsPerSecond } from './lib.ts';

const PASSWORD = 'Bench-pass-123';
const TOKEN = 'bench-metrics-token-0123456789';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const dirs: string[] = [];

async function start(metrics: boolean): Promise<{ server: Server; base: string; bearer: Record<string, string> }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'fieldops-bench-'));
  dirs.push(dataDir);
  const server = await buildServer(loadConfig({
    DATA_DIR: dataDir,
    JWT_SECRET: 'bench-secret-that-is-long-enough-0123456789',
    ADMIN_PASSWORD: PASSWORD,
    CAPTCHA_ENABLED: 'false',
    AUTH_RATE_LIMIT: '1000000',
    LOG_LEVEL: 'warn',
    ...(metrics ? { METRICS_TOKEN: TOKEN } : {}),
    ...(process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : {}),
    ...(process.env.BENCH_REDIS_URL ? { REDIS_URL: process.env.BENCH_REDIS_URL, REDIS_KEY_PREFIX: `bench${process.pid}${metrics ? 'm' : ''}:` } : {}),
  }), {
    adminExtras: async (admin) => {
      // A signed-in route with no work of its own: the request path is all there is to measure.
      admin.get('/bench/trivial-auth', { config: { permission: 'online.list' } }, async (request) => ok(request, { id: request.admin!.adminId }));
    },
  });
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = server.app.server.address() as { port: number };
  const base = `http://127.0.0.1:${port}`;
  const res = await fetch(`${base}/api/admin/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: PASSWORD }) });
  const token = ((await res.json()) as { data: { token: string } }).data.token;
  return { server, base, bearer: { authorization: `Bearer ${token}` } };
}

const on = await start(true);
const off = await start(false);
console.log(`# metrics benchmark (${on.server.platform.db.kind}${on.server.platform.redis ? ' + redis' : ''}, Node ${process.versions.node}, ${availableParallelism()} cores, ${ROUNDS} rounds x ${SECONDS}s)`);

const load = (s: typeof on, route: string) => () => requestsPerSecond({ url: `${s.base}${route}`, headers: s.bearer, seconds: SECONDS });
await pair(ROUNDS, 'GET /api/admin/info, metrics on vs off', load(on, '/api/admin/info'), load(off, '/api/admin/info'), 0.95);
await pair(ROUNDS, 'trivial signed-in route, metrics on vs off', load(on, '/api/admin/bench/trivial-auth'), load(off, '/api/admin/bench/trivial-auth'), 0.95);

// One scrape, with the series the load above created.
const started = performance.now();
const SCRAPES = 20;
let bytes = 0;
for (let i = 0; i < SCRAPES; i++) {
  const res = await fetch(`${on.base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  bytes = (await res.text()).length;
}
console.log(`scrape: ${fmt((performance.now() - started) / SCRAPES, 1)} ms each, ${fmt(bytes / 1024, 1)} KiB`);

await on.server.close();
await off.server.close();
for (const d of dirs) rmSync(d, { recursive: true, force: true });
