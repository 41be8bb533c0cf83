// Reading the three logs: filters, paging and sort over indexed columns; times shown in the
// display zone.
import { and, count, desc, eq, gte, ilike, lt, type AnyColumn, type SQL } from 'drizzle-orm';
import type { Config } from '../../../platform/config.ts';
import type { Database, Orm } from '../../../platform/db/database.ts';
import { contains } from '../../../platform/db/like.ts';
import { sortBy } from '../../../platform/db/order.ts';
import { InvalidInput } from '../../../platform/http/errors.ts';
import { offsetOf } from '../../../platform/http/schemas.ts';
import { formatDisplay, parseDisplay } from '../../../platform/time.ts';
import { loginLogs, operationLogs, systemLogs, type SystemLogLevel } from '../../db/schema.ts';
import { msg } from '../../../platform/i18n.ts';

/**
 * `start_date`/`end_date` (`YYYY-MM-DD HH:mm:ss`, or `YYYY-MM-DD` for the whole day) as a
 * half-open instant range [from, until): both bounds are inclusive to the second.
 */
export function parseDateRange(q: { start_date?: string | undefined; end_date?: string | undefined }, tz: string) {
  const bound = (text: string | undefined, field: string, endOfDay: boolean) => {
    if (text === undefined) return undefined;
    const full = text.length === 10 ? `${text} ${endOfDay ? '23:59:59' : '00:00:00'}` : text;
    const at = parseDisplay(full, tz);
    if (!at) throw new InvalidInput(msg('admin.logs.notValidDate', { field }), field);
    return at;
  };
  const from = bound(q.start_date, 'start_date', false);
  const to = bound(q.end_date, 'end_date', true);
  if (from && to && from > to) throw new InvalidInput(msg('admin.logs.startDateMustNot'), 'start_date');
  return { from, until: to ? new Date(to.getTime() + 1000) : undefined };
}

type Paged = { page: number; page_size: number; order_by: string };
type Range = { from: Date | undefined; until: Date | undefined };

function inRange(column: AnyColumn, r: Range): SQL | undefined {
  return and(r.from ? gte(column, r.from) : undefined, r.until ? lt(column, r.until) : undefined);
}

const operationColumns = {
  id: operationLogs.id,
  admin_id: operationLogs.adminId,
  username: operationLogs.username,
  module: operationLogs.module,
  action: operationLogs.action,
  method: operationLogs.method,
  route: operationLogs.route,
  path: operationLogs.path,
  ip: operationLogs.ip,
  user_agent: operationLogs.userAgent,
  params: operationLogs.params,
  status_code: operationLogs.statusCode,
  duration_ms: operationLogs.durationMs,
  trace_id: operationLogs.traceId,
  created_at: operationLogs.createdAt,
};

const loginColumns = {
  id: loginLogs.id,
  admin_id: loginLogs.adminId,
  username: loginLogs.username,
  ip: loginLogs.ip,
  user_agent: loginLogs.userAgent,
  status: loginLogs.status,
  reason: loginLogs.reason,
  created_at: loginLogs.createdAt,
};

const systemColumns = {
  id: systemLogs.id,
  level: systemLogs.level,
  message: systemLogs.message,
  trace_id: systemLogs.traceId,
  context: systemLogs.context,
  created_at: systemLogs.createdAt,
};

export class LogsService {
  private readonly orm: Orm;
  private readonly tz: string;
  constructor(deps: { db: Database; config: Config }) {
    this.orm = deps.db.orm;
    this.tz = deps.config.DISPLAY_TIMEZONE;
  }

  private shown<T extends { created_at: Date }>(rows: T[]) {
    return rows.map((r) => ({ ...r, created_at: formatDisplay(r.created_at, this.tz)! }));
  }

  async operations(q: Paged & { admin_id?: number | undefined; module?: string | undefined; action?: string | undefined; trace_id?: string | undefined; start_date?: string | undefined; end_date?: string | undefined }) {
    const where = and(
      q.admin_id !== undefined ? eq(operationLogs.adminId, q.admin_id) : undefined,
      q.module !== undefined ? eq(operationLogs.module, q.module) : undefined,
      q.action !== undefined ? eq(operationLogs.action, q.action) : undefined,
      // An index lookup (operation_logs_trace_idx, migration 0006), as the system log's.
      q.trace_id !== undefined ? eq(operationLogs.traceId, q.trace_id) : undefined,
      inRange(operationLogs.createdAt, parseDateRange(q, this.tz)),
    );
    const order = sortBy(q.order_by, { id: operationLogs.id, created_at: operationLogs.createdAt, duration_ms: operationLogs.durationMs, status_code: operationLogs.statusCode }, operationLogs.id);
    const [rows, [total]] = await Promise.all([
      this.orm.select(operationColumns).from(operationLogs).where(where).orderBy(...order).limit(q.page_size).offset(offsetOf(q)),
      this.orm.select({ n: count() }).from(operationLogs).where(where),
    ]);
    return { list: this.shown(rows), total: total?.n ?? 0 };
  }

  async logins(q: Paged & { admin_id?: number | undefined; ip?: string | undefined; status?: number | undefined; start_date?: string | undefined; end_date?: string | undefined }) {
    const where = and(
      q.admin_id !== undefined ? eq(loginLogs.adminId, q.admin_id) : undefined,
      q.ip !== undefined ? ilike(loginLogs.ip, contains(q.ip)) : undefined,
      q.status !== undefined ? eq(loginLogs.status, q.status) : undefined,
      inRange(loginLogs.createdAt, parseDateRange(q, this.tz)),
    );
    const order = sortBy(q.order_by, { id: loginLogs.id, created_at: loginLogs.createdAt }, loginLogs.id);
    const [rows, [total]] = await Promise.all([
      this.orm.select(loginColumns).from(loginLogs).where(where).orderBy(...order).limit(q.page_size).offset(offsetOf(q)),
      this.orm.select({ n: count() }).from(loginLogs).where(where),
    ]);
    return { list: this.shown(rows), total: total?.n ?? 0 };
  }

  async system(q: Paged & { level?: string | undefined; trace_id?: string | undefined; start_date?: string | undefined; end_date?: string | undefined }) {
    const where = and(
      q.level !== undefined ? eq(systemLogs.level, q.level as SystemLogLevel) : undefined,
      q.trace_id !== undefined ? eq(systemLogs.traceId, q.trace_id) : undefined,
      inRange(systemLogs.createdAt, parseDateRange(q, this.tz)),
    );
    const order = sortBy(q.order_by, { id: systemLogs.id, created_at: systemLogs.createdAt }, systemLogs.id);
    const [rows, [total]] = await Promise.all([
      this.orm.select(systemColumns).from(systemLogs).where(where).orderBy(...order).limit(q.page_size).offset(offsetOf(q)),
      this.orm.select({ n: count() }).from(systemLogs).where(where),
    ]);
    return { list: this.shown(rows), total: total?.n ?? 0 };
  }

  /** The newest `n` rows of the login and operation logs (dashboard). */
  async recent(n: number) {
    const [logins, operations] = await Promise.all([
      this.orm.select(loginColumns).from(loginLogs).orderBy(desc(loginLogs.id)).limit(n),
      this.orm.select(operationColumns).from(operationLogs).orderBy(desc(operationLogs.id)).limit(n),
    ]);
    return { logins: this.shown(logins), operations: this.shown(operations) };
  }
}
