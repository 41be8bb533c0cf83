// A closed-loop HTTP/1.1 load generator, run as a child process by lib.ts: `connections`
// keep-alive sockets, each sending its next request as soon as the previous response is
// complete, for `seconds`. Prints `{ requests, seconds, non2xx, errors }` as JSON.
//
// It exists for pairs where only one side is HTTP (login against raw argon2 in-process): on a
// 2-core machine the client shares the cores with the server, and autocannon spends about
// 0.5 ms of CPU per request at a few hundred requests per second (its histograms, timers and
// parser), which would be counted against the server. This client only writes fixed request
// bytes and reads the status line and Content-Length of each reply.
import net from 'node:net';

interface Spec {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  connections: number;
  seconds: number;
}

const spec = JSON.parse(process.argv[2]!) as Spec;
const target = new URL(spec.url);
const body = spec.body === undefined ? undefined : Buffer.from(spec.body);
const head = [
  `${spec.method} ${target.pathname}${target.search} HTTP/1.1`,
  `host: ${target.host}`,
  'connection: keep-alive',
  ...Object.entries(spec.headers).map(([k, v]) => `${k}: ${v}`),
  ...(body ? [`content-length: ${body.length}`] : []),
  '',
  '',
].join('\r\n');
const request = body ? Buffer.concat([Buffer.from(head), body]) : Buffer.from(head);
const HEADER_END = Buffer.from('\r\n\r\n');

let requests = 0;
let non2xx = 0;
let errors = 0;
let running = true;

function drive(socket: net.Socket) {
  let pending: Buffer = Buffer.alloc(0);
  socket.setNoDelay(true);
  socket.on('data', (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (;;) {
      const end = pending.indexOf(HEADER_END);
      if (end < 0) return;
      const headers = pending.subarray(0, end).toString('latin1');
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(headers);
      if (!length) throw new Error(`reply without Content-Length: ${headers.split('\r\n')[0]}`);
      const total = end + HEADER_END.length + Number(length[1]);
      if (pending.length < total) return;
      const status = Number(headers.slice(9, 12));
      if (running) {
        requests += 1;
        if (status < 200 || status > 299) non2xx += 1;
      }
      pending = pending.subarray(total);
      if (running) socket.write(request);
    }
  });
  socket.on('error', () => {
    if (running) errors += 1;
  });
  socket.write(request);
}

const sockets = await Promise.all(
  Array.from({ length: spec.connections }, () =>
    new Promise<net.Socket>((resolve, reject) => {
      const s = net.connect(Number(target.port), target.hostname, () => resolve(s));
      s.once('error', reject);
    }),
  ),
);
const start = performance.now();
for (const s of sockets) drive(s);
await new Promise((resolve) => setTimeout(resolve, spec.seconds * 1000));
running = false;
const seconds = (performance.now() - start) / 1000;
for (const s of sockets) s.destroy();
process.stdout.write(JSON.stringify({ requests, seconds, non2xx, errors }));
