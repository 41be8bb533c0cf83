// The PostgreSQL driver, through postgres.js: a pool of DB_POOL_MAX connections, statements
// limited by statement_timeout, COPY streamed with backpressure, LISTEN/NOTIFY.
import { finished } from 'node:stream/promises';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { Availability, ServiceUnavailable, type Operation } from '../availability.ts';
import { copyStatement } from './copy.ts';
import { PLAN_PER_CALL_MARK, type Database, type DatabaseOptions, type Orm, type StatementTracer } from './database.ts';
import {
  abandonedError, committing, DEFAULT_LONG_STATEMENT_TIMEOUT_MS, DEFAULT_STATEMENT_TIMEOUT_MS, DEFAULT_TIMEOUT_MS, lazyOrm, TIMESTAMPTZ_OID, traceStart, type TraceSlot,
} from './driver.ts';
import { isConnectionError, pgErrorCode } from './errors.ts';

/** What this module uses of a postgres.js query beyond its public type. */
interface QueryInternals {
  /** Set once the query was sent on a connection. */
  state: unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
  cancel: () => unknown;
}

export async function openPostgres(url: string, opts: DatabaseOptions): Promise<Database> {
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
  // (one text per row count, rarely run twice) stay unnamed, so connections do not collect them,
  // and so do statements marked PLAN_PER_CALL (database.ts).
  const PREPARE_MAX_PARAMS = 100;
  const preparing = (text: string, params: unknown[] | undefined, options?: postgres.UnsafeQueryOptions): postgres.UnsafeQueryOptions => ({
    ...options,
    prepare: params !== undefined && params.length > 0 && params.length <= PREPARE_MAX_PARAMS && !text.includes(PLAN_PER_CALL_MARK),
  });
  const inTransaction = (tx: postgres.TransactionSql, op: Operation): GuardedTransaction => ({
    unsafe: (text: string, params?: unknown[], options?: postgres.UnsafeQueryOptions) => {
      if (op.abandoned) throw abandonedError(availability.name);
      return settling(tx.unsafe(text, params as postgres.ParameterOrJSON<never>[], preparing(text, params, options)), undefined, traceStart(slot, text, params));
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
      statement(sql.unsafe(text, params as postgres.ParameterOrJSON<never>[], preparing(text, params, options)), traceStart(slot, text, params))) as Unsafe,
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
