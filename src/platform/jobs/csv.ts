// CSV cells and lines for exports (RFC 4180, CRLF line ends). Text cells that a spreadsheet
// would read as a formula (starting with = + - @, tab or CR) get a leading single quote;
// numbers, booleans and dates are written as values and never prefixed. Text that already
// starts with quotes followed by such a character gets one more quote, so the guard is
// reversible: `csvUnguard` gives back the original text of any guarded cell.
import { Transform, type TransformCallback } from 'node:stream';

const FORMULA_START = /^'*[=+\-@\t\r]/;
const GUARDED = /^'+[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** One cell: null/undefined → empty, Date → ISO 8601, string → guarded and quoted as needed. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  let text = value instanceof Date ? value.toISOString() : typeof value === 'string' ? value : JSON.stringify(value);
  if (typeof value === 'string' && FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record as a CSV line, CRLF-terminated. */
export function csvLine(values: readonly unknown[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}

/** The text of a cell read back from a file we wrote: removes the formula guard's quote. */
export function csvUnguard(text: string): string {
  return text.charCodeAt(0) === 0x27 && GUARDED.test(text) ? text.slice(1) : text;
}

/**
 * A cell read from a CSV file, written back so that a reader who applies `csvUnguard` reads what
 * it read from the original: `csvCell(csvUnguard(text))`, without its two regular expressions (a
 * cell that had the guard keeps it; one starting with a formula character gets it).
 */
export function csvCellAsRead(text: string): string {
  if (text === '') return text;
  const c = text.charCodeAt(0);
  // = + - @ tab CR
  const guarded = c === 0x3d || c === 0x2b || c === 0x2d || c === 0x40 || c === 0x09 || c === 0x0d ? `'${text}` : text;
  return NEEDS_QUOTES.test(guarded) ? `"${guarded.replaceAll('"', '""')}"` : guarded;
}

/** Byte-order mark written first, so spreadsheet programs read the file as UTF-8. */
export const CSV_BOM = '\uFEFF';

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

/**
 * Passes CSV text through, counting its records and ending every record with CRLF (a bare LF
 * between records becomes CRLF; line breaks inside quoted cells are left as they are). Works
 * on bytes across chunk boundaries, without decoding. `onRecords` is called with the running
 * count after each chunk.
 */
export class CsvRecordCounter extends Transform {
  records = 0;
  private quoted = false;
  private last = -1;
  private readonly onRecords: ((records: number) => void) | undefined;

  constructor(onRecords?: (records: number) => void) {
    super();
    this.onRecords = onRecords;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    // First pass: where a CR must be added (LF ending a record without one before it).
    const inserts: number[] = [];
    let quoted = this.quoted;
    let previous = this.last;
    let records = 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (c === QUOTE) quoted = !quoted;
      else if (c === LF && !quoted) {
        records += 1;
        if (previous !== CR) inserts.push(i);
      }
      previous = c;
    }
    this.quoted = quoted;
    if (chunk.length > 0) this.last = chunk[chunk.length - 1]!;
    this.records += records;
    let out = chunk;
    if (inserts.length > 0) {
      out = Buffer.allocUnsafe(chunk.length + inserts.length);
      let from = 0;
      let at = 0;
      for (const i of inserts) {
        at += chunk.copy(out, at, from, i);
        out[at++] = CR;
        from = i;
      }
      chunk.copy(out, at, from);
    }
    if (records > 0) this.onRecords?.(this.records);
    done(null, out);
  }

  override _flush(done: TransformCallback): void {
    // A last record without its line end.
    if (this.last !== -1 && this.last !== LF) {
      this.records += 1;
      this.onRecords?.(this.records);
      done(null, Buffer.from('\r\n'));
      return;
    }
    done();
  }
}
