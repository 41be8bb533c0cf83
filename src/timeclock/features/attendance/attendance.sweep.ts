// Forgotten clock-outs (issue 30 §1). Every ATTENDANCE_SWEEP_MS each instance looks at the
// sessions still open (worker_state `clock_in`) and, for each:
// - its limit: the earlier of the clock-in plus the work rules' `autoClockOutAfterMinutes` and
//   the site's next closing time after the clock-in (`closesAt`, local to the site's zone);
// - whether the worker left the site's fence: their newest position is outside it, and has been
//   since the last position inside (or the clock-in) for at least `leftFenceMinutes`;
// - a reminder (once per session and reason: `left_fence`, or `site_closed` once the closing
//   time passed): a notification in the worker app and a `clock.reminder` webhook;
// - past the limit, the automatic clock-out: at the last position inside the fence when the trail
//   shows the worker leaving before the limit, otherwise at the limit; stored as origin `auto`
//   (timesheets flag the session `auto` until a manager reviews it), with a `missed_clock_out`
//   alert for managers, a notification and a `worker.clock_out` webhook (`auto: true`).
// Once across instances: each session is closed in a transaction holding the worker's state lock
// (the clock's), which checks again that this very session is still open; each reminder is a row
// of timeclock.clock_reminders whose key (the clock-in, the reason) only one insert wins. So a
// sweep that runs twice, on two instances or across a restart, acts once; nothing is held in
// memory between runs.
import type { Logger } from 'pino';
import type { Config } from '../../../platform/config.ts';
import type { Database } from '../../../platform/db/database.ts';
import { Periodic } from '../../../platform/jobs/periodic.ts';
import { dateOfDay, dayNumber, localDate, parseDisplay } from '../../../platform/time.ts';
import { insideFence, type Fence } from '../../kernel/geofence.ts';
import { notify } from '../../kernel/notifications.ts';
import { lockState, refreshState } from '../../kernel/punches.ts';
import { recordAttendanceAlert } from '../../kernel/security-events.ts';
import { enqueueWebhook } from '../../kernel/webhook-outbox.ts';
import { readWorkRules, type WorkRules } from '../../kernel/work-rules.ts';

const MINUTE = 60_000;

export interface OpenSession {
  userId: number;
  eventId: number;
  start: Date;
  siteId: number | null;
  fence: Fence | null;
  timezone: string;
  closesAt: string | null;
}

interface Position {
  at: Date;
  latitude: number;
  longitude: number;
}

/** The first instant after `start` at which the local time in `tz` is `hhmm`. */
export function nextClosing(start: Date, tz: string, hhmm: string): Date {
  const day = localDate(start, tz);
  const today = parseDisplay(`${day} ${hhmm}:00`, tz)!;
  return today > start ? today : parseDisplay(`${dateOfDay(dayNumber(day) + 1)} ${hhmm}:00`, tz)!;
}

/** The session's limit (see the header), or null when neither rule applies. */
export function limitOf(s: OpenSession, rules: WorkRules): Date | null {
  const limits: number[] = [];
  if (rules.autoClockOutAfterMinutes !== null) limits.push(s.start.getTime() + rules.autoClockOutAfterMinutes * MINUTE);
  if (s.closesAt) limits.push(nextClosing(s.start, s.timezone, s.closesAt).getTime());
  return limits.length === 0 ? null : new Date(Math.min(...limits));
}

/**
 * Whether the trail (positions since the clock-in, in time order) shows the worker gone from the
 * fence: the newest position is outside, as is every one since the last inside. Answers the last
 * position inside (null when there was none since the clock-in) and when they were first seen
 * outside after it.
 */
export function departure(trail: readonly Position[], fence: Fence): { lastInside: Position | null; leftAt: Date } | null {
  let lastInside: Position | null = null;
  let firstOutside: Position | null = null;
  for (const p of trail) {
    if (insideFence(fence, p).inside) {
      lastInside = p;
      firstOutside = null;
    } else {
      firstOutside ??= p;
    }
  }
  return firstOutside ? { lastInside, leftAt: firstOutside.at } : null;
}

export class AttendanceSweep {
  private readonly db: Database;
  private readonly config: Config;
  private readonly logger: Logger;
  private readonly timer: Periodic;

  constructor({ db, config, logger }: { db: Database; config: Config; logger: Logger }) {
    this.db = db;
    this.config = config;
    this.logger = logger;
    this.timer = new Periodic({
      everyMs: config.ATTENDANCE_SWEEP_MS,
      task: (signal) => this.sweep(signal).then(() => undefined),
      logger,
      failure: 'the forgotten clock-out sweep failed; it runs again at the next tick',
      level: 'warn',
    });
  }

  start(): void {
    this.timer.start();
  }

  stop(): Promise<void> {
    return this.timer.stop();
  }

  /** One sweep (see the header); answers what it did, for tests and logs. */
  async sweep(signal?: AbortSignal, now = new Date()): Promise<{ reminded: number; closed: number }> {
    const { rules } = await readWorkRules(this.db);
    const open = await this.db.query<{ user_id: number | string; event_id: number | string; start: Date; site_id: number | string | null; fence: Fence | null; timezone: string; closes_at: string | null }>(
      `SELECT w.user_id, e.id AS event_id, e.created_at AS start, e.site_id, s.fence, coalesce(s.timezone, $1) AS timezone, s.closes_at
       FROM timeclock.worker_state w
       JOIN timeclock.clock_events e ON e.id = w.last_event_id AND e.event_type = 'clock_in' AND e.voided_at IS NULL
       LEFT JOIN timeclock.sites s ON s.id = e.site_id
       WHERE w.state = 'clock_in'`,
      [this.config.DISPLAY_TIMEZONE],
    );
    let reminded = 0;
    let closed = 0;
    for (const r of open) {
      if (signal?.aborted) break;
      const s: OpenSession = {
        userId: Number(r.user_id), eventId: Number(r.event_id), start: new Date(r.start), siteId: r.site_id === null ? null : Number(r.site_id),
        fence: r.fence, timezone: r.timezone, closesAt: r.closes_at,
      };
      const limit = limitOf(s, rules);
      const gone = s.fence ? await this.gone(s, s.fence, rules, now) : null;
      if (gone && await this.remind(s, 'left_fence', { leftAt: gone.leftAt.toISOString() })) reminded++;
      if (s.closesAt && now >= nextClosing(s.start, s.timezone, s.closesAt) && await this.remind(s, 'site_closed', { closesAt: s.closesAt })) reminded++;
      if (limit && now >= limit) {
        const at = gone?.lastInside && gone.lastInside.at > s.start && gone.lastInside.at < limit ? gone.lastInside : null;
        if (await this.close(s, at ?? { at: limit, latitude: Number.NaN, longitude: Number.NaN }, at ? 'left_fence' : 'limit', limit)) closed++;
      }
    }
    if (reminded + closed > 0) this.logger.info({ reminded, closed }, 'forgotten clock-outs: reminders sent, sessions closed');
    return { reminded, closed };
  }

  /** The departure from the fence, when the worker has been gone at least `leftFenceMinutes`. */
  private async gone(s: OpenSession, fence: Fence, rules: WorkRules, now: Date) {
    const [last] = await this.db.query<{ latitude: number; longitude: number; recorded_at: Date }>(
      'SELECT latitude, longitude, recorded_at FROM timeclock.last_positions WHERE user_id = $1 AND recorded_at > $2',
      [s.userId, s.start],
    );
    if (!last || insideFence(fence, last).inside) return null;
    const trail = await this.db.query<{ latitude: number; longitude: number; recorded_at: Date }>(
      'SELECT latitude, longitude, recorded_at FROM timeclock.location_samples WHERE user_id = $1 AND recorded_at >= $2 ORDER BY recorded_at, id',
      [s.userId, s.start],
    );
    const d = departure(trail.map((p) => ({ at: new Date(p.recorded_at), latitude: p.latitude, longitude: p.longitude })), fence);
    return d && now.getTime() - d.leftAt.getTime() >= rules.leftFenceMinutes * MINUTE ? d : null;
  }

  /** Sends the reminder `kind` of this session unless it was sent already; true when this call sent it. */
  private async remind(s: OpenSession, kind: 'left_fence' | 'site_closed', details: Record<string, unknown>): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const claimed = await tx.query('INSERT INTO timeclock.clock_reminders (event_id, kind) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING 1', [s.eventId, kind]);
      if (claimed.length === 0) return false;
      const data = { userId: s.userId, reason: kind, sessionStart: s.start.toISOString(), eventId: s.eventId, ...details };
      await notify(tx, [s.userId], 'clock_reminder', data);
      await enqueueWebhook(tx, 'clock.reminder', data);
      return true;
    });
  }

  /** Closes the session at `at` if it is still open (under the worker's lock); true when this call closed it. */
  private async close(s: OpenSession, at: Position, basis: 'left_fence' | 'limit', limit: Date): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      await lockState(tx, s.userId);
      const [still] = await tx.query(
        `SELECT 1 FROM timeclock.worker_state WHERE user_id = $1 AND state = 'clock_in' AND last_event_id = $2`,
        [s.userId, s.eventId],
      );
      if (!still) return false;
      const located = !Number.isNaN(at.latitude);
      const [row] = await tx.query<{ id: number | string; created_at: Date }>(
        `INSERT INTO timeclock.clock_events (user_id, event_type, site_id, latitude, longitude, created_at, received_at, origin)
         VALUES ($1, 'clock_out', $2, $3, $4, $5, date_trunc('milliseconds', clock_timestamp()), 'auto') RETURNING id, created_at`,
        [s.userId, s.siteId, located ? at.latitude : null, located ? at.longitude : null, at.at],
      );
      await refreshState(tx, s.userId);
      const data = { userId: s.userId, eventId: Number(row!.id), sessionStart: s.start.toISOString(), closedAt: at.at.toISOString(), basis, limit: limit.toISOString() };
      await recordAttendanceAlert(tx, { userId: s.userId, type: 'missed_clock_out', details: data });
      await notify(tx, [s.userId], 'auto_clock_out', data);
      await enqueueWebhook(tx, 'worker.clock_out', {
        userId: s.userId, timestamp: at.at.toISOString(), location: located ? { latitude: at.latitude, longitude: at.longitude } : null, auto: true,
      });
      return true;
    });
  }
}
