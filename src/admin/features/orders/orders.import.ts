// The CSV import of orders (POST /orders/import). The upload is streamed through the CSV
// parser: records are checked one by one with the rules of POST /orders (orders.rules.ts) and
// the valid ones written in batches, each batch one transaction (an order and its details are
// written together or not at all). A valid row is kept only as its lines of COPY text, and while
// a batch is being written the next one is parsed: at most two batches are in memory, whatever
// the file size.
//
// Idempotent: request_id is required and unique, so a row whose request_id exists already
// (imported by an earlier run of the same file, or created otherwise) is reported as a
// duplicate and never written twice, whatever the concurrency (the unique index decides). If
// the import stops half-way (crash, lost connection, a database failure), the batches written
// before stay, the one in flight is rolled back, and running the same file again imports
// exactly the rest.
//
// Every refused record (invalid, or refused when its batch was written) is kept with the import
// (orders.rejects.ts) for the rejected-rows file; a valid row keeps its cells (as JSON text, in
// the batch's buffers) until its batch is written, in case it is refused then.
import type { Readable } from 'node:stream';
import { parse, CsvError } from 'csv-parse';
import type { FastifyBaseLogger } from 'fastify';
import { copyText, pgArray, type Database, type Transaction } from '../../../platform/db/database.ts';
import { isUniqueViolation, pgErrorCode } from '../../../platform/db/errors.ts';
import { AppError, type ErrorDef } from '../../../platform/http/errors.ts';
import { E } from '../../errors.ts';
import { csvLine } from '../../../platform/jobs/csv.ts';
import { readHeader, readOrderRecord, recordLine, rejectedHeader, type ImportRow } from './orders.csv.ts';
import { finishImport, openImport, RejectedRows } from './orders.rejects.ts';
import { newOrderNo } from './orders.rules.ts';
import { msg, sentences, translate, type Locale, type Msg } from '../../../platform/i18n.ts';

/** Errors listed in the summary (the counts cover all of them). */
export const IMPORT_ERRORS_SHOWN = 100;
/** Longest record accepted, in characters (an order of 1000 products fits). */
const MAX_RECORD_CHARS = 1 << 20;
/** Draws of a new order number for a row whose drawn number was taken. */
const ORDER_NO_ATTEMPTS = 3;

export interface ImportRowError {
  /** Position of the record in the file, the header being row 1 (blank lines not counted). */
  row: number;
  request_id: string | null;
  /** Rendered in the reader's language when the summary is sent. */
  reason: Msg;
}

export interface OrderImportSummary {
  /** The import's id (orders.rejects.ts), under which its rejected rows are kept; 0 until the header is accepted. */
  id: number;
  /** Data records read (the header not counted). */
  total: number;
  succeeded: number;
  /** total − succeeded: invalid rows and duplicates. */
  failed: number;
  /** Rows skipped because their request_id exists already (or appears earlier in the file). */
  duplicates: number;
  /** The first IMPORT_ERRORS_SHOWN problems by row. */
  errors: ImportRowError[];
  errors_truncated: boolean;
}

/** The summary as sent: each row's reason in the reader's language. */
export function renderSummary(summary: OrderImportSummary, locale: Locale) {
  return { ...summary, errors: summary.errors.map((e) => ({ ...e, reason: translate(e.reason, locale) })) };
}

/** The import stopped before the end of the file; `summary` says what was done until then. */
export class OrderImportStopped extends AppError {
  readonly summary: OrderImportSummary;
  constructor(def: ErrorDef, detail: Msg, summary: OrderImportSummary) {
    super(def, { detail });
    this.summary = summary;
  }
}

export interface OrderImportOptions {
  db: Database;
  /** The administrator who runs the import (the only one who may download its rejected rows). */
  adminId: number;
  logger: FastifyBaseLogger;
  /** DISPLAY_TIMEZONE: the zone of paid_at and created_at. */
  tz: string;
  batchRows: number;
  /** Aborted when the server shuts down: the import stops once the batch being written is committed. */
  signal?: AbortSignal;
}

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
class Batch {
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

  constructor(capacity: number) {
    this.capacity = capacity;
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
    this.orders.append(`${id}\t${orderNo}\t${copyText(requestId)}\t${user_id}\t${amount}\t${status}\t${copyText(paidAt)}\t${created_at ?? now}\n`);
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
async function reserveIds(db: Database, n: number): Promise<number> {
  // (If someone else's nextval lands inside the block between nextval and setval, the COPY
  // meets that id and the careful path takes over.)
  const [block] = await db.query<{ last: string }>(
    `SELECT setval(seq, nextval(seq) + $1::bigint - 1)::text AS last FROM (SELECT pg_get_serial_sequence('admin.orders', 'id')::regclass AS seq) s`,
    [n],
  );
  return Number(block!.last) - n + 1;
}

/** Reads the CSV from `source` to its end and writes the orders; the summary of the run. */
export async function importOrders(source: Readable, o: OrderImportOptions): Promise<OrderImportSummary> {
  const summary: OrderImportSummary = { id: 0, total: 0, succeeded: 0, failed: 0, duplicates: 0, errors: [], errors_truncated: false };
  let rejected: RejectedRows | undefined;
  /** Counts a refused record, lists it among the first errors and keeps it for the rejected-rows file. */
  const fail = (row: number, cells: readonly string[], requestId: string | null, reasons: readonly Msg[], duplicate = false) => {
    summary.failed += 1;
    if (duplicate) summary.duplicates += 1;
    keepError(summary, { row, request_id: requestId, reason: reasons.length === 1 ? reasons[0]! : sentences(reasons) });
    return rejected!.add(row, recordLine(cells, header!.width, header!.ignored), reasons);
  };

  const parser = parse({ bom: true, relax_column_count: true, skip_empty_lines: true, max_record_size: MAX_RECORD_CHARS });
  let tooLarge = false;
  source.on('limit', () => {
    // The upload went over the size limit: stop before the cut record is read as a short one.
    tooLarge = true;
    parser.destroy(new Error('file too large'));
  });
  let uploadFailed = false;
  source.on('error', (err) => {
    uploadFailed = true;
    parser.destroy(err);
  });
  source.pipe(parser);

  let header: { index: Parameters<typeof readOrderRecord>[1]; width: number; ignored: number } | undefined;
  let row = 1;
  // Two batches: one filling while the other is written.
  let filling = new Batch(o.batchRows);
  let spare = new Batch(o.batchRows);
  let inflight: Promise<void> | undefined;
  let lastWritten = 1;

  // Conflicts are looked for before each COPY once one was met; until then the COPY is tried directly.
  const writer = { check: false };
  const writeBatch = async (batch: Batch) => {
    const outcome = await writeOrders(o.db, batch, o.tz, writer);
    summary.succeeded += outcome.inserted;
    for (const r of outcome.refused) await fail(r.row, batch.cellsOf(r.at), r.request_id, [r.reason], r.duplicate);
    lastWritten = batch.rows[batch.count - 1]!;
  };
  const submit = async () => {
    await inflight;
    const full = filling;
    filling = spare;
    filling.clear();
    spare = full;
    inflight = writeBatch(full);
    inflight.catch(() => {}); // awaited before the next batch or at the end
  };
  /** What was done before the stop, for the error message. */
  const progress = () => msg('admin.orders.importProgress', { succeeded: summary.succeeded, failed: summary.failed });

  const take = async (cells: string[]) => {
    if (o.signal?.aborted) {
      // Shutting down: the batch being written is kept, the one being filled is left for a re-run.
      await inflight;
      throw new OrderImportStopped(E.SERVICE_UNAVAILABLE, msg('admin.orders.importShuttingDown', { row: lastWritten, progress: progress() }), summary);
    }
    if (!header) {
      const h = readHeader(cells);
      if (!h.ok) throw new AppError(h.binary ? E.INVALID_FORMAT : E.VALIDATION, { detail: h.problem });
      header = h;
      summary.id = await openImport(o.db, o.adminId, csvLine(rejectedHeader(cells, h.ignored)));
      rejected = new RejectedRows(o.db, summary.id);
      return;
    }
    row += 1;
    summary.total += 1;
    const r = readOrderRecord(cells, header.index, header.width);
    if (!r.ok) {
      await fail(row, cells, r.request_id, r.problems);
      return;
    }
    // Duplicates inside the batch are left to the database (a duplicate fails the COPY and the
    // careful path reports it): no per-row bookkeeping on the JS heap.
    let orderNo = r.row.order_no;
    const generated = orderNo === null;
    if (orderNo === null) {
      // Distinct within the batch (numbers drawn in the same millisecond share their first 17 digits).
      do orderNo = newOrderNo(); while (filling.drawn.has(orderNo));
      filling.drawn.add(orderNo);
    }
    if (filling.count === 0) filling.firstId = await reserveIds(o.db, filling.capacity);
    filling.add(row, r.row, orderNo, generated, cells);
    if (filling.count >= filling.capacity) await submit();
  };

  try {
    // One record behind the parser: the last record is taken only once the file is known to be
    // complete, since a file cut at the size limit ends with a partial record.
    let previous: string[] | undefined;
    for await (const cells of parser as AsyncIterable<string[]>) {
      if (previous) await take(previous);
      previous = cells;
    }
    if ((source as Readable & { truncated?: boolean }).truncated) {
      tooLarge = true;
      throw new Error('file too large');
    }
    if (previous) await take(previous);
    if (!header) throw new AppError(E.VALIDATION, { detail: msg('admin.orders.fileEmptyExpectedCsv') });
    if (filling.count > 0) await submit();
    await inflight;
    await rejected!.flush();
    await finishImport(o.db, summary.id, summary);
  } catch (err) {
    // Let the batch in flight settle, so that the summary says what is kept.
    await inflight?.catch(() => {});
    parser.destroy();
    source.unpipe(parser);
    summary.errors.sort((a, b) => a.row - b.row);
    if (err instanceof AppError) throw err;
    if (tooLarge) throw new OrderImportStopped(E.BODY_TOO_LARGE, msg('admin.orders.importTooLarge', { progress: progress() }), summary);
    if (err instanceof CsvError) {
      const line = (err as CsvError & { lines?: number }).lines;
      throw new OrderImportStopped(E.INVALID_FORMAT, line ? msg('admin.orders.importNotCsvAt', { line, reason: err.message.split(':')[0], progress: progress() }) : msg('admin.orders.importNotCsv', { progress: progress() }), summary);
    }
    if (uploadFailed) {
      throw new OrderImportStopped(E.UPLOAD_FAILED, msg('admin.orders.importUploadEnded', { progress: progress() }), summary);
    }
    o.logger.error({ err }, 'order import: a batch failed');
    const def = pgErrorCode(err) ? E.DATABASE : E.INTERNAL;
    throw new OrderImportStopped(def, msg('admin.orders.importBatchFailed', { row: lastWritten, progress: progress() }), summary);
  }
  summary.errors.sort((a, b) => a.row - b.row);
  return summary;
}

/** Keeps the IMPORT_ERRORS_SHOWN errors of the lowest rows (batches finish out of order with parsing). */
function keepError(summary: OrderImportSummary, error: ImportRowError): void {
  if (summary.errors.length < IMPORT_ERRORS_SHOWN) {
    summary.errors.push(error);
    return;
  }
  summary.errors_truncated = true;
  let highest = 0;
  for (let i = 1; i < summary.errors.length; i++) if (summary.errors[i]!.row > summary.errors[highest]!.row) highest = i;
  if (summary.errors[highest]!.row > error.row) summary.errors[highest] = error;
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
async function writeOrders(db: Database, batch: Batch, tz: string, writer: { check: boolean }): Promise<{ inserted: number; refused: Refused[] }> {
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

const ORDER_COLUMNS = '(id, order_no, request_id, user_id, amount, status, paid_at, created_at)';
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
      status text, paid_at timestamptz, created_at timestamptz) ON COMMIT DROP;
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
         INSERT INTO admin.orders (order_no, request_id, user_id, amount, status, paid_at, created_at)
         SELECT order_no, request_id, user_id, amount, status, paid_at, created_at FROM import_orders
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

interface Refused {
  row: number;
  /** The row's position in its batch. */
  at: number;
  request_id: string;
  reason: Msg;
  duplicate: boolean;
}

const duplicateOf = (batch: Batch, at: number, requestId: string, other: string): Refused =>
  ({ row: batch.rows[at]!, at, request_id: requestId, reason: msg('admin.orders.duplicateRequestIdOrder', { other }), duplicate: true });
const numberTaken = (batch: Batch, at: number, requestId: string, orderNo: string, generated: boolean): Refused => ({
  row: batch.rows[at]!,
  at,
  request_id: requestId,
  reason: generated ? msg('admin.orders.orderNumberDrawnWas') : msg('admin.orders.orderNoExistsAlready', { orderNo }),
  duplicate: false,
});
