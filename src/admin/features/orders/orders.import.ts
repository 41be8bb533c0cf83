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
// the batch's buffers) until its batch is written, in case it is refused then. Batches and how
// they are written: orders.batches.ts.
import type { Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../../platform/db/database.ts';
import { pgErrorCode } from '../../../platform/db/errors.ts';
import { AppError, type ErrorDef } from '../../../platform/http/errors.ts';
import { E } from '../../errors.ts';
import { csvLine } from '../../../platform/jobs/csv.ts';
import { Batch, reserveIds, writeOrders } from './orders.batches.ts';
import { readHeader, readOrderRecord, recordLine, rejectedHeader } from './orders.csv.ts';
import { finishImport, openImport, RejectedRows } from './orders.rejects.ts';
import { newOrderNo } from './orders.rules.ts';
import { msg, sentences, translate, type Locale, type Msg } from '../../../platform/i18n.ts';

/** Errors listed in the summary (the counts cover all of them). */
export const IMPORT_ERRORS_SHOWN = 100;
/** Longest record accepted, in characters (an order of 1000 products fits). */
const MAX_RECORD_CHARS = 1 << 20;
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
  /** The administrator who runs the import (the only one who may download its rejected rows), who creates its orders. */
  adminId: number;
  /** Their department: the imported orders belong to it (data scopes). */
  departmentId: number | null;
  logger: FastifyBaseLogger;
  /** DISPLAY_TIMEZONE: the zone of paid_at and created_at. */
  tz: string;
  batchRows: number;
  /** Aborted when the server shuts down: the import stops once the batch being written is committed. */
  signal?: AbortSignal;
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

  // Loaded on the first import (about 0.5 MB of heap).
  const { parse, CsvError } = await import('csv-parse');
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
  const owner = { createdBy: o.adminId, departmentId: o.departmentId };
  let filling = new Batch(o.batchRows, owner);
  let spare = new Batch(o.batchRows, owner);
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
    if (!header) throw new AppError(E.VALIDATION, { detail: msg('admin.orders.importFileEmpty') });
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
      const line = (err as { lines?: number }).lines;
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
