// A worker's punches as one ordered record, shared by what writes them (the clock, corrections):
// the lock that serialises every write of one worker's punches, the order rule, and the state
// that follows from the punches. A punch a correction voided is out of the record (it stays in
// the table, marked); "effective" below means not voided.
import type { Executor } from '../../platform/db/database.ts';
import type { EVENT_TYPES } from '../db/schema.ts';

export type EventType = (typeof EVENT_TYPES)[number];

/** An effective punch: its id, type and time. */
export interface PunchRef {
  id: number;
  type: EventType;
  at: Date;
}

/**
 * Locks the worker's state row (created clocked out when missing) until the transaction ends,
 * then reads the state, their latest effective punch (its type and time) and the time now. The
 * reads come after the lock, so they see what a transaction that held it before committed.
 */
export async function lockState(
  tx: Executor,
  userId: number,
): Promise<{ state: EventType; latest: Date | null; latestType: EventType | null; at: Date }> {
  await tx.query(
    `INSERT INTO timeclock.worker_state (user_id, state) VALUES ($1, 'clock_out') ON CONFLICT (user_id) DO NOTHING`,
    [userId],
  );
  const [row] = await tx.query<{ state: EventType }>(`SELECT state FROM timeclock.worker_state WHERE user_id = $1 FOR UPDATE`, [userId]);
  const [t] = await tx.query<{ latest: Date | null; latest_type: EventType | null; now: Date }>(
    `SELECT e.created_at AS latest, e.event_type AS latest_type,
            date_trunc('milliseconds', clock_timestamp()) AS now
     FROM (SELECT 1) one LEFT JOIN LATERAL (
       SELECT created_at, event_type FROM timeclock.clock_events
       WHERE user_id = $1 AND voided_at IS NULL ORDER BY created_at DESC, id DESC LIMIT 1) e ON true`,
    [userId],
  );
  return { state: row!.state, latest: t!.latest, latestType: t!.latest_type, at: t!.now };
}

/**
 * The worker's effective punches just before and just after the instant `at` (ties by id: a
 * punch at the same instant with a lower id is before), leaving out `except`.
 */
export async function neighbours(tx: Executor, userId: number, at: Date, except: number | null): Promise<{ before: PunchRef | null; after: PunchRef | null }> {
  const rows = await tx.query<{ side: 'before' | 'after'; id: number | string; event_type: EventType; created_at: Date }>(
    `(SELECT 'before' AS side, id, event_type, created_at FROM timeclock.clock_events
      WHERE user_id = $1 AND voided_at IS NULL AND created_at <= $2 AND id IS DISTINCT FROM $3
      ORDER BY created_at DESC, id DESC LIMIT 1)
     UNION ALL
     (SELECT 'after', id, event_type, created_at FROM timeclock.clock_events
      WHERE user_id = $1 AND voided_at IS NULL AND created_at > $2 AND id IS DISTINCT FROM $3
      ORDER BY created_at, id LIMIT 1)`,
    [userId, at, except],
  );
  const ref = (side: 'before' | 'after'): PunchRef | null => {
    const r = rows.find((x) => x.side === side);
    return r ? { id: Number(r.id), type: r.event_type, at: new Date(r.created_at) } : null;
  };
  return { before: ref('before'), after: ref('after') };
}

/**
 * Sets the worker's state from their latest effective punch (clocked out when there is none):
 * after a correction, the state is what the corrected record says.
 */
export async function refreshState(tx: Executor, userId: number): Promise<EventType> {
  const [row] = await tx.query<{ state: EventType }>(
    `UPDATE timeclock.worker_state w SET
       state = coalesce(e.event_type, 'clock_out'), last_event_id = e.id, updated_at = now()
     FROM (SELECT 1) one LEFT JOIN LATERAL (
       SELECT id, event_type FROM timeclock.clock_events
       WHERE user_id = $1 AND voided_at IS NULL ORDER BY created_at DESC, id DESC LIMIT 1) e ON true
     WHERE w.user_id = $1
     RETURNING w.state`,
    [userId],
  );
  return row!.state;
}
