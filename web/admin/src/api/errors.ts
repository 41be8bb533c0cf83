// The service's error envelope `{ code, message, data: null, trace_id }` as one error type for
// every screen: the business code, the localised message the server wrote, the trace id to
// quote, and the field a validation failure names (shown next to that field).

export interface Envelope<T> {
  code: number;
  message: string;
  data: T;
  trace_id: string;
}

/** Codes that mean the session is over: expired, revoked (kicked out, password changed), invalid. */
export const SESSION_ENDED = new Set([10003, 10004, 10007]);

export class ApiError extends Error {
  override name = 'ApiError';
  /** HTTP status; 0 when no answer came (network). */
  readonly status: number;
  /** Business code of the envelope (0 when there was none). */
  readonly code: number;
  readonly traceId: string | undefined;
  /** The request field a validation failure names (`username`, `products.0.price`). */
  readonly field: string | undefined;
  constructor(status: number, code: number, message: string, traceId?: string, field?: string) {
    super(message);
    this.status = status;
    this.code = code;
    this.traceId = traceId;
    this.field = field;
  }
  get sessionEnded(): boolean {
    return this.status === 401 && SESSION_ENDED.has(this.code);
  }
}

/**
 * The field a validation message names: the server writes `body.username must …`,
 * `querystring.page_size must be <= 100` or `body.products.0.price …`.
 */
export function fieldOf(message: string): string | undefined {
  const m = /\b(?:body|querystring|params)\.([A-Za-z_][\w.]*)/.exec(message);
  return m ? m[1]!.replace(/\.$/, '') : undefined;
}

/** The error of an answer that is not a success, from its status and its (parsed) body. */
export function apiErrorOf(status: number, body: unknown, traceId?: string | null): ApiError {
  if (body && typeof body === 'object' && 'code' in body && 'message' in body) {
    const e = body as Partial<Envelope<unknown>>;
    const message = String(e.message);
    return new ApiError(status, Number(e.code) || 0, message, e.trace_id ?? traceId ?? undefined, Number(e.code) === 30001 ? fieldOf(message) : undefined);
  }
  return new ApiError(status, 0, typeof body === 'string' && body ? body.slice(0, 200) : `HTTP ${status}`, traceId ?? undefined);
}

/** A fetch that never reached the server. */
export const networkError = (cause: unknown) => new ApiError(0, 0, cause instanceof Error ? cause.message : String(cause));
