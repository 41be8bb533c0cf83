// Large lists as their tables grow (issue 28, server 4): page 1 of the orders, payments,
// operation-log and clock-history lists on a database seeded at BENCH_SCALE 1 (1,000,000 orders)
// against the same page at 0.01 (10,000 orders), in one run: the route sweep (bench/routes.ts)
// runs once at each scale, in a child process, on those four routes alone, and this prints each
// route's throughput at both scales and their ratio. Target: >= 0.7 at scale 1.
//
// PostgreSQL: BENCH_DATABASE_URL (and BENCH_REDIS_URL), or the machine's own servers on
// 127.0.0.1 when they answer; PGlite otherwise. Other knobs pass through to the sweep
// (BENCH_SECONDS, BENCH_ROUNDS, BENCH_CONCURRENCY).

import { spawn } from 'node:child_process';
import path from 'node:path';
import { fmt, reachable } from './lib.ts';

const ROUTES = ['GET /api/admin/orders?', 'GET /api/admin/payments?', 'GET /api/admin/logs/operation?', 'GET /api/worker/clock-history/'];
/** The two scales compared (BENCH_GROWTH_SCALES, `small,large`, for a quick check of the bench itself). */
const [SMALL = '0.01', LARGE = '1'] = (process.env.BENCH_GROWTH_SCALES ?? '').split(',').filter((s) => s !== '');
const TARGET = 0.7;

const env: NodeJS.ProcessEnv = { ...process.env, BENCH_ONLY: ROUTES.join('|') };
const MACHINE = { postgres: 'postgres://postgres@127.0.0.1:5432/postgres', redis: 'redis://127.0.0.1:6379' };
if (!env.BENCH_DATABASE_URL && (await reachable('postgres', MACHINE.postgres))) env.BENCH_DATABASE_URL = MACHINE.postgres;
if (env.BENCH_DATABASE_URL && !env.BENCH_REDIS_URL && (await reachable('redis', MACHINE.redis))) env.BENCH_REDIS_URL = MACHINE.redis;

/** Runs the sweep at `scale`, echoing its output; the throughput of each route, by its label with ids as `:id`. */
function sweep(scale: string): Promise<Map<string, number>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(import.meta.dirname, 'routes.ts')], { env: { ...env, BENCH_SCALE: scale }, stdio: ['ignore', 'pipe', 'inherit'] });
    const found = new Map<string, number>();
    let rest = '';
    child.stdout.on('data', (chunk: Buffer) => {
      const lines = (rest + chunk.toString()).split('\n');
      rest = lines.pop()!;
      for (const line of lines) {
        process.stdout.write(`  [scale ${scale}] ${line}\n`);
        const m = /^(GET \S+)\s+([\d,]+)\s/.exec(line);
        if (m) found.set(m[1]!.replace(/\/\d+(?=[/?]|$)/g, '/:id'), Number(m[2]!.replaceAll(',', '')));
      }
    });
    child.on('exit', (code) => (code === 0 ? resolve(found) : reject(new Error(`the sweep at scale ${scale} exited with ${code}`))));
  });
}

console.log(`# list growth: page 1 of four large lists at BENCH_SCALE ${LARGE} vs ${SMALL} (${env.BENCH_DATABASE_URL ? 'PostgreSQL' : 'PGlite'}), target >= ${TARGET}`);
const small = await sweep(SMALL);
const large = await sweep(LARGE);
console.log(`${'route (page 1)'.padEnd(40)} ${`scale ${SMALL}/s`.padStart(12)} ${`scale ${LARGE}/s`.padStart(10)} ${'ratio'.padStart(6)}  verdict`);
let failed = 0;
for (const [label, base] of small) {
  const grown = large.get(label);
  const ratio = grown === undefined ? Number.NaN : grown / base;
  const pass = ratio >= TARGET;
  if (!pass) failed += 1;
  console.log(`${label.replace(/\?.*/, '').padEnd(40)} ${fmt(base).padStart(12)} ${(grown === undefined ? '—' : fmt(grown)).padStart(10)} ${fmt(ratio, 2).padStart(6)}  ${pass ? 'PASS' : 'BELOW'}`);
}
console.log(`summary: ${small.size - failed} of ${small.size} lists keep >= ${TARGET} of their throughput at scale ${LARGE}`);
