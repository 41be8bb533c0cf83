// POST /orders/import: a multipart CSV streamed into orders in transactional batches (two
// rows per batch here), row errors with their row numbers, duplicates inside the file and
// against the database, idempotent re-runs, an import that fails half-way, the size limit and
// the 400/413/415 refusals. GET /orders/import/{id}/rejected: every refused row as sent, with
// its reason in the reader's language, in a file that imports again once fixed; only for the
// administrator who ran the import; purged after ORDER_IMPORT_KEEP_HOURS.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { onPostgres, startApp, within, type TestApp } from '../helpers/app.ts';
import { assertError, assertOk } from '../helpers/assert.ts';
import { call, login, seedAdmin, signedInAdmin, type Reply } from '../helpers/http.ts';
import { OrderImports } from '../../src/admin/features/orders/orders.rejects.ts';

const URL = '/api/admin/orders/import';
const HEADER = 'order_no,request_id,user_id,amount,status,paid_at,created_at,products';
const MAX_BYTES = 4096;

let app: TestApp;
let token: string;

before(async () => {
  app = await startApp({ ORDER_IMPORT_BATCH_ROWS: '2', ORDER_IMPORT_MAX_BYTES: String(MAX_BYTES) });
  token = await login(app);
});
after(() => app?.close());

const db = () => app.platform.db;
const tag = () => randomBytes(4).toString('hex');

/** A multipart/form-data body with one part (a file unless `filename` is null). */
function form(content: string | Buffer, o: { field?: string; filename?: string | null; type?: string } = {}) {
  const boundary = `----form${tag()}`;
  const disposition = `form-data; name="${o.field ?? 'file'}"${o.filename === null ? '' : `; filename="${o.filename ?? 'orders.csv'}"`}`;
  const head = `--${boundary}\r\nContent-Disposition: ${disposition}\r\nContent-Type: ${o.type ?? 'text/csv'}\r\n\r\n`;
  return {
    payload: Buffer.concat([Buffer.from(head), Buffer.from(content), Buffer.from(`\r\n--${boundary}--\r\n`)]),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

const upload = (content: string | Buffer, t = token, o: Parameters<typeof form>[1] = {}): Promise<Reply> =>
  call(app, 'POST', URL, { token: t, ...form(content, o) });

const products = (...items: [number, string, string, number][]) =>
  JSON.stringify(items.map(([product_id, product_name, price, quantity]) => ({ product_id, product_name, price, quantity })));
/** One CSV cell, quoted. */
const q = (s: string) => `"${s.replaceAll('"', '""')}"`;
/** A valid row of the full header: 2 × 12.50 + 1 × 0.10 = 25.10. */
const row = (requestId: string, extra: Partial<Record<'order_no' | 'user_id' | 'amount' | 'status' | 'paid_at' | 'created_at' | 'products', string>> = {}) =>
  [
    extra.order_no ?? '',
    requestId,
    extra.user_id ?? '7',
    extra.amount ?? '25.10',
    extra.status ?? '',
    extra.paid_at ?? '',
    extra.created_at ?? '',
    q(extra.products ?? products([1, 'Tea, green', '12.50', 2], [2, 'Cup', '0.10', 1])),
  ].join(',');
const csv = (...rows: string[]) => `${[HEADER, ...rows].join('\r\n')}\r\n`;

/** A reply's summary without its import id (checked to be one). */
function counts(summary: { id: number }) {
  const { id, ...rest } = summary;
  assert.ok(Number.isInteger(id) && id > 0, `import id ${id}`);
  return rest;
}

async function ordersOf(prefix: string) {
  return db().query<{ order_no: string; request_id: string; user_id: number; amount: string; status: string; paid_at: string | null; created_at: string; products: string }>(
    `SELECT o.order_no, o.request_id, o.user_id, o.amount::text AS amount, o.status,
            to_char(o.paid_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS paid_at,
            to_char(o.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS created_at,
            (SELECT string_agg(d.product_id || ':' || d.product_name || ':' || d.price || 'x' || d.quantity, '|' ORDER BY d.id)
               FROM admin.order_details d WHERE d.order_id = o.id) AS products
     FROM admin.orders o WHERE o.request_id LIKE $1 ORDER BY o.id`,
    [`${prefix}%`],
  );
}

describe('GET /orders/import/sample', () => {
  test('downloads a sample CSV (the header and an example row) that the import accepts as it is', async () => {
    const res = await app.app.inject({ method: 'GET', url: '/api/admin/orders/import/sample', headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^text\/csv; charset=utf-8/);
    assert.match(String(res.headers['content-disposition']), /^attachment; filename="orders-import-sample\.csv"$/);
    const file = res.rawPayload;
    assert.equal(file.subarray(0, 3).toString('hex'), 'efbbbf', 'UTF-8 with a byte-order mark');
    const lines = file.subarray(3).toString('utf8').split('\r\n');
    assert.equal(lines[0], HEADER);
    assert.equal(lines.filter((l) => l !== '').length, 2, 'the header and one example row');
    const imported = assertOk(await upload(file));
    assert.deepEqual(counts(imported), { total: 1, succeeded: 1, failed: 0, duplicates: 0, errors: [], errors_truncated: false, rejected_url: null });
    const [order] = await ordersOf('sample-order-0001');
    assert.deepEqual([order!.user_id, order!.amount, order!.status, order!.products], [1001, '37.50', 'pending', '7:Green tea:12.50x2|9:Teacup:12.50x1']);
    // The same file again: its order exists already.
    assert.equal(assertOk(await upload(file)).duplicates, 1);
  });

  test('needs order.import', async () => {
    const { token: reader } = await signedInAdmin(app, { permissions: ['order.list'] });
    assertError(await call(app, 'GET', '/api/admin/orders/import/sample', { token: reader }), 403, 20001);
  });
});

describe('POST /orders/import', () => {
  test('creates the orders of valid rows with their products, in file order', async () => {
    const t = tag();
    const file = csv(
      row(`${t}-1`, { order_no: `ORD-${t}-1`, created_at: '2026-01-02 03:04:05' }),
      row(`${t}-2`, { status: 'paid', paid_at: '2026-01-03 10:00:00', created_at: '2026-01-02 09:00:00' }),
      row(`${t}-3`, { status: 'cancelled', user_id: '9', amount: '3', products: products([5, '中文 "quoted"\nline', '1.5', 2]) }),
    );
    const data = assertOk(await upload(file));
    assert.deepEqual(counts(data), { total: 3, succeeded: 3, failed: 0, duplicates: 0, errors: [], errors_truncated: false, rejected_url: null });
    const rows = await ordersOf(t);
    assert.deepEqual(rows.map((r) => r.request_id), [`${t}-1`, `${t}-2`, `${t}-3`]);
    assert.equal(rows[0]!.order_no, `ORD-${t}-1`);
    assert.match(rows[1]!.order_no, /^\d{27}$/, 'generated order number');
    assert.deepEqual(
      rows.map((r) => [r.user_id, r.amount, r.status, r.paid_at, r.products]),
      [
        [7, '25.10', 'pending', null, '1:Tea, green:12.50x2|2:Cup:0.10x1'],
        [7, '25.10', 'paid', '2026-01-03 10:00:00', '1:Tea, green:12.50x2|2:Cup:0.10x1'],
        [9, '3.00', 'cancelled', null, '5:中文 "quoted"\nline:1.50x2'],
      ],
    );
    assert.equal(rows[0]!.created_at, '2026-01-02 03:04:05');
    assert.equal(rows[1]!.created_at, '2026-01-02 09:00:00');
    // Created by the importer, in the importer's department (data scopes).
    const [made] = await db().query<{ by: number; dept: number | null; admin_dept: number | null }>(
      `SELECT o.created_by AS by, o.department_id AS dept, a.department_id AS admin_dept FROM admin.orders o JOIN admin.admins a ON a.username = 'admin'
       WHERE o.request_id = $1 AND o.created_by = a.id`, [`${t}-1`]);
    assert.ok(made, 'created by the importer');
    assert.equal(made.dept, made.admin_dept);
    // The importer is told, also on their other tabs and devices.
    const notes = assertOk(await call(app, 'GET', '/api/admin/notifications?page_size=1', { token }));
    assert.equal(notes.list[0].title, 'Order import finished');
    assert.equal(notes.list[0].content, '3 rows read: 3 orders imported, 0 failed (0 duplicates).');
  });

  test('reports each bad row with its row number and reason, and imports the others', async () => {
    const t = tag();
    await db().query(
      `WITH o AS (INSERT INTO admin.orders (order_no, request_id, user_id, amount) VALUES ($1, $2, 1, 1) RETURNING id)
       INSERT INTO admin.order_details (order_id, product_id, product_name, price, quantity) SELECT id, 1, 'x', 1, 1 FROM o`,
      [`EXIST-${t}`, `${t}-existing`],
    );
    const file = csv(
      row(`${t}-ok1`), // row 2
      row(`${t}-sum`, { amount: '25.00' }), // 3: amount ≠ Σ
      row(`${t}-uid`, { user_id: 'abc' }), // 4
      row(`${t}-json`, { products: '[{"product_id":1,' }), // 5
      row('', {}), // 6: no request_id
      `,${t}-short,7,25.10`, // 7: too few cells
      row(`${t}-paid`, { paid_at: '2026-01-01 00:00:00' }), // 8: paid_at on a pending order
      row(`${t}-st`, { status: 'shipped' }), // 9
      row(`${t}-time`, { created_at: '2026-02-30 00:00:00' }), // 10
      row(`${t}-ok1`), // 11: duplicate in the file (different batch)
      row(`${t}-existing`), // 12: exists in the database
      row(`${t}-ok2`), // 13
      row(`${t}-ok2`), // 14: duplicate in the same batch
      row(`${t}-no`, { order_no: `EXIST-${t}` }), // 15: order number taken
      row(`${t}-bad-no`, { order_no: 'has space' }), // 16
    );
    const data = assertOk(await upload(file));
    assert.equal(data.total, 15);
    assert.equal(data.succeeded, 2);
    assert.equal(data.failed, 13);
    assert.equal(data.duplicates, 3);
    assert.equal(data.errors_truncated, false);
    const byRow = Object.fromEntries(data.errors.map((e: any) => [e.row, e]));
    assert.deepEqual(data.errors.map((e: any) => e.row), [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 15, 16]);
    assert.match(byRow[3].reason, /amount 25\.00 does not equal the sum of price × quantity \(25\.10\)/);
    assert.equal(byRow[3].request_id, `${t}-sum`);
    assert.match(byRow[4].reason, /user_id must be a positive integer/);
    assert.match(byRow[5].reason, /products must be a JSON array/);
    assert.match(byRow[6].reason, /request_id is required/);
    assert.equal(byRow[6].request_id, null);
    assert.match(byRow[7].reason, /expected 8 cells, found 4/);
    assert.match(byRow[8].reason, /paid_at is only for paid orders/);
    assert.match(byRow[9].reason, /status must be one of pending, paid, cancelled/);
    assert.match(byRow[10].reason, /created_at must be a time/);
    assert.match(byRow[11].reason, /duplicate request_id/);
    assert.match(byRow[12].reason, new RegExp(`duplicate request_id: order EXIST-${t} has it already`));
    assert.match(byRow[14].reason, /duplicate request_id: order \d{27} has it already/);
    assert.match(byRow[15].reason, new RegExp(`order_no EXIST-${t} exists already`));
    assert.match(byRow[16].reason, /order_no must be/);
    assert.deepEqual((await ordersOf(t)).map((r) => r.request_id).sort(), [`${t}-existing`, `${t}-ok1`, `${t}-ok2`]);
  });

  test('a row refused as a duplicate of an earlier row in its batch adds none of its products', async () => {
    const t = tag();
    await db().query(
      `WITH o AS (INSERT INTO admin.orders (order_no, request_id, user_id, amount) VALUES ($1, $2, 1, 1) RETURNING id)
       INSERT INTO admin.order_details (order_id, product_id, product_name, price, quantity) SELECT id, 1, 'x', 1, 1 FROM o`,
      [`TAKEN-${t}`, `${t}-other`],
    );
    const file = csv(
      row(`${t}-a`, { amount: '2.00', products: products([1, 'First', '1.00', 2]) }), // row 2: imported
      row(`${t}-a`, { amount: '9.00', products: products([2, 'Second', '3.00', 3]) }), // 3: same batch, duplicate
      // 4 (next batch): its order number is taken, so the next row with the same request_id is the one imported
      row(`${t}-b`, { order_no: `TAKEN-${t}`, amount: '1.00', products: products([3, 'Third', '1.00', 1]) }),
      row(`${t}-b`, { amount: '4.00', products: products([4, 'Fourth', '2.00', 2]) }), // 5
    );
    const data = assertOk(await upload(file));
    assert.deepEqual([data.total, data.succeeded, data.duplicates], [4, 2, 1]);
    assert.deepEqual(data.errors.map((e: any) => e.row), [3, 4]);
    assert.match(data.errors[0].reason, /duplicate request_id/);
    assert.match(data.errors[1].reason, new RegExp(`order_no TAKEN-${t} exists already`));
    const orders = await ordersOf(`${t}-`);
    assert.deepEqual(orders.filter((o) => o.request_id !== `${t}-other`).map((o) => [o.request_id, o.amount, o.products]).sort(), [
      [`${t}-a`, '2.00', '1:First:1.00x2'],
      [`${t}-b`, '4.00', '4:Fourth:2.00x2'],
    ]);
    const [{ n }] = await db().query<{ n: number }>(
      `SELECT count(*)::int AS n FROM admin.order_details d JOIN admin.orders o ON o.id = d.order_id WHERE o.request_id LIKE $1`,
      [`${t}-%`],
    ) as [{ n: number }];
    assert.equal(n, 3, 'the two imported orders with their own products, and the existing one');
  });

  test('running the same file again creates nothing and reports every row as a duplicate', async () => {
    const t = tag();
    const file = csv(...Array.from({ length: 5 }, (_, i) => row(`${t}-${i}`)));
    assert.equal(assertOk(await upload(file)).succeeded, 5);
    const again = assertOk(await upload(file));
    assert.deepEqual([again.total, again.succeeded, again.failed, again.duplicates], [5, 0, 5, 5]);
    assert.equal((await ordersOf(t)).length, 5);
  });

  test('concurrent imports of the same file create each order once', async () => {
    const t = tag();
    const file = csv(...Array.from({ length: 6 }, (_, i) => row(`${t}-${i}`)));
    const results = (await Promise.all([upload(file), upload(file), upload(file)])).map(assertOk);
    assert.equal(results.reduce((n, r) => n + r.succeeded, 0), 6);
    assert.equal(results.reduce((n, r) => n + r.duplicates, 0), 12);
    assert.equal((await ordersOf(t)).length, 6);
  });

  test('an order committed by someone else while a batch is being written is reported, not doubled', { skip: !onPostgres && 'needs concurrent transactions (PostgreSQL)' }, async () => {
    const t = tag();
    const file = csv(row(`${t}-0`), row(`${t}-1`), row(`${t}-2`));
    let importing: Promise<Reply> | undefined;
    await db().transaction(async (tx) => {
      await tx.query(
        `WITH o AS (INSERT INTO admin.orders (order_no, request_id, user_id, amount) VALUES ($1, $2, 1, 1) RETURNING id)
         INSERT INTO admin.order_details (order_id, product_id, product_name, price, quantity) SELECT id, 1, 'x', 1, 1 FROM o`,
        [`RACE-${t}`, `${t}-1`],
      );
      // The import does not see this uncommitted order when it checks; its COPY then waits on it.
      importing = upload(file);
      const blocked = await within(10_000, async () => {
        const [w] = await db().query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        return w!.n > 0 ? true : undefined;
      });
      assert.ok(blocked, 'the import waits for this transaction');
    });
    const data = assertOk(await importing!);
    assert.deepEqual([data.total, data.succeeded, data.duplicates], [3, 2, 1]);
    assert.match(data.errors[0].reason, new RegExp(`order RACE-${t} has it already`));
    const rows = (await ordersOf(t)).map((r) => [r.request_id, r.order_no.startsWith('RACE') ? 'race' : 'import']);
    assert.deepEqual(rows.sort(), [[`${t}-0`, 'import'], [`${t}-1`, 'race'], [`${t}-2`, 'import']]);
  });

  test('a failure half-way keeps the batches written before it; a re-run adds exactly the rest', async () => {
    const t = tag();
    // The database refuses one order of the third batch (rows 6-7), as a full disk or a lost connection would.
    await db().transaction(async (tx) => {
      await tx.script(`
        CREATE FUNCTION admin.test_import_fault() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.request_id = '${t}-5' THEN RAISE EXCEPTION 'simulated failure'; END IF;
          RETURN NEW;
        END $$;
        CREATE TRIGGER test_import_fault BEFORE INSERT ON admin.orders FOR EACH ROW EXECUTE FUNCTION admin.test_import_fault();`);
    });
    const file = csv(...Array.from({ length: 9 }, (_, i) => row(`${t}-${i}`)));
    try {
      const res = await upload(file);
      assertError(res, 500, 50002);
      assert.match(res.body.message, /stopped after row 5/);
      assert.match(res.body.message, /4 order\(s\) imported/);
      assert.doesNotMatch(res.body.message, /simulated failure/, 'the database error stays in the logs');
    } finally {
      await db().transaction(async (tx) => {
        await tx.script('DROP TRIGGER test_import_fault ON admin.orders; DROP FUNCTION admin.test_import_fault();');
      });
    }
    // Batches 1-2 (rows 2-5) are kept, the failed batch (rows 6-7) left nothing, nothing after it ran.
    assert.deepEqual((await ordersOf(t)).map((r) => r.request_id), [0, 1, 2, 3].map((i) => `${t}-${i}`));
    const [{ orphans } = { orphans: -1 }] = await db().query<{ orphans: number }>(
      `SELECT count(*)::int AS orphans FROM admin.orders o WHERE NOT EXISTS (SELECT 1 FROM admin.order_details d WHERE d.order_id = o.id)`,
    );
    assert.equal(orphans, 0);

    const rerun = assertOk(await upload(file));
    assert.deepEqual([rerun.total, rerun.succeeded, rerun.duplicates], [9, 5, 4]);
    assert.deepEqual((await ordersOf(t)).map((r) => r.request_id), Array.from({ length: 9 }, (_, i) => `${t}-${i}`));
  });

  test('an upload cut off half-way keeps the batches read before the cut; a re-run completes it', async () => {
    const t = tag();
    const file = csv(...Array.from({ length: 7 }, (_, i) => row(`${t}-${i}`)));
    const { payload, headers } = form(file);
    const cut = payload.indexOf(`${t}-5`);
    // The client sends rows 2-6 and the start of row 7, then the connection fails.
    const body = new Readable({
      read() {
        this.push(payload.subarray(0, cut));
        setTimeout(() => this.destroy(new Error('connection reset')), 100);
        this.read = () => {};
      },
    });
    await app.app.inject({ method: 'POST', url: URL, headers: { ...headers, authorization: `Bearer ${token}` }, payload: body }).catch(() => undefined);
    // What was written is whole batches from the start (how many depends on how far the server got
    // before the error reached it); rows 6-7 were never complete and cannot be there.
    const kept = (await ordersOf(t)).map((r) => r.request_id);
    assert.ok(kept.length % 2 === 0 && kept.length <= 4, kept.join());
    assert.deepEqual(kept, Array.from({ length: kept.length }, (_, i) => `${t}-${i}`));
    const rerun = assertOk(await upload(file));
    assert.equal(rerun.succeeded + rerun.duplicates, 7);
    assert.equal(rerun.duplicates % 2, 0);
    const rows = await ordersOf(t);
    assert.deepEqual(rows.map((r) => r.request_id).sort(), Array.from({ length: 7 }, (_, i) => `${t}-${i}`).sort());
    assert.ok(rows.every((r) => r.products === '1:Tea, green:12.50x2|2:Cup:0.10x1'));
  });

  test('a file over ORDER_IMPORT_MAX_BYTES is 413; the batches before the cut stay', async () => {
    const t = tag();
    const rows: string[] = [];
    for (let i = 0; csv(...rows).length <= MAX_BYTES + 500; i++) rows.push(row(`${t}-${i}`));
    const res = await upload(csv(...rows));
    assertError(res, 413, 30005);
    assert.match(res.body.message, /larger than the import limit/);
    const kept = await ordersOf(t);
    assert.ok(kept.length > 0 && kept.length < rows.length, `${kept.length} of ${rows.length}`);
    assert.equal(kept.length % 2, 0, 'whole batches only');
    // Announced as larger than the limit: refused before reading.
    const big = await upload(Buffer.alloc(MAX_BYTES + 70 * 1024, 'a'));
    assertError(big, 413, 30005);
  });

  test('refusals before anything is written', async () => {
    const t = tag();
    const json = await call(app, 'POST', URL, { token, body: { file: 'x' } });
    assertError(json, 415, 30006);
    assert.match(json.body.message, /multipart\/form-data/);
    assertError(await call(app, 'POST', URL, { token, payload: csv(row(`${t}-a`)), headers: { 'content-type': 'text/csv' } }), 415, 30006);
    assertError(await call(app, 'POST', URL, { token }), 415, 30006);

    const empty = await upload('');
    assertError(empty, 400, 30001);
    assert.match(empty.body.message, /the file is empty/);
    assertError(await upload('\uFEFF\r\n\r\n'), 400, 30001);
    const unknown = await upload(`${HEADER},discount\r\n${row(`${t}-b`)},1\r\n`);
    assertError(unknown, 400, 30001);
    assert.match(unknown.body.message, /unknown column\(s\) "discount"/);
    const missing = await upload('order_no,user_id,amount,products\r\n');
    assertError(missing, 400, 30001);
    assert.match(missing.body.message, /missing column\(s\) request_id/);
    assertError(await upload(`${HEADER},amount\r\n`), 400, 30001);
    const twice = await upload(`${HEADER},error,Error\r\n`);
    assertError(twice, 400, 30001);
    assert.match(twice.body.message, /column\(s\) "error" appear more than once/);
    const binary = await upload(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00, 0x08, 0x00, 0x00, 0x00, 0x21, 0x00]));
    assertError(binary, 400, 30004);
    assert.match(binary.body.message, /not CSV/);
    assertError(await upload(csv(row(`${t}-c`)), token, { field: 'csv' }), 400, 30001);
    assertError(await upload('x', token, { field: 'note', filename: null }), 400, 30001);
    const none = await call(app, 'POST', URL, { token, payload: '--b--\r\n', headers: { 'content-type': 'multipart/form-data; boundary=b' } });
    assertError(none, 400, 30001);
    assert.match(none.body.message, /"file" part with the CSV is required/);
    assert.equal((await ordersOf(t)).length, 0);
  });

  test('a CSV syntax error stops the import with 400, naming the line', async () => {
    const t = tag();
    const res = await upload(csv(row(`${t}-0`), row(`${t}-1`), `,${t}-2,7,25.10,,,,"[]"x`, row(`${t}-3`)));
    assertError(res, 400, 30004);
    assert.match(res.body.message, /not valid CSV at line 4 \(Invalid Closing Quote\)/);
    // The rows parsed with the error (here the whole file, one chunk) are not written.
    assert.match(res.body.message, /0 order\(s\) imported/);
    assert.equal((await ordersOf(t)).length, 0);
  });

  test('accepts the columns in any order, a BOM, LF line ends, guarded text cells and an empty data set', async () => {
    const t = tag();
    const file = `\uFEFFproducts,amount,user_id,request_id\n${q(products([3, '=SUM(A1)', '2.00', 1]))},2,5,'=${t}\n${q(products([3, 'x', '1', 1]))},1,5,''+${t}\n`;
    const data = assertOk(await upload(file));
    assert.deepEqual([data.total, data.succeeded], [2, 2], JSON.stringify(data));
    const rows = await db().query<{ request_id: string }>('SELECT request_id FROM admin.orders WHERE request_id IN ($1, $2) ORDER BY id', [`=${t}`, `'+${t}`]);
    assert.deepEqual(rows.map((r) => r.request_id), [`=${t}`, `'+${t}`]);
    assert.deepEqual(counts(assertOk(await upload(`${HEADER}\r\n`))), { total: 0, succeeded: 0, failed: 0, duplicates: 0, errors: [], errors_truncated: false, rejected_url: null });
  });

  test('lists the first 100 errors by row and counts them all', async () => {
    const t = tag();
    // Short invalid rows, so that the file stays under this app's small size limit.
    const rows = Array.from({ length: 130 }, (_, i) => `,${t}${i},x,1,,,,[]`);
    const data = assertOk(await upload(csv(...rows)));
    assert.deepEqual([data.total, data.failed, data.errors.length, data.errors_truncated], [130, 130, 100, true]);
    assert.deepEqual(data.errors.map((e: any) => e.row), Array.from({ length: 100 }, (_, i) => i + 2));
  });

  test('needs order.import', async () => {
    const a = await seedAdmin(app, { permissions: ['order.list'] });
    assertError(await upload(csv(row(tag())), await login(app, a.username, a.password)), 403, 20001);
    const b = await seedAdmin(app, { permissions: ['order.import'] });
    assert.equal(assertOk(await upload(csv(row(tag())), await login(app, b.username, b.password))).succeeded, 1);
  });
});

/** The rejected rows of import `id` as `t` (and `language`) downloads them. */
const rejectedFile = (id: number, t = token, language = 'en-US') =>
  app.app.inject({ method: 'GET', url: `/api/admin/orders/import/${id}/rejected`, headers: { authorization: `Bearer ${t}`, 'accept-language': language } });
/** One CSV cell as RFC 4180 writes it (quoted when it holds a quote, comma or line break). */
const cell = (s: string) => (/[",\r\n]/.test(s) ? q(s) : s);
/** A downloaded CSV's lines after its byte-order mark (which it must have), without the last line end. */
function linesOf(file: Buffer): string[] {
  assert.equal(file.subarray(0, 3).toString('hex'), 'efbbbf', 'UTF-8 with a byte-order mark');
  const text = file.subarray(3).toString('utf8');
  assert.ok(text.endsWith('\r\n'));
  return text.slice(0, -2).split('\r\n');
}

describe('GET /orders/import/{id}/rejected', () => {
  test('gives every refused row as sent, its reason last in the reader\'s language, in a file that imports again once fixed', async () => {
    const t = tag();
    await db().query(
      `WITH o AS (INSERT INTO admin.orders (order_no, request_id, user_id, amount) VALUES ($1, $2, 1, 1) RETURNING id)
       INSERT INTO admin.order_details (order_id, product_id, product_name, price, quantity) SELECT id, 1, 'x', 1, 1 FROM o`,
      [`EXIST-${t}`, `${t}-existing`],
    );
    const P = products([1, 'Tea, green', '12.50', 2], [2, 'Cup', '0.10', 1]); // 25.10
    const odd = products([3, '中文, "quoted"', '1.00', 1]); // 1.00
    // The columns in the file's own order and spelling.
    const rows = [
      [P, `${t}-ok`, '7', '25.10', ''], // 2
      [P, `${t}-sum`, '7', '25.00', ''], // 3: amount ≠ Σ
      [P, `${t}-neg`, '-3', '25.10', ''], // 4: user_id (a cell a spreadsheet would read as a formula)
      [P, `${t}-short`], // 5: too few cells
      [P, `${t}-ok`, '7', '25.10', ''], // 6: duplicate of row 2 (same batch: refused when written)
      [P, `${t}-existing`, '7', '25.10', 'pending'], // 7: exists in the database (refused when written)
      [odd, `${t}-odd`, '7', '2.00', ''], // 8: amount ≠ Σ, cells that need quoting
      [P, `${t}-ok2`, '7', '25.10', 'paid'], // 9
    ];
    const header = 'Products,request_id,USER_ID,amount,status';
    const file = `${header}\r\n${rows.map((r) => r.map(cell).join(',')).join('\r\n')}\r\n`;
    const data = assertOk(await upload(file));
    assert.deepEqual([data.total, data.succeeded, data.failed, data.duplicates], [8, 2, 6, 2]);
    assert.equal(data.rejected_url, `/api/admin/orders/import/${data.id}/rejected`);
    const notes = assertOk(await call(app, 'GET', '/api/admin/notifications?page_size=1', { token }));
    assert.equal(notes.list[0].link, data.rejected_url, 'the notification links to the rejected rows');
    assert.ok(notes.list[0].link_expires_at);

    const res = await rejectedFile(data.id);
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^text\/csv; charset=utf-8/);
    assert.equal(res.headers['content-disposition'], `attachment; filename="orders-import-${data.id}-rejected.csv"; filename*=UTF-8''orders-import-${data.id}-rejected.csv`);
    const lines = linesOf(res.rawPayload);
    assert.equal(lines[0], `${header},error`);
    const reason = (row: number) => data.errors.find((e: any) => e.row === row).reason as string;
    assert.deepEqual(lines.slice(1), [
      `${cell(P)},${t}-sum,7,25.00,,${cell(reason(3))}`,
      `${cell(P)},${t}-neg,'-3,25.10,,${cell(reason(4))}`,
      `${cell(P)},${t}-short,,,,${cell(reason(5))}`,
      `${cell(P)},${t}-ok,7,25.10,,${cell(reason(6))}`,
      `${cell(P)},${t}-existing,7,25.10,pending,${cell(reason(7))}`,
      `${cell(odd)},${t}-odd,7,2.00,,${cell(reason(8))}`,
    ]);
    assert.match(reason(5), /expected 5 cells, found 2/);
    assert.match(reason(6), /duplicate request_id/);
    assert.match(reason(7), new RegExp(`order EXIST-${t} has it already`));

    // In Chinese: the same rows, the reasons in Chinese.
    const zh = linesOf((await rejectedFile(data.id, token, 'zh-CN')).rawPayload);
    assert.equal(zh.length, 7);
    assert.ok(zh[1]!.endsWith(',金额 25.00 不等于各商品单价 × 数量之和（25.10）'), zh[1]);
    assert.ok(zh[3]!.endsWith(',应有 5 个单元格，实际为 2 个'), zh[3]);
    assert.match(zh[5]!, new RegExp(`request_id 重复：订单 EXIST-${t} 已使用$`));

    // The file imports again as it is (its error column ignored, every cell read as the first time)…
    const again = assertOk(await upload(res.rawPayload));
    assert.deepEqual([again.total, again.succeeded, again.failed], [6, 0, 6]);
    assert.deepEqual([3, 4, 6, 7].map((r) => again.errors.find((e: any) => e.row === r - 1).reason), [3, 4, 6, 7].map(reason));
    // …and once fixed, adds the corrected orders.
    const fixed = res.rawPayload.toString('utf8')
      .replace(`${t}-sum,7,25.00`, `${t}-sum,7,25.10`)
      .replace(`${t}-neg,'-3`, `${t}-neg,8`);
    const done = assertOk(await upload(fixed));
    assert.deepEqual([done.total, done.succeeded, done.failed], [6, 2, 4]);
    assert.deepEqual((await ordersOf(`${t}-`)).map((o) => [o.request_id, o.user_id]).sort(), [
      [`${t}-existing`, 1], [`${t}-neg`, 8], [`${t}-ok`, 7], [`${t}-ok2`, 7], [`${t}-sum`, 7],
    ]);
  });

  test('keeps every refused row, not only the 100 listed, in row order', async () => {
    const big = await startApp({ ORDER_IMPORT_BATCH_ROWS: '100' });
    try {
      const t = tag();
      // 2,600 rows, every third one valid: refused rows written and read back in several blocks.
      const rows = Array.from({ length: 2600 }, (_, i) => (i % 3 === 0 ? row(`${t}-${i}`) : `,${t}-${i},x,1,,,,[]`));
      const res = await call(big, 'POST', URL, { token: await login(big), ...form(csv(...rows)) });
      const data = assertOk(res);
      assert.deepEqual([data.total, data.succeeded, data.failed, data.errors.length, data.errors_truncated], [2600, 867, 1733, 100, true]);
      const file = await big.app.inject({ method: 'GET', url: data.rejected_url, headers: { authorization: `Bearer ${await login(big)}` } });
      const lines = linesOf(file.rawPayload);
      assert.equal(lines[0], `${HEADER},error`);
      assert.equal(lines.length, 1 + 1733);
      const ids = lines.slice(1).map((l) => Number(l.split(',')[1]!.slice(t.length + 1)));
      assert.deepEqual(ids, Array.from({ length: 2600 }, (_, i) => i).filter((i) => i % 3 !== 0));
      assert.ok(lines.slice(1).every((l) => l.includes(',[],user_id must be a positive integer; ')), lines[1]);
    } finally {
      await big.close();
    }
  });

  test('needs order.import and is only for the administrator who ran the import (and the super administrator)', async () => {
    const b = await signedInAdmin(app, { permissions: ['order.import'] });
    const data = assertOk(await upload(csv(row(tag(), { user_id: '0' })), b.token));
    assert.equal(data.failed, 1);
    assert.equal((await rejectedFile(data.id, b.token)).statusCode, 200);
    assert.equal((await rejectedFile(data.id, token)).statusCode, 200, 'the super administrator');

    const c = await signedInAdmin(app, { permissions: ['order.import'] });
    const other = await call(app, 'GET', data.rejected_url, { token: c.token });
    assertError(other, 403, 20001);
    assert.match(other.body.message, new RegExp(`order import ${data.id} was run by another administrator`));
    const reader = await signedInAdmin(app, { permissions: ['order.list'] });
    assertError(await call(app, 'GET', data.rejected_url, { token: reader.token }), 403, 20001);
    assertError(await call(app, 'GET', data.rejected_url), 401, 10007);

    const none = await call(app, 'GET', '/api/admin/orders/import/999999/rejected', { token, headers: { 'accept-language': 'zh-CN' } });
    assertError(none, 404, 30003);
    assert.match(none.body.message, /订单导入 999999 不存在（导入被拒绝的行保留 24 小时）/);
    // An import without refused rows: the header only.
    const clean = assertOk(await upload(csv(row(tag()))));
    assert.equal(clean.rejected_url, null);
    assert.deepEqual(linesOf((await rejectedFile(clean.id)).rawPayload), [`${HEADER},error`]);
  });

  test('an import and its rejected rows are purged ORDER_IMPORT_KEEP_HOURS after it finished', async () => {
    const data = assertOk(await upload(csv(row(tag(), { amount: '1' }))));
    const kept = assertOk(await upload(csv(row(tag(), { amount: '1' }))));
    await db().query(`UPDATE admin.order_imports SET finished_at = now() - interval '25 hours' WHERE id = $1`, [data.id]);
    assert.ok(await new OrderImports(db()).purge(24) >= 1);
    assertError(await call(app, 'GET', data.rejected_url, { token }), 404, 30003);
    const [{ n } = { n: -1 }] = await db().query<{ n: number }>('SELECT count(*)::int AS n FROM admin.order_import_rejects WHERE import_id = $1', [data.id]);
    assert.equal(n, 0);
    assert.equal((await rejectedFile(kept.id)).statusCode, 200);
  });
});
