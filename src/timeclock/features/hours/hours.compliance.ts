// The compliance report (issue 30 §4): every day of a period on which a worker broke a
// working-time rule of the work rules (`short_rest`, `over_daily_max`, `missing_break`), from the
// same timesheets as the hours, as a page for the screen or as a file on the export queue.
import type { Static } from 'typebox';
import { translate, type Locale, type MessageKey } from '../../../platform/i18n.ts';
import type { ExportColumn, ExportKind } from '../../../platform/jobs/export-kinds.ts';
import { clockHours } from './hours.export.ts';
import { COMPLIANCE_FLAGS, type DayHours } from './hours.rules.ts';
import type { ComplianceExportBody } from './hours.schema.ts';
import type { Range, HoursService, WorkerFilters, WorkerRow } from './hours.service.ts';

export const COMPLIANCE_KIND = 'compliance';

export interface ViolationRow {
  userId: number;
  username: string;
  fullName: string;
  date: string;
  rule: (typeof COMPLIANCE_FLAGS)[number];
  restBeforeSeconds: number | null;
  paidSeconds: number;
  breakSeconds: number;
  requiredBreakSeconds: number;
}

const violationsOf = (worker: WorkerRow, day: DayHours): ViolationRow[] =>
  COMPLIANCE_FLAGS.filter((rule) => day.flags.includes(rule)).map((rule) => ({
    userId: Number(worker.id), username: worker.username, fullName: worker.fullName, date: day.date, rule,
    restBeforeSeconds: day.restBeforeSeconds, paidSeconds: day.paidSeconds, breakSeconds: day.breakSeconds, requiredBreakSeconds: day.requiredBreakSeconds,
  }));

/** Every violation of the matching workers in the period, workers in name order, days in order. */
export async function* violations(hours: HoursService, filters: WorkerFilters & Range, locale: Locale, signal: AbortSignal): AsyncGenerator<ViolationRow> {
  for await (const { worker, sheet } of hours.all(filters, locale, signal)) {
    for (const day of sheet.days) yield* violationsOf(worker, day);
  }
}

/** A page of the report. */
export async function compliancePage(hours: HoursService, q: WorkerFilters & Range & { page: number; limit: number }, locale: Locale) {
  const all: ViolationRow[] = [];
  for await (const v of violations(hours, q, locale, new AbortController().signal)) all.push(v);
  return { violations: all.slice((q.page - 1) * q.limit, q.page * q.limit), totalCount: all.length, currentPage: q.page, totalPages: Math.ceil(all.length / q.limit), from: q.from, to: q.to };
}

type Params = Static<typeof ComplianceExportBody> & { lang: Locale };

function columns(p: Params): ExportColumn<ViolationRow>[] {
  const h = (key: MessageKey) => translate(key, p.lang);
  return [
    { header: h('timeclock.payroll.username'), value: (r) => r.username, xlsx: { width: 18 } },
    { header: h('timeclock.payroll.fullName'), value: (r) => r.fullName, xlsx: { width: 24 } },
    { header: h('timeclock.payroll.date'), value: (r) => r.date },
    { header: h('timeclock.compliance.rule'), value: (r) => translate(`timeclock.compliance.${r.rule}`, p.lang), xlsx: { width: 28 } },
    { header: h('timeclock.compliance.rest'), value: (r) => (r.restBeforeSeconds === null ? '' : clockHours(r.restBeforeSeconds)) },
    { header: h('timeclock.payroll.paidClock'), value: (r) => clockHours(r.paidSeconds) },
    { header: h('timeclock.compliance.break'), value: (r) => clockHours(r.breakSeconds) },
    { header: h('timeclock.compliance.requiredBreak'), value: (r) => clockHours(r.requiredBreakSeconds) },
  ];
}

export function complianceKind(hours: HoursService): ExportKind<ViolationRow> {
  return {
    columns: (params) => columns(params as Params),
    rows: (params, signal) => violations(hours, params as Params, (params as Params).lang, signal),
    format: (params) => ((params as Params).format === 'xlsx' ? 'xlsx' : 'csv'),
    sheet: (params) => {
      const p = params as Params;
      return { name: translate('timeclock.compliance.sheet', p.lang, { from: p.from, to: p.to }) };
    },
  };
}
