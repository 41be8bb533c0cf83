// Cost of authentication on the admin service, measured in one run:
//  1. an authenticated, permission-checked GET /info-class request against the same handler
//     with no auth hook (target >= 0.80), plus the same pair on a trivial handler;
//  2. login throughput against raw argon2id verifications with the same parameters in the
//     same process (target >= 0.90), after the floor of that pair on this machine: a public
//     route doing nothing but the same verification against the same raw verifications.
// Runs on the embedded PGlite, or on PostgreSQL/Redis when BENCH_DATABASE_URL/BENCH_REDIS_URL are set.
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { hashPassword, verifyPassword } from '../src/platform/auth/password.ts';
import { loadConfig } from '../src/platform/config.ts';
import type { Principal } from '../src/admin/kernel/guard.ts';
import { ok } from '../src/admin/http.ts';
import { buildServer } from '../src/server.ts';
import { closedLoopRate, pair, requestsPerSecond } from './lib.ts';

const PASSWORD = 'Bench-pass-123';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const LOGIN_ROUNDS = Number(process.env.BENCH_LOGIN_ROUNDS ?? 9);
const LOGIN_SECONDS = Number(process.env.BENCH_LOGIN_SECONDS ?? 3);
const dataDir = mkdtempSync(path.join(tmpdir(), 'fieldops-bench-'));

const config = loadConfig({
  DATA_DIR: dataDir,
  JWT_SECRET: 'bench-secret-that-is-long-enough-0123456789',
  ADMIN_PASSWORD: PASSWORD,
  CAPTCHA_ENABLED: 'false',
  AUTH_RATE_LIMIT: '1000000',
  LOG_LEVEL: 'warn',
  ...(process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : {}),
  ...(process.env.BENCH_REDIS_URL ? { REDIS_URL: process.env.BENCH_REDIS_URL, REDIS_KEY_PREFIX: `bench${process.pid}:` } : {}),
});

const hash = await hashPassword(PASSWORD);
const server = await buildServer(config, {
  adminExtras: async (admin, { ctx }) => {
    // The /info handler's work, without the auth hook: same service, same principal.
    admin.get('/bench/info-open', { config: { auth: 'public' } }, async (request) => ok(request, await ctx.auth.profile(superPrincipal)));
    admin.get('/bench/trivial-auth', { config: { permission: 'online.list' } }, async (request) => ok(request, { id: request.admin!.adminId }));
    admin.get('/bench/trivial-open', { config: { auth: 'public' } }, async (request) => ok(request, { id: superPrincipal.adminId }));
    // The HTTP part of a login and its verification, nothing else: no database, rate limit or token.
    admin.post('/bench/verify-open', { config: { auth: 'public' } }, async (request) =>
      ok(request, { ok: await verifyPassword(hash, (request.body as { password: string }).password) }),
    );
  },
});
const { platform } = server;

await server.app.listen({ host: '127.0.0.1', port: 0 });
const { port } = server.app.server.address() as { port: number };
const base = `http://127.0.0.1:${port}/api/admin`;

const loginRes = await fetch(`${base}/login`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ username: 'admin', password: PASSWORD }),
});
const token = ((await loginRes.json()) as { data: { token: string } }).data.token;
const superPrincipal: Principal = { sessionId: 1, adminId: 1, username: 'admin', isSuper: true, permissions: new Set(), restriction: null, scope: { all: true, departments: [], adminId: 1, departmentId: null } };
const bearer = { authorization: `Bearer ${token}` };

console.log(`# auth benchmark (${platform.db.kind}${platform.redis ? ' + redis' : ''}, Node ${process.versions.node}, ${availableParallelism()} cores, ${ROUNDS} rounds x ${SECONDS}s; login ${LOGIN_ROUNDS} rounds x ${LOGIN_SECONDS}s)`);

const load = (url: string, headers = {}) => () => requestsPerSecond({ url, headers, seconds: SECONDS });

await pair(ROUNDS, 'GET /info authenticated+permission-checked vs same handler without auth', load(`${base}/info`, bearer), load(`${base}/bench/info-open`), 0.8);
await pair(ROUNDS, 'trivial handler with auth+permission vs without (overhead of the hook alone)', load(`${base}/bench/trivial-auth`, bearer), load(`${base}/bench/trivial-open`));

// Login vs raw verification, both at the same concurrency: enough requests in flight that the
// hashing slots (password.ts: one per core) never wait for one between its database steps.
// Both sides verify through the same verifyPassword, so through the same slots. The login load
// comes from the lean client (lib.ts closedLoopRate), since the other side has no HTTP client
// at all; more, shorter rounds than the pairs above, because this machine's speed drifts by
// ±10% from one few-second window to the next and the median needs enough rounds to be steady.
const CONCURRENCY = Number(process.env.BENCH_LOGIN_CONCURRENCY ?? 32);
const loginBody = JSON.stringify({ username: 'admin', password: PASSWORD });
const postRate = (route: string) => () => closedLoopRate({ url: `${base}${route}`, method: 'POST', body: loginBody, connections: CONCURRENCY, seconds: LOGIN_SECONDS });
const verifyRate = async () => {
  const end = performance.now() + LOGIN_SECONDS * 1000;
  let done = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        if (!(await verifyPassword(hash, PASSWORD))) throw new Error('verification failed');
        done += 1;
      }
    }),
  );
  return done / ((performance.now() - start) / 1000);
};
// The floor: what HTTP alone, with its client on the same cores, costs against raw verification.
// The login pair cannot do better than this one; the gap between them is the login's own work.
await pair(LOGIN_ROUNDS, 'verification behind a bare HTTP route vs raw argon2id verify (floor of the login pair)', postRate('/bench/verify-open'), verifyRate);
await pair(LOGIN_ROUNDS, 'POST /login vs raw argon2id verify (m=19456,t=2,p=1)', postRate('/login'), verifyRate, 0.9);

await server.close();
rmSync(dataDir, { recursive: true, force: true });
