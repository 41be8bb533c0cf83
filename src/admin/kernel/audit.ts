// The audit trail of the operation log (issue 31, part 4): how a route says what it writes, so
// that its operation log row carries the before and after values of the fields it changed. A
// feature declares `config.audit` on its write routes (it knows how to read its own records);
// the logs feature reads the records before the handler runs and after it answered, compares
// them and masks secrets (features/logs/logs.changes.ts). No feature imports the logs feature.
import type { FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { AppError } from '../../platform/http/errors.ts';

export type RecordId = number | string;

export interface AuditSpec {
  /** What the route writes, as the log names it: `admin`, `role`, `order` … */
  entity: string;
  /**
   * The records written, known before the handler runs: by default the route's `:id`; a batch
   * route names the ids of its body. A create has none: its record's id is the reply's `data.id`.
   */
  ids?: (request: FastifyRequest) => readonly RecordId[];
  /**
   * The record as the API shows it (its detail), or null when there is none; read without the
   * caller's data scope (a refused write records nothing). Without it only the state after is
   * recorded, from the reply.
   */
  load?: (id: RecordId, request: FastifyRequest) => Promise<unknown>;
  /**
   * Where the state after comes from: `reply` (default), the reply's `data` when it is the record
   * as `load` shows it; `load`, read again after the write (a reply that is not the record). A
   * DELETE's state after is "gone", unless it is `load` (a DELETE that ends a record it keeps).
   */
  after?: 'reply' | 'load';
  /** A create's record id in the reply's `data` (default: `data.id`). */
  created?: (data: unknown) => RecordId | undefined;
}

/** `load` for a detail that answers 404 for a missing record: null instead. */
export async function orMissing<T>(read: Promise<T>): Promise<T | null> {
  try {
    return await read;
  } catch (err) {
    if (err instanceof AppError && err.def.status === 404) return null;
    throw err;
  }
}

export const FieldChange = Type.Object({
  field: Type.String({ description: 'the field as the API names it; a nested one with dots (`order.status`)' }),
  before: Type.Unknown({ description: 'null for a created record' }),
  after: Type.Unknown({ description: 'null for a deleted record' }),
});

export const RecordChange = Type.Object({
  entity: Type.String({ description: 'what was written: `admin`, `role`, `order` …' }),
  id: Type.String(),
  label: Type.Optional(Type.String({ description: 'the record’s name as people know it (a username, a name, an order number), from its state after or else before' })),
  op: Type.Union([Type.Literal('create'), Type.Literal('update'), Type.Literal('delete')]),
  fields: Type.Array(FieldChange, {
    description: 'the fields whose value changed (all of a created or deleted record); secrets (passwords, authenticator secrets, payment-method keys) show as [redacted], so a change to one is seen but not its value; an update that changed nothing has none',
  }),
});
export type RecordChange = Static<typeof RecordChange>;

/**
 * The spec of a route whose records are read by `read(id)` (a detail that answers 404 for a
 * missing one) and whose reply, on success, is that detail.
 */
export const audited = (
  entity: string,
  read: (id: number, request: FastifyRequest) => Promise<unknown>,
  more: Omit<AuditSpec, 'entity' | 'load'> = {},
): AuditSpec => ({ entity, load: (id, request) => orMissing(read(Number(id), request)), ...more });
