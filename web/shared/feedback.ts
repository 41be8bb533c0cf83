// A failure in words for a person, in the reader's language, and the server's field errors put
// next to the fields they name. No React and no Ant Design here: the worker screens and the unit
// tests use it. The kit's own strings are the namespace `kit`, which each client fills with its
// words (web/shared/kitStrings.ts says which).
import { ApiError } from './api/errors.ts';

/** A translation function of any namespace (keys named with their namespace: `kit:error.network`). */
export type Tr = (key: string) => string;

/** How a client words a refusal of its service (undefined: the server's message). */
export type Describe = (err: ApiError, t: Tr) => string | undefined;
let describe: Describe = () => undefined;

/** Sets how this client words its service's refusals (its api/errors.ts, once). */
export function describeErrors(fn: Describe): void {
  describe = fn;
}

/** A refusal or failure in words, in the reader's language (the server's message otherwise). */
export function messageOf(err: unknown, t: Tr): string {
  if (err instanceof ApiError) return err.offline ? t('kit:error.network') : describe(err, t) ?? err.message;
  return err instanceof Error ? err.message : String(err);
}

/**
 * The server's refusal put next to the form field it names (`email`; `products.0.price` is about
 * `products`), when the form has it. `fallback`: the field a refused value (400) that names none,
 * or one the form lacks, is about.
 */
export function fieldErrorsOf<const K extends string>(err: unknown, fields: readonly K[], t: Tr, fallback?: K): { name: K; errors: string[] }[] {
  if (!(err instanceof ApiError)) return [];
  const head = (err.field ?? '').split('.')[0]!;
  const name = fields.find((f) => f === head) ?? (err.status === 400 ? fallback : undefined);
  return name === undefined ? [] : [{ name, errors: [messageOf(err, t)] }];
}
