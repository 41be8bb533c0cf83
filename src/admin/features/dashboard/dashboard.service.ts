// Dashboard figures: counts by SQL (index-backed for the logs, never loading rows), today's
// activity hour by hour, and the newest login and operation log rows. Today's totals are the
// sums of the hourly figures, read by one statement, so the chart and the totals always agree.
// The business figures (orders, revenue, payments by method, top products) add up the business
// rollup's sums per day and department (migration 0019) over the period's days in the caller's
// data scope, with the caller's own orders outside the scope's departments read from the orders;
// the period's and today's totals are the sums of the days, added up in integer cents, so the
// chart and the figures always agree.
import { and, count, desc, eq, gt, gte, lt, lte, or, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Config } from '../../../platform/config.ts';
import { PLAN_PER_CALL, type Database, type Executor, type Orm } from '../../../platform/db/database.ts';
import { p } from '../../../platform/db/statements.ts';
import { centsToNumber, decimalToCents } from '../../../platform/money.ts';
import { dateOfDay, dayNumber, formatDisplay, parseDisplay } from '../../../platform/time.ts';
import { translate, type Locale, type MessageKey } from '../../../platform/i18n.ts';
import {
  admins, businessOrdersDaily, businessPaymentsDaily, businessProductsDaily, businessRollupZone, loginLogs, menus, operationLogs, orderDetails, orders,
  paymentMethods, payments, roles,
} from '../../db/schema.ts';
import { ownerScopeCondition, scopeCondition, scopeValues, type DataScope } from '../../kernel/data-scope.ts';
import type { RecentLogs } from '../../kernel/log-records.ts';

export const RECENT_ROWS = 10;

/** The calendar date `n` days after `date` (YYYY-MM-DD; n may be negative). */
export const addDays = (date: string, n: number): string => dateOfDay(dayNumber(date) + n);

/** Midnight of the current day in `tz` (or its first existing minute when a DST change skips midnight). */
export function startOfDay(now: Date, tz: string): Date {
  const day = formatDisplay(now, tz)!.slice(0, 10);
  for (const time of ['00:00:00', '00:30:00', '01:00:00']) {
    const at = parseDisplay(`${day} ${time}`, tz);
    if (at) return at;
  }
  return new Date(now.getTime() - 86_400_000);
}

/** Midnight starting the calendar day `date` (YYYY-MM-DD) in `tz` (or its first existing minute). */
export function startOfDate(date: string, tz: string): Date {
  for (const time of ['00:00:00', '00:30:00', '01:00:00']) {
    const at = parseDisplay(`${date} ${time}`, tz);
    if (at) return at;
  }
  throw new Error(`no start of day for ${date} in ${tz}`);
}

/** The longest period the business figures cover, in days. */
export const BUSINESS_MAX_DAYS = 90;
/** How many products the top list holds. */
export const TOP_PRODUCTS = 10;

interface DayFigures { orders: number; paid: number; pending: number; cancelled: number; revenue: bigint }
const noFigures = (): DayFigures => ({ orders: 0, paid: 0, pending: 0, cancelled: 0, revenue: 0n });

/** A day's or a period's figures as the API renders them; the average order value is revenue / paid orders, rounded half up to the cent. */
function renderFigures(f: DayFigures) {
  const average = f.paid === 0 ? 0n : (2n * f.revenue + BigInt(f.paid)) / (2n * BigInt(f.paid));
  return { orders: f.orders, revenue: centsToNumber(f.revenue), paid: f.paid, pending: f.pending, cancelled: f.cancelled, average_order_value: centsToNumber(average) };
}

/** The condition "a rollup row of a department the scope reaches" (placeholders of scopeValues); `all` reaches department 0, no department. */
const rollupInScope = (department: AnyColumn): SQL => or(sql`${p('scope.all')}::boolean`, sql`${department} = any(${p('scope.departments')}::bigint[])`)!;

/** The products' rollup row that holds a day's sums over every department (migration 0019). */
const EVERY_DEPARTMENT = -1;

/** rollupInScope over the products' rollup: with `all`, the rows of every department's sums only. */
const productRowsInScope = (department: AnyColumn): SQL =>
  or(
    and(sql`${p('scope.all')}::boolean`, eq(department, EVERY_DEPARTMENT)),
    and(sql`not ${p('scope.all')}::boolean`, sql`${department} = any(${p('scope.departments')}::bigint[])`),
  )!;

/**
 * The caller's own rows that the scope's departments leave out (created by the caller in another
 * department or in none): never with `all`; disjoint from rollupInScope's rows, so no order
 * counts twice.
 */
const ownOutsideScope = (department: AnyColumn, owner: AnyColumn): SQL =>
  and(sql`not ${p('scope.all')}::boolean`, eq(owner, p('scope.owner')), sql`not coalesce(${department} = any(${p('scope.departments')}::bigint[]), false)`)!;

/**
 * The business figures' statements, read from the business rollup (migration 0019: sums per day
 * of the display time zone and department, kept by triggers in every write's transaction) for
 * the departments of the caller's data scope, plus the caller's own rows outside them, read from
 * the orders and payments by their creator (a few; index on created_by, created_at). Placeholders:
 * `first` and `last` (the period's days, YYYY-MM-DD), `from` and `to` (the same as ISO times,
 * [from, to)), `tz`, and the scope's (scopeValues). The orders' sums are added up over their
 * slots (a slot's share may be negative); rows of payments and products fallen to zero are skipped.
 */
const rollupStatements = (orm: Orm) => {
  const o = businessOrdersDaily;
  const m = businessPaymentsDaily;
  const d = businessProductsDaily;
  // Planned for their values at each call: the scope decides the plan (`all` drops the own rows).
  const days = (day: AnyColumn) => and(PLAN_PER_CALL, gte(day, p('first')), lte(day, p('last')));
  const period = (at: AnyColumn) => and(gte(at, p('from')), lt(at, p('to')));
  const orderRows = orm
    .select({ day: o.day, status: o.status, n: o.orders, amount: o.amount })
    .from(o)
    .where(and(days(o.day), rollupInScope(o.departmentId)))
    .unionAll(orm
      .select({ day: sql<string>`(${orders.createdAt} at time zone ${p('tz')})::date`, status: orders.status, n: sql<number>`1`, amount: orders.amount })
      .from(orders)
      .where(and(period(orders.createdAt), ownOutsideScope(orders.departmentId, orders.createdBy))))
    .as('o');
  const paymentRows = orm
    .select({ methodId: m.paymentMethodId, n: m.payments, amount: m.amount })
    .from(m)
    .where(and(days(m.day), gt(m.payments, 0), rollupInScope(m.departmentId)))
    .unionAll(orm
      .select({ methodId: payments.paymentMethodId, n: sql<number>`1`, amount: payments.amount })
      .from(payments)
      .where(and(period(payments.createdAt), eq(payments.status, 'paid'), ownOutsideScope(payments.departmentId, payments.createdBy))))
    .as('m');
  const productRows = orm
    .select({ productId: d.productId, productName: d.productName, quantity: d.quantity, revenue: d.revenue })
    .from(d)
    .where(and(days(d.day), gt(d.quantity, 0), productRowsInScope(d.departmentId)))
    .unionAll(orm
      .select({ productId: orderDetails.productId, productName: orderDetails.productName, quantity: orderDetails.quantity, revenue: sql<string>`${orderDetails.price} * ${orderDetails.quantity}` })
      .from(orderDetails)
      .innerJoin(orders, eq(orders.id, orderDetails.orderId))
      .where(and(period(orders.createdAt), eq(orders.status, 'paid'), ownOutsideScope(orders.departmentId, orders.createdBy))))
    .as('d');
  return {
    days: orm
      .select({ day: sql<string>`to_char(${orderRows.day}, 'YYYY-MM-DD')`, status: orderRows.status, n: sql<number>`sum(${orderRows.n})::int`, amount: sql<string>`sum(${orderRows.amount})::text` })
      .from(orderRows)
      .groupBy(orderRows.day, orderRows.status)
      .prepare('dashboard_rollup_days'),
    methods: orm
      .select({ methodId: paymentRows.methodId, name: paymentMethods.name, n: sql<number>`sum(${paymentRows.n})::int`, amount: sql<string>`sum(${paymentRows.amount})::text` })
      .from(paymentRows)
      .innerJoin(paymentMethods, eq(paymentMethods.id, paymentRows.methodId))
      .groupBy(paymentRows.methodId, paymentMethods.name)
      .orderBy(desc(sql`sum(${paymentRows.amount})`), paymentRows.methodId)
      .prepare('dashboard_rollup_methods'),
    products: orm
      .select({
        productId: productRows.productId,
        productName: sql<string>`max(${productRows.productName})`,
        quantity: sql<string>`sum(${productRows.quantity})::bigint`,
        revenue: sql<string>`sum(${productRows.revenue})::text`,
      })
      .from(productRows)
      .groupBy(productRows.productId)
      .orderBy(desc(sql`sum(${productRows.quantity})`), productRows.productId)
      .limit(TOP_PRODUCTS)
      .prepare('dashboard_rollup_products'),
  };
};

/**
 * The same figures computed from the orders, details and payments of the period (placeholders
 * `from`, `to`, `tz` and the scope's): what a service not started reads, as its rollup may be
 * kept in another time zone's days. Orders count on their creation day in the display time
 * zone; revenue is the amount of the paid ones; payments are the paid payment records written in
 * the period; top products are those of the period's paid orders.
 */
const liveStatements = (orm: Orm) => {
  // Planned for their values at each call: the period's width and the scope decide the plan.
  const ordersInPeriod = and(PLAN_PER_CALL, gte(orders.createdAt, p('from')), lt(orders.createdAt, p('to')), scopeCondition(orders.departmentId, orders.createdBy));
  const window = orm
    .select({
      day: sql<string>`to_char(${orders.createdAt} at time zone ${p('tz')}, 'YYYY-MM-DD')`.as('day'),
      status: orders.status,
      amount: orders.amount,
    })
    .from(orders)
    .where(ordersInPeriod)
    .as('w');
  return {
    // Day and status over the period's orders: at most days × 3 rows.
    days: orm
      .select({ day: window.day, status: window.status, n: sql<number>`count(*)::int`, amount: sql<string>`sum(${window.amount})::text` })
      .from(window)
      .groupBy(window.day, window.status)
      .prepare('dashboard_business_days'),
    methods: orm
      .select({ methodId: payments.paymentMethodId, name: paymentMethods.name, n: sql<number>`count(*)::int`, amount: sql<string>`sum(${payments.amount})::text` })
      .from(payments)
      .innerJoin(paymentMethods, eq(paymentMethods.id, payments.paymentMethodId))
      .where(and(PLAN_PER_CALL, gte(payments.createdAt, p('from')), lt(payments.createdAt, p('to')), eq(payments.status, 'paid'), scopeCondition(payments.departmentId, payments.createdBy)))
      .groupBy(payments.paymentMethodId, paymentMethods.name)
      .orderBy(desc(sql`sum(${payments.amount})`), payments.paymentMethodId)
      .prepare('dashboard_business_methods'),
    products: orm
      .select({
        productId: orderDetails.productId,
        productName: sql<string>`max(${orderDetails.productName})`,
        quantity: sql<string>`sum(${orderDetails.quantity})::bigint`,
        revenue: sql<string>`sum(${orderDetails.price} * ${orderDetails.quantity})::text`,
      })
      .from(orderDetails)
      .innerJoin(orders, eq(orders.id, orderDetails.orderId))
      .where(and(ordersInPeriod, eq(orders.status, 'paid')))
      .groupBy(orderDetails.productId)
      .orderBy(desc(sql`sum(${orderDetails.quantity})`), orderDetails.productId)
      .limit(TOP_PRODUCTS)
      .prepare('dashboard_business_products'),
  };
};

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
  private readonly db: Database;
  private readonly orm: Orm;
  private readonly tz: string;
  private readonly logs: RecentLogs;
  private readonly counts: ReturnType<typeof countStatements>;
  private readonly rollup: ReturnType<typeof rollupStatements>;
  private readonly live: ReturnType<typeof liveStatements>;
  /** Whether start() found (or made) the rollup's days those of the display time zone. */
  private rollupInZone = false;
  constructor(deps: { db: Database; config: Config; logs: RecentLogs }) {
    this.db = deps.db;
    this.orm = deps.db.orm;
    this.tz = deps.config.DISPLAY_TIMEZONE;
    this.logs = deps.logs;
    this.counts = countStatements(this.orm);
    this.rollup = rollupStatements(this.orm);
    this.live = liveStatements(this.orm);
  }

  /**
   * Makes the business rollup's days those of the display time zone: when it is kept in
   * another zone's (DISPLAY_TIMEZONE changed, or the migration's UTC), rebuilds it from the
   * orders in one transaction, writers waiting meanwhile. Under the rollup's lock, so that
   * instances starting together rebuild once: the next finds the zone set. The figures are
   * read from the rollup from then on.
   */
  async start(logger: Logger): Promise<void> {
    const zone = (executor: Executor) => executor.orm.select({ timeZone: businessRollupZone.timeZone }).from(businessRollupZone).then(([kept]) => kept?.timeZone);
    if (await zone(this.db) !== this.tz) {
      await this.db.transaction(async (tx) => {
        // Raw: an advisory lock, the one the rebuild takes and the rollup's triggers share (migration 0019).
        await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['admin.business_rollup']);
        const kept = await zone(tx);
        if (kept === this.tz) return;
        logger.info({ from: kept ?? null, to: this.tz }, 'rebuilding the business rollup in the display time zone');
        await tx.allowLongStatements();
        // Raw: the migration's function, which sums as the triggers do (one definition of the sums).
        await tx.query('SELECT admin.business_rollup_rebuild($1)', [this.tz]);
      });
    }
    this.rollupInZone = true;
  }

  /**
   * The business figures of the caller's data scope over the last `days` days of the display
   * time zone (today included): today's and the period's, day by day (every day, zero-filled),
   * payments by method and the top products. `now` is for tests.
   */
  async businessFigures(scope: DataScope, days: number, now = new Date()) {
    const today = formatDisplay(now, this.tz)!.slice(0, 10);
    const first = addDays(today, 1 - days);
    const values = {
      first,
      last: today,
      from: startOfDate(first, this.tz).toISOString(),
      to: startOfDate(addDays(today, 1), this.tz).toISOString(),
      tz: this.tz,
      ...scopeValues(scope),
    };
    const b = this.rollupInZone ? this.rollup : this.live;
    const [dayRows, methodRows, productRows] = await Promise.all([b.days.execute(values), b.methods.execute(values), b.products.execute(values)]);
    const byDay = new Map<string, DayFigures>();
    for (let i = 0; i < days; i++) byDay.set(addDays(first, i), noFigures());
    const period = noFigures();
    for (const row of dayRows) {
      const f = byDay.get(row.day);
      if (!f) continue; // (cannot happen: the statement reads the period only)
      for (const target of [f, period]) {
        const n = Number(row.n);
        target.orders += n;
        target[row.status] += n;
        if (row.status === 'paid') target.revenue += decimalToCents(row.amount);
      }
    }
    return {
      time_zone: this.tz,
      today: { date: today, ...renderFigures(byDay.get(today)!) },
      period: { days, from: first, to: today, ...renderFigures(period) },
      by_day: [...byDay].map(([date, f]) => ({ date, orders: f.orders, paid: f.paid, revenue: centsToNumber(f.revenue) })),
      payments_by_method: methodRows.map((r) => ({ method_id: Number(r.methodId), name: r.name, count: Number(r.n), amount: centsToNumber(decimalToCents(r.amount)) })),
      top_products: productRows.map((r) => ({ product_id: Number(r.productId), product_name: r.productName, quantity: Number(r.quantity), revenue: centsToNumber(decimalToCents(r.revenue)) })),
    };
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
