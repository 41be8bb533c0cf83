// The console service's error envelope `{ code, message, data: null, trace_id }` read into the
// kit's one error type (web/shared/api/errors.ts): the numeric business code, the localised
// message the server wrote, the trace id to quote, and the field a validation failure names.
import { ApiError, networkError as noAnswer } from '../../../shared/api/errors.ts';
import { describeErrors } from '../../../shared/feedback.ts';

export { ApiError };

export interface Envelope<T> {
  code: number;
  message: string;
  data: T;
  trace_id: string;
}

/** Codes that mean the session is over: expired, revoked (kicked out, password changed), invalid. */
export const SESSION_ENDED = new Set([10003, 10004, 10007]);

/**
 * The field a validation message names: the server writes `body.username must …`,
 * `querystring.page_size must be <= 100` or `body.products.0.price …`.
 */
export function fieldOf(message: string): string | undefined {
  const m = /\b(?:body|querystring|params)\.([A-Za-z_][\w.]*)/.exec(message);
  return m ? m[1]!.replace(/\.$/, '') : undefined;
}

/** The error of an answer that is not a success, from its status and its (parsed) body. */
export function apiErrorOf(status: number, body: unknown, traceId?: string | null): ApiError<number> {
  if (body && typeof body === 'object' && 'code' in body && 'message' in body) {
    const e = body as Partial<Envelope<unknown>>;
    const message = String(e.message);
    const code = Number(e.code) || 0;
    return new ApiError(status, code, message, {
      traceId: e.trace_id ?? traceId ?? undefined,
      field: code === 30001 ? fieldOf(message) : undefined,
      sessionEnded: status === 401 && SESSION_ENDED.has(code),
    });
  }
  return new ApiError(status, 0, typeof body === 'string' && body ? body.slice(0, 200) : `HTTP ${status}`, { traceId: traceId ?? undefined });
}

/** A fetch that never reached the server. */
export const networkError = (cause: unknown) => noAnswer(cause, 0);

/**
 * A refusal's message for a person: a validation refusal about the meaning of a value (a wrong
 * authenticator code) without the generic "Parameter validation failed:" in front; one about a
 * request field keeps it (`body.amount must be ≥ 0` alone says less).
 */
export function plainMessage(err: ApiError): string {
  if (err.code !== 30001) return err.message;
  const m = /^[^:：]{1,40}[:：]\s*(.+)$/s.exec(err.message);
  return m && !/^(body|querystring|params)\./.test(m[1]!) ? m[1]! : err.message;
}

describeErrors(plainMessage);
