// Online administrators: the live sessions, and ending them by force (kick-out). Sessions
// themselves (opening, ending, invalidation) are the access kernel's (kernel/sessions.ts).
import type { Static } from 'typebox';
import { and, count, desc, eq, gt, ilike, inArray, isNull, or, type SQL } from 'drizzle-orm';
import type { Config } from '../../../platform/config.ts';
import type { Database } from '../../../platform/db/database.ts';
import { contains } from '../../../platform/db/like.ts';
import { p, Params, Statements } from '../../../platform/db/statements.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { formatDisplay } from '../../../platform/time.ts';
import { admins, sessions } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import type { Principal } from '../../kernel/guard.ts';
import type { RbacService } from '../../kernel/rbac.ts';
import type { SessionService } from '../../kernel/sessions.ts';
import type { Notifier } from '../../kernel/notifier.ts';
import type { OnlineQuery, OnlineSession } from './sessions.schema.ts';
import { msg } from '../../../platform/i18n.ts';

export class OnlineAdminsService {
  private readonly db: Database;
  private readonly tz: string;
  private readonly sessions: SessionService;
  private readonly rbac: RbacService;
  private readonly notifications: Notifier;
  private readonly lists = new Statements<ReturnType<OnlineAdminsService['listStatements']>>();
  constructor(deps: { db: Database; config: Config; sessions: SessionService; rbac: RbacService; notifications: Notifier }) {
    this.db = deps.db;
    this.tz = deps.config.DISPLAY_TIMEZONE;
    this.sessions = deps.sessions;
    this.rbac = deps.rbac;
    this.notifications = deps.notifications;
  }

  private liveWhere(extra?: SQL) {
    return and(isNull(sessions.endedAt), gt(sessions.expiresAt, new Date()), extra);
  }

  /** The page and the count of live sessions (placeholder `now`: an ISO time) for the filters set in `params`. */
  private listStatements(params: Params) {
    const filter = and(
      isNull(sessions.endedAt),
      gt(sessions.expiresAt, p('now')),
      params.has('username') ? or(ilike(admins.username, p('username')), ilike(admins.nickname, p('username'))) : undefined,
      params.has('ip') ? ilike(sessions.ip, p('ip')) : undefined,
    );
    return {
      page: this.db.orm
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
        .where(filter)
        .orderBy(desc(sessions.id))
        .limit(p('limit'))
        .offset(p('offset'))
        .prepare('online_page'),
      total: this.db.orm.select({ n: count() }).from(sessions).innerJoin(admins, eq(admins.id, sessions.adminId)).where(filter).prepare('online_count'),
    };
  }

  /** A page of live sessions, newest first; `is_current` marks the caller's own. */
  async list(q: Static<typeof OnlineQuery>, caller: Principal): Promise<{ list: Static<typeof OnlineSession>[]; total: number }> {
    const params = new Params()
      .set('now', new Date().toISOString())
      .set('username', q.username ? contains(q.username) : undefined)
      .set('ip', q.ip ? contains(q.ip) : undefined)
      .set('limit', q.page_size)
      .set('offset', (q.page - 1) * q.page_size);
    const { page, total: totalOf } = this.lists.get(params.key, () => this.listStatements(params));
    const [rows, [total]] = await Promise.all([page.execute(params.values), totalOf.execute(params.values)]);
    const list = rows.map((r) => ({
      ...r,
      login_at: formatDisplay(r.login_at, this.tz)!,
      last_active_at: formatDisplay(r.last_active_at, this.tz)!,
      expires_at: formatDisplay(r.expires_at, this.tz)!,
      is_current: r.token_id === caller.sessionId,
    }));
    return { list, total: total?.n ?? 0 };
  }

  /** Ends live sessions among `ids`; refuses the whole call if one belongs to a protected administrator other than the caller. */
  async kick(caller: Principal, ids: number[]): Promise<{ kicked: number[]; not_found: number[] }> {
    const owners = await this.liveOwners(ids);
    for (const owner of owners) {
      if (owner.adminId !== caller.adminId && (await this.rbac.isProtected(owner.adminId))) {
        throw new AppError(E.ACCESS_DENIED, { detail: msg('admin.sessions.sessionBelongsProtectedAdministrator', { id: owner.id, username: owner.username }) });
      }
    }
    const kicked = await this.sessions.end(owners.map((o) => o.id), 'kicked');
    await this.notifyKicked(caller, owners.filter((o) => kicked.includes(o.id) && o.adminId !== caller.adminId));
    return { kicked, not_found: ids.filter((id) => !kicked.includes(id)) };
  }

  /** Live sessions among `ids`, with who owns them. */
  private async liveOwners(ids: number[]) {
    if (ids.length === 0) return [];
    return this.db.orm
      .select({ id: sessions.id, adminId: sessions.adminId, username: admins.username })
      .from(sessions)
      .innerJoin(admins, eq(admins.id, sessions.adminId))
      .where(this.liveWhere(inArray(sessions.id, ids)));
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
