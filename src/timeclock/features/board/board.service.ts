// The live board: every worker clocked in now, with the site and time of their clock-in, their
// newest position, whether it is inside that site's fence and whether they are tracking. One
// statement whatever the number of workers (worker_state → the clock-in event → its site and QR
// code, and last_positions, all by primary key), so the console can poll it every few seconds;
// the fence test is pure arithmetic on the rows.
import type { Database } from '../../../platform/db/database.ts';
import { contains } from '../../../platform/db/like.ts';
import { iso, num } from '../../http.ts';
import { insideFence, type Fence } from '../sites/geofence.ts';

interface BoardRow {
  id: number | string;
  username: string;
  full_name: string;
  since: Date | string | null;
  site_id: number | string | null;
  site_name: string | null;
  fence: Fence | null;
  qr_name: string | null;
  latitude: number | null;
  longitude: number | null;
  accuracy: number | null;
  source: string | null;
  recorded_at: Date | string | null;
  received_at: Date | string | null;
  tracking: boolean;
  total: number | string;
  now: Date | string;
}

export interface BoardQueryInput {
  siteId?: number | undefined;
  search?: string | undefined;
  limit: number;
}

export class BoardService {
  private readonly db: Database;
  private readonly trackingWindowSeconds: number;

  constructor(db: Database, trackingWindowSeconds: number) {
    this.db = db;
    this.trackingWindowSeconds = trackingWindowSeconds;
  }

  async board(q: BoardQueryInput) {
    const search = q.search?.trim() ? contains(q.search.trim()) : null;
    const rows = await this.db.query<BoardRow>(
      `SELECT u.id, u.username, u.full_name, e.created_at AS since, e.site_id, s.name AS site_name, s.fence,
              qr.name AS qr_name, lp.latitude, lp.longitude, lp.accuracy, lp.source, lp.recorded_at, lp.received_at,
              coalesce(lp.received_at > now() - make_interval(secs => $1::int), false) AS tracking,
              count(*) OVER () AS total, now() AS now
       FROM timeclock.worker_state ws
       JOIN timeclock.users u ON u.id = ws.user_id AND u.deleted_at IS NULL
       LEFT JOIN timeclock.clock_events e ON e.id = ws.last_event_id
       LEFT JOIN timeclock.sites s ON s.id = e.site_id
       LEFT JOIN timeclock.qr_codes qr ON qr.id = e.qr_code_id
       LEFT JOIN timeclock.last_positions lp ON lp.user_id = ws.user_id
       WHERE ws.state = 'clock_in'
         AND ($2::bigint IS NULL OR e.site_id = $2::bigint)
         AND ($3::text IS NULL OR u.username ILIKE $3 OR u.full_name ILIKE $3)
       ORDER BY e.created_at DESC NULLS LAST, u.id
       LIMIT $4`,
      [this.trackingWindowSeconds, q.siteId ?? null, search, q.limit],
    );
    const workers = rows.map((r) => {
      const position = r.latitude !== null && r.longitude !== null && r.recorded_at !== null
        ? { latitude: r.latitude, longitude: r.longitude }
        : null;
      return {
        userId: num(r.id),
        username: r.username,
        full_name: r.full_name,
        since: r.since === null ? null : iso(r.since),
        site: r.site_id === null ? null : { id: num(r.site_id), name: r.site_name ?? '' },
        qrCodeName: r.qr_name,
        lastPosition: position && {
          ...position,
          accuracy: r.accuracy,
          timestamp: iso(r.recorded_at!),
          receivedAt: iso(r.received_at ?? r.recorded_at!),
          source: r.source ?? '',
        },
        withinGeofence: position && r.fence ? insideFence(r.fence, position).inside : null,
        isTracking: r.tracking,
      };
    });
    // With no row the window count is unknown; an empty page means none matched.
    const total = rows.length > 0 ? num(rows[0]!.total) : 0;
    const generatedAt = rows.length > 0 ? iso(rows[0]!.now) : new Date().toISOString();
    return { workers, total, trackingWindowSeconds: this.trackingWindowSeconds, generatedAt };
  }
}
