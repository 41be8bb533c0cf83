// GET /admins?page=1&page_size=20 with filters over 100,000 administrators, as a ratio to a
// bare route that runs the same SQL (the same AdminsService.list call) on the same pool,
// without authentication, validation, hooks or response schema. Target >= 0.80 on PostgreSQL.
// Runs on PGlite by default; BENCH_DATABASE_URL / BENCH_REDIS_URL for PostgreSQL and Redis.
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import type { AdminContext } from '../src/admin/context.ts';
import { AdminsService } from '../src/admin/features/admins/admins.service.ts';
import { ok } from '../src/admin/http.ts';
import { loadConfig } from '../src/platform/config.ts';
import { buildServer } from '../src/server.ts';
import { fmt, pair, requestsPerSecond } from './lib.ts';

const ADMINS = Number(process.env.BENCH_ADMINS ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PASSWORD = 'Bench-pass-123';
const dataDir = mkdtempSync(path.join(tmpdir(), 'fieldops-bench-'));
const config = loadConfig({
  DATA_DIR: dataDir,
  JWT_SECRET: 'bench-secret-that-is-long-enough-0123456789',
  ADMIN_PASSWORD: PASSWORD,
  CAPTCHA_ENABLED: 'false',
  LOG_LEVEL: 'warn',
  ...(process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : {}),
  ...(process.env.BENCH_REDIS_URL ? { REDIS_URL: process.env.BENCH_REDIS_URL, REDIS_KEY_PREFIX: `bench${process.pid}:` } : {}),
});

const QUERY = { page: 1, page_size: 20, username: 'user1', status: 1, order_by: 'created_at:desc' };
const QS = new URLSearchParams(Object.entries(QUERY).map(([k, v]): [string, string] => [k, String(v)])).toString();

const holder: { service?: AdminsService } = {};
const server = await buildServer(config, {
  adminExtras: async (admin) => {
    admin.get('/bench/admins-bare', { config: { auth: 'public' } }, async (request) => {
      const { list, total } = await holder.service!.list(QUERY);
      return ok(request, { list, page: 1, page_size: 20, total });
    });
  },
});
const { platform } = server;
holder.service = new AdminsService({ platform } as AdminContext);

const existing = await platform.db.query<{ n: number }>('SELECT count(*)::int AS n FROM admin.admins');
if ((existing[0]?.n ?? 0) < ADMINS) {
  const started = performance.now();
  await platform.db.transactionRaw(async (tx) => {
    await tx.script(`
      INSERT INTO admin.roles (name, slug) SELECT 'Role ' || r, 'bench_role_' || r FROM generate_series(1, 20) r ON CONFLICT DO NOTHING;
      INSERT INTO admin.admins (username, password_hash, nickname, email, department_id, status, created_at, last_login_at)
      SELECT 'user' || g, 'not-a-hash', 'Nick ' || g, 'user' || g || '@example.com', 1, CASE WHEN g % 10 = 0 THEN 0 ELSE 1 END,
             now() - make_interval(mins => g), CASE WHEN g % 3 = 0 THEN now() - make_interval(secs => g) END
      FROM generate_series(1, ${ADMINS}) g;
      INSERT INTO admin.admin_roles (admin_id, role_id)
      SELECT a.id, r.id FROM admin.admins a JOIN admin.roles r ON r.slug = 'bench_role_' || (1 + a.id % 20) WHERE a.username LIKE 'user%';
      ANALYZE admin.admins; ANALYZE admin.admin_roles;`);
  });
  console.log(`seeded ${fmt(ADMINS)} administrators in ${fmt((performance.now() - started) / 1000, 1)} s`);
}

await server.app.listen({ host: '127.0.0.1', port: 0 });
const { port } = server.app.server.address() as { port: number };
const base = `http://127.0.0.1:${port}/api/admin`;
const login = await fetch(`${base}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: PASSWORD }) });
const token = ((await login.json()) as { data: { token: string } }).data.token;

const sample = (await (await fetch(`${base}/admins?${QS}`, { headers: { authorization: `Bearer ${token}` } })).json()) as { data: { total: number; list: unknown[] } };
console.log(`# admins benchmark (${platform.db.kind}${platform.redis ? ' + redis' : ''}, Node ${process.versions.node}, ${availableParallelism()} cores, ${ROUNDS} rounds x ${SECONDS}s)`);
console.log(`query: GET /admins?${QS} -> ${sample.data.list.length} rows of ${fmt(sample.data.total)} matching`);

const api = () => requestsPerSecond({ url: `${base}/admins?${QS}`, headers: { authorization: `Bearer ${token}` }, seconds: SECONDS, connections: 8 });
const bare = () => requestsPerSecond({ url: `${base}/bench/admins-bare`, seconds: SECONDS, connections: 8 });
await pair(ROUNDS, 'GET /admins (auth, validation, hooks, envelope) vs bare route with the same SQL', api, bare, 0.8, platform.db.kind === 'postgres' ? '' : ' on PostgreSQL; this is PGlite');

await server.close();
rmSync(dataDir, { recursive: true, force: true });
