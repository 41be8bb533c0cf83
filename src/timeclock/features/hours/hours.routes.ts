// Hours: the work rules (managers), timesheets (managers: every worker; a worker: their own)
// and the payroll export, a durable task on the platform's export queue.
import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { localeOf } from '../../../platform/http/conventions.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { msg } from '../../../platform/i18n.ts';
import type { FeatureOptions } from '../../context.ts';
import { E } from '../../errors.ts';
import { errors, IdParam, UserIdParam } from '../../http.ts';
import { ExportTaskView, findExportTask, renderExportTask } from '../../kernel/export-tasks.ts';
import { COMPLIANCE_KIND, complianceKind, compliancePage } from './hours.compliance.ts';
import { PAYROLL_KIND, payrollKind } from './hours.export.ts';
import {
  Approval, ApproveBody, ComplianceExportBody, ComplianceQuery, ComplianceReply, LockBody, LockReply, UnlockBody, UnlockReply,
  Day, PayrollExportBody, RangeQuery, RANGE_DAYS_MAX, TimesheetsQuery, TimesheetsReply, WorkerTimesheet, WorkRulesBody, WorkRulesPreviewBody, WorkRulesReply,
} from './hours.schema.ts';
import { checkRange } from './hours.service.ts';

const manager = { access: 'manager' } as const;
const tags = ['Hours (managers)'];

export const RULES_DOC = [
  '**How punches become hours.** A clock-in and the worker’s next clock-out form a session at the clock-in’s site, timed by the events’ own times (the capture time of an offline punch).',
  'A session belongs to the local date of its clock-in in its site’s time zone (`timezone` of the site); durations are differences of instants, so a night shift across midnight or a daylight-saving change counts its real length.',
  'A clock-in with no clock-out yet is an open session (flag `open`): while the period includes today it counts up to now, otherwise it counts nothing.',
  'A day’s recorded break is the time between its sessions; when the break rules require more (the largest `breakMinutes` whose `afterMinutes` the day’s worked time exceeds), the shortfall is deducted from paid time (flag `break_deducted`).',
  'Each session’s paid time is its worked time rounded as `rounding` says; a day’s paid time is their sum less deducted breaks.',
  'Daily overtime is paid time beyond `dailyOvertimeAfterMinutes`; weekly overtime is regular time beyond `weeklyOvertimeAfterMinutes` in the week starting on `weekStartsOn`, counted day by day, so no second is overtime twice. Weekly overtime counts the days of the period’s first week before `from` too.',
  'Flags: `open`, `late` (an offline punch sent late), `forced` (a forced clock-out), `break_deducted`, `long` (a session longer than `longSessionMinutes`), `edited` (a correction touched it), `auto` (closed by the automatic clock-out).',
  'Working-time rules flag days: `short_rest` (the first session starts less than `minRestMinutes` after the previous day’s last one ended; instants, so a daylight-saving night counts its real length), `over_daily_max` (paid time over `maxDailyMinutes`), `missing_break` (a recorded break shorter than the break rules require).',
  `Periods: \`from\` and \`to\` are inclusive dates, at most ${RANGE_DAYS_MAX} days apart (400 \`VALIDATION_ERROR\` naming the field otherwise). Timesheets are computed on every read with the rules in force.`,
].join('\n\n');

const FileBody = Type.Unsafe<Readable>({ type: 'string', format: 'binary', description: 'the CSV (text/csv, UTF-8 with a byte-order mark) or XLSX file' });
const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

export const hoursRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const { hours, exports, periods } = ctx;
  exports.register(PAYROLL_KIND, payrollKind(hours));
  exports.register(COMPLIANCE_KIND, complianceKind(hours));
  const prefix = app.prefix;

  app.get('/managers/work-rules', {
    config: manager,
    schema: { tags, summary: 'The work rules in force (breaks, overtime, rounding)', description: RULES_DOC, response: { 200: WorkRulesReply } },
  }, async () => hours.rules());

  app.put('/managers/work-rules', {
    config: manager,
    schema: {
      tags, summary: 'Replace the work rules',
      description: 'Every field is required but the four attendance rules (`autoClockOutAfterMinutes`, `leftFenceMinutes`, `minRestMinutes`, `maxDailyMinutes`), which keep their values when left out. The change is recorded with who made it and applies to every timesheet computed from then on.\n\n' + RULES_DOC,
      body: WorkRulesBody, response: { 200: WorkRulesReply },
    },
  }, async (request) => hours.setRules(request.body, request.user!.userId));

  app.post('/managers/work-rules/preview', {
    config: manager,
    schema: {
      tags, summary: 'An example day under rules not saved yet',
      description: 'Computes one day of the given sessions (`HH:mm`; an end not after its start is on the next day, and so is a session starting before the previous one ended) under `rules`, exactly as timesheets are computed; nothing is stored. The work rules screen shows it while the manager edits.',
      body: WorkRulesPreviewBody, response: { 200: Day },
    },
  }, async (request) => hours.preview(request.body.rules, request.body.sessions));

  app.get('/managers/timesheets', {
    config: manager,
    schema: {
      tags, summary: 'Timesheets: one row per worker with the period’s totals',
      description: 'Every worker matching the filters is listed, with zeros when they did not work; a deleted worker is listed only when they have punches in the period. `flags` counts the sessions with each flag (days for the day flags: `break_deducted`, `short_rest`, `over_daily_max`, `missing_break`).\n\n' + RULES_DOC,
      querystring: TimesheetsQuery, response: { 200: TimesheetsReply },
    },
  }, async (request) => hours.page(request.query, localeOf(request)));

  app.get('/managers/timesheets/:userId', {
    config: manager,
    schema: {
      tags, summary: 'One worker’s timesheet: every day of the period with its sessions',
      description: RULES_DOC, params: UserIdParam, querystring: RangeQuery, response: { 200: WorkerTimesheet, ...errors(404) },
    },
  }, async (request) => hours.worker(request.params.userId, request.query, localeOf(request)));

  app.get('/worker/timesheet', {
    config: { access: 'user' },
    schema: {
      tags: ['Hours'], summary: 'The signed-in worker’s own timesheet for a period',
      description: 'The same shape as a manager’s view of one worker, for the caller only.\n\n' + RULES_DOC,
      querystring: RangeQuery, response: { 200: WorkerTimesheet },
    },
  }, async (request) => hours.worker(request.user!.userId, request.query, localeOf(request)));

  const PERIODS_DOC = 'A locked period refuses every punch dated inside it (409 `PERIOD_LOCKED`; an offline punch arriving late is told to ask for a correction) and every correction touching it; its days are shown as they were when it was locked, whatever the work rules become. ' +
    'Days are dates in the display time zone (DISPLAY_TIMEZONE) for the punches’ times. Locking and unlocking are for the managers `PERIOD_LOCK_MANAGERS` names (every manager when it is empty; others get 403).';

  app.post('/managers/timesheets/:userId/approve', {
    config: manager,
    schema: {
      tags, summary: 'Approve a worker’s timesheet for a period',
      description: 'Records who approved the dates `from`..`to` and when; the timesheet’s days show `approved`. Refused with 409 `PERIOD_NOT_READY` while the period has automatic clock-outs not reviewed or correction requests not decided (`details.autoClockOuts`, `details.pendingCorrections`). ' + PERIODS_DOC,
      params: UserIdParam, body: ApproveBody, response: { 201: Approval, ...errors(404, 409) },
    },
  }, async (request, reply) => {
    checkRange(request.body);
    return reply.status(201).send(await periods.approve(request.params.userId, request.body, request.user!));
  });

  app.post('/managers/periods/lock', {
    config: manager,
    schema: {
      tags, summary: 'Lock a period (after payroll)',
      description: 'Locks `from`..`to` for `userIds` (default: every worker). Every worker with punches in it must be approved for each day (409 `PERIOD_NOT_READY`, `details.notApproved`); a worker’s period may not overlap an active lock (409 `CONFLICT`). Each worker’s days are stored as they are now. ' + PERIODS_DOC,
      body: LockBody, response: { 200: LockReply, ...errors(403, 409) },
    },
  }, async (request) => {
    checkRange(request.body);
    return periods.lock(request.body, request.user!, localeOf(request));
  });

  app.post('/managers/periods/unlock', {
    config: manager,
    schema: {
      tags, summary: 'Unlock a period, with a reason',
      description: 'Lifts every active lock overlapping `from`..`to` (of `userIds`, default every worker), recording who, when and `reason`; punches and corrections are accepted there again and the days are computed again. 404 when no lock overlaps. ' + PERIODS_DOC,
      body: UnlockBody, response: { 200: UnlockReply, ...errors(403, 404) },
    },
  }, async (request) => {
    checkRange(request.body);
    return periods.unlock(request.body, request.user!);
  });

  app.post('/managers/timesheets/export', {
    config: manager,
    schema: {
      tags, summary: 'Export timesheets for payroll (a durable task)',
      description: 'Queues the export and answers the task (202); `GET /api/managers/exports/{id}` follows it and its `downloadUrl` serves the file while it lasts (EXPORT_TTL_HOURS). ' +
        'Hours are written as decimal hours with two decimals and as `h:mm`. CSV: UTF-8 with a byte-order mark, a header row, cells a spreadsheet would read as formulas prefixed with `\'`. ' +
        'XLSX: one sheet with typed numeric cells (hours `0.00`, durations `[h]:mm`), a header row and a totals row. `detail`: one row per worker, per worked day, or per session (times local to the site). ' +
        'Headers are in the language of the request. Workers are written in name order, a batch at a time, so any number of workers exports in bounded memory.',
      body: PayrollExportBody, response: { 202: ExportTaskView },
    },
  }, async (request, reply) => {
    checkRange(request.body);
    const task = await exports.create(PAYROLL_KIND, { ...request.body, lang: localeOf(request) }, request.user!.userId);
    return reply.status(202).send(renderExportTask(exports, task, prefix));
  });

  const COMPLIANCE_DOC = 'Every day of the period on which a worker broke a working-time rule of the work rules: `short_rest` (less than `minRestMinutes`, default 11 h, between the end of one day’s last session and the next day’s first), ' +
    '`over_daily_max` (paid time over `maxDailyMinutes`, default 10 h), `missing_break` (a shorter break than the break rules require). Workers in name order, days in order; the same filters as timesheets.';

  app.get('/managers/compliance', {
    config: manager,
    schema: { tags, summary: 'The compliance report of a period', description: COMPLIANCE_DOC, querystring: ComplianceQuery, response: { 200: ComplianceReply } },
  }, async (request) => {
    checkRange(request.query);
    return compliancePage(hours, request.query, localeOf(request));
  });

  app.post('/managers/compliance/export', {
    config: manager,
    schema: {
      tags, summary: 'Export the compliance report (a durable task)',
      description: 'Queued like the payroll export (202 with the task; `GET /api/managers/exports/{id}` follows it). One row per violation, headers in the language of the request. ' + COMPLIANCE_DOC,
      body: ComplianceExportBody, response: { 202: ExportTaskView },
    },
  }, async (request, reply) => {
    checkRange(request.body);
    const task = await exports.create(COMPLIANCE_KIND, { ...request.body, lang: localeOf(request) }, request.user!.userId);
    return reply.status(202).send(renderExportTask(exports, task, prefix));
  });

  app.get('/managers/exports/:id', {
    config: manager,
    schema: { tags, summary: 'State of an export task', params: IdParam, response: { 200: ExportTaskView, ...errors(404) } },
  }, async (request) => renderExportTask(exports, await findExportTask(exports, request.params.id), prefix));

  app.get('/managers/exports/:id/download', {
    config: manager,
    schema: {
      tags, summary: 'Download a completed export’s file',
      description: '404 `NOT_FOUND` when the task is not completed or its file expired. When the server stores files in S3 with `S3_PUBLIC_ENDPOINT` set, the answer is instead a 302 to a presigned URL of the store, valid for a minute, ' +
        'issued after the same checks; the store answers with the same Content-Type and Content-Disposition.',
      params: IdParam, response: { 200: FileBody, ...errors(404) },
    },
  }, async (request, reply) => {
    const task = await findExportTask(exports, request.params.id);
    const xlsx = task.file_name?.endsWith('.xlsx') ?? false;
    const params = task.params as { from?: string; to?: string };
    const name = `${task.kind}-${params.from ?? ''}-${params.to ?? ''}-${task.id}.${xlsx ? 'xlsx' : 'csv'}`;
    const type = xlsx ? XLSX_TYPE : 'text/csv; charset=utf-8';
    const disposition = `attachment; filename="${name}"; filename*=UTF-8''${encodeURIComponent(name)}`;
    const url = await exports.presigned(task, { contentDisposition: disposition, contentType: type });
    if (url) return reply.header('Cache-Control', 'no-store').redirect(url, 302);
    const file = await exports.open(task);
    if (!file) throw new AppError(E.NOT_FOUND, { detail: msg('timeclock.exports.noFile', { id: task.id, status: task.status }), details: { exportId: task.id } });
    return reply
      .header('Content-Type', type)
      .header('Content-Disposition', disposition)
      .header('Content-Length', String(file.size))
      .header('Cache-Control', 'no-store')
      .header('X-Content-Type-Options', 'nosniff')
      .send(file.body);
  });
};
