// PostgreSQL error codes (SQLSTATE) of driver errors, the same from PGlite and postgres.js,
// also when Drizzle wraps the driver's error in its own (`cause`).
export const UNIQUE_VIOLATION = '23505';
export const FOREIGN_KEY_VIOLATION = '23503';
/** A statement cancelled: its statement_timeout passed (or it was cancelled on purpose). */
export const QUERY_CANCELED = '57014';

export function pgErrorCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | null;
  const code = typeof e?.code === 'string' ? e.code : typeof e?.cause?.code === 'string' ? e.cause.code : undefined;
  return code && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

export const isUniqueViolation = (err: unknown) => pgErrorCode(err) === UNIQUE_VIOLATION;

/** Errors of postgres.js (and the system) that mean the server cannot be reached. */
const CONNECTION_CODES = new Set([
  'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT',
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN',
]);

/**
 * The database cannot be reached (rather than a statement being wrong): a connection that failed
 * or closed, SQLSTATE class 08 (connection exception), 57P01-57P03 (shutting down, crashed,
 * starting), or class 53 (insufficient resources: no connection slot left, out of memory, disk
 * full; the server refuses new connections with 53300 when every slot is taken). Also when a
 * driver error is wrapped (Drizzle puts it in `cause`).
 */
export function isConnectionError(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown } | null | undefined, depth = 0; e && depth < 3; e = e.cause as typeof e, depth++) {
    const code = typeof e.code === 'string' ? e.code : undefined;
    if (code && (CONNECTION_CODES.has(code) || code.startsWith('08') || code.startsWith('53') || /^57P0[1-3]$/.test(code))) return true;
  }
  return false;
}
