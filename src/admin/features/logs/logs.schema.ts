import { Type } from 'typebox';
import { OrderByQuery, PagingQuery } from '../../../platform/http/schemas.ts';
import { CappedListEnvelope } from '../../http.ts';
import { SYSTEM_LOG_LEVELS } from '../../db/schema.ts';
import { LoginLogRecord, OperationLogRecord } from '../../kernel/log-records.ts';

const DATE_OR_TIME = '^\\d{4}-\\d{2}-\\d{2}( \\d{2}:\\d{2}:\\d{2})?$';

const DateBound = (description: string) =>
  Type.String({
    pattern: DATE_OR_TIME,
    description: `${description}: YYYY-MM-DD HH:mm:ss, or YYYY-MM-DD for the whole day (display time zone)`,
    examples: ['2026-01-31', '2026-01-31 23:59:59'],
  });

export const DateRangeQuery = {
  start_date: Type.Optional(DateBound('from (inclusive)')),
  end_date: Type.Optional(DateBound('to (inclusive)')),
};

const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });

/** A request's trace ID (as in the `X-Trace-ID` header and the envelope's `trace_id`), matched exactly. */
const TraceIdQuery = Type.String({ minLength: 1, maxLength: 128, description: 'exact: the rows written while serving the request with this trace ID' });

export const OperationLogQuery = Type.Object({
  ...PagingQuery,
  admin_id: Type.Optional(Id),
  module: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'exact, e.g. `online`' })),
  action: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'exact, e.g. `kick`' })),
  trace_id: Type.Optional(TraceIdQuery),
  ...DateRangeQuery,
  order_by: OrderByQuery(['id', 'created_at', 'duration_ms', 'status_code'], 'id:desc'),
});

export const LoginLogQuery = Type.Object({
  ...PagingQuery,
  admin_id: Type.Optional(Id),
  ip: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'fuzzy' })),
  status: Type.Optional(Type.Integer({ minimum: 0, maximum: 1, description: '0 failure, 1 success' })),
  country: Type.Optional(Type.String({
    pattern: '^[A-Z]{2}$',
    description: 'exact: the rows whose address the data places in this country (ISO 3166-1 alpha-2, upper case, as `location.country`)',
    examples: ['US'],
  })),
  ...DateRangeQuery,
  order_by: OrderByQuery(['id', 'created_at'], 'id:desc'),
});

const ExportFormat = Type.Optional(Type.Enum(['csv', 'xlsx'], { description: 'the file: `csv` (default) or `xlsx`' }));

/** The operation log list's filters (no paging: every matching row, newest first) and the file's format. */
export const OperationLogExportQuery = Type.Object({
  admin_id: Type.Optional(Id),
  module: OperationLogQuery.properties.module,
  action: OperationLogQuery.properties.action,
  trace_id: Type.Optional(TraceIdQuery),
  ...DateRangeQuery,
  format: ExportFormat,
});

/** The login log list's filters (no paging: every matching row, newest first) and the file's format. */
export const LoginLogExportQuery = Type.Object({
  admin_id: Type.Optional(Id),
  ip: LoginLogQuery.properties.ip,
  status: LoginLogQuery.properties.status,
  country: LoginLogQuery.properties.country,
  ...DateRangeQuery,
  format: ExportFormat,
});

export const SystemLogQuery = Type.Object({
  ...PagingQuery,
  level: Type.Optional(Type.String({ enum: [...SYSTEM_LOG_LEVELS], description: SYSTEM_LOG_LEVELS.join(', ') })),
  trace_id: Type.Optional(TraceIdQuery),
  ...DateRangeQuery,
  order_by: OrderByQuery(['id', 'created_at'], 'id:desc'),
});

const Time = Type.String({ description: 'YYYY-MM-DD HH:mm:ss' });

export const SystemLogRecord = Type.Object({
  id: Type.Integer(),
  level: Type.String({ enum: [...SYSTEM_LOG_LEVELS] }),
  message: Type.String(),
  trace_id: Type.String({ description: 'the request’s trace_id; empty outside a request' }),
  context: Type.Unknown({ description: 'structured context (redacted), e.g. `err` and `request`' }),
  created_at: Time,
});

export const OperationLogList = CappedListEnvelope(OperationLogRecord);
export const LoginLogList = CappedListEnvelope(LoginLogRecord);
export const SystemLogList = CappedListEnvelope(SystemLogRecord);
