// A PostgreSQL server and a Redis server of a test's own, to stop, start, freeze and thaw:
// outage tests never touch the machine's shared servers. PostgreSQL is a new cluster (initdb in
// a temporary folder, run as the `postgres` system user when the tests run as root), Redis a
// redis-server without persistence; each listens on a free port of 127.0.0.1, the same one
// across restarts.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, chownSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ControlledServer {
  readonly url: string;
  readonly port: number;
  /** Stops the server (fast shutdown: connections are closed). */
  stop(): Promise<void>;
  /** Starts it again on the same port; resolves once it accepts connections. */
  start(): Promise<void>;
  /** SIGSTOP to every process of the server: connections stay open, nothing answers. */
  freeze(): void;
  thaw(): void;
  /** Stops it for good and removes its files. */
  destroy(): Promise<void>;
}

/** A port of 127.0.0.1 free now (for a server process to listen on). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const version = readdirSync(root).sort((a, b) => Number(b) - Number(a))[0];
  const bin = version ? path.join(root, version, 'bin') : undefined;
  return bin && existsSync(path.join(bin, 'initdb')) ? bin : undefined;
}

function systemUser(name: string): { uid: number; gid: number } | undefined {
  try {
    return {
      uid: Number(execFileSync('id', ['-u', name]).toString().trim()),
      gid: Number(execFileSync('id', ['-g', name]).toString().trim()),
    };
  } catch {
    return undefined;
  }
}

const isRoot = () => process.getuid?.() === 0;

/** Why the servers cannot run here, or false. */
export function servicesSkip(): string | false {
  if (!postgresBin()) return 'needs PostgreSQL server binaries (/usr/lib/postgresql/*/bin)';
  if (isRoot() && !systemUser('postgres')) return 'needs a postgres system user to run PostgreSQL as root';
  if (!existsSync('/usr/bin/redis-server')) return 'needs redis-server';
  return false;
}

/**
 * Signals a server and the processes it forked (PostgreSQL's backends each lead a process group
 * of their own, so the group of the postmaster is not enough).
 */
function signalAll(child: ChildProcess | undefined, signal: NodeJS.Signals): void {
  if (!child?.pid) return;
  let children: number[] = [];
  try {
    children = execFileSync('pgrep', ['-P', String(child.pid)]).toString().split('\n').filter(Boolean).map(Number);
  } catch {
    /* none */
  }
  for (const pid of [child.pid, ...children]) {
    try {
      process.kill(pid, signal);
    } catch {
      /* already gone */
    }
  }
}

/** Servers still running when the test process exits (a timeout, a forced exit) are killed with it. */
const running = new Set<() => ChildProcess | undefined>();
process.once('exit', () => {
  for (const current of running) signalAll(current(), 'SIGKILL');
});

async function waitExit(child: ChildProcess | undefined, ms: number): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  await Promise.race([new Promise((resolve) => child.once('exit', resolve)), sleep(ms)]);
  if (child.exitCode === null && child.signalCode === null) {
    signalAll(child, 'SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

async function untilAccepting(probe: () => boolean, what: string, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > until) throw new Error(`${what} did not start within ${ms} ms`);
    await sleep(50);
  }
}

export async function startPostgres(): Promise<ControlledServer> {
  const bin = postgresBin();
  if (!bin) throw new Error('no PostgreSQL binaries');
  const owner = isRoot() ? systemUser('postgres') : undefined;
  const dir = mkdtempSync(path.join(tmpdir(), 'fieldops-pg-'));
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const data = path.join(dir, 'data');
  const as = owner ? { uid: owner.uid, gid: owner.gid } : {};
  execFileSync(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync', '--no-instructions'], { ...as, stdio: 'ignore' });
  const port = await freePort();
  let child: ChildProcess | undefined;
  const current = () => child;
  running.add(current);
  const ready = () => {
    try {
      execFileSync(path.join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-q'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };
  const server: ControlledServer = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async start() {
      child = spawn(path.join(bin, 'postgres'), [
        '-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1',
        '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=100',
      ], { ...as, detached: true, stdio: 'ignore' });
      await untilAccepting(ready, 'PostgreSQL');
    },
    async stop() {
      signalAll(child, 'SIGCONT');
      if (child?.pid) process.kill(child.pid, 'SIGINT'); // fast shutdown
      await waitExit(child, 15_000);
    },
    freeze: () => signalAll(child, 'SIGSTOP'),
    thaw: () => signalAll(child, 'SIGCONT'),
    async destroy() {
      await server.stop();
      running.delete(current);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}

export async function startRedis(): Promise<ControlledServer> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'fieldops-redis-'));
  let child: ChildProcess | undefined;
  const current = () => child;
  running.add(current);
  const ready = () => {
    try {
      return execFileSync('redis-cli', ['-p', String(port), 'ping'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim() === 'PONG';
    } catch {
      return false;
    }
  };
  const server: ControlledServer = {
    url: `redis://127.0.0.1:${port}`,
    port,
    async start() {
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
        detached: true,
        stdio: 'ignore',
      });
      await untilAccepting(ready, 'Redis');
    },
    async stop() {
      signalAll(child, 'SIGCONT');
      if (child?.pid) process.kill(child.pid, 'SIGTERM');
      await waitExit(child, 10_000);
    },
    freeze: () => signalAll(child, 'SIGSTOP'),
    thaw: () => signalAll(child, 'SIGCONT'),
    async destroy() {
      await server.stop();
      running.delete(current);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}
