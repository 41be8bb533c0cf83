// The work rules (one settings object; every change is a new row of timeclock.work_rules, the
// newest in force): what hours, the forgotten clock-out sweep and the working-time warnings
// read. The hours feature edits them; rules stored before a field existed read its default.
import type { Executor } from '../../platform/db/database.ts';

export const ROUNDING_MODES = ['none', 'nearest', 'up', 'down'] as const;
export type RoundingMode = (typeof ROUNDING_MODES)[number];

export interface BreakRule {
  afterMinutes: number;
  breakMinutes: number;
}

export interface WorkRules {
  /** ISO weekday the week starts on: 1 = Monday … 7 = Sunday. */
  weekStartsOn: number;
  dailyOvertimeAfterMinutes: number | null;
  weeklyOvertimeAfterMinutes: number | null;
  breakRules: BreakRule[];
  rounding: { mode: RoundingMode; minutes: number };
  longSessionMinutes: number;
  /** A session still open this long after its clock-in is closed automatically; null: never. */
  autoClockOutAfterMinutes: number | null;
  /** A worker outside their site's fence this long while clocked in is reminded. */
  leftFenceMinutes: number;
  /** The least rest between a clock-out and the next day's clock-in (EU: 11 h); null: no rule. */
  minRestMinutes: number | null;
  /** The most paid time of a day; null: no rule. */
  maxDailyMinutes: number | null;
}

export const DEFAULT_WORK_RULES: WorkRules = {
  weekStartsOn: 1,
  dailyOvertimeAfterMinutes: 480,
  weeklyOvertimeAfterMinutes: 2400,
  breakRules: [],
  rounding: { mode: 'none', minutes: 15 },
  longSessionMinutes: 960,
  autoClockOutAfterMinutes: 720,
  leftFenceMinutes: 30,
  minRestMinutes: 660,
  maxDailyMinutes: 600,
};

/** The rules in force, with who changed them last and when (null: the defaults). */
export async function readWorkRules(exec: Executor): Promise<{ rules: WorkRules; changedAt: Date | null; by: { id: number; username: string; fullName: string } | null }> {
  const [row] = await exec.query<{ rules: Partial<WorkRules>; changed_at: Date; user_id: number | null; username: string | null; full_name: string | null }>(
    `SELECT r.rules, r.changed_at, u.id AS user_id, u.username, u.full_name
     FROM timeclock.work_rules r LEFT JOIN timeclock.users u ON u.id = r.changed_by
     ORDER BY r.id DESC LIMIT 1`,
  );
  if (!row) return { rules: DEFAULT_WORK_RULES, changedAt: null, by: null };
  return {
    rules: { ...DEFAULT_WORK_RULES, ...row.rules },
    changedAt: new Date(row.changed_at),
    by: row.user_id === null ? null : { id: Number(row.user_id), username: row.username!, fullName: row.full_name! },
  };
}
