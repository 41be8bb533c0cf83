// Dashboard figures: counts by SQL (index-backed for the logs, never loading rows) and the
// newest login and operation log rows.
import { and, count, eq, gte } from 'drizzle-orm';
import type { Config } from '../../../platform/config.ts';
import type { Database, Orm } from '../../../platform/db/database.ts';
import { p } from '../../../platform/db/statements.ts';
import { formatDisplay, parseDisplay } from '../../../platform/time.ts';
import { admins, loginLogs, menus, operationLogs, roles } from '../../db/schema.ts';
import type { LogsService } from '../logs/logs.service.ts';

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

/** The dashboard's counts (placeholder `today`: the start of the day, an ISO time). */
const countStatements = (orm: Orm) => ({
  admins: orm.select({ n: count() }).from(admins).prepare('dashboard_admins'),
  roles: orm.select({ n: count() }).from(roles).prepare('dashboard_roles'),
  menus: orm.select({ n: count() }).from(menus).prepare('dashboard_menus'),
  loginsToday: orm.select({ n: count() }).from(loginLogs).where(and(gte(loginLogs.createdAt, p('today')), eq(loginLogs.status, 1))).prepare('dashboard_logins_today'),
  operationsToday: orm.select({ n: count() }).from(operationLogs).where(gte(operationLogs.createdAt, p('today'))).prepare('dashboard_operations_today'),
});

export class DashboardService {
  private readonly orm: Orm;
  private readonly tz: string;
  private readonly logs: LogsService;
  private readonly counts: ReturnType<typeof countStatements>;
  constructor(deps: { db: Database; config: Config; logs: LogsService }) {
    this.orm = deps.db.orm;
    this.tz = deps.config.DISPLAY_TIMEZONE;
    this.logs = deps.logs;
    this.counts = countStatements(this.orm);
  }

  async stats() {
    const today = startOfDay(new Date(), this.tz).toISOString();
    const c = this.counts;
    const n = (rows: { n: number }[]) => rows[0]?.n ?? 0;
    const [adminCount, roleCount, menuCount, loginsToday, operationsToday, recent] = await Promise.all([
      c.admins.execute(),
      c.roles.execute(),
      c.menus.execute(),
      c.loginsToday.execute({ today }),
      c.operationsToday.execute({ today }),
      this.logs.recent(RECENT_ROWS),
    ]);
    return {
      admin_count: n(adminCount),
      role_count: n(roleCount),
      menu_count: n(menuCount),
      login_count_today: n(loginsToday),
      operation_count_today: n(operationsToday),
      recent_logins: recent.logins,
      recent_operations: recent.operations,
    };
  }
}
