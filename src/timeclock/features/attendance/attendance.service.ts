// The automatic clock-outs managers review (the sweep, ./attendance.sweep.ts, writes them): a
// page of them, newest first, and the review. A review only says a manager looked at it; to
// change its time they correct it (corrections). Beside them, the sessions still open past the
// work rules' `longSessionMinutes`, oldest first, which the summary counts.
import { and, count, eq, isNotNull, isNull, sql, type Placeholder } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Database } from '../../../platform/db/database.ts';
import { pagedList } from '../../../platform/db/list.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { msg, type Locale } from '../../../platform/i18n.ts';
import { clockEvents, lastPositions, securityAlerts, sites, users, workerState } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import { insideFence } from '../../kernel/geofence.ts';
import { siteName } from '../../seeds.ts';

const reviewers = alias(users, 'reviewer');

export class AttendanceService {
  private readonly db: Database;
  private readonly list;
  private readonly longOpen;

  constructor({ db }: { db: Database }) {
    this.db = db;
    this.list = pagedList(db.orm, {
      name: 'tc_auto_clock_outs',
      rows: (orm) =>
        orm
          .select({
            e: { id: clockEvents.id, userId: clockEvents.userId, at: clockEvents.createdAt, voidedAt: clockEvents.voidedAt, reviewedAt: clockEvents.reviewedAt },
            worker: { username: users.username, fullName: users.fullName },
            site: { name: sites.name, isDefault: sites.isDefault },
            reviewer: { id: reviewers.id, username: reviewers.username },
            // The sweep's alert says which session it closed and why.
            alert: securityAlerts.details,
          })
          .from(clockEvents)
          .innerJoin(users, eq(users.id, clockEvents.userId))
          .leftJoin(sites, eq(sites.id, clockEvents.siteId))
          .leftJoin(reviewers, eq(reviewers.id, clockEvents.reviewedBy))
          .leftJoin(securityAlerts, and(eq(securityAlerts.alertType, 'missed_clock_out'), sql`(${securityAlerts.details}->>'eventId')::bigint = ${clockEvents.id}`))
          .$dynamic(),
      table: clockEvents,
      always: eq(clockEvents.origin, 'auto'),
      filters: {
        reviewed: { inline: (reviewed: boolean) => (reviewed ? isNotNull(clockEvents.reviewedAt) : isNull(clockEvents.reviewedAt)) },
        id: (x) => eq(clockEvents.id, x),
      },
      sort: { created_at: clockEvents.createdAt },
      id: clockEvents.id,
    });
    // The rule of the summary's `long_open` count, so that the list and the badge agree: a worker
    // whose state is clock_in by a clock-in older than the threshold. The rest is by primary key
    // (the board's reads: the site, the newest position).
    const longOpenSince = (x: Placeholder) => sql`${clockEvents.createdAt} < now() - make_interval(mins => ${x}::int)`;
    this.longOpen = pagedList(db.orm, {
      name: 'tc_long_open_sessions',
      rows: (orm) =>
        orm
          .select({
            userId: workerState.userId,
            username: users.username,
            fullName: users.fullName,
            eventId: clockEvents.id,
            since: clockEvents.createdAt,
            siteId: clockEvents.siteId,
            site: { name: sites.name, isDefault: sites.isDefault, fence: sites.fence },
            position: { latitude: lastPositions.latitude, longitude: lastPositions.longitude, recordedAt: lastPositions.recordedAt },
            minutesOpen: sql<number>`floor(extract(epoch FROM now() - ${clockEvents.createdAt}) / 60)::int`.mapWith(Number),
          })
          .from(workerState)
          .innerJoin(clockEvents, eq(clockEvents.id, workerState.lastEventId))
          .innerJoin(users, eq(users.id, workerState.userId))
          .leftJoin(sites, eq(sites.id, clockEvents.siteId))
          .leftJoin(lastPositions, eq(lastPositions.userId, workerState.userId))
          .$dynamic(),
      table: workerState,
      // The threshold is on the clock-in, so the count joins it too.
      count: (orm, where) => orm.select({ n: count() }).from(workerState).innerJoin(clockEvents, eq(clockEvents.id, workerState.lastEventId)).where(where()),
      always: eq(workerState.state, 'clock_in'),
      filters: { longerThan: longOpenSince },
      sort: { since: clockEvents.createdAt },
      id: workerState.userId,
    });
  }

  async page(q: { reviewed?: boolean | undefined; page: number; limit: number }, locale: Locale) {
    const { rows, total } = await this.list.page({ reviewed: q.reviewed }, { page: q.page, page_size: q.limit, order_by: 'created_at:desc' });
    return { autoClockOuts: rows.map((r) => this.view(r, locale)), totalCount: total, currentPage: q.page, totalPages: Math.ceil(total / q.limit) };
  }

  /** A page of the sessions open longer than `longSessionMinutes`, oldest first (the summary's `longOpenSessions`, listed). */
  async openSessions(q: { page: number; limit: number }, longSessionMinutes: number, locale: Locale) {
    const { rows, total } = await this.longOpen.page({ longerThan: longSessionMinutes }, { page: q.page, page_size: q.limit, order_by: 'since:asc' });
    const openSessions = rows.map((r) => {
      const pos = r.position;
      return {
        userId: r.userId,
        username: r.username,
        fullName: r.fullName,
        clockInEventId: r.eventId,
        since: r.since.toISOString(),
        site: r.siteId === null || !r.site ? null : { id: r.siteId, name: siteName(r.site.name, r.site.isDefault, locale) },
        minutesOpen: r.minutesOpen,
        lastPositionAt: pos?.recordedAt.toISOString() ?? null,
        withinGeofence: pos && r.site?.fence ? insideFence(r.site.fence, pos).inside : null,
      };
    });
    return { openSessions, totalCount: total, currentPage: q.page, totalPages: Math.ceil(total / q.limit), longSessionMinutes };
  }

  /** What waits in the exceptions inbox, counted (the inbox's badges). */
  async summary(longSessionMinutes: number) {
    const [row] = await this.db.query<{ pending: number; autos: number; long_open: number; short_rest: number }>(
      `SELECT (SELECT count(*)::int FROM timeclock.corrections WHERE status = 'pending') AS pending,
              (SELECT count(*)::int FROM timeclock.clock_events WHERE origin = 'auto' AND reviewed_at IS NULL AND voided_at IS NULL) AS autos,
              (SELECT count(*)::int FROM timeclock.worker_state w JOIN timeclock.clock_events e ON e.id = w.last_event_id
               WHERE w.state = 'clock_in' AND e.created_at < now() - make_interval(mins => $1::int)) AS long_open,
              (SELECT count(*)::int FROM timeclock.security_alerts WHERE alert_type = 'short_rest' AND status = 'open') AS short_rest`,
      [longSessionMinutes],
    );
    return { pendingCorrections: row!.pending, autoClockOutsToReview: row!.autos, longOpenSessions: row!.long_open, shortRestAlerts: row!.short_rest };
  }

  /** Marks the automatic clock-out `id` reviewed by `managerId` (the first review is kept); 404 for any other punch. */
  async review(id: number, managerId: number, locale: Locale) {
    await this.db.orm
      .update(clockEvents)
      .set({ reviewedAt: sql`now()`, reviewedBy: managerId })
      .where(and(eq(clockEvents.id, id), eq(clockEvents.origin, 'auto'), isNull(clockEvents.reviewedAt)));
    const [row] = await this.list.all({ id });
    if (!row) throw new AppError(E.NOT_FOUND, { detail: msg('timeclock.attendance.noAutoClockOut', { id }), details: { id } });
    return this.view(row, locale);
  }

  private view(r: Awaited<ReturnType<AttendanceService['list']['all']>>[number], locale: Locale) {
    const alert = (r.alert ?? {}) as { sessionStart?: string; basis?: 'left_fence' | 'limit' };
    return {
      id: r.e.id,
      userId: r.e.userId,
      username: r.worker.username,
      fullName: r.worker.fullName,
      sessionStart: alert.sessionStart ?? null,
      at: r.e.at.toISOString(),
      basis: alert.basis ?? 'limit',
      siteName: r.site ? siteName(r.site.name, r.site.isDefault, locale) : null,
      voided: r.e.voidedAt !== null,
      reviewedAt: r.e.reviewedAt?.toISOString() ?? null,
      reviewedBy: r.reviewer,
    };
  }
}
