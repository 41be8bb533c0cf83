// Security: alerts raised by what the server observes, the risk score and level derived from
// them, and the managed blacklist of mock-location apps.
// How alerts are scored: ../../kernel/security-events.ts.
import { and, asc, desc, eq, gt, isNull, ne, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Static } from 'typebox';
import type { Database, Orm } from '../../../platform/db/database.ts';
import { atOrAfter, pagedList } from '../../../platform/db/list.ts';
import { p } from '../../../platform/db/statements.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { appBlacklist, securityAlerts, securityChecks, users } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import type { Role } from '../../kernel/auth.ts';
import { RISK_SCORE_MAX, RISK_WINDOW_DAYS, riskLevel, WEIGHT_SQL } from '../../kernel/security-events.ts';
import type { AlertItem, AlertsQuery, AlertsReply, BlacklistEntry, SecurityStatusReply } from './security.schema.ts';
import { msg, type Locale } from '../../../platform/i18n.ts';
import { personName } from '../../seeds.ts';

export const RECENT_ALERTS = 20;

const acknowledgers = alias(users, 'acknowledger');
const resolvers = alias(users, 'resolver');

type Manager = { id: number; username: string; fullName: string; role: Role } | null;
const stepView = (at: Date | null, by: Manager, note: string | null, locale: Locale) =>
  at === null ? null : { at: at.toISOString(), by: by && { id: by.id, username: by.username, full_name: personName(by.fullName, by.role, locale) }, note };

const alertView = (locale: Locale) => (r: {
  alert: typeof securityAlerts.$inferSelect; username: string; fullName: string; acknowledger: Manager; resolver: Manager;
}): Static<typeof AlertItem> => ({
  id: r.alert.id,
  user_id: r.alert.userId,
  username: r.username,
  full_name: r.fullName,
  alert_type: r.alert.alertType,
  severity: r.alert.severity,
  details: r.alert.details,
  created_at: r.alert.createdAt.toISOString(),
  status: r.alert.status,
  acknowledged: stepView(r.alert.acknowledgedAt, r.acknowledger, r.alert.acknowledgeNote, locale),
  resolved: stepView(r.alert.resolvedAt, r.resolver, r.alert.resolveNote, locale),
});

const WEIGHT = sql<number>`coalesce(sum(${sql.raw(WEIGHT_SQL)}), 0)::int`;
const inRiskWindow = gt(securityAlerts.createdAt, sql`now() - make_interval(days => ${sql.raw(String(RISK_WINDOW_DAYS))})`);

export class SecurityService {
  private readonly db: Database;
  private readonly statusOf;
  private readonly alertList;
  private readonly blacklisted;

  constructor({ db }: { db: Database }) {
    this.db = db;
    const orm = db.orm;
    this.alertList = pagedList(orm, {
      name: 'tc_alerts',
      rows: (orm) => this.selectAlerts(orm).$dynamic(),
      table: securityAlerts,
      filters: {
        status: { inline: (status: Static<typeof AlertsQuery>['status']) => (status === 'unresolved' ? ne(securityAlerts.status, 'resolved') : status === 'all' ? undefined : eq(securityAlerts.status, status)) },
        user_id: (x) => eq(securityAlerts.userId, x),
        severity: (x) => eq(securityAlerts.severity, x),
        type: (x) => eq(securityAlerts.alertType, x),
        since: atOrAfter(securityAlerts.createdAt),
      },
      sort: { created_at: securityAlerts.createdAt },
      id: securityAlerts.id,
    });
    const ofUser = and(eq(securityAlerts.userId, p('user_id')), inRiskWindow);
    this.statusOf = {
      user: orm.select({ id: users.id }).from(users).where(and(eq(users.id, p('user_id')), isNull(users.deletedAt))).prepare('tc_security_user'),
      score: orm.select({ weight: WEIGHT }).from(securityAlerts).where(ofUser).prepare('tc_security_score'),
      check: orm.select().from(securityChecks).where(eq(securityChecks.userId, p('user_id'))).orderBy(desc(securityChecks.id)).limit(1).prepare('tc_security_check'),
      alerts: orm
        .select()
        .from(securityAlerts)
        .where(ofUser)
        .orderBy(desc(securityAlerts.createdAt), desc(securityAlerts.id))
        .limit(RECENT_ALERTS)
        .prepare('tc_security_recent_alerts'),
    };
    this.blacklisted = orm.select({ packageId: appBlacklist.packageId }).from(appBlacklist).orderBy(asc(appBlacklist.packageId)).prepare('tc_app_blacklist');
  }

  /** Latest check, alerts of the risk window (newest first, at most RECENT_ALERTS) and the level now; 404 when no such worker. */
  async status(userId: number): Promise<Static<typeof SecurityStatusReply>> {
    const values = { user_id: userId };
    const [user] = await this.statusOf.user.execute(values);
    if (!user) throw new AppError(E.NOT_FOUND, { detail: msg('timeclock.security.noWorker', { userId }), details: { userId } });
    const [score] = await this.statusOf.score.execute(values);
    const [check] = await this.statusOf.check.execute(values);
    const alerts = await this.statusOf.alerts.execute(values);
    return {
      latestSecurityCheck: check
        ? { id: check.id, user_id: check.userId, timestamp: check.createdAt.toISOString(), risk_level: check.riskLevel, risk_score: check.riskScore }
        : null,
      recentAlerts: alerts.map((a) => ({ id: a.id, alert_type: a.alertType, severity: a.severity, created_at: a.createdAt.toISOString(), status: a.status })),
      securityStatus: riskLevel(Math.min(RISK_SCORE_MAX, score?.weight ?? 0)),
    };
  }

  /** Alerts across workers, newest first, filtered and paged. */
  async listAlerts(q: Static<typeof AlertsQuery>, locale: Locale): Promise<Static<typeof AlertsReply>> {
    const { rows, total } = await this.alertList.page(
      { status: q.status, user_id: q.userId, severity: q.severity, type: q.type, since: q.since === undefined ? undefined : new Date(q.since) },
      { page: q.page, page_size: q.limit, order_by: 'created_at:desc' },
    );
    return {
      alerts: rows.map(alertView(locale)),
      totalCount: total,
      currentPage: q.page,
      totalPages: Math.ceil(total / q.limit),
    };
  }

  /** An alert with its worker and the managers who acknowledged and resolved it. */
  private selectAlerts(orm: Orm = this.db.orm) {
    return orm
      .select({
        alert: securityAlerts,
        username: users.username,
        fullName: users.fullName,
        acknowledger: { id: acknowledgers.id, username: acknowledgers.username, fullName: acknowledgers.fullName, role: acknowledgers.role },
        resolver: { id: resolvers.id, username: resolvers.username, fullName: resolvers.fullName, role: resolvers.role },
      })
      .from(securityAlerts)
      .innerJoin(users, eq(users.id, securityAlerts.userId))
      .leftJoin(acknowledgers, eq(acknowledgers.id, securityAlerts.acknowledgedBy))
      .leftJoin(resolvers, eq(resolvers.id, securityAlerts.resolvedBy));
  }

  /**
   * Acknowledges (`acknowledge`) or resolves (`resolve`) an alert as `managerId`, with an
   * optional note. An open alert can be acknowledged; an open or acknowledged one resolved.
   * 404 for an unknown alert; 409 ALERT_ALREADY_ACKNOWLEDGED / ALERT_ALREADY_RESOLVED otherwise,
   * naming who did it and when. The row is locked while its state is checked and moved, so of
   * two managers acting at once one succeeds and the other is told.
   */
  async step(step: 'acknowledge' | 'resolve', alertId: number, managerId: number, note: string | undefined, locale: Locale): Promise<Static<typeof AlertItem>> {
    const text = note?.trim() ? note.trim() : null;
    await this.db.transaction(async (tx) => {
      const [row] = await tx.orm.select().from(securityAlerts).where(eq(securityAlerts.id, alertId)).for('update');
      if (!row) throw new AppError(E.NOT_FOUND, { detail: msg('timeclock.security.alertNotFound', { id: alertId }), details: { alertId } });
      if (row.status === 'resolved' || (step === 'acknowledge' && row.status === 'acknowledged')) {
        const resolved = row.status === 'resolved';
        const by = resolved ? row.resolvedBy : row.acknowledgedBy;
        const at = (resolved ? row.resolvedAt : row.acknowledgedAt)!.toISOString();
        const [who] = by === null ? [] : await tx.orm.select({ username: users.username }).from(users).where(eq(users.id, by));
        throw new AppError(resolved ? E.ALERT_ALREADY_RESOLVED : E.ALERT_ALREADY_ACKNOWLEDGED, {
          detail: msg(resolved ? 'timeclock.security.alertAlreadyResolved' : 'timeclock.security.alertAlreadyAcknowledged', {
            id: alertId, by: who?.username ?? '?', at,
          }),
          details: { alertId, status: row.status, at, by: by === null ? null : { id: by, username: who?.username ?? null } },
        });
      }
      await tx.orm
        .update(securityAlerts)
        .set(step === 'acknowledge'
          ? { status: 'acknowledged', acknowledgedAt: sql`now()`, acknowledgedBy: managerId, acknowledgeNote: text }
          : { status: 'resolved', resolvedAt: sql`now()`, resolvedBy: managerId, resolveNote: text })
        .where(eq(securityAlerts.id, alertId));
    });
    const [row] = await this.selectAlerts().where(eq(securityAlerts.id, alertId));
    return alertView(locale)(row!);
  }

  async blacklist(): Promise<string[]> {
    const rows = await this.blacklisted.execute();
    return rows.map((r) => r.packageId);
  }

  /** Adds a package id; `added` is false when it was listed already. */
  async addToBlacklist(packageId: string): Promise<{ entry: Static<typeof BlacklistEntry>; added: boolean }> {
    const [inserted] = await this.db.orm.insert(appBlacklist).values({ packageId }).onConflictDoNothing().returning();
    const row = inserted ?? (await this.db.orm.select().from(appBlacklist).where(eq(appBlacklist.packageId, packageId)))[0]!;
    return { entry: { packageId, created_at: row.createdAt.toISOString() }, added: inserted !== undefined };
  }

  /** Removes a package id; 404 when it was not listed. */
  async removeFromBlacklist(packageId: string): Promise<void> {
    const rows = await this.db.orm.delete(appBlacklist).where(eq(appBlacklist.packageId, packageId)).returning({ packageId: appBlacklist.packageId });
    if (rows.length === 0) throw new AppError(E.NOT_FOUND, { detail: msg('timeclock.security.notBlacklisted', { packageId }), details: { packageId } });
  }
}
