// Reading the three logs: filters, paging and sort over indexed columns; times shown in the
// display zone; each operation named in the reader's language (`action_label`), and where each
// sign-in came from (`location`, its country and label in the reader's language).
import { and, desc, eq, ilike, lt, type AnyColumn } from 'drizzle-orm';
import type { Static } from 'typebox';
import type { Config } from '../../../platform/config.ts';
import type { Database, Orm } from '../../../platform/db/database.ts';
import { contains } from '../../../platform/db/like.ts';
import { atOrAfter, before, pagedList } from '../../../platform/db/list.ts';
import { p } from '../../../platform/db/statements.ts';
import { InvalidInput } from '../../../platform/http/errors.ts';
import { formatDisplay, parseDisplay } from '../../../platform/time.ts';
import { loginLogs, operationLogs, systemLogs } from '../../db/schema.ts';
import type { LoginLocation, RecentLogs } from '../../kernel/log-records.ts';
import { countryName, msg, translate, type Locale } from '../../../platform/i18n.ts';
import type { LocationKind } from '../../../platform/geo/ip-location.ts';
import { actionLabel } from '../../kernel/action-labels.ts';
import { ownerScopeCondition, ownerScopeFilter, scopeValues, type DataScope } from '../../kernel/data-scope.ts';

/**
 * `start_date`/`end_date` (`YYYY-MM-DD HH:mm:ss`, or `YYYY-MM-DD` for the whole day) as a
 * half-open instant range [from, until): both bounds are inclusive to the second.
 */
export function parseDateRange(q: { start_date?: string | undefined; end_date?: string | undefined }, tz: string) {
  const bound = (text: string | undefined, field: string, endOfDay: boolean) => {
    if (text === undefined) return undefined;
    const full = text.length === 10 ? `${text} ${endOfDay ? '23:59:59' : '00:00:00'}` : text;
    const at = parseDisplay(full, tz);
    if (!at) throw new InvalidInput(msg('admin.logs.invalidDate', { field }), field);
    return at;
  };
  const from = bound(q.start_date, 'start_date', false);
  const to = bound(q.end_date, 'end_date', true);
  if (from && to && from > to) throw new InvalidInput(msg('admin.logs.startAfterEnd'), 'start_date');
  return { from, until: to ? new Date(to.getTime() + 1000) : undefined };
}

type Paged = { page: number; page_size: number; order_by: string };

/** The filters `from` and `until` of `parseDateRange` on `column`. */
const inRange = (column: AnyColumn) => ({ from: atOrAfter(column), until: before(column) });

const operationsList = (orm: Orm, countLimit: number) =>
  pagedList(orm, {
    name: 'operation_logs',
    countLimit,
    rows: (orm) => orm.select(operationColumns).from(operationLogs).$dynamic(),
    table: operationLogs,
    filters: {
      admin_id: (x) => eq(operationLogs.adminId, x),
      module: (x) => eq(operationLogs.module, x),
      action: (x) => eq(operationLogs.action, x),
      // An index lookup (operation_logs_trace_idx, migration 0006), as the system log's.
      trace_id: (x) => eq(operationLogs.traceId, x),
      ...inRange(operationLogs.createdAt),
      // The caller's data scope: the administrator who did it.
      scope: ownerScopeFilter(operationLogs.adminId),
    },
    sort: { id: operationLogs.id, created_at: operationLogs.createdAt, duration_ms: operationLogs.durationMs, status_code: operationLogs.statusCode },
    id: operationLogs.id,
  });

const loginsList = (orm: Orm, countLimit: number) =>
  pagedList(orm, {
    name: 'login_logs',
    countLimit,
    rows: (orm) => orm.select(loginColumns).from(loginLogs).$dynamic(),
    table: loginLogs,
    filters: {
      admin_id: (x) => eq(loginLogs.adminId, x),
      ip: { param: contains, where: (x) => ilike(loginLogs.ip, x) },
      status: (x) => eq(loginLogs.status, x),
      // Exact, read along the id order as the ip filter is (no index of its own: a filter of the log's screen, not of a hot path).
      country: (x) => eq(loginLogs.country, x),
      ...inRange(loginLogs.createdAt),
      // The caller's data scope: the administrator who signed in (a name that is nobody's: `all` only).
      scope: ownerScopeFilter(loginLogs.adminId),
    },
    sort: { id: loginLogs.id, created_at: loginLogs.createdAt },
    id: loginLogs.id,
  });

const systemList = (orm: Orm, countLimit: number) =>
  pagedList(orm, {
    name: 'system_logs',
    countLimit,
    rows: (orm) => orm.select(systemColumns).from(systemLogs).$dynamic(),
    table: systemLogs,
    filters: { level: (x) => eq(systemLogs.level, x), trace_id: (x) => eq(systemLogs.traceId, x), ...inRange(systemLogs.createdAt) },
    sort: { id: systemLogs.id, created_at: systemLogs.createdAt },
    id: systemLogs.id,
  });


/** The newest rows (placeholder `n`) of the login and of the operation log in a data scope (scopeValues), for the dashboard. */
const recentLogins = (orm: Orm) => orm.select(loginColumns).from(loginLogs).where(ownerScopeCondition(loginLogs.adminId))
  .orderBy(desc(loginLogs.id)).limit(p('n')).prepare('recent_logins');
const recentOperations = (orm: Orm) => orm.select(operationColumns).from(operationLogs).where(ownerScopeCondition(operationLogs.adminId))
  .orderBy(desc(operationLogs.id)).limit(p('n')).prepare('recent_operations');

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
  changes: operationLogs.changes,
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
  location_kind: loginLogs.locationKind,
  country: loginLogs.country,
  city: loginLogs.city,
  created_at: loginLogs.createdAt,
};

type LocationColumns = { location_kind: LocationKind; country: string; city: string };

/** Where a login-log row's address is, as its `location` shows it in `locale` (LoginLocation). */
function shownLocation(row: LocationColumns, locale: Locale): Static<typeof LoginLocation> {
  const { location_kind: kind, country, city } = row;
  const name = country ? countryName(country, locale) : '';
  // The writer records an address the data does not place as unknown: a public row has its country.
  const label = kind !== 'public' || !country
    ? translate(`admin.logs.location.${kind === 'public' ? 'unknown' : kind}`, locale)
    : city ? translate('admin.logs.location.cityCountry', locale, { city, country: name }) : name;
  return { kind, country, country_name: name, city, label };
}

const systemColumns = {
  id: systemLogs.id,
  level: systemLogs.level,
  message: systemLogs.message,
  trace_id: systemLogs.traceId,
  context: systemLogs.context,
  created_at: systemLogs.createdAt,
};

export type OperationQuery = Paged & { admin_id?: number | undefined; module?: string | undefined; action?: string | undefined; trace_id?: string | undefined; start_date?: string | undefined; end_date?: string | undefined };
export type LoginQuery = Paged & {
  admin_id?: number | undefined; ip?: string | undefined; status?: number | undefined; country?: string | undefined; start_date?: string | undefined; end_date?: string | undefined;
};
/** A list's filters without its page and order (an export). */
export type LogFilter<Q> = Omit<Q, keyof Paged>;
type SystemQuery = Paged & { level?: string | undefined; trace_id?: string | undefined; start_date?: string | undefined; end_date?: string | undefined };

export class LogsService implements RecentLogs {
  private readonly orm: Orm;
  private readonly tz: string;
  private readonly operationsList: ReturnType<typeof operationsList>;
  private readonly loginsList: ReturnType<typeof loginsList>;
  private readonly systemList: ReturnType<typeof systemList>;
  private readonly recentLogins: ReturnType<typeof recentLogins>;
  private readonly recentOperations: ReturnType<typeof recentOperations>;
  constructor(deps: { db: Database; config: Config }) {
    this.orm = deps.db.orm;
    this.tz = deps.config.DISPLAY_TIMEZONE;
    this.operationsList = operationsList(this.orm, deps.config.LIST_COUNT_LIMIT);
    this.loginsList = loginsList(this.orm, deps.config.LIST_COUNT_LIMIT);
    this.systemList = systemList(this.orm, deps.config.LIST_COUNT_LIMIT);
    this.recentLogins = recentLogins(this.orm);
    this.recentOperations = recentOperations(this.orm);
  }

  private shown<T extends { created_at: Date }>(rows: T[]) {
    return rows.map((r) => ({ ...r, created_at: formatDisplay(r.created_at, this.tz)! }));
  }

  /** Login rows as shown: with the display time and where each came from in `locale` (its location columns folded into `location`). */
  private shownLogins<T extends LocationColumns & { created_at: Date }>(rows: T[], locale: Locale) {
    return rows.map(({ location_kind, country, city, ...r }) => ({
      ...r, location: shownLocation({ location_kind, country, city }, locale), created_at: formatDisplay(r.created_at, this.tz)!,
    }));
  }

  /** Operation rows as shown: with the display time and the action's name in `locale`. */
  private shownOperations<T extends { created_at: Date; module: string; action: string }>(rows: T[], locale: Locale) {
    return rows.map((r) => ({ ...r, action_label: actionLabel(`${r.module}.${r.action}`, locale), created_at: formatDisplay(r.created_at, this.tz)! }));
  }

  async operations(q: OperationQuery, scope: DataScope, locale: Locale) {
    const { rows, total, capped } = await this.operationsList.page({ ...q, ...parseDateRange(q, this.tz), scope }, q);
    return { list: this.shownOperations(rows, locale), total, capped };
  }

  async logins(q: LoginQuery, scope: DataScope, locale: Locale) {
    const { rows, total, capped } = await this.loginsList.page({ ...q, ...parseDateRange(q, this.tz), scope }, q);
    return { list: this.shownLogins(rows, locale), total, capped };
  }

  async system(q: SystemQuery) {
    const { rows, total, capped } = await this.systemList.page({ ...q, ...parseDateRange(q, this.tz) }, q);
    return { list: this.shown(rows), total, capped };
  }

  /**
   * Every operation row of the filters and the data scope (an export), newest first, read in
   * pages of `pageSize` by keyset on id: memory stays bounded whatever the count.
   */
  async *operationRows(q: LogFilter<OperationQuery>, scope: DataScope | undefined, locale: Locale, signal?: AbortSignal, pageSize = 1000) {
    const list = this.operationsList;
    const values = { ...q, ...parseDateRange(q, this.tz), scope };
    const params = list.params(values);
    const filter = list.where(values, params);
    for (let last: number | undefined; ;) {
      signal?.throwIfAborted();
      const rows = await this.orm.select(operationColumns).from(operationLogs)
        .where(and(filter, last === undefined ? undefined : lt(operationLogs.id, last)))
        .orderBy(desc(operationLogs.id)).limit(pageSize)
        .prepare('operation_logs_export').execute(params.values);
      yield* this.shownOperations(rows, locale);
      if (rows.length < pageSize) return;
      last = rows.at(-1)!.id;
    }
  }

  /** Every login row of the filters and the data scope (an export), newest first, in pages by keyset on id. */
  async *loginRows(q: LogFilter<LoginQuery>, scope: DataScope | undefined, locale: Locale, signal?: AbortSignal, pageSize = 1000) {
    const list = this.loginsList;
    const values = { ...q, ...parseDateRange(q, this.tz), scope };
    const params = list.params(values);
    const filter = list.where(values, params);
    for (let last: number | undefined; ;) {
      signal?.throwIfAborted();
      const rows = await this.orm.select(loginColumns).from(loginLogs)
        .where(and(filter, last === undefined ? undefined : lt(loginLogs.id, last)))
        .orderBy(desc(loginLogs.id)).limit(pageSize)
        .prepare('login_logs_export').execute(params.values);
      yield* this.shownLogins(rows, locale);
      if (rows.length < pageSize) return;
      last = rows.at(-1)!.id;
    }
  }

  /** The newest `n` rows of the login and operation logs of the caller's data scope (dashboard). */
  async recent(n: number, scope: DataScope, locale: Locale) {
    const values = { n, ...scopeValues(scope) };
    const [logins, operations] = await Promise.all([this.recentLogins.execute(values), this.recentOperations.execute(values)]);
    return { logins: this.shownLogins(logins, locale), operations: this.shownOperations(operations, locale) };
  }
}
