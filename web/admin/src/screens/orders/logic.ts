// The orders screen's logic that needs no browser: money as integer cents read from the typed
// decimal text (never float arithmetic), the 3-calendar-month limit of the date range (the
// server's rule, checked before any request), and the rows of a CSV import's error table.
import type { paths } from '../../api/schema.gen.ts';

/** Largest value of a numeric(12,2) column, in cents (the server's limit). */
export const MAX_CENTS = 999_999_999_999n;
const MONEY_RE = /^(\d{1,10})(?:\.(\d{0,2}))?$/;
const QUANTITY_MAX = 2_147_483_647;

/** Integer cents of decimal text ("12", "12.5", "12.50", "12."), or null (negative, >2 decimals, too large, not a number). */
export function parseCents(text: string | undefined | null): bigint | null {
  const m = MONEY_RE.exec((text ?? '').trim());
  if (!m) return null;
  const cents = BigInt(m[1]!) * 100n + BigInt((m[2] ?? '').padEnd(2, '0'));
  return cents <= MAX_CENTS ? cents : null;
}

/** A quantity: an integer 1 … 2147483647 typed as digits, or null. */
export function parseQuantity(text: string | undefined | null): number | null {
  const t = (text ?? '').trim();
  if (!/^[1-9]\d{0,9}$/.test(t)) return null;
  const n = Number(t);
  return n <= QUANTITY_MAX ? n : null;
}

/** `1234n` → `"12.34"`. */
export function centsText(cents: bigint): string {
  const negative = cents < 0n;
  const s = (negative ? -cents : cents).toString().padStart(3, '0');
  return `${negative ? '-' : ''}${s.slice(0, -2)}.${s.slice(-2)}`;
}

/**
 * Cents as the JSON number the API takes: the number whose shortest decimal form is exactly
 * the text (`Number("12.35")` prints as 12.35), so the server reads back the same cents.
 */
export const centsToNumber = (cents: bigint): number => Number(centsText(cents));

/** A number from the API (at most 2 decimals) as cents, through its decimal text. */
export const numberToCents = (n: number): bigint => parseCents(String(n)) ?? 0n;

export interface ProductLine {
  price?: string | undefined;
  quantity?: string | undefined;
}

/** price × quantity in cents, or null while either is not valid. */
export function lineCents(line: ProductLine | undefined): bigint | null {
  const price = parseCents(line?.price);
  const quantity = parseQuantity(line?.quantity);
  return price === null || quantity === null ? null : price * BigInt(quantity);
}

/** Σ price × quantity of the lines, and whether every line is complete (the total is then the amount). */
export function orderTotal(lines: readonly (ProductLine | undefined)[]): { cents: bigint; complete: boolean } {
  let cents = 0n;
  let complete = lines.length > 0;
  for (const line of lines) {
    const c = lineCents(line);
    if (c === null) complete = false;
    else cents += c;
  }
  return { cents, complete: complete && cents <= MAX_CENTS };
}

// ---- The date range: at most 3 calendar months, on whole days (YYYY-MM-DD). ----

export const MAX_MONTHS = 3;
const DAY_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** `day` moved by whole calendar months, the day clamped to the month's last (as the server does): 11-30 + 3 → 02-28. */
export function addMonthsDay(day: string, months: number): string {
  const m = DAY_RE.exec(day);
  if (!m) throw new Error(`not a day: ${day}`);
  const index = Number(m[1]) * 12 + Number(m[2]) - 1 + months;
  const year = Math.floor(index / 12);
  const month = index - year * 12 + 1;
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return `${pad(year, 4)}-${pad(month)}-${pad(Math.min(Number(m[3]), last))}`;
}

/**
 * Whether the days `startDay` 00:00:00 … `endDay` 23:59:59 span more than 3 calendar months:
 * the server refuses an end after the start plus 3 months (03-01 … 05-31 is allowed, 03-01 … 06-01 is not).
 */
export function rangeTooLong(startDay: string, endDay: string, months = MAX_MONTHS): boolean {
  return endDay >= addMonthsDay(startDay, months);
}

/** For the picker: whether `day` cannot be the other end of a range whose first picked end is `picked`. */
export function outsideRange(day: string, picked: string, months = MAX_MONTHS): boolean {
  return day < picked ? rangeTooLong(day, picked, months) : rangeTooLong(picked, day, months);
}

// ---- CSV import reply. ----

/** The reply of POST /orders/import, as the server's OpenAPI document declares it. */
export type ImportSummary = paths['/api/admin/orders/import']['post']['responses'][200]['content']['application/json']['data'];

export interface ImportErrorRow {
  key: string;
  row: number;
  requestId: string;
  reason: string;
}

/** The error table's rows, by row number (a row with several problems keeps them in order), `—` for no request_id. */
export function importErrorRows(summary: Pick<ImportSummary, 'errors'>): ImportErrorRow[] {
  return summary.errors
    .map((e, i) => ({ e, i }))
    .sort((a, b) => a.e.row - b.e.row || a.i - b.i)
    .map(({ e, i }) => ({ key: `${e.row}-${i}`, row: e.row, requestId: e.request_id ?? '—', reason: e.reason }));
}

/** How the summary is shown: all imported, some, or none. */
export function importOutcome(s: Pick<ImportSummary, 'total' | 'succeeded' | 'failed'>): 'success' | 'warning' | 'error' {
  if (s.failed === 0 && s.total > 0) return 'success';
  return s.succeeded > 0 ? 'warning' : 'error';
}
