// Resident memory of `npm start`'s server (issue 27). The server is started by `npm start` itself
// (its Node flags and allocator settings are part of what is measured), on an empty data folder: first
// on the embedded PGlite, then on PostgreSQL + Redis when BENCH_DATABASE_URL / BENCH_REDIS_URL
// are given or the machine's own servers answer on 127.0.0.1 (a fresh database next to it,
// dropped at the end; Redis keys under a prefix of this run, deleted at the end).
//
// Per database: the resident set (VmRSS, read from /proc every second) after BENCH_MEMORY_SETTLE_SECONDS
// (60) idle once ready, then during BENCH_MEMORY_MINUTES (2; 60 for the hour) of a mixed load at
// BENCH_RATE (30) requests per second from this process over loopback (administrator lists with
// two filter shapes, details, dictionary writes, operation logs, captcha, dashboard, the
// time-clock workers list, location updates, clock events, the clock history; a sign-in every
// 10 s, an export of the administrators every 60 s), and again after the same idle period once the
// load stops. Targets: idle at most 250 MB on PGlite and 150 MB on PostgreSQL (before and after
// the load), and flat under load: the median of the last minute at most 10 % above the first's.
// Linux only (reads /proc).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { fmt, freePort, freshDatabase, median, reachable } from './lib.ts';

const MINUTES = Number(process.env.BENCH_MEMORY_MINUTES ?? 2);
const SETTLE_S = Number(process.env.BENCH_MEMORY_SETTLE_SECONDS ?? 60);
const RATE = Number(process.env.BENCH_RATE ?? 30);
const TARGET_MB = { pglite: 250, postgres: 150 } as const;
const FLAT_LIMIT = 0.1;
const PASSWORD = 'Bench-pass-123';
const SITE = { latitude: 48.8566, longitude: 2.3522 };
const root = path.resolve(import.meta.dirname, '..');
const MB = 1024 * 1024;

/** Resident set and its peak (VmRSS, VmHWM) of a process, bytes. */
function residentOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/**
 * The server process `npm start` (pid `npm`) runs: its script's shell, once it has exec'd
 * `node … src/main.ts`; 0 until then.
 */
function serverPid(npm: number): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(/^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1]);
      if (ppid !== npm) continue;
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (path.basename(argv[0] ?? '') === 'node' && argv.includes('src/main.ts')) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return 0;
}

interface Figures {
  label: string;
  target: number;
  readyS: number;
  idle: number;
  idleHeap: string;
  /** Each minute of the load: the resident set's median and maximum, and the requests of that minute that failed. */
  minutes: { median: number; max: number; failed: number }[];
  after: number;
  afterHeap: string;
  peak: number;
  requests: number;
  failed: number;
  /** `METHOD /path status: count` of the failed requests, with the first answer of each. */
  failures: Map<string, { count: number; first: string }>;
}

async function measure(label: string, target: number, env: Record<string, string>): Promise<Figures> {
  const dir = mkdtempSync(path.join(tmpdir(), 'fieldops-bench-memory-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child: ChildProcess = spawn('npm', ['start', '--silent'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: path.join(dir, 'data'),
      JWT_SECRET: 'bench-secret-that-is-long-enough-0123456789',
      ADMIN_PASSWORD: PASSWORD,
      MANAGER_PASSWORD: PASSWORD,
      CAPTCHA_ENABLED: 'false',
      LOG_LEVEL: 'warn',
      AUTH_RATE_LIMIT: '1000000',
      TIMECLOCK_RATE_LIMIT_AUTH: '1000000',
      TIMECLOCK_RATE_LIMIT_CLOCK: '1000000',
      TIMECLOCK_RATE_LIMIT_LOCATION: '1000000',
      TIMECLOCK_RATE_LIMIT_GENERAL: '1000000',
      ...env,
    },
  });
  let pid = 0;
  try {
    for (let i = 0; ; i++) {
      pid ||= serverPid(child.pid!);
      if (await fetch(`${base}/readyz`).then((r) => r.ok, () => false)) break;
      if (performance.now() - started > 600_000 || child.exitCode !== null) throw new Error(`${label}: the server did not start`);
      await sleep(100);
    }
    const readyS = (performance.now() - started) / 1000;
    pid ||= serverPid(child.pid!);
    if (!pid) throw new Error(`${label}: npm start answers, but runs no \`node … src/main.ts\` of its own`);

    const call = async (method: string, url: string, body?: unknown, token?: string) => {
      const res = await fetch(`${base}${url}`, {
        method,
        headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      return { status: res.status, body: text };
    };
    const json = async (method: string, url: string, body?: unknown, token?: string) => {
      const res = await call(method, url, body, token);
      if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${res.body.slice(0, 300)}`);
      return JSON.parse(res.body) as Record<string, any>;
    };
    const heap = async (token: string) => {
      const { runtime } = (await json('GET', '/api/admin/monitor/system', undefined, token)).data as { runtime: { heap_used: number; heap_total: number; external: number } };
      return `V8 heap ${fmt(runtime.heap_used / MB)} of ${fmt(runtime.heap_total / MB)} MB, external ${fmt(runtime.external / MB)} MB`;
    };

    // Idle: nothing but the sign-in this benchmark needs to read the heap, made at the end.
    await sleep(SETTLE_S * 1000);
    const idle = residentOf(pid).rss;
    let admin = (await json('POST', '/api/admin/login', { username: 'admin', password: PASSWORD })).data.token as string;
    const idleHeap = await heap(admin);

    if (MINUTES === 0) return { label, target, readyS, idle, idleHeap, minutes: [], after: idle, afterHeap: idleHeap, peak: residentOf(pid).peak, requests: 0, failed: 0, failures: new Map() };
    // The load's fixtures: a site with a fence and a QR code, a worker signed in on a device.
    const manager = (await json('POST', '/api/auth/login', { username: 'manager', password: PASSWORD, deviceUuid: `web-${randomUUID()}` })).token as string;
    const site = await json('POST', '/api/managers/sites', { name: 'Memory bench site', fence: { type: 'circle', center: SITE, radiusMetres: 300 } }, manager);
    const qr = (await json('POST', '/api/managers/qr-codes', { name: 'Memory bench gate', siteId: site.id }, manager)).id as string;
    await json('POST', '/api/managers/workers', { username: 'memworker', password: PASSWORD, fullName: 'Memory Worker' }, manager);
    // The first sign-in with the password the manager gave: the worker chooses their own (the
    // password policy), and the reply's token is an ordinary one.
    const given = (await json('POST', '/api/auth/login', { username: 'memworker', password: PASSWORD, deviceUuid: `android-${randomUUID()}` })).token as string;
    const worker = (await json('PUT', '/api/me/password', { currentPassword: PASSWORD, newPassword: `${PASSWORD}-own` }, given)).token as string;
    const workerId = (JSON.parse(Buffer.from(worker.split('.')[1]!, 'base64url').toString()) as { userId: number }).userId;

    let n = 0;
    let clockedIn = false;
    // One clock event at a time, each the opposite of the last one recorded, and none within the
    // duplicate-punch window (CLOCK_MIN_INTERVAL_SECONDS, 10 s) of the last: it would be refused.
    let clockBusy = false;
    let lastPunch = 0;
    const mix: (() => [string, string, unknown, string | undefined])[] = [
      () => ['GET', '/api/admin/admins?page=1&page_size=10', undefined, admin],
      () => ['GET', '/api/admin/admins?page=1&page_size=20&username=adm&status=1&order_by=created_at:desc', undefined, admin],
      () => ['GET', '/api/admin/admins/1', undefined, admin],
      () => ['POST', '/api/admin/dictionaries', { name: 'Memory bench', code: `mem_${++n}_${Date.now()}` }, admin],
      () => ['GET', '/api/admin/dictionaries?page=1&page_size=10', undefined, admin],
      () => ['GET', '/api/admin/logs/operation?page=1&page_size=10', undefined, admin],
      () => ['GET', '/api/admin/captcha', undefined, undefined],
      () => ['GET', '/api/admin/info', undefined, admin],
      () => ['GET', '/api/admin/dashboard/stats', undefined, admin],
      () => ['GET', '/api/managers/workers', undefined, manager],
      () => ['POST', '/api/location/update', { userId: workerId, latitude: SITE.latitude, longitude: SITE.longitude, source: 'background', accuracy: 10 }, worker],
      () => {
        if (clockBusy || Date.now() - lastPunch < 11_000) return ['GET', `/api/worker/clock-history/${workerId}`, undefined, worker];
        clockBusy = true;
        return ['POST', '/api/clock', { userId: workerId, eventType: clockedIn ? 'clock_out' : 'clock_in', qrCodeValue: qr, latitude: SITE.latitude, longitude: SITE.longitude }, worker];
      },
      () => ['GET', `/api/worker/clock-history/${workerId}`, undefined, worker],
    ];
    let requests = 0;
    let failed = 0;
    const failures = new Map<string, { count: number; first: string }>();
    const fail = (key: string, answer: string) => {
      failed++;
      failedThisMinute++;
      const known = failures.get(key);
      if (known) known.count++;
      else failures.set(key, { count: 1, first: answer.slice(0, 200) });
    };
    const send = async (method: string, url: string, body: unknown, token: string | undefined) => {
      requests++;
      const key = `${method} ${url.split('?')[0]}`;
      try {
        const res = await call(method, url, body, token);
        if (res.status >= 300) fail(`${key} ${res.status}`, res.body);
        else if (url === '/api/clock') clockedIn = !clockedIn;
      } catch (err) {
        fail(`${key} no answer`, (err as Error).message);
      } finally {
        if (url === '/api/clock') {
          clockBusy = false;
          lastPunch = Date.now(); // the window counts from the recorded punch, not from its sending
        }
      }
    };
    const minutes: { median: number; max: number; failed: number }[] = [];
    let failedThisMinute = 0;
    const pending = new Set<Promise<void>>();
    const loadStart = performance.now();
    let nextSignIn = loadStart + 10_000;
    let nextExport = loadStart + 60_000;
    let samples: number[] = [];
    let nextSample = loadStart + 1000;
    for (let i = 0; minutes.length < MINUTES; i++) {
      const due = loadStart + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const now = performance.now();
      if (now >= nextSample) {
        samples.push(residentOf(pid).rss);
        nextSample += 1000;
        if (samples.length >= 60) {
          minutes.push({ median: median(samples), max: Math.max(...samples), failed: failedThisMinute });
          samples = [];
          failedThisMinute = 0;
        }
      }
      let request = mix[i % mix.length]!();
      if (now >= nextSignIn) {
        nextSignIn += 10_000;
        // A new session (and a password hash) every 10 s; the list calls use the newest token.
        const p = json('POST', '/api/admin/login', { username: 'admin', password: PASSWORD }).then((r) => {
          admin = r.data.token as string;
        }, (err: unknown) => fail('POST /api/admin/login', (err as Error).message));
        requests++;
        pending.add(p);
        void p.finally(() => pending.delete(p));
      }
      if (now >= nextExport) {
        nextExport += 60_000;
        request = ['POST', '/api/admin/admins/export', {}, admin];
      }
      const p = send(...request);
      pending.add(p);
      void p.finally(() => pending.delete(p));
    }
    await Promise.all(pending);
    await sleep(SETTLE_S * 1000);
    const after = residentOf(pid);
    const afterHeap = await heap(admin);
    return { label, target, readyS, idle, idleHeap, minutes, after: after.rss, afterHeap, peak: after.peak, requests, failed, failures };
  } finally {
    // The server first (npm forwards nothing once its script has exec'd), then npm if it waits on.
    pid ||= serverPid(child.pid!);
    if (pid) process.kill(pid, 'SIGTERM');
    const exited = new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
    if (!(await Promise.race([exited.then(() => true), sleep(30_000).then(() => false)]))) child.kill('SIGKILL');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(f: Figures) {
  const mb = (bytes: number) => `${fmt(bytes / MB)} MB`;
  const verdict = (ok: boolean) => (ok ? 'PASS' : 'BELOW TARGET');
  console.log(`${f.label}: ready in ${fmt(f.readyS, 1)} s; idle ${SETTLE_S} s: RSS ${mb(f.idle)} (${f.idleHeap}) (target <= ${f.target} MB) ${verdict(f.idle <= f.target * MB)}`);
  if (f.minutes.length === 0) return;
  console.log(`${f.label}: under load, RSS by minute (median / max): ${f.minutes.map((m) => `${fmt(m.median / MB)} / ${fmt(m.max / MB)}`).join(', ')} MB; ${fmt(f.requests)} requests, ${fmt(f.failed)} failed`);
  for (const [key, { count, first }] of f.failures) console.log(`  failed: ${key} x ${fmt(count)}, first: ${first}`);
  if (f.failed > 0) console.log(`  failed by minute (counted when they fail, a timeout 30 s after its sending): ${f.minutes.map((m) => fmt(m.failed)).join(', ')}`);
  const first = f.minutes[0]!.median;
  const last = f.minutes.at(-1)!.median;
  const growth = last / first - 1;
  console.log(`${f.label}: flat under load: last minute ${mb(last)} vs first ${mb(first)} (${growth >= 0 ? '+' : ''}${fmt(growth * 100, 1)} %, target <= +${FLAT_LIMIT * 100} %) ${verdict(growth <= FLAT_LIMIT && f.failed === 0)}`);
  console.log(`${f.label}: idle ${SETTLE_S} s after the load: RSS ${mb(f.after)} (${f.afterHeap}) (target <= ${f.target} MB) ${verdict(f.after <= f.target * MB)}; peak RSS of the run ${mb(f.peak)}`);
}

console.log(`# memory (Node ${process.versions.node}, ${availableParallelism()} cores): the server as npm start runs it, on an empty data folder; ${SETTLE_S} s idle, ${MINUTES} min of mixed load at ${RATE} requests/s, ${SETTLE_S} s idle`);
const ONLY = process.env.BENCH_MEMORY_ONLY;
if (ONLY !== 'postgres') report(await measure('pglite', TARGET_MB.pglite, {}));

const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
if (ONLY === 'pglite') {
  // PGlite only
} else if (!(await reachable('postgres', databaseUrl)) || !(await reachable('redis', redisUrl))) {
  console.log(`postgres: skipped (no PostgreSQL at ${process.env.BENCH_DATABASE_URL ? 'BENCH_DATABASE_URL' : '127.0.0.1:5432'} or no Redis at ${process.env.BENCH_REDIS_URL ? 'BENCH_REDIS_URL' : '127.0.0.1:6379'})`);
} else {
  const db = await freshDatabase(databaseUrl, 'memory');
  const prefix = `benchmem${process.pid}:`;
  try {
    report(await measure('postgres + redis', TARGET_MB.postgres, { DATABASE_URL: db.url, REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix }));
  } finally {
    await db.drop();
    const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
    for (let cursor = '0'; ;) {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      if ((cursor = next) === '0') break;
    }
    redis.disconnect();
  }
}
