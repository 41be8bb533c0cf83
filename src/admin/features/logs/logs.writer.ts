// Writes operation and system log rows off the request path: rows are buffered and inserted
// in batches shortly after (FLUSH_MS), a failed batch is retried a few times, and close()
// writes whatever is still buffered. Also the retention purge of all three logs.
import { lt, sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Orm } from '../../../platform/db/database.ts';
import { loginLogs } from '../../db/schema.ts';
import { capJson, redact } from './logs.redact.ts';
import { operationLogs, systemLogs, type OperationLogRow, type SystemLogLevel, type SystemLogRow } from './logs.tables.ts';

const FLUSH_MS = 50;
const BATCH = 200;
const MAX_BUFFERED = 10_000;
const MAX_RETRIES = 3;
/** Room for an error's stack (see describeError); the whole context is still capped at 8 KiB. */
const SYSTEM_CONTEXT_LIMITS = { maxString: 4000, maxItems: 50, maxDepth: 8 };

// One fixed statement per table with the whole batch as a single JSON parameter: building a
// multi-row VALUES list per batch cost more CPU than the request it logs.
const INSERT = {
  operation: (rows: string) => sql`
    INSERT INTO admin.operation_logs
      (admin_id, username, module, action, method, route, path, ip, user_agent, params, status_code, duration_ms, trace_id, created_at)
    SELECT r."adminId", coalesce(r.username, ''), r.module, r.action, r.method, coalesce(r.route, ''), r.path, coalesce(r.ip, ''),
           coalesce(r."userAgent", ''), coalesce(r.params, '{}'::jsonb), r."statusCode", r."durationMs", coalesce(r."traceId", ''),
           coalesce(r."createdAt", now())
    FROM jsonb_to_recordset(${rows}::jsonb) AS r("adminId" bigint, username text, module text, action text, method text, route text,
      path text, ip text, "userAgent" text, params jsonb, "statusCode" smallint, "durationMs" integer, "traceId" text, "createdAt" timestamptz)`,
  system: (rows: string) => sql`
    INSERT INTO admin.system_logs (level, message, trace_id, context, created_at)
    SELECT r.level, r.message, coalesce(r."traceId", ''), coalesce(r.context, '{}'::jsonb), coalesce(r."createdAt", now())
    FROM jsonb_to_recordset(${rows}::jsonb) AS r(level text, message text, "traceId" text, context jsonb, "createdAt" timestamptz)`,
} as const;

type Buffered = { table: 'operation'; row: OperationLogRow } | { table: 'system'; row: SystemLogRow };

export class LogWriter {
  private readonly orm: Orm;
  private readonly logger: Logger;
  private buffer: Buffered[] = [];
  private timer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private retries = 0;
  private dropped = 0;
  private closed = false;

  constructor(orm: Orm, logger: Logger) {
    this.orm = orm;
    this.logger = logger;
  }

  operation(row: OperationLogRow): void {
    this.push({ table: 'operation', row });
  }

  /** A system log row; `context` is redacted and capped here. */
  system(level: SystemLogLevel, message: string, context: Record<string, unknown> = {}, traceId = ''): void {
    this.push({
      table: 'system',
      row: {
        level,
        message: message.slice(0, 2048),
        traceId: traceId.slice(0, 128),
        context: capJson(redact(context, SYSTEM_CONTEXT_LIMITS)),
        createdAt: new Date(),
      },
    });
  }

  private push(item: Buffered) {
    if (this.buffer.length >= MAX_BUFFERED) {
      // The database is not keeping up (or is down): keep the newest rows, count the rest.
      this.buffer.shift();
      if (this.dropped++ % 1000 === 0) this.logger.error({ dropped: this.dropped }, 'log buffer full: oldest log rows dropped');
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
      const failed: Buffered[] = [];
      let error: unknown;
      for (const table of ['operation', 'system'] as const) {
        const part = batch.filter((b) => b.table === table);
        if (part.length === 0) continue;
        try {
          await this.orm.execute(INSERT[table](JSON.stringify(part.map((b) => b.row))));
        } catch (err) {
          error = err;
          failed.push(...part);
        }
      }
      if (failed.length === 0) {
        this.retries = 0;
        continue;
      }
      if (this.retries < MAX_RETRIES) {
        this.retries += 1;
        this.buffer.unshift(...failed);
        this.logger.warn({ err: error, rows: failed.length, attempt: this.retries }, 'writing log rows failed; will retry');
        if (!this.closed) {
          this.retryTimer = setTimeout(() => {
            this.retryTimer = undefined;
            void this.flush();
          }, 500 * this.retries);
          this.retryTimer.unref();
        }
      } else {
        this.logger.error({ err: error, rows: failed.length }, 'writing log rows failed; rows dropped');
        this.retries = 0;
      }
      return;
    }
  }

  /** Stops batching and writes what is left (used on close; failed rows get their retries at once). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.retryTimer);
    this.timer = undefined;
    this.retryTimer = undefined;
    for (let i = 0; i <= MAX_RETRIES + 1 && (this.buffer.length > 0 || this.flushing); i++) {
      await this.flushing;
      await this.flush();
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
