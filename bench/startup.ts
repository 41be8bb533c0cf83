// Time to ready of `npm start`'s server (issue 19): from spawning `node src/main.ts` until it
// says it listens, on an empty data folder (first start: database created, migrations, the
// bootstrap accounts) and on an existing one (a restart), plus `scripts/web.ts ensure`, the
// other half of `npm start` (a no-op check when the web clients are built). Median of
// BENCH_ROUNDS (5) of each, on the embedded PGlite (or BENCH_DATABASE_URL: a fresh database
// next to it per empty start).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fmt, freshDatabase, median } from './lib.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const root = path.resolve(import.meta.dirname, '..');

/** CPU time (user + system) a process has used so far, ms, from /proc (Linux); NaN elsewhere. */
function cpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime in clock ticks of 10 ms
  } catch {
    return Number.NaN;
  }
}

interface Timing {
  wallMs: number;
  cpuMs: number;
}

/**
 * Wall and CPU time from spawn until `ready` matches a line of its output (then SIGTERM, and
 * wait for the exit), or until it exits by itself (`ready` null). CPU time is what this machine's
 * load does not change: it is the figure to compare between runs.
 */
function timeTo(args: string[], env: Record<string, string>, ready: RegExp | null): Promise<Timing> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let readyAt: Timing | undefined;
    let out = '';
    let lastCpu = Number.NaN;
    const sampler = setInterval(() => (lastCpu = cpuMs(child.pid)), 20);
    const watch = (chunk: Buffer) => {
      out += chunk.toString();
      if (readyAt === undefined && ready?.test(out)) {
        readyAt = { wallMs: performance.now() - started, cpuMs: cpuMs(child.pid) };
        child.kill('SIGTERM');
      }
    };
    child.stdout.on('data', watch);
    child.stderr.on('data', watch);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(sampler);
      if (ready === null && code === 0) resolve({ wallMs: performance.now() - started, cpuMs: lastCpu });
      else if (readyAt !== undefined) resolve(readyAt);
      else reject(new Error(`exited with ${code} before it was ready:\n${out.slice(-2000)}`));
    });
  });
}

const LISTENING = /listening on|Ready/;
const base = { PORT: '0', LOG_LEVEL: 'info', JWT_SECRET: 'bench-secret-that-is-long-enough-0123456789', SHUTDOWN_DRAIN_MS: '0' };
const empty: Timing[] = [];
const existing: Timing[] = [];
for (let i = 0; i < ROUNDS; i++) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'fieldops-startup-'));
  const db = process.env.BENCH_DATABASE_URL ? await freshDatabase(process.env.BENCH_DATABASE_URL, 'startup') : undefined;
  try {
    const env = { ...base, DATA_DIR: dataDir, ...(db ? { DATABASE_URL: db.url } : {}) };
    empty.push(await timeTo(['src/main.ts'], env, LISTENING));
    existing.push(await timeTo(['src/main.ts'], env, LISTENING));
  } finally {
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
const ensure: Timing[] = [];
for (let i = 0; i < ROUNDS; i++) ensure.push(await timeTo(['scripts/web.ts', 'ensure'], {}, null));

const show = (ts: Timing[]) =>
  `${fmt(median(ts.map((t) => t.wallMs)))} ms wall, ${fmt(median(ts.map((t) => t.cpuMs)))} ms CPU  (wall ${ts.map((t) => fmt(t.wallMs)).join(', ')})`;
console.log(`# start-up (${process.env.BENCH_DATABASE_URL ? 'postgres' : 'pglite'}, Node ${process.versions.node}, median of ${ROUNDS}; CPU time is the figure the machine's load does not change)`);
console.log(`server ready, empty data folder: ${show(empty)}`);
console.log(`server ready, existing data folder: ${show(existing)}`);
console.log(`web clients check (npm start's first step, clients built): ${show(ensure)}`);
