// Slow clients over real sockets: headers must arrive within HTTP_HEADERS_TIMEOUT_MS, a JSON body
// within HTTP_BODY_TIMEOUT_MS, while multipart uploads and imports may take longer as long as
// bytes keep coming (HTTP_IDLE_TIMEOUT_MS); idle keep-alive connections are closed after
// HTTP_KEEP_ALIVE_TIMEOUT_MS. Small limits here; the defaults are 10 s, 30 s, 60 s and 72 s.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.ts';
import { login } from '../helpers/http.ts';

let app: TestApp;
let port: number;
let token: string;

before(async () => {
  app = await startApp({
    HTTP_HEADERS_TIMEOUT_MS: '1000',
    HTTP_BODY_TIMEOUT_MS: '1000',
    HTTP_IDLE_TIMEOUT_MS: '1500',
    HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000',
  });
  await app.app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.app.server.address() as { port: number }).port;
  token = await login(app);
});
after(() => app?.close());

/** A raw connection that records what it receives and when it was closed. */
async function open(): Promise<{ socket: Socket; received: () => string; closedAt: () => number | undefined }> {
  const socket = connect(port, '127.0.0.1');
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let data = '';
  let closedAt: number | undefined;
  socket.on('data', (d: Buffer) => (data += d.toString()));
  socket.on('error', () => {});
  socket.on('close', () => (closedAt = Date.now()));
  return { socket, received: () => data, closedAt: () => closedAt };
}

/** Writes one byte every `everyMs` until the socket closes or `forMs` passed. */
async function trickle(socket: Socket, byte: string, everyMs: number, forMs: number) {
  const until = Date.now() + forMs;
  while (Date.now() < until && !socket.destroyed) {
    socket.write(byte);
    await sleep(everyMs);
  }
}

describe('slow clients', () => {
  test('clients trickling their headers are all cut off after HTTP_HEADERS_TIMEOUT_MS', async () => {
    const start = Date.now();
    const clients = await Promise.all(Array.from({ length: 50 }, () => open()));
    for (const c of clients) c.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    await Promise.all(clients.map((c) => trickle(c.socket, 'a', 200, 5000)));
    for (const c of clients) {
      const closed = c.closedAt();
      assert.ok(closed !== undefined, 'closed by the server');
      assert.ok(closed - start < 3500, `closed after ${closed - start} ms (limit 1 s, checked every second)`);
      assert.match(c.received(), /^(HTTP\/1\.1 408|$)/, 'answered 408 at most');
    }
  });

  test('a JSON body trickled in is cut off after HTTP_BODY_TIMEOUT_MS; a prompt one is served', async () => {
    const c = await open();
    const start = Date.now();
    c.socket.write('POST /api/admin/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"user');
    await trickle(c.socket, ' ', 100, 5000);
    const closed = c.closedAt()!;
    assert.ok(closed - start >= 900 && closed - start < 2500, `closed after ${closed - start} ms`);

    const ok = await open();
    const body = JSON.stringify({ username: 'admin', password: 'wrong-pass-1' });
    ok.socket.write(`POST /api/admin/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
    await new Promise((resolve) => ok.socket.once('close', resolve));
    assert.match(ok.received(), /^HTTP\/1\.1 401/);
  });

  test('a multipart import may take longer than the body limit while bytes keep coming; one that stalls is cut off after HTTP_IDLE_TIMEOUT_MS', async () => {
    const boundary = 'slowboundary';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="orders.csv"\r\nContent-Type: text/csv\r\n\r\n`;
    const csv = 'order_no,request_id,user_id,amount,status,paid_at,created_at,products\r\n';
    const tail = `\r\n--${boundary}--\r\n`;
    const length = Buffer.byteLength(head) + Buffer.byteLength(csv) + 30 + Buffer.byteLength(tail);
    const request = `POST /api/admin/orders/import HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${length}\r\nConnection: close\r\n\r\n`;

    const slow = await open();
    slow.socket.write(request + head + csv);
    // 30 padding bytes over 3 s: three times the body limit, but never idle.
    for (let i = 0; i < 30 && !slow.socket.destroyed; i++) {
      slow.socket.write('\r');
      await sleep(100);
    }
    slow.socket.write(tail);
    await new Promise((resolve) => (slow.socket.destroyed ? resolve(null) : slow.socket.once('close', resolve)));
    assert.match(slow.received(), /^HTTP\/1\.1 200/, slow.received().slice(0, 200));

    const stalled = await open();
    const start = Date.now();
    stalled.socket.write(request + head + csv);
    await new Promise((resolve) => stalled.socket.once('close', resolve));
    const ms = stalled.closedAt()! - start;
    assert.ok(ms >= 1400 && ms < 3500, `a stalled upload is closed after ${ms} ms (idle limit 1.5 s)`);
  });

  test('an idle keep-alive connection is closed after HTTP_KEEP_ALIVE_TIMEOUT_MS', async () => {
    const c = await open();
    c.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await sleep(100);
    assert.match(c.received(), /^HTTP\/1\.1 200/);
    const answeredAt = Date.now();
    await new Promise((resolve) => c.socket.once('close', resolve));
    const ms = c.closedAt()! - answeredAt;
    assert.ok(ms >= 800 && ms < 2500, `closed ${ms} ms after the answer`);
  });
});
