// The before and after values an operation log row keeps of each record its route wrote
// (kernel/audit.ts): the two states are flattened to fields (`order.status`; arrays stay whole
// values), compared, and only the fields whose value changed are kept, all of them for a created
// or deleted record. Secrets are masked after the comparison, so that a changed password or key
// shows as a change of a [redacted] value, never the value; long values are cut as in the rest of
// the row (logs.redact.ts).
import type { RecordChange, RecordId } from '../../kernel/audit.ts';
import { isSecretFieldName } from '../../../platform/secret-fields.ts';
import { redact } from './logs.redact.ts';

const CENSOR = '[redacted]';
/** Nested objects deeper than this stay whole values. */
const MAX_DEPTH = 3;
/** The record's id (its change names it) and own change time (every update moves it; the log row has its time). */
const IGNORED = new Set(['id', 'updated_at']);
/** Most records one row keeps (a batch of more keeps its first ones). */
export const MAX_RECORDS = 100;
/** The most JSON one row's changes take; records past it are left out (and counted in `params`). */
const MAX_BYTES = 64 * 1024;

/** The fields that name a record for people, first found first (a nested record's too: `order.order_no`). */
const NAMES = ['username', 'name', 'title', 'order_no', 'original_name', 'ip', 'label'];

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

/** `{ order: { status: 1 } }` → `{ 'order.status': 1 }`; arrays and values past MAX_DEPTH stay whole. */
function flatten(value: unknown, into: Map<string, unknown>, prefix = '', depth = 0): Map<string, unknown> {
  if (!isPlainObject(value)) return into;
  for (const [k, v] of Object.entries(value)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (!prefix && IGNORED.has(k)) continue;
    if (isPlainObject(v) && depth + 1 < MAX_DEPTH && Object.keys(v).length > 0) flatten(v, into, key, depth + 1);
    else into.set(key, v ?? null);
  }
  return into;
}

const same = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);
const empty = (v: unknown) => v === null || v === undefined || v === '';

/** A value as the log keeps it: a secret's (named by the field's last part) masked, long values cut. */
function shown(field: string, value: unknown): unknown {
  if (empty(value)) return value ?? null;
  if (isSecretFieldName(field.slice(field.lastIndexOf('.') + 1))) return CENSOR;
  return redact(value);
}

/**
 * What changed in the record `id` of `entity` from `before` to `after` (null: it did not exist
 * before / no longer exists); null when it existed in neither state (nothing was written).
 */
export function recordChange(entity: string, id: RecordId, before: unknown, after: unknown): RecordChange | null {
  const hadBefore = isPlainObject(before);
  const hasAfter = isPlainObject(after);
  if (!hadBefore && !hasAfter) return null;
  const b = flatten(before, new Map());
  const a = flatten(after, new Map());
  const fields: RecordChange['fields'] = [];
  for (const field of new Set([...b.keys(), ...a.keys()])) {
    const from = b.get(field) ?? null;
    const to = a.get(field) ?? null;
    if (same(from, to) || (empty(from) && empty(to))) continue;
    fields.push({ field, before: shown(field, from), after: shown(field, to) });
  }
  const label = nameOf(a) ?? nameOf(b);
  return { entity, id: String(id), ...(label ? { label } : {}), op: !hadBefore ? 'create' : !hasAfter ? 'delete' : 'update', fields };
}

/** `changes` within MAX_BYTES: the first records that fit, and how many were left out. */
export function capChanges(changes: RecordChange[]): { changes: RecordChange[]; omitted: number } {
  let size = 2;
  let kept = 0;
  for (const c of changes) {
    size += JSON.stringify(c).length + 1;
    if (size > MAX_BYTES) break;
    kept += 1;
  }
  return { changes: changes.slice(0, kept), omitted: changes.length - kept };
}

/** What people call the record: its first naming field (NAMES), at the top, else one level down (`order.order_no`). */
function nameOf(fields: Map<string, unknown>): string | undefined {
  const named = (v: unknown) => (typeof v === 'string' && v !== '' ? v.slice(0, 128) : undefined);
  for (const name of NAMES) {
    const top = named(fields.get(name));
    if (top) return top;
  }
  for (const name of NAMES) {
    for (const [field, value] of fields) {
      if (field.split('.').length === 2 && field.endsWith(`.${name}`) && named(value)) return named(value);
    }
  }
  return undefined;
}
