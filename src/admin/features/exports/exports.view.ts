// How every export feature shows a task: the reply shape (DESIGN §7.3) and who may read it.
// A task is visible to its creator and to holders of `export.manage` (super administrators included).
import { AppError } from '../../../platform/http/errors.ts';
import type { ExportTask, ExportTasks } from '../../../platform/jobs/export-tasks.ts';
import { formatDisplay } from '../../../platform/time.ts';
import { E } from '../../errors.ts';
import type { Principal } from '../../kernel/guard.ts';
import { msg } from '../../../platform/i18n.ts';

export const EXPORT_MANAGE = 'export.manage';

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
  const expired = task.status === 'expired' || (task.status === 'completed' && (!task.expires_at || task.expires_at <= now));
  return {
    id: task.id,
    kind: task.kind,
    status: expired ? 'expired' : task.status,
    rows_written: task.rows_written,
    created_at: formatDisplay(task.created_at, tz)!,
    finished_at: formatDisplay(task.finished_at, tz),
    expires_at: formatDisplay(task.expires_at, tz),
    download_url: tasks.downloadable(task, now) ? `${prefix}/exports/${task.id}/download` : null,
    error: task.error,
  };
}

/** The task when `caller` may see it; 30003 when there is none, 20001 when it is someone else's. */
export async function visibleExportTask(tasks: ExportTasks, caller: Principal, id: number, kind?: string): Promise<ExportTask> {
  const task = await tasks.get(id);
  if (!task || (kind && task.kind !== kind)) throw new AppError(E.DATA_NOT_FOUND, { detail: kind ? msg('admin.exports.kindTaskNotFound', { kind, id }) : msg('admin.exports.taskNotFound', { id }) });
  if (task.owner_id !== caller.adminId && !caller.isSuper && !caller.permissions.has(EXPORT_MANAGE)) {
    throw new AppError(E.NO_PERMISSION, { detail: msg('admin.exports.exportTaskBelongsAnother', { id }) });
  }
  return task;
}
