// The admin service's export tasks (DESIGN §7.3), on the platform's queue
// (platform/jobs/export-tasks.ts): the queue over `admin.export_tasks`, the reply every export
// feature shows a task in, and who may read it: its creator and holders of `export.manage`
// (super administrators included). Features register their kinds (admins, orders).
import { Type } from 'typebox';
import type { Logger } from 'pino';
import type { Config } from '../../platform/config.ts';
import type { Database } from '../../platform/db/database.ts';
import type { Storage } from '../../platform/storage/index.ts';
import { AppError } from '../../platform/http/errors.ts';
import { ExportTasks, type ExportTask } from '../../platform/jobs/export-tasks.ts';
import { formatDisplay } from '../../platform/time.ts';
import { E } from '../errors.ts';
import { Envelope } from '../http.ts';
import { reachesAdmin } from './data-scope.ts';
import type { Principal } from './guard.ts';
import { msg } from '../../platform/i18n.ts';

export const EXPORT_MANAGE = 'export.manage';

/** The admin service's queue: its table, its files in the storage (under exports/admin/), their lifetime. */
export function adminExportTasks({ db, storage, config, logger }: { db: Database; storage: Storage; config: Config; logger: Logger }): ExportTasks {
  return new ExportTasks({ db, schema: 'admin', storage, logger, ttlHours: config.EXPORT_TTL_HOURS });
}

const Time = (description: string) => Type.Union([Type.String({ description: `${description}, YYYY-MM-DD HH:mm:ss` }), Type.Null()]);

export const ExportTaskRecord = Type.Object({
  id: Type.Integer({ description: 'export record id' }),
  kind: Type.String({ description: 'what is exported, e.g. `admins`' }),
  status: Type.String({
    enum: ['pending', 'processing', 'completed', 'failed', 'expired'],
    description: 'pending → processing → completed | failed; a completed file past expires_at is `expired` (deleted)',
  }),
  rows_written: Type.Integer(),
  created_at: Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }),
  finished_at: Time('when it completed or failed'),
  expires_at: Time('when the file stops being downloadable'),
  download_url: Type.Union([Type.String(), Type.Null()], { description: 'set while the file can be downloaded (same bearer token)' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'why it failed' }),
});

export const ExportTaskReply = Envelope(ExportTaskRecord);

export interface ExportTaskView {
  id: number;
  kind: string;
  status: string;
  rows_written: number;
  created_at: string;
  finished_at: string | null;
  expires_at: string | null;
  download_url: string | null;
  error: string | null;
}

/** The reply for a task; `prefix` is the service prefix the download route lives under. */
export function renderExportTask(tasks: ExportTasks, task: ExportTask, prefix: string, tz: string): ExportTaskView {
  const now = new Date();
  return {
    id: task.id,
    kind: task.kind,
    status: tasks.shownStatus(task, now),
    rows_written: task.rows_written,
    created_at: formatDisplay(task.created_at, tz)!,
    finished_at: formatDisplay(task.finished_at, tz),
    expires_at: formatDisplay(task.expires_at, tz),
    download_url: tasks.downloadable(task, now) ? `${prefix}/exports/${task.id}/download` : null,
    error: task.error,
  };
}

/** The task when `caller` may see it; 30003 when there is none, 20001 when it is someone else's. */
export async function visibleExportTask(db: Database, tasks: ExportTasks, caller: Principal, id: number, kind?: string): Promise<ExportTask> {
  const task = await tasks.get(id);
  // A task of an administrator outside the caller's data scope does not exist for the caller.
  if (!task || (kind && task.kind !== kind) || (!caller.scope.all && (task.owner_id === null || !(await reachesAdmin(db, caller.scope, task.owner_id))))) throw new AppError(E.DATA_NOT_FOUND, { detail: kind ? msg('admin.exports.kindTaskNotFound', { kind, id }) : msg('admin.exports.taskNotFound', { id }) });
  if (task.owner_id !== caller.adminId && !caller.isSuper && !caller.permissions.has(EXPORT_MANAGE)) {
    throw new AppError(E.NO_PERMISSION, { detail: msg('admin.exports.taskOfAnother', { id }) });
  }
  return task;
}
