// Hours: the work rules (one settings object; every change is a new row of
// timeclock.work_rules, the newest in force) and the timesheets computed from punches by
// ./hours.rules.ts: a page of workers for managers, one worker's days and sessions, and the
// rows of the payroll export. Nothing here is stored: timesheets are computed on every read.
//
// Reading a page of workers is four statements: the page, its count, the page's punches and
// their sites.
// The punches are read for the weeks the range touches (weekly overtime counts the days of the
// first week before `from`), two days wider on each side for time zones, plus each worker's
// first punch after that (the clock-out of a session still running at the window's end).
// The statements are raw: one text each with every filter a parameter (`$n IS NULL OR …`), and
// the page sorted by hours orders by an aggregate over a window function.
import type { Config } from '../../../platform/config.ts';
import type { Database } from '../../../platform/db/database.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { msg, type Locale } from '../../../platform/i18n.ts';
import { dayNumber, localDate } from '../../../platform/time.ts';
import { E } from '../../errors.ts';
import { siteName } from '../../seeds.ts';
import { readWorkRules } from '../../kernel/work-rules.ts';
import { withPeriods } from './hours.periods.ts';
import { DEFAULT_WORK_RULES, timesheet, weekStart, type Punch, type Timesheet, type WorkRules } from './hours.rules.ts';
import { RANGE_DAYS_MAX, type TimesheetsQueryT, type WorkRulesT } from './hours.schema.ts';

const DAY_MS = 86_400_000;
/** Wider than any zone's offset from UTC (−12 h … +14 h). */
const MARGIN_DAYS = 2;

export interface Range {
  from: string;
  to: string;
}

export interface WorkerFilters {
  search?: string | undefined;
  tag?: number | undefined;
  siteId?: number | undefined;
}

export interface WorkerRow {
  id: number;
  username: string;
  fullName: string;
}

/** A punch as PUNCHES sends it: epoch ms, whether it is a clock-in, site id, late, forced, origin, voided, id. */
type PunchTuple = [number, boolean, number | string | null, boolean, boolean, 'punch' | 'correction' | 'auto', boolean, number | string];

interface SiteRow {
  id: number | string;
  name: string;
  is_default: boolean;
  timezone: string;
}

const like = (search: string | undefined) => (search ? `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null);

const WORKERS_WHERE = `
  u.role = 'worker'
  AND (u.deleted_at IS NULL OR EXISTS (SELECT 1 FROM timeclock.clock_events a WHERE a.user_id = u.id AND a.created_at >= $4 AND a.created_at < $5))
  AND ($1::text IS NULL OR u.username ILIKE $1 OR u.full_name ILIKE $1)
  AND ($2::bigint IS NULL OR EXISTS (SELECT 1 FROM timeclock.worker_tags wt WHERE wt.user_id = u.id AND wt.tag_id = $2))
  AND ($3::bigint IS NULL OR EXISTS (
    SELECT 1 FROM timeclock.clock_events s
    WHERE s.user_id = u.id AND s.site_id = $3 AND s.event_type = 'clock_in' AND s.voided_at IS NULL AND s.created_at >= $4 AND s.created_at < $5))`;

const PAGE_BY_NAME = `
  SELECT u.id, u.username, u.full_name AS "fullName" FROM timeclock.users u
  WHERE ${WORKERS_WHERE}
  ORDER BY lower(u.full_name), lower(u.username), u.id LIMIT $6 OFFSET $7`;

// Recorded worked time of the period (clock-in to the next event when it is a clock-out), for sorting.
const PAGE_BY_HOURS = `
  WITH ev AS (
    SELECT user_id, event_type, created_at,
           lead(event_type) OVER w AS next_type, lead(created_at) OVER w AS next_at
    FROM timeclock.clock_events WHERE created_at >= $4 AND created_at < $5 AND voided_at IS NULL
    WINDOW w AS (PARTITION BY user_id ORDER BY created_at, id)
  ), worked AS (
    SELECT user_id, sum(next_at - created_at) AS worked FROM ev
    WHERE event_type = 'clock_in' AND next_type = 'clock_out' GROUP BY user_id
  )
  SELECT u.id, u.username, u.full_name AS "fullName" FROM timeclock.users u LEFT JOIN worked h ON h.user_id = u.id
  WHERE ${WORKERS_WHERE}
  ORDER BY h.worked DESC NULLS LAST, lower(u.full_name), u.id LIMIT $6 OFFSET $7`;

const COUNT = `SELECT count(*)::int AS n FROM timeclock.users u WHERE ${WORKERS_WHERE}`;

// One row per worker, the punches as JSON arrays [epoch ms, is a clock-in, site id, late,
// forced, origin, voided, id] in time order: decoding one JSON text per worker costs a fraction
// of decoding a row per punch with its timestamp (the driver's time and garbage were most of a
// page's CPU). Voided punches come too: they mark the session they fall in `edited`.
const PUNCHES = `
  SELECT e.user_id, json_agg(json_build_array(floor(extract(epoch FROM e.created_at) * 1000), e.event_type = 'clock_in', e.site_id, e.late, e.forced,
                                              e.origin, e.voided_at IS NOT NULL, e.id)
                             ORDER BY e.created_at, e.id) AS punches
  FROM (
    SELECT user_id, id, event_type, created_at, site_id, late, forced, origin, voided_at FROM timeclock.clock_events
    WHERE user_id = ANY($1::bigint[]) AND created_at >= $2 AND created_at < $3
    UNION ALL
    SELECT n.* FROM unnest($1::bigint[]) AS w(id) CROSS JOIN LATERAL (
      SELECT n.user_id, n.id, n.event_type, n.created_at, n.site_id, n.late, n.forced, n.origin, n.voided_at FROM timeclock.clock_events n
      WHERE n.user_id = w.id AND n.created_at >= $3 AND n.voided_at IS NULL ORDER BY n.created_at, n.id LIMIT 1
    ) n
  ) e
  GROUP BY e.user_id`;

const SITES = 'SELECT id, name, is_default, coalesce(timezone, $2) AS timezone FROM timeclock.sites WHERE id = ANY($1::bigint[])';

export interface WorkRulesView extends WorkRules {
  updatedAt: string | null;
  updatedBy: { id: number; username: string; fullName: string } | null;
}

function badRange(detail: ReturnType<typeof msg>, field: string): AppError {
  return new AppError(E.VALIDATION_ERROR, { detail, details: { field } });
}

/** The range's day numbers, checked: real dates, in order, at most RANGE_DAYS_MAX apart. */
export function checkRange({ from, to }: Range): { first: number; last: number } {
  const first = dayNumber(from);
  const last = dayNumber(to);
  if (Number.isNaN(first)) throw badRange(msg('timeclock.hours.notADate', { field: 'from', value: from }), 'from');
  if (Number.isNaN(last)) throw badRange(msg('timeclock.hours.notADate', { field: 'to', value: to }), 'to');
  if (last < first) throw badRange(msg('timeclock.hours.rangeReversed', { from, to }), 'to');
  if (last - first > RANGE_DAYS_MAX) throw badRange(msg('timeclock.hours.rangeTooLong', { from, to, days: last - first, max: RANGE_DAYS_MAX }), 'to');
  return { first, last };
}

export class HoursService {
  private readonly db: Database;
  private readonly displayTz: string;

  constructor({ db, config }: { db: Database; config: Config }) {
    this.db = db;
    this.displayTz = config.DISPLAY_TIMEZONE;
  }

  async rules(): Promise<WorkRulesView> {
    const { rules, changedAt, by } = await readWorkRules(this.db);
    return { ...rules, updatedAt: changedAt?.toISOString() ?? null, updatedBy: by };
  }

  /** Replaces the rules; the change is a new row saying who made it. */
  async setRules(rules: WorkRulesT, by: number): Promise<WorkRulesView> {
    // The optional fields left out keep their values (rules added after a client was written).
    const { rules: current } = await readWorkRules(this.db);
    const sorted = { ...current, ...rules, breakRules: [...rules.breakRules].sort((a, b) => a.afterMinutes - b.afterMinutes) };
    await this.db.query('INSERT INTO timeclock.work_rules (rules, changed_by) VALUES ($1::jsonb, $2)', [JSON.stringify(sorted), by]);
    return this.rules();
  }

  /**
   * An example day under `rules` (the work rules screen shows it while the manager edits): its
   * sessions at `HH:mm` times on a Monday in UTC, each ending the next day when its end is not
   * after its start.
   */
  preview(rules: WorkRulesT, sessions: { start: string; end: string }[]) {
    const DATE = '2026-01-05';
    const at = (day: number, hm: string) => new Date(Date.UTC(2026, 0, day, Number(hm.slice(0, 2)), Number(hm.slice(3, 5))));
    const punches: Punch[] = [];
    let day = 5;
    let previous = '';
    for (const s of sessions) {
      // A session starting before the previous one ended (in clock time) is on the next day.
      if (previous && s.start < previous) day++;
      const endDay = s.end > s.start ? day : day + 1;
      const base = { id: null, siteId: null, siteName: null, timezone: 'UTC', late: false, forced: false, corrected: false, auto: false, voided: false };
      punches.push({ ...base, type: 'clock_in', at: at(day, s.start) }, { ...base, type: 'clock_out', at: at(endDay, s.end) });
      previous = s.end;
      day = endDay;
    }
    const sheet = timesheet(punches, { ...DEFAULT_WORK_RULES, ...rules }, { from: DATE, to: DATE, openUntil: null });
    const d = sheet.days[0]!;
    return { ...d, sessions: d.sessions.map((x) => ({ ...x, start: x.start.toISOString(), end: x.end?.toISOString() ?? null })) };
  }

  /** The instants that bound the punches read for a range (see the header). */
  private window(range: Range, weekStartsOn: number): { start: Date; end: Date; first: number; last: number } {
    const { first, last } = checkRange(range);
    const start = new Date((weekStart(first, weekStartsOn) - MARGIN_DAYS) * DAY_MS);
    const end = new Date((last + 1 + MARGIN_DAYS) * DAY_MS);
    return { start, end, first, last };
  }

  /** An open session counts up to now while the range includes today (a live view). */
  private openUntil(last: number, now: Date): Date | null {
    return last >= dayNumber(localDate(now, this.displayTz)) - 1 ? now : null;
  }

  private async punches(userIds: number[], start: Date, end: Date, locale: Locale): Promise<Map<number, Punch[]>> {
    const byUser = new Map<number, Punch[]>(userIds.map((id) => [id, []]));
    if (userIds.length === 0) return byUser;
    const rows = await this.db.query<{ user_id: number | string; punches: PunchTuple[] }>(PUNCHES, [userIds, start.toISOString(), end.toISOString()]);
    const siteIds = new Set<number>();
    for (const r of rows) for (const t of r.punches) if (t[2] !== null) siteIds.add(Number(t[2]));
    const sites = new Map<number, Pick<Punch, 'siteName' | 'timezone'>>();
    if (siteIds.size > 0) {
      for (const site of await this.db.query<SiteRow>(SITES, [[...siteIds], this.displayTz])) {
        sites.set(Number(site.id), { siteName: siteName(site.name, site.is_default, locale), timezone: site.timezone });
      }
    }
    const noSite = { siteName: null, timezone: this.displayTz };
    for (const r of rows) {
      // One row per worker (GROUP BY), so the worker's list is this row's.
      byUser.set(Number(r.user_id), r.punches.map(([at, clockIn, siteId, late, forced, origin, voided, eventId]): Punch => {
        const id = siteId === null ? null : Number(siteId);
        return { id: Number(eventId), type: clockIn ? 'clock_in' : 'clock_out', at: new Date(at), siteId: id, ...(id === null ? noSite : sites.get(id) ?? noSite), late, forced, corrected: origin === 'correction', auto: origin === 'auto', voided };
      }));
    }
    return byUser;
  }

  private params(filters: WorkerFilters, start: Date, end: Date): unknown[] {
    return [like(filters.search), filters.tag ?? null, filters.siteId ?? null, start.toISOString(), end.toISOString()];
  }

  /** A page of workers with their timesheets' totals. */
  async page(q: TimesheetsQueryT, locale: Locale, now = new Date()) {
    const rules = await this.rules();
    const w = this.window(q, rules.weekStartsOn);
    // Workers are filtered on the range itself (with the time-zone margin), not the wider window.
    const params = this.params(q, new Date((w.first - MARGIN_DAYS) * DAY_MS), w.end);
    const [workers, [count]] = await Promise.all([
      this.db.query<WorkerRow>(q.sort === 'hours' ? PAGE_BY_HOURS : PAGE_BY_NAME, [...params, q.limit, (q.page - 1) * q.limit]),
      this.db.query<{ n: number }>(COUNT, params),
    ]);
    const sheets = await this.sheets(workers, rules, q, w, locale, now);
    return {
      items: workers.map((worker) => {
        const sheet = sheets.get(Number(worker.id))!;
        return {
          userId: Number(worker.id),
          username: worker.username,
          fullName: worker.fullName,
          ...sheet.totals,
          days: sheet.daysWorked,
          openSessions: sheet.openSessions,
          flags: sheet.flagCounts,
        };
      }),
      total: Number(count?.n ?? 0),
      page: q.page,
      limit: q.limit,
      from: q.from,
      to: q.to,
    };
  }

  private async sheets(workers: WorkerRow[], rules: WorkRules, range: Range, w: ReturnType<HoursService['window']>, locale: Locale, now: Date) {
    const punches = await this.punches(workers.map((x) => Number(x.id)), w.start, w.end, locale);
    const openUntil = this.openUntil(w.last, now);
    const out = new Map<number, Timesheet>();
    for (const [id, list] of punches) out.set(id, timesheet(list, rules, { from: range.from, to: range.to, openUntil }));
    await withPeriods(this.db, out, range);
    return out;
  }

  /** The timesheets of these workers for a range, a batch at a time (a lock stores them). */
  async sheetsOf(userIds: number[], range: Range, locale: Locale, now = new Date(), batch = 200): Promise<Map<number, Timesheet>> {
    const rules = await this.rules();
    const w = this.window(range, rules.weekStartsOn);
    const out = new Map<number, Timesheet>();
    for (let i = 0; i < userIds.length; i += batch) {
      const workers = userIds.slice(i, i + batch).map((id) => ({ id, username: '', fullName: '' }));
      for (const [id, sheet] of await this.sheets(workers, rules, range, w, locale, now)) out.set(id, sheet);
    }
    return out;
  }

  /** One worker's days and sessions; 404 when there is no such worker. */
  async worker(userId: number, range: Range, locale: Locale, now = new Date()) {
    const rules = await this.rules();
    const w = this.window(range, rules.weekStartsOn);
    const [worker] = await this.db.query<WorkerRow>(
      'SELECT id, username, full_name AS "fullName" FROM timeclock.users WHERE id = $1',
      [userId],
    );
    if (!worker) throw new AppError(E.NOT_FOUND, { detail: msg('timeclock.hours.workerNotFound', { id: userId }), details: { userId } });
    const sheet = (await this.sheets([worker], rules, range, w, locale, now)).get(userId)!;
    return {
      userId,
      fullName: worker.fullName,
      from: range.from,
      to: range.to,
      days: sheet.days.map((d) => ({
        ...d,
        sessions: d.sessions.map((s) => ({ ...s, start: s.start.toISOString(), end: s.end?.toISOString() ?? null })),
      })),
      totals: sheet.totals,
      weekStartsOn: rules.weekStartsOn,
      maxDailyMinutes: rules.maxDailyMinutes,
      minRestMinutes: rules.minRestMinutes,
    };
  }

  /**
   * Every matching worker's timesheet, in name order, a batch of workers at a time (the payroll
   * export): memory holds one batch, whatever the number of workers.
   */
  async *all(filters: WorkerFilters & Range, locale: Locale, signal: AbortSignal, batch = 200): AsyncGenerator<{ worker: WorkerRow; sheet: Timesheet }> {
    const rules = await this.rules();
    const w = this.window(filters, rules.weekStartsOn);
    const params = this.params(filters, new Date((w.first - MARGIN_DAYS) * DAY_MS), w.end);
    const now = new Date();
    for (let offset = 0; ; offset += batch) {
      signal.throwIfAborted();
      const workers = await this.db.query<WorkerRow>(PAGE_BY_NAME, [...params, batch, offset]);
      const sheets = await this.sheets(workers, rules, filters, w, locale, now);
      for (const worker of workers) yield { worker, sheet: sheets.get(Number(worker.id))! };
      if (workers.length < batch) return;
    }
  }
}
