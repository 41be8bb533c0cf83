// Online administrators: the live sessions, and ending them by force (kick-out). Sessions
// themselves (opening, ending, invalidation) are the access kernel's (kernel/sessions.ts).
import type { Static } from 'typebox';
import { and, count, eq, gt, ilike, inArray, isNull, or, type SQL } from 'drizzle-orm';
import type { Config } from '../../../platform/config.ts';
import type { Database, Orm } from '../../../platform/db/database.ts';
import { contains } from '../../../platform/db/like.ts';
import { pagedList } from '../../../platform/db/list.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { formatDisplay } from '../../../platform/time.ts';
import { admins, sessions } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import { inScope, scopeFilter } from '../../kernel/data-scope.ts';
import type { Principal } from '../../kernel/guard.ts';
import type { RbacService } from '../../kernel/rbac.ts';
import type { Sessions } from '../../kernel/sessions.ts';
import type { Notifier } from '../../kernel/notifier.ts';
import type { OnlineQuery, OnlineSession } from './sessions.schema.ts';
import { msg } from '../../../platform/i18n.ts';

/** The live sessions (not ended, not expired at `now`), newest first. */
const onlineList = (orm: Orm) =>
  pagedList(orm, {
    name: 'online',
    rows: (orm) =>
      orm
        .select({
          token_id: sessions.id,
          admin_id: sessions.adminId,
          username: admins.username,
          nickname: admins.nickname,
          ip: sessions.ip,
          user_agent: sessions.userAgent,
          login_at: sessions.createdAt,
          last_active_at: sessions.lastActiveAt,
          expires_at: sessions.expiresAt,
        })
        .from(sessions)
        .innerJoin(admins, eq(admins.id, sessions.adminId))
        .$dynamic(),
    table: sessions,
    count: (orm, where) => orm.select({ n: count() }).from(sessions).innerJoin(admins, eq(admins.id, sessions.adminId)).where(where()),
    always: isNull(sessions.endedAt),
    filters: {
      now: { param: (at: Date) => at.toISOString(), where: (x) => gt(sessions.expiresAt, x) },
      username: { param: contains, where: (x) => or(ilike(admins.username, x), ilike(admins.nickname, x)) },
      ip: { param: contains, where: (x) => ilike(sessions.ip, x) },
      // The caller's data scope: the session's administrator (their department now).
      scope: scopeFilter(admins.departmentId, admins.id),
    },
    sort: { id: sessions.id },
    id: sessions.id,
  });

export class SessionsService {
  private readonly db: Database;
  private readonly tz: string;
  private readonly sessions: Sessions;
  private readonly rbac: RbacService;
  private readonly notifications: Notifier;
  private readonly online: ReturnType<typeof onlineList>;
  constructor(deps: { db: Database; config: Config; sessions: Sessions; rbac: RbacService; notifications: Notifier }) {
    this.db = deps.db;
    this.tz = deps.config.DISPLAY_TIMEZONE;
    this.sessions = deps.sessions;
    this.rbac = deps.rbac;
    this.notifications = deps.notifications;
    this.online = onlineList(this.db.orm);
  }

  private liveWhere(extra?: SQL) {
    return and(isNull(sessions.endedAt), gt(sessions.expiresAt, new Date()), extra);
  }

  /** A page of live sessions, newest first; `is_current` marks the caller's own. */
  async list(q: Static<typeof OnlineQuery>, caller: Principal): Promise<{ list: Static<typeof OnlineSession>[]; total: number }> {
    const { rows, total } = await this.online.page({ ...q, now: new Date(), scope: caller.scope }, { ...q, order_by: 'id:desc' });
    const list = rows.map((r) => ({
      ...r,
      login_at: formatDisplay(r.login_at, this.tz)!,
      last_active_at: formatDisplay(r.last_active_at, this.tz)!,
      expires_at: formatDisplay(r.expires_at, this.tz)!,
      is_current: r.token_id === caller.sessionId,
    }));
    return { list, total };
  }

  /**
   * Ends live sessions among `ids` (those outside the caller's data scope are not found);
   * refuses the whole call if one belongs to a protected administrator other than the caller.
   */
  async kick(caller: Principal, ids: number[]): Promise<{ kicked: number[]; not_found: number[] }> {
    const owners = await this.liveOwners(caller, ids);
    for (const owner of owners) {
      if (owner.adminId !== caller.adminId && (await this.rbac.isProtected(owner.adminId))) {
        throw new AppError(E.ACCESS_DENIED, { detail: msg('admin.sessions.protectedSession', { id: owner.id, username: owner.username }) });
      }
    }
    const kicked = await this.sessions.end(owners.map((o) => o.id), 'kicked');
    await this.notifyKicked(caller, owners.filter((o) => kicked.includes(o.id) && o.adminId !== caller.adminId));
    return { kicked, not_found: ids.filter((id) => !kicked.includes(id)) };
  }

  /** A session as the operation log keeps its state (kernel/audit.ts): whose, from where, and whether and why it ended; null when unknown. */
  async auditRecord(id: number): Promise<Record<string, unknown> | null> {
    const [row] = await this.db.orm
      .select({ id: sessions.id, admin_id: sessions.adminId, username: admins.username, ip: sessions.ip, user_agent: sessions.userAgent, login_at: sessions.createdAt, ended_at: sessions.endedAt, end_reason: sessions.endReason })
      .from(sessions)
      .innerJoin(admins, eq(admins.id, sessions.adminId))
      .where(eq(sessions.id, id));
    return row ? { ...row, login_at: formatDisplay(row.login_at, this.tz), ended_at: formatDisplay(row.ended_at, this.tz) } : null;
  }

  /** Live sessions among `ids` in the caller's data scope, with who owns them. */
  private async liveOwners(caller: Principal, ids: number[]) {
    if (ids.length === 0) return [];
    return this.db.orm
      .select({ id: sessions.id, adminId: sessions.adminId, username: admins.username })
      .from(sessions)
      .innerJoin(admins, eq(admins.id, sessions.adminId))
      .where(this.liveWhere(and(inArray(sessions.id, ids), inScope(caller.scope, admins.departmentId, admins.id))));
  }

  /** Each administrator whose sessions someone else ended is told so (one notification each). */
  private async notifyKicked(caller: Principal, owners: { id: number; adminId: number }[]) {
    const byAdmin = Map.groupBy(owners, (o) => o.adminId);
    for (const [adminId, ended] of byAdmin) {
      const ids = ended.map((o) => o.id).join(', ');
      await this.notifications.notify(adminId, {
        kind: 'session',
        title: msg('admin.notifications.system.kickedTitle'),
        content: msg(ended.length > 1 ? 'admin.notifications.system.kickedMany' : 'admin.notifications.system.kickedOne', { username: caller.username, ids }),
      });
    }
  }
}
