// What a person starting the server reads once it is ready: where everything is, and, on the
// first start, the accounts created with generated passwords (shown this once) and how to
// replace a lost one. A framed block on a terminal; log lines when the output is JSON.
import type { Logger } from 'pino';
import type { GeneratedCredential } from './platform.ts';

export interface ReadyFacts {
  base: string;
  services: ReadonlySet<'admin' | 'timeclock'>;
  database: string;
  seconds: number;
  metrics?: string | undefined;
  credentials: readonly GeneratedCredential[];
}

/** The block's lines, without the frame. */
export function readyLines(f: ReadyFacts): string[] {
  const rows: [string, string][] = [];
  if (f.services.has('admin')) {
    rows.push(['Administration console', `${f.base}/`], ['Back-office API', `${f.base}/api/admin`], ['  its reference', `${f.base}/api/admin/docs`]);
  }
  if (f.services.has('timeclock')) {
    rows.push(['Time-clock app', `${f.base}/clock/`], ['Time-clock API', `${f.base}/api`], ['  its reference', `${f.base}/api/docs`]);
  }
  if (f.metrics) rows.push(['Metrics', f.metrics]);
  const width = Math.max(...rows.map(([k]) => k.length));
  const lines = [`Ready in ${f.seconds.toFixed(1)} s (${f.database})`, '', ...rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`)];
  if (f.credentials.length > 0) {
    const who = Math.max(...f.credentials.map((c) => c.account.length));
    const name = Math.max(...f.credentials.map((c) => c.username.length));
    lines.push('', 'First start: these accounts were created. Their passwords are shown this once:');
    for (const c of f.credentials) lines.push(`  ${c.account.padEnd(who)}  ${c.username.padEnd(name)}  ${c.password}`);
    lines.push('Change them after signing in. A lost password is replaced with:');
    for (const c of f.credentials) lines.push(`  ${c.reset}`);
  }
  return lines;
}

export function framed(lines: string[]): string {
  const width = Math.max(...lines.map((l) => l.length));
  const bar = '─'.repeat(width + 2);
  return [`┌${bar}┐`, ...lines.map((l) => `│ ${l.padEnd(width)} │`), `└${bar}┘`].join('\n') + '\n';
}

/** Prints the block (pretty) or logs the same facts as lines (JSON). */
export function announceReady(f: ReadyFacts, pretty: boolean, log: Logger): void {
  if (pretty) {
    process.stdout.write(`\n${framed(readyLines(f))}\n`);
    return;
  }
  for (const c of f.credentials) {
    log.warn(`Bootstrap ${c.account} created: username=${c.username} password=${c.password} (shown once; change it after signing in; lost: ${c.reset})`);
  }
}
