// POST /orders/export and GET /orders/export/status/{id}: an `orders` task on the shared export
// queue writes the orders CSV (COPY on PostgreSQL, keyset pages on PGlite); the file is
// downloaded from /exports/{id}/download. Formula injection is guarded reversibly, an exported
// file re-imports into an empty database as the same orders, filters and order follow the
// list, and a task abandoned by a crashed instance is run again.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { CsvRecordCounter, csvCell, csvUnguard } from '../../src/platform/jobs/csv.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { assertError, assertOk } from '../helpers/assert.ts';
import { call, login, seedAdmin, signedInAdmin } from '../helpers/http.ts';

const EXPORT = '/api/admin/orders/export';
const HEADER = ['order_no', 'request_id', 'user_id', 'amount', 'status', 'paid_at', 'created_at', 'products'];

let app: TestApp;
let token: string;

before(async () => {
  app = await startApp();
  token = await login(app);
});
after(() => app?.close());

const tag = () => randomBytes(4).toString('hex');
let userSeq = 700_000 + Math.floor(Math.random() * 100_000);

interface Seed {
  order_no: string;
  request_id: string;
  amount: string;
  status?: 'pending' | 'paid' | 'cancelled';
  paid_at?: string;
  created_at?: string;
  products: { product_id: number; product_name: string; price: string; quantity: number }[];
}

/** Inserts orders for one new user id (so that a `user_id` filter isolates them); returns it. */
async function seed(target: TestApp, orders: Seed[], userId = (userSeq += 1)): Promise<number> {
  for (const o of orders) {
    await target.platform.db.query(
      `WITH o AS (
         INSERT INTO admin.orders (order_no, request_id, user_id, amount, status, paid_at, created_at)
         VALUES ($1, $2, $3, $4::numeric, $5, $6::timestamptz, coalesce($7::timestamptz, now())) RETURNING id)
       INSERT INTO admin.order_details (order_id, product_id, product_name, price, quantity)
       SELECT o.id, (e.v->>'product_id')::bigint, e.v->>'product_name', (e.v->>'price')::numeric, (e.v->>'quantity')::int
       FROM o, jsonb_array_elements($8::jsonb) WITH ORDINALITY AS e(v, n)
       ORDER BY e.n`,
      [o.order_no, o.request_id, userId, o.amount, o.status ?? 'pending', o.paid_at ?? null, o.created_at ?? null, JSON.stringify(o.products)],
    );
  }
  return userId;
}

async function exportOf(query: string, t = token): Promise<any> {
  return assertOk(await call(app, 'POST', `${EXPORT}?${query}`, { token: t }));
}

async function waitFor(id: number, t = token): Promise<any> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const data = assertOk(await call(app, 'GET', `${EXPORT}/status/${id}`, { token: t }));
    if (data.status === 'completed' || data.status === 'failed') return data;
    if (Date.now() > deadline) throw new Error(`export ${id} still ${data.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function download(url: string, t = token): Promise<string> {
  const res = await app.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${t}` } });
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^text\/csv/);
  return res.body;
}

/** Export → completed → the file's records (header first). */
async function exportRecords(query: string): Promise<{ task: any; text: string; records: string[][] }> {
  const created = await exportOf(query);
  assert.equal(created.kind, 'orders');
  assert.equal(created.download_url, null);
  const task = await waitFor(created.id);
  assert.equal(task.status, 'completed', JSON.stringify(task));
  assert.equal(task.download_url, `/api/admin/exports/${created.id}/download`);
  const text = await download(task.download_url);
  const records: string[][] = parse(text, { bom: true });
  return { task, text, records };
}

/** The orders of a user as comparable rows (display times in UTC). */
async function ordersOf(target: TestApp, userId: number) {
  return target.platform.db.query(
    `SELECT o.order_no, o.request_id, o.user_id, o.amount::text AS amount, o.status,
            to_char(o.paid_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS paid_at,
            to_char(o.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS created_at,
            (SELECT json_agg(json_build_object('id', d.product_id, 'name', d.product_name, 'price', d.price::text, 'q', d.quantity) ORDER BY d.id)::text
               FROM admin.order_details d WHERE d.order_id = o.id) AS products
     FROM admin.orders o WHERE o.user_id = $1 ORDER BY o.order_no`,
    [userId],
  );
}

const product = (product_id: number, product_name: string, price: string, quantity: number) => ({ product_id, product_name, price, quantity });
const recent = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();

describe('CSV guard and record counting', () => {
  test('the formula guard is reversible, also for text that starts with quotes', () => {
    for (const text of ['=1+2', '+33', '-5', '@A1', '\tx', '\rx', "'=x", "''-y", "'plain", 'plain', '', "'"]) {
      const cell = csvCell(text);
      const read = cell.startsWith('"') ? cell.slice(1, -1).replaceAll('""', '"') : cell;
      assert.equal(csvUnguard(read), text, JSON.stringify(text));
    }
    assert.equal(csvCell("'=x"), "''=x");
    assert.equal(csvCell("'plain"), "'plain");
  });

  test('CsvRecordCounter counts records across chunks and ends each with CRLF', async () => {
    const counter = new CsvRecordCounter();
    const out: Buffer[] = [];
    counter.on('data', (b: Buffer) => out.push(b));
    const input = 'a,"multi\nline",b\nc,"x""\n",d\r\ne,f,g';
    for (let i = 0; i < input.length; i += 3) counter.write(Buffer.from(input.slice(i, i + 3)));
    counter.end();
    await new Promise((r) => counter.on('end', r));
    assert.equal(counter.records, 3);
    assert.equal(Buffer.concat(out).toString(), 'a,"multi\nline",b\r\nc,"x""\n",d\r\ne,f,g\r\n');
  });
});

describe('COPY out (the export mechanism)', () => {
  test('a COPY read slowly to its end, or stopped early, leaves the database usable', { timeout: 30_000 }, async () => {
    const db = app.platform.db;
    const slowly = async (select: string, stopAfter = Infinity) => {
      let bytes = 0;
      for await (const chunk of db.copyOut(select)) {
        bytes += chunk.length;
        if (bytes > stopAfter) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      return bytes;
    };
    // The reader is slower than the server, so the stream's buffer fills up, at the end too;
    // each COPY must still leave its connection able to run the next one.
    for (let rows = 500; rows <= 3000; rows += 250) {
      assert.equal(await slowly(`SELECT g, repeat('x', 96) FROM generate_series(1000, ${999 + rows}) g`), rows * 102);
    }
    assert.ok((await slowly(`SELECT g, repeat('x', 100) FROM generate_series(1, 1000000) g`, 1_000_000)) > 1_000_000);
    const out: Buffer[] = [];
    for await (const chunk of db.copyOut('SELECT $1::int AS n, $2::text AS t', [7, "it's 100%"])) out.push(chunk);
    assert.equal(Buffer.concat(out).toString(), "7,it's 100%\n");
  });
});

describe('POST /orders/export', () => {
  test('writes the filtered orders as CSV with formula injection guarded; numbers stay numbers', async () => {
    const t = tag();
    const userId = await seed(app, [
      { order_no: `-${t}1`, request_id: `=HYPERLINK("http://x")${t}`, amount: '25.10', status: 'paid', paid_at: '2026-01-02T03:04:05Z', created_at: recent(10),
        products: [product(1, '=cmd|calc', '12.50', 2), product(2, 'Cup, "blue"\nline 2', '0.10', 1)] },
      { order_no: `A${t}2`, request_id: `'@${t}`, amount: '0.00', products: [product(3, '@free', '0', 1)], created_at: recent(20) },
      { order_no: `A${t}3`, request_id: `+${t}`, amount: '9999999999.99', status: 'cancelled', products: [product(4, '中文', '9999999999.99', 1)], created_at: recent(30) },
    ]);
    await seed(app, [{ order_no: `B${t}`, request_id: `other-${t}`, amount: '1.00', products: [product(1, 'x', '1', 1)] }]);
    const { task, text, records } = await exportRecords(`user_id=${userId}&order_by=amount:asc`);
    assert.ok(text.startsWith('\uFEFF'));
    assert.ok(text.endsWith('\r\n'));
    assert.doesNotMatch(text.replace(/"[^"]*"/g, ''), /[^\r]\n/, 'records end with CRLF');
    assert.equal(task.rows_written, 3);
    assert.deepEqual(records[0], HEADER);
    assert.deepEqual(records.slice(1).map((r) => r.slice(0, 5)), [
      [`A${t}2`, `''@${t}`, String(userId), '0.00', 'pending'],
      [`'-${t}1`, `'=HYPERLINK("http://x")${t}`, String(userId), '25.10', 'paid'],
      [`A${t}3`, `'+${t}`, String(userId), '9999999999.99', 'cancelled'],
    ]);
    const paid = records[2]!;
    assert.equal(paid[5], '2026-01-02 03:04:05');
    assert.match(paid[6]!, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    assert.deepEqual(JSON.parse(paid[7]!), [
      { product_id: 1, product_name: '=cmd|calc', price: 12.5, quantity: 2 },
      { product_id: 2, product_name: 'Cup, "blue"\nline 2', price: 0.1, quantity: 1 },
    ]);
    assert.ok(records.slice(1).every((r) => r[7]!.startsWith('[')), 'the products cell never starts like a formula');
    assert.equal(records[1]![5], '', 'no paid_at');
  });

  test('an exported file re-imports into an empty database as the same orders', async () => {
    const t = tag();
    const orders: Seed[] = [];
    for (let i = 0; i < 25; i++) {
      orders.push({
        order_no: `${i % 3 === 0 ? '-' : 'R'}${t}${i}`,
        request_id: [`=r${t}${i}`, `'+r${t}${i}`, `r${t}${i}`, `@r${t}${i}`][i % 4]!,
        amount: (12.34 * (i + 1) + 0.5 * 3).toFixed(2),
        status: (['pending', 'paid', 'cancelled'] as const)[i % 3],
        ...(i % 3 === 1 ? { paid_at: recent(i) } : {}),
        created_at: recent(100 + i * 7),
        products: [product(i + 1, `Item ${i}, "${t}"\n=x`, (12.34 * (i + 1)).toFixed(2), 1), product(99, '-minus', '0.50', 3)],
      });
    }
    const userId = await seed(app, orders);
    const { records, text } = await exportRecords(`user_id=${userId}`);
    assert.equal(records.length, 26);

    const empty = await startApp();
    try {
      const boundary = `----x${t}`;
      const payload = Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="orders.csv"\r\nContent-Type: text/csv\r\n\r\n`),
        Buffer.from(text),
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      const summary = assertOk(await call(empty, 'POST', '/api/admin/orders/import', {
        token: await login(empty), payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      }));
      const { id, ...counts } = summary;
      assert.ok(Number.isInteger(id) && id > 0);
      assert.deepEqual(counts, { total: 25, succeeded: 25, failed: 0, duplicates: 0, errors: [], errors_truncated: false, rejected_url: null });
      const [{ n } = { n: 0 }] = await empty.platform.db.query<{ n: number }>('SELECT count(*)::int AS n FROM admin.orders');
      assert.equal(n, 25, 'nothing else in the new database');
      assert.deepEqual(await ordersOf(empty, userId), await ordersOf(app, userId));
    } finally {
      await empty.close();
    }
  });

  test('filters, the default 3-month window and the list order', async () => {
    const t = tag();
    const userId = await seed(app, [
      { order_no: `F${t}a`, request_id: `fa${t}`, amount: '5.00', status: 'paid', paid_at: recent(1), created_at: recent(60), products: [product(1, 'a', '5', 1)] },
      { order_no: `F${t}b`, request_id: `fb${t}`, amount: '15.00', created_at: recent(50), products: [product(1, 'b', '15', 1)] },
      { order_no: `F${t}c`, request_id: `fc${t}`, amount: '25.00', created_at: recent(40), products: [product(1, 'c', '25', 1)] },
      { order_no: `F${t}old`, request_id: `fo${t}`, amount: '35.00', created_at: recent(60 * 24 * 100), products: [product(1, 'old', '35', 1)] },
    ]);
    const requestIds = async (query: string) => (await exportRecords(`user_id=${userId}&${query}`)).records.slice(1).map((r) => r[1]);
    assert.deepEqual(await requestIds('order_by=id:asc'), [`fa${t}`, `fb${t}`, `fc${t}`], 'older than 3 months: left out');
    assert.deepEqual(await requestIds('status=pending&order_by=amount:desc'), [`fc${t}`, `fb${t}`]);
    assert.deepEqual(await requestIds('min_amount=10&max_amount=20'), [`fb${t}`]);
    assert.deepEqual(await requestIds(`order_no=${t}C`), [`fc${t}`], 'fuzzy, case-insensitive');
    assert.deepEqual(await requestIds('order_by=paid_at:desc'), [`fa${t}`, `fc${t}`, `fb${t}`], 'unpaid last, then by id');
    const start = new Date(Date.now() - 60 * 24 * 101 * 60_000).toISOString().slice(0, 10);
    assert.deepEqual(await requestIds(`start_time=${start}%2000:00:00&order_by=id:asc`), [`fo${t}`], '3 months from start_time');
  });

  test('bad filters are 400 30001; a body is refused; needs order.export', async () => {
    for (const query of [
      'start_time=2026-01-01%2000:00:00&end_time=2026-05-01%2000:00:00', 'start_time=2026-02-30%2000:00:00',
      'status=shipped', 'order_by=password:asc', 'min_amount=20&max_amount=10', 'user_id=abc', 'min_amount=-1',
    ]) {
      assertError(await call(app, 'POST', `${EXPORT}?${query}`, { token }), 400, 30001);
    }
    assertError(await call(app, 'POST', EXPORT, { token, body: { status: 'paid' } }), 400, 30001);
    assertOk(await call(app, 'POST', EXPORT, { token, body: {} }));
    const a = await seedAdmin(app, { permissions: ['order.list'] });
    assertError(await call(app, 'POST', EXPORT, { token: await login(app, a.username, a.password) }), 403, 20001);
  });

  test('many orders with equal sort keys come out complete and in order (keyset pages on PGlite)', async () => {
    const userId = (userSeq += 1);
    const n = 12_003;
    await app.platform.db.transaction(async (tx) => {
      await tx.script(`
        WITH o AS (
          INSERT INTO admin.orders (order_no, request_id, user_id, amount, created_at)
          SELECT 'K${userId}-' || g, 'k${userId}-' || g, ${userId}, (g % 7)::numeric, now() - make_interval(secs => g % 5)
          FROM generate_series(1, ${n}) g RETURNING id, amount)
        INSERT INTO admin.order_details (order_id, product_id, product_name, price, quantity) SELECT id, 1, 'p', amount, 1 FROM o;`);
    });
    const { task, records } = await exportRecords(`user_id=${userId}&order_by=amount:desc`);
    assert.equal(task.rows_written, n);
    const expected = await app.platform.db.query<{ request_id: string }>(
      'SELECT request_id FROM admin.orders WHERE user_id = $1 ORDER BY amount DESC, id DESC', [userId],
    );
    assert.deepEqual(records.slice(1).map((r) => r[1]), expected.map((r) => r.request_id));
  });
});

describe('GET /orders/export/status/{id}', () => {
  test('the creator and export.manage holders see it; others 403; other kinds and unknown ids 404', async () => {
    const { token: ownerToken } = await signedInAdmin(app, { permissions: ['order.export'] });
    const created = await exportOf(`user_id=${(userSeq += 1)}`, ownerToken);
    const done = await waitFor(created.id, ownerToken);
    assert.equal(done.status, 'completed');
    assert.equal(done.rows_written, 0);
    assert.equal(await download(done.download_url, ownerToken), `\uFEFF${HEADER.join(',')}\r\n`);

    const { token: strangerToken } = await signedInAdmin(app, { permissions: ['order.export'] });
    assertError(await call(app, 'GET', `${EXPORT}/status/${created.id}`, { token: strangerToken }), 403, 20001);
    assertError(await call(app, 'GET', done.download_url, { token: strangerToken }), 403, 20001);
    const manager = await seedAdmin(app, { permissions: ['export.manage'] });
    assert.equal(assertOk(await call(app, 'GET', `${EXPORT}/status/${created.id}`, { token: await login(app, manager.username, manager.password) })).id, created.id);

    const admins = assertOk(await call(app, 'POST', '/api/admin/admins/export', { token, body: {} }));
    assertError(await call(app, 'GET', `${EXPORT}/status/${admins.id}`, { token }), 404, 30003);
    assertError(await call(app, 'GET', `${EXPORT}/status/987654321`, { token }), 404, 30003);
    assertError(await call(app, 'GET', `${EXPORT}/status/abc`, { token }), 400, 30001);
  });

  test('a task left processing by a crashed instance is run again', async () => {
    const t = tag();
    const userId = await seed(app, [{ order_no: `C${t}`, request_id: `c${t}`, amount: '1.00', products: [product(1, 'x', '1', 1)] }]);
    const params = { user_id: userId, order_by: 'id:desc', requested_at: new Date().toISOString() };
    const [row] = await app.platform.db.query<{ id: number }>(
      `INSERT INTO admin.export_tasks (kind, params, owner_id, status, attempts, locked_by, started_at, heartbeat_at)
       SELECT 'orders', $1::jsonb, id, 'processing', 1, 'crashed-instance', now() - interval '10 minutes', now() - interval '10 minutes'
       FROM admin.admins WHERE username = 'admin' RETURNING id`,
      [JSON.stringify(params)],
    );
    const done = await waitFor(Number(row!.id));
    assert.equal(done.status, 'completed');
    assert.equal(done.rows_written, 1);
    assert.match(await download(done.download_url), new RegExp(`\r\nC${t},c${t},`));
  });
});
