// Notifications of administrators: one message row and one receipt (read state) per
// recipient, written in one statement, then published on NOTIFY_CHANNEL so that every
// instance pushes it to the open sockets of its recipients (notifications.push.ts).
//
// `send` is the one entry point: the POST /notifications route calls it, and so do features
// reporting system events (export finished, session kicked out, password reset, import
// finished) through `notify`, which never throws (a failed notification must not fail the
// operation that caused it).
//
// A system notification's title and content are messages (`Msg`: a key and its values),
// stored in that form and rendered in each reader's language when read (the list, the bell,
// the push); the title and content columns keep the English text. What an administrator
// writes is stored and shown as written.
import { and, eq, inArray, isNotNull, isNull, sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Static } from 'typebox';
import type { PubSub } from '../../../platform/cache/pubsub.ts';
import type { Database, Executor, Orm } from '../../../platform/db/database.ts';
import { pgArray } from '../../../platform/db/copy.ts';
import { pagedList } from '../../../platform/db/list.ts';
import { p } from '../../../platform/db/statements.ts';
import { AppError, InvalidInput } from '../../../platform/http/errors.ts';
import { admins, notificationRecipients, notifications, roles } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import { inScope, type DataScope } from '../../kernel/data-scope.ts';
import type { NewNotification, NotificationKind, Notifier } from '../../kernel/notifier.ts';
import type { NotificationListQuery, NotificationRecord } from './notifications.schema.ts';
import { Msg, msg, translate, type Locale } from '../../../platform/i18n.ts';

export const NOTIFY_CHANNEL = 'admin.notifications';
export const TITLE_MAX = 200;
export const CONTENT_MAX = 5000;

/** A notification as one reader sees it: the contract's message plus its additive fields. */
export interface NotificationView {
  id: number;
  title: string;
  content: string;
  /** ISO 8601 UTC. */
  created_at: string;
  kind: NotificationKind;
  /** The API path it points at (an export's download), null when none. */
  link: string | null;
  /** ISO 8601 UTC: when `link` stops working; null when it does not expire or there is none. */
  link_expires_at: string | null;
  /** The administrator who sent it, and their name: null for a system notification, or once the sender was deleted. */
  sender_id: number | null;
  sender_name: string | null;
}

type Additive = 'kind' | 'link' | 'link_expires_at' | 'sender_id' | 'sender_name';

/**
 * A notification as stored and published: `title` and `content` in English, and the messages of
 * a system notification (the additive fields may be missing from a message an older instance published).
 */
export interface NotificationMessage extends Omit<NotificationView, Additive>, Partial<Pick<NotificationView, Additive>> {
  /** A system notification's messages in stored form (`Msg.toJSON`); absent or null: the text as written. */
  title_msg?: unknown;
  content_msg?: unknown;
}

/** The notification in the reader's language (the stored messages rendered; literal text as it is). */
export function viewOf(n: NotificationMessage, locale: Locale): NotificationView {
  return {
    id: n.id,
    title: rendered(n.title_msg, n.title, locale, TITLE_MAX),
    content: rendered(n.content_msg, n.content, locale, CONTENT_MAX),
    created_at: n.created_at,
    kind: n.kind ?? 'message',
    link: n.link ?? null,
    link_expires_at: n.link_expires_at ?? null,
    sender_id: n.sender_id ?? null,
    sender_name: n.sender_name ?? null,
  };
}

function rendered(stored: unknown, text: string, locale: Locale, max: number): string {
  const m = stored === null || stored === undefined ? undefined : Msg.fromJSON(stored);
  return m ? cut(translate(m, locale), max) : text;
}

/** Who receives a notification: chosen administrators, the enabled members of a role, or every enabled administrator. */
export type Audience = { adminIds: readonly number[] } | { roleId: number } | { everyone: true };

export interface SentNotification extends NotificationView {
  recipients: number;
}

/**
 * Published on NOTIFY_CHANNEL: the notification and its recipients (`all`: every socket). A
 * message without `n` (too large for the pub/sub transport, e.g. PostgreSQL NOTIFY's 8000
 * bytes) is read back from the database by the receiving instance; long recipient lists are
 * split over several messages.
 */
export interface PushMessage {
  id: number;
  to: number[] | 'all';
  n?: NotificationMessage;
}

/** A notification as one recipient sees it: the message and the receipt's read state. */
type MessageRow = Pick<typeof notifications.$inferSelect, 'id' | 'title' | 'content' | 'kind' | 'createdAt' | 'titleMsg' | 'contentMsg' | 'link' | 'linkExpiresAt' | 'senderId'>
  & { senderName: string | null };
type RecordRow = MessageRow & Pick<typeof notificationRecipients.$inferSelect, 'readAt'>;

const MESSAGE_COLUMNS = {
  id: notifications.id,
  title: notifications.title,
  content: notifications.content,
  kind: notifications.kind,
  createdAt: notifications.createdAt,
  titleMsg: notifications.titleMsg,
  contentMsg: notifications.contentMsg,
  link: notifications.link,
  linkExpiresAt: notifications.linkExpiresAt,
  senderId: notifications.senderId,
  // The sender's nickname, or the username when it is empty (a LEFT JOIN of admin.admins on the sender).
  senderName: sql<string | null>`coalesce(nullif(${admins.nickname}, ''), ${admins.username})`,
};
const RECORD_COLUMNS = { ...MESSAGE_COLUMNS, readAt: notificationRecipients.readAt };

const messageOfRow = (r: MessageRow): NotificationMessage => ({
  id: r.id,
  title: r.title,
  content: r.content,
  created_at: r.createdAt.toISOString(),
  kind: r.kind as NotificationKind,
  link: r.link,
  link_expires_at: r.linkExpiresAt === null ? null : r.linkExpiresAt.toISOString(),
  sender_id: r.senderId,
  sender_name: r.senderName,
  title_msg: r.titleMsg,
  content_msg: r.contentMsg,
});

const toRecord = (r: RecordRow, locale: Locale): Static<typeof NotificationRecord> => ({
  ...viewOf(messageOfRow(r), locale),
  is_read: r.readAt !== null,
  read_at: r.readAt === null ? null : r.readAt.toISOString(),
});

/** Rolls the transaction back when nobody would receive the notification. */
class NoRecipients extends Error {}

/**
 * An administrator's notifications (filter `admin_id`, always given), read or unread ones
 * (`is_read`); the count statement also counts the unread ones of all of them.
 */
const inboxList = (orm: Orm) => {
  const r = notificationRecipients;
  return pagedList(orm, {
    name: 'notifications',
    rows: (orm) => orm.select(RECORD_COLUMNS).from(r).innerJoin(notifications, eq(notifications.id, r.notificationId))
      .leftJoin(admins, eq(admins.id, notifications.senderId)).$dynamic(),
    table: r,
    filters: {
      admin_id: (x) => eq(r.adminId, x),
      is_read: { inline: (v: '0' | '1') => (v === '1' ? isNotNull(r.readAt) : isNull(r.readAt)) },
    },
    count: (orm, where) => orm.select({
      n: sql<number>`count(*) FILTER (WHERE ${where('is_read') ?? sql`true`})::int`,
      unread: sql<number>`count(*) FILTER (WHERE ${isNull(r.readAt)})::int`,
    }).from(r).where(where('admin_id')),
    sort: { id: r.notificationId, created_at: notifications.createdAt },
    id: r.notificationId,
  });
};

/** A notification's message (placeholder `id`). */
const messageOf = (orm: Orm) =>
  orm.select(MESSAGE_COLUMNS)
    .from(notifications).leftJoin(admins, eq(admins.id, notifications.senderId)).where(eq(notifications.id, p('id'))).prepare('notification_message');

export class NotificationsService implements Notifier {
  private readonly db: Database;
  private readonly pubsub: PubSub;
  private readonly logger: Logger;
  private readonly inbox: ReturnType<typeof inboxList>;
  private readonly messageOf: ReturnType<typeof messageOf>;

  constructor(deps: { db: Database; pubsub: PubSub; logger: Logger }) {
    this.db = deps.db;
    this.pubsub = deps.pubsub;
    this.logger = deps.logger;
    this.messageOf = messageOf(this.db.orm);
    this.inbox = inboxList(this.db.orm);
  }

  /**
   * Stores a notification for its audience (one transaction) and pushes it to every open
   * socket of its recipients on every instance. Unknown administrators or role: 400 (30001);
   * an audience with nobody in it: 400 (40001).
   */
  /**
   * Sends to `audience` within the sender's data scope (`scope`): administrators outside it are
   * unknown, and a role or everyone means their members within it.
   */
  async send(audience: Audience, message: NewNotification, scope: DataScope): Promise<SentNotification> {
    const sent = await this.store(audience, message, true, scope);
    return sent!;
  }

  /**
   * For system events: like `send` to existing administrators among `adminIds`, but never
   * throws (failures are logged) and sends nothing when none of them exists.
   */
  async notify(adminIds: number | readonly number[], message: NewNotification): Promise<SentNotification | null> {
    const ids = typeof adminIds === 'number' ? [adminIds] : adminIds;
    if (ids.length === 0) return null;
    try {
      return await this.store({ adminIds: ids }, message, false);
    } catch (err) {
      this.logger.error({ err, kind: message.kind }, 'a system notification could not be sent');
      return null;
    }
  }

  private async store(audience: Audience, message: NewNotification, strict: boolean, scope?: DataScope): Promise<SentNotification | null> {
    const restricted = scope !== undefined && !scope.all;
    const everyone = 'everyone' in audience && !restricted;
    // Messages are stored as keys and values, with their English text beside them.
    const text = (m: string | Msg, max: number) => (m instanceof Msg ? cut(translate(m, 'en-US'), max) : m);
    const stored = (m: string | Msg) => (m instanceof Msg ? JSON.stringify(m) : null);
    const title = text(message.title, TITLE_MAX);
    const content = text(message.content, CONTENT_MAX);
    const kind = message.kind ?? 'message';
    const link = message.link ?? null;
    const linkExpiresAt = message.linkExpiresAt ?? null;
    let row: { id: number; created_at: Date; ids: number[] | null; n: number; sender_name: string | null };
    try {
      row = await this.db.transaction(async (tx) => {
        const [audienceSql, params] = await this.audienceSql(tx, audience, strict, restricted ? scope : undefined);
        const recipients = restricted
          ? `SELECT x.id FROM (${audienceSql}) x JOIN admin.admins s ON s.id = x.id WHERE s.department_id = ANY($${9 + params.length}::bigint[]) OR s.id = $${10 + params.length}`
          : audienceSql;
        if (restricted) params.push(pgArray(scope.departments), scope.adminId);
        // Raw: the message and its receipts are written by one statement (a CTE write).
        const [inserted] = await tx.query<{ id: number; created_at: Date; ids: number[] | null; n: number; sender_name: string | null }>(
          `WITH n AS (
             INSERT INTO admin.notifications (title, content, kind, sender_id, title_msg, content_msg, link, link_expires_at)
             VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7, $8) RETURNING id, created_at
           ), r AS (
             INSERT INTO admin.notification_recipients (admin_id, notification_id)
             SELECT a.id, n.id FROM n CROSS JOIN (${recipients}) a
             RETURNING admin_id
           )
           SELECT n.id, n.created_at, (SELECT count(*)::int FROM r) AS n,
                  ${everyone ? 'NULL::json' : "(SELECT coalesce(json_agg(admin_id), '[]'::json) FROM r)"} AS ids,
                  (SELECT coalesce(nullif(s.nickname, ''), s.username) FROM admin.admins s WHERE s.id = $4) AS sender_name
           FROM n`,
          [title, content, kind, message.senderId ?? null, stored(message.title), stored(message.content), link, linkExpiresAt, ...params],
        );
        if (!inserted || inserted.n === 0) throw new NoRecipients();
        return inserted;
      });
    } catch (err) {
      if (!(err instanceof NoRecipients)) throw err;
      if (strict) throw new AppError(E.OPERATION_FAILED, { detail: msg('admin.notifications.emptyAudience') });
      return null;
    }
    const notification: NotificationMessage = {
      id: row.id,
      title,
      content,
      created_at: row.created_at.toISOString(),
      kind,
      link,
      link_expires_at: linkExpiresAt === null ? null : linkExpiresAt.toISOString(),
      sender_id: message.senderId ?? null,
      sender_name: row.sender_name,
      ...(message.title instanceof Msg ? { title_msg: message.title.toJSON() } : {}),
      ...(message.content instanceof Msg ? { content_msg: message.content.toJSON() } : {}),
    };
    await this.publish(notification, everyone ? 'all' : (row.ids ?? []));
    return { ...viewOf(notification, 'en-US'), recipients: row.n };
  }

  /**
   * The recipients' SELECT (one column `id`) and its parameters, numbered from $9; given ids
   * outside `scope` (when given) are unknown.
   */
  private async audienceSql(tx: Executor, audience: Audience, strict: boolean, scope?: DataScope): Promise<[string, unknown[]]> {
    if ('adminIds' in audience) {
      const ids = [...new Set(audience.adminIds)];
      if (strict) {
        const found = new Set((await tx.orm.select({ id: admins.id }).from(admins)
          .where(and(inArray(admins.id, ids), scope && inScope(scope, admins.departmentId, admins.id)))).map((r) => r.id));
        const unknown = ids.filter((id) => !found.has(id));
        if (unknown.length > 0) throw new InvalidInput(msg('admin.notifications.unknownAdministrators', { unknown }), 'admin_ids');
      }
      return ['SELECT id FROM admin.admins WHERE id = ANY($9::bigint[])', [ids]];
    }
    if ('roleId' in audience) {
      if (strict) {
        const [role] = await tx.orm.select({ id: roles.id }).from(roles).where(eq(roles.id, audience.roleId));
        if (!role) throw new InvalidInput(msg('admin.notifications.unknownRole', { roleId: audience.roleId }), 'role_id');
      }
      return [
        `SELECT a.id FROM admin.admins a JOIN admin.admin_roles ar ON ar.admin_id = a.id WHERE ar.role_id = $9 AND a.status = 1`,
        [audience.roleId],
      ];
    }
    return ['SELECT id FROM admin.admins WHERE status = 1', []];
  }

  /**
   * Publishes a stored notification to every instance. Failures are logged, not thrown: the
   * notification is stored and listed either way.
   */
  async publish(n: NotificationMessage, to: number[] | 'all'): Promise<void> {
    if (to !== 'all' && to.length === 0) return;
    // PostgreSQL NOTIFY carries at most 8000 bytes; Redis has no practical limit.
    const budget = this.pubsub.kind === 'postgres' ? 7900 : 256 * 1024;
    const payloadBytes = Buffer.byteLength(JSON.stringify(n));
    const inline = payloadBytes <= budget / 2;
    const base = { id: n.id, ...(inline ? { n } : {}) };
    const messages: PushMessage[] = [];
    if (to === 'all') {
      messages.push({ ...base, to });
    } else {
      // An id is at most 16 digits plus a comma.
      const perMessage = Math.max(1, Math.floor((budget - (inline ? payloadBytes : 0) - 100) / 17));
      for (let i = 0; i < to.length; i += perMessage) messages.push({ ...base, to: to.slice(i, i + perMessage) });
    }
    try {
      for (const m of messages) await this.pubsub.publish(NOTIFY_CHANNEL, m);
    } catch (err) {
      this.logger.error({ err, notification: n.id }, 'publishing a notification failed; it is stored but was not pushed');
    }
  }

  /** A notification's message, for an instance that received it by reference. */
  async message(id: number): Promise<NotificationMessage | undefined> {
    const [row] = await this.messageOf.execute({ id });
    return row ? messageOfRow(row) : undefined;
  }

  /** One page of an administrator's notifications (in `locale`), the filtered total and the unread count. */
  async list(adminId: number, q: Static<typeof NotificationListQuery>, locale: Locale) {
    const { rows, total, unread } = await this.inbox.page({ admin_id: adminId, is_read: q.is_read }, q);
    return { list: rows.map((r) => toRecord(r, locale)), total, unread };
  }

  /** Marks one of the administrator's notifications read (kept from the first time); 404 when it is not theirs. */
  async markRead(adminId: number, id: number, locale: Locale): Promise<Static<typeof NotificationRecord>> {
    // Raw: the receipt is updated and the message read in one statement (a CTE write).
    const [row] = await this.db.query<RecordRow>(
      `WITH u AS (
         UPDATE admin.notification_recipients SET read_at = coalesce(read_at, now())
         WHERE admin_id = $1 AND notification_id = $2
         RETURNING notification_id, read_at
       )
       SELECT n.id, n.title, n.content, n.kind, n.created_at AS "createdAt", n.title_msg AS "titleMsg", n.content_msg AS "contentMsg",
              n.link, n.link_expires_at AS "linkExpiresAt", n.sender_id AS "senderId",
              coalesce(nullif(s.nickname, ''), s.username) AS "senderName", u.read_at AS "readAt"
       FROM u JOIN admin.notifications n ON n.id = u.notification_id LEFT JOIN admin.admins s ON s.id = n.sender_id`,
      [adminId, id],
    );
    if (!row) throw new AppError(E.DATA_NOT_FOUND, { detail: msg('admin.notifications.notificationNotFound', { id }) });
    return toRecord(row, locale);
  }

  /** Marks every unread notification of the administrator read; how many were unread. */
  async markAllRead(adminId: number): Promise<number> {
    const marked = await this.db.orm.update(notificationRecipients).set({ readAt: sql`now()` })
      .where(and(eq(notificationRecipients.adminId, adminId), isNull(notificationRecipients.readAt)))
      .returning({ id: notificationRecipients.notificationId });
    return marked.length;
  }
}

function cut(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}
