// Graceful shutdown: readiness fails first, in-flight requests finish, the process exits 0.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { createDatabase, JWT_SECRET, onPostgres, startApp } from '../helpers/app.ts';

test('an in-flight request finishes while the server closes; new connections are refused', async () => {
  const app = await startApp({}, {
    adminExtras: async (admin) => {
      admin.get('/slow-test', { config: { auth: 'public' } }, async () => {
        await sleep(400);
        return { done: true };
      });
    },
  });
  await app.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.app.server.address() as { port: number };
  const inFlight = fetch(`http://127.0.0.1:${port}/api/admin/slow-test`).then(async (r) => ({ status: r.status, body: await r.json() }));
  await sleep(100);
  const closing = app.close();
  const res = await inFlight;
  assert.deepEqual(res, { status: 200, body: { done: true } });
  await closing;
  await assert.rejects(fetch(`http://127.0.0.1:${port}/healthz`));
});

// A client that hangs up does not stop its handler (a login still hashing, an order being saved),
// and Fastify stops waiting for a request once its connection is gone: without more, the
// database would close under the handler and its operation-log row would be dropped.
test('a handler whose client has hung up still finishes, with the database, before the server closes', async () => {
  let started!: () => void;
  const handlerStarted = new Promise<void>((resolve) => (started = resolve));
  let outcome: string | undefined;
  const app = await startApp({}, {
    adminExtras: async (admin) => {
      admin.get('/slow-db-test', { config: { auth: 'public' } }, async () => {
        started();
        await sleep(400);
        try {
          const [row] = await app.platform.db.query<{ n: number }>('SELECT $1::int AS n', [7]);
          outcome = `row ${row!.n}`;
        } catch (err) {
          outcome = `failed: ${(err as Error).message}`;
        }
        return { done: true };
      });
    },
  });
  await app.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.app.server.address() as { port: number };
  const socket = net.connect(port, '127.0.0.1', () => socket.write('GET /api/admin/slow-db-test HTTP/1.1\r\nhost: test\r\n\r\n'));
  await handlerStarted;
  socket.destroy();
  await sleep(50);
  await app.close();
  assert.equal(outcome, 'row 7');
});

// Both ways the README starts the server. Under `npm start` the signal goes to npm (as a container
// runtime sends it to its first process), which must hand it to the server rather than leave it
// running, orphaned and never drained.
const launchers = [
  { name: 'node src/main.ts', command: process.execPath, args: ['src/main.ts'] },
  { name: 'npm start', command: 'npm', args: ['start'] },
];

for (const launcher of launchers) test(`${launcher.name}, SIGTERM: /readyz answers 503 at once, then the server exits 0`, { timeout: 60_000 }, async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'fieldops-proc-'));
  const db = onPostgres ? await createDatabase() : undefined;
  const child = spawn(launcher.command, launcher.args, {
    env: {
      PATH: process.env.PATH,
      PORT: '0',
      DATA_DIR: dataDir,
      JWT_SECRET,
      LOG_LEVEL: 'info',
      SHUTDOWN_DRAIN_MS: '1500',
      ...(db ? { DATABASE_URL: db.url } : {}),
      ...(process.env.TEST_REDIS_URL ? { REDIS_URL: process.env.TEST_REDIS_URL, REDIS_KEY_PREFIX: `proc${process.pid}:` } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let serverPid: number | undefined;
  try {
    let output = '';
    const base = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const m = /listening on (http:\/\/[^ ]+) /.exec(output);
        if (m) resolve(m[1]!);
      });
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.on('exit', (code) => reject(new Error(`exited early (${code}): ${output}`)));
    });
    serverPid = Number(/"pid":(\d+)/.exec(output)![1]);
    assert.match(output, /Bootstrap administrator created: username=admin password=\S{12,} /);
    assert.match(output, /Bootstrap time-clock manager created/);
    assert.equal((await fetch(`${base}/readyz`)).status, 200);

    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const outputRead = new Promise((resolve) => child.on('close', resolve));
    const signalledAt = Date.now();
    child.kill('SIGTERM');
    await sleep(200);
    const ready = await fetch(`${base}/readyz`);
    assert.equal(ready.status, 503);
    assert.equal((await fetch(`${base}/healthz`)).status, 200, 'still serving while draining');
    assert.equal(await exited, 0);
    assert.ok(Date.now() - signalledAt < 25_000);
    assert.throws(() => process.kill(serverPid!, 0), { code: 'ESRCH' }, 'the server process is gone');
    await outputRead;
    assert.match(output, /"msg":"stopped"/);
  } finally {
    child.kill('SIGKILL');
    if (serverPid) {
      try {
        process.kill(serverPid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
