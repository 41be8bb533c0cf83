// Files in S3-compatible object storage (issue 32), each figure a ratio to the same bytes
// copied straight to or from the store with the AWS SDK v3 in the same run, with the server's
// memory growth. The store is moto's S3 server behind the tests' proxy (test/helpers/s3.ts
// startS3, its objects in a temporary folder); the server is `node src/main.ts` in a process of
// its own, started as `npm start` starts it (its malloc settings and semi-space flag, without
// the web build check), with STORAGE_DRIVER=s3 pointed at the store, on a fresh PostgreSQL
// database (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres; dropped
// after). Both sides send one request at a time and use the same client settings as the
// server's driver (checksums only where S3 requires them, no `Expect: 100-continue`).
//   - upload: BENCH_STORAGE_MIB (1024 × BENCH_SCALE) MiB of random bytes (an mp4 header first,
//     so the content check passes) through the chunked upload, chunks of
//     BENCH_STORAGE_CHUNK_MIB (8) MiB (`POST /api/admin/attachments/chunk`, one at a time), then
//     `POST /api/admin/attachments/merge`; vs CreateMultipartUpload, the same bytes in as many
//     UploadPart calls of the chunk size, CompleteMultipartUpload. Time ratio SDK / server.
//   - download: `GET` of the attachment's url, read to the end with its SHA-256 checked; vs
//     GetObject of the reference object, read and hashed alike.
//   - export: BENCH_EXPORT_ORDERS (1,000,000 × BENCH_SCALE) orders seeded (orders.seed.ts, then
//     their times drawn into the export's default 3 months), `POST /api/admin/orders/export`
//     polled until completed; vs a multipart upload (5 MiB parts, the driver's) of as many bytes
//     as the export file has, produced as a stream. A diagnostic line (no target) puts the
//     export's own SELECT through `COPY … TO STDOUT` straight into the store the same way: the
//     part of the export's time that is PostgreSQL's rather than the storage path's.
//   - memory: the server's peak RSS (sampled every 20 ms) during each server phase minus its RSS
//     just before it; target < 100 MiB. Also printed: the server's CPU seconds in each phase.
// Targets: each ratio >= 0.8. BENCH_ROUNDS (1) rounds, the upload and download references
// first in even rounds and second in odd ones; medians printed. BENCH_SCALE=0.01 is a quick run
// (10 MiB, 10,000 orders). BENCH_SERVER_NODE_OPTIONS is the server's NODE_OPTIONS (a profile:
// `--cpu-prof --cpu-prof-dir=…`). The server runs with DEPENDENCY_TIMEOUT_MS=60000: moto answers
// nothing while it assembles or copies a large object (see below). Needs moto_server on PATH;
// the store, the server, the database and the folders are removed at the end, failed or not.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes, randomFillSync } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  S3Client,
  UploadPartCommand,
  type CompletedPart,
} from '@aws-sdk/client-s3';
import pino from 'pino';
import postgres from 'postgres';
import { orderExportParams, orderExportSelect } from '../src/admin/features/orders/orders.export.ts';
import { seedOrders } from '../src/admin/features/orders/orders.seed.ts';
import { ordersList } from '../src/admin/features/orders/orders.service.ts';
import { openDatabase, type Database } from '../src/platform/db/database.ts';
import { s3Skip, startS3, type S3Server } from '../test/helpers/s3.ts';
import { fmt, freePort, freshDatabase, median, reachable, RssSampler } from './lib.ts';

const MiB = 1024 * 1024;
const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const TOTAL_BYTES = Math.round(Number(process.env.BENCH_STORAGE_MIB ?? 1024 * SCALE) * MiB);
const CHUNK_BYTES = Math.round(Number(process.env.BENCH_STORAGE_CHUNK_MIB ?? 8) * MiB);
const ORDERS = Math.round(Number(process.env.BENCH_EXPORT_ORDERS ?? 1_000_000 * SCALE));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const BASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** The driver's part size for writes of unknown size (s3.ts PART_BYTES): the export reference's parts. */
const EXPORT_PART_BYTES = 5 * MiB;
const RATIO_TARGET = 0.8;
const GROWTH_TARGET = 100 * MiB;
const PASSWORD = 'Bench-pass-123';
const FILE_NAME = 'bench.mp4';
const root = path.resolve(import.meta.dirname, '..');

// ---- what is cleaned up, whatever happens: the server, the store, the database, the folders

const cleanups: (() => Promise<unknown>)[] = [];
let cleaning: Promise<void> | undefined;
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const step of cleanups.reverse()) {
      await step().catch((err: unknown) => console.error(`cleanup: ${(err as Error).message}`));
    }
  })();
  return cleaning;
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`${signal}: cleaning up`);
    void cleanup().finally(() => process.exit(130));
  });
}
// An error no await sees (a socket's, say) ends the run as a failure would, cleaned up.
process.once('uncaughtException', (err) => {
  console.error(err);
  void cleanup().finally(() => process.exit(1));
});
/** The server's output, shown when the run fails. */
let serverLog: string | undefined;

// ---- the server process

interface ServerProcess {
  base: string;
  pid: number;
}

/**
 * `node src/main.ts` as `npm start` runs it (its environment and V8 flag), listening on a free
 * port, once /readyz answers; its output goes to `log`, whose end is shown if it exits early.
 */
async function startServer(env: Record<string, string>, log: string): Promise<ServerProcess> {
  const port = await freePort();
  const logFd = openSync(log, 'w');
  const child: ChildProcess = spawn(process.execPath, ['--max-semi-space-size=2', 'src/main.ts'], {
    cwd: root,
    stdio: ['ignore', logFd, logFd],
    env: {
      PATH: process.env.PATH ?? '',
      MALLOC_TRIM_THRESHOLD_: '131072',
      MALLOC_MMAP_THRESHOLD_: '32768',
      MALLOC_ARENA_MAX: '2',
      HOST: '127.0.0.1',
      PORT: String(port),
      JWT_SECRET: 'bench-secret-that-is-long-enough-0123456789',
      ADMIN_PASSWORD: PASSWORD,
      CAPTCHA_ENABLED: 'false',
      LOG_LEVEL: 'warn',
      AUTH_RATE_LIMIT: '1000000',
      // For a look inside, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` (written when the server exits).
      ...(process.env.BENCH_SERVER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_SERVER_NODE_OPTIONS } : {}),
      ...env,
    },
  });
  closeSync(logFd);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let stopping = false;
  void exited.then(() => {
    if (!stopping) console.error(`the server exited; the end of its log:\n${readFileSync(log, { encoding: 'utf8', flag: 'a+' }).slice(-3000)}`);
  });
  cleanups.push(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    stopping = true;
    child.kill('SIGTERM');
    if (!(await Promise.race([exited.then(() => true), sleep(30_000).then(() => false)]))) child.kill('SIGKILL');
    await exited;
  });
  const base = `http://127.0.0.1:${port}`;
  for (const started = Date.now(); ;) {
    if (await fetch(`${base}/readyz`).then((r) => r.ok, () => false)) break;
    if (child.exitCode !== null || Date.now() - started > 120_000) throw new Error('the server did not start');
    await sleep(100);
  }
  return { base, pid: child.pid! };
}

// ---- HTTP to the server: one keep-alive connection, as a browser uploading chunks in turn

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function send(url: string, opts: { method: string; token?: string; headers?: Record<string, string>; body?: Buffer[] }): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const length = (opts.body ?? []).reduce((n, b) => n + b.length, 0);
    const req = httpRequest(url, {
      method: opts.method,
      agent,
      headers: {
        ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
        ...(opts.body ? { 'content-length': String(length) } : {}),
        ...opts.headers,
      },
    }, resolve);
    req.on('error', reject);
    for (const b of opts.body ?? []) req.write(b);
    req.end();
  });
}

async function readJson(res: IncomingMessage): Promise<any> {
  let text = '';
  res.setEncoding('utf8');
  for await (const s of res) text += s as string;
  const body = JSON.parse(text) as { code: number; data: unknown };
  if (body.code !== 200) throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 500)}`);
  return body.data;
}

const api = async (base: string, method: string, url: string, token?: string, json?: unknown) =>
  readJson(await send(`${base}${url}`, {
    method, token, ...(json === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: [Buffer.from(JSON.stringify(json))] }),
  }));

/** One chunk as multipart/form-data: the fields, then the file part. */
async function postChunk(base: string, token: string, fields: Record<string, string>, bytes: Buffer) {
  const boundary = `----bench${randomBytes(8).toString('hex')}`;
  let head = '';
  for (const [name, value] of Object.entries(fields)) head += `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  head += `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${FILE_NAME}.part"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  return readJson(await send(`${base}/api/admin/attachments/chunk`, {
    method: 'POST', token, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body: [Buffer.from(head), bytes, Buffer.from(`\r\n--${boundary}--\r\n`)],
  }));
}

/** Reads a stream to its end: its size and SHA-256. */
async function digest(body: AsyncIterable<Uint8Array>): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const b of body) {
    hash.update(b);
    size += b.length;
  }
  return { size, sha256: hash.digest('hex') };
}

// ---- the SDK side

/** A multipart upload of `source` in parts of `partBytes`, one at a time (the last one shorter). */
async function sdkPut(client: S3Client, bucket: string, key: string, source: AsyncIterable<Buffer>, partBytes: number): Promise<void> {
  const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
  const parts: CompletedPart[] = [];
  const put = async (body: Buffer) => {
    const PartNumber = parts.length + 1;
    const out = await client.send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId, PartNumber, Body: body, ContentLength: body.length }));
    parts.push({ PartNumber, ETag: out.ETag });
  };
  let part = Buffer.allocUnsafe(partBytes);
  let filled = 0;
  for await (const chunk of source) {
    for (let offset = 0; offset < chunk.length;) {
      const n = chunk.copy(part, filled, offset);
      filled += n;
      offset += n;
      if (filled === partBytes) {
        await put(part);
        part = Buffer.allocUnsafe(partBytes);
        filled = 0;
      }
    }
  }
  if (filled > 0 || parts.length === 0) await put(part.subarray(0, filled));
  await client.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId, MultipartUpload: { Parts: parts } }));
}

/** `size` bytes as a stream of 64 KiB pieces of `block`. */
async function* bytesOf(block: Buffer, size: number): AsyncGenerator<Buffer> {
  const piece = 64 * 1024;
  for (let sent = 0; sent < size;) {
    const n = Math.min(piece, size - sent);
    yield block.subarray(sent % (block.length - piece), (sent % (block.length - piece)) + n);
    sent += n;
  }
}

// ---- figures

interface Phase {
  label: string;
  server: number[];
  sdk: number[];
  growth: number[];
  /** CPU seconds the server process used in the phase. */
  cpu: number[];
  bytes: number;
}

/** CPU time (user + system) a process has used, seconds. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
  // utime and stime, the 14th and 15th fields of the line (the 12th and 13th after the name), in clock ticks.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Runs a server phase: its time in ms, and its RSS growth and CPU seconds into `phase`. */
async function serverPhase<T>(phase: Phase, rss: RssSampler, pid: number, f: () => Promise<T>): Promise<T> {
  const before = rss.start();
  const cpu = cpuSeconds(pid);
  const t = performance.now();
  const out = await f();
  phase.server.push(performance.now() - t);
  phase.growth.push(rss.stop() - before);
  phase.cpu.push(cpuSeconds(pid) - cpu);
  return out;
}

const seconds = (ms: number) => `${fmt(ms / 1000, 1)} s`;
const rate = (bytes: number, ms: number) => `${fmt(bytes / MiB / (ms / 1000), 1)} MiB/s`;

function table(phases: Phase[]) {
  const rows = [['phase', 'server', 'SDK reference', 'ratio', 'verdict', 'server RSS growth', 'verdict', 'server CPU']];
  for (const p of phases) {
    const ratio = median(p.sdk.map((s, i) => s / p.server[i]!));
    const growth = Math.max(...p.growth);
    rows.push([
      p.label,
      `${seconds(median(p.server))} (${rate(p.bytes, median(p.server))})`,
      `${seconds(median(p.sdk))} (${rate(p.bytes, median(p.sdk))})`,
      fmt(ratio, 3),
      `${ratio >= RATIO_TARGET ? 'PASS' : 'BELOW TARGET'} (>= ${RATIO_TARGET})`,
      `${fmt(growth / MiB, 1)} MiB`,
      `${growth < GROWTH_TARGET ? 'PASS' : 'ABOVE TARGET'} (< ${GROWTH_TARGET / MiB} MiB)`,
      `${fmt(median(p.cpu), 1)} s`,
    ]);
  }
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  for (const r of rows) console.log(r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ').trimEnd());
}

// ---- the run

async function run() {
  const skip = s3Skip();
  if (skip) {
    console.log(`# storage benchmark: skipped (${skip})`);
    return;
  }
  if (!(await reachable('postgres', BASE_URL))) {
    console.log(`# storage benchmark: skipped (no PostgreSQL at ${process.env.BENCH_DATABASE_URL ? 'BENCH_DATABASE_URL' : '127.0.0.1:5432'})`);
    return;
  }
  const chunks = Math.ceil(TOTAL_BYTES / CHUNK_BYTES);
  console.log(`# storage (Node ${process.versions.node}, ${availableParallelism()} cores, load average ${loadavg().map((l) => fmt(l, 2)).join(' ')}, ${ROUNDS} round(s)): `
    + `moto's S3 server; upload ${fmt(TOTAL_BYTES / MiB)} MiB in ${fmt(chunks)} chunks of ${fmt(CHUNK_BYTES / MiB, 1)} MiB; export of ${fmt(ORDERS)} orders`);

  const s3: S3Server = await startS3('fieldops-bench');
  cleanups.push(() => s3.destroy());
  const dir = mkdtempSync(path.join(tmpdir(), 'fieldops-bench-storage-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  const database = await freshDatabase(BASE_URL, 'storage');
  cleanups.push(() => database.drop());

  const server = await startServer({
    ...s3.env,
    DATA_DIR: path.join(dir, 'data'),
    DATABASE_URL: database.url,
    UPLOAD_CHUNK_MAX_BYTES: String(CHUNK_BYTES),
    UPLOAD_MAX_VIDEO_BYTES: String(Math.max(TOTAL_BYTES, 1024 * 1024)),
    // moto answers nothing, not even the availability's probe, while it assembles or copies a
    // large object (a 1 GiB CompleteMultipartUpload kept HeadBucket waiting 7.6 s on a loaded
    // machine): with the default 3 s the probe fails and the merge is answered 503.
    DEPENDENCY_TIMEOUT_MS: '60000',
  }, (serverLog = path.join(dir, 'server.log')));
  const client = new S3Client({
    endpoint: s3.url,
    region: s3.env.S3_REGION!,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.env.S3_ACCESS_KEY_ID!, secretAccessKey: s3.env.S3_SECRET_ACCESS_KEY! },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    expectContinueHeader: false,
  });
  cleanups.push(async () => client.destroy());
  const rss = new RssSampler(server.pid);
  const login = async () => (await api(server.base, 'POST', '/api/admin/login', undefined, { username: 'admin', password: PASSWORD })).token as string;

  // The file: random bytes after an ISO media header (`ftyp isom`), which the mp4 check wants.
  const data = Buffer.allocUnsafe(TOTAL_BYTES);
  for (let i = 0; i < TOTAL_BYTES; i += 256 * MiB) randomFillSync(data, i, Math.min(256 * MiB, TOTAL_BYTES - i));
  Buffer.from([0, 0, 0, 0x18, ...Buffer.from('ftypisom')]).copy(data);
  const dataSha = createHash('sha256').update(data).digest('hex');
  const chunkOf = (i: number) => data.subarray(i * CHUNK_BYTES, Math.min(TOTAL_BYTES, (i + 1) * CHUNK_BYTES));

  const upload: Phase = { label: 'upload (chunks + merge)', server: [], sdk: [], growth: [], cpu: [], bytes: TOTAL_BYTES };
  const download: Phase = { label: 'download', server: [], sdk: [], growth: [], cpu: [], bytes: TOTAL_BYTES };
  const exported: Phase = { label: `export (${fmt(ORDERS)} orders)`, server: [], sdk: [], growth: [], cpu: [], bytes: 0 };
  const copied: number[] = [];
  /** The merge's share of the server's upload time. */
  const mergeShare: number[] = [];

  /** Runs both sides, the reference first in even rounds and second in odd ones (a drift weighs on both alike). */
  const both = async (round: number, reference: () => Promise<void>, server: () => Promise<void>) => {
    for (const side of round % 2 === 0 ? [reference, server] : [server, reference]) await side();
  };
  const timed = async (into: number[], f: () => Promise<unknown>) => {
    const t = performance.now();
    await f();
    into.push(performance.now() - t);
  };

  for (let round = 0; round < ROUNDS; round++) {
    // -- upload, then download
    const refKey = `bench/reference-${round}`;
    const chunkId = `bench-${round}-${randomBytes(6).toString('hex')}`;
    let attachment: { id: number; url: string; sha256: string; size: number } | undefined;
    await both(round, () => timed(upload.sdk, () => sdkPut(client, s3.bucket, refKey, (async function* () {
      for (let i = 0; i < chunks; i++) yield chunkOf(i);
    })(), CHUNK_BYTES)), async () => {
      const token = await login();
      let chunksMs = 0;
      attachment = await serverPhase(upload, rss, server.pid, async () => {
        const t = performance.now();
        for (let i = 0; i < chunks; i++) {
          await postChunk(server.base, token, { chunk_id: chunkId, chunk_index: String(i), total_chunks: String(chunks), filename: FILE_NAME }, chunkOf(i));
        }
        chunksMs = performance.now() - t;
        return api(server.base, 'POST', '/api/admin/attachments/merge', token, { chunk_id: chunkId, filename: FILE_NAME, total_chunks: chunks });
      });
      mergeShare.push(1 - chunksMs / upload.server.at(-1)!);
      if (attachment!.sha256 !== dataSha || attachment!.size !== TOTAL_BYTES) throw new Error(`merged: ${JSON.stringify(attachment)}`);
    });

    const token = await login();
    await both(round, () => timed(download.sdk, async () => {
      const ref = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: refKey }));
      if ((await digest(ref.Body as Readable)).sha256 !== dataSha) throw new Error('the reference object read back differs');
    }), async () => {
      const read = await serverPhase(download, rss, server.pid, async () => {
        const res = await send(`${server.base}${attachment!.url}`, { method: 'GET', token });
        if (res.statusCode !== 200) throw new Error(`download: HTTP ${res.statusCode}`);
        return digest(res);
      });
      if (read.sha256 !== dataSha || read.size !== TOTAL_BYTES) throw new Error(`download: ${read.size} bytes, sha256 ${read.sha256}`);
    });

    await client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: refKey }));
    await api(server.base, 'DELETE', `/api/admin/attachments/${attachment!.id}`, token);
  }

  // -- export: the orders seeded once; per round the server's export, the reference, the COPY diagnostic
  const db = await openDatabase({ url: database.url, dataDir: dir, poolMax: 2, logger: pino({ level: 'silent' }) });
  cleanups.push(() => db.close());
  const t = performance.now();
  await seedOrders(db, { orders: ORDERS });
  await intoExportRange(database.url);
  console.log(`seeded ${fmt(ORDERS)} orders in ${seconds(performance.now() - t)}`);
  const block = randomBytes(8 * MiB);
  const select = exportSelect(db);
  for (let round = 0; round < ROUNDS; round++) {
    // The reference needs the export file's size: the server's export runs first in every round.
    const token = await login();
    const task = await serverPhase(exported, rss, server.pid, async () => {
      const created = await api(server.base, 'POST', '/api/admin/orders/export?order_by=id:desc', token);
      for (;;) {
        const s = await api(server.base, 'GET', `/api/admin/orders/export/status/${created.id as number}`, token);
        if (s.status === 'completed') {
          if (s.rows_written !== ORDERS) throw new Error(`the export wrote ${s.rows_written} rows, not ${ORDERS}`);
          return created;
        }
        if (s.status === 'failed') throw new Error(`the export failed: ${s.error}`);
        await sleep(20);
      }
    });
    const listed = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'exports/' }));
    const file = (listed.Contents ?? []).find((o) => o.Key?.includes(`/orders-${task.id as number}-`));
    if (!file?.Size) throw new Error(`no export file for task ${task.id as number} in the bucket`);
    exported.bytes = file.Size;
    await timed(exported.sdk, () => sdkPut(client, s3.bucket, `bench/export-${round}`, bytesOf(block, file.Size!), EXPORT_PART_BYTES));
    await timed(copied, () => sdkPut(client, s3.bucket, `bench/copy-${round}`, db.copyOut(select.text, select.values), EXPORT_PART_BYTES));
    for (const key of [`bench/export-${round}`, `bench/copy-${round}`, file.Key!]) await client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: key }));
  }

  console.log('');
  table([upload, download, exported]);
  console.log(`diagnostic: the merge is ${fmt(median(mergeShare) * 100)} % of the server's upload time, the chunks the rest`);
  const copy = median(copied);
  console.log(`diagnostic: the export's SELECT through COPY TO STDOUT straight into the store: ${seconds(copy)}; the server's export takes ${fmt(median(exported.server) / copy, 2)} x that (no target)`);
}

/** The seed spreads orders over 183 days; the export's default range is the last 3 months: every order is moved into the last 82 days. */
async function intoExportRange(url: string) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql.begin(async (tx) => {
      // No rollup trigger: the daily sums are not what this benchmark reads.
      await tx.unsafe('SET LOCAL session_replication_role = replica');
      await tx.unsafe(`UPDATE admin.orders SET created_at = now() - (now() - created_at) * 0.45,
        updated_at = now() - (now() - updated_at) * 0.45, paid_at = now() - (now() - paid_at) * 0.45`);
    });
    await sql.unsafe('VACUUM ANALYZE admin.orders');
  } finally {
    await sql.end();
  }
}

/** The export's SELECT as the server renders it for `order_by=id:desc` (bench/orders.ts does the same). */
function exportSelect(db: Database) {
  const params = orderExportParams({ order_by: 'id:desc' }, 'UTC', { all: true, departments: [], adminId: 1, departmentId: null });
  return orderExportSelect(ordersList(db.orm), params, 'UTC');
}

let failed = false;
try {
  await run();
} catch (err) {
  failed = true;
  console.error(err);
  if (serverLog) console.error(`the end of the server's log:\n${readFileSync(serverLog, 'utf8').slice(-3000)}`);
} finally {
  await cleanup();
}
if (failed) process.exit(1);
