// Administrator sessions (part of the access kernel): one row per login (its id is the
// contract's `token_id`). Ending a session writes the row and tells every instance at once, so
// its token is refused everywhere.
import { randomBytes } from 'node:crypto';
import { and, eq, gt, inArray, isNull, ne } from 'drizzle-orm';
import { expiryIn, type JwtCodec } from '../../platform/auth/jwt.ts';
import type { PubSub } from '../../platform/cache/pubsub.ts';
import type { Config } from '../../platform/config.ts';
import type { Database, Executor, Orm } from '../../platform/db/database.ts';
import { p } from '../../platform/db/statements.ts';
import { admins, sessions } from '../db/schema.ts';

export const AUTH_CHANNEL = 'admin.auth';

/** Published on AUTH_CHANNEL: drop cached sessions / administrators from every instance. */
export interface AuthInvalidation {
  sessions?: number[];
  admins?: number[];
  /**
   * What `admins`' roles grant changed (their roles, or the permissions, menus or status of one
   * of their roles): their open notification sockets are told to read their menus again.
   */
  grants?: boolean;
}

export interface AdminTokenClaims {
  sid: number;
  uid: number;
  jti: string;
}

const newJti = () => randomBytes(16).toString('base64url');

export type EndReason = 'logout' | 'kicked' | 'password_changed' | 'disabled' | 'deleted' | 'password_reset' | 'security';

/**
 * Ends every live session of an administrator (but `keepSessionId`) and returns their ids. The
 * caller publishes them on AUTH_CHANNEL once `db`'s transaction commits (SessionService.publish,
 * or the pub/sub itself where no service runs, as in the command-line tools).
 */
export async function endSessionsOf(db: Executor, adminId: number, reason: EndReason, keepSessionId?: number): Promise<number[]> {
  const where = and(eq(sessions.adminId, adminId), isNull(sessions.endedAt), keepSessionId ? ne(sessions.id, keepSessionId) : undefined);
  const ended = await db.orm.update(sessions).set({ endedAt: new Date(), endReason: reason }).where(where).returning({ id: sessions.id });
  return ended.map((r) => r.id);
}

/** The session `id` and its administrator, as the guard needs them. */
const lookupOf = (orm: Orm) =>
  orm
    .select({
      adminId: sessions.adminId,
      jti: sessions.tokenJti,
      expiresAt: sessions.expiresAt,
      endedAt: sessions.endedAt,
      lastActiveAt: sessions.lastActiveAt,
      username: admins.username,
      status: admins.status,
    })
    .from(sessions)
    .innerJoin(admins, eq(admins.id, sessions.adminId))
    .where(eq(sessions.id, p('id')))
    .prepare('session_lookup');

export class SessionService {
  private readonly db: Database;
  private readonly pubsub: PubSub;
  private readonly jwt: JwtCodec<AdminTokenClaims>;
  private readonly ttlSeconds: number;
  private readonly lookupOf: ReturnType<typeof lookupOf>;
  constructor(deps: { db: Database; pubsub: PubSub; config: Config; jwt: JwtCodec<AdminTokenClaims> }) {
    this.db = deps.db;
    this.pubsub = deps.pubsub;
    this.jwt = deps.jwt;
    this.ttlSeconds = deps.config.ADMIN_TOKEN_TTL;
    this.lookupOf = lookupOf(this.db.orm);
  }

  /**
   * Opens a session for a successful login. One statement writes the session, the
   * administrator's last login and the login-log row, so they exist together or not at all.
   * It commits without waiting for the WAL flush (synchronous_commit off for this statement
   * only): a crash of PostgreSQL itself can lose the last fraction of a second of sign-ins,
   * whose tokens then fail and whose users sign in again; nothing else is relaxed.
   */
  async openForLogin(admin: { id: number; username: string }, ip: string, userAgent: string) {
    const jti = newJti();
    const expiresAt = expiryIn(this.ttlSeconds);
    const ua = userAgent.slice(0, 512);
    const [row] = await this.db.query<{ id: number }>(
      `WITH c AS (SELECT set_config('synchronous_commit', 'off', true)), s AS (
         INSERT INTO admin.sessions (admin_id, token_jti, ip, user_agent, expires_at) VALUES ($1, $2, $3, $4, $5) RETURNING id
       ), a AS (
         UPDATE admin.admins SET last_login_at = now(), last_login_ip = $3 WHERE id = $1
       ), l AS (
         INSERT INTO admin.login_logs (admin_id, username, ip, user_agent, status, reason) VALUES ($1, $6, $3, $4, 1, 'success')
       )
       SELECT id FROM s, c`,
      [admin.id, jti, ip, ua, expiresAt, admin.username.slice(0, 64)],
    );
    const token = this.jwt.sign({ sid: row!.id, uid: admin.id, jti }, expiresAt);
    return { sessionId: row!.id, token, expiresAt };
  }

  /** New token for a live session; the previous token stops working. */
  async rotate(sessionId: number, adminId: number) {
    const jti = newJti();
    const expiresAt = expiryIn(this.ttlSeconds);
    const token = this.jwt.sign({ sid: sessionId, uid: adminId, jti }, expiresAt);
    const updated = await this.db.orm
      .update(sessions)
      .set({ tokenJti: jti, expiresAt, lastActiveAt: new Date() })
      .where(and(eq(sessions.id, sessionId), isNull(sessions.endedAt), gt(sessions.expiresAt, new Date())))
      .returning({ id: sessions.id });
    if (updated.length === 0) return null;
    await this.publish({ sessions: [sessionId] });
    return { token, expiresAt };
  }

  /**
   * Ends the given live sessions; returns the ids that were live. Inside a caller's
   * transaction (`tx`) nothing is published: the caller publishes after it commits.
   */
  async end(ids: number[], reason: EndReason, tx?: Executor): Promise<number[]> {
    if (ids.length === 0) return [];
    const ended = await (tx ?? this.db).orm
      .update(sessions)
      .set({ endedAt: new Date(), endReason: reason })
      .where(and(inArray(sessions.id, ids), isNull(sessions.endedAt)))
      .returning({ id: sessions.id });
    if (!tx) await this.publish({ sessions: ids });
    return ended.map((r) => r.id);
  }

  /** Ends every live session of an administrator, optionally keeping one (see `end` on `tx`). */
  async endAllOf(adminId: number, reason: EndReason, keepSessionId?: number, tx?: Executor): Promise<number[]> {
    const ended = await endSessionsOf(tx ?? this.db, adminId, reason, keepSessionId);
    if (!tx) await this.publish({ admins: [adminId], sessions: ended });
    return ended;
  }

  private readonly localListeners: ((m: AuthInvalidation) => void)[] = [];

  /** Called synchronously on this instance before the message goes to the others. */
  onInvalidate(listener: (m: AuthInvalidation) => void) {
    this.localListeners.push(listener);
  }

  async publish(message: AuthInvalidation) {
    for (const listener of this.localListeners) listener(message);
    await this.pubsub.publish(AUTH_CHANNEL, message);
  }

  /** The session and its administrator, as the guard needs them. */
  async lookup(sessionId: number) {
    const [row] = await this.lookupOf.execute({ id: sessionId });
    return row;
  }

  async touch(sessionId: number) {
    await this.db.orm.update(sessions).set({ lastActiveAt: new Date() }).where(eq(sessions.id, sessionId));
  }
}
