// Reads of clock events: a worker's history, the late punches managers review, and the review.
// Built with the query builder, once per filter shape.
import { and, count, desc, eq, gte, isNotNull, isNull, lte, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Static } from 'typebox';
import type { Database } from '../../../platform/db/database.ts';
import { p, Params, Statements } from '../../../platform/db/statements.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { msg, type Locale } from '../../../platform/i18n.ts';
import { clockEvents, qrCodes, sites, users } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import { siteName } from '../../seeds.ts';
import type { HistoryItem, HistoryQuery, LatePunch, LatePunchList, LatePunchQuery } from './clock.schema.ts';
import { FORCE_CLOCK_OUT } from './clock.service.ts';

export class ClockHistory {
  private readonly db: Database;
  private readonly liveWorker;
  private readonly histories = new Statements<ReturnType<ClockHistory['historyStatements']>>();
  private readonly lateLists = new Statements<ReturnType<ClockHistory['lateStatements']>>();
  constructor({ db }: { db: Database }) {
    this.db = db;
    this.liveWorker = db.orm
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.id, p('user_id')), eq(users.role, 'worker'), isNull(users.deletedAt)))
      .prepare('tc_clock_live_worker');
  }

  /** Clock history, newest first, optionally within [from, to], paged. */
  async history(userId: number, q: Static<typeof HistoryQuery>, locale: Locale): Promise<{ total: number; events: Static<typeof HistoryItem>[] }> {
    const from = q.from === undefined ? null : new Date(q.from);
    const to = q.to === undefined ? null : new Date(q.to);
    if (from && to && from > to) throw new AppError(E.VALIDATION_ERROR, { detail: msg('timeclock.clock.fromMustNotAfter'), details: { field: 'from' } });
    const [user] = await this.liveWorker.execute({ user_id: userId });
    if (!user) throw new AppError(E.NOT_FOUND, { detail: msg('timeclock.clock.workerNotFound', { userId }), details: { userId } });
    // A placeholder is not encoded by its column: instants go as ISO text.
    const params = new Params()
      .set('user_id', userId)
      .set('from', from?.toISOString())
      .set('to', to?.toISOString())
      .set('limit', q.limit)
      .set('offset', (q.page - 1) * q.limit);
    const statements = this.histories.get(params.key, () => this.historyStatements(params));
    const [counted] = await statements.total.execute(params.values);
    const rows = await statements.page.execute(params.values);
    return {
      total: counted?.n ?? 0,
      events: rows.map(({ event: e, qrName, site }) => ({
        id: e.id,
        event_type: e.eventType,
        timestamp: e.createdAt.toISOString(),
        qrCodeUsedName: qrName ?? FORCE_CLOCK_OUT,
        siteName: site && siteName(site.name, site.isDefault, locale),
        forced: e.forced,
        notes: e.notes,
        capturedAt: e.capturedAt?.toISOString() ?? null,
        receivedAt: e.receivedAt.toISOString(),
        late: e.late,
        clientEventId: e.clientEventId,
      })),
    };
  }

  private historyStatements(params: Params) {
    const where = and(
      eq(clockEvents.userId, p('user_id')),
      params.has('from') ? gte(clockEvents.createdAt, p('from')) : undefined,
      params.has('to') ? lte(clockEvents.createdAt, p('to')) : undefined,
    );
    return {
      total: this.db.orm.select({ n: count() }).from(clockEvents).where(where).prepare('tc_history_count'),
      page: this.db.orm
        .select({ event: clockEvents, qrName: qrCodes.name, site: { name: sites.name, isDefault: sites.isDefault } })
        .from(clockEvents)
        .leftJoin(qrCodes, eq(qrCodes.id, clockEvents.qrCodeId))
        .leftJoin(sites, eq(sites.id, clockEvents.siteId))
        .where(where)
        .orderBy(desc(clockEvents.createdAt), desc(clockEvents.id))
        .limit(p('limit'))
        .offset(p('offset'))
        .prepare('tc_history_page'),
    };
  }

  private lateStatements(q: Static<typeof LatePunchQuery>, params: Params) {
    const where = and(
      eq(clockEvents.late, true),
      q.reviewed === undefined ? undefined : q.reviewed ? isNotNull(clockEvents.reviewedAt) : isNull(clockEvents.reviewedAt),
      params.has('user_id') ? eq(clockEvents.userId, p('user_id')) : undefined,
    );
    return {
      total: this.db.orm.select({ n: count() }).from(clockEvents).where(where).prepare('tc_late_count'),
      page: this.selectLate()
        .where(where)
        .orderBy(desc(clockEvents.receivedAt), desc(clockEvents.id))
        .limit(p('limit'))
        .offset(p('offset'))
        .prepare('tc_late_page'),
    };
  }

  /** Late punches across workers, newest receipt first, optionally only (not) reviewed or one worker's. */
  async latePunches(q: Static<typeof LatePunchQuery>): Promise<Static<typeof LatePunchList>> {
    const params = new Params()
      .shape(`reviewed:${q.reviewed ?? ''}`)
      .set('user_id', q.userId)
      .set('limit', q.limit)
      .set('offset', (q.page - 1) * q.limit);
    const statements = this.lateLists.get(params.key, () => this.lateStatements(q, params));
    const [counted] = await statements.total.execute(params.values);
    const rows = await statements.page.execute(params.values);
    const total = counted?.n ?? 0;
    return { punches: rows.map(lateView), totalCount: total, currentPage: q.page, totalPages: Math.ceil(total / q.limit) };
  }

  /** Marks a late punch reviewed by `managerId` (the first review is kept); 404 for an event that is not a late punch. */
  async review(eventId: number, managerId: number): Promise<Static<typeof LatePunch>> {
    await this.db.orm
      .update(clockEvents)
      .set({ reviewedAt: sql`now()`, reviewedBy: managerId })
      .where(and(eq(clockEvents.id, eventId), eq(clockEvents.late, true), isNull(clockEvents.reviewedAt)));
    const [row] = await this.selectLate().where(and(eq(clockEvents.id, eventId), eq(clockEvents.late, true)));
    if (!row) throw new AppError(E.NOT_FOUND, { detail: msg('timeclock.clock.noLatePunch', { eventId }), details: { id: eventId } });
    return lateView(row);
  }

  /** Late punches with their worker, QR code and reviewer. */
  private selectLate() {
    return this.db.orm
      .select({ event: clockEvents, username: users.username, fullName: users.fullName, qrName: qrCodes.name, reviewer: { id: reviewers.id, username: reviewers.username } })
      .from(clockEvents)
      .innerJoin(users, eq(users.id, clockEvents.userId))
      .leftJoin(qrCodes, eq(qrCodes.id, clockEvents.qrCodeId))
      .leftJoin(reviewers, eq(reviewers.id, clockEvents.reviewedBy));
  }
}

const reviewers = alias(users, 'reviewer');

const lateView = (r: {
  event: typeof clockEvents.$inferSelect; username: string; fullName: string; qrName: string | null; reviewer: { id: number; username: string } | null;
}): Static<typeof LatePunch> => {
  const e = r.event;
  return {
    id: e.id,
    user_id: e.userId,
    username: r.username,
    full_name: r.fullName,
    event_type: e.eventType,
    timestamp: e.createdAt.toISOString(),
    capturedAt: e.capturedAt?.toISOString() ?? null,
    receivedAt: e.receivedAt.toISOString(),
    delaySeconds: Math.floor((e.receivedAt.getTime() - e.createdAt.getTime()) / 1000),
    qrCodeUsedName: r.qrName ?? FORCE_CLOCK_OUT,
    forced: e.forced,
    notes: e.notes,
    location: { latitude: e.latitude, longitude: e.longitude },
    clientEventId: e.clientEventId,
    implausibleGap: e.implausibleGap,
    reviewedAt: e.reviewedAt?.toISOString() ?? null,
    reviewedBy: r.reviewer,
  };
};
