// Positions, shared by location updates, clock events, the worker detail and the live board.
//
// Tracking: every sample is stored (kept LOCATION_RETENTION_DAYS), and each worker's
// newest position is kept in `last_positions`, upserted by the same statement that reads the
// previous one, so an update costs one round trip. Comparing the two raises the
// location-derived alerts:
//
// - impossible_travel (high): the implied speed between the previous and the new position is
//   above IMPOSSIBLE_TRAVEL_KMH (300). The distance counted is the great-circle distance minus
//   both accuracy radii, and must exceed 1 km, so GPS jitter never looks like travel; the
//   elapsed time is the difference of the device timestamps (at least 1 s).
// - implausible_accuracy: a reported accuracy under 1 m (medium: phones do not report that;
//   mock-location apps often report 0) or over 5 km (low: the position is useless for a fence).
//
// An alert of one type is raised at most once per worker per ALERT_COOLDOWN_MS, so a
// misbehaving device does not flood the alert list (the samples are all kept).
//
// When a worker was last seen and whether they are tracking, from their newest position
// (`last_positions`, the newest by the device's own timestamp, from location updates and clock
// events alike). Both come from the position's own time, not from when it arrived: a phone that
// re-sends an old position is not tracking, and its "last seen" does not move. A device whose
// clock runs ahead is taken at its receipt instead (a position cannot be newer than its arrival).
// Used by the location status, the manager's worker detail and the live board.
import { and, desc, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Executor, Orm } from '../../platform/db/database.ts';
import { p } from '../../platform/db/statements.ts';
import { clockEvents, lastPositions, securityAlerts, sites, type LOCATION_SOURCES } from '../db/schema.ts';
import { distanceMetres, type Fence } from './geofence.ts';
import { recordSecurityEvent, type SecurityEvent } from './security-events.ts';

/** The newest position's time as tracking counts it: its device time, never later than its receipt. */
export const positionTime = sql`least(${lastPositions.recordedAt}, ${lastPositions.receivedAt})`;

/** True while the newest position was taken within `windowSeconds` (TRACKING_WINDOW_SECONDS); false without one. */
export const isTrackingWithin = (windowSeconds: number) =>
  sql<boolean>`coalesce(${positionTime} > now() - make_interval(secs => ${windowSeconds}::int), false)`;

export const MIN_PLAUSIBLE_ACCURACY_M = 1;
export const MAX_PLAUSIBLE_ACCURACY_M = 5000;
export const MIN_TRAVEL_DISTANCE_M = 1000;
export const ALERT_COOLDOWN_MS = 10 * 60_000;

export interface PositionSample {
  userId: number;
  latitude: number;
  longitude: number;
  /** Metres; null when the device did not say. */
  accuracy: number | null;
  source: (typeof LOCATION_SOURCES)[number];
  recordedAt: Date;
}

export interface PositionLimits {
  impossibleTravelKmh: number;
}

interface PreviousRow {
  received_at: Date;
  prev_latitude: number | null;
  prev_longitude: number | null;
  prev_accuracy: number | null;
  prev_recorded_at: Date | null;
}

/**
 * Stores a sample and moves the worker's newest position (when the sample is not older than
 * it), in one statement; returns the time of receipt and the alerts the sample calls for
 * (not yet recorded: see `raiseAlerts`).
 */
export async function recordPosition(
  exec: Executor,
  s: PositionSample,
  limits: PositionLimits,
): Promise<{ receivedAt: Date; alerts: SecurityEvent[] }> {
  // Raw: POST /location/update's one statement (a multi-statement CTE write, measured hot).
  const [row] = await exec.query<PreviousRow>(
    `WITH prev AS (
       SELECT latitude, longitude, accuracy, recorded_at FROM timeclock.last_positions WHERE user_id = $1::bigint),
     sample AS (
       INSERT INTO timeclock.location_samples (user_id, latitude, longitude, accuracy, source, recorded_at)
       VALUES ($1::bigint, $2::float8, $3::float8, $4::float8, $5::text, $6::timestamptz) RETURNING received_at),
     latest AS (
       INSERT INTO timeclock.last_positions AS lp (user_id, latitude, longitude, accuracy, source, recorded_at)
       VALUES ($1::bigint, $2::float8, $3::float8, $4::float8, $5::text, $6::timestamptz)
       ON CONFLICT (user_id) DO UPDATE SET
         latitude    = CASE WHEN excluded.recorded_at >= lp.recorded_at THEN excluded.latitude ELSE lp.latitude END,
         longitude   = CASE WHEN excluded.recorded_at >= lp.recorded_at THEN excluded.longitude ELSE lp.longitude END,
         accuracy    = CASE WHEN excluded.recorded_at >= lp.recorded_at THEN excluded.accuracy ELSE lp.accuracy END,
         source      = CASE WHEN excluded.recorded_at >= lp.recorded_at THEN excluded.source ELSE lp.source END,
         recorded_at = greatest(excluded.recorded_at, lp.recorded_at),
         -- The receipt of the newest position: an older one sent again does not make it fresh.
         received_at = CASE WHEN excluded.recorded_at >= lp.recorded_at THEN excluded.received_at ELSE lp.received_at END)
     SELECT s.received_at, p.latitude AS prev_latitude,
            p.longitude AS prev_longitude, p.accuracy AS prev_accuracy,
            p.recorded_at AS prev_recorded_at
     FROM sample s LEFT JOIN prev p ON true`,
    [s.userId, s.latitude, s.longitude, s.accuracy, s.source, s.recordedAt],
  );
  return { receivedAt: row!.received_at, alerts: assess(s, row!, limits) };
}

/** The alerts a sample calls for, given the worker's previous newest position. */
function assess(s: PositionSample, prev: PreviousRow, limits: PositionLimits): SecurityEvent[] {
  const alerts: SecurityEvent[] = [];
  if (s.accuracy !== null && (s.accuracy < MIN_PLAUSIBLE_ACCURACY_M || s.accuracy > MAX_PLAUSIBLE_ACCURACY_M)) {
    const tooPrecise = s.accuracy < MIN_PLAUSIBLE_ACCURACY_M;
    alerts.push({
      userId: s.userId,
      type: 'implausible_accuracy',
      severity: tooPrecise ? 'medium' : 'low',
      details: {
        accuracy: s.accuracy,
        reason: tooPrecise ? `accuracy under ${MIN_PLAUSIBLE_ACCURACY_M} m` : `accuracy over ${MAX_PLAUSIBLE_ACCURACY_M} m`,
        source: s.source,
        position: { latitude: s.latitude, longitude: s.longitude },
        timestamp: s.recordedAt.toISOString(),
      },
    });
  }
  if (prev.prev_latitude !== null && prev.prev_longitude !== null && prev.prev_recorded_at !== null) {
    const from = { latitude: prev.prev_latitude, longitude: prev.prev_longitude };
    const to = { latitude: s.latitude, longitude: s.longitude };
    const metres = distanceMetres(from, to);
    const beyondUncertainty = metres - (prev.prev_accuracy ?? 0) - (s.accuracy ?? 0);
    const seconds = Math.max(1, Math.abs(s.recordedAt.getTime() - prev.prev_recorded_at.getTime()) / 1000);
    const kmh = (beyondUncertainty / seconds) * 3.6;
    if (beyondUncertainty > MIN_TRAVEL_DISTANCE_M && kmh > limits.impossibleTravelKmh) {
      alerts.push({
        userId: s.userId,
        type: 'impossible_travel',
        severity: 'high',
        details: {
          from: { ...from, timestamp: prev.prev_recorded_at.toISOString() },
          to: { ...to, timestamp: s.recordedAt.toISOString() },
          distanceMetres: Math.round(metres),
          seconds: Math.round(seconds),
          impliedKmh: Math.round(kmh),
          limitKmh: limits.impossibleTravelKmh,
          source: s.source,
        },
      });
    }
  }
  return alerts;
}

/**
 * Records alerts with `exec` (run it in a transaction), skipping a type already raised for
 * the worker within ALERT_COOLDOWN_MS. Returns the alerts recorded.
 */
export async function raiseAlerts(exec: Executor, alerts: SecurityEvent[]): Promise<SecurityEvent[]> {
  const raised: SecurityEvent[] = [];
  for (const alert of alerts) {
    // Raw: an advisory lock. It serialises the check-then-insert per worker and type across instances.
    await exec.query('SELECT pg_advisory_xact_lock(hashtext($1::text))', [`alert:${alert.userId}:${alert.type}`]);
    const recent = await exec.orm
      .select({ id: securityAlerts.id })
      .from(securityAlerts)
      .where(and(
        eq(securityAlerts.userId, alert.userId),
        eq(securityAlerts.alertType, alert.type),
        gt(securityAlerts.createdAt, sql`now() - make_interval(secs => ${ALERT_COOLDOWN_MS / 1000}::double precision)`),
      ))
      .limit(1);
    if (recent.length > 0) continue;
    await recordSecurityEvent(exec, alert);
    raised.push(alert);
  }
  return raised;
}

/**
 * Records a position inside the caller's transaction (for example a clock event's position,
 * with source `clock_event`) and raises the alerts it calls for with the same `exec`.
 */
export async function trackPosition(exec: Executor, s: PositionSample, limits: PositionLimits): Promise<void> {
  const { alerts } = await recordPosition(exec, s, limits);
  if (alerts.length > 0) await raiseAlerts(exec, alerts);
}

/**
 * The statement of the fence of the site of the QR code the worker `user_id` (a placeholder)
 * used for their latest clock-in: no row when they never clocked in with a QR code, a null
 * fence when that site has none. Built once by its user (see `currentSiteFence`).
 */
export const currentSiteFenceOf = (orm: Orm) =>
  orm
    .select({ fence: sites.fence })
    .from(clockEvents)
    .innerJoin(sites, eq(sites.id, clockEvents.siteId))
    .where(and(eq(clockEvents.userId, p('user_id')), eq(clockEvents.eventType, 'clock_in'), isNull(clockEvents.voidedAt)))
    .orderBy(desc(clockEvents.createdAt), desc(clockEvents.id))
    .limit(1)
    .prepare('tc_current_site_fence');

/**
 * The fence of the site of the QR code the worker used for their latest clock-in; null when
 * they never clocked in with a QR code or that site has no fence.
 */
export async function currentSiteFence(statement: ReturnType<typeof currentSiteFenceOf>, userId: number): Promise<Fence | null> {
  const [row] = await statement.execute({ user_id: userId });
  return row?.fence ?? null;
}
