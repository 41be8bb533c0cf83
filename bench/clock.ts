// 200 simulated workers, each sending one location update per second and clocking in or out
// every CLOCK_EVERY seconds, at a fixed (open-loop) rate, against the real API
// (POST /api/location/update, POST /api/clock: token check, rate limits, validation, schemas)
// and against bare routes on a plain Fastify instance in the same process that make the same
// service calls (the same SQL on the same pool) with none of that. Prints the p99 latency of
// each route as a ratio to its bare twin (target <= 1.5), then the throughput of location
// updates at saturation (closed loop, BENCH_CONCURRENCY in flight) as a ratio (target >= 0.8).
//
// The load generator runs in a child process (this file with --loadgen), so that it does not
// share the server's event loop. Within each run the load switches between the API and the bare
// routes every BENCH_SLICE_MS (250 ms), so both sides meet the same background conditions;
// each figure is the median over BENCH_ROUNDS runs.
// PGlite by default; BENCH_DATABASE_URL / BENCH_REDIS_URL for PostgreSQL and Redis.
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { fmt, median } from './lib.ts';

interface Worker {
  id: number;
  token: string;
  state: 'clock_in' | 'clock_out';
}

interface Target {
  locationUrl: string;
  clockUrl: string;
}

interface Plan {
  mode: 'fixed' | 'saturate';
  /** Seconds of load per side; the run lasts twice as long. */
  seconds: number;
  /** The two sides (API, bare); the load switches between them every sliceMs. */
  targets: [Target, Target];
  sliceMs: number;
  qr: string;
  clockEverySeconds: number;
  workers: Worker[];
  concurrency: number;
}

interface Stats {
  count: number;
  errors: number;
  p50: number;
  p99: number;
  max: number;
}

interface SideOutcome {
  location: Stats;
  clock: Stats;
  /** Location updates completed per second of this side's slices (saturation). */
  rps: number;
}

interface Outcome {
  sides: [SideOutcome, SideOutcome];
  /** The workers' clock state at the end. */
  states: Record<number, Worker['state']>;
}

const SITE = { latitude: 48.8566, longitude: 2.3522 };

if (process.argv.includes('--loadgen')) {
  process.once('message', (plan: Plan) => {
    void generate(plan).then((outcome) => process.send!(outcome, () => process.exit(0)));
  });
} else {
  await main();
}

// ---------------------------------------------------------------- load generator (child)

/**
 * Runs the load for 2 × plan.seconds, sending it to side 0 and side 1 in alternate slices of
 * sliceMs, so that both sides meet the same background conditions (other processes, GC, the
 * database's own work) in the same run.
 */
async function generate(plan: Plan): Promise<Outcome> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
  const rec = [0, 1].map(() => ({ lat: [] as number[], clk: [] as number[], locErrors: 0, clkErrors: 0, completed: 0 }));
  const states = Object.fromEntries(plan.workers.map((w) => [w.id, w.state]));
  const total = plan.seconds * 2000;
  const sideAt = (ms: number) => Math.floor(ms / plan.sliceMs) % 2;

  const post = (url: string, token: string, body: string) =>
    new Promise<{ status: number; ms: number }>((resolve) => {
      const started = performance.now();
      const req = http.request(url, {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${token}` },
      }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
      });
      req.on('error', () => resolve({ status: 0, ms: performance.now() - started }));
      req.end(body);
    });

  const locate = async (side: number, w: Worker, i: number) => {
    const jitter = ((i * 7919) % 100) / 1_000_000;
    const body = JSON.stringify({
      userId: w.id, latitude: SITE.latitude + jitter, longitude: SITE.longitude - jitter, accuracy: 8 + (i % 10), source: 'background',
    });
    const r = await post(plan.targets[side]!.locationUrl, w.token, body);
    if (r.status === 200) rec[side]!.lat.push(r.ms);
    else rec[side]!.locErrors += 1;
  };
  const clockOnce = async (side: number, w: Worker) => {
    const eventType = states[w.id] === 'clock_in' ? 'clock_out' : 'clock_in';
    const body = JSON.stringify({ userId: w.id, eventType, qrCodeValue: plan.qr, latitude: SITE.latitude, longitude: SITE.longitude });
    const r = await post(plan.targets[side]!.clockUrl, w.token, body);
    if (r.status === 200) {
      rec[side]!.clk.push(r.ms);
      states[w.id] = eventType;
    } else {
      rec[side]!.clkErrors += 1;
      if (r.status === 409) states[w.id] = eventType; // already there
    }
  };

  const startedAt = performance.now();
  const elapsed = () => performance.now() - startedAt;
  if (plan.mode === 'fixed') {
    // Open loop: every request leaves at its scheduled time whether or not earlier ones answered.
    const n = plan.workers.length;
    const pending: Promise<void>[] = [];
    const timeline: { at: number; run: (side: number) => Promise<void> }[] = [];
    for (let t = 0; t < total; t += 1000) {
      plan.workers.forEach((w, i) => {
        timeline.push({ at: t + (i * 1000) / n, run: (side) => locate(side, w, i + t) });
      });
    }
    const clockPeriod = plan.clockEverySeconds * 1000;
    for (let t = 0; t < total; t += clockPeriod) {
      plan.workers.forEach((w, i) => {
        const at = t + (i * clockPeriod) / n + 0.5;
        if (at < total) timeline.push({ at, run: (side) => clockOnce(side, w) });
      });
    }
    timeline.sort((a, b) => a.at - b.at);
    let next = 0;
    while (next < timeline.length) {
      const now = elapsed();
      while (next < timeline.length && timeline[next]!.at <= now) {
        const item = timeline[next++]!;
        pending.push(item.run(sideAt(item.at)));
      }
      if (next < timeline.length) await new Promise((resolve) => setTimeout(resolve, Math.max(0, timeline[next]!.at - elapsed())));
    }
    await Promise.all(pending);
  } else {
    let cursor = 0;
    const loop = async () => {
      for (let now = elapsed(); now < total; now = elapsed()) {
        const side = sideAt(now);
        const i = cursor++;
        await locate(side, plan.workers[i % plan.workers.length]!, i);
        // Counted for the side whose slice it started in, if it ended within the run.
        if (elapsed() <= total) rec[side]!.completed += 1;
      }
    };
    await Promise.all(Array.from({ length: plan.concurrency }, loop));
  }
  agent.destroy();
  const side = (k: number): SideOutcome => ({
    location: stats(rec[k]!.lat, rec[k]!.locErrors),
    clock: stats(rec[k]!.clk, rec[k]!.clkErrors),
    rps: rec[k]!.completed / plan.seconds,
  });
  return { sides: [side(0), side(1)], states };
}

function stats(xs: number[], errors: number): Stats {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
  return { count: s.length, errors, p50: at(0.5), p99: at(0.99), max: s[s.length - 1] ?? 0 };
}

// ---------------------------------------------------------------- server side (parent)

async function main(): Promise<void> {
  const { loadConfig } = await import('../src/platform/config.ts');
  const { buildServer } = await import('../src/server.ts');
  const { LocationService } = await import('../src/timeclock/features/location/location.service.ts');
  const { ClockService } = await import('../src/timeclock/features/clock/clock.service.ts');
  const { SecurityEvents } = await import('../src/timeclock/kernel/security-events.ts');

  const WORKERS = Number(process.env.BENCH_WORKERS ?? 200);
  const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
  const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
  const CLOCK_EVERY = Number(process.env.BENCH_CLOCK_EVERY ?? 10);
  const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
  const SLICE_MS = Number(process.env.BENCH_SLICE_MS ?? 250);
  const MANAGER_PASSWORD = 'Bench-manager-123';
  const dataDir = mkdtempSync(path.join(tmpdir(), 'fieldops-bench-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    SERVICES: 'timeclock',
    JWT_SECRET: 'bench-secret-that-is-long-enough-0123456789',
    MANAGER_PASSWORD,
    LOG_LEVEL: 'warn',
    TIMECLOCK_RATE_LIMIT_AUTH: '1000000',
    TIMECLOCK_RATE_LIMIT_CLOCK: '1000000',
    TIMECLOCK_RATE_LIMIT_LOCATION: '1000000',
    TIMECLOCK_RATE_LIMIT_GENERAL: '1000000',
    // Workers punch every BENCH_CLOCK_EVERY (10) seconds: the duplicate-punch window (10 s) would refuse the jittered ones.
    CLOCK_MIN_INTERVAL_SECONDS: '0',
    ...(process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : {}),
    ...(process.env.BENCH_REDIS_URL ? { REDIS_URL: process.env.BENCH_REDIS_URL, REDIS_KEY_PREFIX: `bench${process.pid}:` } : {}),
  });

  const server = await buildServer(config);
  const { platform } = server;
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  const api = `http://127.0.0.1:${(server.app.server.address() as { port: number }).port}/api`;

  // The bare twins: the same service calls on the same pool, without token check, rate limit,
  // validation or response schema.
  const locations = new LocationService({ db: platform.db, config: platform.config, logger: platform.logger });
  const clocks = new ClockService({ db: platform.db, logger: platform.logger, config: platform.config, securityEvents: new SecurityEvents({ db: platform.db, logger: platform.logger }) });
  const bare = Fastify({ logger: false });
  bare.post('/bare/location/update', async (request) => {
    const b = request.body as { userId: number; latitude: number; longitude: number; accuracy?: number; source: 'background' };
    return locations.update(b);
  });
  bare.post('/bare/clock', async (request) => {
    const b = request.body as { userId: number; eventType: 'clock_in' | 'clock_out'; qrCodeValue: string; latitude: number; longitude: number };
    return clocks.clock({ userId: b.userId, role: 'worker', tokenVersion: 0, mustChangePassword: false }, b);
  });
  await bare.listen({ host: '127.0.0.1', port: 0 });
  const bareBase = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}/bare`;

  const json = async (method: string, url: string, body?: unknown, token?: string) => {
    const res = await fetch(url, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const data = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(data)}`);
    return data;
  };

  // Set-up: a site with a fence, its QR code, 200 workers each signed in on their own device.
  const started = performance.now();
  const manager = (await json('POST', `${api}/auth/login`, { username: 'manager', password: MANAGER_PASSWORD, deviceUuid: `web-${crypto.randomUUID()}` })).token as string;
  const site = await json('POST', `${api}/managers/sites`, { name: 'Bench site', fence: { type: 'circle', center: SITE, radiusMetres: 300 } }, manager);
  const qr = (await json('POST', `${api}/managers/qr-codes`, { name: 'Bench gate', siteId: site.id }, manager)).id as string;
  const workers: Worker[] = [];
  for (let batch = 0; batch < WORKERS; batch += 8) {
    const made = await Promise.all(Array.from({ length: Math.min(8, WORKERS - batch) }, async (_, k) => {
      const username = `bench${process.pid}_${batch + k}`;
      const w = await json('POST', `${api}/managers/workers`, { username, password: 'Bench-worker-123', fullName: `Bench ${batch + k}` }, manager);
      const { token } = await json('POST', `${api}/auth/login`, { username, password: 'Bench-worker-123', deviceUuid: `android-${crypto.randomUUID()}` });
      return { id: w.id as number, token: token as string, state: 'clock_out' as const };
    }));
    workers.push(...made);
  }
  console.log(`# clock benchmark (${platform.db.kind}${platform.redis ? ' + redis' : ''}, Node ${process.versions.node}, ${availableParallelism()} cores)`);
  console.log(`set-up: ${WORKERS} workers signed in, a site and a QR code in ${fmt((performance.now() - started) / 1000, 1)} s`);

  const run = (plan: Pick<Plan, 'mode' | 'seconds'>) =>
    new Promise<Outcome>((resolve, reject) => {
      const child = fork(import.meta.filename, ['--loadgen'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      child.once('message', (o: Outcome) => {
        for (const w of workers) w.state = o.states[w.id] ?? w.state;
        resolve(o);
      });
      child.once('error', reject);
      child.once('exit', (code) => code !== 0 && reject(new Error(`load generator exited with ${code}`)));
      const targets: Plan['targets'] = [
        { locationUrl: `${api}/location/update`, clockUrl: `${api}/clock` },
        { locationUrl: `${bareBase}/location/update`, clockUrl: `${bareBase}/clock` },
      ];
      child.send({ ...plan, targets, sliceMs: SLICE_MS, qr, clockEverySeconds: CLOCK_EVERY, concurrency: CONCURRENCY, workers } satisfies Plan);
    });

  const rate = WORKERS + WORKERS / CLOCK_EVERY;
  console.log(`fixed rate: ${fmt(WORKERS)} location updates/s + ${fmt(WORKERS / CLOCK_EVERY, 1)} clock events/s (${fmt(rate)} req/s), `
    + `API and bare in alternate ${SLICE_MS} ms slices, ${ROUNDS} rounds x ${SECONDS} s per side`);
  await run({ mode: 'fixed', seconds: 2 }); // warm-up
  const locRatios: number[] = [];
  const clkRatios: number[] = [];
  const show = (label: string, o: SideOutcome) =>
    console.log(`  ${label}: location p50 ${fmt(o.location.p50, 2)} p99 ${fmt(o.location.p99, 2)} max ${fmt(o.location.max, 1)} ms (${o.location.count} ok, ${o.location.errors} failed); `
      + `clock p50 ${fmt(o.clock.p50, 2)} p99 ${fmt(o.clock.p99, 2)} max ${fmt(o.clock.max, 1)} ms (${o.clock.count} ok, ${o.clock.errors} failed)`);
  for (let i = 0; i < ROUNDS; i++) {
    const { sides: [a, b] } = await run({ mode: 'fixed', seconds: SECONDS });
    show(`round ${i + 1} api `, a);
    show(`round ${i + 1} bare`, b);
    if (a.location.errors + a.clock.errors + b.location.errors + b.clock.errors > 0) throw new Error('failed requests at the fixed rate');
    locRatios.push(a.location.p99 / b.location.p99);
    clkRatios.push(a.clock.p99 / b.clock.p99);
  }
  const verdict = (r: number, target: number, lowerIsBetter: boolean) =>
    `(target ${lowerIsBetter ? '<=' : '>='} ${target}) ${(lowerIsBetter ? r <= target : r >= target) ? 'PASS' : 'OUT OF TARGET'}`;
  const locRatio = median(locRatios);
  const clkRatio = median(clkRatios);
  console.log(`POST /api/location/update p99 vs bare: ratio ${fmt(locRatio, 2)} ${verdict(locRatio, 1.5, true)} (rounds: ${locRatios.map((r) => fmt(r, 2)).join(', ')})`);
  console.log(`POST /api/clock p99 vs bare: ratio ${fmt(clkRatio, 2)} ${verdict(clkRatio, 1.5, true)} (rounds: ${clkRatios.map((r) => fmt(r, 2)).join(', ')})`);

  const tp: number[] = [];
  const apiRps: number[] = [];
  const bareRps: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const { sides: [a, b] } = await run({ mode: 'saturate', seconds: SECONDS });
    if (a.location.errors > 0 || b.location.errors > 0) throw new Error(`saturation: ${a.location.errors} / ${b.location.errors} failed requests`);
    apiRps.push(a.rps);
    bareRps.push(b.rps);
    tp.push(a.rps / b.rps);
  }
  const tpRatio = median(tp);
  console.log(`location updates at saturation (${CONCURRENCY} in flight): ${fmt(median(apiRps), 0)} vs ${fmt(median(bareRps), 0)} per second; `
    + `ratio ${fmt(tpRatio, 3)} ${verdict(tpRatio, 0.8, false)} (rounds: ${tp.map((r) => fmt(r, 3)).join(', ')})`);

  await bare.close();
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
}
