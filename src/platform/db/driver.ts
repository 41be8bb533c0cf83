// What both database drivers share (./pglite.ts, ./postgres.ts): default timeouts, the
// statement tracer, the outage rule of a transaction's commit and a transaction's lazy ORM face.
import { AsyncResource } from 'node:async_hooks';
import { ServiceUnavailable, type Operation } from '../availability.ts';
import type { Orm, StatementTracer, Transaction } from './database.ts';

export const DEFAULT_TIMEOUT_MS = 3000;
export const DEFAULT_PGLITE_SHARED_BUFFERS_MB = 16;
export const TIMESTAMPTZ_OID = 1184;
export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;
export const DEFAULT_LONG_STATEMENT_TIMEOUT_MS = 3_600_000;

/** The error of a statement refused because its transaction was abandoned in an outage. */
export const abandonedError = (name: string) => new ServiceUnavailable(name, 'the transaction was abandoned in an outage');

/** Where a database keeps its tracer: read once per statement. */
export interface TraceSlot {
  trace: StatementTracer | undefined;
}

/**
 * When tracing: what to call once the statement settles, bound to the issuer's async context
 * (a driver settles statements from its socket's callbacks, outside it). Undefined otherwise.
 */
export function traceStart(slot: TraceSlot, text: string, params: unknown[] | undefined): (() => void) | undefined {
  const trace = slot.trace;
  if (!trace) return undefined;
  const start = performance.now();
  return AsyncResource.bind(() => trace({ text, params: params ?? [], start, end: performance.now() }));
}

/** `p`, reporting to the tracer (when one is set) once it settles. */
export function traced<T>(slot: TraceSlot, text: string, params: unknown[] | undefined, p: () => Promise<T>): Promise<T> {
  const done = traceStart(slot, text, params);
  return done ? p().finally(done) : p();
}

/**
 * The body of a transaction of operation `op`: not started, and not committed, once the
 * operation was abandoned in an outage (its caller has been answered 503), so that a
 * transaction caught by a frozen server is rolled back when the server comes back.
 */
export async function committing<T>(op: Operation, body: () => Promise<T>): Promise<T> {
  if (op.abandoned) throw abandonedError('database');
  const result = await body();
  if (op.abandoned) throw abandonedError('database');
  return result;
}

/**
 * A transaction's Drizzle face, built on first use (most transactions of the hot paths are raw)
 * and kept on the transaction object.
 */
export function lazyOrm(tx: Transaction, build: () => Orm): Orm {
  const orm = build();
  Object.defineProperty(tx, 'orm', { value: orm });
  return orm;
}
