// Dashboard figures: counts by SQL (index-backed for the logs, never loading rows), today's
// activity hour by hour, and the newest login and operation log rows. Today's totals are the
// sums of the hourly figures, read by one statement, so the chart and the totals always agree.
import { and, count, eq, gte, sql, type AnyColumn } from 'drizzle-orm';
import type { Config } from '../../../platform/config.ts';
import type { Database, Orm } from '../../../platform/db/database.ts';
import { p } from '../../../platform/db/statements.ts';
import { formatDisplay, parseDisplay } from '../../../platform/time.ts';
import { translate, type Locale, type MessageKey } from '../../../platform/i18n.ts';
import { admins, loginLogs, menus, operationLogs, roles } from '../../db/schema.ts';
import { ownerScopeCondition, scopeCondition, scopeValues, type DataScope } from '../../kernel/data-scope.ts';
import type { RecentLogs } from '../../kernel/log-records.ts';

export const RECENT_ROWS = 10;

/** Midnight of the current day in `tz` (or its first existing minute when a DST change skips midnight). */
export function startOfDay(now: Date, tz: string): Date {
  const day = formatDisplay(now, tz)!.slice(0, 10);
  for (const time of ['00:00:00', '00:30:00', '01:00:00']) {
    const at = parseDisplay(`${day} ${time}`, tz);
    if (at) return at;
  }
  return new Date(now.getTime() - 86_400_000);
}

/** The series of today's activity chart, in the order they are drawn, with their legend names. */
export const ACTIVITY_SERIES = [
  { key: 'operations', name: 'admin.dashboard.seriesOperations' },
  { key: 'logins', name: 'admin.dashboard.seriesLogins' },
] as const satisfies readonly { key: string; name: MessageKey }[];
type SeriesKey = (typeof ACTIVITY_SERIES)[number]['key'];

/** The hour of the day (0..23) of `column` in the display time zone (placeholder `tz`). */
const hourOf = (column: AnyColumn) => sql<number>`extract(hour from ${column} at time zone ${p('tz')})::int`;

/**
 * The dashboard's counts (placeholder `today`: the start of the day, an ISO time; the
 * administrators and the activity in the caller's data scope, placeholders of scopeValues), and today's
 * operations and successful logins per hour of the display time zone: one statement, a GROUP BY
 * over today's rows of each log (index range scans on created_at), hours without rows absent.
 */
const countStatements = (orm: Orm) => ({
  admins: orm.select({ n: count() }).from(admins).where(scopeCondition(admins.departmentId, admins.id)).prepare('dashboard_admins'),
  roles: orm.select({ n: count() }).from(roles).prepare('dashboard_roles'),
  menus: orm.select({ n: count() }).from(menus).prepare('dashboard_menus'),
  hourly: orm
    .select({ series: sql<SeriesKey>`'operations'`.as('series'), hour: hourOf(operationLogs.createdAt).as('hour'), n: count().as('n') })
    .from(operationLogs)
    .where(and(gte(operationLogs.createdAt, p('today')), ownerScopeCondition(operationLogs.adminId)))
    .groupBy(sql`2`)
    .unionAll(
      orm
        .select({ series: sql<SeriesKey>`'logins'`.as('series'), hour: hourOf(loginLogs.createdAt).as('hour'), n: count().as('n') })
        .from(loginLogs)
        .where(and(gte(loginLogs.createdAt, p('today')), eq(loginLogs.status, 1), ownerScopeCondition(loginLogs.adminId)))
        .groupBy(sql`2`),
    )
    .prepare('dashboard_activity_today'),
});

export class DashboardService {
  private readonly orm: Orm;
  private readonly tz: string;
  private readonly logs: RecentLogs;
  private readonly counts: ReturnType<typeof countStatements>;
  constructor(deps: { db: Database; config: Config; logs: RecentLogs }) {
    this.orm = deps.db.orm;
    this.tz = deps.config.DISPLAY_TIMEZONE;
    this.logs = deps.logs;
    this.counts = countStatements(this.orm);
  }

  /** The figures of the caller's data scope (the roles and menus are everyone's). */
  async stats(scope: DataScope, locale: Locale) {
    const today = startOfDay(new Date(), this.tz).toISOString();
    const c = this.counts;
    const n = (rows: { n: number }[]) => rows[0]?.n ?? 0;
    const [adminCount, roleCount, menuCount, hourly, recent] = await Promise.all([
      c.admins.execute(scopeValues(scope)),
      c.roles.execute(),
      c.menus.execute(),
      c.hourly.execute({ today, tz: this.tz, ...scopeValues(scope) }),
      this.logs.recent(RECENT_ROWS, scope, locale),
    ]);
    // Every hour of the day, zero-filled (a day with a DST change still shows 24 hours of the clock).
    const series = ACTIVITY_SERIES.map((s) => {
      const data = new Array<number>(24).fill(0);
      for (const row of hourly) if (row.series === s.key) data[Number(row.hour)] = (data[Number(row.hour)] ?? 0) + Number(row.n);
      return { key: s.key, name: translate(s.name, locale), total: data.reduce((a, b) => a + b, 0), data };
    });
    const total = (key: SeriesKey) => series.find((s) => s.key === key)!.total;
    return {
      admin_count: n(adminCount),
      role_count: n(roleCount),
      menu_count: n(menuCount),
      login_count_today: total('logins'),
      operation_count_today: total('operations'),
      activity_today: {
        date: formatDisplay(new Date(today), this.tz)!.slice(0, 10),
        time_zone: this.tz,
        hours: Array.from({ length: 24 }, (_, h) => `${String(h).padStart(2, '0')}:00`),
        series,
      },
      recent_logins: recent.logins,
      recent_operations: recent.operations,
    };
  }
}
