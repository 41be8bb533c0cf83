// CSV cells and lines for exports (RFC 4180, CRLF line ends). Text cells that a spreadsheet
// would read as a formula (starting with = + - @, tab or CR) get a leading single quote;
// numbers, booleans and dates are written as values and never prefixed.

const FORMULA_START = /^[=+\-@\t\r]/;
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

/** Byte-order mark written first, so spreadsheet programs read the file as UTF-8. */
export const CSV_BOM = '\uFEFF';
