// Security events: an alert stored with the worker's new risk score and level, and its
// `security.violation` webhook, written in the transaction of the event that raised it (a
// punch, a location update) or, for a refused request, in one of its own. The alerts are read
// and managed by ../features/security/.
//
// Scoring: every alert of the last RISK_WINDOW_DAYS counts by its severity (low 5, medium 20,
// high 40); the sum, capped at 100, is the risk score. Level: high from 50, medium from 20,
// low below. So one medium or high alert makes a worker `medium`; two high alerts, or a high
// and a medium one, or five medium ones within a week make them `high`. Each alert writes a
// security check record (score and level at that moment); the reported `securityStatus` is the
// level computed now, so it falls back as alerts age out of the window.
import type { Logger } from 'pino';
import type { Database, Executor } from '../../platform/db/database.ts';
import type { SEVERITIES } from '../db/schema.ts';
import { enqueueWebhook } from './webhook-outbox.ts';

/**
 * Alerts about attendance, not security (a forgotten clock-out closed automatically, a clock-in
 * before the minimum rest): listed with the others for managers, but weighing nothing in the
 * risk score and sending no `security.violation` webhook.
 */
export const ATTENDANCE_ALERT_TYPES = ['missed_clock_out', 'short_rest'] as const;

export const ALERT_TYPES = [
  'geofence_violation', 'device_mismatch', 'forced_clock_out', 'qr_invalid',
  'impossible_travel', 'implausible_accuracy', 'duplicate_event', 'out_of_order_event', 'late_punch',
  ...ATTENDANCE_ALERT_TYPES,
] as const;
export type AlertType = (typeof ALERT_TYPES)[number];
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
export const WEIGHT_SQL = `CASE WHEN alert_type IN (${ATTENDANCE_ALERT_TYPES.map((t) => `'${t}'`).join(', ')}) THEN 0 WHEN severity = 'high' THEN ${SEVERITY_WEIGHT.high} WHEN severity = 'medium' THEN ${SEVERITY_WEIGHT.medium} ELSE ${SEVERITY_WEIGHT.low} END`;
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
export async function recordSecurityEvent(exec: Executor, event: SecurityEvent): Promise<void> {
  // Raw: a multi-statement CTE write (the alert and the worker's new risk in one round trip).
  const [row] = await exec.query<{ alert_id: number; created_at: Date }>(
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
    timestamp: row!.created_at.toISOString(),
    alertId: row!.alert_id,
    details: event.details,
  });
}

/** Records security events with the service's database: built once, handed to the features that refuse requests. */
export class SecurityEvents {
  private readonly db: Database;
  private readonly logger: Logger;

  constructor({ db, logger }: { db: Database; logger: Logger }) {
    this.db = db;
    this.logger = logger;
  }

  /**
   * Records the security event of a refused request in a transaction of its own (the request's
   * own work, if any, is rolled back). Recording problems are logged, not reported to the caller.
   */
  async recordSeparately(event: SecurityEvent): Promise<void> {
    try {
      await this.db.transaction((tx) => recordSecurityEvent(tx, event));
    } catch (err) {
      this.logger.error({ err, userId: event.userId, type: event.type }, 'could not record a security event');
    }
  }
}

/**
 * Stores an attendance alert (ATTENDANCE_ALERT_TYPES) with the caller's `exec`: listed for
 * managers like any alert, with no risk score and no webhook.
 */
export async function recordAttendanceAlert(exec: Executor, alert: { userId: number; type: (typeof ATTENDANCE_ALERT_TYPES)[number]; details: Record<string, unknown> }): Promise<void> {
  await exec.query(
    `INSERT INTO timeclock.security_alerts (user_id, alert_type, severity, details) VALUES ($1, $2, 'low', $3::jsonb)`,
    [alert.userId, alert.type, JSON.stringify(alert.details)],
  );
}
