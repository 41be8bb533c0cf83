// Security: alerts raised by what the server observes, the risk score and level derived from
// them, and the managed blacklist of mock-location apps.
//
// Scoring: every alert of the last RISK_WINDOW_DAYS counts by its severity (low 5, medium 20,
// high 40); the sum, capped at 100, is the risk score. Level: high from 50, medium from 20,
// low below. So one medium or high alert makes a worker `medium`; two high alerts, or a high
// and a medium one, or five medium ones within a week make them `high`. Each alert writes a
// security check record (score and level at that moment); the reported `securityStatus` is the
// level computed now, so it falls back as alerts age out of the window.
import type { RawExec } from '../../../platform/db/database.ts';
import { enqueueWebhook } from '../webhooks/webhooks.outbox.ts';

export const ALERT_TYPES = [
  'geofence_violation', 'device_mismatch', 'forced_clock_out', 'qr_invalid',
  'impossible_travel', 'implausible_accuracy', 'duplicate_event', 'out_of_order_event', 'late_punch',
] as const;
export type AlertType = (typeof ALERT_TYPES)[number];
export const SEVERITIES = ['low', 'medium', 'high'] as const;
export type Severity = (typeof SEVERITIES)[number];
export type RiskLevel = Severity;

export const RISK_WINDOW_DAYS = 7;
export const SEVERITY_WEIGHT = { low: 5, medium: 20, high: 40 } as const satisfies Record<Severity, number>;
export const RISK_THRESHOLDS = { medium: 20, high: 50 } as const;
export const RISK_SCORE_MAX = 100;

export interface SecurityEvent {
  userId: number;
  type: AlertType;
  severity: Severity;
  details: Record<string, unknown>;
}

/** Weighted sum of severities as SQL over `security_alerts` rows. */
const WEIGHT_SQL = `CASE severity WHEN 'high' THEN ${SEVERITY_WEIGHT.high} WHEN 'medium' THEN ${SEVERITY_WEIGHT.medium} ELSE ${SEVERITY_WEIGHT.low} END`;
const LEVEL_SQL = (score: string) =>
  `CASE WHEN ${score} >= ${RISK_THRESHOLDS.high} THEN 'high' WHEN ${score} >= ${RISK_THRESHOLDS.medium} THEN 'medium' ELSE 'low' END`;

export function riskLevel(score: number): RiskLevel {
  return score >= RISK_THRESHOLDS.high ? 'high' : score >= RISK_THRESHOLDS.medium ? 'medium' : 'low';
}

/**
 * Stores an alert, records the worker's new risk score and level, and queues a
 * `security.violation` webhook, all with the caller's `exec` (run it in the transaction of the
 * event that raised the alert).
 */
export async function recordSecurityEvent(exec: { query: RawExec }, event: SecurityEvent): Promise<void> {
  const [row] = await exec.query<{ alert_id: number; created_at: Date | string }>(
    `WITH alert AS (
       INSERT INTO timeclock.security_alerts (user_id, alert_type, severity, details)
       VALUES ($1, $2, $3, $4::jsonb) RETURNING id, created_at),
     score AS (
       SELECT least(${RISK_SCORE_MAX}, $5::int + coalesce(sum(${WEIGHT_SQL}), 0))::int AS s
       FROM timeclock.security_alerts
       WHERE user_id = $1 AND created_at > now() - make_interval(days => ${RISK_WINDOW_DAYS}))
     INSERT INTO timeclock.security_checks (user_id, risk_score, risk_level)
     SELECT $1, s, ${LEVEL_SQL('s')} FROM score
     RETURNING (SELECT id FROM alert) AS alert_id, (SELECT created_at FROM alert) AS created_at`,
    [event.userId, event.type, event.severity, JSON.stringify(event.details), SEVERITY_WEIGHT[event.severity]],
  );
  await enqueueWebhook(exec, 'security.violation', {
    userId: event.userId,
    alertType: event.type,
    severity: event.severity,
    timestamp: new Date(row!.created_at).toISOString(),
    alertId: Number(row!.alert_id),
    details: event.details,
  });
}

export const RECENT_ALERTS = 20;

export interface AlertRecord {
  id: number;
  alert_type: string;
  severity: Severity;
  created_at: string;
}

export interface SecurityCheckRecord {
  id: number;
  user_id: number;
  timestamp: string;
  risk_level: RiskLevel;
  risk_score: number;
}

export interface AlertFilters {
  userId?: number | undefined;
  severity?: Severity | undefined;
  type?: string | undefined;
  since?: Date | undefined;
  page: number;
  limit: number;
}

export interface ManagerAlertRecord extends AlertRecord {
  user_id: number;
  username: string;
  full_name: string;
  details: Record<string, unknown>;
}

const isoOf = (v: Date | string) => new Date(v).toISOString();
const jsonOf = (v: unknown) => (typeof v === 'string' ? (JSON.parse(v) as Record<string, unknown>) : (v as Record<string, unknown>));

export class SecurityService {
  private readonly exec: { query: RawExec };

  constructor(exec: { query: RawExec }) {
    this.exec = exec;
  }

  /** Latest check, alerts of the risk window (newest first, at most RECENT_ALERTS) and the level now; null when no such worker. */
  async status(userId: number): Promise<{ latestSecurityCheck: SecurityCheckRecord | null; recentAlerts: AlertRecord[]; securityStatus: RiskLevel } | null> {
    const [user] = await this.exec.query<{ score: number }>(
      `SELECT (SELECT least(${RISK_SCORE_MAX}, coalesce(sum(${WEIGHT_SQL}), 0))::int FROM timeclock.security_alerts a
               WHERE a.user_id = u.id AND a.created_at > now() - make_interval(days => ${RISK_WINDOW_DAYS})) AS score
       FROM timeclock.users u WHERE u.id = $1 AND u.deleted_at IS NULL`,
      [userId],
    );
    if (!user) return null;
    const [check] = await this.exec.query<{ id: number; user_id: number; created_at: Date | string; risk_level: RiskLevel; risk_score: number }>(
      'SELECT id, user_id, created_at, risk_level, risk_score FROM timeclock.security_checks WHERE user_id = $1 ORDER BY id DESC LIMIT 1',
      [userId],
    );
    const alerts = await this.exec.query<{ id: number; alert_type: string; severity: Severity; created_at: Date | string }>(
      `SELECT id, alert_type, severity, created_at FROM timeclock.security_alerts
       WHERE user_id = $1 AND created_at > now() - make_interval(days => ${RISK_WINDOW_DAYS})
       ORDER BY created_at DESC, id DESC LIMIT ${RECENT_ALERTS}`,
      [userId],
    );
    return {
      latestSecurityCheck: check
        ? { id: Number(check.id), user_id: Number(check.user_id), timestamp: isoOf(check.created_at), risk_level: check.risk_level, risk_score: Number(check.risk_score) }
        : null,
      recentAlerts: alerts.map((a) => ({ id: Number(a.id), alert_type: a.alert_type, severity: a.severity, created_at: isoOf(a.created_at) })),
      securityStatus: riskLevel(Number(user.score)),
    };
  }

  /** Alerts across workers, newest first, filtered and paged. */
  async listAlerts(f: AlertFilters): Promise<{ alerts: ManagerAlertRecord[]; total: number }> {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (clause: (p: string) => string, value: unknown) => {
      params.push(value);
      where.push(clause(`$${params.length}`));
    };
    if (f.userId !== undefined) add((p) => `a.user_id = ${p}`, f.userId);
    if (f.severity !== undefined) add((p) => `a.severity = ${p}`, f.severity);
    if (f.type !== undefined) add((p) => `a.alert_type = ${p}`, f.type);
    if (f.since !== undefined) add((p) => `a.created_at >= ${p}::timestamptz`, f.since);
    const filter = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
    const [count] = await this.exec.query<{ n: number }>(`SELECT count(*)::int AS n FROM timeclock.security_alerts a ${filter}`, params);
    const rows = await this.exec.query<{
      id: number; user_id: number; username: string; full_name: string; alert_type: string; severity: Severity;
      details: unknown; created_at: Date | string;
    }>(
      `SELECT a.id, a.user_id, u.username, u.full_name, a.alert_type, a.severity, a.details, a.created_at
       FROM timeclock.security_alerts a JOIN timeclock.users u ON u.id = a.user_id
       ${filter} ORDER BY a.created_at DESC, a.id DESC LIMIT ${f.limit} OFFSET ${(f.page - 1) * f.limit}`,
      params,
    );
    return {
      total: Number(count?.n ?? 0),
      alerts: rows.map((r) => ({
        id: Number(r.id),
        user_id: Number(r.user_id),
        username: r.username,
        full_name: r.full_name,
        alert_type: r.alert_type,
        severity: r.severity,
        details: jsonOf(r.details),
        created_at: isoOf(r.created_at),
      })),
    };
  }

  async blacklist(): Promise<string[]> {
    const rows = await this.exec.query<{ package_id: string }>('SELECT package_id FROM timeclock.app_blacklist ORDER BY package_id');
    return rows.map((r) => r.package_id);
  }

  /** Adds a package id; `added` is false when it was listed already. */
  async addToBlacklist(packageId: string): Promise<{ packageId: string; created_at: string; added: boolean }> {
    // xmax = 0 only on a row this statement inserted; the no-op update returns an existing one.
    const [row] = await this.exec.query<{ created_at: Date | string; added: boolean }>(
      `INSERT INTO timeclock.app_blacklist (package_id) VALUES ($1)
       ON CONFLICT (package_id) DO UPDATE SET package_id = excluded.package_id
       RETURNING created_at, (xmax = 0) AS added`,
      [packageId],
    );
    return { packageId, created_at: isoOf(row!.created_at), added: row!.added };
  }

  /** Removes a package id; false when it was not listed. */
  async removeFromBlacklist(packageId: string): Promise<boolean> {
    const rows = await this.exec.query('DELETE FROM timeclock.app_blacklist WHERE package_id = $1 RETURNING 1', [packageId]);
    return rows.length > 0;
  }
}
