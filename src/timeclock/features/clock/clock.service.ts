// Clock events. An event is recorded only when the QR code exists and is active, the position
// is inside the fence of the QR code's site, and the event differs from the worker's current
// state; the worker's `worker_state` row is locked (SELECT … FOR UPDATE) while the state is
// checked and moved, so of concurrent identical events exactly one is recorded. The event, its
// position sample and its webhook are written in one transaction. Every refused attempt is
// recorded as a security event in a transaction of its own.
//
// FORCE_CLOCK_OUT (DESIGN §7.7): a clock-out recorded from any state without QR or fence
// checks, by the worker themself; stored as forced, and raises a `forced_clock_out` alert.
//
// Duplicate-punch window (issue 27): besides the contract's same-state rule (409
// DUPLICATE_EVENT), a punch less than CLOCK_MIN_INTERVAL_SECONDS after the worker's latest event
// (by the events' times) is refused with 409 PUNCH_TOO_SOON, forced clock-outs included: two
// taps 150 ms apart on "Clock out" record one clock-out, not a clock-out and a clock-in.
//
// Working time (issue 30): a clock-in starting a day less than the work rules' minRestMinutes
// after the previous day's clock-out is recorded, with a `warning` in the reply and a
// `short_rest` alert for managers.
//
// Locked periods (issue 30): a punch dated (display time zone) inside a period a manager locked
// is refused with 409 PERIOD_LOCKED, whose message tells the worker to ask for a correction.
//
// Offline punches (the worker app's queue, DESIGN §9):
// - `capturedAt`, the time the phone captured the punch, is the event's time (history, reply,
//   webhook, ordering); `received_at` keeps the time of receipt. It must lie within
//   CLOCK_CAPTURE_WINDOW_HOURS before the receipt and at most CLOCK_CAPTURE_FUTURE_SECONDS ahead
//   (device clock skew; such a punch is recorded at its receipt). The state rule applies as of
//   that time: a punch captured before an event already recorded is refused (409
//   LATER_EVENT_RECORDED) rather than inserted into the past, so the state as of the capture
//   time is the current state. A QR code deactivated after the capture time still counts as
//   active (only its latest deactivation is known); fences are the current ones (sites keep no
//   history). A punch received more than CLOCK_LATE_AFTER_SECONDS after its capture is `late`,
//   for managers to review, and raises a `late_punch` alert when its gap is implausible (see
//   `implausibleGap`).
// - `clientEventId`: the first request for (worker, id) claims the pair in
//   `timeclock.clock_requests` (its primary key) in the transaction that records its outcome
//   (the event, or the refusal and its security event); a concurrent request with the pair
//   waits on the key and, once the first commits, finds it taken and answers the stored
//   outcome. So under any concurrency, and across instances, one event or one refusal is
//   recorded and every answer is the same. A different body with a used id is 409
//   CLIENT_EVENT_ID_REUSED. Answers that depend on the caller or on a transient condition
//   (401, 403, 404 unknown worker, 429, 5xx) are not stored: the same request may be tried again.
//
// POST /clock is measured hot: its statements are raw SQL (the query builder costs more per call,
// and on PGlite raw statements run as prepared statements).
// The reads of history and late punches are in clock.history.ts, the outcomes stored per client
// event id in clock.requests.ts.
import type { Logger } from 'pino';
import type { Config } from '../../../platform/config.ts';
import type { Database, Executor } from '../../../platform/db/database.ts';
import { AppError } from '../../../platform/http/errors.ts';
import type { Caller } from '../../kernel/auth.ts';
import { E } from '../../errors.ts';
import { insideFence, type Fence } from '../../kernel/geofence.ts';
import { trackPosition } from '../../kernel/positions.ts';
import { lockCovering, periodLocked } from '../../kernel/periods.ts';
import { lockState } from '../../kernel/punches.ts';
import { localDate } from '../../../platform/time.ts';
import { recordAttendanceAlert, recordSecurityEvent, type SecurityEvent, type SecurityEvents } from '../../kernel/security-events.ts';
import { readWorkRules } from '../../kernel/work-rules.ts';
import { enqueueWebhook } from '../../kernel/webhook-outbox.ts';
import {
  claim, lookup, replay, settle, type ClockInput, type ClockReply, type EventType, type Punch, type StoredOutcome,
} from './clock.requests.ts';
import { msg } from '../../../platform/i18n.ts';
import { siteNameParam } from '../../seeds.ts';

export const FORCE_CLOCK_OUT = 'FORCE_CLOCK_OUT';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;


/** A refusal decided inside the recording transaction: thrown to roll it back, then recorded (with its security event, when it has one). */
class Refused extends Error {
  readonly event: SecurityEvent | null;
  readonly error: AppError;
  constructor(event: SecurityEvent | null, error: AppError) {
    super(error.message);
    this.event = event;
    this.error = error;
  }
}

/** Severity of a position outside the fence, by how far outside (GPS error is tens of metres). */
export function outsideSeverity(distance: number): SecurityEvent['severity'] {
  return distance < 100 ? 'low' : distance < 1000 ? 'medium' : 'high';
}

export class ClockService {
  private readonly db: Database;
  private readonly logger: Logger;
  private readonly config: Config;
  private readonly securityEvents: SecurityEvents;
  constructor({ db, logger, config, securityEvents }: { db: Database; logger: Logger; config: Config; securityEvents: SecurityEvents }) {
    this.db = db;
    this.logger = logger;
    this.config = config;
    this.securityEvents = securityEvents;
  }

  async clock(caller: Caller, input: ClockInput): Promise<ClockReply> {
    await this.requireWorker(input.userId);
    const location = { latitude: input.latitude, longitude: input.longitude };
    const forced = input.qrCodeValue === FORCE_CLOCK_OUT && this.config.FORCE_CLOCK_OUT_ENABLED;
    if (forced && caller.userId !== input.userId) {
      throw new AppError(E.FORBIDDEN, { detail: msg('timeclock.clock.forceClockOutOwnToken') });
    }
    if (forced && input.eventType !== 'clock_out') {
      throw new AppError(E.VALIDATION_ERROR, { detail: msg('timeclock.clock.forceClockOutOnlyOut'), details: { field: 'eventType' } });
    }
    const punch = this.normalise(caller, input);
    if (punch.clientEventId) {
      const stored = await lookup(this.db, input.userId, punch.clientEventId);
      if (stored) return replay(punch, stored);
    }
    const tooFar = this.captureProblem(punch);
    if (tooFar) return this.refuse(punch, null, tooFar);

    const attempt = {
      eventType: input.eventType,
      qrCodeValue: input.qrCodeValue.slice(0, 64),
      location,
      ...(punch.clientEventId ? { clientEventId: punch.clientEventId } : {}),
      ...(punch.capturedAt ? { capturedAt: punch.capturedAt.toISOString() } : {}),
    };
    if (forced) return this.commit(punch, attempt, { qrCodeId: null, siteId: null, forced: true });

    const qr = UUID.test(input.qrCodeValue) ? await this.qrCode(input.qrCodeValue) : undefined;
    // Active, or deactivated only after the punch was captured.
    const active = qr && (qr.is_active || (punch.capturedAt !== null && qr.deactivated_at !== null && punch.capturedAt < qr.deactivated_at));
    if (!qr || !active) {
      const reason = input.qrCodeValue === FORCE_CLOCK_OUT ? 'forced clock-out is disabled' : qr ? 'inactive' : 'not found';
      const why = input.qrCodeValue === FORCE_CLOCK_OUT ? 'forcedDisabled' : qr ? 'inactive' : 'notFound';
      return this.refuse(
        punch,
        { userId: input.userId, type: 'qr_invalid', severity: qr ? 'low' : 'medium', details: { ...attempt, reason } },
        new AppError(E.QR_CODE_INACTIVE, { detail: msg(`timeclock.clock.qr.${why}`), details: { reason } }),
      );
    }
    const site = { siteId: qr.site_id, siteName: qr.site_name };
    if (!qr.fence) {
      return this.refuse(
        punch,
        { userId: input.userId, type: 'geofence_violation', severity: 'low', details: { ...attempt, ...site, reason: 'site has no geofence' } },
        new AppError(E.GEOFENCE_NOT_CONFIGURED, {
          detail: msg('timeclock.clock.siteHasNoGeofence', { site_name: siteNameParam(qr.site_name, qr.site_is_default) }),
          details: { ...site, reason: 'site has no geofence' },
        }),
      );
    }
    const check = insideFence(qr.fence, location);
    if (!check.inside) {
      const distanceMetres = Math.round(check.distanceMetres * 10) / 10;
      return this.refuse(
        punch,
        { userId: input.userId, type: 'geofence_violation', severity: outsideSeverity(distanceMetres), details: { ...attempt, ...site, distanceMetres } },
        new AppError(E.OUTSIDE_GEOFENCE, { detail: msg('timeclock.clock.outsideGeofence', { distanceMetres }), details: { distanceMetres, ...site } }),
      );
    }
    return this.commit(punch, { ...attempt, ...site }, { qrCodeId: qr.id, siteId: site.siteId, forced: false });
  }

  private normalise(caller: Caller, input: ClockInput): Punch {
    let capturedAt: Date | null = null;
    if (input.capturedAt !== undefined) {
      capturedAt = new Date(input.capturedAt);
      // The schema's date-time format admits a few forms Date cannot read (`+02` offsets, leap seconds).
      if (Number.isNaN(capturedAt.getTime())) {
        throw new AppError(E.VALIDATION_ERROR, {
          detail: msg('timeclock.clock.invalidCapturedAt'),
          details: { field: 'capturedAt' },
        });
      }
    }
    const clientEventId = input.clientEventId?.toLowerCase() ?? null;
    return {
      input,
      caller,
      clientEventId,
      capturedAt,
      request: {
        eventType: input.eventType,
        qrCodeValue: input.qrCodeValue,
        latitude: input.latitude,
        longitude: input.longitude,
        notes: input.notes ?? null,
        capturedAt: capturedAt?.toISOString() ?? null,
      },
      extended: clientEventId !== null || capturedAt !== null,
    };
  }

  /** A capture time too far ahead of the server clock or too old: the 400 to answer. */
  private captureProblem(p: Punch): AppError | null {
    if (!p.capturedAt) return null;
    const now = Date.now();
    const aheadSeconds = this.config.CLOCK_CAPTURE_FUTURE_SECONDS;
    const windowHours = this.config.CLOCK_CAPTURE_WINDOW_HOURS;
    if (p.capturedAt.getTime() > now + aheadSeconds * 1000) {
      return new AppError(E.VALIDATION_ERROR, {
        detail: msg('timeclock.clock.capturedAtAhead', { aheadSeconds }),
        details: { field: 'capturedAt', reason: 'in the future', maxAheadSeconds: aheadSeconds },
      });
    }
    if (p.capturedAt.getTime() < now - windowHours * 3_600_000) {
      return new AppError(E.VALIDATION_ERROR, {
        detail: msg('timeclock.clock.capturedAtTooOld', { windowHours }),
        details: { field: 'capturedAt', reason: 'too old', windowHours },
      });
    }
    return null;
  }

  /**
   * Records the event: claims the client event id, locks the worker's state, checks the order
   * and the state as of the event's time, inserts the event (late or not), moves the state,
   * tracks the position, raises the late and forced alerts and queues the webhook, in one
   * transaction. A refusal found under the lock rolls it back and is recorded by `refuse`.
   */
  private async commit(
    p: Punch,
    attempt: Record<string, unknown>,
    how: { qrCodeId: string | null; siteId: number | null; forced: boolean },
  ): Promise<ClockReply> {
    const { input } = p;
    let outcome: { reply: ClockReply } | { stored: StoredOutcome };
    try {
      outcome = await this.db.transaction(async (tx) => {
        if (p.clientEventId && !(await claim(tx, p, null))) return { stored: (await lookup(tx, input.userId, p.clientEventId))! };
        const now = await lockState(tx, input.userId);
        const receivedAt = now.at;
        const at = p.capturedAt && p.capturedAt < receivedAt ? p.capturedAt : receivedAt;
        if (now.latest && at < now.latest) {
          throw new Refused(
            { userId: input.userId, type: 'out_of_order_event', severity: 'low', details: { ...attempt, latestEventAt: now.latest.toISOString() } },
            new AppError(E.LATER_EVENT_RECORDED, {
              detail: msg('timeclock.clock.laterEventRecorded', { latest: now.latest.toISOString() }),
              details: { capturedAt: at.toISOString(), latestEventAt: now.latest.toISOString(), currentState: now.state },
            }),
          );
        }
        if (!how.forced && now.state === input.eventType) {
          const state = msg(input.eventType === 'clock_in' ? 'timeclock.clock.state.in' : 'timeclock.clock.state.out');
          throw new Refused(
            { userId: input.userId, type: 'duplicate_event', severity: 'low', details: attempt },
            new AppError(E.DUPLICATE_EVENT, { detail: msg('timeclock.clock.alreadyInState', { state }), details: { currentState: input.eventType } }),
          );
        }
        const tooSoon = this.tooSoon(at, now.latest, now.latestType);
        if (tooSoon) throw new Refused(null, tooSoon);
        const locked = await lockCovering(tx, input.userId, [localDate(at, this.config.DISPLAY_TIMEZONE)]);
        if (locked) throw new Refused(null, periodLocked(locked, 'punch'));
        const late = p.capturedAt !== null && receivedAt.getTime() - p.capturedAt.getTime() > this.config.CLOCK_LATE_AFTER_SECONDS * 1000;
        const suspicion = late ? await this.implausibleGap(tx, input.userId, at, receivedAt) : null;
        const eventId = await this.record(tx, p, how, { at, receivedAt, late, implausible: suspicion !== null });
        await tx.query(`UPDATE timeclock.worker_state SET state = $2, last_event_id = $3, updated_at = now() WHERE user_id = $1`, [
          input.userId, input.eventType, eventId,
        ]);
        if (suspicion) {
          await recordSecurityEvent(tx, {
            userId: input.userId,
            type: 'late_punch',
            severity: suspicion.heardFrom.length > 0 ? 'high' : 'medium',
            details: {
              eventId,
              eventType: input.eventType,
              ...(p.clientEventId ? { clientEventId: p.clientEventId } : {}),
              capturedAt: at.toISOString(),
              receivedAt: receivedAt.toISOString(),
              gapSeconds: Math.floor((receivedAt.getTime() - at.getTime()) / 1000),
              reasons: suspicion.reasons,
              heardFrom: suspicion.heardFrom,
            },
          });
        }
        if (how.forced) {
          await recordSecurityEvent(tx, {
            userId: input.userId,
            type: 'forced_clock_out',
            severity: 'medium',
            details: { eventId, previousState: now.state, location: attempt.location, ...(input.notes ? { notes: input.notes } : {}) },
          });
        }
        const shortRest = input.eventType === 'clock_in' && !how.forced ? await this.shortRest(tx, input.userId, at, now.latest, now.latestType) : null;
        if (shortRest) await recordAttendanceAlert(tx, { userId: input.userId, type: 'short_rest', details: { eventId, clockInAt: at.toISOString(), lastClockOutAt: now.latest!.toISOString(), ...shortRest } });
        const reply: ClockReply = {
          message: how.forced ? 'Clocked out (forced)' : input.eventType === 'clock_in' ? 'Clocked in successfully' : 'Clocked out successfully',
          timestamp: at.toISOString(),
          eventType: input.eventType,
          location: { latitude: input.latitude, longitude: input.longitude },
          ...(p.extended ? { receivedAt: receivedAt.toISOString(), late, clientEventId: p.clientEventId } : {}),
          ...(shortRest ? { warning: { code: 'short_rest' as const, ...shortRest } } : {}),
        };
        if (p.clientEventId) await settle(tx, input.userId, p.clientEventId, 200, reply, eventId);
        return { reply };
      });
    } catch (err) {
      if (err instanceof Refused) return this.refuse(p, err.event, err.error);
      throw err;
    }
    return 'reply' in outcome ? outcome.reply : replay(p, outcome.stored);
  }

  /**
   * The duplicate-punch window: a punch whose time (`at`, its capture time when it was sent with
   * one) is less than CLOCK_MIN_INTERVAL_SECONDS after the worker's latest event's time is a
   * double tap (or an old copy of the app sending again): the 409 to answer, else null. Event
   * times, not receipt times, are compared, so that punches queued offline and sent together
   * are judged by when they were made, and a double tap sent later is still one. Not a security
   * event: a slip of the finger, not an attack.
   */
  private tooSoon(at: Date, latest: Date | null, latestType: EventType | null): AppError | null {
    const minSeconds = this.config.CLOCK_MIN_INTERVAL_SECONDS;
    if (minSeconds === 0 || latest === null || latestType === null) return null;
    const elapsedMs = at.getTime() - latest.getTime();
    if (elapsedMs >= minSeconds * 1000) return null;
    const secondsAgo = Math.max(0, Math.floor(elapsedMs / 1000));
    const waitSeconds = Math.max(1, Math.ceil((minSeconds * 1000 - elapsedMs) / 1000));
    return new AppError(E.PUNCH_TOO_SOON, {
      detail: msg(latestType === 'clock_in' ? 'timeclock.clock.tooSoon.afterIn' : 'timeclock.clock.tooSoon.afterOut', {
        secondsAgo, minSeconds, waitSeconds,
      }),
      details: {
        lastEventType: latestType,
        lastEventAt: latest.toISOString(),
        secondsSinceLastEvent: secondsAgo,
        minIntervalSeconds: minSeconds,
        retryAfterSeconds: waitSeconds,
      },
    });
  }

  /**
   * The short rest of a clock-in that starts a new day (its local date, display zone, differs from
   * that of the previous session's clock-in) less than the work rules' minRestMinutes after the
   * previous clock-out; null otherwise. Read only when the previous punch is a clock-out less than
   * a day before (the rules allow at most 24 h).
   */
  private async shortRest(tx: Executor, userId: number, at: Date, latest: Date | null, latestType: EventType | null): Promise<{ restMinutes: number; minRestMinutes: number } | null> {
    if (!latest || latestType !== 'clock_out' || at.getTime() - latest.getTime() >= 86_400_000) return null;
    const { rules } = await readWorkRules(tx);
    if (rules.minRestMinutes === null || at.getTime() - latest.getTime() >= rules.minRestMinutes * 60_000) return null;
    const [previous] = await tx.query<{ created_at: Date }>(
      `SELECT created_at FROM timeclock.clock_events WHERE user_id = $1 AND voided_at IS NULL AND event_type = 'clock_in' AND created_at < $2
       ORDER BY created_at DESC, id DESC LIMIT 1`,
      [userId, latest],
    );
    const tz = this.config.DISPLAY_TIMEZONE;
    if (previous && localDate(new Date(previous.created_at), tz) === localDate(at, tz)) return null;
    return { restMinutes: Math.floor((at.getTime() - latest.getTime()) / 60_000), minRestMinutes: rules.minRestMinutes };
  }

  /**
   * Why a late punch is implausible, or null when it is not: received more than
   * CLOCK_LATE_ALERT_HOURS after its capture, and/or (CLOCK_LATE_ONLINE_ALERT) the server heard
   * from the worker between the capture and the receipt (a location update, a clock request of
   * their own, a device check), i.e. they claim to have been offline while they were online.
   * Contacts within CLOCK_LATE_ONLINE_GRACE_SECONDS of either end do not count: a phone that
   * reconnects sends its queues in a burst.
   */
  private async implausibleGap(
    tx: Executor,
    userId: number,
    capturedAt: Date,
    receivedAt: Date,
  ): Promise<{ reasons: string[]; heardFrom: { source: string; at: string }[] } | null> {
    const reasons: string[] = [];
    const limitHours = this.config.CLOCK_LATE_ALERT_HOURS;
    if (limitHours > 0 && receivedAt.getTime() - capturedAt.getTime() > limitHours * 3_600_000) reasons.push(`received more than ${limitHours} h after its capture`);
    let heardFrom: { source: string; at: string }[] = [];
    const grace = this.config.CLOCK_LATE_ONLINE_GRACE_SECONDS * 1000;
    const from = new Date(capturedAt.getTime() + grace);
    const to = new Date(receivedAt.getTime() - grace);
    if (this.config.CLOCK_LATE_ONLINE_ALERT && from < to) {
      const rows = await tx.query<{ source: string; at: Date | null }>(
        `SELECT source, at FROM (
           SELECT 'location_update' AS source, min(received_at) AS at FROM timeclock.location_samples
             WHERE user_id = $1 AND source <> 'clock_event' AND received_at > $2 AND received_at < $3
           UNION ALL
           SELECT 'clock_request', min(received_at) FROM timeclock.clock_events
             WHERE user_id = $1 AND recorded_by = $1 AND received_at > $2 AND received_at < $3
           UNION ALL
           SELECT 'device_check', last_seen FROM timeclock.devices
             WHERE user_id = $1 AND last_seen > $2 AND last_seen < $3) contacts`,
        [userId, from, to],
      );
      heardFrom = rows.flatMap((r) => (r.at === null ? [] : [{ source: r.source, at: r.at.toISOString() }]));
      if (heardFrom.length > 0) reasons.push('the worker was heard from between its capture and its receipt');
    }
    return reasons.length > 0 ? { reasons, heardFrom } : null;
  }

  /** Inserts the event, tracks its position and queues its webhook; returns its id. */
  private async record(
    tx: Executor,
    p: Punch,
    how: { qrCodeId: string | null; siteId: number | null; forced: boolean },
    when: { at: Date; receivedAt: Date; late: boolean; implausible: boolean },
  ): Promise<number> {
    const { input } = p;
    const [row] = await tx.query<{ id: number }>(
      `INSERT INTO timeclock.clock_events (user_id, event_type, qr_code_id, site_id, latitude, longitude, forced, notes,
         created_at, received_at, captured_at, client_event_id, recorded_by, late, implausible_gap)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING id`,
      [
        input.userId, input.eventType, how.qrCodeId, how.siteId, input.latitude, input.longitude, how.forced, input.notes ?? null,
        when.at, when.receivedAt, p.capturedAt, p.clientEventId, p.caller.userId, when.late, when.implausible,
      ],
    );
    const id = row!.id;
    await trackPosition(
      tx,
      { userId: input.userId, latitude: input.latitude, longitude: input.longitude, accuracy: null, source: 'clock_event', recordedAt: when.at },
      { impossibleTravelKmh: this.config.IMPOSSIBLE_TRAVEL_KMH },
    );
    await enqueueWebhook(tx, input.eventType === 'clock_in' ? 'worker.clock_in' : 'worker.clock_out', {
      userId: input.userId,
      timestamp: when.at.toISOString(),
      location: { latitude: input.latitude, longitude: input.longitude },
      ...(p.extended ? { receivedAt: when.receivedAt.toISOString(), late: when.late } : {}),
    });
    return id;
  }

  /**
   * Answers a refusal: records its security event (when it has one) and, with a client event id,
   * claims the id with the refusal in the same transaction; when another request claimed the id
   * first, answers what that one stored instead. Recording problems are logged, and the refusal
   * is answered anyway (not stored: a replay is judged again).
   */
  private async refuse(p: Punch, event: SecurityEvent | null, error: AppError): Promise<ClockReply> {
    if (!p.clientEventId) {
      if (event) await this.securityEvents.recordSeparately(event);
      throw error;
    }
    const id = p.clientEventId;
    let stored: StoredOutcome | undefined;
    try {
      stored = await this.db.transaction(async (tx) => {
        const reply = { code: String(error.def.code), detail: error.options.detail ?? null, details: error.options.details ?? {} };
        if (!(await claim(tx, p, { status: error.def.status, reply }))) return lookup(tx, p.input.userId, id);
        if (event) await recordSecurityEvent(tx, event);
        return undefined;
      });
    } catch (err) {
      this.logger.error({ err, userId: p.input.userId, clientEventId: id, type: event?.type }, 'could not record a refused clock request');
    }
    if (stored) return replay(p, stored);
    throw error;
  }

  private async qrCode(id: string) {
    const [row] = await this.db.query<{
      id: string; is_active: boolean; deactivated_at: Date | null; site_id: number; site_name: string; site_is_default: boolean; fence: Fence | null;
    }>(
      `SELECT q.id, q.is_active, q.deactivated_at, q.site_id, s.name AS site_name, s.is_default AS site_is_default, s.fence
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
    if (!user) throw new AppError(E.NOT_FOUND, { detail: msg('timeclock.clock.workerNotFoundDisabled', { userId }), details: { userId } });
  }
}
