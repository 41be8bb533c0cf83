// Export tasks: a durable queue in the owning service's schema (`<schema>.export_tasks`,
// declared by `exportTasksTable(schema)` in the service's schema module and created with the
// same columns by its migration, migrations/admin/0007_export_tasks.sql being the model) whose
// workers stream rows to a CSV file in the storage (platform.storage: the local disk or a bucket
// every instance shares), at `exports/<schema>/<file>`. One mechanism,
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
// (the file streamed into a pending object of the storage, committed under its key, expires_at
// = now + ttl) or failed (error kept; the pending object discarded, as when the task is
// aborted). A task left processing by a crashed instance (heartbeat older than staleMs) goes back
// to pending, or to failed after maxAttempts claims. The periodic cleanup deletes the files of
// completed tasks past expires_at and marks them `expired` (the row stays, so the status
// endpoint can still say what happened), and the pending objects of writes no claim runs any
// more (a crashed instance's): each is written for the owner `export-<schema>-<id>-<attempt>`,
// alive while its task is processing in that attempt. All times come from the database clock, so instances agree.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { PassThrough, Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sql } from 'drizzle-orm';
import { bigint, integer, jsonb, text, timestamp, varchar, type PgSchema } from 'drizzle-orm/pg-core';
import type { Logger } from 'pino';
import { ServiceUnavailable } from '../availability.ts';
import type { Database } from '../db/database.ts';
import { CSV_BOM, csvLine, CsvRecordCounter } from './csv.ts';
import { columnsOf, streamXlsx, type AnyExportKind, type CsvExportKind, type ExportKind } from './export-kinds.ts';
import type { Backlog } from '../metrics.ts';
import { DOWNLOAD_URL_SECONDS, StorageNotFoundError, type PendingObject, type PresignedResponse, type Storage } from '../storage/index.ts';
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
  /** Where the files go (platform.storage). */
  storage: Storage;
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
/** `<id>-<attempt>` of a pending object's owner, after the queue's prefix. */
const WRITE_OWNER = /^(\d+)-(\d+)$/;

/** A completed task's file as read from the storage. */
export interface ExportFile {
  body: Readable;
  size: number;
}

export class ExportTasks {
  /** The storage key under which the files are (`exports/<schema>`). */
  readonly prefix: string;
  readonly instanceId = workerId();
  private readonly db: Database;
  private readonly storage: Storage;
  /** The pending objects of this queue's writes are owned by `<ownerPrefix><id>-<attempt>`. */
  private readonly ownerPrefix: string;
  private readonly table: string;
  private readonly jobs: LeaseTable;
  private readonly poller: Poller;
  private readonly logger: Logger;
  private readonly opts: Required<Omit<ExportTasksOptions, 'db' | 'schema' | 'storage' | 'logger' | 'kinds'>>;
  private readonly kinds: Record<string, AnyExportKind>;
  private current: { abort: AbortController; done: Promise<unknown> } | undefined;
  private readonly settledListeners: Array<(task: ExportTask) => void | Promise<void>> = [];

  constructor(o: ExportTasksOptions) {
    if (!NAME.test(o.schema)) throw new Error(`bad schema name ${o.schema}`);
    this.db = o.db;
    this.table = `${o.schema}.export_tasks`;
    this.storage = o.storage;
    this.prefix = `exports/${o.schema}`;
    this.ownerPrefix = `export-${o.schema.replaceAll('_', '-')}-`;
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

  /** The storage key of a completed, unexpired task's file; otherwise undefined (read from the row alone, so lists cost no request to the store). */
  downloadable(task: ExportTask, now = new Date()): { key: string } | undefined {
    if (task.status !== 'completed' || !task.file_name || !task.expires_at || task.expires_at <= now) return undefined;
    return { key: this.keyOf(task.file_name) };
  }

  /** The file of a completed, unexpired task when the storage has it; otherwise undefined. */
  async open(task: ExportTask, now = new Date()): Promise<ExportFile | undefined> {
    const file = this.downloadable(task, now);
    if (!file) return undefined;
    const info = await this.storage.stat(file.key);
    if (!info) return undefined;
    try {
      return { body: await this.storage.read(file.key), size: info.size };
    } catch (err) {
      // Removed since the stat (the cleanup of another instance).
      if (err instanceof StorageNotFoundError) return undefined;
      throw err;
    }
  }

  /**
   * A short-lived URL at which the client fetches a completed task's file from the store itself,
   * answered with `response`'s headers: undefined when the store issues none (the file is then
   * served through the server) or has no such file. The caller has checked access.
   */
  async presigned(task: ExportTask, response: PresignedResponse, now = new Date()): Promise<string | undefined> {
    const file = this.downloadable(task, now);
    if (!file || !this.storage.presign || !(await this.storage.stat(file.key))) return undefined;
    return this.storage.presign(file.key, DOWNLOAD_URL_SECONDS, response);
  }

  private keyOf(fileName: string): string {
    return `${this.prefix}/${path.basename(fileName)}`;
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
    const key = this.keyOf(fileName);
    let pending: PendingObject | undefined;
    let written = 0;
    const stopHeartbeat = this.jobs.keepAlive(this.db.query, task.id, this.instanceId, {
      everyMs: Math.max(100, Math.floor(this.opts.staleMs / 4)),
      set: () => ({ rows_written: sql`${written}` }),
      onLost: () => abort.abort(new Error('the task was taken over by another worker')),
      onError: (err) => this.logger.warn({ err, task: task.id }, 'export heartbeat failed'),
    });
    try {
      if (!kind) throw new Error(`unknown export kind ${task.kind}`);
      const beat = (n: number) => this.beat(task.id, n);
      // The file streams into the storage as it is written; it is seen under its key once committed.
      pending = await this.store(`${this.ownerPrefix}${task.id}-${task.attempts}`, signal, async (file) => {
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
      });
      await pending.commit(key);
      const done = await this.jobs.settle(this.db.query, task.id, this.instanceId, 'completed', () => ({
        rows_written: sql`${written}`,
        file_name: sql`${fileName}`,
        finished_at: sql`now()`,
        expires_at: sql`now() + make_interval(hours => ${this.opts.ttlHours}::int)`,
        heartbeat_at: sql`now()`,
      }));
      if (!done) await this.storage.delete(key); // taken away from us meanwhile; someone else owns it
      else await this.settled(task.id);
    } catch (err) {
      await pending?.discard().catch((e: unknown) => this.logger.warn({ err: e, task: task.id }, 'discarding an export file failed; the storage sweep will'));
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

  /**
   * Streams what `produce` writes into a pending object of the storage. A failure on either side
   * ends both (the store's failure destroys the stream `produce` writes to; a failure of
   * `produce` fails the write), and nothing is kept.
   */
  private async store(owner: string, signal: AbortSignal, produce: (file: Writable) => Promise<void>): Promise<PendingObject> {
    const file = new PassThrough();
    const writing = this.storage.write(file, { owner, signal });
    const producing = produce(file).catch((err: unknown) => {
      file.destroy(err as Error);
      throw err;
    });
    const [produced, stored] = await Promise.allSettled([producing, writing]);
    if (stored.status === 'rejected') {
      // The store's failure, unless the producer failed first (the write then saw its stream end).
      throw produced.status === 'rejected' && !(stored.reason instanceof ServiceUnavailable) ? produced.reason : stored.reason;
    }
    if (produced.status === 'rejected') {
      await stored.value.discard();
      throw produced.reason;
    }
    return stored.value;
  }

  /** Removes the pending objects of writes whose task is no longer processing in their attempt (their instance crashed). */
  private async discardAbandoned(): Promise<void> {
    const writes = new Map<string, { id: number; attempt: number }>();
    for (const owner of await this.storage.pendingOwners()) {
      const m = owner.startsWith(this.ownerPrefix) ? WRITE_OWNER.exec(owner.slice(this.ownerPrefix.length)) : null;
      if (m) writes.set(owner, { id: Number(m[1]), attempt: Number(m[2]) });
    }
    if (writes.size === 0) return;
    const ids = [...new Set([...writes.values()].map((w) => w.id))];
    const running = new Set(
      (await this.db.query<{ id: number; attempts: number }>(`SELECT id, attempts FROM ${this.table} WHERE status = 'processing' AND id = ANY($1::bigint[])`, [ids]))
        .map((r) => `${Number(r.id)}-${Number(r.attempts)}`),
    );
    for (const [owner, w] of writes) if (!running.has(`${w.id}-${w.attempt}`)) await this.storage.discardPending(owner);
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

  /** Deletes the files of expired tasks (marked `expired`) and the pending objects of writes no claim runs any more. */
  async cleanup(): Promise<number> {
    const rows = await this.jobs.retire<{ id: number; file_name: string | null }>(this.db.query, {
      where: sql`job.status = 'completed' AND job.expires_at <= now()`,
      mark: 'expired',
      returning: 'id, file_name',
    });
    for (const r of rows) {
      if (!r.file_name) continue;
      await this.storage.delete(this.keyOf(r.file_name))
        .catch((err: unknown) => this.logger.warn({ err, task: r.id }, 'deleting an expired export file failed; it stays in the storage'));
    }
    await this.discardAbandoned();
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
