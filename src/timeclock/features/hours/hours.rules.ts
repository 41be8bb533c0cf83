// The rules that turn punches into payable hours (DESIGN §7.10), as pure functions over one
// worker's punches in time order: no database, no clock but the `openUntil` they are given.
//
// - A session is a clock-in and the worker's next clock-out, at the clock-in's site, timed by
//   the events' own times (capture times for offline punches). A clock-in followed by another
//   clock-in, or not yet followed by anything, is an open session: it counts up to `openUntil`
//   when that is given (a live view), nothing otherwise; either way it is flagged `open`.
// - A session belongs to the local date of its clock-in in its site's time zone. Durations are
//   differences of instants, so a night shift or a daylight-saving change counts its real length.
// - A day's recorded break is the time between its sessions. When the break rules require more
//   (the largest `breakMinutes` whose `afterMinutes` the day's worked time exceeds), the
//   shortfall is deducted from the paid time and the day is flagged `break_deducted`.
// - Each session's paid time is its worked time rounded as the rules say; the day's paid time is
//   the sum less the deduction. Daily overtime is the paid time beyond the daily limit; weekly
//   overtime is the regular time beyond the weekly limit, counted day by day through the week
//   (weeks start on `weekStartsOn`), so no second is overtime twice.
// - Punches a correction voided are left out of the sessions; a session with a punch a correction
//   inserted, or with a voided punch inside it, is flagged `edited`; one closed by the automatic
//   clock-out of a forgotten session is flagged `auto`.
// - Working-time rules flag a day: `short_rest` when its first session starts less than
//   `minRestMinutes` after the end of the previous day's last session (instants, so a
//   daylight-saving night counts its real length), `over_daily_max` when its paid time exceeds
//   `maxDailyMinutes`, `missing_break` when its recorded break is shorter than the break rules
//   require (the shortfall is deducted: `break_deducted`).
import { dateOfDay, dayNumber, isoWeekday, localDayNumber } from '../../../platform/time.ts';

export { DEFAULT_WORK_RULES, ROUNDING_MODES, type BreakRule, type RoundingMode, type WorkRules } from '../../kernel/work-rules.ts';
import type { WorkRules } from '../../kernel/work-rules.ts';

export const FLAGS = ['open', 'late', 'forced', 'break_deducted', 'long', 'edited', 'auto', 'short_rest', 'over_daily_max', 'missing_break'] as const;
/** Flags of a day rather than of a session. */
const DAY_FLAGS = ['break_deducted', 'short_rest', 'over_daily_max', 'missing_break'] as const;
/** The day flags of the working-time rules (the compliance report lists them). */
export const COMPLIANCE_FLAGS = ['short_rest', 'over_daily_max', 'missing_break'] as const satisfies readonly Flag[];
export type Flag = (typeof FLAGS)[number];

export interface Punch {
  /** The punch's id; null in an example day. */
  id: number | null;
  type: 'clock_in' | 'clock_out';
  at: Date;
  siteId: number | null;
  siteName: string | null;
  /** The IANA zone of the punch's site. */
  timezone: string;
  late: boolean;
  forced: boolean;
  /** Inserted by a correction (added, or the replacement of a moved punch). */
  corrected: boolean;
  /** Voided by a correction: out of the sessions, but it marks the session it falls in. */
  voided: boolean;
  /** The automatic clock-out of a forgotten session. */
  auto: boolean;
}

export interface SessionHours {
  siteId: number | null;
  siteName: string | null;
  /** The site's zone, in which `start` and `end` are local times (exports). */
  timezone: string;
  start: Date;
  /** The clock-out's time; null for an open session. */
  end: Date | null;
  startEventId: number | null;
  endEventId: number | null;
  workedSeconds: number;
  paidSeconds: number;
  flags: Flag[];
}

export interface Totals {
  workedSeconds: number;
  breakSeconds: number;
  paidSeconds: number;
  regularSeconds: number;
  overtimeSeconds: number;
}

export interface DayHours extends Totals {
  date: string;
  flags: Flag[];
  sessions: SessionHours[];
  /** A manager approved the worker's timesheet for this day; set by the hours service. */
  approved: boolean;
  /** The day is in a locked period: its figures are those stored when it was locked. */
  locked: boolean;
  /** The rest since the end of the worker's previous session (an earlier day's), or null. */
  restBeforeSeconds: number | null;
  /** The break the break rules require for the day's worked time. */
  requiredBreakSeconds: number;
}

export interface Timesheet {
  days: DayHours[];
  totals: Totals;
  /** Days with at least one session. */
  daysWorked: number;
  openSessions: number;
  /** Sessions with each flag; for the day flags (`break_deducted` and the working-time ones), days. */
  flagCounts: Record<Flag, number>;
}

const zero = (): Totals => ({ workedSeconds: 0, breakSeconds: 0, paidSeconds: 0, regularSeconds: 0, overtimeSeconds: 0 });

/** A worked duration rounded to the rules' step (never below zero). */
export function roundPaid(seconds: number, rounding: WorkRules['rounding']): number {
  if (rounding.mode === 'none' || rounding.minutes <= 0) return seconds;
  const step = rounding.minutes * 60;
  const f = rounding.mode === 'up' ? Math.ceil : rounding.mode === 'down' ? Math.floor : Math.round;
  return f(seconds / step) * step;
}

/** The sessions of one worker's punches (in time order), each with the local day (day number) it belongs to. */
export function sessionsOf(punches: readonly Punch[], rules: WorkRules, openUntil: Date | null): Array<SessionHours & { day: number }> {
  const out: Array<SessionHours & { day: number }> = [];
  // Whether a voided punch fell inside the open session.
  let touched = false;
  const close = (start: Punch, end: Punch | null, until: Date | null) => {
    const stop = end?.at ?? until;
    const worked = stop && stop > start.at ? Math.floor((stop.getTime() - start.at.getTime()) / 1000) : 0;
    const flags: Flag[] = [];
    if (!end) flags.push('open');
    if (start.late || end?.late) flags.push('late');
    if (end?.forced) flags.push('forced');
    if (end?.auto) flags.push('auto');
    if (worked > rules.longSessionMinutes * 60) flags.push('long');
    if (touched || start.corrected || end?.corrected) flags.push('edited');
    touched = false;
    out.push({
      day: localDayNumber(start.at, start.timezone),
      siteId: start.siteId,
      siteName: start.siteName,
      timezone: start.timezone,
      start: start.at,
      end: end?.at ?? null,
      startEventId: start.id,
      endEventId: end?.id ?? null,
      workedSeconds: worked,
      paidSeconds: roundPaid(worked, rules.rounding),
      flags,
    });
  };
  let open: Punch | null = null;
  for (const p of punches) {
    if (p.voided) {
      if (open) touched = true;
      continue;
    }
    if (p.type === 'clock_in') {
      // A clock-in after a clock-in: the first one was never closed.
      if (open) close(open, null, null);
      open = p;
    } else if (open) {
      close(open, p, null);
      open = null;
    }
    // A clock-out whose clock-in is not among the punches belongs to an earlier period.
  }
  if (open) close(open, null, openUntil);
  return out;
}

/** A day's figures before weekly overtime. */
function dayOf(date: string, sessions: SessionHours[], rules: WorkRules, restBefore: number | null): DayHours {
  sessions.sort((a, b) => a.start.getTime() - b.start.getTime());
  let worked = 0;
  let paid = 0;
  let recordedBreak = 0;
  const flags = new Set<Flag>();
  let previousEnd: Date | null = null;
  for (const s of sessions) {
    worked += s.workedSeconds;
    paid += s.paidSeconds;
    for (const f of s.flags) flags.add(f);
    if (previousEnd && s.start > previousEnd) recordedBreak += Math.floor((s.start.getTime() - previousEnd.getTime()) / 1000);
    previousEnd = s.end;
  }
  let required = 0;
  for (const r of rules.breakRules) if (worked > r.afterMinutes * 60) required = Math.max(required, r.breakMinutes * 60);
  const deducted = Math.min(Math.max(0, required - recordedBreak), paid);
  if (deducted > 0) flags.add('break_deducted');
  if (required > recordedBreak) flags.add('missing_break');
  paid -= deducted;
  if (rules.maxDailyMinutes !== null && paid > rules.maxDailyMinutes * 60) flags.add('over_daily_max');
  if (rules.minRestMinutes !== null && restBefore !== null && restBefore < rules.minRestMinutes * 60) flags.add('short_rest');
  const overtime = rules.dailyOvertimeAfterMinutes === null ? 0 : Math.max(0, paid - rules.dailyOvertimeAfterMinutes * 60);
  return {
    date,
    workedSeconds: worked,
    breakSeconds: recordedBreak + deducted,
    paidSeconds: paid,
    regularSeconds: paid - overtime,
    overtimeSeconds: overtime,
    flags: FLAGS.filter((f) => flags.has(f)),
    sessions,
    approved: false,
    locked: false,
    restBeforeSeconds: restBefore,
    requiredBreakSeconds: required,
  };
}

/** The first day (day number) of the week that `day` is in. */
export function weekStart(day: number, weekStartsOn: number): number {
  return day - ((isoWeekday(day) - weekStartsOn + 7) % 7);
}

/**
 * One worker's timesheet for the dates `from`..`to` (inclusive). `punches` must cover the
 * weeks of the range (weekly overtime counts the days of the first week before `from`), with
 * some margin for time zones; sessions of other dates are left out of the result.
 */
export function timesheet(
  punches: readonly Punch[],
  rules: WorkRules,
  range: { from: string; to: string; openUntil: Date | null },
): Timesheet {
  const byDay = new Map<number, SessionHours[]>();
  // The rest before each day's first session: since the end of the previous (earlier day's) session.
  const restBefore = new Map<number, number | null>();
  let previous: { day: number; end: Date | null } | null = null;
  for (const { day, ...s } of sessionsOf(punches, rules, range.openUntil)) {
    const list = byDay.get(day);
    if (list) list.push(s);
    else {
      byDay.set(day, [s]);
      restBefore.set(day, previous && previous.day !== day && previous.end ? Math.floor((s.start.getTime() - previous.end.getTime()) / 1000) : null);
    }
    previous = { day, end: s.end };
  }
  const first = dayNumber(range.from);
  const last = dayNumber(range.to);
  const computeFrom = weekStart(first, rules.weekStartsOn);
  const days: DayHours[] = [];
  let week = Number.NaN;
  let weekRegular = 0;
  const limit = rules.weeklyOvertimeAfterMinutes === null ? null : rules.weeklyOvertimeAfterMinutes * 60;
  for (let d = computeFrom; d <= last; d++) {
    const sessions = byDay.get(d);
    if (!sessions) {
      if (d >= first) days.push({ date: dateOfDay(d), ...zero(), flags: [], sessions: [], approved: false, locked: false, restBeforeSeconds: null, requiredBreakSeconds: 0 });
      continue;
    }
    const day = dayOf(dateOfDay(d), sessions, rules, restBefore.get(d) ?? null);
    const start = weekStart(d, rules.weekStartsOn);
    if (start !== week) {
      week = start;
      weekRegular = 0;
    }
    if (limit !== null) {
      const over = Math.max(0, weekRegular + day.regularSeconds - Math.max(weekRegular, limit));
      weekRegular += day.regularSeconds;
      day.regularSeconds -= over;
      day.overtimeSeconds += over;
    }
    if (d >= first) days.push(day);
  }
  return summarise(days);
}

/** A timesheet of these days: their totals, days worked and flag counts. */
export function summarise(days: DayHours[]): Timesheet {
  const totals = zero();
  const flagCounts = Object.fromEntries(FLAGS.map((f) => [f, 0])) as Record<Flag, number>;
  let daysWorked = 0;
  for (const day of days) {
    totals.workedSeconds += day.workedSeconds;
    totals.breakSeconds += day.breakSeconds;
    totals.paidSeconds += day.paidSeconds;
    totals.regularSeconds += day.regularSeconds;
    totals.overtimeSeconds += day.overtimeSeconds;
    if (day.sessions.length > 0) daysWorked++;
    // Day flags count days; the others count sessions.
    for (const f of DAY_FLAGS) if (day.flags.includes(f)) flagCounts[f]++;
    for (const s of day.sessions) for (const f of s.flags) flagCounts[f]++;
  }
  return { days, totals, daysWorked, openSessions: flagCounts.open, flagCounts };
}
