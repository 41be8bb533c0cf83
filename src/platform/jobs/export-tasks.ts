// Export tasks: a durable queue in the owning service's schema (`<schema>.export_tasks`,
// declared by `exportTasksTable(schema)` in the service's schema module and created with the
// same columns by its migration, migrations/admin/0007_export_tasks.sql being the model) whose
// workers stream rows to a CSV file under DATA_DIR/exports/<schema>/. One mechanism,
// parameterised by the schema and by a registry of kinds (a row producer plus CSV columns), for
// every service that exports; it reads no table of a service but its own queue. Who may read a
// task and how it is shown are the service's (src/admin/kernel/export-tasks.ts).
//
// A kind (./export-kinds.ts) produces either rows (objects turned into CSV lines, or XLSX rows, by
// its columns) or, for bulk exports, CSV text itself (for example PostgreSQL's COPY output), which
// is passed through with its records counted and its line ends made CRLF. A row kind may write
// XLSX (its `format` decides per task).
//
// Life of a task (a durable job of ./leases.ts: the lease is the heartbeat_at column, renewed
// while the task runs): pending → processing (claimed by one instance, locked_by) → completed
// (file renamed from its temporary name into place, expires_at = now + ttl) or failed (error
// kept). A task left processing by a crashed instance (heartbeat older than staleMs) goes back
// to pending, or to failed after maxAttempts claims. The periodic cleanup deletes the files of
// completed tasks past expires_at and marks them `expired` (the row stays, so the status
// endpoint can still say what happened). All times come from the database clock, so instances agree.
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readdirSync, rmSync, statSync, renameSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sql } from 'drizzle-orm';
import { bigint, integer, jsonb, text, timestamp, varchar, type PgSchema } from 'drizzle-orm/pg-core';
import type { Logger } from 'pino';
import type { Database } from '../db/database.ts';
import { CSV_BOM, csvLine, CsvRecordCounter } from './csv.ts';
import { columnsOf, streamXlsx, type AnyExportKind, type CsvExportKind, type ExportKind } from './export-kinds.ts';
import type { Backlog } from '../metrics.ts';
import { LeaseTable, Poller, workerId } from './leases.ts';

export const EXPORT_STATUSES = ['pending', 'processing', 'completed', 'failed', 'expired'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** The queue's table in a service's schema (`pgSchema('admin')`): its schema module declares it with this. */
export const exportTasksTable = (schema: PgSchema<string>) => schema.table('export_tasks', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
  kind: varchar('kind', { length: 64 }).notNull(),
  params: jsonb('params').$type<Record<string, unknown>>().notNull().default({}),
  ownerId: bigint('owner_id', { mode: 'number' }),
  status: varchar('status', { length: 16, enum: EXPORT_STATUSES }).notNull().default('pending'),
  rowsWritten: bigint('rows_written', { mode: 'number' }).notNull().default(0),
  fileName: varchar('file_name', { length: 255 }),
  error: text('error'),
  attempts: integer('attempts').notNull().default(0),
  createdAt: ts('created_at').notNull().defaultNow(),
  startedAt: ts('started_at'),
  finishedAt: ts('finished_at'),
  expiresAt: ts('expires_at'),
  lockedBy: varchar('locked_by', { length: 64 }),
  heartbeatAt: ts('heartbeat_at'),
});

/** Lines are handed to the file in blocks of about this many characters, not one by one. */
const BLOCK_CHARS = 64 * 1024;

export interface ExportTask {
  id: number;
  kind: string;
  params: Record<string, unknown>;
  owner_id: number | null;
  status: ExportStatus;
  rows_written: number;
  file_name: string | null;
  error: string | null;
  attempts: number;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  expires_at: Date | null;
  locked_by: string | null;
  heartbeat_at: Date | null;
}

export interface ExportTasksOptions {
  db: Database;
  /** The owning service's schema; the table is `<schema>.export_tasks`. */
  schema: string;
  dataDir: string;
  logger: Logger;
  /** Kinds known from the start; features may add theirs with `register`. */
  kinds?: Record<string, AnyExportKind>;
  /** Hours a completed file stays downloadable. */
  ttlHours: number;
  pollMs?: number;
  /** A processing task whose heartbeat is older than this was abandoned by a crashed instance. */
  staleMs?: number;
  maxAttempts?: number;
  cleanupEveryMs?: number;
  /** On stop, how long the current task may run on before it is aborted and released. */
  stopGraceMs?: number;
  /** Rows between two progress updates of rows_written. */
  progressEvery?: number;
  /** CSV kinds: at most one progress update of rows_written per this many milliseconds. */
  progressMs?: number;
}

const NAME = /^[a-z][a-z0-9_]*$/;
const KIND = /^[a-z][a-z0-9_-]*$/;

export class ExportTasks {
  readonly dir: string;
  readonly instanceId = workerId();
  private readonly db: Database;
  private readonly table: string;
  private readonly jobs: LeaseTable;
  private readonly poller: Poller;
  private readonly logger: Logger;
  private readonly opts: Required<Omit<ExportTasksOptions, 'db' | 'schema' | 'dataDir' | 'logger' | 'kinds'>>;
  private readonly kinds: Record<string, AnyExportKind>;
  private current: { abort: AbortController; done: Promise<unknown> } | undefined;
  private readonly settledListeners: Array<(task: ExportTask) => void | Promise<void>> = [];

  constructor(o: ExportTasksOptions) {
    if (!NAME.test(o.schema)) throw new Error(`bad schema name ${o.schema}`);
    this.db = o.db;
    this.table = `${o.schema}.export_tasks`;
    this.dir = path.join(o.dataDir, 'exports', o.schema);
    this.logger = o.logger;
    this.kinds = {};
    for (const [name, kind] of Object.entries(o.kinds ?? {})) this.register(name, kind);
    this.opts = {
      ttlHours: o.ttlHours,
      pollMs: o.pollMs ?? 500,
      staleMs: o.staleMs ?? 60_000,
      maxAttempts: o.maxAttempts ?? 3,
      cleanupEveryMs: o.cleanupEveryMs ?? 10 * 60_000,
      stopGraceMs: o.stopGraceMs ?? 5000,
      progressEvery: o.progressEvery ?? 500,
      progressMs: o.progressMs ?? 1000,
    };
    this.jobs = new LeaseTable({
      table: this.table,
      waiting: 'pending',
      running: 'processing',
      holder: 'locked_by',
      lease: { renewed: 'heartbeat_at' },
      leaseMs: this.opts.staleMs,
      attempts: 'attempts',
    });
    this.poller = new Poller({
      name: 'export worker',
      logger: this.logger,
      pollMs: this.opts.pollMs,
      cleanupEveryMs: this.opts.cleanupEveryMs,
      recover: () => this.recoverStale(),
      cleanup: () => this.cleanup(),
      runOnce: () => this.runOnce(),
    });
  }

  /** Adds an export kind; call before `start`. */
  register<R>(name: string, kind: ExportKind<R> | CsvExportKind): void {
    if (!KIND.test(name)) throw new Error(`bad export kind ${name}`);
    if (this.kinds[name]) throw new Error(`export kind ${name} registered twice`);
    this.kinds[name] = kind;
  }

  /** Calls `listener` with each task this instance finished (`completed`) or gave up on (`failed`). */
  onSettled(listener: (task: ExportTask) => void | Promise<void>): void {
    this.settledListeners.push(listener);
  }

  private async settled(id: number): Promise<void> {
    if (this.settledListeners.length === 0) return;
    const task = await this.get(id);
    if (!task) return;
    for (const listener of this.settledListeners) {
      try {
        await listener(task);
      } catch (err) {
        this.logger.error({ err, task: id }, 'export settled listener failed');
      }
    }
  }

  /** Queues a task and wakes this instance's worker. */
  async create(kind: string, params: Record<string, unknown>, ownerId: number | null): Promise<ExportTask> {
    if (!this.kinds[kind]) throw new Error(`unknown export kind ${kind}`);
    const [task] = await this.db.query<ExportTask>(
      `INSERT INTO ${this.table} (kind, params, owner_id) VALUES ($1, $2::jsonb, $3) RETURNING *`,
      [kind, JSON.stringify(params), ownerId],
    );
    this.poller.wake();
    return normalise(task!);
  }

  async get(id: number): Promise<ExportTask | undefined> {
    const [task] = await this.db.query<ExportTask>(`SELECT * FROM ${this.table} WHERE id = $1`, [id]);
    return task ? normalise(task) : undefined;
  }

  /** The file of a completed, unexpired task when it is on disk; otherwise undefined. */
  downloadable(task: ExportTask, now = new Date()): { path: string; size: number } | undefined {
    if (task.status !== 'completed' || !task.file_name || !task.expires_at || task.expires_at <= now) return undefined;
    const file = path.join(this.dir, path.basename(task.file_name));
    try {
      const st = statSync(file);
      return st.isFile() ? { path: file, size: st.size } : undefined;
    } catch {
      return undefined;
    }
  }

  /** The task's status as shown: a completed task whose file's time is up is `expired` before the cleanup marks it. */
  shownStatus(task: ExportTask, now = new Date()): ExportStatus {
    return task.status === 'completed' && (!task.expires_at || task.expires_at <= now) ? 'expired' : task.status;
  }

  /** Tasks waiting and running, and the oldest waiting one's age (metrics). */
  backlog(): Promise<Backlog> {
    return this.jobs.backlog(this.db.query);
  }

  start(): void {
    if (this.poller.running) return;
    mkdirSync(this.dir, { recursive: true });
    this.poller.start();
  }

  /** Stops polling; the current task may finish within stopGraceMs, then it is aborted and released. */
  async stop(): Promise<void> {
    if (!this.poller.running) return;
    const stopped = this.poller.stop();
    const current = this.current;
    if (current) {
      const grace = new Promise<void>((resolve) => setTimeout(resolve, this.opts.stopGraceMs).unref());
      await Promise.race([current.done, grace]);
      current.abort.abort(new Error('stopping'));
    }
    await stopped;
  }

  /** Claims one pending task and runs it; false when there was none. */
  async runOnce(): Promise<boolean> {
    const [claimed] = await this.jobs.claim<ExportTask>(this.db.query, this.instanceId, {
      set: () => ({ started_at: sql`now()`, rows_written: sql`0`, error: sql`NULL` }),
    });
    if (!claimed) return false;
    const task = normalise(claimed);
    const abort = new AbortController();
    const done = this.execute(task, abort);
    this.current = { abort, done };
    try {
      await done;
    } finally {
      this.current = undefined;
    }
    return true;
  }

  private async execute(task: ExportTask, abort: AbortController): Promise<void> {
    const { signal } = abort;
    const kind = this.kinds[task.kind];
    const format = kind && 'rows' in kind ? (kind.format?.(task.params) ?? 'csv') : 'csv';
    const fileName = `${task.kind}-${task.id}-${randomBytes(4).toString('hex')}.${format}`;
    const final = path.join(this.dir, fileName);
    const temp = path.join(this.dir, `.${fileName}.tmp`);
    let written = 0;
    const stopHeartbeat = this.jobs.keepAlive(this.db.query, task.id, this.instanceId, {
      everyMs: Math.max(100, Math.floor(this.opts.staleMs / 4)),
      set: () => ({ rows_written: sql`${written}` }),
      onLost: () => abort.abort(new Error('the task was taken over by another worker')),
      onError: (err) => this.logger.warn({ err, task: task.id }, 'export heartbeat failed'),
    });
    try {
      if (!kind) throw new Error(`unknown export kind ${task.kind}`);
      mkdirSync(this.dir, { recursive: true });
      const beat = (n: number) => this.beat(task.id, n);
      const file = createWriteStream(temp, { flags: 'wx' });
      if ('csv' in kind) {
        const { progressMs } = this.opts;
        let lastBeat = Date.now();
        const counter = new CsvRecordCounter((n) => {
          written = n;
        });
        const records = kind.csv(task.params, signal);
        async function* progress() {
          for await (const chunk of records) {
            signal.throwIfAborted();
            yield chunk;
            if (Date.now() - lastBeat >= progressMs) {
              lastBeat = Date.now();
              await beat(written);
            }
          }
        }
        // The header goes first, then the records; pipeline keeps memory bounded by the buffers.
        file.write(CSV_BOM + csvLine(kind.header));
        await pipeline(Readable.from(progress(), { objectMode: false }), counter, file, { signal });
      } else if (format === 'xlsx') {
        await streamXlsx(kind, task.params, file, signal, async (n) => {
          written = n;
          if (n % this.opts.progressEvery === 0) await beat(n);
        });
      } else {
        const progressEvery = this.opts.progressEvery;
        const { rows } = kind;
        const columns = columnsOf(kind, task.params);
        async function* lines() {
          let block = CSV_BOM + csvLine(columns.map((c) => c.header));
          for await (const row of rows(task.params, signal)) {
            signal.throwIfAborted();
            block += csvLine(columns.map((c) => c.value(row)));
            written += 1;
            if (block.length >= BLOCK_CHARS) {
              yield block;
              block = '';
            }
            if (written % progressEvery === 0) await beat(written);
          }
          if (block) yield block;
        }
        // pipeline waits for the file stream to drain: memory stays bounded by its buffer.
        await pipeline(Readable.from(lines()), file, { signal });
      }
      renameSync(temp, final);
      const done = await this.jobs.settle(this.db.query, task.id, this.instanceId, 'completed', () => ({
        rows_written: sql`${written}`,
        file_name: sql`${fileName}`,
        finished_at: sql`now()`,
        expires_at: sql`now() + make_interval(hours => ${this.opts.ttlHours}::int)`,
        heartbeat_at: sql`now()`,
      }));
      if (!done) rmSync(final, { force: true }); // taken away from us meanwhile; someone else owns it
      else await this.settled(task.id);
    } catch (err) {
      rmSync(temp, { force: true });
      if (signal.aborted) {
        // Stopping: release it for another instance (this claim does not count as an attempt).
        await this.jobs.release(this.db.query, task.id, this.instanceId, () => ({ heartbeat_at: sql`NULL` }))
          .catch((e: unknown) => this.logger.warn({ err: e, task: task.id }, 'releasing an export task failed'));
        return;
      }
      const message = (err instanceof Error ? err.message : String(err)).slice(0, 1000) || 'export failed';
      this.logger.error({ err, task: task.id, kind: task.kind }, 'export task failed');
      const failed = await this.jobs.settle(this.db.query, task.id, this.instanceId, 'failed', () => ({
        error: sql`${message}`,
        rows_written: sql`${written}`,
        finished_at: sql`now()`,
      }));
      if (failed) await this.settled(task.id);
    } finally {
      stopHeartbeat();
    }
  }

  /** Refreshes the heartbeat and progress; false when the task is no longer ours. */
  private beat(id: number, written: number): Promise<boolean> {
    return this.jobs.renew(this.db.query, id, this.instanceId, () => ({ rows_written: sql`${written}` }));
  }

  /** Puts tasks abandoned by crashed instances back to pending (failed after maxAttempts). */
  async recoverStale(): Promise<number> {
    const rows = await this.jobs.recover(this.db.query, {
      giveUp: {
        maxAttempts: this.opts.maxAttempts,
        status: 'failed',
        set: () => ({ error: sql`'abandoned by a stopped worker ' || attempts || ' times'`, finished_at: sql`now()` }),
      },
    });
    for (const r of rows) {
      this.logger.warn({ task: r.key, status: r.status }, 'recovered an abandoned export task');
      if (r.status === 'failed') await this.settled(r.key);
    }
    return rows.length;
  }

  /** Deletes the files of expired tasks (marked `expired`) and stray temporary files. */
  async cleanup(): Promise<number> {
    const rows = await this.jobs.retire<{ id: number; file_name: string | null }>(this.db.query, {
      where: sql`job.status = 'completed' AND job.expires_at <= now()`,
      mark: 'expired',
      returning: 'id, file_name',
    });
    for (const r of rows) if (r.file_name) rmSync(path.join(this.dir, path.basename(r.file_name)), { force: true });
    // Temporary files left by a crash of this or another instance sharing the directory.
    if (existsSync(this.dir)) {
      const cutoff = Date.now() - this.opts.staleMs * 2;
      for (const f of readdirSync(this.dir)) {
        if (!f.startsWith('.') || !f.endsWith('.tmp')) continue;
        const file = path.join(this.dir, f);
        try {
          if (statSync(file).mtimeMs < cutoff) rmSync(file, { force: true });
        } catch { /* gone already */ }
      }
    }
    return rows.length;
  }
}

/** Drivers differ on bigint and timestamps; make the row uniform. */
function normalise(row: ExportTask): ExportTask {
  const date = (v: unknown) => (v === null || v === undefined ? null : v instanceof Date ? v : new Date(v as string));
  return {
    ...row,
    id: Number(row.id),
    owner_id: row.owner_id === null ? null : Number(row.owner_id),
    rows_written: Number(row.rows_written),
    attempts: Number(row.attempts),
    params: typeof row.params === 'string' ? (JSON.parse(row.params) as Record<string, unknown>) : row.params,
    created_at: date(row.created_at)!,
    started_at: date(row.started_at),
    finished_at: date(row.finished_at),
    expires_at: date(row.expires_at),
    heartbeat_at: date(row.heartbeat_at),
  };
}
