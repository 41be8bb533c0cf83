// Clock events. An event is recorded only when the QR code exists and is active, the position
// is inside the fence of the QR code's site, and the event differs from the worker's current
// state; the state moves with a conditional UPDATE of the worker's `worker_state` row (row
// lock), so of concurrent identical events exactly one is recorded. The event, its position
// sample and its webhook are written in one transaction. Every refused attempt is recorded as
// a security event in a transaction of its own.
//
// FORCE_CLOCK_OUT (DESIGN §7.7): a clock-out recorded from any state without QR or fence
// checks, by the worker themself; stored as forced, and raises a `forced_clock_out` alert.
import type { Logger } from 'pino';
import type { Config } from '../../../platform/config.ts';
import type { Database, RawExec } from '../../../platform/db/database.ts';
import { AppError } from '../../../platform/http/errors.ts';
import type { Caller } from '../../auth.ts';
import { E } from '../../errors.ts';
import { iso, num } from '../../http.ts';
import { recordRefusal } from '../devices/devices.service.ts';
import { trackPosition } from '../location/location.service.ts';
import { recordSecurityEvent, type SecurityEvent } from '../security/security.service.ts';
import { insideFence, type Fence } from '../sites/geofence.ts';
import { enqueueWebhook } from '../webhooks/webhooks.outbox.ts';

export const FORCE_CLOCK_OUT = 'FORCE_CLOCK_OUT';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type EventType = 'clock_in' | 'clock_out';

export interface ClockInput {
  userId: number;
  eventType: EventType;
  qrCodeValue: string;
  latitude: number;
  longitude: number;
  notes?: string | undefined;
}

export interface ClockReply {
  message: string;
  timestamp: string;
  eventType: EventType;
  location: { latitude: number; longitude: number };
}

/** Severity of a position outside the fence, by how far outside (GPS error is tens of metres). */
export function outsideSeverity(distance: number): SecurityEvent['severity'] {
  return distance < 100 ? 'low' : distance < 1000 ? 'medium' : 'high';
}

export class ClockService {
  private readonly db: Database;
  private readonly logger: Logger;
  private readonly config: Config;
  constructor(db: Database, logger: Logger, config: Config) {
    this.db = db;
    this.logger = logger;
    this.config = config;
  }

  async clock(caller: Caller, input: ClockInput): Promise<ClockReply> {
    await this.requireWorker(input.userId);
    const location = { latitude: input.latitude, longitude: input.longitude };
    const attempt = { eventType: input.eventType, qrCodeValue: input.qrCodeValue.slice(0, 64), location };

    if (input.qrCodeValue === FORCE_CLOCK_OUT && this.config.FORCE_CLOCK_OUT_ENABLED) return this.forceClockOut(caller, input);

    const qr = UUID.test(input.qrCodeValue) ? await this.qrCode(input.qrCodeValue) : undefined;
    if (!qr || !qr.is_active) {
      const reason = input.qrCodeValue === FORCE_CLOCK_OUT ? 'forced clock-out is disabled' : qr ? 'inactive' : 'not found';
      await this.refuse({ userId: input.userId, type: 'qr_invalid', severity: qr ? 'low' : 'medium', details: { ...attempt, reason } });
      throw new AppError(E.QR_CODE_INACTIVE, { detail: `QR code ${reason}`, details: { reason } });
    }
    const site = { siteId: num(qr.site_id), siteName: qr.site_name };
    if (!qr.fence) {
      await this.refuse({ userId: input.userId, type: 'geofence_violation', severity: 'low', details: { ...attempt, ...site, reason: 'site has no geofence' } });
      throw new AppError(E.GEOFENCE_NOT_CONFIGURED, {
        detail: `site "${qr.site_name}" has no geofence; a manager must set one`,
        details: { ...site, reason: 'site has no geofence' },
      });
    }
    const check = insideFence(qr.fence, location);
    if (!check.inside) {
      const distanceMetres = Math.round(check.distanceMetres * 10) / 10;
      await this.refuse({ userId: input.userId, type: 'geofence_violation', severity: outsideSeverity(distanceMetres), details: { ...attempt, ...site, distanceMetres } });
      throw new AppError(E.OUTSIDE_GEOFENCE, { detail: `${distanceMetres} m outside the site’s geofence`, details: { distanceMetres, ...site } });
    }

    const recorded = await this.db.transactionRaw(async (tx) => {
      const moved = await moveState(tx, input.userId, input.eventType);
      if (!moved) return null;
      return this.record(tx, input, { qrCodeId: qr.id, siteId: site.siteId, forced: false });
    });
    if (!recorded) {
      await this.refuse({ userId: input.userId, type: 'duplicate_event', severity: 'low', details: { ...attempt, ...site } });
      const state = input.eventType === 'clock_in' ? 'clocked in' : 'clocked out';
      throw new AppError(E.DUPLICATE_EVENT, { detail: `already ${state}`, details: { currentState: input.eventType } });
    }
    return {
      message: input.eventType === 'clock_in' ? 'Clocked in successfully' : 'Clocked out successfully',
      timestamp: recorded.timestamp,
      eventType: input.eventType,
      location,
    };
  }

  private async forceClockOut(caller: Caller, input: ClockInput): Promise<ClockReply> {
    if (caller.userId !== input.userId) {
      throw new AppError(E.FORBIDDEN, { detail: 'FORCE_CLOCK_OUT needs the worker’s own token' });
    }
    if (input.eventType !== 'clock_out') {
      throw new AppError(E.VALIDATION_ERROR, { detail: 'FORCE_CLOCK_OUT only clocks out', details: { field: 'eventType' } });
    }
    const location = { latitude: input.latitude, longitude: input.longitude };
    const recorded = await this.db.transactionRaw(async (tx) => {
      const previous = await forceState(tx, input.userId);
      const event = await this.record(tx, input, { qrCodeId: null, siteId: null, forced: true });
      await recordSecurityEvent(tx, {
        userId: input.userId,
        type: 'forced_clock_out',
        severity: 'medium',
        details: { eventId: event.id, previousState: previous, location, ...(input.notes ? { notes: input.notes } : {}) },
      });
      return event;
    });
    return { message: 'Clocked out (forced)', timestamp: recorded.timestamp, eventType: 'clock_out', location };
  }

  /** Inserts the event, points the worker's state at it, tracks its position and queues its webhook. */
  private async record(
    tx: { query: RawExec },
    input: ClockInput,
    how: { qrCodeId: string | null; siteId: number | null; forced: boolean },
  ): Promise<{ id: number; timestamp: string }> {
    const [row] = await tx.query<{ id: number | string; created_at: Date | string }>(
      `INSERT INTO timeclock.clock_events (user_id, event_type, qr_code_id, site_id, latitude, longitude, forced, notes)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id, created_at`,
      [input.userId, input.eventType, how.qrCodeId, how.siteId, input.latitude, input.longitude, how.forced, input.notes ?? null],
    );
    const id = num(row!.id);
    const at = new Date(row!.created_at);
    await tx.query(`UPDATE timeclock.worker_state SET last_event_id = $2 WHERE user_id = $1`, [input.userId, id]);
    await trackPosition(
      tx,
      { userId: input.userId, latitude: input.latitude, longitude: input.longitude, accuracy: null, source: 'clock_event', recordedAt: at },
      { impossibleTravelKmh: this.config.IMPOSSIBLE_TRAVEL_KMH },
    );
    await enqueueWebhook(tx, input.eventType === 'clock_in' ? 'worker.clock_in' : 'worker.clock_out', {
      userId: input.userId,
      timestamp: at.toISOString(),
      location: { latitude: input.latitude, longitude: input.longitude },
    });
    return { id, timestamp: at.toISOString() };
  }

  /** Clock history, newest first, optionally within [from, to], paged. */
  async history(userId: number, q: { from?: string | undefined; to?: string | undefined; page: number; limit: number }) {
    const from = q.from === undefined ? null : new Date(q.from);
    const to = q.to === undefined ? null : new Date(q.to);
    if (from && to && from > to) throw new AppError(E.VALIDATION_ERROR, { detail: 'from must not be after to', details: { field: 'from' } });
    const [user] = await this.db.query(`SELECT 1 FROM timeclock.users WHERE id = $1 AND role = 'worker' AND deleted_at IS NULL`, [userId]);
    if (!user) throw new AppError(E.NOT_FOUND, { detail: `worker ${userId} not found`, details: { userId } });
    const where = `e.user_id = $1 AND ($2::timestamptz IS NULL OR e.created_at >= $2) AND ($3::timestamptz IS NULL OR e.created_at <= $3)`;
    const [count] = await this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM timeclock.clock_events e WHERE ${where}`, [userId, from, to]);
    const rows = await this.db.query<{
      id: number | string; event_type: EventType; created_at: Date | string; qr_name: string | null; forced: boolean; notes: string | null;
    }>(
      `SELECT e.id, e.event_type, e.created_at, q.name AS qr_name, e.forced, e.notes
       FROM timeclock.clock_events e LEFT JOIN timeclock.qr_codes q ON q.id = e.qr_code_id
       WHERE ${where} ORDER BY e.created_at DESC, e.id DESC LIMIT $4 OFFSET $5`,
      [userId, from, to, q.limit, (q.page - 1) * q.limit],
    );
    return {
      total: count?.n ?? 0,
      events: rows.map((r) => ({
        id: num(r.id),
        event_type: r.event_type,
        timestamp: iso(r.created_at),
        qrCodeUsedName: r.qr_name ?? FORCE_CLOCK_OUT,
        forced: r.forced,
        notes: r.notes,
      })),
    };
  }

  private async qrCode(id: string) {
    const [row] = await this.db.query<{ id: string; is_active: boolean; site_id: number | string; site_name: string; fence: Fence | null }>(
      `SELECT q.id, q.is_active, q.site_id, s.name AS site_name, s.fence
       FROM timeclock.qr_codes q JOIN timeclock.sites s ON s.id = q.site_id WHERE q.id = $1`,
      [id],
    );
    return row;
  }

  private async requireWorker(userId: number): Promise<void> {
    const [user] = await this.db.query(
      `SELECT 1 FROM timeclock.users WHERE id = $1 AND role = 'worker' AND status = 1 AND deleted_at IS NULL`,
      [userId],
    );
    if (!user) throw new AppError(E.NOT_FOUND, { detail: `worker ${userId} not found or disabled`, details: { userId } });
  }

  private refuse(event: SecurityEvent): Promise<void> {
    return recordRefusal(this.db, this.logger, event);
  }
}

/**
 * Moves the worker's state to `event` when it differs; false when it is already there. The
 * UPDATE locks the row, and a concurrent one re-checks its condition after the first commits.
 */
async function moveState(tx: { query: RawExec }, userId: number, event: EventType): Promise<boolean> {
  await tx.query(
    `INSERT INTO timeclock.worker_state (user_id, state) VALUES ($1, 'clock_out') ON CONFLICT (user_id) DO NOTHING`,
    [userId],
  );
  const moved = await tx.query(
    `UPDATE timeclock.worker_state SET state = $2, updated_at = now() WHERE user_id = $1 AND state <> $2 RETURNING user_id`,
    [userId, event],
  );
  return moved.length === 1;
}

/** Sets the worker's state to clock_out whatever it was; returns the previous state. */
async function forceState(tx: { query: RawExec }, userId: number): Promise<EventType> {
  const [prev] = await tx.query<{ state: EventType }>(`SELECT state FROM timeclock.worker_state WHERE user_id = $1 FOR UPDATE`, [userId]);
  await tx.query(
    `INSERT INTO timeclock.worker_state (user_id, state) VALUES ($1, 'clock_out')
     ON CONFLICT (user_id) DO UPDATE SET state = 'clock_out', updated_at = now()`,
    [userId],
  );
  return prev?.state ?? 'clock_out';
}
