// One database interface over two drivers: embedded PGlite (no DATABASE_URL, ./pglite.ts) and
// PostgreSQL through postgres.js (./postgres.ts); what both share is in ./driver.ts, COPY's
// text format and statements in ./copy.ts.
//
// The rule for data access: every table is declared once in Drizzle, in its service's schema
// module (src/admin/db/schema.ts, src/timeclock/db/schema.ts), and row types come from those
// declarations. Ordinary reads and writes use the query builder (`orm`). Raw SQL (`query`) is
// for migrations, COPY, multi-statement CTE writes, advisory locks, LISTEN/NOTIFY and statements
// measured to be hot (sign-in, POST /orders, POST /api/clock, location
// updates), each with a one-line comment saying why it is raw. The query builder's statements
// on request paths are built once and kept (./statements.ts), and every statement with
// parameters runs as a named prepared statement on its connection, except one that carries
// `PLAN_PER_CALL` (its best plan depends on its parameters' values).
// There is one transaction API, `transaction()`: its transaction object offers the same two
// faces (`orm` and `query`) on the transaction's connection, so a helper written against
// `Executor` runs inside any transaction or outside one.
//
// Every statement and transaction, Drizzle's and raw ones, runs as an operation of the
// database's Availability (../availability.ts): while the database cannot be reached (stopped,
// frozen, unreachable, or an embedded one stuck behind a transaction that never ends), callers
// are refused at once with ServiceUnavailable (503) instead of waiting, and a transaction that
// was running when the outage was declared stops before its next statement, so it is rolled
// back rather than committed after its caller was answered. On PostgreSQL every statement is
// also limited by `statement_timeout` (exports and import batches by a longer one).
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type { Logger } from 'pino';
import type { Availability } from '../availability.ts';

export type Orm = PgDatabase<PgQueryResultHKT>;

/** The text that marks a statement to be planned for its parameters at every call (PLAN_PER_CALL). */
export const PLAN_PER_CALL_MARK = '/* plan per call */';
/**
 * A condition (always true) that makes its statement planned for its parameters' values at every
 * call, as an unnamed statement: a named prepared statement is planned once for any values after
 * five calls (PostgreSQL's generic plan), and for a range whose width the values decide (the last
 * 3 months of a million orders) that plan can be a hundred times slower. Parsing and planning
 * again costs a fraction of a millisecond.
 */
export const PLAN_PER_CALL = sql.raw(`${PLAN_PER_CALL_MARK} true`);

/** A raw, parameterised statement runner bound to one connection or transaction. */
export type RawExec = <T = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>;

/** What a statement runs on: the database itself, or a transaction (both faces on its connection). */
export interface Executor {
  readonly orm: Orm;
  query: RawExec;
}

/** One statement as the database layer saw it (see Database.trace). */
export interface TracedStatement {
  text: string;
  params: unknown[];
  /** performance.now() when it was sent to the driver, and when it settled (answered or failed). */
  start: number;
  end: number;
}

export type StatementTracer = (s: TracedStatement) => void;

export interface Database extends Executor {
  readonly kind: 'pglite' | 'postgres';
  readonly orm: Orm;
  /**
   * Observer of every statement that goes through this instance (Drizzle's and raw ones, inside
   * and outside transactions; not BEGIN/COMMIT nor the availability probe), called when it
   * settles, in the async context of the code that issued it (so an AsyncLocalStorage tells
   * whose it is). Undefined by default: production pays one property check per statement.
   * For benchmarks (bench/routes.ts records the statements of a route to replay them).
   */
  trace: StatementTracer | undefined;
  /** Whether the database can be used now; requests are refused at once while it cannot. */
  readonly availability: Availability;
  /** Parameterised query outside any transaction. */
  query: RawExec;
  /**
   * Runs `fn` in one transaction: `tx.orm` and `tx.query` run on its connection; `script`
   * executes multi-statement SQL (migrations); `copyIn` bulk-loads rows given in COPY's text
   * format (tab-separated, `\N` for NULL, see copyText) into `target` (`schema.table (col, …)`).
   * `tx.orm.transaction()` inside it is a savepoint.
   */
  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T>;
  listen(channel: string, onMessage: (payload: string) => void): Promise<() => Promise<void>>;
  notify(channel: string, payload: string): Promise<void>;
  /** Resolves when the database answers (a probe on a connection of its own); rejects during an outage. */
  ping(): Promise<void>;
  /** What this instance has running on the database now (monitoring). */
  pool(): PoolStats;
  close(): Promise<void>;
  /**
   * The rows of `select` as CSV (`COPY (select) TO STDOUT WITH (FORMAT csv)`: LF line ends,
   * no header, NULL as an empty cell), in chunks. COPY takes no bind parameters, so `$1`…`$n`
   * in `select` are replaced by the values of `params` quoted by the server (`format('%L')`);
   * they must not appear inside string literals of `select`. On PostgreSQL the rows stream
   * with backpressure (bounded memory) and stopping the iteration cancels the statement;
   * PGlite cannot stream and returns the whole output as one chunk, so bound `select` there.
   */
  copyOut(select: string, params?: readonly unknown[]): AsyncIterable<Buffer>;
  /** PGlite only: a compressed copy of the data directory (a template for tests). */
  dumpTemplate?: () => Promise<Blob>;
}

/**
 * Statements and transactions of this instance in flight (those abandoned in an outage left
 * out): `active` were sent to the server (a transaction once it has begun), `waiting` wait for a
 * connection. postgres.js pipelines statements, so `active` can exceed `max` connections.
 */
export interface PoolStats {
  /** Connections the driver opens at most: DB_POOL_MAX, or the embedded database's one. */
  max: number;
  active: number;
  waiting: number;
}

export interface Transaction extends Executor {
  script: (sql: string) => Promise<void>;
  copyIn: (target: string, rows: string | Uint8Array) => Promise<void>;
  /** Lifts this transaction's statements to the long statement timeout (export and import batches). */
  allowLongStatements: () => Promise<void>;
}

export interface DatabaseOptions {
  url?: string | undefined;
  dataDir: string;
  poolMax: number;
  logger: Logger;
  /** PGlite only: start from this dump of a data directory (tests use a migrated template). */
  pgliteTemplate?: Blob | undefined;
  /** PGlite only: keep the database in memory instead of under dataDir. */
  inMemory?: boolean;
  /** PGlite only: shared_buffers in MB (default PGLITE_SHARED_BUFFERS_MB's, 16). */
  pgliteSharedBuffersMb?: number;
  /** Longest a caller waits for an unresponsive database before it is refused (default 3000). */
  timeoutMs?: number;
  /** PostgreSQL only: statement_timeout of ordinary statements, ms (default 30000; 0: none). */
  statementTimeoutMs?: number;
  /** PostgreSQL only: statement_timeout of exports and import batches, ms (default one hour; 0: none). */
  longStatementTimeoutMs?: number;
}

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  // Only the driver in use is loaded (each with its client library: about 1 to 2 MB of heap).
  return opts.url ? (await import('./postgres.ts')).openPostgres(opts.url, opts) : (await import('./pglite.ts')).openPglite(opts);
}
