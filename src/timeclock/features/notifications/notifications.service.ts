// The signed-in account's notifications (../../kernel/notifications.ts writes them): newest
// first, with the number unread, and marking them read.
import { and, count, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Database } from '../../../platform/db/database.ts';
import { pagedList } from '../../../platform/db/list.ts';
import { notifications } from '../../db/schema.ts';
import type { NotificationKind } from '../../kernel/notifications.ts';

export class NotificationsService {
  private readonly db: Database;
  private readonly list;

  constructor({ db }: { db: Database }) {
    this.db = db;
    this.list = pagedList(db.orm, {
      name: 'tc_notifications',
      rows: (orm) => orm.select().from(notifications).$dynamic(),
      table: notifications,
      filters: {
        user_id: (x) => eq(notifications.userId, x),
        unread: { inline: (unread: boolean) => (unread ? isNull(notifications.readAt) : undefined) },
      },
      sort: { created_at: notifications.createdAt },
      id: notifications.id,
    });
  }

  async page(userId: number, q: { unread?: boolean | undefined; page: number; limit: number }) {
    const [{ rows, total }, [unread]] = await Promise.all([
      this.list.page({ user_id: userId, unread: q.unread }, { page: q.page, page_size: q.limit, order_by: 'created_at:desc' }),
      this.db.orm.select({ n: count() }).from(notifications).where(and(eq(notifications.userId, userId), isNull(notifications.readAt))),
    ]);
    return {
      notifications: rows.map((n) => ({ id: n.id, kind: n.kind as NotificationKind, data: n.data, createdAt: n.createdAt.toISOString(), readAt: n.readAt?.toISOString() ?? null })),
      unreadCount: unread?.n ?? 0,
      totalCount: total,
      currentPage: q.page,
      totalPages: Math.ceil(total / q.limit),
    };
  }

  /** Marks the caller's notifications `ids` (every one when none) read; answers how many were unread. */
  async read(userId: number, ids: number[] | undefined): Promise<{ updated: number }> {
    const rows = await this.db.orm
      .update(notifications)
      .set({ readAt: sql`date_trunc('milliseconds', clock_timestamp())` })
      .where(and(eq(notifications.userId, userId), isNull(notifications.readAt), ids ? inArray(notifications.id, ids) : undefined))
      .returning({ id: notifications.id });
    return { updated: rows.length };
  }
}
