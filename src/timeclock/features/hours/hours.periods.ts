// Approved and locked periods (issue 30 §3, DESIGN §7.10).
// - Approving a worker's timesheet for dates `from`..`to` records who and when. It is refused
//   (409 PERIOD_NOT_READY) while the range has something left to check: automatic clock-outs not
//   reviewed, correction requests not decided. Approvals add up: a day is approved once any
//   approval covers it.
// - Locking `from`..`to` (for some workers, or every worker) needs every day on which a worker
//   has punches approved (409 PERIOD_NOT_READY naming them) and no active lock overlapping it
//   (409 CONFLICT). It stores each worker's days as computed then: from then on their timesheet
//   shows those days (marked `locked`), whatever the work rules become, and the clock and
//   corrections refuse anything dated inside (kernel/periods.ts, 409 PERIOD_LOCKED).
// - Unlocking needs a reason, recorded with who and when; the lock's row stays.
// Locking and unlocking are for the managers PERIOD_LOCK_MANAGERS names (every manager when empty).
import type { Config } from '../../../platform/config.ts';
import type { Database } from '../../../platform/db/database.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { msg, type Locale } from '../../../platform/i18n.ts';
import { dateOfDay, dayNumber, parseDisplay } from '../../../platform/time.ts';
import type { Caller } from '../../kernel/auth.ts';
import { E } from '../../errors.ts';
import { summarise, type DayHours, type Timesheet } from './hours.rules.ts';
import type { Range } from './hours.service.ts';

/** A day as a lock stores it (times as ISO text). */
type StoredDay = Omit<DayHours, 'sessions'> & { sessions: Array<Omit<DayHours['sessions'][number], 'start' | 'end'> & { start: string; end: string | null }> };

const store = (d: DayHours): StoredDay => ({ ...d, sessions: d.sessions.map((s) => ({ ...s, start: s.start.toISOString(), end: s.end?.toISOString() ?? null })) });
const revive = (d: StoredDay): DayHours => ({ ...d, sessions: d.sessions.map((s) => ({ ...s, start: new Date(s.start), end: s.end === null ? null : new Date(s.end) })) });

/**
 * Marks the days of `sheets` approved and locked, and puts back the stored figures of locked
 * days (the totals follow). One statement for every worker of the page.
 */
export async function withPeriods(db: Database, sheets: Map<number, Timesheet>, range: Range): Promise<void> {
  if (sheets.size === 0) return;
  const rows = await db.query<{ user_id: number | string; kind: 'approval' | 'lock'; date_from: string; date_to: string; days: Record<string, StoredDay> | null }>(
    `SELECT user_id, 'approval' AS kind, to_char(date_from, 'YYYY-MM-DD') AS date_from, to_char(date_to, 'YYYY-MM-DD') AS date_to, NULL::jsonb AS days
     FROM timeclock.timesheet_approvals WHERE user_id = ANY($1::bigint[]) AND date_from <= $3::date AND date_to >= $2::date
     UNION ALL
     SELECT user_id, 'lock', to_char(date_from, 'YYYY-MM-DD'), to_char(date_to, 'YYYY-MM-DD'), days
     FROM timeclock.period_locks WHERE user_id = ANY($1::bigint[]) AND unlocked_at IS NULL AND date_from <= $3::date AND date_to >= $2::date`,
    [[...sheets.keys()], range.from, range.to],
  );
  const byUser = new Map<number, typeof rows>();
  for (const r of rows) byUser.set(Number(r.user_id), [...(byUser.get(Number(r.user_id)) ?? []), r]);
  for (const [userId, periods] of byUser) {
    const sheet = sheets.get(userId)!;
    const days = sheet.days.map((d) => {
      const lock = periods.find((p) => p.kind === 'lock' && p.date_from <= d.date && d.date <= p.date_to);
      const stored = lock?.days?.[d.date];
      if (lock) return { ...(stored ? revive(stored) : d), approved: true, locked: true };
      return { ...d, approved: periods.some((p) => p.date_from <= d.date && d.date <= p.date_to) };
    });
    sheets.set(userId, summarise(days));
  }
}

export class Periods {
  private readonly db: Database;
  private readonly config: Config;
  private readonly lockers: ReadonlySet<string>;
  private readonly sheetsOf: (userIds: number[], range: Range, locale: Locale) => Promise<Map<number, Timesheet>>;

  constructor({ db, config, sheetsOf }: { db: Database; config: Config; sheetsOf: Periods['sheetsOf'] }) {
    this.db = db;
    this.config = config;
    this.sheetsOf = sheetsOf;
    this.lockers = new Set(config.PERIOD_LOCK_MANAGERS.split(',').map((u) => u.trim().toLowerCase()).filter(Boolean));
  }

  /** The instants the dates `from`..`to` span in the display time zone. */
  private instants(range: Range): [Date, Date] {
    const tz = this.config.DISPLAY_TIMEZONE;
    return [parseDisplay(`${range.from} 00:00:00`, tz)!, parseDisplay(`${dateOfDay(dayNumber(range.to) + 1)} 00:00:00`, tz)!];
  }

  async approve(userId: number, range: Range, caller: Caller) {
    const [worker] = await this.db.query(`SELECT 1 FROM timeclock.users WHERE id = $1 AND role = 'worker'`, [userId]);
    if (!worker) throw new AppError(E.NOT_FOUND, { detail: msg('timeclock.hours.workerNotFound', { id: userId }), details: { userId } });
    const [start, end] = this.instants(range);
    const [left] = await this.db.query<{ autos: Array<number | string> | null; pending: Array<number | string> | null }>(
      `SELECT
         (SELECT array_agg(id ORDER BY id) FROM timeclock.clock_events
          WHERE user_id = $1 AND origin = 'auto' AND reviewed_at IS NULL AND voided_at IS NULL AND created_at >= $2 AND created_at < $3) AS autos,
         (SELECT array_agg(c.id ORDER BY c.id) FROM timeclock.corrections c
          WHERE c.user_id = $1 AND c.status = 'pending' AND EXISTS (
            SELECT 1 FROM jsonb_array_elements(coalesce(c.before, '[]'::jsonb) || coalesce(c.after, '[]'::jsonb)) p
            WHERE (p->>'at')::timestamptz >= $2 AND (p->>'at')::timestamptz < $3)) AS pending`,
      [userId, start, end],
    );
    const autoClockOuts = (left?.autos ?? []).map(Number);
    const pendingCorrections = (left?.pending ?? []).map(Number);
    if (autoClockOuts.length + pendingCorrections.length > 0) {
      throw new AppError(E.PERIOD_NOT_READY, {
        detail: msg('timeclock.periods.exceptionsLeft', { from: range.from, to: range.to, autoClockOuts: autoClockOuts.length, pendingCorrections: pendingCorrections.length }),
        details: { userId, autoClockOuts, pendingCorrections },
      });
    }
    const [row] = await this.db.query<{ id: number | string; approved_at: Date }>(
      'INSERT INTO timeclock.timesheet_approvals (user_id, date_from, date_to, approved_by) VALUES ($1, $2, $3, $4) RETURNING id, approved_at',
      [userId, range.from, range.to, caller.userId],
    );
    return { id: Number(row!.id), userId, from: range.from, to: range.to, approvedAt: new Date(row!.approved_at).toISOString(), approvedBy: caller.userId };
  }

  async lock(input: Range & { userIds?: number[] | undefined }, caller: Caller, locale: Locale) {
    await this.requireLocker(caller);
    const [start, end] = this.instants(input);
    const targets = (await this.db.query<{ id: number | string }>(
      input.userIds
        ? `SELECT id FROM timeclock.users WHERE role = 'worker' AND id = ANY($1::bigint[]) ORDER BY id`
        : `SELECT id FROM timeclock.users WHERE role = 'worker' AND (deleted_at IS NULL OR EXISTS (
             SELECT 1 FROM timeclock.clock_events e WHERE e.user_id = users.id AND e.created_at >= $1 AND e.created_at < $2)) ORDER BY id`,
      input.userIds ? [input.userIds] : [start, end],
    )).map((r) => Number(r.id));
    // Workers with punches in the range on a day no approval covers.
    const unapproved = await this.db.query<{ id: number | string; full_name: string; username: string }>(
      `SELECT u.id, u.full_name, u.username FROM timeclock.users u
       WHERE u.id = ANY($1::bigint[])
         AND EXISTS (SELECT 1 FROM timeclock.clock_events e WHERE e.user_id = u.id AND e.voided_at IS NULL AND e.created_at >= $4 AND e.created_at < $5)
         AND EXISTS (SELECT 1 FROM generate_series($2::date, $3::date, interval '1 day') d(day)
                     WHERE NOT EXISTS (SELECT 1 FROM timeclock.timesheet_approvals a WHERE a.user_id = u.id AND d.day BETWEEN a.date_from AND a.date_to))
       ORDER BY u.id`,
      [targets, input.from, input.to, start, end],
    );
    if (unapproved.length > 0) {
      throw new AppError(E.PERIOD_NOT_READY, {
        detail: msg('timeclock.periods.notApproved', { count: unapproved.length, from: input.from, to: input.to, names: unapproved.slice(0, 10).map((u) => u.full_name || u.username) }),
        details: { notApproved: unapproved.map((u) => Number(u.id)) },
      });
    }
    const sheets = await this.sheetsOf(targets, input, locale);
    const locks = await this.db.transaction(async (tx) => {
      const [overlap] = await tx.query<{ user_id: number | string; full_name: string; date_from: string; date_to: string }>(
        `SELECT l.user_id, u.full_name, to_char(l.date_from, 'YYYY-MM-DD') AS date_from, to_char(l.date_to, 'YYYY-MM-DD') AS date_to
         FROM timeclock.period_locks l JOIN timeclock.users u ON u.id = l.user_id
         WHERE l.user_id = ANY($1::bigint[]) AND l.unlocked_at IS NULL AND l.date_from <= $3::date AND l.date_to >= $2::date LIMIT 1 FOR UPDATE OF l`,
        [targets, input.from, input.to],
      );
      if (overlap) {
        throw new AppError(E.CONFLICT, {
          detail: msg('timeclock.periods.alreadyLocked', { name: overlap.full_name, from: input.from, to: input.to, lockFrom: overlap.date_from, lockTo: overlap.date_to }),
          details: { userId: Number(overlap.user_id), from: overlap.date_from, to: overlap.date_to },
        });
      }
      const days = targets.map((id) => JSON.stringify(Object.fromEntries((sheets.get(id)?.days ?? []).map((d) => [d.date, store(d)]))));
      return tx.query<{ id: number | string }>(
        `INSERT INTO timeclock.period_locks (user_id, date_from, date_to, locked_by, days)
         SELECT u, $2::date, $3::date, $4, d::jsonb FROM unnest($1::bigint[], $5::text[]) AS t(u, d) RETURNING id`,
        [targets, input.from, input.to, caller.userId, days],
      );
    });
    return { from: input.from, to: input.to, locked: locks.length, userIds: targets };
  }

  async unlock(input: Range & { reason: string; userIds?: number[] | undefined }, caller: Caller) {
    await this.requireLocker(caller);
    const rows = await this.db.query<{ id: number | string; user_id: number | string }>(
      `UPDATE timeclock.period_locks SET unlocked_at = date_trunc('milliseconds', clock_timestamp()), unlocked_by = $4, unlock_reason = $5
       WHERE unlocked_at IS NULL AND date_from <= $2::date AND date_to >= $1::date AND ($3::bigint[] IS NULL OR user_id = ANY($3::bigint[]))
       RETURNING id, user_id`,
      [input.from, input.to, input.userIds ?? null, caller.userId, input.reason.trim()],
    );
    if (rows.length === 0) throw new AppError(E.NOT_FOUND, { detail: msg('timeclock.periods.nothingLocked', { from: input.from, to: input.to }), details: { from: input.from, to: input.to } });
    return { from: input.from, to: input.to, unlocked: rows.length, userIds: [...new Set(rows.map((r) => Number(r.user_id)))] };
  }

  private async requireLocker(caller: Caller): Promise<void> {
    if (this.lockers.size === 0) return;
    const [row] = await this.db.query<{ username: string }>('SELECT username FROM timeclock.users WHERE id = $1', [caller.userId]);
    if (!row || !this.lockers.has(row.username.toLowerCase())) throw new AppError(E.FORBIDDEN, { detail: msg('timeclock.periods.lockerOnly') });
  }
}
