// The time clock's export tasks, on the platform's queue (platform/jobs/export-tasks.ts) over
// `timeclock.export_tasks`: the queue, the reply a task is shown in, and who may read it (any
// manager: managers see every worker's hours). Features register their kinds (payroll).
import { Type, type Static } from 'typebox';
import type { Logger } from 'pino';
import type { Config } from '../../platform/config.ts';
import type { Database } from '../../platform/db/database.ts';
import type { Storage } from '../../platform/storage/index.ts';
import { AppError } from '../../platform/http/errors.ts';
import { Nullable } from '../../platform/http/schemas.ts';
import { msg } from '../../platform/i18n.ts';
import { ExportTasks, EXPORT_STATUSES, type ExportTask } from '../../platform/jobs/export-tasks.ts';
import { E } from '../errors.ts';

export function timeclockExportTasks({ db, storage, config, logger }: { db: Database; storage: Storage; config: Config; logger: Logger }): ExportTasks {
  return new ExportTasks({ db, schema: 'timeclock', storage, logger, ttlHours: config.EXPORT_TTL_HOURS });
}

export const ExportTaskView = Type.Object({
  id: Type.Integer(),
  kind: Type.String({ description: 'what is exported, e.g. `payroll`' }),
  status: Type.Enum([...EXPORT_STATUSES], {
    description: 'pending → processing → completed | failed; a completed file past `expiresAt` is `expired` (deleted)',
  }),
  format: Type.Enum(['csv', 'xlsx']),
  rowsWritten: Type.Integer(),
  createdAt: Type.String({ description: 'ISO 8601 UTC' }),
  finishedAt: Nullable(Type.String({ description: 'when it completed or failed, ISO 8601 UTC' })),
  expiresAt: Nullable(Type.String({ description: 'when the file stops being downloadable, ISO 8601 UTC' })),
  downloadUrl: Nullable(Type.String({ description: 'set while the file can be downloaded (same bearer token)' })),
  error: Nullable(Type.String({ description: 'why it failed' })),
});

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** The reply for a task; `prefix` is the service prefix the download route lives under. */
export function renderExportTask(tasks: ExportTasks, task: ExportTask, prefix: string): Static<typeof ExportTaskView> {
  const now = new Date();
  return {
    id: task.id,
    kind: task.kind,
    status: tasks.shownStatus(task, now),
    format: task.params.format === 'xlsx' ? 'xlsx' : 'csv',
    rowsWritten: task.rows_written,
    createdAt: task.created_at.toISOString(),
    finishedAt: iso(task.finished_at),
    expiresAt: iso(task.expires_at),
    downloadUrl: tasks.downloadable(task, now) ? `${prefix}/managers/exports/${task.id}/download` : null,
    error: task.error,
  };
}

/** The task, or 404 `NOT_FOUND`. */
export async function findExportTask(tasks: ExportTasks, id: number): Promise<ExportTask> {
  const task = await tasks.get(id);
  if (!task) throw new AppError(E.NOT_FOUND, { detail: msg('timeclock.exports.taskNotFound', { id }), details: { exportId: id } });
  return task;
}
