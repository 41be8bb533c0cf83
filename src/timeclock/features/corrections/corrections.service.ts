// Corrections of punches (issue 30, DESIGN §7.10). A recorded punch is never overwritten:
// - `add` inserts a punch of origin `correction` (or a whole session with `endAt`); `move` voids the punch and inserts its
//   replacement (same type, new time or site, `replaces_id`); `void` voids the punch, or the
//   punch and the other punch of its session (`pairEventId`). A voided punch keeps its row,
//   marked (`voided_at`, `voided_by`), and is out of every total and of the clock's state.
// - Workers request corrections of their own punches (pending until a manager approves or
//   rejects them, or they cancel); managers make corrections directly (approved at once).
// - Applying runs under the worker's state lock (the clock's), checks that the worker's
//   effective punches still alternate around every changed instant (409
//   CORRECTION_BREAKS_ORDER naming the conflicting punch), then sets the state from the latest
//   effective punch. A request is checked when it is made and again when it is approved.
// - Nothing dated inside a locked period is corrected (409 PERIOD_LOCKED).
// - A decision locks the correction's row first: of two concurrent approvals one applies it, the
//   other answers 409 CORRECTION_ALREADY_DECIDED.
// - Each request notifies the managers and queues `correction.requested`; each decision
//   notifies the worker and queues `correction.decided`.
import { eq, inArray, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Config } from '../../../platform/config.ts';
import type { Database, Executor } from '../../../platform/db/database.ts';
import { pagedList } from '../../../platform/db/list.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { msg, type Locale, type Msg } from '../../../platform/i18n.ts';
import type { Caller } from '../../kernel/auth.ts';
import { corrections, sites, users, type PunchValues } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import { notify } from '../../kernel/notifications.ts';
import { lockCovering, periodLocked } from '../../kernel/periods.ts';
import { localDate } from '../../../platform/time.ts';
import { lockState, neighbours, refreshState, type EventType } from '../../kernel/punches.ts';
import { enqueueWebhook } from '../../kernel/webhook-outbox.ts';
import { siteName } from '../../seeds.ts';
import { evidenceFor } from './corrections.evidence.ts';
import type { CorrectionInput, CorrectionT } from './corrections.schema.ts';

type Kind = typeof corrections.$inferSelect.kind;
type Status = typeof corrections.$inferSelect.status;
type Row = typeof corrections.$inferSelect;

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
interface Plan {
  kind: Kind;
  eventId: number | null;
  voids: EventRow[];
  before: PunchValues[];
  after: PunchValues[];
}

const requesters = alias(users, 'requester');
const deciders = alias(users, 'decider');
const person = (p: { id: number | null; username: string | null; fullName: string | null } | null) =>
  p && p.id !== null ? { id: p.id, username: p.username!, fullName: p.fullName! } : null;
const values = (e: EventRow): PunchValues => ({ eventId: Number(e.id), eventType: e.event_type, at: new Date(e.created_at).toISOString(), siteId: e.site_id === null ? null : Number(e.site_id) });
const typeName = (type: EventType) => msg(type === 'clock_in' ? 'timeclock.corrections.clockIn' : 'timeclock.corrections.clockOut');

function invalid(problems: { field: string; message: Msg }[]): AppError {
  const messages = problems.map((p) => p.message);
  return new AppError(E.VALIDATION_ERROR, { detail: messages, details: { field: problems[0]!.field, fields: problems.map((p) => p.field), errors: messages } });
}

export class CorrectionsService {
  private readonly db: Database;
  private readonly config: Config;
  private readonly list;

  constructor({ db, config }: { db: Database; config: Config }) {
    this.db = db;
    this.config = config;
    this.list = pagedList(db.orm, {
      name: 'tc_corrections',
      rows: (orm) =>
        orm
          .select({
            c: corrections,
            worker: { username: users.username, fullName: users.fullName },
            requester: { id: requesters.id, username: requesters.username, fullName: requesters.fullName },
            decider: { id: deciders.id, username: deciders.username, fullName: deciders.fullName },
          })
          .from(corrections)
          .innerJoin(users, eq(users.id, corrections.userId))
          .leftJoin(requesters, eq(requesters.id, corrections.requestedBy))
          .leftJoin(deciders, eq(deciders.id, corrections.decidedBy))
          .$dynamic(),
      table: corrections,
      filters: {
        user_id: (x) => eq(corrections.userId, x),
        kind: (x) => eq(corrections.kind, x),
        status: (x) => eq(corrections.status, x),
        id: (x) => eq(corrections.id, x),
        ids: { param: (ids: number[]) => ids, where: (x) => sql`${corrections.id} = ANY(${x}::bigint[])` },
      },
      sort: { requested_at: corrections.requestedAt },
      id: corrections.id,
    });
  }

  /** A page of corrections, newest first; `userId` limits it to one worker. */
  async page(q: { status: Status | 'all'; userId?: number | undefined; kind?: Kind | undefined; page: number; limit: number }, locale: Locale) {
    const { rows, total } = await this.list.page(
      { user_id: q.userId, kind: q.kind, status: q.status === 'all' ? undefined : q.status },
      { page: q.page, page_size: q.limit, order_by: 'requested_at:desc' },
    );
    return { corrections: await this.views(rows, locale), totalCount: total, currentPage: q.page, totalPages: Math.ceil(total / q.limit) };
  }

  /** One correction with its evidence; 404 when it does not exist or (`userId`) is not that worker's. */
  async detail(id: number, locale: Locale, userId?: number) {
    const view = await this.one(id, locale, userId);
    const [row] = await this.db.orm.select().from(corrections).where(eq(corrections.id, id));
    return { ...view, evidence: await evidenceFor(this.db, row!, locale) };
  }

  /** A worker's request: checked now, pending until a manager decides. */
  async request(caller: Caller, input: CorrectionInput, locale: Locale): Promise<CorrectionT> {
    if (caller.role !== 'worker') throw new AppError(E.FORBIDDEN, { detail: msg('timeclock.corrections.workersOnly') });
    const id = await this.db.transaction(async (tx) => {
      await lockState(tx, caller.userId);
      const plan = await this.plan(tx, caller.userId, input);
      await this.checkUnlocked(tx, caller.userId, plan);
      await this.checkOrder(tx, caller.userId, plan);
      if (plan.eventId !== null) await this.noOtherPending(tx, plan);
      const row = await this.insert(tx, caller.userId, plan, input.reason, 'pending', caller.userId);
      const data = { correctionId: row.id, userId: caller.userId, kind: plan.kind };
      await notify(tx, 'managers', 'correction_requested', data);
      await enqueueWebhook(tx, 'correction.requested', { ...data, reason: row.reason, before: plan.before, after: plan.after, requestedAt: row.requestedAt.toISOString() });
      return row.id;
    });
    return this.one(id, locale);
  }

  /** A manager's correction: applied at once. */
  async make(caller: Caller, input: CorrectionInput & { userId: number }, locale: Locale): Promise<CorrectionT> {
    const id = await this.db.transaction(async (tx) => {
      await this.requireWorker(tx, input.userId);
      await lockState(tx, input.userId);
      const plan = await this.plan(tx, input.userId, input);
      const row = await this.insert(tx, input.userId, plan, input.reason, 'approved', caller.userId);
      await this.apply(tx, row.id, input.userId, plan, caller.userId);
      await this.decided(tx, row.id, input.userId, 'approved', null);
      return row.id;
    });
    return this.one(id, locale);
  }

  /** A manager approves (applies) or rejects a pending request. */
  async decide(id: number, decision: 'approved' | 'rejected', caller: Caller, note: string | undefined, locale: Locale): Promise<CorrectionT> {
    const text = note?.trim() || null;
    await this.db.transaction(async (tx) => {
      const row = await this.pending(tx, id);
      if (decision === 'approved') {
        await lockState(tx, row.userId);
        const plan = await this.plan(tx, row.userId, this.inputOf(row));
        await this.apply(tx, id, row.userId, plan, caller.userId);
      }
      await tx.query(
        `UPDATE timeclock.corrections SET status = $2, decided_by = $3, decided_at = date_trunc('milliseconds', clock_timestamp()), decision_note = $4 WHERE id = $1`,
        [id, decision, caller.userId, text],
      );
      await this.decided(tx, id, row.userId, decision, text);
    });
    return this.one(id, locale);
  }

  /** The worker withdraws their own pending request. */
  async cancel(id: number, caller: Caller, locale: Locale): Promise<CorrectionT> {
    await this.db.transaction(async (tx) => {
      const row = await this.pending(tx, id, caller.userId);
      await tx.query(
        `UPDATE timeclock.corrections SET status = 'cancelled', decided_by = $2, decided_at = date_trunc('milliseconds', clock_timestamp()) WHERE id = $1`,
        [row.id, caller.userId],
      );
    });
    return this.one(id, locale);
  }

  /** A punch's history: the chain of punches it belongs to (moves) and every correction of them. */
  async history(eventId: number, locale: Locale) {
    const chain = await this.db.query<{ id: number | string; user_id: number | string; event_type: EventType; created_at: Date; received_at: Date; voided_at: Date | null; origin: 'punch' | 'correction' | 'auto'; site_name: string | null; site_default: boolean | null }>(
      `WITH RECURSIVE back AS (
         SELECT id, replaces_id FROM timeclock.clock_events WHERE id = $1
         UNION SELECT e.id, e.replaces_id FROM timeclock.clock_events e JOIN back b ON e.id = b.replaces_id
       ), root AS (SELECT id FROM back WHERE replaces_id IS NULL),
       forward AS (
         SELECT id FROM root
         UNION SELECT e.id FROM timeclock.clock_events e JOIN forward f ON e.replaces_id = f.id
       )
       SELECT e.id, e.user_id, e.event_type, e.created_at, e.received_at, e.voided_at, e.origin, s.name AS site_name, s.is_default AS site_default
       FROM timeclock.clock_events e JOIN forward f ON f.id = e.id LEFT JOIN timeclock.sites s ON s.id = e.site_id
       ORDER BY e.received_at, e.id`,
      [eventId],
    );
    const self = chain.find((e) => Number(e.id) === eventId);
    if (!self) throw new AppError(E.NOT_FOUND, { detail: msg('timeclock.corrections.punchNotFound', { id: eventId }), details: { eventId } });
    const ids = chain.map((e) => Number(e.id));
    const touching = await this.db.query<{ id: number | string }>(
      `SELECT DISTINCT c.id FROM timeclock.corrections c
       WHERE c.event_id = ANY($1::bigint[]) OR c.result_id = ANY($1::bigint[])
          OR EXISTS (SELECT 1 FROM jsonb_array_elements(coalesce(c.before, '[]'::jsonb)) b WHERE (b->>'eventId')::bigint = ANY($1::bigint[]))`,
      [ids],
    );
    const rows = touching.length === 0 ? [] : await this.list.all({ ids: touching.map((t) => Number(t.id)) });
    return {
      eventId,
      userId: Number(self.user_id),
      punch: {
        eventType: self.event_type,
        at: new Date(self.created_at).toISOString(),
        siteName: self.site_name === null ? null : siteName(self.site_name, self.site_default ?? false, locale),
        origin: self.origin,
        recordedAt: new Date(self.received_at).toISOString(),
        voidedAt: self.voided_at ? new Date(self.voided_at).toISOString() : null,
      },
      chain: chain.map((e) => ({ eventId: Number(e.id), eventType: e.event_type, at: new Date(e.created_at).toISOString(), voided: e.voided_at !== null })),
      corrections: (await this.views(rows, locale)).sort((a, b) => a.requestedAt.localeCompare(b.requestedAt) || a.id - b.id),
    };
  }

  // ---- checks ----

  /** What `input` would do to the worker's punches now: 400 naming every bad field, 404 or 409 for the punch. */
  private async plan(tx: Executor, userId: number, input: CorrectionInput): Promise<Plan> {
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
      const ahead = this.config.CLOCK_CAPTURE_FUTURE_SECONDS * 1000;
      if (Number.isNaN(at.getTime())) problems.push({ field: 'at', message: msg('timeclock.clock.invalidCapturedAt') });
      else if (at.getTime() > Date.now() + ahead) problems.push({ field: 'at', message: msg('timeclock.corrections.inFuture', { field: 'at' }) });
      // Millisecond precision, as punches are stored.
      else at = new Date(Math.floor(at.getTime()));
    }
    let endAt: Date | null = null;
    if (input.endAt !== undefined) {
      endAt = new Date(input.endAt);
      if (Number.isNaN(endAt.getTime())) problems.push({ field: 'endAt', message: msg('timeclock.clock.invalidCapturedAt') });
      else if (endAt.getTime() > Date.now() + this.config.CLOCK_CAPTURE_FUTURE_SECONDS * 1000) problems.push({ field: 'endAt', message: msg('timeclock.corrections.inFuture', { field: 'endAt' }) });
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
    if (input.siteId !== undefined && !(await this.siteExists(tx, input.siteId))) {
      problems.push({ field: 'siteId', message: msg('timeclock.corrections.siteNotFound', { id: input.siteId }) });
    }
    if (problems.length > 0) throw invalid(problems);

    if (input.kind === 'add') {
      const type = input.eventType!;
      const siteId = input.siteId ?? (await this.sessionSite(tx, userId, at!));
      const after: PunchValues[] = [{ eventId: null, eventType: type, at: at!.toISOString(), siteId }];
      if (endAt) after.push({ eventId: null, eventType: 'clock_out', at: endAt.toISOString(), siteId });
      return { kind: 'add', eventId: null, voids: [], before: [], after };
    }
    const target = await this.event(tx, userId, input.eventId!, 'eventId');
    if (input.kind === 'move') {
      const after: PunchValues = { eventId: null, eventType: target.event_type, at: (at ?? new Date(target.created_at)).toISOString(), siteId: input.siteId ?? (target.site_id === null ? null : Number(target.site_id)) };
      if (after.at === values(target).at && after.siteId === values(target).siteId) throw invalid([{ field: 'at', message: msg('timeclock.corrections.moveNeedsChange', { at: 'at', site: 'siteId' }) }]);
      return { kind: 'move', eventId: Number(target.id), voids: [target], before: [values(target)], after: [after] };
    }
    const voids = [target];
    if (input.pairEventId !== undefined) {
      const pair = await this.event(tx, userId, input.pairEventId, 'pairEventId');
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
  private async event(tx: Executor, userId: number, id: number, field: string): Promise<EventRow> {
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
  private async checkOrder(tx: Executor, userId: number, plan: Plan): Promise<void> {
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
        throw this.conflict(virtual ? null : previous, e);
      }
      previous = e;
      skipped = false;
    }
  }

  /**
   * The refusal: `punch` would follow `previous`, of the same type (`previous` null: a clock-out
   * with no clock-in before it). It names the existing punch of the two.
   */
  private conflict(previous: { id: number | null; type: EventType; at: Date } | null, punch: { id: number | null; type: EventType; at: Date }): AppError {
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
  private async checkUnlocked(tx: Executor, userId: number, plan: Plan): Promise<void> {
    const dates = [...plan.before, ...plan.after].map((p) => localDate(new Date(p.at), this.config.DISPLAY_TIMEZONE));
    const lock = await lockCovering(tx, userId, dates);
    if (lock) throw periodLocked(lock, 'correction');
  }

  private async noOtherPending(tx: Executor, plan: Plan): Promise<void> {
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

  /** The pending correction `id`, its row locked; 404 (or not `userId`'s), 409 once decided. */
  private async pending(tx: Executor, id: number, userId?: number): Promise<Row> {
    const [row] = await tx.orm.select().from(corrections).where(eq(corrections.id, id)).for('update');
    if (!row || (userId !== undefined && row.userId !== userId)) {
      throw new AppError(E.NOT_FOUND, { detail: msg('timeclock.corrections.notFound', { id }), details: { id } });
    }
    if (row.status !== 'pending') {
      throw new AppError(E.CORRECTION_ALREADY_DECIDED, {
        detail: msg('timeclock.corrections.alreadyDecided', { id, status: row.status }),
        details: { id, status: row.status, decidedAt: row.decidedAt?.toISOString() ?? null, decidedBy: row.decidedBy },
      });
    }
    return row;
  }

  /** The request a stored correction came from (checked again when it is approved). */
  private inputOf(row: Row): CorrectionInput {
    const after = row.after?.[0];
    const pair = row.kind === 'void' ? row.before?.find((b) => b.eventId !== row.eventId) : undefined;
    return {
      kind: row.kind,
      reason: row.reason,
      ...(row.eventId !== null ? { eventId: row.eventId } : {}),
      ...(pair?.eventId ? { pairEventId: pair.eventId } : {}),
      ...(row.kind === 'add' && after ? { eventType: after.eventType, at: after.at, ...(after.siteId !== null ? { siteId: after.siteId } : {}) } : {}),
      ...(row.kind === 'add' && row.after?.[1] ? { endAt: row.after[1].at } : {}),
      ...(row.kind === 'move' && after ? { at: after.at, ...(after.siteId !== null ? { siteId: after.siteId } : {}) } : {}),
    };
  }

  private async requireWorker(tx: Executor, userId: number): Promise<void> {
    const [row] = await tx.query(`SELECT 1 FROM timeclock.users WHERE id = $1 AND role = 'worker' AND deleted_at IS NULL`, [userId]);
    if (!row) throw new AppError(E.NOT_FOUND, { detail: msg('timeclock.hours.workerNotFound', { id: userId }), details: { field: 'userId', userId } });
  }

  private async siteExists(tx: Executor, id: number): Promise<boolean> {
    return (await tx.query('SELECT 1 FROM timeclock.sites WHERE id = $1', [id])).length > 0;
  }

  /** The site of the worker's session at `at`: their latest effective clock-in at or before it. */
  private async sessionSite(tx: Executor, userId: number, at: Date): Promise<number | null> {
    const [row] = await tx.query<{ site_id: number | string | null }>(
      `SELECT site_id FROM timeclock.clock_events WHERE user_id = $1 AND voided_at IS NULL AND event_type = 'clock_in' AND created_at <= $2
       ORDER BY created_at DESC, id DESC LIMIT 1`,
      [userId, at],
    );
    return row?.site_id == null ? null : Number(row.site_id);
  }

  // ---- writes ----

  private async insert(tx: Executor, userId: number, plan: Plan, reason: string, status: Status, by: number): Promise<Row> {
    const [row] = await tx.orm.insert(corrections).values({
      userId, kind: plan.kind, eventId: plan.eventId, before: plan.before, after: plan.after, reason: reason.trim(), status, requestedBy: by,
      ...(status === 'approved' ? { decidedBy: by, decidedAt: new Date() } : {}),
    }).returning();
    return row!;
  }

  /** Voids and inserts what the plan says, after checking the order; sets the worker's state. */
  private async apply(tx: Executor, correctionId: number, userId: number, plan: Plan, by: number): Promise<void> {
    await this.checkUnlocked(tx, userId, plan);
    await this.checkOrder(tx, userId, plan);
    for (const v of plan.voids) {
      await tx.query(`UPDATE timeclock.clock_events SET voided_at = date_trunc('milliseconds', clock_timestamp()), voided_by = $2 WHERE id = $1`, [v.id, correctionId]);
    }
    const moved = plan.kind === 'move' ? plan.voids[0]! : null;
    for (const [i, p] of plan.after.entries()) {
      const sameSite = moved !== null && moved.site_id !== null && Number(moved.site_id) === p.siteId;
      const [row] = await tx.query<{ id: number | string }>(
        `INSERT INTO timeclock.clock_events (user_id, event_type, qr_code_id, site_id, latitude, longitude, forced, created_at, received_at,
           recorded_by, origin, correction_id, replaces_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, date_trunc('milliseconds', clock_timestamp()), $9, 'correction', $10, $11) RETURNING id`,
        [userId, p.eventType, sameSite ? moved.qr_code_id : null, p.siteId, moved?.latitude ?? null, moved?.longitude ?? null, moved?.forced ?? false,
          p.at, by, correctionId, moved?.id ?? null],
      );
      plan.after[i] = { ...p, eventId: Number(row!.id) };
    }
    // The punches as they were when it was applied, and the ids of those it inserted.
    await tx.orm.update(corrections).set({ before: plan.before, after: plan.after, resultId: plan.after[0]?.eventId ?? null }).where(eq(corrections.id, correctionId));
    await refreshState(tx, userId);
  }

  /** Tells the worker and the integrations how a correction was decided. */
  private async decided(tx: Executor, id: number, userId: number, status: 'approved' | 'rejected', note: string | null): Promise<void> {
    await notify(tx, [userId], 'correction_decided', { correctionId: id, status, note });
    const [row] = await tx.orm.select().from(corrections).where(eq(corrections.id, id));
    await enqueueWebhook(tx, 'correction.decided', {
      correctionId: id, userId, kind: row!.kind, status, note, before: row!.before, after: row!.after, decidedBy: row!.decidedBy, decidedAt: row!.decidedAt?.toISOString() ?? null,
    });
  }

  // ---- reads ----

  /** One correction; 404 when it does not exist or (`userId`) is not that worker's. */
  async one(id: number, locale: Locale, userId?: number): Promise<CorrectionT> {
    const rows = await this.list.all({ id });
    if (rows.length === 0 || (userId !== undefined && rows[0]!.c.userId !== userId)) {
      throw new AppError(E.NOT_FOUND, { detail: msg('timeclock.corrections.notFound', { id }), details: { id } });
    }
    return (await this.views(rows, locale))[0]!;
  }

  private async views(rows: Awaited<ReturnType<CorrectionsService['list']['all']>>, locale: Locale): Promise<CorrectionT[]> {
    const siteIds = new Set<number>();
    for (const { c } of rows) for (const p of [...(c.before ?? []), ...(c.after ?? [])]) if (p.siteId !== null) siteIds.add(p.siteId);
    const names = new Map<number, string>();
    if (siteIds.size > 0) {
      for (const s of await this.db.orm.select({ id: sites.id, name: sites.name, isDefault: sites.isDefault }).from(sites).where(inArray(sites.id, [...siteIds]))) {
        names.set(s.id, siteName(s.name, s.isDefault, locale));
      }
    }
    const punch = (p: PunchValues) => ({ ...p, siteName: p.siteId === null ? null : names.get(p.siteId) ?? null });
    return rows.map(({ c, worker, requester, decider }) => ({
      id: c.id,
      userId: c.userId,
      username: worker.username,
      fullName: worker.fullName,
      kind: c.kind,
      status: c.status,
      eventId: c.eventId,
      before: (c.before ?? []).map(punch),
      after: (c.after ?? []).map(punch),
      reason: c.reason,
      requestedAt: c.requestedAt.toISOString(),
      requestedBy: person(requester),
      decidedAt: c.decidedAt?.toISOString() ?? null,
      decidedBy: person(decider),
      decisionNote: c.decisionNote,
    }));
  }
}
