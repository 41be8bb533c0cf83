// What an export is made of: a kind's columns and rows (or CSV text it writes itself), and the
// XLSX writer a row kind's task may use (exceljs's WorkbookWriter, loaded on the first XLSX task:
// one sheet, a bold header row, typed numeric cells with their number formats, and a totals row
// of SUM formulas with their values when the kind asks for one). The queue that runs them is
// ./export-tasks.ts.
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';

export interface ExportColumn<R> {
  header: string;
  /** The CSV cell (and the XLSX cell unless `xlsx.value` is given). */
  value: (row: R) => unknown;
  /** XLSX only: a numeric cell (`value`), its number format (`numFmt`, e.g. `0.00`, `[h]:mm`), summed in the totals row (`total`). */
  xlsx?: { value?: (row: R) => number; numFmt?: string; total?: boolean; width?: number };
}

export type ExportFormat = 'csv' | 'xlsx';

export interface ExportKind<R = never> {
  /** The columns, fixed or chosen by the task's parameters (a detail level, a language). */
  columns: readonly ExportColumn<R>[] | ((params: Record<string, unknown>) => readonly ExportColumn<R>[]);
  /** The rows to write, in order; stop early when `signal` aborts. */
  rows: (params: Record<string, unknown>, signal: AbortSignal) => AsyncIterable<R>;
  /** The file's format (default CSV). */
  format?: (params: Record<string, unknown>) => ExportFormat;
  /** XLSX: the sheet's name, and the first cell of a totals row (none when absent). */
  sheet?: (params: Record<string, unknown>) => { name: string; totalsLabel?: string };
}

/** A kind that writes CSV text itself: the file is the header, then `csv`'s records as given. */
export interface CsvExportKind {
  header: readonly string[];
  /** CSV records without a header (RFC 4180; LF or CRLF line ends), in chunks of any size. */
  csv: (params: Record<string, unknown>, signal: AbortSignal) => AsyncIterable<Uint8Array | string>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyExportKind = ExportKind<any> | CsvExportKind;

/** Kinds by name; the generic helper keeps each kind's row type checked against its columns. */
export function exportKind<R>(kind: ExportKind<R>): ExportKind<R> {
  return kind;
}

export function columnsOf<R>(kind: ExportKind<R>, params: Record<string, unknown>): readonly ExportColumn<R>[] {
  return typeof kind.columns === 'function' ? kind.columns(params) : kind.columns;
}

/** Column letters of a 1-based index (1 → A, 27 → AA). */
function columnLetter(n: number): string {
  let out = '';
  for (let i = n; i > 0; i = Math.floor((i - 1) / 26)) out = String.fromCharCode(65 + ((i - 1) % 26)) + out;
  return out;
}

/**
 * Streams a kind's rows into `file` as an XLSX workbook (closing the file on failure); `progress`
 * gets the rows written so far. bench/timesheets.ts's bare reference streams the same rows through it.
 */
export async function streamXlsx<R>(
  kind: ExportKind<R>,
  params: Record<string, unknown>,
  file: Writable,
  signal: AbortSignal,
  progress: (written: number) => Promise<void>,
): Promise<void> {
  try {
    await writeWorkbook(kind, params, file, signal, progress);
  } catch (err) {
    file.destroy();
    throw err;
  }
}

async function writeWorkbook<R>(...[kind, params, file, signal, progress]: Parameters<typeof streamXlsx<R>>): Promise<void> {
  const { default: ExcelJS } = await import('exceljs');
  const columns = columnsOf(kind, params);
  const sheetInfo = kind.sheet?.(params);
  const book = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: file, useStyles: true, useSharedStrings: false });
  const sheet = book.addWorksheet((sheetInfo?.name ?? 'Export').replace(/[[\]*?:/\\]/g, ' ').slice(0, 31), { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = columns.map((c) => ({
    header: c.header,
    width: c.xlsx?.width ?? Math.max(10, Math.min(40, c.header.length + 4)),
    ...(c.xlsx?.numFmt ? { style: { numFmt: c.xlsx.numFmt } } : {}),
  }));
  const header = sheet.getRow(1);
  header.font = { bold: true };
  header.commit();
  const sums = columns.map(() => 0);
  let written = 0;
  for await (const row of kind.rows(params, signal)) {
    signal.throwIfAborted();
    sheet.addRow(columns.map((c, i) => {
      if (!c.xlsx?.value) return c.value(row) ?? null;
      const v = c.xlsx.value(row);
      if (c.xlsx.total) sums[i]! += v;
      return v;
    })).commit();
    written += 1;
    await progress(written);
  }
  if (sheetInfo?.totalsLabel !== undefined) {
    const totals = sheet.addRow(columns.map((c, i) => {
      if (i === 0) return sheetInfo.totalsLabel;
      if (!c.xlsx?.total) return null;
      const letter = columnLetter(i + 1);
      return { formula: `SUM(${letter}2:${letter}${written + 1})`, result: sums[i] };
    }));
    totals.font = { bold: true };
    totals.commit();
  }
  sheet.commit();
  const closed = finished(file);
  await book.commit();
  await closed;
}
