// Location tracking: every sample is stored (kept LOCATION_RETENTION_DAYS), and each worker's
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
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Static } from 'typebox';
import type { Config } from '../../../platform/config.ts';
import type { Database, Executor } from '../../../platform/db/database.ts';
import { p } from '../../../platform/db/statements.ts';
import { AppError, InvalidInput } from '../../../platform/http/errors.ts';
import { Periodic } from '../../../platform/jobs/periodic.ts';
import { lastPositions, securityAlerts, users } from '../../db/schema.ts';
import { isTrackingWithin } from '../../tracking.ts';
import { E } from '../../errors.ts';
import { recordSecurityEvent, type SecurityEvent } from '../security/security.service.ts';
import { distanceMetres, insideFence } from '../sites/geofence.ts';
import { currentSiteFence, currentSiteFenceOf } from '../sites/sites.service.ts';
import {
  MAX_FUTURE_SKEW_MS, MAX_SAMPLE_AGE_MS, type LocationSource, type LocationStatusReply, type LocationUpdateBody, type LocationUpdateReply,
} from './location.schema.ts';
import { msg } from '../../../platform/i18n.ts';

export const MIN_PLAUSIBLE_ACCURACY_M = 1;
export const MAX_PLAUSIBLE_ACCURACY_M = 5000;
export const MIN_TRAVEL_DISTANCE_M = 1000;
export const ALERT_COOLDOWN_MS = 10 * 60_000;
const PURGE_BATCH = 10_000;
const PURGE_EVERY_MS = 60 * 60_000;

export interface PositionSample {
  userId: number;
  latitude: number;
  longitude: number;
  /** Metres; null when the device did not say. */
  accuracy: number | null;
  source: LocationSource;
  recordedAt: Date;
}

export interface PositionLimits {
  impossibleTravelKmh: number;
}

/** Times are epoch milliseconds (see recordPosition). */
interface PreviousRow {
  received_ms: number;
  prev_latitude: number | null;
  prev_longitude: number | null;
  prev_accuracy: number | null;
  prev_recorded_ms: number | null;
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
  // Raw: POST /location/update's one statement (a multi-statement CTE write, measured hot). It
  // returns times as epoch milliseconds, since a raw row's timestamps are Date objects on PGlite
  // but text on PostgreSQL (whose date parsing the query builder takes over).
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
     SELECT floor(extract(epoch FROM s.received_at) * 1000)::float8 AS received_ms, p.latitude AS prev_latitude,
            p.longitude AS prev_longitude, p.accuracy AS prev_accuracy,
            floor(extract(epoch FROM p.recorded_at) * 1000)::float8 AS prev_recorded_ms
     FROM sample s LEFT JOIN prev p ON true`,
    [s.userId, s.latitude, s.longitude, s.accuracy, s.source, s.recordedAt],
  );
  return { receivedAt: new Date(row!.received_ms), alerts: assess(s, row!, limits) };
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
  if (prev.prev_latitude !== null && prev.prev_longitude !== null && prev.prev_recorded_ms !== null) {
    const from = { latitude: prev.prev_latitude, longitude: prev.prev_longitude };
    const to = { latitude: s.latitude, longitude: s.longitude };
    const metres = distanceMetres(from, to);
    const beyondUncertainty = metres - (prev.prev_accuracy ?? 0) - (s.accuracy ?? 0);
    const seconds = Math.max(1, Math.abs(s.recordedAt.getTime() - prev.prev_recorded_ms) / 1000);
    const kmh = (beyondUncertainty / seconds) * 3.6;
    if (beyondUncertainty > MIN_TRAVEL_DISTANCE_M && kmh > limits.impossibleTravelKmh) {
      alerts.push({
        userId: s.userId,
        type: 'impossible_travel',
        severity: 'high',
        details: {
          from: { ...from, timestamp: new Date(prev.prev_recorded_ms).toISOString() },
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

export class LocationService {
  private readonly db: Database;
  private readonly config: Config;
  private readonly logger: Logger;
  private readonly purger: Periodic;
  private readonly statusOf;
  private readonly siteFence: ReturnType<typeof currentSiteFenceOf>;

  constructor({ db, config, logger }: { db: Database; config: Config; logger: Logger }) {
    this.db = db;
    this.config = config;
    this.logger = logger;
    this.statusOf = db.orm
      .select({
        position: lastPositions,
        tracking: isTrackingWithin(config.TRACKING_WINDOW_SECONDS),
      })
      .from(users)
      .leftJoin(lastPositions, eq(lastPositions.userId, users.id))
      .where(and(eq(users.id, p('user_id')), isNull(users.deletedAt)))
      .prepare('tc_location_status');
    this.siteFence = currentSiteFenceOf(db.orm);
    this.purger = new Periodic({
      everyMs: PURGE_EVERY_MS,
      logger,
      level: 'warn',
      failure: 'purging location samples failed',
      task: async () => {
        const n = await this.purge();
        if (n > 0) this.logger.info({ deleted: n }, 'purged old location samples');
      },
    });
  }

  get limits(): PositionLimits {
    return { impossibleTravelKmh: this.config.IMPOSSIBLE_TRAVEL_KMH };
  }

  /**
   * Stores one update of the caller's own position. Alerts follow in their own transaction; the
   * sample is stored whether or not they can be recorded (a failure is logged).
   */
  async update(body: Static<typeof LocationUpdateBody>): Promise<Static<typeof LocationUpdateReply>> {
    const now = Date.now();
    let recordedAt = new Date(now);
    if (body.timestamp !== undefined) {
      recordedAt = new Date(body.timestamp);
      // The schema admits RFC 3339 leap seconds (23:59:60), which Date cannot represent.
      if (Number.isNaN(recordedAt.getTime())) throw new InvalidInput(msg('timeclock.location.timestampNotRepresentableDate'), 'timestamp');
      if (recordedAt.getTime() > now + MAX_FUTURE_SKEW_MS) throw new InvalidInput(msg('timeclock.location.timestampMoreThanMinutes'), 'timestamp');
      if (recordedAt.getTime() < now - MAX_SAMPLE_AGE_MS) throw new InvalidInput(msg('timeclock.location.timestampMoreThanDays'), 'timestamp');
    }
    const sample: PositionSample = {
      userId: body.userId, latitude: body.latitude, longitude: body.longitude, accuracy: body.accuracy ?? null, source: body.source, recordedAt,
    };
    const { receivedAt, alerts } = await recordPosition(this.db, sample, this.limits);
    if (alerts.length > 0) {
      await this.db.transaction((tx) => raiseAlerts(tx, alerts)).catch((err: unknown) => {
        this.logger.error({ err, userId: sample.userId, alerts: alerts.map((a) => a.type) }, 'could not record location alerts');
      });
    }
    return { message: 'Location updated', timestamp: receivedAt.toISOString() };
  }

  /** Tracking status of a worker, with their position against their current site's fence; 404 when there is no such account. */
  async status(userId: number): Promise<Static<typeof LocationStatusReply>> {
    const [row] = await this.statusOf.execute({ user_id: userId });
    if (!row) throw new AppError(E.NOT_FOUND, { detail: msg('timeclock.location.noWorker', { userId }), details: { userId } });
    const p = row.position;
    const currentLocation = p
      ? { latitude: p.latitude, longitude: p.longitude, accuracy: p.accuracy, timestamp: p.recordedAt.toISOString(), receivedAt: p.receivedAt.toISOString(), source: p.source }
      : null;
    const fence = currentLocation ? await currentSiteFence(this.siteFence, userId) : null;
    return {
      isTracking: row.tracking === true,
      lastUpdate: p ? p.recordedAt.toISOString() : null,
      currentLocation,
      withinGeofence: currentLocation && fence ? insideFence(fence, currentLocation).inside : null,
    };
  }

  /** Deletes samples older than LOCATION_RETENTION_DAYS in batches; returns how many. */
  async purge(): Promise<number> {
    const days = this.config.LOCATION_RETENTION_DAYS;
    if (days === 0) return 0;
    let total = 0;
    for (;;) {
      // Raw: a CTE write. SKIP LOCKED: instances purging at the same moment share the work instead of waiting.
      const [row] = await this.db.query<{ n: number }>(
        `WITH gone AS (
           DELETE FROM timeclock.location_samples WHERE id IN (
             SELECT id FROM timeclock.location_samples WHERE received_at < now() - make_interval(days => $1::int)
             LIMIT $2::int FOR UPDATE SKIP LOCKED)
           RETURNING 1)
         SELECT count(*)::int AS n FROM gone`,
        [days, PURGE_BATCH],
      );
      const n = row?.n ?? 0;
      total += n;
      if (n < PURGE_BATCH) return total;
    }
  }

  /** Purges at start and hourly, until `stop`. */
  start(): void {
    this.purger.start();
  }

  stop(): Promise<void> {
    return this.purger.stop();
  }
}
