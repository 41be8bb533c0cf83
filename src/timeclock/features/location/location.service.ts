// Location updates (POST /location/update), a worker's tracking status and the purge of old
// samples. How a sample is stored and which alerts it raises: ../../kernel/positions.ts.
import { and, eq, isNull } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Static } from 'typebox';
import type { Config } from '../../../platform/config.ts';
import type { Database } from '../../../platform/db/database.ts';
import { p } from '../../../platform/db/statements.ts';
import { AppError, InvalidInput } from '../../../platform/http/errors.ts';
import { Periodic } from '../../../platform/jobs/periodic.ts';
import { lastPositions, users } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import { insideFence } from '../../kernel/geofence.ts';
import {
  currentSiteFence, currentSiteFenceOf, isTrackingWithin, raiseAlerts, recordPosition, type PositionLimits, type PositionSample,
} from '../../kernel/positions.ts';
import { MAX_FUTURE_SKEW_MS, MAX_SAMPLE_AGE_MS, type LocationStatusReply, type LocationUpdateBody, type LocationUpdateReply } from './location.schema.ts';
import { msg } from '../../../platform/i18n.ts';

const PURGE_BATCH = 10_000;
const PURGE_EVERY_MS = 60 * 60_000;

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
      if (Number.isNaN(recordedAt.getTime())) throw new InvalidInput(msg('timeclock.location.invalidTimestamp'), 'timestamp');
      if (recordedAt.getTime() > now + MAX_FUTURE_SKEW_MS) throw new InvalidInput(msg('timeclock.location.timestampInFuture'), 'timestamp');
      if (recordedAt.getTime() < now - MAX_SAMPLE_AGE_MS) throw new InvalidInput(msg('timeclock.location.timestampTooOld'), 'timestamp');
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
