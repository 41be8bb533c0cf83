// Order CSV import and export at scale, each as a ratio against PostgreSQL's COPY of the same
// rows measured in the same run, with the server (`node src/main.ts`) in a child process whose
// resident memory is sampled from /proc:
//   - POST /orders/import of a BENCH_ORDERS-row CSV (default 1,000,000; 1-3 products each)
//     vs `COPY … FROM STDIN` of the same orders and details into the same tables:
//     rows/s ratio (target >= 0.5, aim 0.8) and the server's peak RSS growth (<= 100 MiB);
//   - the export of those orders (POST /orders/export until completed) vs
//     `COPY (the export's SELECT) TO STDOUT` into a file: rows/s ratio (target >= 0.5, aim 0.85),
//     peak RSS growth (<= 100 MiB);
//   - GET /orders (one user's orders, the first page) while an export runs vs alone (>= 0.8).
// Needs PostgreSQL: BENCH_DATABASE_URL (a database is created for the run and dropped after);
// BENCH_REDIS_URL optional. BENCH_ROUNDS (default 1) alternates reference and endpoint;
// BENCH_SECONDS (default 5) is the length of each list measurement.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pino from 'pino';
import postgres from 'postgres';
import { orderExportParams, orderExportSelect } from '../src/admin/features/orders/orders.export.ts';
import { ordersList } from '../src/admin/features/orders/orders.service.ts';
import { openDatabase } from '../src/platform/db/database.ts';
import { fmt, freePort, median, requestsPerSecond, RssSampler } from './lib.ts';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const BASE_URL = process.env.BENCH_DATABASE_URL;
const PASSWORD = 'Bench-pass-123';
const MiB = 1024 * 1024;

if (!BASE_URL) {
  console.log('# orders benchmark: needs PostgreSQL (the references are COPY); set BENCH_DATABASE_URL');
  process.exit(0);
}

const root = path.resolve(import.meta.dirname, '..');
const dir = mkdtempSync(path.join(tmpdir(), 'fieldops-bench-orders-'));
const dbName = `bench_orders_${randomBytes(4).toString('hex')}`;
const admin = postgres(BASE_URL, { max: 1, onnotice: () => {} });
await admin.unsafe(`CREATE DATABASE ${dbName}`);
const dbUrl = new URL(BASE_URL);
dbUrl.pathname = `/${dbName}`;
const sql = postgres(dbUrl.toString(), { max: 2, onnotice: () => {} });
/** The reference reads through the same COPY mechanism as the export, on its own connections. */
const db = await openDatabase({ url: dbUrl.toString(), dataDir: tmpdir(), poolMax: 2, logger: pino({ level: 'silent' }) });

let child: ReturnType<typeof spawn> | undefined;
async function cleanup() {
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((r) => child!.once('exit', r));
  }
  await sql.end({ timeout: 5 });
  await db.close();
  await admin.unsafe(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.end();
  rmSync(dir, { recursive: true, force: true });
}

async function run() {
  // --- the data: one CSV for the endpoint, COPY text files of the same rows for the reference
  const csvFile = path.join(dir, 'orders.csv');
  const ordersCopy = path.join(dir, 'orders.copy');
  const detailsCopy = path.join(dir, 'details.copy');
  const started = performance.now();
  const details = await writeData(csvFile, ordersCopy, detailsCopy);
  console.log(`# orders benchmark (PostgreSQL${process.env.BENCH_REDIS_URL ? ' + Redis' : ''}, Node ${process.versions.node}, ${availableParallelism()} cores, ${ROUNDS} round(s))`);
  console.log(`data: ${fmt(ORDERS)} orders, ${fmt(details)} details; CSV ${fmt(statSync(csvFile).size / MiB, 1)} MiB (written in ${fmt((performance.now() - started) / 1000, 1)} s)`);

  // --- the server, in its own process
  const port = await freePort();
  child = spawn(process.execPath, ['src/main.ts'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: path.join(dir, 'data'),
      DATABASE_URL: dbUrl.toString(),
      ...(process.env.BENCH_REDIS_URL ? { REDIS_URL: process.env.BENCH_REDIS_URL, REDIS_KEY_PREFIX: `bench${process.pid}:` } : {}),
      JWT_SECRET: 'bench-secret-that-is-long-enough-0123456789',
      ADMIN_PASSWORD: PASSWORD,
      CAPTCHA_ENABLED: 'false',
      LOG_LEVEL: 'warn',
      ORDER_IMPORT_MAX_BYTES: String(4 * 1024 * MiB),
    },
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    const ready = await fetch(`${base}/readyz`).then((r) => r.ok, () => false);
    if (ready) break;
    if (i > 600 || child.exitCode !== null) throw new Error('the server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  const login = await fetch(`${base}/api/admin/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: PASSWORD }) });
  const token = ((await login.json()) as { data: { token: string } }).data.token;
  const auth = { authorization: `Bearer ${token}` };
  const rss = new RssSampler(child.pid!);

  // --- import
  const truncate = () => sql.unsafe('TRUNCATE admin.orders RESTART IDENTITY CASCADE');
  const copyIn = async () => {
    await truncate();
    const t = performance.now();
    await sql.begin(async (tx) => {
      await pipeline(createReadStream(ordersCopy), await tx.unsafe('COPY admin.orders (id, order_no, request_id, user_id, amount, status, paid_at, created_at) FROM STDIN').writable());
      await pipeline(createReadStream(detailsCopy), await tx.unsafe('COPY admin.order_details (order_id, product_id, product_name, price, quantity) FROM STDIN').writable());
    });
    return ORDERS / ((performance.now() - t) / 1000);
  };
  const importGrowth: number[] = [];
  const importApi = async () => {
    await truncate();
    const before = rss.start();
    const t = performance.now();
    const summary = await upload(`${base}/api/admin/orders/import`, token, csvFile);
    const rate = ORDERS / ((performance.now() - t) / 1000);
    importGrowth.push(rss.stop() - before);
    if (summary.succeeded !== ORDERS) throw new Error(`import: ${JSON.stringify(summary).slice(0, 500)}`);
    return rate;
  };
  await alternate('import: POST /orders/import vs COPY FROM of the same orders and details (rows/s)', importApi, copyIn, 0.5, 'aim 0.8');
  reportMemory('import', importGrowth);

  // --- export (of the orders the last import wrote)
  await sql.unsafe('VACUUM ANALYZE admin.orders');
  await sql.unsafe('VACUUM ANALYZE admin.order_details');
  const query = { order_by: 'id:desc' };
  const params = orderExportParams(query, 'UTC', { all: true, departments: [], adminId: 1, departmentId: null });
  const select = orderExportSelect(ordersList(db.orm), params, 'UTC');
  const copyOut = async () => {
    const file = path.join(dir, 'reference.csv');
    const t = performance.now();
    await pipeline(Readable.from(db.copyOut(select.text, select.values)), createWriteStream(file));
    const rate = ORDERS / ((performance.now() - t) / 1000);
    rmSync(file);
    return rate;
  };
  const exportGrowth: number[] = [];
  const runExport = async (during?: () => Promise<number>) => {
    const t = performance.now();
    const created = await json(`${base}/api/admin/orders/export?order_by=id:desc`, { method: 'POST', headers: auth });
    const id = created.data.id as number;
    let listed: number | undefined;
    let finished: number | undefined;
    const poll = (async () => {
      for (;;) {
        const s = await json(`${base}/api/admin/orders/export/status/${id}`, { headers: auth });
        if (s.data.status === 'completed') {
          finished = performance.now();
          if (s.data.rows_written !== ORDERS) throw new Error(`export wrote ${s.data.rows_written} rows`);
          return;
        }
        if (s.data.status === 'failed') throw new Error(`export failed: ${s.data.error}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    poll.catch(() => {});
    try {
      if (during) {
        listed = await during();
        if (finished !== undefined) console.log('  (the export ended before the list measurement did: use more BENCH_ORDERS or fewer BENCH_SECONDS)');
      }
    } finally {
      await poll;
    }
    return { rate: ORDERS / ((finished! - t) / 1000), listed };
  };
  const exportApi = async () => {
    const before = rss.start();
    const { rate } = await runExport();
    exportGrowth.push(rss.stop() - before);
    return rate;
  };
  await alternate('export: POST /orders/export until completed vs COPY (same SELECT) TO STDOUT into a file (rows/s)', exportApi, copyOut, 0.5, 'aim 0.85');
  reportMemory('export', exportGrowth);

  // --- list requests alone and during an export
  const [someUser] = await sql<{ user_id: number }[]>`SELECT user_id FROM admin.orders ORDER BY id DESC LIMIT 1`;
  const listUrl = `${base}/api/admin/orders?user_id=${someUser!.user_id}&page=1&page_size=20`;
  const list = () => requestsPerSecond({ url: listUrl, headers: auth, seconds: SECONDS, connections: 8 });
  const solo: number[] = [];
  const during: number[] = [];
  await list(); // warm-up
  for (let i = 0; i < ROUNDS; i++) {
    solo.push(await list());
    during.push((await runExport(list)).listed!);
  }
  const listRatio = median(during.map((d, i) => d / solo[i]!));
  console.log(`list: GET /orders (one user, first page) during an export vs alone: ${fmt(median(during), 1)} vs ${fmt(median(solo), 1)} per second; ratio ${fmt(listRatio, 3)} (target >= 0.8) ${listRatio >= 0.8 ? 'PASS' : 'BELOW TARGET'}`);
}

/** Alternates the two sides ROUNDS times and prints the medians and the median ratio. */
async function alternate(label: string, a: () => Promise<number>, b: () => Promise<number>, target: number, aim: string): Promise<number> {
  const as: number[] = [];
  const bs: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    bs.push(await b());
    as.push(await a());
  }
  const ratio = median(as.map((x, i) => x / bs[i]!));
  console.log(`${label}: ${fmt(median(as))} vs ${fmt(median(bs))} rows/s; ratio ${fmt(ratio, 3)} (target >= ${target}, ${aim}) ${ratio >= target ? 'PASS' : 'BELOW TARGET'}`);
  return ratio;
}

function reportMemory(what: string, growths: number[]) {
  const worst = Math.max(...growths) / MiB;
  console.log(`${what}: server peak RSS growth ${fmt(worst, 1)} MiB (target <= 100) ${worst <= 100 ? 'PASS' : 'ABOVE TARGET'}`);
}

/** Writes the CSV of ORDERS orders and the COPY text of the same orders and details; the detail count. */
async function writeData(csvFile: string, ordersFile: string, detailsFile: string): Promise<number> {
  const csv = createWriteStream(csvFile);
  const orders = createWriteStream(ordersFile);
  const dets = createWriteStream(detailsFile);
  const now = Date.now();
  const pad = (n: number) => String(n).padStart(2, '0');
  const display = (ms: number) => {
    const d = new Date(ms);
    return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  };
  const money = (cents: number) => `${Math.floor(cents / 100)}.${pad(cents % 100)}`;
  let details = 0;
  let c = '\uFEFForder_no,request_id,user_id,amount,status,paid_at,created_at,products\r\n';
  let o = '';
  let d = '';
  const flush = async () => {
    const writes = [[csv, c], [orders, o], [dets, d]] as const;
    c = o = d = '';
    for (const [stream, text] of writes) if (!stream.write(text)) await new Promise<void>((r) => stream.once('drain', () => r()));
  };
  for (let i = 1; i <= ORDERS; i++) {
    const n = 1 + (i % 3);
    const items: { product_id: number; product_name: string; price: string; quantity: number }[] = [];
    let total = 0;
    for (let j = 0; j < n; j++) {
      const cents = 100 + ((i * 7 + j * 13) % 9900);
      const quantity = 1 + ((i + j) % 3);
      total += cents * quantity;
      items.push({ product_id: 1 + ((i + j) % 5000), product_name: `Product ${(i + j) % 5000}`, price: money(cents), quantity });
    }
    const status = ['pending', 'paid', 'cancelled'][i % 3]!;
    const createdMs = now - 80 * 86_400_000 + Math.floor((i / ORDERS) * 79 * 86_400_000);
    const created = display(createdMs);
    const paid = status === 'paid' ? display(createdMs + 60_000) : '';
    const orderNo = `B${String(i).padStart(12, '0')}`;
    const userId = 1 + (i % 50_000);
    const json = JSON.stringify(items);
    c += `${orderNo},bench-${i},${userId},${money(total)},${status},${paid},${created},"${json.replaceAll('"', '""')}"\r\n`;
    o += `${i}\t${orderNo}\tbench-${i}\t${userId}\t${money(total)}\t${status}\t${paid ? `${paid}+00` : '\\N'}\t${created}+00\n`;
    for (const p of items) d += `${i}\t${p.product_id}\t${p.product_name}\t${p.price}\t${p.quantity}\n`;
    details += n;
    if (i % 5000 === 0) await flush();
  }
  await flush();
  await Promise.all([csv, orders, dets].map((s) => new Promise((r) => s.end(r))));
  return details;
}

/** Streams `file` as the multipart `file` part; the reply's data. */
function upload(url: string, token: string, file: string): Promise<any> {
  const boundary = `----bench${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="orders.csv"\r\nContent-Type: text/csv\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + statSync(file).size + tail.length),
      },
    }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (x: string) => (body += x));
      res.on('end', () => {
        try {
          const parsed = JSON.parse(body) as { code: number; data: unknown };
          if (parsed.code !== 200) reject(new Error(`import: ${body.slice(0, 500)}`));
          else resolve(parsed.data);
        } catch (err) {
          reject(err instanceof Error ? err : new Error(String(err)));
        }
      });
    });
    req.on('error', reject);
    req.write(head);
    const stream = createReadStream(file);
    stream.on('error', reject);
    stream.pipe(req, { end: false });
    stream.on('end', () => req.end(tail));
  });
}

async function json(url: string, init: RequestInit): Promise<any> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(60_000) });
  const body = (await res.json()) as { code: number };
  if (body.code !== 200) throw new Error(`${url}: ${JSON.stringify(body)}`);
  return body;
}

try {
  await run();
} finally {
  await cleanup();
}
