// The time-clock service's error body `{ message, code, details }` read into the kit's one error
// type (web/shared/api/errors.ts): the HTTP status, the string code (OUTSIDE_GEOFENCE,
// DUPLICATE_EVENT, …), the details (distanceMetres, field, …), the field they name as a dotted
// path, and Retry-After. Screens explain a refusal from its code and details in the worker's
// language; the server's message is the fallback.
import { ApiError, networkError as noAnswer } from '../../../shared/api/errors.ts';

export { ApiError };

export interface ErrorBody {
  message: string;
  code: string;
  details: Record<string, unknown>;
}

/** `No answer came`: code NETWORK, status 0 (`offline`). */
export const networkError = (err: unknown) => noAnswer(err, 'NETWORK');

/** `/body/name`, `body.name` or `name` as `name`; `/body/products/0` as `products.0`. */
const fieldPath = (field: unknown) => (typeof field === 'string' ? field.replace(/^\/?body\/?/, '').replace(/^body\./, '').replaceAll('/', '.') || undefined : undefined);

export function apiErrorOf(status: number, body: unknown, retryAfter?: string | null): ApiError<string> {
  const seconds = retryAfter ? Number(retryAfter) : undefined;
  const wait = Number.isFinite(seconds) ? seconds : undefined;
  if (body && typeof body === 'object' && 'code' in body && 'message' in body) {
    const e = body as Partial<ErrorBody>;
    const details = e.details && typeof e.details === 'object' ? e.details : {};
    return new ApiError(status, String(e.code), String(e.message), { details, field: fieldPath(details.field), retryAfter: wait });
  }
  return new ApiError(status, status >= 500 ? 'INTERNAL_ERROR' : 'HTTP_ERROR', `HTTP ${status}`, { retryAfter: wait });
}
