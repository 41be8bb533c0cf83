// The live board: every worker clocked in now, with the site and time of their clock-in, their
// newest position, whether it is inside that site's fence and whether they are tracking (by the
// position's own time, see kernel/positions.ts), and the count of alerts awaiting a manager. One
// statement whatever the number of workers (and one for the alert counts) (worker_state → the clock-in event → its site and QR
// code, and last_positions, all by primary key), so the console can poll it every few seconds;
// the fence test is pure arithmetic on the rows.
import { and, asc, eq, ilike, isNull, ne, or, sql } from 'drizzle-orm';
import type { Static } from 'typebox';
import type { Config } from '../../../platform/config.ts';
import type { Database } from '../../../platform/db/database.ts';
import { contains } from '../../../platform/db/like.ts';
import { pagedList } from '../../../platform/db/list.ts';
import { clockEvents, lastPositions, qrCodes, securityAlerts, sites, users, workerState } from '../../db/schema.ts';
import type { Locale } from '../../../platform/i18n.ts';
import { siteName } from '../../seeds.ts';
import { isTrackingWithin } from '../../kernel/positions.ts';
import { insideFence } from '../../kernel/geofence.ts';
import type { BoardQuery, BoardReply, ConsoleSettings } from './board.schema.ts';

export class BoardService {
  private readonly db: Database;
  private readonly config: Config;
  private readonly trackingWindowSeconds: number;
  private readonly clockedIn;
  private readonly setupOf;
  private readonly alertCounts;

  constructor({ db, config }: { db: Database; config: Config }) {
    this.db = db;
    this.config = config;
    this.trackingWindowSeconds = config.TRACKING_WINDOW_SECONDS;
    // The workers clocked in, newest clock-in first; each row carries the total (a window count).
    this.clockedIn = pagedList(db.orm, {
      name: 'tc_board',
      rows: (orm) =>
        orm
          .select({
            id: users.id,
            username: users.username,
            fullName: users.fullName,
            since: clockEvents.createdAt,
            siteId: clockEvents.siteId,
            siteName: sites.name,
            siteIsDefault: sites.isDefault,
            fence: sites.fence,
            qrName: qrCodes.name,
            position: lastPositions,
            tracking: isTrackingWithin(this.trackingWindowSeconds),
            total: sql<number>`count(*) OVER ()`.mapWith(Number),
            now: sql<Date>`now()`.mapWith(clockEvents.createdAt),
          })
          .from(workerState)
          .innerJoin(users, and(eq(users.id, workerState.userId), isNull(users.deletedAt)))
          .leftJoin(clockEvents, eq(clockEvents.id, workerState.lastEventId))
          .leftJoin(sites, eq(sites.id, clockEvents.siteId))
          .leftJoin(qrCodes, eq(qrCodes.id, clockEvents.qrCodeId))
          .leftJoin(lastPositions, eq(lastPositions.userId, workerState.userId))
          .$dynamic(),
      table: workerState,
      always: eq(workerState.state, 'clock_in'),
      filters: {
        site_id: (x) => eq(clockEvents.siteId, x),
        search: { param: (s: string) => (s.trim() ? contains(s.trim()) : undefined), where: (x) => or(ilike(users.username, x), ilike(users.fullName, x)) },
      },
      sort: {},
      id: users.id,
      order: [sql`${clockEvents.createdAt} DESC NULLS LAST`, asc(users.id)],
    });
    this.setupOf = db.orm
      .select({
        fenced: sql<number>`count(*) FILTER (WHERE ${sites.fence} IS NOT NULL)`.mapWith(Number),
        defaultId: sql<number | null>`max(${sites.id}) FILTER (WHERE ${sites.isDefault})`.mapWith(Number),
        defaultName: sql<string | null>`max(${sites.name}) FILTER (WHERE ${sites.isDefault})`,
        defaultFenced: sql<boolean>`coalesce(bool_or(${sites.fence} IS NOT NULL) FILTER (WHERE ${sites.isDefault}), false)`,
      })
      .from(sites)
      .prepare('tc_console_setup');
    // The unresolved alerts are few and indexed (security_alerts_unresolved_idx).
    this.alertCounts = db.orm
      .select({
        open: sql<number>`count(*) FILTER (WHERE ${securityAlerts.status} = 'open')`.mapWith(Number),
        unresolved: sql<number>`count(*)`.mapWith(Number),
      })
      .from(securityAlerts)
      .where(ne(securityAlerts.status, 'resolved'))
      .prepare('tc_board_alert_counts');
  }

  /** What the console needs besides the data: the map tiles, the windows it explains, and whether the sites still need a fence. */
  async consoleSettings(locale: Locale): Promise<Static<typeof ConsoleSettings>> {
    const [setup] = await this.setupOf.execute();
    return {
      mapTileUrl: this.config.CLOCK_MAP_TILE_URL || null,
      mapAttribution: this.config.CLOCK_MAP_ATTRIBUTION,
      trackingWindowSeconds: this.config.TRACKING_WINDOW_SECONDS,
      lateAfterSeconds: this.config.CLOCK_LATE_AFTER_SECONDS,
      displayTimezone: this.config.DISPLAY_TIMEZONE,
      minIntervalSeconds: this.config.CLOCK_MIN_INTERVAL_SECONDS,
      setup: {
        needed: (setup?.fenced ?? 0) === 0,
        defaultSite: { id: setup?.defaultId ?? 0, name: siteName(setup?.defaultName ?? '', true, locale), has_fence: setup?.defaultFenced ?? false },
        fencedSites: setup?.fenced ?? 0,
      },
    };
  }

  async board(q: Static<typeof BoardQuery>, locale: Locale): Promise<Static<typeof BoardReply>> {
    const rows = await this.clockedIn.first({ site_id: q.siteId, search: q.search }, q.limit);
    const workers = rows.map((r) => {
      const pos = r.position;
      return {
        userId: r.id,
        username: r.username,
        full_name: r.fullName,
        since: r.since?.toISOString() ?? null,
        site: r.siteId === null ? null : { id: r.siteId, name: siteName(r.siteName ?? '', r.siteIsDefault ?? false, locale) },
        qrCodeName: r.qrName,
        lastPosition: pos && {
          latitude: pos.latitude,
          longitude: pos.longitude,
          accuracy: pos.accuracy,
          timestamp: pos.recordedAt.toISOString(),
          receivedAt: pos.receivedAt.toISOString(),
          source: pos.source,
        },
        withinGeofence: pos && r.fence ? insideFence(r.fence, pos).inside : null,
        isTracking: r.tracking,
      };
    });
    // With no row the window count is unknown; an empty page means none matched.
    const total = rows[0]?.total ?? 0;
    const generatedAt = (rows[0]?.now ?? new Date()).toISOString();
    const [alerts] = await this.alertCounts.execute();
    return {
      workers, total, trackingWindowSeconds: this.trackingWindowSeconds,
      openAlerts: alerts?.open ?? 0, unresolvedAlerts: alerts?.unresolved ?? 0, generatedAt,
    };
  }
}
