// The time-clock service's error body `{ message, code, details }` as one error type: the HTTP
// status, the string code (OUTSIDE_GEOFENCE, DUPLICATE_EVENT, …), the details (distanceMetres,
// field, …) and the server's message. Screens explain a refusal from its code and details in the
// worker's language; the server's message is the fallback.

export interface ErrorBody {
  message: string;
  code: string;
  details: Record<string, unknown>;
}

export class ApiError extends Error {
  override name = 'ApiError';
  /** HTTP status; 0 when no answer came (no network, server unreachable). */
  readonly status: number;
  /** The service's code; `NETWORK` when no answer came. */
  readonly code: string;
  readonly details: Record<string, unknown>;
  /** Seconds to wait, from Retry-After (rate limits). */
  readonly retryAfter: number | undefined;
  constructor(status: number, code: string, message: string, details: Record<string, unknown> = {}, retryAfter?: number) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
    this.retryAfter = retryAfter;
  }
  /** No answer came: the request may be sent again later. */
  get offline(): boolean {
    return this.status === 0;
  }
}

export const networkError = (err: unknown) => new ApiError(0, 'NETWORK', err instanceof Error ? err.message : String(err));

export function apiErrorOf(status: number, body: unknown, retryAfter?: string | null): ApiError {
  const seconds = retryAfter ? Number(retryAfter) : undefined;
  if (body && typeof body === 'object' && 'code' in body && 'message' in body) {
    const e = body as Partial<ErrorBody>;
    return new ApiError(status, String(e.code), String(e.message), e.details && typeof e.details === 'object' ? e.details : {}, Number.isFinite(seconds) ? seconds : undefined);
  }
  return new ApiError(status, status >= 500 ? 'INTERNAL_ERROR' : 'HTTP_ERROR', `HTTP ${status}`, {}, Number.isFinite(seconds) ? seconds : undefined);
}
