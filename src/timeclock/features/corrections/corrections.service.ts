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
//   What a correction would do (its plan) and those checks are ./corrections.plan.ts; this
//   file keeps the requests, the decisions, the writes and the reads of corrections.
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
import { msg, type Locale } from '../../../platform/i18n.ts';
import type { Caller } from '../../kernel/auth.ts';
import { corrections, sites, users, type PunchValues } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import { notify } from '../../kernel/notifications.ts';
import { lockState, refreshState, type EventType } from '../../kernel/punches.ts';
import { enqueueWebhook } from '../../kernel/webhook-outbox.ts';
import { siteName } from '../../seeds.ts';
import { evidenceFor } from './corrections.evidence.ts';
import { checkOrder, checkUnlocked, noOtherPending, planCorrection, requireWorker, type Plan } from './corrections.plan.ts';
import type { CorrectionInput, CorrectionT } from './corrections.schema.ts';

type Kind = typeof corrections.$inferSelect.kind;
type Status = typeof corrections.$inferSelect.status;
type Row = typeof corrections.$inferSelect;

const requesters = alias(users, 'requester');
const deciders = alias(users, 'decider');
const person = (p: { id: number | null; username: string | null; fullName: string | null } | null) =>
  p && p.id !== null ? { id: p.id, username: p.username!, fullName: p.fullName! } : null;

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
      const plan = await planCorrection(tx, this.config, caller.userId, input);
      await checkUnlocked(tx, this.config, caller.userId, plan);
      await checkOrder(tx, caller.userId, plan);
      if (plan.eventId !== null) await noOtherPending(tx, plan);
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
      await requireWorker(tx, input.userId);
      await lockState(tx, input.userId);
      const plan = await planCorrection(tx, this.config, input.userId, input);
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
        const plan = await planCorrection(tx, this.config, row.userId, this.inputOf(row));
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

  // ---- the pending correction ----

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
    await checkUnlocked(tx, this.config, userId, plan);
    await checkOrder(tx, userId, plan);
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
