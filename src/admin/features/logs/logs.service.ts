// Reading the three logs: filters, paging and sort over indexed columns; times shown in the
// display zone; each operation named in the reader's language (`action_label`).
import { and, count, desc, eq, gte, ilike, lt, type AnyColumn, type SQL } from 'drizzle-orm';
import type { Config } from '../../../platform/config.ts';
import type { Database, Orm } from '../../../platform/db/database.ts';
import { contains } from '../../../platform/db/like.ts';
import { sortBy } from '../../../platform/db/order.ts';
import { p, Params, Statements } from '../../../platform/db/statements.ts';
import { InvalidInput } from '../../../platform/http/errors.ts';
import { offsetOf } from '../../../platform/http/schemas.ts';
import { formatDisplay, parseDisplay } from '../../../platform/time.ts';
import { loginLogs, operationLogs, systemLogs } from '../../db/schema.ts';
import type { RecentLogs } from '../../kernel/log-records.ts';
import { msg, type Locale } from '../../../platform/i18n.ts';
import { actionLabel } from '../../kernel/action-labels.ts';

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

/** Adds the parameters `from` and `until` (ISO strings) of `start_date`/`end_date` (invalid dates throw). */
function withRange(params: Params, q: { start_date?: string | undefined; end_date?: string | undefined }, tz: string): Params {
  const { from, until } = parseDateRange(q, tz);
  return params.set('from', from?.toISOString()).set('until', until?.toISOString());
}

/** The date range on the placeholders `from` and `until`, those that are set. */
function inRange(column: AnyColumn, params: Params): SQL | undefined {
  return and(params.has('from') ? gte(column, p('from')) : undefined, params.has('until') ? lt(column, p('until')) : undefined);
}

/** Adds a page's parameters after its filter's; the sort is part of the shape. */
const paged = (params: Params, q: Paged) => params.shape(q.order_by).set('limit', q.page_size).set('offset', offsetOf(q));

/** The newest rows (placeholder `n`) of the login and of the operation log (dashboard). */
const recentLogins = (orm: Orm) => orm.select(loginColumns).from(loginLogs).orderBy(desc(loginLogs.id)).limit(p('n')).prepare('recent_logins');
const recentOperations = (orm: Orm) =>
  orm.select(operationColumns).from(operationLogs).orderBy(desc(operationLogs.id)).limit(p('n')).prepare('recent_operations');

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

type OperationQuery = Paged & { admin_id?: number | undefined; module?: string | undefined; action?: string | undefined; trace_id?: string | undefined; start_date?: string | undefined; end_date?: string | undefined };
type LoginQuery = Paged & { admin_id?: number | undefined; ip?: string | undefined; status?: number | undefined; start_date?: string | undefined; end_date?: string | undefined };
type SystemQuery = Paged & { level?: string | undefined; trace_id?: string | undefined; start_date?: string | undefined; end_date?: string | undefined };

export class LogsService implements RecentLogs {
  private readonly orm: Orm;
  private readonly tz: string;
  private readonly operationLists = new Statements<ReturnType<LogsService['operationStatements']>>();
  private readonly loginLists = new Statements<ReturnType<LogsService['loginStatements']>>();
  private readonly systemLists = new Statements<ReturnType<LogsService['systemStatements']>>();
  private readonly recentLogins: ReturnType<typeof recentLogins>;
  private readonly recentOperations: ReturnType<typeof recentOperations>;
  constructor(deps: { db: Database; config: Config }) {
    this.orm = deps.db.orm;
    this.tz = deps.config.DISPLAY_TIMEZONE;
    this.recentLogins = recentLogins(this.orm);
    this.recentOperations = recentOperations(this.orm);
  }

  private shown<T extends { created_at: Date }>(rows: T[]) {
    return rows.map((r) => ({ ...r, created_at: formatDisplay(r.created_at, this.tz)! }));
  }

  /** Operation rows as shown: with the display time and the action's name in `locale`. */
  private shownOperations<T extends { created_at: Date; module: string; action: string }>(rows: T[], locale: Locale) {
    return rows.map((r) => ({ ...r, action_label: actionLabel(`${r.module}.${r.action}`, locale), created_at: formatDisplay(r.created_at, this.tz)! }));
  }

  private operationStatements(q: OperationQuery, params: Params) {
    const where = and(
      params.has('admin_id') ? eq(operationLogs.adminId, p('admin_id')) : undefined,
      params.has('module') ? eq(operationLogs.module, p('module')) : undefined,
      params.has('action') ? eq(operationLogs.action, p('action')) : undefined,
      // An index lookup (operation_logs_trace_idx, migration 0006), as the system log's.
      params.has('trace_id') ? eq(operationLogs.traceId, p('trace_id')) : undefined,
      inRange(operationLogs.createdAt, params),
    );
    const order = sortBy(q.order_by, { id: operationLogs.id, created_at: operationLogs.createdAt, duration_ms: operationLogs.durationMs, status_code: operationLogs.statusCode }, operationLogs.id);
    return {
      page: this.orm.select(operationColumns).from(operationLogs).where(where).orderBy(...order).limit(p('limit')).offset(p('offset')).prepare('operation_logs_page'),
      total: this.orm.select({ n: count() }).from(operationLogs).where(where).prepare('operation_logs_count'),
    };
  }

  async operations(q: OperationQuery, locale: Locale) {
    const params = paged(
      withRange(new Params().set('admin_id', q.admin_id).set('module', q.module).set('action', q.action).set('trace_id', q.trace_id), q, this.tz),
      q,
    );
    const { page, total } = this.operationLists.get(params.key, () => this.operationStatements(q, params));
    const [rows, [counted]] = await Promise.all([page.execute(params.values), total.execute(params.values)]);
    return { list: this.shownOperations(rows, locale), total: counted?.n ?? 0 };
  }

  private loginStatements(q: LoginQuery, params: Params) {
    const where = and(
      params.has('admin_id') ? eq(loginLogs.adminId, p('admin_id')) : undefined,
      params.has('ip') ? ilike(loginLogs.ip, p('ip')) : undefined,
      params.has('status') ? eq(loginLogs.status, p('status')) : undefined,
      inRange(loginLogs.createdAt, params),
    );
    const order = sortBy(q.order_by, { id: loginLogs.id, created_at: loginLogs.createdAt }, loginLogs.id);
    return {
      page: this.orm.select(loginColumns).from(loginLogs).where(where).orderBy(...order).limit(p('limit')).offset(p('offset')).prepare('login_logs_page'),
      total: this.orm.select({ n: count() }).from(loginLogs).where(where).prepare('login_logs_count'),
    };
  }

  async logins(q: LoginQuery) {
    const params = paged(
      withRange(new Params().set('admin_id', q.admin_id).set('ip', q.ip !== undefined ? contains(q.ip) : undefined).set('status', q.status), q, this.tz),
      q,
    );
    const { page, total } = this.loginLists.get(params.key, () => this.loginStatements(q, params));
    const [rows, [counted]] = await Promise.all([page.execute(params.values), total.execute(params.values)]);
    return { list: this.shown(rows), total: counted?.n ?? 0 };
  }

  private systemStatements(q: SystemQuery, params: Params) {
    const where = and(
      params.has('level') ? eq(systemLogs.level, p('level')) : undefined,
      params.has('trace_id') ? eq(systemLogs.traceId, p('trace_id')) : undefined,
      inRange(systemLogs.createdAt, params),
    );
    const order = sortBy(q.order_by, { id: systemLogs.id, created_at: systemLogs.createdAt }, systemLogs.id);
    return {
      page: this.orm.select(systemColumns).from(systemLogs).where(where).orderBy(...order).limit(p('limit')).offset(p('offset')).prepare('system_logs_page'),
      total: this.orm.select({ n: count() }).from(systemLogs).where(where).prepare('system_logs_count'),
    };
  }

  async system(q: SystemQuery) {
    const params = paged(withRange(new Params().set('level', q.level).set('trace_id', q.trace_id), q, this.tz), q);
    const { page, total } = this.systemLists.get(params.key, () => this.systemStatements(q, params));
    const [rows, [counted]] = await Promise.all([page.execute(params.values), total.execute(params.values)]);
    return { list: this.shown(rows), total: counted?.n ?? 0 };
  }

  /** The newest `n` rows of the login and operation logs (dashboard). */
  async recent(n: number, locale: Locale) {
    const [logins, operations] = await Promise.all([this.recentLogins.execute({ n }), this.recentOperations.execute({ n })]);
    return { logins: this.shown(logins), operations: this.shownOperations(operations, locale) };
  }
}
