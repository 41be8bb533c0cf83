// GET /admins over 100,000 administrators, as a ratio to a bare route that runs the same SQL
// (the same AdminsService.list call) on the same pool, without authentication, validation,
// hooks or response schema. Target >= 0.80 on PostgreSQL. Two pairs: page 1 with no filter
// (served by indexes, so the server's own overhead shows), and a fuzzy filter over the table
// (PostgreSQL itself is the bottleneck there, so any server looks like 1.0).
// Runs on PGlite by default; BENCH_DATABASE_URL / BENCH_REDIS_URL for PostgreSQL and Redis.
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import type { Static } from 'typebox';
import type { AdminListQuery } from '../src/admin/features/admins/admins.schema.ts';
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

type ListQuery = Static<typeof AdminListQuery>;
const PAIRS: { name: string; what: string; query: ListQuery }[] = [
  { name: 'page', what: 'page 1, no filter (indexed)', query: { page: 1, page_size: 20, order_by: 'id:desc' } },
  { name: 'fuzzy', what: 'fuzzy username filter over the table', query: { page: 1, page_size: 20, username: 'user1', status: 1, order_by: 'created_at:desc' } },
];
const qs = (query: ListQuery) => new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();

const server = await buildServer(config, {
  adminExtras: async (admin, { ctx }) => {
    for (const { name, query } of PAIRS) {
      admin.get(`/bench/admins-bare-${name}`, { config: { auth: 'public' } }, async (request) => {
        const { list, total } = await ctx.admins.list(query, { all: true, departments: [], adminId: 1, departmentId: null });
        return ok(request, { list, page: query.page, page_size: query.page_size, total });
      });
    }
  },
});
const { platform } = server;

const existing = await platform.db.query<{ n: number }>('SELECT count(*)::int AS n FROM admin.admins');
if ((existing[0]?.n ?? 0) < ADMINS) {
  const started = performance.now();
  await platform.db.transaction(async (tx) => {
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

console.log(`# admins benchmark (${platform.db.kind}${platform.redis ? ' + redis' : ''}, Node ${process.versions.node}, ${availableParallelism()} cores, ${ROUNDS} rounds x ${SECONDS}s)`);
for (const { name, what, query } of PAIRS) {
  const url = `${base}/admins?${qs(query)}`;
  const sample = (await (await fetch(url, { headers: { authorization: `Bearer ${token}` } })).json()) as { data: { total: number; list: unknown[] } };
  console.log(`query (${what}): GET /admins?${qs(query)} -> ${sample.data.list.length} rows of ${fmt(sample.data.total)} matching`);
  const api = () => requestsPerSecond({ url, headers: { authorization: `Bearer ${token}` }, seconds: SECONDS, connections: 8 });
  const bare = () => requestsPerSecond({ url: `${base}/bench/admins-bare-${name}`, seconds: SECONDS, connections: 8 });
  await pair(ROUNDS, `GET /admins, ${what} (auth, validation, hooks, envelope) vs bare route with the same SQL`, api, bare, 0.8, platform.db.kind === 'postgres' ? '' : ' on PostgreSQL; this is PGlite');
}

await server.close();
rmSync(dataDir, { recursive: true, force: true });
