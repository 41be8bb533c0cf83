// POST /logs/operation/export and POST /logs/login/export, and their export kinds: the rows of
// the list's filters within the caller's data scope (stored with the task), newest first, as CSV
// or XLSX on the admin service's export queue (../../kernel/export-tasks.ts; the file is read and
// downloaded through GET /exports/{id}). Times in the display zone; the operation's name and a
// sign-in's location in the requester's language; parameters as the log keeps them (secrets
// already redacted).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import { localeOf } from '../../../platform/http/conventions.ts';
import type { Locale } from '../../../platform/i18n.ts';
import { exportKind, type ExportFormat } from '../../../platform/jobs/export-kinds.ts';
import type { FeatureOptions } from '../../context.ts';
import { Body, ok } from '../../http.ts';
import type { DataScope } from '../../kernel/data-scope.ts';
import { ExportTaskReply, renderExportTask } from '../../kernel/export-tasks.ts';
import type { LoginLogRecord, OperationLogRecord } from '../../kernel/log-records.ts';
import { LoginLogExportQuery, OperationLogExportQuery } from './logs.schema.ts';
import { parseDateRange, type LogsService } from './logs.service.ts';

export const OPERATION_LOGS_EXPORT_KIND = 'operation_logs';
export const LOGIN_LOGS_EXPORT_KIND = 'login_logs';

/** What is queued: the filters, the file's format, the requester's language and data scope (when not `all`). */
interface LogExportParams {
  filters: Record<string, unknown>;
  format: ExportFormat;
  lang: Locale;
  scope?: DataScope;
}

const paramsOf = (p: Record<string, unknown>) => p as unknown as LogExportParams;
const format = (p: Record<string, unknown>) => paramsOf(p).format;

type OperationRow = Static<typeof OperationLogRecord>;
type LoginRow = Static<typeof LoginLogRecord>;

export function operationLogsExportKind(logs: LogsService) {
  return exportKind<OperationRow>({
    columns: [
      { header: 'id', value: (r) => r.id, xlsx: { value: (r) => r.id } },
      { header: 'created_at', value: (r) => r.created_at, xlsx: { width: 20 } },
      { header: 'admin_id', value: (r) => r.admin_id ?? '' },
      { header: 'username', value: (r) => r.username, xlsx: { width: 16 } },
      { header: 'action', value: (r) => r.action_label, xlsx: { width: 28 } },
      { header: 'module', value: (r) => r.module },
      { header: 'method', value: (r) => r.method },
      { header: 'path', value: (r) => r.path, xlsx: { width: 36 } },
      { header: 'status_code', value: (r) => r.status_code, xlsx: { value: (r) => r.status_code } },
      { header: 'duration_ms', value: (r) => r.duration_ms, xlsx: { value: (r) => r.duration_ms } },
      { header: 'ip', value: (r) => r.ip, xlsx: { width: 16 } },
      { header: 'trace_id', value: (r) => r.trace_id, xlsx: { width: 24 } },
      { header: 'params', value: (r) => JSON.stringify(r.params ?? null), xlsx: { width: 48 } },
      { header: 'changes', value: (r) => (r.changes ? JSON.stringify(r.changes) : ''), xlsx: { width: 48 } },
    ],
    rows: (params, signal) => {
      const p = paramsOf(params);
      return logs.operationRows(p.filters, p.scope, p.lang, signal);
    },
    format,
    sheet: () => ({ name: 'Operation log' }),
  });
}

export function loginLogsExportKind(logs: LogsService) {
  return exportKind<LoginRow>({
    columns: [
      { header: 'id', value: (r) => r.id, xlsx: { value: (r) => r.id } },
      { header: 'created_at', value: (r) => r.created_at, xlsx: { width: 20 } },
      { header: 'admin_id', value: (r) => r.admin_id ?? '' },
      { header: 'username', value: (r) => r.username, xlsx: { width: 16 } },
      { header: 'status', value: (r) => r.status, xlsx: { value: (r) => r.status } },
      { header: 'reason', value: (r) => r.reason, xlsx: { width: 22 } },
      { header: 'ip', value: (r) => r.ip, xlsx: { width: 16 } },
      { header: 'user_agent', value: (r) => r.user_agent, xlsx: { width: 48 } },
      { header: 'location', value: (r) => r.location.label, xlsx: { width: 28 } },
      { header: 'country', value: (r) => r.location.country },
      { header: 'city', value: (r) => r.location.city, xlsx: { width: 20 } },
    ],
    rows: (params, signal) => {
      const p = paramsOf(params);
      return logs.loginRows(p.filters, p.scope, p.lang, signal);
    },
    format,
    sheet: () => ({ name: 'Login log' }),
  });
}

export const logsExportRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const tz = ctx.platform.config.DISPLAY_TIMEZONE;
  const tasks = ctx.exports;
  const { logs } = ctx;
  tasks.register(OPERATION_LOGS_EXPORT_KIND, operationLogsExportKind(logs));
  tasks.register(LOGIN_LOGS_EXPORT_KIND, loginLogsExportKind(logs));
  const prefix = app.prefix;
  const describe = (what: string, permission: string) => [
    `Queues an export of the ${what} log with the list’s filters (query string, no paging: every matching row, newest first), in the caller’s data scope,`,
    'as CSV (default) or XLSX (`format`), and returns the task (`download_url` null). Poll `GET /exports/{id}` until `status` is `completed`,',
    `then download from \`download_url\`. Needs \`${permission}\`, as the list. Times in the display time zone.`,
  ].join(' ');
  // No body is expected; none at all is an empty one.
  const noBody = async (request: { body: unknown }) => {
    request.body ??= {};
  };
  const queue = async (kind: string, query: Record<string, unknown> & { format?: ExportFormat | undefined }, caller: { adminId: number; scope: DataScope }, lang: Locale) => {
    const { format: chosen, ...filters } = query;
    parseDateRange(filters, tz); // a bad range is a 400 now, not a failed task later
    const params: LogExportParams = { filters, format: chosen ?? 'csv', lang, ...(caller.scope.all ? {} : { scope: caller.scope }) };
    return tasks.create(kind, { ...params }, caller.adminId);
  };

  app.post('/logs/operation/export', {
    config: { permission: 'log.operation' },
    schema: { tags: ['Logs'], summary: 'Export the operation log (CSV or XLSX)', description: describe('operation', 'log.operation'), querystring: OperationLogExportQuery, body: Body({}), response: { 200: ExportTaskReply } },
    preValidation: noBody,
  }, async (request) => {
    const task = await queue(OPERATION_LOGS_EXPORT_KIND, request.query, request.admin!, localeOf(request));
    return ok(request, { ...renderExportTask(tasks, task, prefix, tz), download_url: null });
  });

  app.post('/logs/login/export', {
    config: { permission: 'log.login' },
    schema: { tags: ['Logs'], summary: 'Export the login log (CSV or XLSX)', description: describe('login', 'log.login'), querystring: LoginLogExportQuery, body: Body({}), response: { 200: ExportTaskReply } },
    preValidation: noBody,
  }, async (request) => {
    const task = await queue(LOGIN_LOGS_EXPORT_KIND, request.query, request.admin!, localeOf(request));
    return ok(request, { ...renderExportTask(tasks, task, prefix, tz), download_url: null });
  });
};
