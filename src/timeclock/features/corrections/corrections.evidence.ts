// The evidence shown beside a correction: what the server itself recorded around the corrected
// time. Only this service holds the worker's verified trail and QR proof, so a manager deciding
// a request sees the positions (inside the fence or not), the punches and refused scans, the
// device, and a time the trail supports:
// - a clock-out: the last position inside the fence before the worker left it for good (the
//   trail leaves and does not come back before the window ends); when the trail never leaves,
//   its last position inside (weaker, said so by `suggestedBasis`);
// - a clock-in: the first position inside the fence after coming from outside.
// The window runs from the session's clock-in (or two hours before the time, whichever is
// earlier, at most 24 hours before) to two hours after the time.
import type { Database } from '../../../platform/db/database.ts';
import type { Locale } from '../../../platform/i18n.ts';
import type { corrections, PunchValues } from '../../db/schema.ts';
import { insideFence, type Fence } from '../../kernel/geofence.ts';
import { siteName } from '../../seeds.ts';

const HOUR = 3_600_000;
const MAX_POSITIONS = 1000;

type Sample = { recorded_at: Date; latitude: number; longitude: number; accuracy: number | null; source: 'background' | 'manual' | 'clock_event' };

/** The punch the evidence is about: the one asked for (add, move), else the one voided. */
const subject = (c: typeof corrections.$inferSelect): PunchValues | undefined => c.after?.[0] ?? c.before?.[0];

export async function evidenceFor(db: Database, c: typeof corrections.$inferSelect, locale: Locale) {
  const punch = subject(c)!;
  const at = new Date(punch.at);
  // The session's clock-in: the punch itself, or the worker's latest effective clock-in before it.
  const [start] = punch.eventType === 'clock_in'
    ? []
    : await db.query<{ created_at: Date; site_id: number | string | null }>(
      `SELECT created_at, site_id FROM timeclock.clock_events
       WHERE user_id = $1 AND voided_at IS NULL AND event_type = 'clock_in' AND created_at < $2 AND created_at > $3
       ORDER BY created_at DESC, id DESC LIMIT 1`,
      [c.userId, at, new Date(at.getTime() - 24 * HOUR)],
    );
  const from = new Date(Math.min(at.getTime() - 2 * HOUR, start ? new Date(start.created_at).getTime() : Infinity));
  const to = new Date(at.getTime() + 2 * HOUR);
  const siteId = punch.siteId ?? c.before?.[0]?.siteId ?? (start?.site_id == null ? null : Number(start.site_id));

  const [siteRows, samples, punches, refused, devices] = await Promise.all([
    siteId === null
      ? Promise.resolve([])
      : db.query<{ id: number | string; name: string; is_default: boolean; fence: Fence | null }>('SELECT id, name, is_default, fence FROM timeclock.sites WHERE id = $1', [siteId]),
    db.query<Sample>(
      `SELECT * FROM (SELECT recorded_at, latitude, longitude, accuracy, source FROM timeclock.location_samples
         WHERE user_id = $1 AND recorded_at >= $2 AND recorded_at <= $3 ORDER BY recorded_at DESC, id DESC LIMIT ${MAX_POSITIONS}) s
       ORDER BY recorded_at`,
      [c.userId, from, to],
    ),
    db.query<{ id: number | string; event_type: 'clock_in' | 'clock_out'; created_at: Date; origin: 'punch' | 'correction' | 'auto'; voided_at: Date | null; qr_name: string | null; site_name: string | null; site_default: boolean | null }>(
      `SELECT e.id, e.event_type, e.created_at, e.origin, e.voided_at, q.name AS qr_name, s.name AS site_name, s.is_default AS site_default
       FROM timeclock.clock_events e LEFT JOIN timeclock.qr_codes q ON q.id = e.qr_code_id LEFT JOIN timeclock.sites s ON s.id = e.site_id
       WHERE e.user_id = $1 AND e.created_at >= $2 AND e.created_at <= $3 ORDER BY e.created_at, e.id`,
      [c.userId, from, to],
    ),
    db.query<{ created_at: Date; alert_type: string; details: Record<string, unknown> }>(
      `SELECT created_at, alert_type, details FROM timeclock.security_alerts
       WHERE user_id = $1 AND created_at >= $2 AND created_at <= $3
         AND alert_type IN ('geofence_violation', 'qr_invalid', 'duplicate_event', 'out_of_order_event')
       ORDER BY created_at, id`,
      [c.userId, from, to],
    ),
    db.query<{ device_uuid: string; registered_at: Date; last_seen: Date }>('SELECT device_uuid, registered_at, last_seen FROM timeclock.devices WHERE user_id = $1', [c.userId]),
  ]);
  const site = siteRows[0];
  const fence = site?.fence ?? null;
  const positions = samples.map((s) => ({
    at: new Date(s.recorded_at).toISOString(),
    latitude: s.latitude,
    longitude: s.longitude,
    accuracy: s.accuracy,
    source: s.source,
    insideFence: fence ? insideFence(fence, s).inside : null,
  }));
  const suggestion = suggest(positions, punch.eventType);
  const device = devices[0];
  return {
    from: from.toISOString(),
    to: to.toISOString(),
    site: site ? { id: Number(site.id), name: siteName(site.name, site.is_default, locale), fence: (fence ?? null) as Record<string, unknown> | null } : null,
    positions,
    punches: punches.map((p) => ({
      id: Number(p.id),
      eventType: p.event_type,
      at: new Date(p.created_at).toISOString(),
      siteName: p.site_name === null ? null : siteName(p.site_name, p.site_default ?? false, locale),
      qrCodeName: p.qr_name,
      origin: p.origin,
      voided: p.voided_at !== null,
    })),
    refusedScans: refused.map((r) => ({ at: new Date(r.created_at).toISOString(), alertType: r.alert_type, details: r.details })),
    device: device ? { deviceUuid: device.device_uuid, registeredAt: new Date(device.registered_at).toISOString(), lastSeen: new Date(device.last_seen).toISOString() } : null,
    ...suggestion,
  };
}

/** The time the trail supports (see the header); positions in time order, judged against the fence. */
export function suggest(
  positions: readonly { at: string; insideFence: boolean | null }[],
  type: 'clock_in' | 'clock_out',
): { suggestedAt: string | null; suggestedBasis: 'left_fence' | 'last_inside' | 'arrived' | null } {
  const judged = positions.filter((p) => p.insideFence !== null);
  if (type === 'clock_out') {
    let lastInside = -1;
    for (let i = 0; i < judged.length; i++) if (judged[i]!.insideFence) lastInside = i;
    if (lastInside < 0) return { suggestedAt: null, suggestedBasis: null };
    return { suggestedAt: judged[lastInside]!.at, suggestedBasis: lastInside < judged.length - 1 ? 'left_fence' : 'last_inside' };
  }
  for (let i = 1; i < judged.length; i++) {
    if (judged[i]!.insideFence && !judged[i - 1]!.insideFence) return { suggestedAt: judged[i]!.at, suggestedBasis: 'arrived' };
  }
  return { suggestedAt: null, suggestedBasis: null };
}
