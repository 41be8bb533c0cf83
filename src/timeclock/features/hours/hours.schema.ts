// Schemas of hours: the work rules, the timesheets of managers and workers, the payroll export.
// Durations are integer seconds; dates are `YYYY-MM-DD` calendar dates.
import { Type, type Static } from 'typebox';
import { Nullable } from '../../../platform/http/schemas.ts';
import { Body, Id } from '../../http.ts';
import { COMPLIANCE_FLAGS, FLAGS, ROUNDING_MODES } from './hours.rules.ts';

export const RANGE_DAYS_MAX = 62;
export const PREVIEW_SESSIONS_MAX = 8;

const Minutes = (max: number, description: string) => Type.Integer({ minimum: 0, maximum: max, description });

export const BreakRuleSchema = Body({
  afterMinutes: Minutes(1440, 'applies to a day whose worked time is more than this many minutes'),
  breakMinutes: Type.Integer({ minimum: 1, maximum: 720, description: 'unpaid break the day must have, in minutes' }),
});

export const WorkRulesBody = Body({
  weekStartsOn: Type.Integer({ minimum: 1, maximum: 7, description: 'first day of the week for weekly overtime: 1 = Monday … 7 = Sunday' }),
  dailyOvertimeAfterMinutes: Nullable(Minutes(1440, 'paid minutes of a day after which time is overtime; null: no daily overtime')),
  weeklyOvertimeAfterMinutes: Nullable(Minutes(10_080, 'regular paid minutes of a week after which time is overtime; null: no weekly overtime')),
  breakRules: Type.Array(BreakRuleSchema, {
    maxItems: 10,
    description: 'required unpaid breaks: a day whose worked time is more than `afterMinutes` must have `breakMinutes` of break (the largest applicable rule counts); a shorter recorded break is topped up by deducting the shortfall from paid time. Empty: no rules',
  }),
  rounding: Body({
    mode: Type.Enum([...ROUNDING_MODES], { description: 'how each session’s paid time is rounded: none, to the nearest step, up or down' }),
    minutes: Type.Integer({ minimum: 1, maximum: 60, description: 'the step, in minutes' }),
  }),
  longSessionMinutes: Type.Integer({ minimum: 60, maximum: 4320, description: 'a session longer than this is flagged `long`' }),
  autoClockOutAfterMinutes: Type.Optional(Nullable(Type.Integer({ minimum: 60, maximum: 2880, description: 'a session still open this many minutes after its clock-in is closed automatically (default 720); null: never' }))),
  leftFenceMinutes: Type.Optional(Type.Integer({ minimum: 5, maximum: 720, description: 'a worker outside their site’s fence this many minutes while clocked in is reminded to clock out (default 30)' })),
  minRestMinutes: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 1440, description: 'least rest between a clock-out and the next clock-in (default 660, 11 h: the EU working-time directive); shorter is flagged `short_rest`; null: no rule' }))),
  maxDailyMinutes: Type.Optional(Nullable(Type.Integer({ minimum: 60, maximum: 1440, description: 'most paid minutes of a day (default 600); more is flagged `over_daily_max`; null: no rule' }))),
});

export const WorkRulesReply = Type.Intersect([
  WorkRulesBody,
  Type.Object({
    updatedAt: Nullable(Type.String({ description: 'when they were last changed, ISO 8601 UTC; null: the defaults, never changed' })),
    updatedBy: Nullable(Type.Object({ id: Type.Integer(), username: Type.String(), fullName: Type.String() }, { description: 'the manager who last changed them' })),
  }),
]);

const DATE_PATTERN = '^\\d{4}-\\d{2}-\\d{2}$';
const DateParam = (description: string) => Type.String({ pattern: DATE_PATTERN, description: `${description}, YYYY-MM-DD`, examples: ['2026-11-02'] });

export const RangeQuery = Type.Object({
  from: DateParam('first day, inclusive'),
  to: DateParam(`last day, inclusive; at most ${RANGE_DAYS_MAX} days after \`from\``),
});

export const TIMESHEET_LIMIT_MAX = 100;
export const TIMESHEET_SORTS = ['name', 'hours'] as const;

const Filters = {
  search: Type.Optional(Type.String({ maxLength: 128, description: 'case-insensitive substring of the username or full name' })),
  tag: Type.Optional(Id('only workers with this tag (id)')),
  siteId: Type.Optional(Id('only workers who clocked in at this site in the period (their figures stay their whole hours)')),
};

export const TimesheetsQuery = Type.Object({
  ...RangeQuery.properties,
  ...Filters,
  sort: Type.Enum([...TIMESHEET_SORTS], {
    default: 'name',
    description: '`name`: by full name, then username; `hours`: most recorded worked time in the period first',
  }),
  page: Type.Integer({ minimum: 1, maximum: 100_000, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: TIMESHEET_LIMIT_MAX, default: 20 }),
});

const Seconds = (description: string) => Type.Integer({ description: `${description}, seconds` });
const totalsProps = {
  workedSeconds: Seconds('time between clock-ins and their clock-outs'),
  breakSeconds: Seconds('unpaid break: the recorded gaps between a day’s sessions plus any deducted shortfall'),
  paidSeconds: Seconds('worked time after rounding, less deducted breaks'),
  regularSeconds: Seconds('paid time that is not overtime'),
  overtimeSeconds: Seconds('paid time beyond the daily limit, then beyond the weekly limit (never counted twice)'),
};
export const Totals = Type.Object(totalsProps);

const FlagSchema = Type.Enum([...FLAGS]);
const Flags = Type.Array(FlagSchema, {
  description: '`open`: no clock-out yet (counts up to now while the period includes today, nothing otherwise); `late`: an offline punch sent late; `forced`: a forced clock-out; `break_deducted`: unpaid break deducted by the break rules; `long`: a session longer than `longSessionMinutes`; `edited`: a correction added, moved or voided a punch of it (GET /api/managers/punches/{id}/history); `auto`: a forgotten session closed by the automatic clock-out (to review); working-time rules, on days: `short_rest` (less than `minRestMinutes` since the previous day’s last session), `over_daily_max` (paid time over `maxDailyMinutes`), `missing_break` (a shorter break than the break rules require)',
});

export const Session = Type.Object({
  siteId: Nullable(Type.Integer()),
  siteName: Nullable(Type.String()),
  start: Type.String({ description: 'the clock-in’s time, ISO 8601 UTC' }),
  end: Nullable(Type.String({ description: 'the clock-out’s time, ISO 8601 UTC; null while open' })),
  startEventId: Nullable(Type.Integer({ description: 'the clock-in punch (for corrections and its history); null in an example day' })),
  endEventId: Nullable(Type.Integer({ description: 'the clock-out punch; null while open and in an example day' })),
  workedSeconds: Seconds('clock-in to clock-out (to now for an open session in a live period)'),
  paidSeconds: Seconds('worked time after rounding'),
  flags: Flags,
});

export const Day = Type.Object({
  date: Type.String({ description: 'the local date (site’s time zone) of the sessions’ clock-ins' }),
  ...totalsProps,
  flags: Flags,
  sessions: Type.Array(Session),
  approved: Type.Boolean({ description: 'a manager approved the worker’s timesheet for this day (POST /api/managers/timesheets/{userId}/approve)' }),
  locked: Type.Boolean({ description: 'the day is in a locked period: no punch or correction dated in it is accepted, and its figures are those stored when it was locked' }),
  restBeforeSeconds: Nullable(Type.Integer({ description: 'rest since the end of the previous day’s last session (for `short_rest`); null when there was none' })),
  requiredBreakSeconds: Type.Integer({ description: 'the break the break rules require for the day’s worked time (for `missing_break`)' }),
});

export const WorkerTimesheet = Type.Object({
  userId: Type.Integer(),
  fullName: Type.String(),
  from: Type.String(),
  to: Type.String(),
  days: Type.Array(Day, { description: 'every date of the range, empty ones included' }),
  totals: Totals,
  weekStartsOn: Type.Integer({ minimum: 1, maximum: 7, description: 'the work rules’ first day of the week (1 = Monday … 7 = Sunday), for grouping the days into weeks' }),
  maxDailyMinutes: Nullable(Type.Integer({ description: 'the work rules’ daily maximum of paid minutes (the worker app warns 15 minutes before it); null: none' })),
  minRestMinutes: Nullable(Type.Integer({ description: 'the work rules’ minimum rest between two days, minutes; null: none' })),
});

export const FlagCounts = Type.Object(Object.fromEntries(FLAGS.map((f) => [f, Type.Integer()])), {
  description: 'sessions with each flag (days for the day flags `break_deducted`, `short_rest`, `over_daily_max`, `missing_break`)',
});

export const TimesheetRow = Type.Object({
  userId: Type.Integer(),
  username: Type.String(),
  fullName: Type.String(),
  ...totalsProps,
  days: Type.Integer({ description: 'days with at least one session' }),
  openSessions: Type.Integer(),
  flags: FlagCounts,
});

export const TimesheetsReply = Type.Object({
  items: Type.Array(TimesheetRow),
  total: Type.Integer(),
  page: Type.Integer(),
  limit: Type.Integer(),
  from: Type.String(),
  to: Type.String(),
});

const ClockTime = (description: string) => Type.String({ pattern: '^([01]\\d|2[0-3]):[0-5]\\d$', description: `${description}, HH:mm` });

export const WorkRulesPreviewBody = Body({
  rules: WorkRulesBody,
  sessions: Type.Array(Body({
    start: ClockTime('clock-in'),
    end: ClockTime('clock-out; earlier than the clock-in means the next day'),
  }), { minItems: 1, maxItems: PREVIEW_SESSIONS_MAX, description: 'the example day’s sessions, in order' }),
});

export const PAYROLL_FORMATS = ['csv', 'xlsx'] as const;
export const PAYROLL_DETAILS = ['workers', 'days', 'sessions'] as const;

export const PayrollExportBody = Body({
  from: RangeQuery.properties.from,
  to: RangeQuery.properties.to,
  format: Type.Enum([...PAYROLL_FORMATS]),
  detail: Type.Enum([...PAYROLL_DETAILS], { description: '`workers`: one row per worker; `days`: per worker and day; `sessions`: per session' }),
  periods: Type.Optional(Type.Enum(['all', 'approved', 'locked'] as const, {
    default: 'all',
    description: '`all` (default): every day; `approved`: only days a manager approved (locked ones included); `locked`: only days of locked periods. The `Period` column says each row’s state (per worker: how many days of each)',
  })),
  ...Filters,
});

const UserIds = Type.Array(Id('a worker'), { minItems: 1, maxItems: 1000, uniqueItems: true, description: 'these workers only (default: every worker)' });
export const ApproveBody = Body({ from: RangeQuery.properties.from, to: RangeQuery.properties.to });
export const Approval = Type.Object({
  id: Type.Integer(), userId: Type.Integer(), from: Type.String(), to: Type.String(),
  approvedAt: Type.String({ description: 'ISO 8601 UTC' }), approvedBy: Type.Integer({ description: 'the approving manager' }),
});
export const LockBody = Body({ from: RangeQuery.properties.from, to: RangeQuery.properties.to, userIds: Type.Optional(UserIds) });
export const LockReply = Type.Object({ from: Type.String(), to: Type.String(), locked: Type.Integer({ description: 'workers locked' }), userIds: Type.Array(Type.Integer()) });
export const UnlockBody = Body({
  from: RangeQuery.properties.from, to: RangeQuery.properties.to,
  reason: Type.String({ minLength: 1, maxLength: 500, description: 'why (required, recorded)' }),
  userIds: Type.Optional(UserIds),
});
export const UnlockReply = Type.Object({ from: Type.String(), to: Type.String(), unlocked: Type.Integer({ description: 'locks lifted' }), userIds: Type.Array(Type.Integer()) });

export const ComplianceQuery = Type.Object({
  ...RangeQuery.properties,
  ...Filters,
  page: Type.Integer({ minimum: 1, maximum: 100_000, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
});
export const Violation = Type.Object({
  userId: Type.Integer(),
  username: Type.String(),
  fullName: Type.String(),
  date: Type.String({ description: 'the day (local date of its sessions)' }),
  rule: Type.Enum([...COMPLIANCE_FLAGS], { description: '`short_rest`, `over_daily_max` or `missing_break`' }),
  restBeforeSeconds: Nullable(Type.Integer({ description: 'rest before the day (short_rest)' })),
  paidSeconds: Type.Integer({ description: 'the day’s paid time (over_daily_max)' }),
  breakSeconds: Type.Integer({ description: 'the day’s break, deductions included' }),
  requiredBreakSeconds: Type.Integer({ description: 'the break the rules require (missing_break)' }),
});
export const ComplianceReply = Type.Object({
  violations: Type.Array(Violation),
  totalCount: Type.Integer(),
  currentPage: Type.Integer(),
  totalPages: Type.Integer(),
  from: Type.String(),
  to: Type.String(),
});
export const ComplianceExportBody = Body({
  from: RangeQuery.properties.from,
  to: RangeQuery.properties.to,
  format: Type.Enum([...PAYROLL_FORMATS]),
  ...Filters,
});

export type TimesheetsQueryT = Static<typeof TimesheetsQuery>;
export type PayrollExportBodyT = Static<typeof PayrollExportBody>;
export type WorkRulesT = Static<typeof WorkRulesBody>;
