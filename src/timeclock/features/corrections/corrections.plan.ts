// The checks of a correction, read apart from the service (corrections.service.ts) that keeps
// the requests, the decisions and the writes: they read punches and write nothing. What a request
// would do to the worker's punches (its plan: the punches it voids and those it inserts; 400
// naming every bad field, 404 or 409 for the punch), and whether the plan may be applied now: the
// punches still alternate around every changed instant (409 CORRECTION_BREAKS_ORDER), no date it
// touches is in a locked period (409 PERIOD_LOCKED), no other request of the punch is pending
// (409), the worker exists (404). Each reads in the caller's transaction (`tx`), the plan and its
// checks under the worker's state lock.
import type { Config } from '../../../platform/config.ts';
import type { Executor } from '../../../platform/db/database.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { msg, type Msg } from '../../../platform/i18n.ts';
import { localDate } from '../../../platform/time.ts';
import type { corrections, PunchValues } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import { lockCovering, periodLocked } from '../../kernel/periods.ts';
import { neighbours, type EventType } from '../../kernel/punches.ts';
import type { CorrectionInput } from './corrections.schema.ts';

type Kind = typeof corrections.$inferSelect.kind;

interface EventRow {
  id: number;
  user_id: number;
  event_type: EventType;
  created_at: Date;
  site_id: number | null;
  qr_code_id: string | null;
  latitude: number | null;
  longitude: number | null;
  forced: boolean;
  voided_at: Date | null;
  voided_by: number | null;
}

/** What a correction does, checked: the punches it voids and the punches it inserts. */
export interface Plan {
  kind: Kind;
  eventId: number | null;
  voids: EventRow[];
  before: PunchValues[];
  after: PunchValues[];
}

const values = (e: EventRow): PunchValues => ({ eventId: Number(e.id), eventType: e.event_type, at: new Date(e.created_at).toISOString(), siteId: e.site_id === null ? null : Number(e.site_id) });
const typeName = (type: EventType) => msg(type === 'clock_in' ? 'timeclock.corrections.clockIn' : 'timeclock.corrections.clockOut');

function invalid(problems: { field: string; message: Msg }[]): AppError {
  const messages = problems.map((p) => p.message);
  return new AppError(E.VALIDATION_ERROR, { detail: messages, details: { field: problems[0]!.field, fields: problems.map((p) => p.field), errors: messages } });
}

/** What `input` would do to the worker's punches now: 400 naming every bad field, 404 or 409 for the punch. */
export async function planCorrection(tx: Executor, config: Config, userId: number, input: CorrectionInput): Promise<Plan> {
  const problems: { field: string; message: Msg }[] = [];
  const unused = (field: keyof CorrectionInput) => {
    if (input[field] !== undefined) problems.push({ field, message: msg('timeclock.corrections.fieldNotForKind', { field, kind: input.kind }) });
  };
  const required = (field: keyof CorrectionInput) => {
    if (input[field] === undefined) problems.push({ field, message: msg('timeclock.corrections.fieldRequired', { field, kind: input.kind }) });
  };
  let at: Date | null = null;
  if (input.at !== undefined) {
    at = new Date(input.at);
    const ahead = config.CLOCK_CAPTURE_FUTURE_SECONDS * 1000;
    if (Number.isNaN(at.getTime())) problems.push({ field: 'at', message: msg('timeclock.clock.invalidCapturedAt') });
    else if (at.getTime() > Date.now() + ahead) problems.push({ field: 'at', message: msg('timeclock.corrections.inFuture', { field: 'at' }) });
    // Millisecond precision, as punches are stored.
    else at = new Date(Math.floor(at.getTime()));
  }
  let endAt: Date | null = null;
  if (input.endAt !== undefined) {
    endAt = new Date(input.endAt);
    if (Number.isNaN(endAt.getTime())) problems.push({ field: 'endAt', message: msg('timeclock.clock.invalidCapturedAt') });
    else if (endAt.getTime() > Date.now() + config.CLOCK_CAPTURE_FUTURE_SECONDS * 1000) problems.push({ field: 'endAt', message: msg('timeclock.corrections.inFuture', { field: 'endAt' }) });
    else if (at && endAt <= at) problems.push({ field: 'endAt', message: msg('timeclock.corrections.endBeforeStart', { end: 'endAt', at: 'at' }) });
    else if (input.eventType !== undefined && input.eventType !== 'clock_in') problems.push({ field: 'eventType', message: msg('timeclock.corrections.sessionStartsIn', { end: 'endAt', field: 'eventType', value: 'clock_in' }) });
  }
  if (input.kind === 'add') {
    required('eventType');
    required('at');
    unused('eventId');
    unused('pairEventId');
  } else {
    required('eventId');
    unused('eventType');
    unused('endAt');
    if (input.kind === 'void') {
      unused('at');
      unused('siteId');
    } else {
      unused('pairEventId');
      if (input.at === undefined && input.siteId === undefined) problems.push({ field: 'at', message: msg('timeclock.corrections.moveNeedsChange', { at: 'at', site: 'siteId' }) });
    }
  }
  if (input.siteId !== undefined && !(await siteExists(tx, input.siteId))) {
    problems.push({ field: 'siteId', message: msg('timeclock.corrections.siteNotFound', { id: input.siteId }) });
  }
  if (problems.length > 0) throw invalid(problems);

  if (input.kind === 'add') {
    const type = input.eventType!;
    const siteId = input.siteId ?? (await sessionSite(tx, userId, at!));
    const after: PunchValues[] = [{ eventId: null, eventType: type, at: at!.toISOString(), siteId }];
    if (endAt) after.push({ eventId: null, eventType: 'clock_out', at: endAt.toISOString(), siteId });
    return { kind: 'add', eventId: null, voids: [], before: [], after };
  }
  const target = await event(tx, userId, input.eventId!, 'eventId');
  if (input.kind === 'move') {
    const after: PunchValues = { eventId: null, eventType: target.event_type, at: (at ?? new Date(target.created_at)).toISOString(), siteId: input.siteId ?? (target.site_id === null ? null : Number(target.site_id)) };
    if (after.at === values(target).at && after.siteId === values(target).siteId) throw invalid([{ field: 'at', message: msg('timeclock.corrections.moveNeedsChange', { at: 'at', site: 'siteId' }) }]);
    return { kind: 'move', eventId: Number(target.id), voids: [target], before: [values(target)], after: [after] };
  }
  const voids = [target];
  if (input.pairEventId !== undefined) {
    const pair = await event(tx, userId, input.pairEventId, 'pairEventId');
    const near = await neighbours(tx, userId, new Date(target.created_at), Number(target.id));
    const partner = pair.created_at > target.created_at ? near.after : near.before;
    // Adjacent (no effective punch between them), the clock-in first: the same session.
    const first = pair.created_at > target.created_at ? target : pair;
    if (pair.event_type === target.event_type || first.event_type !== 'clock_in' || partner?.id !== Number(pair.id)) {
      throw invalid([{ field: 'pairEventId', message: msg('timeclock.corrections.notThePair', { id: input.pairEventId, eventId: input.eventId }) }]);
    }
    voids.push(pair);
    voids.sort((a, b) => a.created_at.getTime() - b.created_at.getTime());
  }
  return { kind: 'void', eventId: Number(target.id), voids, before: voids.map(values), after: [] };
}

/** A punch of the worker that is not voided: 404 when it is not theirs, 409 when a correction voided it. */
async function event(tx: Executor, userId: number, id: number, field: string): Promise<EventRow> {
  const [row] = await tx.query<EventRow>(
    `SELECT id, user_id, event_type, created_at, site_id, qr_code_id, latitude, longitude, forced, voided_at, voided_by
     FROM timeclock.clock_events WHERE id = $1 AND user_id = $2`,
    [id, userId],
  );
  if (!row) throw new AppError(E.NOT_FOUND, { detail: msg('timeclock.corrections.punchNotFound', { id }), details: { field, eventId: id } });
  if (row.voided_at) {
    throw new AppError(E.PUNCH_ALREADY_CORRECTED, {
      detail: msg('timeclock.corrections.alreadyVoided', { id, correctionId: Number(row.voided_by) }),
      details: { field, eventId: id, correctionId: Number(row.voided_by) },
    });
  }
  return { ...row, id: Number(row.id), created_at: new Date(row.created_at) };
}

/**
 * 409 CORRECTION_BREAKS_ORDER unless the worker's effective punches, as they would be once the
 * plan is applied, alternate around what it changes: the punches from just before its earliest
 * instant to just after its latest, the voided ones left out and the inserted ones put in. A
 * pair of punches of one type is a conflict when one of them is inserted or a voided punch lay
 * between them (an older pair the plan does not touch, say two forced clock-outs, is left
 * alone). Before a worker's first punch they count as clocked out.
 */
export async function checkOrder(tx: Executor, userId: number, plan: Plan): Promise<void> {
  const voided = new Set(plan.voids.map((v) => Number(v.id)));
  const times = [...plan.before, ...plan.after].map((p) => Date.parse(p.at));
  const lo = new Date(Math.min(...times));
  const hi = new Date(Math.max(...times));
  const EDGE = voided.size + 1;
  const rows = await tx.query<{ side: string; id: number | string; event_type: EventType; created_at: Date }>(
    `(SELECT 'before' AS side, id, event_type, created_at FROM timeclock.clock_events
      WHERE user_id = $1 AND voided_at IS NULL AND created_at < $2 ORDER BY created_at DESC, id DESC LIMIT ${EDGE})
     UNION ALL
     (SELECT 'within', id, event_type, created_at FROM timeclock.clock_events
      WHERE user_id = $1 AND voided_at IS NULL AND created_at >= $2 AND created_at <= $3)
     UNION ALL
     (SELECT 'after', id, event_type, created_at FROM timeclock.clock_events
      WHERE user_id = $1 AND voided_at IS NULL AND created_at > $3 ORDER BY created_at, id LIMIT ${EDGE})`,
    [userId, lo, hi],
  );
  type Entry = { id: number | null; type: EventType; at: Date; voided: boolean };
  const seq: Entry[] = [
    ...rows.map((r) => ({ id: Number(r.id), type: r.event_type, at: new Date(r.created_at), voided: voided.has(Number(r.id)) })),
    ...plan.after.map((p) => ({ id: null, type: p.eventType, at: new Date(p.at), voided: false })),
  ].sort((a, b) => a.at.getTime() - b.at.getTime() || (a.id ?? Infinity) - (b.id ?? Infinity));
  // Fewer punches before than fetched: the first one is the worker's first, after "clocked out".
  const first = rows.filter((r) => r.side === 'before').length < EDGE;
  let previous: Entry | null = first ? { id: null, type: 'clock_out', at: new Date(0), voided: false } : null;
  let skipped = false;
  for (const e of seq) {
    if (e.voided) {
      skipped = true;
      continue;
    }
    const virtual = previous !== null && previous.id === null && previous.at.getTime() === 0;
    if (previous && previous.type === e.type && (e.id === null || (previous.id === null && !virtual) || skipped)) {
      throw conflict(virtual ? null : previous, e);
    }
    previous = e;
    skipped = false;
  }
}

/**
 * The refusal: `punch` would follow `previous`, of the same type (`previous` null: a clock-out
 * with no clock-in before it). It names the existing punch of the two.
 */
function conflict(previous: { id: number | null; type: EventType; at: Date } | null, punch: { id: number | null; type: EventType; at: Date }): AppError {
  if (!previous) {
    return new AppError(E.CORRECTION_BREAKS_ORDER, {
      detail: msg('timeclock.corrections.breaksOrderFirst', { at: punch.at.toISOString() }),
      details: { reason: 'no_clock_in_before', conflictingEventId: punch.id, conflictingEventType: punch.id === null ? 'clock_out' : punch.type, conflictingAt: punch.id === null ? null : punch.at.toISOString() },
    });
  }
  const [named, changed] = previous.id !== null ? [previous, punch] : [punch, previous];
  return new AppError(E.CORRECTION_BREAKS_ORDER, {
    detail: msg('timeclock.corrections.breaksOrder', { type: typeName(changed.type), at: changed.at.toISOString(), other: typeName(named.type), otherId: named.id, otherAt: named.at.toISOString() }),
    details: { reason: 'two_in_a_row', conflictingEventId: named.id, conflictingEventType: named.type, conflictingAt: named.at.toISOString() },
  });
}

/** 409 PERIOD_LOCKED when a date the plan touches (display time zone) is in a locked period. */
export async function checkUnlocked(tx: Executor, config: Config, userId: number, plan: Plan): Promise<void> {
  const dates = [...plan.before, ...plan.after].map((p) => localDate(new Date(p.at), config.DISPLAY_TIMEZONE));
  const lock = await lockCovering(tx, userId, dates);
  if (lock) throw periodLocked(lock, 'correction');
}

/** 409 when another request to correct the same punch is pending. */
export async function noOtherPending(tx: Executor, plan: Plan): Promise<void> {
  const [row] = await tx.query<{ id: number | string }>(
    `SELECT id FROM timeclock.corrections WHERE status = 'pending' AND event_id = $1 LIMIT 1`,
    [plan.eventId],
  );
  if (row) {
    throw new AppError(E.CONFLICT, {
      detail: msg('timeclock.corrections.pendingExists', { id: Number(row.id), eventId: plan.eventId }),
      details: { correctionId: Number(row.id), eventId: plan.eventId },
    });
  }
}

/** 404 unless `userId` is a worker (not deleted). */
export async function requireWorker(tx: Executor, userId: number): Promise<void> {
  const [row] = await tx.query(`SELECT 1 FROM timeclock.users WHERE id = $1 AND role = 'worker' AND deleted_at IS NULL`, [userId]);
  if (!row) throw new AppError(E.NOT_FOUND, { detail: msg('timeclock.hours.workerNotFound', { id: userId }), details: { field: 'userId', userId } });
}

async function siteExists(tx: Executor, id: number): Promise<boolean> {
  return (await tx.query('SELECT 1 FROM timeclock.sites WHERE id = $1', [id])).length > 0;
}

/** The site of the worker's session at `at`: their latest effective clock-in at or before it. */
async function sessionSite(tx: Executor, userId: number, at: Date): Promise<number | null> {
  const [row] = await tx.query<{ site_id: number | string | null }>(
    `SELECT site_id FROM timeclock.clock_events WHERE user_id = $1 AND voided_at IS NULL AND event_type = 'clock_in' AND created_at <= $2
     ORDER BY created_at DESC, id DESC LIMIT 1`,
    [userId, at],
  );
  return row?.site_id == null ? null : Number(row.site_id);
}
