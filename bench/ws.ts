// Live push: BENCH_SOCKETS (2,000) open sockets receiving broadcast notifications, as
// delivered messages per second, as a ratio to a bare `ws` server broadcasting the same frame
// to the same number of sockets in the same run (target >= 0.85); and the server's memory per
// idle socket on both. The real side goes through the service's publish path (pub/sub, then
// the realtime hub of the instance), timed from the first publish to the last delivery.
// The sockets live in one child process per side (the `ws` client), which reports when it
// has counted every expected message. Runs on PGlite by default; BENCH_DATABASE_URL /
// BENCH_REDIS_URL for PostgreSQL and Redis. BENCH_ROUNDS, BENCH_MESSAGES (per round).
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import WebSocket, { WebSocketServer } from 'ws';
import { NotificationsService, type NotificationMessage } from '../src/admin/features/notifications/notifications.service.ts';
import { loadConfig } from '../src/platform/config.ts';
import { buildServer } from '../src/server.ts';
import { fmt, pair } from './lib.ts';

const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 2000);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 50);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

type ToChild = { cmd: 'open'; url: string; headers: Record<string, string>; sockets: number } | { cmd: 'expect'; count: number };
type FromChild = { ev: 'opened' } | { ev: 'received' } | { ev: 'error'; message: string };

if (process.env.BENCH_WS_CLIENT) {
  clientProcess();
} else {
  await main();
}

/** The child: opens the sockets, then counts messages and says when the expected number arrived. */
function clientProcess() {
  const sockets: WebSocket[] = [];
  let received = 0;
  let target = Infinity;
  const send = (m: FromChild) => process.send!(m);
  const onMessage = () => {
    received += 1;
    if (received === target) send({ ev: 'received' });
  };
  process.on('message', (m: ToChild) => {
    if (m.cmd === 'expect') {
      received = 0;
      target = m.count;
      return;
    }
    void (async () => {
      for (let i = 0; i < m.sockets; i += 100) {
        await Promise.all(Array.from({ length: Math.min(100, m.sockets - i) }, () => new Promise<void>((resolve, reject) => {
          const ws = new WebSocket(m.url, { headers: m.headers, perMessageDeflate: false });
          ws.once('open', () => resolve());
          ws.once('error', reject);
          ws.on('message', onMessage);
          sockets.push(ws);
        })));
      }
      send({ ev: 'opened' });
    })().catch((err: unknown) => send({ ev: 'error', message: String(err) }));
  });
  process.on('disconnect', () => process.exit(0));
}

/** A child process holding `sockets` sockets to `url`. */
async function clients(url: string, headers: Record<string, string>) {
  const child: ChildProcess = fork(import.meta.filename, [], { env: { ...process.env, BENCH_WS_CLIENT: '1' }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const next = () => new Promise<FromChild>((resolve) => child.once('message', (m: FromChild) => resolve(m)));
  const opened = next();
  child.send({ cmd: 'open', url, headers, sockets: SOCKETS } satisfies ToChild);
  const m = await opened;
  if (m.ev !== 'opened') throw new Error(`client process: ${JSON.stringify(m)}`);
  return {
    /** Messages per second delivered: `broadcast` sends `messages` frames to every socket. */
    async rate(broadcast: () => Promise<void> | void): Promise<number> {
      const done = next();
      child.send({ cmd: 'expect', count: MESSAGES * SOCKETS } satisfies ToChild);
      // The child has the command before the first frame: IPC is ordered, the sockets are not.
      await new Promise((r) => setTimeout(r, 50));
      const started = performance.now();
      await broadcast();
      const m = await done;
      if (m.ev !== 'received') throw new Error(`client process: ${JSON.stringify(m)}`);
      return (MESSAGES * SOCKETS) / ((performance.now() - started) / 1000);
    },
    stop: () => child.disconnect(),
  };
}

async function main() {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const memory = () => {
    gc();
    gc();
    const m = process.memoryUsage();
    return { rss: m.rss, heap: m.heapUsed + m.external + m.arrayBuffers };
  };

  const dataDir = mkdtempSync(path.join(tmpdir(), 'fieldops-bench-'));
  const PASSWORD = 'Bench-pass-123';
  const config = loadConfig({
    DATA_DIR: dataDir,
    JWT_SECRET: 'bench-secret-that-is-long-enough-0123456789',
    ADMIN_PASSWORD: PASSWORD,
    CAPTCHA_ENABLED: 'false',
    LOG_LEVEL: 'warn',
    SERVICES: 'admin',
    ...(process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : {}),
    ...(process.env.BENCH_REDIS_URL ? { REDIS_URL: process.env.BENCH_REDIS_URL, REDIS_KEY_PREFIX: `bench${process.pid}:` } : {}),
  });
  const server = await buildServer(config);
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = server.app.server.address() as AddressInfo;
  const login = await fetch(`http://127.0.0.1:${port}/api/admin/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: PASSWORD }),
  });
  const { data } = (await login.json()) as { data: { token: string } };
  const { platform } = server;

  // One stored notification, broadcast MESSAGES times per round through the publish path.
  const service = new NotificationsService(platform);
  const stored = await service.send({ everyone: true }, { title: 'Maintenance tonight', content: 'The back office restarts at 22:00 UTC for about five minutes.' }, { all: true, departments: [], adminId: 1, departmentId: null });
  const message: NotificationMessage = { id: stored.id, title: stored.title, content: stored.content, created_at: stored.created_at };
  const frame = JSON.stringify({ type: 'notification', data: message });

  const bare = new WebSocketServer({ host: '127.0.0.1', port: 0, maxPayload: 64 * 1024, perMessageDeflate: false });
  await new Promise((resolve) => bare.once('listening', resolve));
  const barePort = (bare.address() as AddressInfo).port;

  console.log(`# ws benchmark (${platform.db.kind}, pub/sub ${platform.pubsub.kind}, Node ${process.versions.node}, ${availableParallelism()} cores, ${fmt(SOCKETS)} sockets, ${MESSAGES} broadcasts x ${ROUNDS} rounds, ${Buffer.byteLength(frame)}-byte frame)`);

  const m0 = memory();
  const realClients = await clients(`ws://127.0.0.1:${port}/api/admin/ws/notifications`, { authorization: `Bearer ${data.token}` });
  const m1 = memory();
  const bareClients = await clients(`ws://127.0.0.1:${barePort}/`, {});
  const m2 = memory();
  const perSocket = (a: { rss: number; heap: number }, b: { rss: number; heap: number }) =>
    `RSS ${fmt((b.rss - a.rss) / SOCKETS / 1024, 1)} KiB, heap+buffers ${fmt((b.heap - a.heap) / SOCKETS / 1024, 1)} KiB`;
  console.log(`memory per idle socket: server ${perSocket(m0, m1)}; bare ws ${perSocket(m1, m2)}`);

  const real = () => realClients.rate(async () => {
    for (let i = 0; i < MESSAGES; i++) await service.publish(message, 'all');
  });
  // The reference encodes the frame once too, as a careful hand-written broadcast would.
  const encoded = Buffer.from(frame);
  const bareRate = () => bareClients.rate(() => {
    for (let i = 0; i < MESSAGES; i++) for (const c of bare.clients) c.send(encoded, { binary: false });
  });
  await pair(ROUNDS, `broadcast delivered messages/s: notification publish path vs bare ws server (${fmt(SOCKETS)} sockets)`, real, bareRate, 0.85);

  realClients.stop();
  bareClients.stop();
  for (const c of bare.clients) c.terminate();
  bare.close();
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
}
