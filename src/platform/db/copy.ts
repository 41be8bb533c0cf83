// COPY on both drivers: the text format of COPY FROM (copyText), array parameters of bulk
// statements (pgArray), and the statement of a COPY TO with its parameters quoted by the server.
import type { RawExec } from './database.ts';

/**
 * A PostgreSQL array literal (`{"a","b",NULL}`) to pass as one parameter cast to an array type
 * (`$1::text[]`, `$2::bigint[]`): both drivers send it as text, and bulk statements
 * (`INSERT … SELECT FROM unnest($1::text[], …)`) take thousands of rows in one round trip.
 */
export function pgArray(values: readonly (string | number | null)[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i > 0) out += ',';
    if (v === null || v === undefined) out += 'NULL';
    else if (typeof v === 'number') out += String(v);
    else out += /["\\]/.test(v) ? `"${v.replace(/["\\]/g, '\\$&')}"` : `"${v}"`;
  }
  return `${out}}`;
}

/** A value as a field of COPY's text format: NULL as `\N`; backslash, tab, CR and LF escaped. */
export function copyText(value: string | number | null): string {
  if (value === null) return '\\N';
  if (typeof value === 'number') return String(value);
  return /[\\\t\n\r]/.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]!) : value;
}
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** `COPY (select) TO target WITH (FORMAT csv)` with `$n` replaced by server-quoted literals. */
export async function copyStatement(query: RawExec, select: string, params: readonly unknown[], target: string): Promise<string> {
  if (params.length === 0) return `COPY (${select}) TO ${target} WITH (FORMAT csv)`;
  const template = `COPY (${select.replaceAll('%', '%%').replace(/\$(\d+)/g, (_m, n: string) => `%${n}$L`)}) TO ${target} WITH (FORMAT csv)`;
  const values = params.map((p) => {
    if (p === null || p === undefined) return null;
    if (p instanceof Date) return p.toISOString();
    if (typeof p === 'string') return p;
    if (typeof p === 'number' || typeof p === 'bigint' || typeof p === 'boolean') return String(p);
    throw new TypeError('copyOut parameters are scalars');
  });
  const [row] = await query<{ statement: string }>('SELECT format($1, VARIADIC $2::text[]) AS statement', [template, values]);
  return row!.statement;
}
