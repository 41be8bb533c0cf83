// The worker's own hours (GET /api/worker/timesheet, loaded by ./MyHours.tsx) for the clock
// screen's "today / this week" and the history's day and week totals: pure helpers for local
// dates, weeks and `h:mm` (tested without a browser).
import type { paths } from '../api/schema.gen.ts';

export const HOURS_DAYS = 35;

export type Timesheet = paths['/api/worker/timesheet']['get']['responses'][200]['content']['application/json'];
export type TimesheetDay = Timesheet['days'][number];

/** `YYYY-MM-DD` of a date in the phone's zone. */
export function localDay(d: Date): string {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

export const addDays = (d: Date, n: number) => new Date(d.getFullYear(), d.getMonth(), d.getDate() + n);

/** `h:mm` of seconds (minutes rounded down). */
export function hm(seconds: number): string {
  const minutes = Math.max(0, Math.floor(seconds / 60));
  return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}`;
}

/** The first date (`YYYY-MM-DD`) of the week `date` is in, weeks starting on ISO weekday `weekStartsOn`. */
export function weekOf(date: string, weekStartsOn: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const day = new Date(y, m - 1, d);
  const iso = ((day.getDay() + 6) % 7) + 1;
  return localDay(addDays(day, -((iso - weekStartsOn + 7) % 7)));
}

/**
 * Paid seconds today and this week. An open session of today counts up to `now` (the server
 * counted it up to when it answered, which may be a while ago on a phone showing a kept copy).
 */
export function todayAndWeek(sheet: Timesheet, today: string, now: number): { today: number; week: number; open: boolean } {
  const week = weekOf(today, sheet.weekStartsOn);
  const day = sheet.days.find((d) => d.date === today);
  const running = day?.sessions.find((s) => s.end === null);
  const add = running ? Math.max(0, Math.floor((now - Date.parse(running.start)) / 1000) - running.paidSeconds) : 0;
  let weekPaid = 0;
  for (const d of sheet.days) if (d.date >= week && d.date <= today) weekPaid += d.paidSeconds;
  return { today: (day?.paidSeconds ?? 0) + add, week: weekPaid + add, open: !!running };
}
