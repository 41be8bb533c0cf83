// Reads of clock events: a worker's history, the late punches managers review, and the review.
// Built with the query builder, once per filter shape.
import { and, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Static } from 'typebox';
import type { Database, Orm } from '../../../platform/db/database.ts';
import { atOrAfter, atOrBefore, pagedList } from '../../../platform/db/list.ts';
import { p } from '../../../platform/db/statements.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { msg, type Locale } from '../../../platform/i18n.ts';
import { clockEvents, qrCodes, sites, users } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import { siteName } from '../../seeds.ts';
import type { HistoryItem, HistoryQuery, LatePunch, LatePunchList, LatePunchQuery } from './clock.schema.ts';
import { FORCE_CLOCK_OUT } from './clock.service.ts';

/** `qrCodeUsedName` of a punch a correction added (or moved to another site): it scanned no code. */
const CORRECTION = 'CORRECTION';

export class ClockHistory {
  private readonly db: Database;
  private readonly liveWorker;
  private readonly historyList;
  private readonly lateList;
  constructor({ db }: { db: Database }) {
    this.db = db;
    this.historyList = pagedList(db.orm, {
      name: 'tc_history',
      rows: (orm) =>
        orm
          .select({ event: clockEvents, qrName: qrCodes.name, site: { name: sites.name, isDefault: sites.isDefault } })
          .from(clockEvents)
          .leftJoin(qrCodes, eq(qrCodes.id, clockEvents.qrCodeId))
          .leftJoin(sites, eq(sites.id, clockEvents.siteId))
          .$dynamic(),
      table: clockEvents,
      filters: { user_id: (x) => eq(clockEvents.userId, x), from: atOrAfter(clockEvents.createdAt), to: atOrBefore(clockEvents.createdAt) },
      sort: { created_at: clockEvents.createdAt },
      id: clockEvents.id,
    });
    this.lateList = pagedList(db.orm, {
      name: 'tc_late',
      rows: (orm) => selectLate(orm).$dynamic(),
      table: clockEvents,
      always: eq(clockEvents.late, true),
      filters: {
        reviewed: { inline: (reviewed: boolean) => (reviewed ? isNotNull(clockEvents.reviewedAt) : isNull(clockEvents.reviewedAt)) },
        user_id: (x) => eq(clockEvents.userId, x),
      },
      sort: { received_at: clockEvents.receivedAt },
      id: clockEvents.id,
    });
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
    if (from && to && from > to) throw new AppError(E.VALIDATION_ERROR, { detail: msg('timeclock.clock.rangeReversed'), details: { field: 'from' } });
    const [user] = await this.liveWorker.execute({ user_id: userId });
    if (!user) throw new AppError(E.NOT_FOUND, { detail: msg('timeclock.clock.workerNotFound', { userId }), details: { userId } });
    const { rows, total } = await this.historyList.page({ user_id: userId, from, to }, { page: q.page, page_size: q.limit, order_by: 'created_at:desc' });
    return {
      total,
      events: rows.map(({ event: e, qrName, site }) => ({
        id: e.id,
        event_type: e.eventType,
        timestamp: e.createdAt.toISOString(),
        qrCodeUsedName: qrName ?? (e.origin === 'correction' ? CORRECTION : FORCE_CLOCK_OUT),
        siteName: site && siteName(site.name, site.isDefault, locale),
        forced: e.forced,
        notes: e.notes,
        capturedAt: e.capturedAt?.toISOString() ?? null,
        receivedAt: e.receivedAt.toISOString(),
        late: e.late,
        clientEventId: e.clientEventId,
        origin: e.origin,
        voided: e.voidedAt !== null,
        correctionId: e.correctionId ?? e.voidedBy,
      })),
    };
  }

  /** Late punches across workers, newest receipt first, optionally only (not) reviewed or one worker's. */
  async latePunches(q: Static<typeof LatePunchQuery>): Promise<Static<typeof LatePunchList>> {
    const { rows, total } = await this.lateList.page({ reviewed: q.reviewed, user_id: q.userId }, { page: q.page, page_size: q.limit, order_by: 'received_at:desc' });
    return { punches: rows.map(lateView), totalCount: total, currentPage: q.page, totalPages: Math.ceil(total / q.limit) };
  }

  /** Marks a late punch reviewed by `managerId` (the first review is kept); 404 for an event that is not a late punch. */
  async review(eventId: number, managerId: number): Promise<Static<typeof LatePunch>> {
    await this.db.orm
      .update(clockEvents)
      .set({ reviewedAt: sql`now()`, reviewedBy: managerId })
      .where(and(eq(clockEvents.id, eventId), eq(clockEvents.late, true), isNull(clockEvents.reviewedAt)));
    const [row] = await selectLate(this.db.orm).where(and(eq(clockEvents.id, eventId), eq(clockEvents.late, true)));
    if (!row) throw new AppError(E.NOT_FOUND, { detail: msg('timeclock.clock.noLatePunch', { eventId }), details: { id: eventId } });
    return lateView(row);
  }

}

const reviewers = alias(users, 'reviewer');

/** Late punches with their worker, QR code and reviewer. */
function selectLate(orm: Orm) {
  return orm
    .select({ event: clockEvents, username: users.username, fullName: users.fullName, qrName: qrCodes.name, reviewer: { id: reviewers.id, username: reviewers.username } })
    .from(clockEvents)
    .innerJoin(users, eq(users.id, clockEvents.userId))
    .leftJoin(qrCodes, eq(qrCodes.id, clockEvents.qrCodeId))
    .leftJoin(reviewers, eq(reviewers.id, clockEvents.reviewedBy));
}

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
    // A late punch came from the clock, which records a position (clock_events_position_check).
    location: { latitude: e.latitude!, longitude: e.longitude! },
    clientEventId: e.clientEventId,
    implausibleGap: e.implausibleGap,
    reviewedAt: e.reviewedAt?.toISOString() ?? null,
    reviewedBy: r.reviewer,
  };
};
