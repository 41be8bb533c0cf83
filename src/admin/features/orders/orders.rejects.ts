// The rejected rows of an order import, kept with the import so that the administrator who ran
// it can download them as a CSV to fix and import again (GET /orders/import/{id}/rejected).
//
// Each run of the import is a row of admin.order_imports (who ran it, the file's header, the
// counts once it finished); each record it refused, a row of admin.order_import_rejects: its
// cells as a line of the file (orders.csv.ts, recordLine) and its reasons in stored form
// (Msg.toJSON), rendered in the reader's language when the file is downloaded. The refused
// records are written with COPY in blocks while the import runs, so memory holds at most a
// block of them; the file is read back page by page. Both are deleted ORDER_IMPORT_KEEP_HOURS
// after the import finished (or started, for one that stopped): OrderImports.purge, hourly.
import { and, asc, eq, gt, lt, sql } from 'drizzle-orm';
import { copyText } from '../../../platform/db/copy.ts';
import type { Database } from '../../../platform/db/database.ts';
import { p } from '../../../platform/db/statements.ts';
import { CSV_BOM, csvCell } from '../../../platform/jobs/csv.ts';
import { Msg, translate, type Locale } from '../../../platform/i18n.ts';
import { orderImportRejects, orderImports } from '../../db/schema.ts';

/** Refused records written per COPY while the import runs. */
const BLOCK_ROWS = 1000;
/** Refused records read per statement when the file is downloaded. */
const PAGE_ROWS = 1000;

/** The counts an import finished with. */
export interface ImportCounts {
  total: number;
  succeeded: number;
  failed: number;
  duplicates: number;
}

/** Records an import that has begun (its header was accepted); its id. */
export async function openImport(db: Database, adminId: number, header: string): Promise<number> {
  const [row] = await db.orm.insert(orderImports).values({ adminId, header }).returning({ id: orderImports.id });
  return row!.id;
}

/** Records that the import finished, with its counts (its rejected rows are all written by then). */
export async function finishImport(db: Database, id: number, counts: ImportCounts): Promise<void> {
  const { total, succeeded, failed, duplicates } = counts;
  await db.orm.update(orderImports).set({ total, succeeded, failed, duplicates, finishedAt: sql`now()` }).where(eq(orderImports.id, id));
}

/** The refused records of one import, written in blocks as they come (in any order: rows are read back by number). */
export class RejectedRows {
  readonly importId: number;
  private readonly db: Database;
  private text = '';
  private pending = 0;
  /** The COPYs in flight, one after the other; a failed one fails every later flush. */
  private writing: Promise<void> = Promise.resolve();

  constructor(db: Database, importId: number) {
    this.db = db;
    this.importId = importId;
  }

  /** Adds one refused record; resolves once it is buffered, or written when the block was full. */
  add(row: number, line: string, reasons: readonly Msg[]): Promise<void> | undefined {
    // PostgreSQL text cannot hold NUL: shown as U+FFFD in the file.
    const cells = line.includes('\u0000') ? line.replaceAll('\u0000', '\uFFFD') : line;
    this.text += `${this.importId}\t${row}\t${copyText(cells)}\t${copyText(JSON.stringify(reasons))}\n`;
    this.pending += 1;
    return this.pending >= BLOCK_ROWS ? this.flush() : undefined;
  }

  /** Writes what is buffered; resolves when it (and every block before it) is written. */
  flush(): Promise<void> {
    if (this.pending > 0) {
      const text = this.text;
      this.text = '';
      this.pending = 0;
      this.writing = this.writing.then(() => this.db.transaction((tx) => tx.copyIn('admin.order_import_rejects (import_id, row_no, line, reasons)', text)));
    }
    return this.writing;
  }
}

export type OrderImportRow = typeof orderImports.$inferSelect;

const importById = (db: Database) => db.orm.select().from(orderImports).where(eq(orderImports.id, p('id'))).prepare('order_import');
const rejectsPage = (db: Database) => db.orm.select({ rowNo: orderImportRejects.rowNo, line: orderImportRejects.line, reasons: orderImportRejects.reasons })
  .from(orderImportRejects)
  .where(and(eq(orderImportRejects.importId, p('id')), gt(orderImportRejects.rowNo, p('after'))))
  .orderBy(asc(orderImportRejects.rowNo))
  .limit(PAGE_ROWS)
  .prepare('order_import_rejects_page');

/** Reads imports and their rejected rows back. */
export class OrderImports {
  private readonly db: Database;
  private readonly byId: ReturnType<typeof importById>;
  private readonly page: ReturnType<typeof rejectsPage>;

  constructor(db: Database) {
    this.db = db;
    this.byId = importById(db);
    this.page = rejectsPage(db);
  }

  async get(id: number): Promise<OrderImportRow | undefined> {
    const [row] = await this.byId.execute({ id });
    return row;
  }

  /**
   * The rejected-rows file of `imp`, in chunks: a byte-order mark, the header, then each refused
   * record by row number with its reasons in `locale` in the last cell; CRLF line ends.
   */
  async *csv(imp: OrderImportRow, locale: Locale): AsyncGenerator<string> {
    yield CSV_BOM + imp.header;
    let after = 0;
    for (;;) {
      const rows = await this.page.execute({ id: imp.id, after });
      if (rows.length === 0) return;
      let block = '';
      for (const r of rows) {
        const reasons = (JSON.parse(r.reasons) as unknown[]).map((m) => Msg.fromJSON(m)).filter((m) => m !== undefined);
        block += `${r.line},${csvCell(translate(reasons, locale))}\r\n`;
      }
      yield block;
      if (rows.length < PAGE_ROWS) return;
      after = rows[rows.length - 1]!.rowNo;
    }
  }

  /** Deletes the imports (and their rejected rows) finished (or, unfinished, started) more than `hours` ago; how many. */
  async purge(hours: number): Promise<number> {
    const gone = await this.db.orm.delete(orderImports)
      .where(lt(sql`coalesce(${orderImports.finishedAt}, ${orderImports.createdAt})`, sql`now() - make_interval(hours => ${hours}::int)`))
      .returning({ id: orderImports.id });
    return gone.length;
  }
}
