// Locked periods as the writers of punches see them (the clock, corrections): whether a date of
// a worker's is inside a period a manager locked, and the refusal that says so. The hours
// feature approves, locks and unlocks periods.
import type { Executor } from '../../platform/db/database.ts';
import { AppError } from '../../platform/http/errors.ts';
import { msg } from '../../platform/i18n.ts';
import { E } from '../errors.ts';

export interface Lock {
  id: number;
  from: string;
  to: string;
  lockedAt: Date;
}

/** The active lock of `userId` covering any of `dates` (YYYY-MM-DD), or null. */
export async function lockCovering(exec: Executor, userId: number, dates: readonly string[]): Promise<(Lock & { date: string }) | null> {
  if (dates.length === 0) return null;
  const sorted = [...dates].sort();
  const rows = await exec.query<{ id: number | string; date_from: string; date_to: string; locked_at: Date }>(
    `SELECT id, to_char(date_from, 'YYYY-MM-DD') AS date_from, to_char(date_to, 'YYYY-MM-DD') AS date_to, locked_at FROM timeclock.period_locks
     WHERE user_id = $1 AND unlocked_at IS NULL AND date_from <= $3::date AND date_to >= $2::date`,
    [userId, sorted[0], sorted.at(-1)],
  );
  for (const date of sorted) {
    const r = rows.find((x) => x.date_from <= date && date <= x.date_to);
    if (r) return { id: Number(r.id), from: r.date_from, to: r.date_to, lockedAt: new Date(r.locked_at), date };
  }
  return null;
}

/** 409 PERIOD_LOCKED: `what` ('punch' or 'correction') is dated in a locked period. */
export function periodLocked(lock: Lock & { date: string }, what: 'punch' | 'correction'): AppError {
  return new AppError(E.PERIOD_LOCKED, {
    detail: msg(what === 'punch' ? 'timeclock.periods.punchInLocked' : 'timeclock.periods.correctionInLocked', { date: lock.date, from: lock.from, to: lock.to }),
    details: { date: lock.date, lockId: lock.id, from: lock.from, to: lock.to, lockedAt: lock.lockedAt.toISOString() },
  });
}
