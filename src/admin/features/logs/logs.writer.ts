// Writes operation and system log rows off the request path: rows are buffered and inserted
// in batches shortly after (FLUSH_MS), and close() writes whatever is still buffered.
//
// A log row is never lost because of another row. Rows are sanitised when they are buffered
// (text PostgreSQL cannot store is written out as `\uXXXX`); a batch that PostgreSQL still
// refuses for its data is split in halves until the row at fault is found, and only that row
// is dropped (counted, logged, and reported in the system log). A batch that fails because the
// database is unreachable stays buffered and is retried with a growing delay until it is
// written; only a buffer that outgrows MAX_BUFFERED drops its oldest rows (counted too).
// Also the retention purge of all three logs.
import { lt, sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Orm } from '../../../platform/db/database.ts';
import { pgErrorCode } from '../../../platform/db/errors.ts';
import { escapeIllFormed } from '../../../platform/text.ts';
import { loginLogs, operationLogs, systemLogs, type OperationLogRow, type SystemLogLevel, type SystemLogRow } from '../../db/schema.ts';
import { capJson, redact } from './logs.redact.ts';

const FLUSH_MS = 50;
const BATCH = 200;
const MAX_BUFFERED = 10_000;
/** Delay before retrying a batch the database could not take, growing to RETRY_MAX_MS. */
const RETRY_BASE_MS = 250;
const RETRY_MAX_MS = 5000;
/** Attempts close() makes before it gives up on rows the database cannot take. */
const CLOSE_ATTEMPTS = 3;
/** Room for an error's stack (see describeError); the whole context is still capped at 8 KiB. */
const SYSTEM_CONTEXT_LIMITS = { maxString: 4000, maxItems: 50, maxDepth: 8 };

// One fixed statement per table with the whole batch as a single JSON parameter: building a
// multi-row VALUES list per batch cost more CPU than the request it logs.
const INSERT = {
  operation: (rows: string) => sql`
    INSERT INTO admin.operation_logs
      (admin_id, username, module, action, method, route, path, ip, user_agent, params, changes, status_code, duration_ms, trace_id, created_at)
    SELECT r."adminId", coalesce(r.username, ''), r.module, r.action, r.method, coalesce(r.route, ''), r.path, coalesce(r.ip, ''),
           coalesce(r."userAgent", ''), coalesce(r.params, '{}'::jsonb), r.changes, r."statusCode", r."durationMs", coalesce(r."traceId", ''),
           coalesce(r."createdAt", now())
    FROM jsonb_to_recordset(${rows}::jsonb) AS r("adminId" bigint, username text, module text, action text, method text, route text,
      path text, ip text, "userAgent" text, params jsonb, changes jsonb, "statusCode" smallint, "durationMs" integer, "traceId" text, "createdAt" timestamptz)`,
  system: (rows: string) => sql`
    INSERT INTO admin.system_logs (level, message, trace_id, context, created_at)
    SELECT r.level, r.message, coalesce(r."traceId", ''), coalesce(r.context, '{}'::jsonb), coalesce(r."createdAt", now())
    FROM jsonb_to_recordset(${rows}::jsonb) AS r(level text, message text, "traceId" text, context jsonb, "createdAt" timestamptz)`,
} as const;

type Buffered = { table: 'operation'; row: OperationLogRow } | { table: 'system'; row: SystemLogRow };

/** Refused for what it holds (SQLSTATE classes 22 data exception, 23 integrity): retrying the same row cannot help. */
const isDataError = (err: unknown) => /^2[23]/.test(pgErrorCode(err) ?? '');

/** The row's top-level text with what PostgreSQL cannot store written out (nested values come from redact, already clean). */
function sanitised<T extends object>(row: T): T {
  const out = { ...row } as Record<string, unknown>;
  for (const [k, v] of Object.entries(out)) if (typeof v === 'string') out[k] = escapeIllFormed(v);
  return out as T;
}

export class LogWriter {
  private readonly orm: Orm;
  private readonly logger: Logger;
  private buffer: Buffered[] = [];
  private timer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  /** Consecutive failed attempts to reach the database. */
  private failures = 0;
  private closed = false;
  /** Rows lost: the oldest ones of an overfull buffer, and rows PostgreSQL refused for their own content. */
  readonly lost = { overflow: 0, unwritable: 0 };

  constructor(orm: Orm, logger: Logger) {
    this.orm = orm;
    this.logger = logger;
  }

  operation(row: OperationLogRow): void {
    this.push({ table: 'operation', row: sanitised(row) });
  }

  /** A system log row; `context` is redacted and capped here. */
  system(level: SystemLogLevel, message: string, context: Record<string, unknown> = {}, traceId = ''): void {
    this.push({
      table: 'system',
      row: {
        level,
        message: escapeIllFormed(message.slice(0, 2048)),
        traceId: escapeIllFormed(traceId.slice(0, 128)),
        context: capJson(redact(context, SYSTEM_CONTEXT_LIMITS)),
        createdAt: new Date(),
      },
    });
  }

  private push(item: Buffered) {
    if (this.buffer.length >= MAX_BUFFERED) {
      // The database is not keeping up (or is down): keep the newest rows, count the rest.
      this.buffer.shift();
      if (this.lost.overflow++ % 1000 === 0) this.logger.error({ dropped: this.lost.overflow }, 'log buffer full: oldest log rows dropped');
    }
    this.buffer.push(item);
    // After close(), a late row (a request that finished while closing) is written at once.
    if (this.buffer.length >= BATCH || this.closed) void this.flush();
    else this.schedule(FLUSH_MS);
  }

  private schedule(ms: number) {
    if (this.timer || this.flushing || this.retryTimer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, ms);
    this.timer.unref();
  }

  /** Writes what is buffered now; resolves when done (errors are logged, never thrown). */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.flushing = this.drain().finally(() => {
      this.flushing = undefined;
      if (this.buffer.length > 0 && !this.retryTimer) this.schedule(FLUSH_MS);
    });
    return this.flushing;
  }

  private async drain() {
    while (this.buffer.length > 0) {
      const batch = this.buffer.splice(0, BATCH);
      const retry: Buffered[] = [];
      let error: unknown;
      for (const table of ['operation', 'system'] as const) {
        const part = batch.filter((b) => b.table === table);
        if (part.length === 0) continue;
        const left = await this.insert(table, part, (err) => (error = err));
        retry.push(...left);
      }
      if (retry.length === 0) {
        if (this.failures > 0) this.logger.info({ attempts: this.failures + 1 }, 'log rows written again after the database came back');
        this.failures = 0;
        continue;
      }
      // The database could not be reached: keep the rows (ahead of newer ones) and try again later.
      this.buffer.unshift(...retry);
      this.failures += 1;
      if (this.failures === 1 || this.failures % 20 === 0) {
        this.logger.warn({ err: error, rows: this.buffer.length, attempt: this.failures }, 'writing log rows failed; they stay buffered and are retried');
      }
      if (!this.closed) {
        this.retryTimer = setTimeout(() => {
          this.retryTimer = undefined;
          void this.flush();
        }, Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** (this.failures - 1)));
        this.retryTimer.unref();
      }
      return;
    }
  }

  /**
   * Writes `rows` of one table. A batch refused for its data is split in halves until the rows
   * at fault are found: those are dropped and reported, every other row is written. Returns the
   * rows not written because the database could not be reached (`onError` hears why).
   */
  private async insert(table: Buffered['table'], rows: Buffered[], onError: (err: unknown) => void): Promise<Buffered[]> {
    try {
      await this.orm.execute(INSERT[table](JSON.stringify(rows.map((b) => b.row))));
      return [];
    } catch (err) {
      if (!isDataError(err)) {
        onError(err);
        return rows;
      }
      if (rows.length > 1) {
        const half = rows.length >> 1;
        return [...(await this.insert(table, rows.slice(0, half), onError)), ...(await this.insert(table, rows.slice(half), onError))];
      }
      this.lost.unwritable += 1;
      const traceId = rows[0]!.row.traceId ?? '';
      this.logger.error({ err, table, trace_id: traceId, lost: this.lost.unwritable }, 'a log row was refused by the database; dropped');
      if (table === 'operation') {
        this.system('error', 'an operation log row could not be written and was dropped', { err, row_trace_id: traceId }, traceId);
      }
      return [];
    }
  }

  /** Stops batching and writes what is left (used on close; rows the database cannot take get a few attempts). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.retryTimer);
    this.timer = undefined;
    this.retryTimer = undefined;
    for (let i = 0; i < CLOSE_ATTEMPTS && (this.buffer.length > 0 || this.flushing); i++) {
      await this.flushing;
      await this.flush();
    }
    if (this.buffer.length > 0) {
      this.lost.overflow += this.buffer.length;
      this.logger.error({ rows: this.buffer.length }, 'closing with log rows the database could not take; dropped');
      this.buffer = [];
    }
  }
}

// ---- retention -------------------------------------------------------------------------

const PURGE_BATCH = 5000;
const PURGE_MAX_BATCHES = 200;

/**
 * Deletes rows older than `days` from the operation, system and login logs, in batches of
 * PURGE_BATCH rows (each its own short statement), at most PURGE_MAX_BATCHES per table per
 * run; the next run continues. Returns the rows deleted per table.
 */
export async function purgeLogs(orm: Orm, days: number, shouldStop: () => boolean = () => false) {
  const before = new Date(Date.now() - days * 86_400_000);
  const result = { operation: 0, system: 0, login: 0 };
  const tables = [
    ['operation', operationLogs],
    ['system', systemLogs],
    ['login', loginLogs],
  ] as const;
  for (const [name, table] of tables) {
    for (let i = 0; i < PURGE_MAX_BATCHES && !shouldStop(); i++) {
      const doomed = orm.select({ id: table.id }).from(table).where(lt(table.createdAt, before)).orderBy(table.id).limit(PURGE_BATCH);
      const deleted = await orm.delete(table).where(sql`${table.id} IN (${doomed})`).returning({ id: table.id });
      result[name] += deleted.length;
      if (deleted.length < PURGE_BATCH) break;
    }
  }
  return result;
}
