// One error type for every failure of a request, whichever service answered: the HTTP status
// (0 when no answer came), the service's code (the console's numeric business code, the time
// clock's string code), the server's message, the trace id to quote, the request field a
// validation failure names (`username`, `products.0.price`), the details and Retry-After. Each
// client reads its service's envelope into it (its api/errors.ts).

export interface ApiErrorInit {
  traceId?: string | undefined;
  /** The body field a validation failure or a conflict names, as a dotted path. */
  field?: string | undefined;
  details?: Record<string, unknown>;
  /** Seconds to wait, from Retry-After (rate limits). */
  retryAfter?: number | undefined;
  /** The answer says that the session is over (expired, revoked, invalid). */
  sessionEnded?: boolean;
}

export class ApiError<C extends number | string = number | string> extends Error {
  override name = 'ApiError';
  /** HTTP status; 0 when no answer came (network). */
  readonly status: number;
  readonly code: C;
  readonly traceId: string | undefined;
  readonly field: string | undefined;
  readonly details: Record<string, unknown>;
  readonly retryAfter: number | undefined;
  readonly sessionEnded: boolean;
  constructor(status: number, code: C, message: string, init: ApiErrorInit = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.traceId = init.traceId;
    this.field = init.field;
    this.details = init.details ?? {};
    this.retryAfter = init.retryAfter;
    this.sessionEnded = init.sessionEnded ?? false;
  }
  /** No answer came: the request may be sent again later. */
  get offline(): boolean {
    return this.status === 0;
  }
}

/** The same refusal, about another field (a step of a save that fills that field). */
export const atField = <C extends number | string>(err: ApiError<C>, field: string) =>
  new ApiError(err.status, err.code, err.message, { traceId: err.traceId, field, details: err.details, retryAfter: err.retryAfter, sessionEnded: err.sessionEnded });

/** A fetch that never reached the server. */
export const networkError = <C extends number | string>(cause: unknown, code: C) => new ApiError(0, code, cause instanceof Error ? cause.message : String(cause));
