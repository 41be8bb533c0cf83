// Load generation for benchmarks: autocannon runs in a child process so that it does not
// share the server's event loop, and pairs are run alternately so drift hits both sides.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const AUTOCANNON = path.resolve(import.meta.dirname, '../node_modules/autocannon/autocannon.js');

export interface Load {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
  seconds?: number;
}

/** Requests per second (2xx only; any other status fails the run). */
export async function requestsPerSecond(load: Load): Promise<number> {
  const args = [AUTOCANNON, '-j', '-c', String(load.connections ?? 16), '-d', String(load.seconds ?? 5), '-m', load.method ?? 'GET'];
  for (const [k, v] of Object.entries(load.headers ?? {})) args.push('-H', `${k}=${v}`);
  if (load.body) args.push('-H', 'content-type=application/json', '-b', load.body);
  args.push(load.url);
  const { stdout } = await run(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 });
  const result = JSON.parse(stdout) as { requests: { total: number }; duration: number; non2xx: number; errors: number };
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${load.url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.total / result.duration;
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/**
 * Runs `a` and `b` alternately for `rounds` rounds after one discarded warm-up of each, and
 * prints both medians and the median of the per-round ratios a/b against `target`.
 */
export async function pair(rounds: number, label: string, a: () => Promise<number>, b: () => Promise<number>, target?: number, targetNote = '') {
  await a();
  await b();
  const as: number[] = [];
  const bs: number[] = [];
  const ratios: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const ra = await a();
    const rb = await b();
    as.push(ra);
    bs.push(rb);
    ratios.push(ra / rb);
  }
  const ratio = median(ratios);
  const verdict = target === undefined ? '(diagnostic, no target)' : `(target >= ${target}${targetNote}) ${ratio >= target ? 'PASS' : 'BELOW TARGET'}`;
  console.log(`${label}: ${fmt(median(as), 1)} vs ${fmt(median(bs), 1)} per second; ratio ${fmt(ratio, 3)} ${verdict}`);
  return ratio;
}
