// Errors that carry a registry entry. Each service declares its registry (business code,
// HTTP status, localised message) once in its errors.ts; handlers throw AppError with an
// entry and the service's error handler renders it in that service's shape.
import { translate, type MessageKey, type Msg } from '../i18n.ts';

export interface ErrorDef<C extends number | string = number | string> {
  readonly code: C;
  readonly status: number;
  /** The catalogue key of the entry's message (src/messages/). */
  readonly message: MessageKey;
}

export interface AppErrorOptions {
  /** Values substituted into the message template. */
  params?: Record<string, unknown>;
  /** A more precise reason, appended to the entry's message in the reader's language. */
  detail?: Msg | readonly Msg[];
  /** Structured information for clients (the time-clock `details` object); any `Msg` in it is rendered. */
  details?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export class AppError extends Error {
  override name = 'AppError';
  readonly def: ErrorDef;
  readonly options: AppErrorOptions;
  constructor(def: ErrorDef, options: AppErrorOptions = {}) {
    super(translate(options.detail ?? def.message, 'en-US'));
    this.def = def;
    this.options = options;
  }
}

export function defineErrors<C extends number | string, const T extends Record<string, ErrorDef<C>>>(defs: T): T {
  const seen = new Set<C>();
  for (const def of Object.values(defs)) {
    if (seen.has(def.code)) throw new Error(`duplicate error code ${String(def.code)}`);
    seen.add(def.code);
  }
  return defs;
}

/** The entries every service must provide for framework-level failures. */
export interface FrameworkErrors {
  validation: ErrorDef;
  malformedBody: ErrorDef;
  notFound: ErrorDef;
  methodNotAllowed: ErrorDef;
  bodyTooLarge: ErrorDef;
  unsupportedMediaType: ErrorDef;
  tooManyRequests: ErrorDef;
  unauthorized: ErrorDef;
  internal: ErrorDef;
  /** A dependency (database, Redis) cannot be used now: 503 with Retry-After. */
  unavailable: ErrorDef;
}

/**
 * Bad input found after schema validation (a reversed time range, an impossible date).
 * Each service renders it with its own validation entry.
 */
export class InvalidInput extends Error {
  override name = 'InvalidInput';
  readonly field: string | undefined;
  readonly detail: Msg;
  constructor(detail: Msg, field?: string) {
    super(translate(detail, 'en-US'));
    this.detail = detail;
    this.field = field;
  }
}
