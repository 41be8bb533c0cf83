// Outages under load: the server (`node src/main.ts`, in its own process) on a PostgreSQL and a
// Redis of this benchmark's own, a steady open-loop load of mixed requests (BENCH_RATE per
// second, default 100), and per scenario a BENCH_OUTAGE_SECONDS (10) outage of one dependency:
// PostgreSQL stopped, PostgreSQL frozen (SIGSTOP), Redis stopped, Redis frozen. For each it
// prints the requests tried during the outage and until 10 s after it, how many were answered
// within 3 s, how many were 503 and how many 500 (must be 0), and the seconds from the
// dependency's return to the first error-free second and to the start of the error-free run
// that lasts to the end (and, to the millisecond, when the last failed request started).
//
// The mix: GET /api/admin/admins, POST /api/admin/dictionaries (a write), GET /api/admin/captcha
// (needs Redis), GET /api/managers/workers and POST /api/location/update (a write on the time clock).
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startPostgres, startRedis } from '../test/helpers/services.ts';
import { freePort } from './lib.ts';

const RATE = Number(process.env.BENCH_RATE ?? 100);
const OUTAGE_S = Number(process.env.BENCH_OUTAGE_SECONDS ?? 10);
const AFTER_S = 10;
const LIMIT_MS = 3000;
const PASSWORD = 'Bench-pass-123';
const root = path.resolve(import.meta.dirname, '..');

interface Outcome {
  at: number;
  ms: number;
  status: number; // 0: no answer (connection error or our 15 s limit)
}

const pg = await startPostgres();
const redis = await startRedis();
const dir = mkdtempSync(path.join(tmpdir(), 'fieldops-bench-outage-'));
const port = await freePort();
const child = spawn(process.execPath, ['src/main.ts'], {
  cwd: root,
  stdio: ['ignore', 'ignore', 'inherit'],
  env: {
    PATH: process.env.PATH ?? '',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: path.join(dir, 'data'),
    DATABASE_URL: pg.url,
    REDIS_URL: redis.url,
    JWT_SECRET: 'bench-secret-that-is-long-enough-0123456789',
    ADMIN_PASSWORD: PASSWORD,
    MANAGER_PASSWORD: PASSWORD,
    CAPTCHA_ENABLED: 'false',
    LOG_LEVEL: 'silent',
    AUTH_RATE_LIMIT: '1000000',
    TIMECLOCK_RATE_LIMIT_GENERAL: '1000000',
    TIMECLOCK_RATE_LIMIT_LOCATION: '1000000',
  },
});
const base = `http://127.0.0.1:${port}`;

async function json(method: string, url: string, body?: unknown, token?: string): Promise<any> {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return res.json();
}

try {
  for (let i = 0; ; i++) {
    if (await fetch(`${base}/readyz`).then((r) => r.ok, () => false)) break;
    if (i > 600 || child.exitCode !== null) throw new Error('the server did not start');
    await sleep(100);
  }
  const admin = (await json('POST', '/api/admin/login', { username: 'admin', password: PASSWORD })).data.token as string;
  const manager = (await json('POST', '/api/auth/login', { username: 'manager', password: PASSWORD, deviceUuid: `web-${randomUUID()}` })).token as string;
  await json('POST', '/api/managers/workers', { username: 'benchworker', password: PASSWORD, fullName: 'Bench Worker' }, manager);
  // The first sign-in with the password the manager gave: the worker chooses their own (the
  // password policy), and the reply's token is an ordinary one.
  const given = await json('POST', '/api/auth/login', { username: 'benchworker', password: PASSWORD, deviceUuid: `android-${randomUUID()}` });
  const workerToken = (await json('PUT', '/api/me/password', { currentPassword: PASSWORD, newPassword: `${PASSWORD}-own` }, given.token as string)).token as string;
  const workerId = (JSON.parse(Buffer.from(workerToken.split('.')[1]!, 'base64url').toString()) as { userId: number }).userId;

  let n = 0;
  const mix: (() => [string, string, unknown, string | undefined])[] = [
    () => ['GET', '/api/admin/admins', undefined, admin],
    () => ['POST', '/api/admin/dictionaries', { name: 'Bench', code: `bench_${++n}_${Date.now()}` }, admin],
    () => ['GET', '/api/admin/captcha', undefined, undefined],
    () => ['GET', '/api/managers/workers', undefined, manager],
    () => ['POST', '/api/location/update', { userId: workerId, latitude: 48.85, longitude: 2.35, source: 'background', accuracy: 10 }, workerToken],
  ];
  const outcomes: Outcome[] = [];
  let loading = true;
  const load = (async () => {
    const pending: Promise<void>[] = [];
    for (let i = 0; loading; i++) {
      const [method, url, body, token] = mix[i % mix.length]!();
      const at = Date.now();
      pending.push(fetch(`${base}${url}`, {
        method,
        headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(15_000),
      }).then(
        async (res) => {
          await res.arrayBuffer();
          outcomes.push({ at, ms: Date.now() - at, status: res.status });
        },
        () => {
          outcomes.push({ at, ms: Date.now() - at, status: 0 });
        },
      ));
      await sleep(1000 / RATE);
    }
    await Promise.all(pending);
  })();

  console.log(`# outage benchmark (PostgreSQL + Redis of its own, Node ${process.versions.node}, ${availableParallelism()} cores): ${RATE} requests/s of a 5-request mix, ${OUTAGE_S} s outages`);
  const scenario = async (label: string, down: () => Promise<void> | void, up: () => Promise<void> | void) => {
    await sleep(3000);
    const start = Date.now();
    await down();
    await sleep(OUTAGE_S * 1000);
    await up();
    const back = Date.now();
    await sleep(AFTER_S * 1000);
    const end = Date.now();
    await sleep(LIMIT_MS + 2000); // let the last requests settle
    const window = outcomes.filter((o) => o.at >= start && o.at < end);
    const within = window.filter((o) => o.status !== 0 && o.ms <= LIMIT_MS).length;
    const count = (s: number) => window.filter((o) => o.status === s).length;
    const other = window.filter((o) => o.status !== 503 && o.status >= 500).length - count(500);
    // Seconds after the return: error-free when no request started in it got a 5xx or no answer.
    const seconds = Array.from({ length: AFTER_S }, (_, i) =>
      outcomes.filter((o) => o.at >= back + i * 1000 && o.at < back + (i + 1) * 1000).every((o) => o.status !== 0 && o.status < 500));
    const first = seconds.indexOf(true);
    const lastBad = seconds.lastIndexOf(false);
    // The same to the millisecond: the last request started after the return that still failed.
    const failedAfter = outcomes.filter((o) => o.at >= back && o.at < end && (o.status === 0 || o.status >= 500));
    const lastFailure = failedAfter.length === 0 ? 0 : Math.max(...failedAfter.map((o) => o.at)) - back;
    const slowest = Math.max(0, ...window.map((o) => o.ms));
    console.log(
      `${label}: ${window.length} requests tried during the outage and ${AFTER_S} s after it; ${within} answered within 3 s (slowest ${slowest} ms); ` +
      `${count(503)} answered 503; ${count(500)} answered 500; ${other} other 5xx; ${count(0)} unanswered. ` +
      `After the return: first error-free second ${first < 0 ? 'none' : `${first}-${first + 1} s`}, error-free from ${lastBad + 1} s on ` +
      `(the last failed request started ${lastFailure} ms after the return)`,
    );
  };
  await scenario('PostgreSQL stopped', () => pg.stop(), () => pg.start());
  await scenario('PostgreSQL frozen', () => pg.freeze(), () => pg.thaw());
  await scenario('Redis stopped', () => redis.stop(), () => redis.start());
  await scenario('Redis frozen', () => redis.freeze(), () => redis.thaw());
  loading = false;
  await load;
} finally {
  child.kill('SIGTERM');
  await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
  await pg.destroy();
  await redis.destroy();
  rmSync(dir, { recursive: true, force: true });
}
