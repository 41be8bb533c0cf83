// A closed-loop HTTP/1.1 load generator, run as a child process by lib.ts: `connections`
// keep-alive sockets, each sending its next request as soon as the previous response is
// complete, for `seconds`. Prints `{ requests, seconds, non2xx, errors, sent, p50, p99,
// firstFailure }` as JSON: requests completed within the time, and the latency of those
// (send to complete response, ms). When the time is up no new request is sent and the ones in
// flight are awaited (not counted), so `sent` is exactly what the server received and handled.
//
// It exists for pairs where only one side is HTTP (login against raw argon2 in-process) and for
// route-vs-bare pairs on a 2-core machine: the client shares the cores with the server, and
// autocannon spends about 0.5 ms of CPU per request at a few hundred requests per second (its
// histograms, timers and parser), which would be counted against the server and cap a fast
// bare route. This client only writes request bytes and reads the status line and
// Content-Length of each reply; latencies go to a preallocated array.
//
// Requests that must differ: `requests` lists variants (headers and body) sent in turn, the
// k-th request of the run using variant (offset + k) mod their number, so a caller can keep a
// cycle going across runs (pass the previous run's offset + sent); and `{{n}}` in a body or
// header value is replaced by `runId` followed by offset + k, unique across runs.
import { readFileSync } from 'node:fs';
import net from 'node:net';

interface Variant {
  headers?: Record<string, string>;
  body?: string;
}

export interface Spec {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string | undefined;
  requests?: Variant[] | undefined;
  runId?: string | undefined;
  offset?: number | undefined;
  connections: number;
  seconds: number;
}

export interface Result {
  requests: number;
  seconds: number;
  non2xx: number;
  errors: number;
  sent: number;
  p50: number;
  p99: number;
  /** The status line and the start of the body of the first non-2xx reply. */
  firstFailure?: string;
}

// The spec as JSON, or `@file` naming a file that holds it.
const arg = process.argv[2]!;
const spec = JSON.parse(arg.startsWith('@') ? readFileSync(arg.slice(1), 'utf8') : arg) as Spec;
const target = new URL(spec.url);
const TEMPLATE = '{{n}}';

/** A variant as request bytes: fixed, or rendered per request when it has `{{n}}`. */
interface Prepared {
  fixed?: Buffer;
  head: string[];
  body: string[] | undefined;
}

function prepare(v: Variant): Prepared {
  const lines = [
    `${spec.method} ${target.pathname}${target.search} HTTP/1.1`,
    `host: ${target.host}`,
    'connection: keep-alive',
    ...Object.entries({ ...spec.headers, ...v.headers }).map(([k, val]) => `${k}: ${val}`),
  ].join('\r\n');
  const body = v.body ?? spec.body;
  if (!lines.includes(TEMPLATE) && !(body ?? '').includes(TEMPLATE)) {
    const b = body === undefined ? undefined : Buffer.from(body);
    const head = Buffer.from(`${lines}\r\n${b ? `content-length: ${b.length}\r\n` : ''}\r\n`);
    return { fixed: b ? Buffer.concat([head, b]) : head, head: [], body: undefined };
  }
  return { head: lines.split(TEMPLATE), body: body?.split(TEMPLATE) };
}

const variants = (spec.requests && spec.requests.length > 0 ? spec.requests : [{}]).map(prepare);
const runId = spec.runId ?? '';
const offset = spec.offset ?? 0;
let sent = 0;

function nextRequest(): Buffer | string {
  const k = offset + sent;
  sent += 1;
  const v = variants[k % variants.length]!;
  if (v.fixed) return v.fixed;
  const n = `${runId}${k}`;
  const body = v.body?.join(n);
  return `${v.head.join(n)}\r\n${body === undefined ? '' : `content-length: ${Buffer.byteLength(body)}\r\n`}\r\n${body ?? ''}`;
}

const HEADER_END = Buffer.from('\r\n\r\n');
// Room for the latencies of 200,000 requests per second; beyond that they are not recorded.
const latencies = new Float64Array(Math.max(1 << 16, Math.ceil(spec.seconds * 200_000)));
let recorded = 0;
let requests = 0;
let non2xx = 0;
let errors = 0;
let firstFailure: string | undefined;
let running = true;
let inFlight = 0;
let onIdle: (() => void) | undefined;

function settled() {
  inFlight -= 1;
  if (!running && inFlight === 0) onIdle?.();
}

function drive(socket: net.Socket) {
  let pending: Buffer = Buffer.alloc(0);
  let sentAt = 0;
  let waiting = false;
  const send = () => {
    waiting = true;
    inFlight += 1;
    sentAt = performance.now();
    socket.write(nextRequest());
  };
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
      if (status < 200 || status > 299) {
        firstFailure ??= `${headers.split('\r\n')[0]} ${pending.subarray(end + HEADER_END.length, Math.min(total, end + HEADER_END.length + 400)).toString('utf8')}`;
      }
      if (running) {
        requests += 1;
        if (status < 200 || status > 299) non2xx += 1;
        if (recorded < latencies.length) latencies[recorded++] = performance.now() - sentAt;
      } else if (status < 200 || status > 299) {
        non2xx += 1;
      }
      pending = pending.subarray(total);
      waiting = false;
      settled();
      if (running) send();
    }
  });
  socket.on('error', () => {
    errors += 1;
  });
  socket.on('close', () => {
    if (waiting) {
      waiting = false;
      settled();
    }
  });
  send();
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
// The requests in flight complete (the server handles them anyway), so that `sent` is exact and
// the next run starts on an idle server.
if (inFlight > 0) {
  await new Promise<void>((resolve) => {
    onIdle = resolve;
    setTimeout(resolve, 30_000).unref();
  });
}
for (const s of sockets) s.destroy();
const sorted = latencies.subarray(0, recorded).sort();
const at = (q: number) => (recorded === 0 ? 0 : sorted[Math.min(recorded - 1, Math.floor(q * recorded))]!);
const result: Result = { requests, seconds, non2xx, errors, sent, p50: at(0.5), p99: at(0.99), ...(firstFailure ? { firstFailure } : {}) };
process.stdout.write(JSON.stringify(result));
