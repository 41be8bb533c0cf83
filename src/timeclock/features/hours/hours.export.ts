// The payroll export (an export kind of the platform's queue): every matching worker's
// timesheet for a period, one row per worker, per worked day or per session, as CSV or XLSX.
// Hours are written twice: decimal hours with two decimals and `h:mm`. In XLSX both are numeric
// cells (hours with the `0.00` format; days with the `[h]:mm` format, so they add up in a sheet)
// and a totals row sums them. Headers are in the language of the manager who asked.
import { translate, type Locale, type MessageKey } from '../../../platform/i18n.ts';
import type { ExportColumn, ExportKind } from '../../../platform/jobs/export-kinds.ts';
import { formatDisplay } from '../../../platform/time.ts';
import { summarise, type DayHours, type Flag, type SessionHours, type Totals } from './hours.rules.ts';
import type { HoursService, WorkerRow } from './hours.service.ts';
import type { PayrollExportBodyT } from './hours.schema.ts';

export const PAYROLL_KIND = 'payroll';

export type PayrollParams = PayrollExportBodyT & { lang: Locale };

interface Row {
  worker: WorkerRow;
  totals: Totals;
  daysWorked?: number;
  date?: string;
  session?: SessionHours;
  flags: string;
  /** The day's state, or per worker how many days of each. */
  period: string;
}

const stateOf = (d: DayHours) => (d.locked ? 'locked' : d.approved ? 'approved' : 'open');
/** Whether `periods` takes the day. */
const takes = (periods: PayrollParams['periods'], d: DayHours) => periods === 'locked' ? d.locked : periods === 'approved' ? d.approved : true;

/** Decimal hours, two decimals. */
export const decimalHours = (seconds: number) => (seconds / 3600).toFixed(2);
/** `h:mm`, minutes rounded down. */
export function clockHours(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}`;
}

const flagText = (flags: readonly Flag[]) => flags.join(' ');

function columns(p: PayrollParams): ExportColumn<Row>[] {
  const h = (key: MessageKey) => translate(key, p.lang);
  const hours = (key: MessageKey, pick: (t: Totals) => number): ExportColumn<Row> => ({
    header: h(key),
    value: (r) => decimalHours(pick(r.totals)),
    xlsx: { value: (r) => Math.round(pick(r.totals) / 36) / 100, numFmt: '0.00', total: true, width: 12 },
  });
  const clock = (key: MessageKey, pick: (t: Totals) => number): ExportColumn<Row> => ({
    header: h(key),
    value: (r) => clockHours(pick(r.totals)),
    xlsx: { value: (r) => Math.floor(pick(r.totals) / 60) / 1440, numFmt: '[h]:mm', total: true, width: 12 },
  });
  const who: ExportColumn<Row>[] = [
    { header: h('timeclock.payroll.username'), value: (r) => r.worker.username, xlsx: { width: 18 } },
    { header: h('timeclock.payroll.fullName'), value: (r) => r.worker.fullName, xlsx: { width: 24 } },
  ];
  const where: ExportColumn<Row>[] = p.detail === 'workers'
    ? [{ header: h('timeclock.payroll.days'), value: (r) => r.daysWorked ?? 0, xlsx: { value: (r) => r.daysWorked ?? 0, total: true } }]
    : p.detail === 'days'
      ? [{ header: h('timeclock.payroll.date'), value: (r) => r.date }]
      : [
        { header: h('timeclock.payroll.date'), value: (r) => r.date },
        { header: h('timeclock.payroll.site'), value: (r) => r.session?.siteName ?? '' },
        { header: h('timeclock.payroll.start'), value: (r) => local(r.session?.start ?? null, r.session?.timezone), xlsx: { width: 18 } },
        { header: h('timeclock.payroll.end'), value: (r) => local(r.session?.end ?? null, r.session?.timezone), xlsx: { width: 18 } },
      ];
  const figures = p.detail === 'sessions'
    ? [hours('timeclock.payroll.worked', (t) => t.workedSeconds), hours('timeclock.payroll.paid', (t) => t.paidSeconds), clock('timeclock.payroll.paidClock', (t) => t.paidSeconds)]
    : [
      hours('timeclock.payroll.worked', (t) => t.workedSeconds),
      hours('timeclock.payroll.break', (t) => t.breakSeconds),
      hours('timeclock.payroll.paid', (t) => t.paidSeconds),
      hours('timeclock.payroll.regular', (t) => t.regularSeconds),
      hours('timeclock.payroll.overtime', (t) => t.overtimeSeconds),
      clock('timeclock.payroll.paidClock', (t) => t.paidSeconds),
      clock('timeclock.payroll.regularClock', (t) => t.regularSeconds),
      clock('timeclock.payroll.overtimeClock', (t) => t.overtimeSeconds),
    ];
  return [
    ...who, ...where, ...figures,
    { header: h('timeclock.payroll.flags'), value: (r) => r.flags, xlsx: { width: 20 } },
    { header: h('timeclock.payroll.period'), value: (r) => r.period, xlsx: { width: 20 } },
  ];
}

/** A session's time in its site's zone, `YYYY-MM-DD HH:mm:ss` (empty while open). */
const local = (at: Date | null, tz: string | undefined) => (at && tz ? formatDisplay(at, tz)! : '');

const sessionTotals = (s: SessionHours): Totals => ({
  workedSeconds: s.workedSeconds, breakSeconds: 0, paidSeconds: s.paidSeconds, regularSeconds: 0, overtimeSeconds: 0,
});

async function* rows(hours: HoursService, p: PayrollParams, signal: AbortSignal): AsyncGenerator<Row> {
  const state = (d: DayHours) => translate(`timeclock.payroll.period.${stateOf(d)}`, p.lang);
  for await (const { worker, sheet: whole } of hours.all(p, p.lang, signal)) {
    const sheet = p.periods && p.periods !== 'all' ? summarise(whole.days.filter((d) => takes(p.periods, d))) : whole;
    if (p.detail === 'workers') {
      const flags = Object.entries(sheet.flagCounts).filter(([, n]) => n > 0).map(([f, n]) => `${f} ${n}`).join(' ');
      const counts = new Map<string, number>();
      for (const d of sheet.days) if (d.sessions.length > 0) counts.set(state(d), (counts.get(state(d)) ?? 0) + 1);
      yield { worker, totals: sheet.totals, daysWorked: sheet.daysWorked, flags, period: [...counts].map(([s, n]) => `${s} ${n}`).join(' ') };
      continue;
    }
    const worked = sheet.days.filter((d: DayHours) => d.sessions.length > 0);
    for (const day of worked) {
      if (p.detail === 'days') {
        yield { worker, totals: day, date: day.date, flags: flagText(day.flags), period: state(day) };
      } else {
        for (const s of day.sessions) yield { worker, totals: sessionTotals(s), date: day.date, session: s, flags: flagText(s.flags), period: state(day) };
      }
    }
  }
}

export function payrollKind(hours: HoursService): ExportKind<Row> {
  return {
    columns: (params) => columns(params as PayrollParams),
    rows: (params, signal) => rows(hours, params as PayrollParams, signal),
    format: (params) => ((params as PayrollParams).format === 'xlsx' ? 'xlsx' : 'csv'),
    sheet: (params) => {
      const p = params as PayrollParams;
      return { name: translate('timeclock.payroll.sheet', p.lang, { from: p.from, to: p.to }), totalsLabel: translate('timeclock.payroll.totals', p.lang) };
    },
  };
}
