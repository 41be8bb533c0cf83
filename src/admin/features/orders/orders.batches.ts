// A batch of the CSV import of orders (orders.import.ts): its valid rows kept as COPY text, and
// how it is written, in one transaction: COPY when no row conflicts, else through temporary
// tables with the reason of each row left out.
import { copyText, pgArray } from '../../../platform/db/copy.ts';
import type { Database, Transaction } from '../../../platform/db/database.ts';
import { isUniqueViolation, pgErrorCode } from '../../../platform/db/errors.ts';
import { msg, type Msg } from '../../../platform/i18n.ts';
import { newOrderNo } from './orders.rules.ts';
import type { ImportRow } from './orders.csv.ts';

/** Draws of a new order number for a row whose drawn number was taken. */
const ORDER_NO_ATTEMPTS = 3;

/** UTF-8 text appended into one growing buffer, reused batch after batch (outside the JS heap). */
class TextBuffer {
  private buf = Buffer.allocUnsafe(1 << 16);
  length = 0;

  append(text: string): void {
    const need = this.length + text.length * 3;
    if (need > this.buf.length) {
      const bigger = Buffer.allocUnsafe(Math.max(need, this.buf.length * 2));
      this.buf.copy(bigger, 0, 0, this.length);
      this.buf = bigger;
    }
    this.length += this.buf.write(text, this.length);
  }

  bytes(start = 0, end = this.length): Buffer {
    return this.buf.subarray(start, end);
  }

  text(start = 0, end = this.length): string {
    return this.buf.toString('utf8', start, end);
  }
}

/**
 * The valid rows of a batch, kept only as their COPY text (orders, details) and their keys, in
 * buffers and typed arrays: nothing per row stays on the JS heap while the batch fills and is
 * written, so the garbage collector has nothing to promote and memory stays flat.
 */
export class Batch {
  readonly orders = new TextBuffer();
  readonly details = new TextBuffer();
  /** `request_id<TAB>order_no<LF>` per row. */
  readonly keys = new TextBuffer();
  /** Each row's cells as sent (a JSON array), for the rejected-rows file if the row is refused when written. */
  readonly cells = new TextBuffer();
  readonly rows: Int32Array;
  readonly orderEnd: Int32Array;
  readonly detailEnd: Int32Array;
  readonly cellsEnd: Int32Array;
  readonly generated: Uint8Array;
  /** Order numbers drawn for rows without one (distinct within the batch). */
  readonly drawn = new Set<string>();
  count = 0;
  /** The first of the ids reserved for the batch's rows (in order). */
  firstId = 0;

  readonly capacity: number;
  /** The last two columns of every order: the importer and their department (its data scope). */
  private readonly owner: string;

  constructor(capacity: number, owner: { createdBy: number; departmentId: number | null }) {
    this.capacity = capacity;
    this.owner = `\t${owner.createdBy}\t${owner.departmentId ?? '\\N'}`;
    this.rows = new Int32Array(capacity);
    this.orderEnd = new Int32Array(capacity);
    this.detailEnd = new Int32Array(capacity);
    this.cellsEnd = new Int32Array(capacity);
    this.generated = new Uint8Array(capacity);
  }

  clear(): void {
    this.orders.length = 0;
    this.details.length = 0;
    this.keys.length = 0;
    this.cells.length = 0;
    this.drawn.clear();
    this.count = 0;
  }

  add(row: number, r: ImportRow, orderNo: string, generated: boolean, cells: readonly string[]): void {
    const id = this.firstId + this.count;
    const { request_id: requestId, user_id, amount, status, paid_at, created_at, products } = r;
    const now = paid_at === null || created_at === null ? new Date().toISOString() : '';
    const paidAt = status === 'paid' ? (paid_at ?? now) : null;
    this.orders.append(`${id}\t${orderNo}\t${copyText(requestId)}\t${user_id}\t${amount}\t${status}\t${copyText(paidAt)}\t${created_at ?? now}${this.owner}\n`);
    for (const p of products) this.details.append(`${id}\t${p.product_id}\t${copyText(p.product_name)}\t${p.price}\t${p.quantity}\n`);
    this.keys.append(`${requestId}\t${orderNo}\n`);
    this.cells.append(JSON.stringify(cells));
    this.rows[this.count] = row;
    this.orderEnd[this.count] = this.orders.length;
    this.detailEnd[this.count] = this.details.length;
    this.cellsEnd[this.count] = this.cells.length;
    this.generated[this.count] = generated ? 1 : 0;
    this.count += 1;
  }

  /** The cells of row `i` as they were read. */
  cellsOf(i: number): string[] {
    return JSON.parse(this.cells.text(i === 0 ? 0 : this.cellsEnd[i - 1], this.cellsEnd[i])) as string[];
  }

  /** The request_id and order_no of each row. */
  keyList(): { requestIds: string[]; orderNos: string[] } {
    const requestIds: string[] = [];
    const orderNos: string[] = [];
    for (const line of this.keys.text().split('\n')) {
      if (!line) continue;
      const tab = line.indexOf('\t');
      requestIds.push(line.slice(0, tab));
      orderNos.push(line.slice(tab + 1));
    }
    return { requestIds, orderNos };
  }

  /** The COPY text of the rows whose `keep` flag is set (all rows without `keep`). */
  text(keep?: Uint8Array): { orders: Buffer; details: Buffer; count: number } {
    if (!keep) return { orders: this.orders.bytes(), details: this.details.bytes(), count: this.count };
    const orders: Buffer[] = [];
    const details: Buffer[] = [];
    let count = 0;
    for (let i = 0; i < this.count; i++) {
      if (!keep[i]) continue;
      count += 1;
      orders.push(this.orders.bytes(i === 0 ? 0 : this.orderEnd[i - 1], this.orderEnd[i]));
      details.push(this.details.bytes(i === 0 ? 0 : this.detailEnd[i - 1], this.detailEnd[i]));
    }
    return { orders: Buffer.concat(orders), details: Buffer.concat(details), count };
  }
}

/** Reserves `n` consecutive ids of the orders' sequence in one call; the first. */
export async function reserveIds(db: Database, n: number): Promise<number> {
  // (If someone else's nextval lands inside the block between nextval and setval, the COPY
  // meets that id and the careful path takes over.)
  const [block] = await db.query<{ last: string }>(
    `SELECT setval(seq, nextval(seq) + $1::bigint - 1)::text AS last FROM (SELECT pg_get_serial_sequence('admin.orders', 'id')::regclass AS seq) s`,
    [n],
  );
  return Number(block!.last) - n + 1;
}

/**
 * Writes one batch in one transaction. Fast path: the rows (with the ids reserved for them) are
 * loaded with COPY, orders then details, as fast as PostgreSQL loads anything. COPY cannot skip
 * a row, so a conflict (a request_id or order number that exists, or appears twice in the
 * batch) fails the transaction; the batch is then written by the careful path (COPY into
 * temporary tables, INSERT … ON CONFLICT DO NOTHING from there, then the reason of each row
 * left out). After the first conflict (a re-run of a file, say), each COPY is preceded by a
 * look-up of the batch's keys, and the rows found are left out of it.
 */
export async function writeOrders(db: Database, batch: Batch, tz: string, writer: { check: boolean }): Promise<{ inserted: number; refused: Refused[] }> {
  try {
    return await db.transaction((tx) => copyOrders(tx, batch, tz, writer.check));
  } catch (err) {
    if (!isUniqueViolation(err) && !isUniqueViolation((err as { cause?: unknown }).cause) && !isAbortedCopy(err)) throw err;
    writer.check = true;
    return db.transaction((tx) => stageOrders(tx, batch, tz));
  }
}

/** A COPY that failed (postgres.js only tells that the transaction was aborted by it). */
function isAbortedCopy(err: unknown): boolean {
  return err instanceof Error && err.message.startsWith('COPY into ') && pgErrorCode(err.cause) === '25P02';
}

const ORDER_COLUMNS = '(id, order_no, request_id, user_id, amount, status, paid_at, created_at, created_by, department_id)';
const DETAIL_COLUMNS = '(order_id, product_id, product_name, price, quantity)';

/** Times in the batch are wall-clock times of the display zone: COPY reads them in the session's. */
const useZone = (tx: Transaction, tz: string) => tx.query(`SELECT set_config('TimeZone', $1, true)`, [tz]);

/** The fast path: (with `check`) refuses the rows that conflict with existing orders; COPYs the others. */
async function copyOrders(tx: Transaction, batch: Batch, tz: string, check: boolean): Promise<{ inserted: number; refused: Refused[] }> {
  const refused: Refused[] = [];
  let keep: Uint8Array | undefined;
  if (check) {
    const { requestIds, orderNos } = batch.keyList();
    const taken = await tx.query<{ request_id: string; order_no: string }>(
      'SELECT request_id, order_no FROM admin.orders WHERE request_id = ANY($1::text[]) OR order_no = ANY($2::text[])',
      [pgArray(requestIds), pgArray(orderNos)],
    );
    if (taken.length > 0) {
      const byRequest = new Map(taken.map((t) => [t.request_id, t.order_no]));
      const numbers = new Set(taken.map((t) => t.order_no));
      keep = new Uint8Array(batch.count).fill(1);
      for (let i = 0; i < batch.count; i++) {
        const other = byRequest.get(requestIds[i]!);
        if (other !== undefined) refused.push(duplicateOf(batch, i, requestIds[i]!, other));
        else if (numbers.has(orderNos[i]!)) refused.push(numberTaken(batch, i, requestIds[i]!, orderNos[i]!, batch.generated[i] === 1));
        else continue;
        keep[i] = 0;
      }
    }
  }
  const text = batch.text(keep);
  if (text.count > 0) {
    await useZone(tx, tz);
    await tx.copyIn(`admin.orders ${ORDER_COLUMNS}`, text.orders);
    await tx.copyIn(`admin.order_details ${DETAIL_COLUMNS}`, text.details);
  }
  return { inserted: text.count, refused };
}

/**
 * The careful path: the batch is copied into temporary tables, the orders inserted from there
 * ON CONFLICT DO NOTHING with new ids (and the details of those inserted), then each row left
 * out is explained; an order number drawn here that someone took is drawn again.
 */
async function stageOrders(tx: Transaction, batch: Batch, tz: string): Promise<{ inserted: number; refused: Refused[] }> {
  await tx.script(`
    CREATE TEMP TABLE import_orders (id bigint, order_no text, request_id text, user_id bigint, amount numeric,
      status text, paid_at timestamptz, created_at timestamptz, created_by bigint, department_id bigint) ON COMMIT DROP;
    CREATE TEMP TABLE import_details (k bigint GENERATED ALWAYS AS IDENTITY, order_id bigint, product_id bigint,
      product_name text, price numeric, quantity int) ON COMMIT DROP;`);
  await useZone(tx, tz);
  await tx.copyIn(`import_orders ${ORDER_COLUMNS}`, batch.orders.bytes());
  await tx.copyIn(`import_details ${DETAIL_COLUMNS}`, batch.details.bytes());
  const { requestIds, orderNos } = batch.keyList();
  const refused: Refused[] = [];
  let inserted = 0;
  let pending: number[] | null = null; // null: every row
  for (let attempt = 1; ; attempt++) {
    // Each order inserted is matched back to the one staged row it came from: the first row
    // tried with its request_id and order_no (rows are inserted in id order, so a later row with
    // the same keys conflicted). Only that row's details are added; a refused row adds nothing.
    const done = new Set((await tx.query<{ staged: number }>(
      `WITH o AS (
         INSERT INTO admin.orders (order_no, request_id, user_id, amount, status, paid_at, created_at, created_by, department_id)
         SELECT order_no, request_id, user_id, amount, status, paid_at, created_at, created_by, department_id FROM import_orders
         WHERE $1::bigint[] IS NULL OR id = ANY($1::bigint[])
         ORDER BY id
         ON CONFLICT DO NOTHING
         RETURNING id, request_id, order_no
       ), m AS (
         SELECT DISTINCT ON (o.id) o.id AS order_id, s.id AS staged
         FROM o JOIN import_orders s ON s.request_id = o.request_id AND s.order_no = o.order_no
         WHERE $1::bigint[] IS NULL OR s.id = ANY($1::bigint[])
         ORDER BY o.id, s.id
       ), d AS (
         INSERT INTO admin.order_details (order_id, product_id, product_name, price, quantity)
         SELECT m.order_id, d.product_id, d.product_name, d.price, d.quantity
         FROM import_details d JOIN m ON m.staged = d.order_id
         ORDER BY d.k
       )
       SELECT staged FROM m`,
      [pending ? pgArray(pending.map((i) => batch.firstId + i)) : null],
    )).map((r) => Number(r.staged) - batch.firstId));
    inserted += done.size;
    const tried = pending ?? [...requestIds.keys()];
    const skipped = tried.filter((i) => !done.has(i));
    if (skipped.length === 0) break;
    const existing = new Map((await tx.query<{ request_id: string; order_no: string }>(
      'SELECT request_id, order_no FROM admin.orders WHERE request_id = ANY($1::text[])',
      [pgArray(skipped.map((i) => requestIds[i]!))],
    )).map((e) => [e.request_id, e.order_no]));
    const again: number[] = [];
    for (const i of skipped) {
      const other = existing.get(requestIds[i]!);
      const generated = batch.generated[i] === 1;
      if (other !== undefined) refused.push(duplicateOf(batch, i, requestIds[i]!, other));
      else if (generated && attempt < ORDER_NO_ATTEMPTS) again.push(i);
      else refused.push(numberTaken(batch, i, requestIds[i]!, orderNos[i]!, generated));
    }
    if (again.length === 0) break;
    await tx.query(
      'UPDATE import_orders SET order_no = x.order_no FROM unnest($1::bigint[], $2::text[]) AS x(id, order_no) WHERE import_orders.id = x.id',
      [pgArray(again.map((i) => batch.firstId + i)), pgArray(again.map(() => newOrderNo()))],
    );
    pending = again;
  }
  return { inserted, refused };
}

export interface Refused {
  row: number;
  /** The row's position in its batch. */
  at: number;
  request_id: string;
  reason: Msg;
  duplicate: boolean;
}

const duplicateOf = (batch: Batch, at: number, requestId: string, other: string): Refused =>
  ({ row: batch.rows[at]!, at, request_id: requestId, reason: msg('admin.orders.duplicateRequestId', { other }), duplicate: true });
const numberTaken = (batch: Batch, at: number, requestId: string, orderNo: string, generated: boolean): Refused => ({
  row: batch.rows[at]!,
  at,
  request_id: requestId,
  reason: generated ? msg('admin.orders.orderNoCollision') : msg('admin.orders.orderNoTaken', { orderNo }),
  duplicate: false,
});
