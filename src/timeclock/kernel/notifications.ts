// Notifications in the clients of the time clock: a row per reader, written in the transaction
// of what they tell (a correction requested or decided, a forgotten clock-out), read by ../features/notifications.
// The clients word them from `kind` and `data`, in their reader's language.
import type { Executor } from '../../platform/db/database.ts';

export const NOTIFICATION_KINDS = ['correction_requested', 'correction_decided', 'clock_reminder', 'auto_clock_out'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** Notifies `to` (user ids, or every active manager) with the caller's `exec`. */
export async function notify(exec: Executor, to: number[] | 'managers', kind: NotificationKind, data: Record<string, unknown>): Promise<void> {
  const payload = JSON.stringify(data);
  if (to === 'managers') {
    await exec.query(
      `INSERT INTO timeclock.notifications (user_id, kind, data)
       SELECT id, $1, $2::jsonb FROM timeclock.users WHERE role = 'manager' AND status = 1 AND deleted_at IS NULL`,
      [kind, payload],
    );
  } else if (to.length > 0) {
    await exec.query(
      `INSERT INTO timeclock.notifications (user_id, kind, data) SELECT u, $2, $3::jsonb FROM unnest($1::bigint[]) AS u`,
      [to, kind, payload],
    );
  }
}
