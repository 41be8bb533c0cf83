// The orders CSV, written by the export and read by the import: one record per order, its
// products as a JSON array in the `products` cell, so that an exported file re-imports into
// the same orders. Times are `YYYY-MM-DD HH:mm:ss` in the display time zone.
//
//   order_no,request_id,user_id,amount,status,paid_at,created_at,products
//   20260131120000123…,req-1,42,25.00,paid,2026-01-31 12:05:00,2026-01-31 12:00:00,"[{""product_id"":7,""product_name"":""Tea"",""price"":12.50,""quantity"":2}]"
//
// Text cells that start with = + - @, tab or CR are written with a leading `'` (formula
// guard); the import removes it again (csvUnguard), so the values round-trip exactly.
//
// The rejected rows of an import are given back in the same layout: the file's own header and
// each refused record's cells, then an `error` column, which the import ignores, so that the
// file imports again once fixed.
import { csvCellAsRead, csvUnguard } from '../../../platform/jobs/csv.ts';
import { ORDER_STATUSES, type OrderStatus } from '../../db/schema.ts';
import { checkOrder, type OrderItemInput } from './orders.rules.ts';
import { OrderLookupQuery } from './orders.schema.ts';
import { msg, type Msg } from '../../../platform/i18n.ts';

export const ORDER_CSV_COLUMNS = ['order_no', 'request_id', 'user_id', 'amount', 'status', 'paid_at', 'created_at', 'products'] as const;
export type OrderCsvColumn = (typeof ORDER_CSV_COLUMNS)[number];

/**
 * The sample import file offered for download: the header with every column and one order the
 * import accepts (order number, status and times left empty: generated, pending, now).
 */
export const ORDER_IMPORT_SAMPLE: Readonly<Record<OrderCsvColumn, unknown>> = {
  order_no: '',
  request_id: 'sample-order-0001',
  user_id: 1001,
  amount: '37.50',
  status: '',
  paid_at: '',
  created_at: '',
  products: JSON.stringify([
    { product_id: 7, product_name: 'Green tea', price: 12.5, quantity: 2 },
    { product_id: 9, product_name: 'Teacup', price: 12.5, quantity: 1 },
  ]),
};

/** The last column of a rejected-rows file: why the row was refused. An import ignores a column of this name. */
export const REJECTED_REASON_COLUMN = 'error';

/** Columns an import file must have; the others may be left out (or left empty in a row). */
export const REQUIRED_IMPORT_COLUMNS: readonly OrderCsvColumn[] = ['request_id', 'user_id', 'amount', 'products'];

/** The order number's rule, as the order routes declare it. */
const ORDER_NO = OrderLookupQuery.properties.order_no as unknown as { pattern: string; maxLength: number };
const ORDER_NO_RE = new RegExp(ORDER_NO.pattern);
const DISPLAY_TIME_RE = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const STATUSES = new Set<string>(ORDER_STATUSES);
/** Control characters that never appear in a CSV text file's header. */
const BINARY = /[\u0000-\u0008\u000e-\u001f]/;

/** Where each column is in the file's records. */
export type ColumnIndex = Readonly<Record<OrderCsvColumn, number>>;

/**
 * The position of each column named by the header record, or why the header is refused;
 * `ignored`: the position of an `error` column (-1 when there is none).
 */
export function readHeader(cells: readonly string[]):
  { ok: true; index: ColumnIndex; width: number; ignored: number } | { ok: false; problem: Msg; binary?: boolean } {
  if (cells.some((c) => BINARY.test(c))) return { ok: false, problem: msg('admin.orders.notCsvText'), binary: true };
  const index: Partial<Record<OrderCsvColumn, number>> = {};
  const unknown: string[] = [];
  const repeated: string[] = [];
  let ignored = -1;
  cells.forEach((raw, i) => {
    const name = raw.trim().toLowerCase();
    if (name === REJECTED_REASON_COLUMN) {
      if (ignored >= 0) repeated.push(name);
      else ignored = i;
    } else if (!(ORDER_CSV_COLUMNS as readonly string[]).includes(name)) unknown.push(raw);
    else if (index[name as OrderCsvColumn] !== undefined) repeated.push(name);
    else index[name as OrderCsvColumn] = i;
  });
  const expected = `the first record must be the header, with the columns ${ORDER_CSV_COLUMNS.join(',')} (required: ${REQUIRED_IMPORT_COLUMNS.join(', ')})`;
  const show = (names: string[]) => names.slice(0, 5).map((n) => JSON.stringify(n.slice(0, 40))).join(', ');
  if (unknown.length > 0) return { ok: false, problem: msg('admin.orders.unknownColumns', { value: show(unknown), expected }) };
  if (repeated.length > 0) return { ok: false, problem: msg('admin.orders.repeatedColumns', { value: show(repeated) }) };
  const missing = REQUIRED_IMPORT_COLUMNS.filter((c) => index[c] === undefined);
  if (missing.length > 0) return { ok: false, problem: msg('admin.orders.missingColumns', { missing, expected }) };
  for (const c of ORDER_CSV_COLUMNS) index[c] ??= -1;
  return { ok: true, index: index as ColumnIndex, width: cells.length, ignored };
}

/**
 * A record as a line of the rejected-rows file (no line end, no `error` cell): its cells as sent,
 * the `error` column at `ignored` left out, a short record padded to `width` with empty cells
 * (a long one keeps all of its cells). Each cell is written so that the import reads it back as
 * it read it this time: a text cell a spreadsheet would take for a formula gets the export's
 * leading `'` (which the import removes), one that had it keeps it.
 */
export function recordLine(cells: readonly string[], width: number, ignored: number): string {
  let line = '';
  let first = true;
  const n = cells.length > width ? cells.length : width;
  for (let i = 0; i < n; i++) {
    if (i === ignored) continue;
    const text = csvCellAsRead(cells[i] ?? '');
    line = first ? text : `${line},${text}`;
    first = false;
  }
  return line;
}

/** The header of the rejected-rows file: the file's header cells as sent (its `error` column left out), then `error`. */
export function rejectedHeader(cells: readonly string[], ignored: number): string[] {
  return [...cells.filter((_, i) => i !== ignored), REJECTED_REASON_COLUMN];
}

/** One order read from a record, ready to be written. */
export interface ImportRow {
  /** Null: a new order number is generated. */
  order_no: string | null;
  request_id: string;
  user_id: number;
  amount: string;
  status: OrderStatus;
  /** `YYYY-MM-DD HH:mm:ss` in the display zone; null: now (paid_at only for paid orders). */
  paid_at: string | null;
  created_at: string | null;
  products: OrderItemInput[];
}

/** Reads and checks one data record under the rules of POST /orders plus the CSV's own columns. */
export function readOrderRecord(cells: readonly string[], index: ColumnIndex, width: number):
  { ok: true; row: ImportRow } | { ok: false; problems: Msg[]; request_id: string | null } {
  const cell = (c: OrderCsvColumn) => (index[c] < 0 ? '' : csvUnguard(cells[index[c]] ?? ''));
  const requestId = cell('request_id');
  const shownId = requestId === '' ? null : requestId.slice(0, 64);
  if (cells.length !== width) return { ok: false, problems: [msg('admin.orders.cellCount', { width, found: cells.length })], request_id: shownId };
  const problems: Msg[] = [];
  if (requestId === '') problems.push(msg('admin.orders.requestIdRequired'));
  let products: unknown;
  const productsText = cell('products');
  try {
    products = JSON.parse(productsText);
  } catch {
    problems.push(msg('admin.orders.productsNotJsonArray'));
    products = undefined;
  }
  const checked = checkOrder({ user_id: cell('user_id'), amount: cell('amount'), products, request_id: requestId });
  if (!checked.ok) problems.push(...checked.problems.filter((p) => products !== undefined || p.key !== 'admin.orders.invalidProducts'));
  // PostgreSQL text cannot hold NUL: refused here rather than failing the whole batch.
  if (checked.ok && checked.order.products.some((p) => p.product_name.includes('\u0000'))) problems.push(msg('admin.orders.productNameNul'));

  const orderNo = cell('order_no');
  if (orderNo !== '' && (orderNo.length > ORDER_NO.maxLength || !ORDER_NO_RE.test(orderNo))) {
    problems.push(msg('admin.orders.invalidOrderNo', { maxLength: ORDER_NO.maxLength }));
  }
  const statusText = cell('status');
  const status = (statusText === '' ? 'pending' : statusText) as OrderStatus;
  if (!STATUSES.has(status)) problems.push(msg('admin.orders.invalidStatus', { ORDER_STATUSES }));
  const paidAt = cell('paid_at');
  const createdAt = cell('created_at');
  if (paidAt !== '' && !isDisplayTime(paidAt)) problems.push(msg('admin.orders.invalidPaidAt'));
  if (paidAt !== '' && status !== 'paid') problems.push(msg('admin.orders.paidAtNotPaid'));
  if (createdAt !== '' && !isDisplayTime(createdAt)) problems.push(msg('admin.orders.invalidCreatedAt'));

  if (problems.length > 0 || !checked.ok) return { ok: false, problems, request_id: shownId };
  return {
    ok: true,
    row: {
      order_no: orderNo === '' ? null : orderNo,
      request_id: requestId,
      user_id: checked.order.user_id,
      amount: checked.order.amount,
      status,
      paid_at: paidAt === '' ? null : paidAt,
      created_at: createdAt === '' ? null : createdAt,
      products: checked.order.products,
    },
  };
}

/** `YYYY-MM-DD HH:mm:ss` naming a real calendar date and time (the zone is applied by the database). */
function isDisplayTime(text: string): boolean {
  if (text.length !== 19 || !DISPLAY_TIME_RE.test(text)) return false;
  const num = (from: number, to: number) => Number(text.slice(from, to));
  const [y, mo, d, h, mi, s] = [num(0, 4), num(5, 7), num(8, 10), num(11, 13), num(14, 16), num(17, 19)];
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return false;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  return d <= (mo === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(mo) ? 30 : 31);
}
