// One database interface over two drivers: embedded PGlite (no DATABASE_URL) and PostgreSQL
// through postgres.js. Services use `orm` (Drizzle) for queries; the raw methods exist for
// migrations, advisory locks and LISTEN/NOTIFY.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import postgres from 'postgres';
import type { Logger } from 'pino';

export type Orm = PgDatabase<PgQueryResultHKT>;

/** A raw, parameterised statement runner bound to one connection or transaction. */
export type RawExec = <T = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>;

export interface Database {
  readonly kind: 'pglite' | 'postgres';
  readonly orm: Orm;
  /** Parameterised query outside any transaction. */
  query: RawExec;
  /** Runs `fn` in one transaction; `script` executes multi-statement SQL (migrations). */
  transactionRaw<T>(fn: (tx: { query: RawExec; script: (sql: string) => Promise<void> }) => Promise<T>): Promise<T>;
  listen(channel: string, onMessage: (payload: string) => void): Promise<() => Promise<void>>;
  notify(channel: string, payload: string): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
  /** PGlite only: a compressed copy of the data directory (a template for tests). */
  dumpTemplate?: () => Promise<Blob>;
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
}

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  return opts.url ? openPostgres(opts.url, opts) : openPglite(opts);
}

async function openPglite(opts: DatabaseOptions): Promise<Database> {
  let dir: string | undefined;
  if (!opts.inMemory) {
    dir = path.join(opts.dataDir, 'pglite');
    mkdirSync(dir, { recursive: true });
  }
  const client = await PGlite.create({
    ...(dir ? { dataDir: dir } : {}),
    ...(opts.pgliteTemplate ? { loadDataDir: opts.pgliteTemplate } : {}),
  });
  const orm = drizzlePglite({ client }) as unknown as Orm;
  const query: RawExec = async <T>(text: string, params: unknown[] = []) =>
    (await client.query<T>(text, params)).rows;
  return {
    kind: 'pglite',
    orm,
    query,
    async transactionRaw(fn) {
      return client.transaction(async (tx) =>
        fn({
          query: async <T>(text: string, params: unknown[] = []) => (await tx.query<T>(text, params)).rows,
          script: async (sql) => {
            await tx.exec(sql);
          },
        }),
      );
    },
    async listen(channel, onMessage) {
      const unlisten = await client.listen(channel, onMessage);
      return async () => unlisten();
    },
    async notify(channel, payload) {
      await client.query('SELECT pg_notify($1, $2)', [channel, payload]);
    },
    async ping() {
      await client.query('SELECT 1');
    },
    async close() {
      if (!client.closed) await client.close();
    },
    dumpTemplate: () => client.dumpDataDir('gzip'),
  };
}

async function openPostgres(url: string, opts: DatabaseOptions): Promise<Database> {
  const sql = postgres(url, {
    max: opts.poolMax,
    onnotice: () => {},
    connect_timeout: 10,
    // bigint (int8) and count(*) come back as numbers, as they do from PGlite.
    types: {
      bigint: { to: 20, from: [20], serialize: (x: number) => String(x), parse: (x: string) => Number(x) },
    },
  });
  const orm = drizzlePostgres({ client: sql }) as unknown as Orm;
  // Raw statements send untyped parameters: dates go as ISO 8601 text.
  const run = async <T>(s: postgres.Sql | postgres.TransactionSql, text: string, params: unknown[] = []) =>
    Array.from(await s.unsafe(text, params.map((p) => (p instanceof Date ? p.toISOString() : p)) as postgres.ParameterOrJSON<never>[], { prepare: params.length > 0 })) as T[];
  const db: Database = {
    kind: 'postgres',
    orm,
    query: (text, params) => run(sql, text, params),
    async transactionRaw(fn) {
      return (await sql.begin(async (tx) =>
        fn({
          query: (text, params) => run(tx, text, params),
          script: async (script) => {
            await tx.unsafe(script);
          },
        }),
      )) as never;
    },
    async listen(channel, onMessage) {
      const sub = await sql.listen(channel, onMessage);
      return async () => sub.unlisten();
    },
    async notify(channel, payload) {
      await sql.notify(channel, payload);
    },
    async ping() {
      await sql`SELECT 1`;
    },
    async close() {
      await sql.end({ timeout: 5 });
    },
  };
  await db.ping();
  return db;
}
