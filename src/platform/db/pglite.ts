// The embedded driver: PGlite under DATA_DIR (or in memory), one connection, transactions under
// its lock, statements with parameters as named prepared statements (see preparedStatements).
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { parse as pgliteParse, PGlite, protocol, type PGliteInterface, type QueryOptions, type Results, type Transaction as PgliteTransaction } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { Availability, ServiceUnavailable, type Operation } from '../availability.ts';
import { copyStatement } from './copy.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { PLAN_PER_CALL_MARK, type Database, type DatabaseOptions, type Orm, type RawExec, type StatementTracer } from './database.ts';
import {
  abandonedError, committing, DEFAULT_PGLITE_SHARED_BUFFERS_MB, DEFAULT_TIMEOUT_MS, lazyOrm, traced, type TraceSlot,
} from './driver.ts';
import { isConnectionError, pgErrorCode } from './errors.ts';
import { extractTarGz } from './untar.ts';

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

export async function openPglite(opts: DatabaseOptions): Promise<Database> {
  let dir: string | undefined;
  let unlock = () => {};
  if (!opts.inMemory) {
    dir = path.join(opts.dataDir, 'pglite');
    mkdirSync(dir, { recursive: true });
    unlock = lockDataDir(path.join(opts.dataDir, 'pglite.pid'), `the embedded database in ${dir}`);
  }
  // A template only ever starts a new database: an existing folder is opened as it is. On disk it
  // is unpacked here, streamed (see untar.ts), into a folder of its own renamed into place once
  // complete: a crash meanwhile leaves no half database. A folder without PG_VERSION holds none.
  let template = dir && existsSync(path.join(dir, 'PG_VERSION')) ? undefined : opts.pgliteTemplate;
  let client: PGlite;
  try {
    if (dir && template) {
      const unpacking = `${dir}.unpacking`;
      rmSync(unpacking, { recursive: true, force: true });
      await extractTarGz(Readable.fromWeb(template.stream()), unpacking);
      rmSync(dir, { recursive: true, force: true });
      renameSync(unpacking, dir);
      template = undefined;
    }
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
  /** A statement outside a transaction: prepared when it has parameters or is a read (and room is left), unless marked PLAN_PER_CALL. */
  const run = <T>(text: string, params: unknown[] = [], options?: QueryOptions): Promise<Results<T>> => traced(slot, text, params, () =>
    availability.run(async (op) =>
      (params.length > 0 || READ.test(text)) && !text.includes(PLAN_PER_CALL_MARK) && prepared.has(text)
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
