// One database interface over two drivers: embedded PGlite (no DATABASE_URL) and PostgreSQL
// through postgres.js.
//
// The rule for data access: every table is declared once in Drizzle, in its service's schema
// module (src/admin/db/schema.ts, src/timeclock/db/schema.ts), and row types come from those
// declarations. Ordinary reads and writes use the query builder (`orm`). Raw SQL (`query`) is
// for migrations, COPY, multi-statement CTE writes, advisory locks, LISTEN/NOTIFY and statements
// measured to be hot (sign-in, POST /orders, the orders list, POST /api/clock, location
// updates), each with a one-line comment saying why it is raw. The query builder's statements
// on request paths are built once and kept (./statements.ts), and every statement with
// parameters runs as a named prepared statement on its connection.
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
import { AsyncResource } from 'node:async_hooks';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { parse as pgliteParse, PGlite, protocol, type PGliteInterface, type QueryOptions, type Results, type Transaction as PgliteTransaction } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import postgres from 'postgres';
import type { Logger } from 'pino';
import { Availability, ServiceUnavailable, type Operation } from '../availability.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { isConnectionError, pgErrorCode } from './errors.ts';

export type Orm = PgDatabase<PgQueryResultHKT>;

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

const DEFAULT_TIMEOUT_MS = 3000;
const DEFAULT_PGLITE_SHARED_BUFFERS_MB = 16;
const TIMESTAMPTZ_OID = 1184;
const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;
const DEFAULT_LONG_STATEMENT_TIMEOUT_MS = 3_600_000;

/** The error of a statement refused because its transaction was abandoned in an outage. */
const abandonedError = (name: string) => new ServiceUnavailable(name, 'the transaction was abandoned in an outage');

/** Where a database keeps its tracer: read once per statement. */
interface TraceSlot {
  trace: StatementTracer | undefined;
}

/**
 * When tracing: what to call once the statement settles, bound to the issuer's async context
 * (a driver settles statements from its socket's callbacks, outside it). Undefined otherwise.
 */
function traceStart(slot: TraceSlot, text: string, params: unknown[] | undefined): (() => void) | undefined {
  const trace = slot.trace;
  if (!trace) return undefined;
  const start = performance.now();
  return AsyncResource.bind(() => trace({ text, params: params ?? [], start, end: performance.now() }));
}

/** `p`, reporting to the tracer (when one is set) once it settles. */
function traced<T>(slot: TraceSlot, text: string, params: unknown[] | undefined, p: () => Promise<T>): Promise<T> {
  const done = traceStart(slot, text, params);
  return done ? p().finally(done) : p();
}

/**
 * The body of a transaction of operation `op`: not started, and not committed, once the
 * operation was abandoned in an outage (its caller has been answered 503), so that a
 * transaction caught by a frozen server is rolled back when the server comes back.
 */
async function committing<T>(op: Operation, body: () => Promise<T>): Promise<T> {
  if (op.abandoned) throw abandonedError('database');
  const result = await body();
  if (op.abandoned) throw abandonedError('database');
  return result;
}

/**
 * A transaction's Drizzle face, built on first use (most transactions of the hot paths are raw)
 * and kept on the transaction object.
 */
function lazyOrm(tx: Transaction, build: () => Orm): Orm {
  const orm = build();
  Object.defineProperty(tx, 'orm', { value: orm });
  return orm;
}

/** What Drizzle uses of a PGlite client, for a transaction: its nested transactions are savepoints. */
function pgliteTxClient(tx: PgliteTransaction): object {
  let depth = 0;
  const client = {
    query: (text: string, params?: unknown[], options?: Parameters<PgliteTransaction['query']>[2]) => tx.query(text, params, options),
    transaction: async <T>(body: (client: object) => Promise<T>): Promise<T> => {
      depth += 1;
      const name = `sp${depth}`;
      await tx.query(`SAVEPOINT ${name}`);
      try {
        const result = await body(client);
        await tx.query(`RELEASE SAVEPOINT ${name}`);
        return result;
      } catch (err) {
        await tx.query(`ROLLBACK TO SAVEPOINT ${name}`);
        throw err;
      } finally {
        depth -= 1;
      }
    },
  };
  return client;
}

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  return opts.url ? openPostgres(opts.url, opts) : openPglite(opts);
}

async function openPglite(opts: DatabaseOptions): Promise<Database> {
  let dir: string | undefined;
  let unlock = () => {};
  if (!opts.inMemory) {
    dir = path.join(opts.dataDir, 'pglite');
    mkdirSync(dir, { recursive: true });
    unlock = lockDataDir(path.join(opts.dataDir, 'pglite.pid'), `the embedded database in ${dir}`);
  }
  // A template only ever starts a new database: an existing folder is opened as it is.
  const template = dir && existsSync(path.join(dir, 'PG_VERSION')) ? undefined : opts.pgliteTemplate;
  let client: PGlite;
  try {
    client = await PGlite.create({
      ...(dir ? { dataDir: dir } : {}),
      ...(template ? { loadDataDir: template } : {}),
      // PostgreSQL's default buffer cache, 128 MB, lives in the WebAssembly memory, which never
      // shrinks: it took the process's resident memory past 700 MB (issue 27). Pages outside a
      // smaller cache are read from the files under DATA_DIR, which the OS caches.
      startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${opts.pgliteSharedBuffersMb ?? DEFAULT_PGLITE_SHARED_BUFFERS_MB}MB`],
    });
  } catch (err) {
    unlock();
    throw err;
  }
  // The embedded database cannot be unreachable, but it can be stuck: its one connection held by
  // a transaction that never ends. The probe waits for that connection like every statement.
  const availability = new Availability({
    name: 'database',
    probe: () => client.query('SELECT 1'),
    timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    isConnectionError,
    errorLabel: pgErrorCode,
    logger: opts.logger,
  });
  const slot: TraceSlot = { trace: undefined };
  const inTransaction = (tx: PgliteTransaction, op: Operation): PgliteTransaction => ({
    ...tx,
    query: <T>(text: string, params?: unknown[], options?: Parameters<PgliteTransaction['query']>[2]) => traced(slot, text, params, async () => {
      if (op.abandoned) throw abandonedError(availability.name);
      const result = await tx.query<T>(text, params, options);
      availability.answered();
      return result;
    }),
    exec: (text, options) => traced(slot, text, undefined, async () => {
      if (op.abandoned) throw abandonedError(availability.name);
      const result = await tx.exec(text, options);
      availability.answered();
      return result;
    }),
  });
  const prepared = preparedStatements(client);
  /** A statement outside a transaction: prepared when it has parameters or is a read (and room is left). */
  const run = <T>(text: string, params: unknown[] = [], options?: QueryOptions): Promise<Results<T>> => traced(slot, text, params, () =>
    availability.run(async (op) =>
      (params.length > 0 || READ.test(text)) && prepared.has(text)
        // Checked once the statement holds the connection: one queued behind a stuck
        // transaction and abandoned meanwhile never runs.
        ? client._runExclusiveTransaction(() => client._runExclusiveQuery(() => {
          if (op.abandoned) throw abandonedError(availability.name);
          return prepared.run<T>(text, params, options);
        }))
        : client.query<T>(text, params, options)));
  // What Drizzle uses of a PGlite client, each call an operation.
  const guarded = {
    query: run,
    transaction: <T>(fn: (tx: PgliteTransaction) => Promise<T>) =>
      availability.run((op) => client.transaction((tx) => committing(op, () => fn(inTransaction(tx, op))))),
  } as unknown as PGliteInterface;
  const orm = drizzlePglite({ client: guarded as PGlite }) as unknown as Orm;
  const query: RawExec = async <T>(text: string, params: unknown[] = []) => (await run<T>(text, params)).rows;
  return {
    kind: 'pglite',
    get trace() {
      return slot.trace;
    },
    set trace(trace: StatementTracer | undefined) {
      slot.trace = trace;
    },
    orm,
    availability,
    query,
    async transaction(fn) {
      return guarded.transaction((tx) =>
        fn({
          get orm() {
            return lazyOrm(this, () => drizzlePglite({ client: pgliteTxClient(tx) as unknown as PGlite }));
          },
          query: async <T>(text: string, params: unknown[] = []) => (await tx.query<T>(text, params)).rows,
          script: async (sql) => {
            await tx.exec(sql);
          },
          copyIn: async (target, rows) => {
            await tx.query(`COPY ${target} FROM '/dev/blob'`, [], { blob: new Blob([typeof rows === 'string' ? rows : Buffer.from(rows.buffer, rows.byteOffset, rows.byteLength)]) });
          },
          // No statement timeout on the embedded database (it has no timer to enforce one).
          allowLongStatements: async () => {},
        }),
      );
    },
    async listen(channel, onMessage) {
      const unlisten = await client.listen(channel, onMessage);
      return async () => unlisten();
    },
    async notify(channel, payload) {
      await query('SELECT pg_notify($1, $2)', [channel, payload]);
    },
    async ping() {
      if (!(await availability.check())) throw new ServiceUnavailable(availability.name, 'no answer');
    },
    // One connection: every operation but one waits for it.
    pool: () => {
      const inFlight = availability.inFlight;
      return { max: 1, active: Math.min(1, inFlight), waiting: Math.max(0, inFlight - 1) };
    },
    async *copyOut(select, params = []) {
      const statement = await copyStatement(query, select, params, "'/dev/blob'");
      const { blob } = await guarded.query(statement);
      if (blob && blob.size > 0) yield Buffer.from(await blob.arrayBuffer());
    },
    async close() {
      availability.stop();
      try {
        if (!client.closed) await client.close();
      } finally {
        unlock();
      }
    },
    dumpTemplate: () => client.dumpDataDir('gzip'),
  };
}

const PREPARED_MAX = 256;
/** A read without parameters (a list's count, a whole small table) is prepared too; other statements without parameters (DDL, SET) are not. */
const READ = /^\s*(select|with)\s/i;

/**
 * Named prepared statements on PGlite for statements with parameters and reads, raw and Drizzle's (as
 * postgres.js does on PostgreSQL). PGlite's `query()` sends Parse, Describe, Bind, Describe, Execute and Sync as
 * six calls into the WASM module and parses and plans the statement every time; a statement
 * parsed once runs with one call (Bind, Describe, Execute, Sync), 5 to 8 times cheaper. The
 * first PREPARED_MAX distinct texts are kept (raw statements are fixed texts); later ones go
 * through `query()`. Callers hold PGlite's locks as `query()` does (transaction, then query).
 */
function preparedStatements(client: PGlite) {
  const { serialize } = protocol;
  const statements = new Map<string, { name: string; types: number[] }>();
  const prepare = async (text: string) => {
    const name = `fo_${statements.size + 1}`;
    const { messages } = await client.execProtocol(Buffer.concat([serialize.parse({ name, text, types: [] }), serialize.describe({ type: 'S', name }), serialize.sync()]), { syncToFs: false });
    const description = messages.find((m) => m.name === 'parameterDescription') as { dataTypeIDs: number[] } | undefined;
    const statement = { name, types: description?.dataTypeIDs ?? [] };
    statements.set(text, statement);
    return statement;
  };
  // A query's own parsers over the client's. parseResults would copy every one of the client's
  // parsers into a new object on each call given options.parsers (Drizzle passes nine on every
  // query): about 40 % of a one-row read's CPU. Here the overrides sit on an object whose
  // prototype is the client's parsers, made once per overrides object.
  const merged = new WeakMap<object, { base: object; parsers: Record<number, unknown> }>();
  const parsersFor = (overrides: QueryOptions['parsers']) => {
    if (!overrides) return client.parsers;
    const known = merged.get(overrides);
    if (known?.base === client.parsers) return known.parsers as typeof client.parsers;
    const parsers = Object.assign(Object.create(client.parsers) as Record<number, unknown>, overrides);
    merged.set(overrides, { base: client.parsers, parsers });
    return parsers as typeof client.parsers;
  };
  return {
    /** false once the cache is full and `text` is not in it. */
    has: (text: string) => statements.has(text) || statements.size < PREPARED_MAX,
    async run<T>(text: string, params: unknown[], options?: QueryOptions): Promise<Results<T>> {
      const { name, types } = statements.get(text) ?? (await prepare(text));
      // Parameters as PGlite's query() sends them: text, through its serializer for the type.
      const values = params.map((v, i) => {
        if (v === null || v === undefined) return null;
        const serializer = client.serializers[types[i]!];
        if (serializer) return serializer(v);
        if (v instanceof Date) return v.toISOString();
        if (typeof v === 'string') return v;
        if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
        return JSON.stringify(v);
      });
      const { messages } = await client.execProtocol(Buffer.concat([serialize.bind({ statement: name, values }), serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync()]));
      return pgliteParse.parseResults(messages, parsersFor(options?.parsers), options?.rowMode ? { rowMode: options.rowMode } : undefined)[0] as Results<T>;
    },
  };
}

/**
 * A PostgreSQL array literal (`{"a","b",NULL}`) to pass as one parameter cast to an array type
 * (`$1::text[]`, `$2::bigint[]`): both drivers send it as text, and bulk statements
 * (`INSERT … SELECT FROM unnest($1::text[], …)`) take thousands of rows in one round trip.
 */
export function pgArray(values: readonly (string | number | null)[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i > 0) out += ',';
    if (v === null || v === undefined) out += 'NULL';
    else if (typeof v === 'number') out += String(v);
    else out += /["\\]/.test(v) ? `"${v.replace(/["\\]/g, '\\$&')}"` : `"${v}"`;
  }
  return `${out}}`;
}

/** A value as a field of COPY's text format: NULL as `\N`; backslash, tab, CR and LF escaped. */
export function copyText(value: string | number | null): string {
  if (value === null) return '\\N';
  if (typeof value === 'number') return String(value);
  return /[\\\t\n\r]/.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]!) : value;
}
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** `COPY (select) TO target WITH (FORMAT csv)` with `$n` replaced by server-quoted literals. */
async function copyStatement(query: RawExec, select: string, params: readonly unknown[], target: string): Promise<string> {
  if (params.length === 0) return `COPY (${select}) TO ${target} WITH (FORMAT csv)`;
  const template = `COPY (${select.replaceAll('%', '%%').replace(/\$(\d+)/g, (_m, n: string) => `%${n}$L`)}) TO ${target} WITH (FORMAT csv)`;
  const values = params.map((p) => {
    if (p === null || p === undefined) return null;
    if (p instanceof Date) return p.toISOString();
    if (typeof p === 'string') return p;
    if (typeof p === 'number' || typeof p === 'bigint' || typeof p === 'boolean') return String(p);
    throw new TypeError('copyOut parameters are scalars');
  });
  const [row] = await query<{ statement: string }>('SELECT format($1, VARIADIC $2::text[]) AS statement', [template, values]);
  return row!.statement;
}

/** What this module uses of a postgres.js query beyond its public type. */
interface QueryInternals {
  /** Set once the query was sent on a connection. */
  state: unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
  cancel: () => unknown;
}

async function openPostgres(url: string, opts: DatabaseOptions): Promise<Database> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const longTimeout = opts.longStatementTimeoutMs ?? DEFAULT_LONG_STATEMENT_TIMEOUT_MS;
  const common = {
    onnotice: () => {},
    connect_timeout: Math.max(1, Math.ceil(timeoutMs / 1000)),
    // After an outage, connections are opened again at once: postgres.js waits up to 20 s
    // between attempts after repeated failures by default. Nothing retries meanwhile: callers
    // are refused at once while the database is down.
    backoff: () => 0.05,
  };
  const sql = postgres(url, {
    ...common,
    max: opts.poolMax,
    connection: { statement_timeout: opts.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS },
    // bigint (int8) and count(*) come back as numbers, as they do from PGlite.
    types: {
      bigint: { to: 20, from: [20], serialize: (x: number) => String(x), parse: (x: string) => Number(x) },
    },
  });
  // The probe has a connection of its own: a pool busy with slow statements is not an outage.
  const newProbeSql = () => postgres(url, { ...common, max: 1, fetch_types: false });
  let probeSql = newProbeSql();
  const availability = new Availability({
    name: 'database',
    probe: () => probeSql`SELECT 1`,
    // A restarted server left each pooled connection dead (its last message, 57P01, waiting to
    // be read): one SELECT 1 per connection at once, before callers are let in again.
    recover: () => Promise.all(Array.from({ length: opts.poolMax }, () => sql`SELECT 1`)),
    timeoutMs,
    isConnectionError,
    errorLabel: pgErrorCode,
    logger: opts.logger,
  });
  // Back from an outage (decided on the pool's connections), the probe starts on a connection of
  // its own made now: the one it had may be stuck in an attempt to connect begun during the
  // outage, which held /readyz for seconds and declared a new outage.
  availability.onChange((available) => {
    if (!available) return;
    const stale = probeSql;
    probeSql = newProbeSql();
    void stale.end({ timeout: 0 }).catch(() => {});
  });

  const slot: TraceSlot = { trace: undefined };
  /**
   * `q` reports to the availability when it settles: a statement answered, or how it failed;
   * and to the tracer (`traceDone`, when tracing).
   */
  const settling = <Q>(q: Q, op?: { end(err?: unknown): void }, traceDone?: () => void): Q => {
    const internals = q as unknown as QueryInternals;
    const { resolve, reject } = internals;
    internals.resolve = (value) => {
      if (op) op.end();
      else availability.answered();
      traceDone?.();
      resolve(value);
    };
    internals.reject = (err) => {
      op?.end(err);
      traceDone?.();
      reject(availability.translate(err));
    };
    return q;
  };
  // In flight, for pool(): statements outside transactions (waiting until sent on a connection),
  // and transactions that have not begun yet.
  const statements = new Set<QueryInternals>();
  let transactionsWaiting = 0;
  /** One statement outside a transaction, as an operation of its own. */
  const statement = <Q>(q: Q, traceDone?: () => void): Q => {
    const internals = q as unknown as QueryInternals;
    const op = availability.begin((err) => {
      internals.reject(err);
      // Not sent yet: taken out of the pool's queue, so it never runs after its caller was answered.
      if (!internals.state) internals.cancel();
    });
    statements.add(internals);
    return settling(q, {
      end: (err) => {
        statements.delete(internals);
        op.end(err);
      },
    }, traceDone);
  };
  /** A transaction's statements: refused once the transaction was abandoned in an outage. */
  type Unsafe = (text: string, params?: unknown[], options?: postgres.UnsafeQueryOptions) => postgres.PendingQuery<postgres.Row[]>;
  interface GuardedTransaction {
    unsafe: Unsafe;
    savepoint: <T>(fn: (sp: GuardedTransaction) => Promise<T>) => Promise<T>;
  }
  // Statements with parameters are named prepared statements on their connection (postgres.js
  // keeps them by text): Drizzle's query builder asks for unnamed ones, which PostgreSQL parses
  // and plans again on every request, a third of a list request's cost. Multi-row inserts
  // (one text per row count, rarely run twice) stay unnamed, so connections do not collect them.
  const PREPARE_MAX_PARAMS = 100;
  const preparing = (params: unknown[] | undefined, options?: postgres.UnsafeQueryOptions): postgres.UnsafeQueryOptions =>
    ({ ...options, prepare: params !== undefined && params.length > 0 && params.length <= PREPARE_MAX_PARAMS });
  const inTransaction = (tx: postgres.TransactionSql, op: Operation): GuardedTransaction => ({
    unsafe: (text: string, params?: unknown[], options?: postgres.UnsafeQueryOptions) => {
      if (op.abandoned) throw abandonedError(availability.name);
      return settling(tx.unsafe(text, params as postgres.ParameterOrJSON<never>[], preparing(params, options)), undefined, traceStart(slot, text, params));
    },
    savepoint: async <T>(fn: (sp: GuardedTransaction) => Promise<T>) =>
      (await tx.savepoint((sp) => fn(inTransaction(sp, op)))) as T,
  });
  const begin = <T>(fn: (tx: GuardedTransaction) => Promise<T>): Promise<T> =>
    availability.run(async (op) => {
      transactionsWaiting += 1;
      let waiting = true;
      const begun = () => {
        if (waiting) transactionsWaiting -= 1;
        waiting = false;
      };
      try {
        return (await sql.begin((tx) => {
          begun();
          return committing(op, () => fn(inTransaction(tx, op)));
        })) as T;
      } finally {
        begun();
      }
    });
  /** What Drizzle uses of a postgres.js client, for a transaction: its nested transactions are savepoints. */
  const postgresTxClient = (tx: GuardedTransaction): object => {
    const savepoint = <T>(body: (client: object) => Promise<T>) => tx.savepoint((sp) => body(postgresTxClient(sp)));
    return { options: sql.options, unsafe: tx.unsafe, begin: savepoint, savepoint };
  };
  // What Drizzle uses of a postgres.js client, each call an operation.
  const guarded = {
    options: sql.options,
    unsafe: ((text, params, options) =>
      statement(sql.unsafe(text, params as postgres.ParameterOrJSON<never>[], preparing(params, options)), traceStart(slot, text, params))) as Unsafe,
    begin,
  };
  const orm = drizzlePostgres({ client: guarded as unknown as postgres.Sql }) as unknown as Orm;
  // COPY … TO STDOUT streams run one at a time on a connection opened for them (idle: closed after a minute).
  let copySql: postgres.Sql | undefined;
  let copyQueue: Promise<void> = Promise.resolve();
  const copyTurn = async (): Promise<() => void> => {
    let release!: () => void;
    const previous = copyQueue;
    copyQueue = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    return release;
  };
  // Raw statements send untyped parameters: dates go as ISO 8601 text. They read timestamptz as
  // Date, as on PGlite: Drizzle's driver replaces the client's date parsers (it maps its own
  // columns), so postgres.js hands such values over as text.
  const run = async <T>(s: { unsafe: Unsafe }, text: string, params: unknown[] = []) => {
    const rows = await s.unsafe(text, params.map((p) => (p instanceof Date ? p.toISOString() : p)));
    const stamps = rows.columns?.filter((c) => c.type === TIMESTAMPTZ_OID).map((c) => c.name) ?? [];
    if (stamps.length > 0) {
      for (const row of rows) for (const name of stamps) if (typeof row[name] === 'string') row[name] = new Date(row[name]);
    }
    return Array.from(rows) as T[];
  };
  const db: Database = {
    kind: 'postgres',
    get trace() {
      return slot.trace;
    },
    set trace(trace: StatementTracer | undefined) {
      slot.trace = trace;
    },
    orm,
    availability,
    query: (text, params) => run(guarded, text, params),
    async transaction(fn) {
      return begin((tx) =>
        fn({
          get orm() {
            return lazyOrm(this, () => drizzlePostgres({ client: postgresTxClient(tx) as unknown as postgres.Sql }));
          },
          query: (text, params) => run(tx, text, params),
          script: async (script) => {
            await tx.unsafe(script);
          },
          copyIn: async (target, rows) => {
            const stream = await tx.unsafe(`COPY ${target} FROM STDIN`).writable();
            // postgres.js reports a COPY that fails after its last row (a unique violation found
            // at the end, say) to no one: its stream just never finishes. So: once the rows are
            // sent, end the stream (CopyDone is sent at once when nothing is pending) and run a
            // statement, which the server executes after the COPY and fails if the COPY failed.
            stream.on('error', () => {});
            await new Promise<void>((resolve, reject) => stream.write(rows, (err) => (err ? reject(err) : resolve())));
            stream.end();
            try {
              await tx.unsafe('SELECT 1');
            } catch (err) {
              throw new Error(`COPY into ${target.split(' ')[0]} failed`, { cause: err });
            }
          },
          allowLongStatements: async () => {
            await run(tx, "SELECT set_config('statement_timeout', $1, true)", [String(longTimeout)]);
          },
        }),
      );
    },
    async listen(channel, onMessage) {
      const sub = await sql.listen(channel, onMessage);
      return async () => sub.unlisten();
    },
    async notify(channel, payload) {
      await run(guarded, 'SELECT pg_notify($1, $2)', [channel, payload]);
    },
    async ping() {
      if (!(await availability.check())) throw new ServiceUnavailable(availability.name, 'no answer');
    },
    pool: () => {
      const inFlight = availability.inFlight;
      let unsent = transactionsWaiting;
      for (const q of statements) if (!q.state) unsent += 1;
      // Abandoned operations still settling are no longer in flight.
      const waiting = Math.min(unsent, inFlight);
      return { max: opts.poolMax, active: inFlight - waiting, waiting };
    },
    async *copyOut(select, params = []) {
      const statement = await copyStatement(db.query, select, params, 'STDOUT');
      // One at a time, on a connection of its own: postgres.js would pipeline the pool's other
      // queries onto a connection that streams a COPY (they would fail), and a slow reader of
      // the stream must never hold up a connection the rest of the service waits for.
      const release = await copyTurn();
      try {
        copySql ??= postgres(url, { ...common, max: 1, idle_timeout: 60, connection: { statement_timeout: longTimeout } });
        const pending = copySql.unsafe(statement);
        const stream = await pending.readable();
        let complete = false;
        try {
          // Not destroyed when the consumer stops early: the connection must read on to the end.
          for await (const chunk of stream.iterator({ destroyOnReturn: false })) yield chunk as Buffer;
          complete = true;
        } finally {
          if (!complete) {
            // Stopped early (or failed): cancel the statement and drain what is still in flight,
            // so that the connection is left in a usable state.
            pending.cancel();
            stream.resume();
            await finished(stream).catch(() => {});
            await pending.catch(() => {});
          }
          // postgres.js pauses the socket when the stream's buffer is full and resumes it only
          // when the stream asks for more, which an ended stream never does: if the last rows
          // filled the buffer, the connection would stay paused and its next query never be
          // read. The stream's read hook resumes the socket.
          (stream as unknown as { _read(size: number): void })._read(0);
        }
      } finally {
        release();
      }
    },
    async close() {
      availability.stop();
      await copySql?.end({ timeout: 5 });
      await probeSql.end({ timeout: 1 });
      await sql.end({ timeout: 5 });
    },
  };
  try {
    // Start-up fails fast, with the driver's own error, when the database cannot be reached.
    await probeSql`SELECT 1`;
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}
