// The worker app's hours helpers: local dates, weeks as the work rules start them, `h:mm`, and
// today's and this week's paid time with a session still running.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hm, localDay, todayAndWeek, weekOf, type Timesheet } from '../src/worker/hours.ts';

const day = (date: string, paidSeconds: number, sessions: Timesheet['days'][number]['sessions'] = []) => ({
  date, workedSeconds: paidSeconds, breakSeconds: 0, paidSeconds, regularSeconds: paidSeconds, overtimeSeconds: 0, flags: [], sessions, approved: false, locked: false, restBeforeSeconds: null, requiredBreakSeconds: 0,
});

test('h:mm rounds minutes down and never shows a negative time', () => {
  assert.equal(hm(0), '0:00');
  assert.equal(hm(59), '0:00');
  assert.equal(hm(3600 * 7 + 60 * 5 + 59), '7:05');
  assert.equal(hm(3600 * 41), '41:00');
  assert.equal(hm(-5), '0:00');
});

test('weeks start on the work rules’ weekday', () => {
  // 2026-11-26 is a Thursday.
  assert.equal(weekOf('2026-11-26', 1), '2026-11-23');
  assert.equal(weekOf('2026-11-26', 7), '2026-11-22');
  assert.equal(weekOf('2026-11-26', 4), '2026-11-26');
  assert.equal(weekOf('2026-11-23', 1), '2026-11-23');
  assert.equal(localDay(new Date(2026, 0, 5, 23, 59)), '2026-01-05');
});

test('today and this week: the week’s days to today, and a running session counted up to now', () => {
  const start = Date.parse('2026-11-26T08:00:00Z');
  const sheet = {
    userId: 1, fullName: 'W', from: '2026-11-01', to: '2026-11-26', weekStartsOn: 1, maxDailyMinutes: null, minRestMinutes: null,
    totals: { workedSeconds: 0, breakSeconds: 0, paidSeconds: 0, regularSeconds: 0, overtimeSeconds: 0 },
    days: [
      day('2026-11-20', 8 * 3600),
      day('2026-11-23', 8 * 3600),
      day('2026-11-24', 7 * 3600),
      day('2026-11-26', 600, [{ siteId: 1, siteName: 'S', start: new Date(start).toISOString(), end: null, startEventId: 1, endEventId: null, workedSeconds: 600, paidSeconds: 600, flags: ['open'] }]),
    ],
  } satisfies Timesheet;
  const later = start + 3600 * 1000;
  assert.deepEqual(todayAndWeek(sheet, '2026-11-26', later), { today: 3600, week: 15 * 3600 + 3600, open: true });
  assert.deepEqual(todayAndWeek(sheet, '2026-11-25', later), { today: 0, week: 15 * 3600, open: false });
});
