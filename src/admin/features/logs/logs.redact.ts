// What a log row may keep of a request or a log context: secrets are replaced wherever their
// key appears (at any depth, in any spelling: old_password, oldPassword, OLD-PASSWORD), large
// values are cut so that one row stays small, and text PostgreSQL cannot store (NUL, unpaired
// surrogates, also those a cut leaves) is written out as `\uXXXX`, so one hostile request
// can never make a log row, or the batch it is written with, unwritable.
import { isSecretFieldName } from '../../../platform/secret-fields.ts';
import { escapeIllFormed } from '../../../platform/text.ts';

const CENSOR = '[redacted]';
/** Empty values stay as they are: censoring them would only hide that nothing was given. */
const censorable = (v: unknown) => v !== null && v !== undefined && v !== '';

export interface RedactLimits {
  /** Longest string kept whole. */
  maxString: number;
  /** Most array items and object keys kept. */
  maxItems: number;
  maxDepth: number;
}

const DEFAULTS: RedactLimits = { maxString: 512, maxItems: 50, maxDepth: 6 };

/**
 * A JSON-safe copy of `value` with secrets censored and large values cut. Buffers, streams
 * and other non-plain objects are described, never serialised.
 */
export function redact(value: unknown, limits: RedactLimits = DEFAULTS, depth = 0): unknown {
  if (value === null || value === undefined) return value ?? null;
  switch (typeof value) {
    case 'string':
      return escapeIllFormed(value.length > limits.maxString ? `${value.slice(0, limits.maxString)}…[${value.length - limits.maxString} more chars]` : value);
    case 'number':
      return Number.isFinite(value) ? value : String(value);
    case 'boolean':
      return value;
    case 'bigint':
      return value.toString();
    case 'object':
      break;
    default:
      return `[${typeof value}]`;
  }
  if (depth >= limits.maxDepth) return '[too deep]';
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return `[binary ${value.byteLength} bytes]`;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (value instanceof Error) return describeError(value, limits);
  if (Array.isArray(value)) {
    const items = value.slice(0, limits.maxItems).map((v) => redact(v, limits, depth + 1));
    if (value.length > limits.maxItems) items.push(`…[${value.length - limits.maxItems} more items]`);
    return items;
  }
  // Plain objects only (null-prototype ones too, as route params and query strings are).
  const ctor = (value as { constructor?: unknown }).constructor;
  if (ctor !== undefined && ctor !== Object) return `[${typeof ctor === 'function' ? ctor.name : 'object'}]`;
  const out: Record<string, unknown> = {};
  const entries = Object.entries(value as Record<string, unknown>);
  for (const [k, v] of entries.slice(0, limits.maxItems)) {
    out[escapeIllFormed(k)] = isSecretFieldName(k) && censorable(v) ? CENSOR : redact(v, limits, depth + 1);
  }
  if (entries.length > limits.maxItems) out['…'] = `${entries.length - limits.maxItems} more keys`;
  return out;
}

/** `body` with the named top-level fields censored: secrets that go by a name that is not secret. */
export function maskFields(body: unknown, fields: readonly string[]): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const out = { ...(body as Record<string, unknown>) };
  for (const f of fields) if (censorable(out[f])) out[f] = CENSOR;
  return out;
}

/** An error as a log context keeps it: type, message, code and the first lines of its stack. */
export function describeError(err: Error, limits: RedactLimits = DEFAULTS): Record<string, unknown> {
  const e = err as Error & { code?: unknown; statusCode?: unknown; cause?: unknown };
  const out: Record<string, unknown> = { type: escapeIllFormed(e.name), message: redact(e.message, limits, limits.maxDepth - 1) };
  if (typeof e.code === 'string' || typeof e.code === 'number') out.code = escapeIllFormed(String(e.code));
  if (typeof e.statusCode === 'number') out.status_code = e.statusCode;
  if (e.stack) out.stack = escapeIllFormed(e.stack.split('\n').slice(0, 12).join('\n').slice(0, 4000));
  if (e.cause instanceof Error) out.cause = { type: escapeIllFormed(e.cause.name), message: escapeIllFormed(e.cause.message.slice(0, limits.maxString)) };
  return out;
}

/** Keeps a redacted value under `maxBytes` of JSON: a larger one becomes a cut preview. */
export function capJson(value: unknown, maxBytes = 8192): Record<string, unknown> {
  const obj = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
  const json = JSON.stringify(obj);
  if (json.length <= maxBytes) return obj;
  return { truncated: true, size: json.length, preview: escapeIllFormed(json.slice(0, maxBytes)) };
}
