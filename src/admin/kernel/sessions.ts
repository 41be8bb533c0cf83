// Administrator sessions (part of the access kernel): one row per login (its id is the
// contract's `token_id`). Ending a session writes the row and tells every instance at once, so
// its token is refused everywhere.
import { randomBytes } from 'node:crypto';
import { and, eq, gt, inArray, isNull, ne } from 'drizzle-orm';
import { expiryIn, type JwtCodec } from '../../platform/auth/jwt.ts';
import { passwordChangeDue, type PasswordPolicies } from '../../platform/auth/password-policy.ts';
import type { PubSub } from '../../platform/cache/pubsub.ts';
import type { Config } from '../../platform/config.ts';
import type { Database, Executor, Orm } from '../../platform/db/database.ts';
import { p } from '../../platform/db/statements.ts';
import type { IpLocation } from '../../platform/geo/ip-location.ts';
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
  /** Every cached session (a department moved: the data scopes that reach below one change). */
  everyone?: boolean;
}

export interface AdminTokenClaims {
  sid: number;
  uid: number;
  jti: string;
}

/**
 * The web console's refresh credential (an HttpOnly cookie, see platform/http/refresh-cookie.ts):
 * the session and its current token id, signed with a key of its own (so it is never accepted as
 * a bearer token, nor a bearer token as it). It is good while its session is live and its token
 * id is the session's current one: every refresh rotates both, and a session that ends (logout,
 * kick-out, password change, a disabled account) takes its cookie with it.
 */
export interface AdminRefreshClaims {
  sid: number;
  jti: string;
}

export const ADMIN_REFRESH_COOKIE = { name: 'fieldops_admin_refresh', path: '/api/admin/refresh-token' } as const;

/** A token, its expiry and the matching refresh credential. */
export interface IssuedToken {
  token: string;
  expiresAt: Date;
  refresh: string;
  /** The session is good only for binding an authenticator (a role of the administrator requires one). */
  bindingOnly: boolean;
  /** The administrator must choose a new password first (someone else set it, or it expired): the session is good only for that. */
  mustChangePassword: boolean;
}

/** How a sign-in went, as the session's login-log row says: `recovery_code` when a recovery code stood in for the authenticator code. */
export type LoginSuccess = 'success' | 'recovery_code';

const newJti = () => randomBytes(16).toString('base64url');

export type EndReason = 'logout' | 'kicked' | 'password_changed' | 'disabled' | 'deleted' | 'password_reset' | 'security';

/**
 * Ends every live session of an administrator (but `keepSessionId`) and returns their ids. The
 * caller publishes them on AUTH_CHANNEL once `db`'s transaction commits (Sessions.publish,
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
      bindingOnly: sessions.bindingOnly,
      mustChangePassword: admins.mustChangePassword,
      passwordChangedAt: admins.passwordChangedAt,
    })
    .from(sessions)
    .innerJoin(admins, eq(admins.id, sessions.adminId))
    .where(eq(sessions.id, p('id')))
    .prepare('session_lookup');

export class Sessions {
  private readonly db: Database;
  private readonly pubsub: PubSub;
  private readonly jwt: JwtCodec<AdminTokenClaims>;
  private readonly refreshJwt: JwtCodec<AdminRefreshClaims>;
  private readonly ttlSeconds: number;
  private readonly lookupOf: ReturnType<typeof lookupOf>;
  private readonly policies: PasswordPolicies;
  constructor(deps: {
    db: Database; pubsub: PubSub; config: Config; jwt: JwtCodec<AdminTokenClaims>; refreshJwt: JwtCodec<AdminRefreshClaims>; policies: PasswordPolicies;
  }) {
    this.db = deps.db;
    this.policies = deps.policies;
    this.pubsub = deps.pubsub;
    this.jwt = deps.jwt;
    this.refreshJwt = deps.refreshJwt;
    this.ttlSeconds = deps.config.ADMIN_TOKEN_TTL;
    this.lookupOf = lookupOf(this.db.orm);
  }

  /**
   * Opens a session for a successful login. One statement writes the session, the
   * administrator's last login and the login-log row (with where `ip` is, `location`), so they
   * exist together or not at all; `logId` is the row's.
   * It commits without waiting for the WAL flush (synchronous_commit off for this statement
   * only): a crash of PostgreSQL itself can lose the last fraction of a second of sign-ins,
   * whose tokens then fail and whose users sign in again; nothing else is relaxed.
   */
  async openForLogin(
    admin: { id: number; username: string },
    ip: string,
    userAgent: string,
    opts: { bindingOnly?: boolean; mustChangePassword?: boolean; reason?: LoginSuccess; location?: IpLocation } = {},
  ): Promise<IssuedToken & { sessionId: number; logId: number }> {
    const jti = newJti();
    const expiresAt = expiryIn(this.ttlSeconds);
    const ua = userAgent.slice(0, 512);
    const bindingOnly = opts.bindingOnly ?? false;
    const location = opts.location ?? { kind: 'unknown', country: '', city: '' };
    const [row] = await this.db.query<{ id: number; logId: number }>(
      `WITH c AS (SELECT set_config('synchronous_commit', 'off', true)), s AS (
         INSERT INTO admin.sessions (admin_id, token_jti, ip, user_agent, expires_at, binding_only) VALUES ($1, $2, $3, $4, $5, $7) RETURNING id
       ), a AS (
         UPDATE admin.admins SET last_login_at = now(), last_login_ip = $3 WHERE id = $1
       ), l AS (
         INSERT INTO admin.login_logs (admin_id, username, ip, user_agent, status, reason, location_kind, country, city)
         VALUES ($1, $6, $3, $4, 1, $8, $9, $10, $11) RETURNING id
       )
       SELECT s.id, l.id AS "logId" FROM s, c, l`,
      [admin.id, jti, ip, ua, expiresAt, admin.username.slice(0, 64), bindingOnly, opts.reason ?? 'success', location.kind, location.country, location.city],
    );
    return { sessionId: row!.id, logId: row!.logId, ...this.issue(row!.id, admin.id, jti, expiresAt, bindingOnly, opts.mustChangePassword ?? false) };
  }

  private issue(sid: number, uid: number, jti: string, expiresAt: Date, bindingOnly: boolean, mustChangePassword: boolean): IssuedToken {
    return {
      token: this.jwt.sign({ sid, uid, jti }, expiresAt), expiresAt, refresh: this.refreshJwt.sign({ sid, jti }, expiresAt), bindingOnly, mustChangePassword,
    };
  }

  /**
   * Whether the administrator of a looked-up session must choose a new password before anything
   * else: someone else set it, or it is older than the policy allows. Read with the session (not
   * fixed at sign-in), so a change of password opens the session at once, and a password that
   * expires restricts the sessions open at the time too.
   */
  async passwordDue(row: { mustChangePassword: boolean; passwordChangedAt: Date }): Promise<boolean> {
    return passwordChangeDue(await this.policies.current(), { mustChange: row.mustChangePassword, changedAt: row.passwordChangedAt });
  }

  /** Turns a session opened for binding an authenticator only into an ordinary one (on `tx`; the caller publishes). */
  async openFully(sessionId: number, tx: Executor): Promise<void> {
    await tx.orm.update(sessions).set({ bindingOnly: false }).where(and(eq(sessions.id, sessionId), eq(sessions.bindingOnly, true)));
  }

  /**
   * New token for a live session; the previous token (and refresh credential) stops working.
   * With `expectJti`, only if that is still the session's token id (a refresh credential used
   * twice rotates once). `mustChangePassword` says what the reply says of the session (passwordDue).
   */
  async rotate(sessionId: number, adminId: number, mustChangePassword: boolean, expectJti?: string): Promise<IssuedToken | null> {
    const jti = newJti();
    const expiresAt = expiryIn(this.ttlSeconds);
    const updated = await this.db.orm
      .update(sessions)
      .set({ tokenJti: jti, expiresAt, lastActiveAt: new Date() })
      .where(and(
        eq(sessions.id, sessionId),
        isNull(sessions.endedAt),
        gt(sessions.expiresAt, new Date()),
        expectJti === undefined ? undefined : eq(sessions.tokenJti, expectJti),
      ))
      .returning({ id: sessions.id, bindingOnly: sessions.bindingOnly });
    if (updated.length === 0) return null;
    await this.publish({ sessions: [sessionId] });
    return this.issue(sessionId, adminId, jti, expiresAt, updated[0]!.bindingOnly, mustChangePassword);
  }

  /**
   * A new token from a refresh credential (the console's cookie): 'invalid' when it is not one of
   * ours, 'expired' past its session's expiry, 'revoked' when its session has ended, its account
   * is disabled, or a newer token was issued since (it was used already).
   */
  async refreshWith(credential: string): Promise<IssuedToken | 'invalid' | 'expired' | 'revoked'> {
    const verified = this.refreshJwt.verify(credential);
    if (!verified.ok) return verified.reason;
    const { sid, jti } = verified.payload;
    if (!Number.isSafeInteger(sid) || typeof jti !== 'string') return 'invalid';
    const row = await this.lookup(sid);
    if (!row || row.endedAt || row.status !== 1 || row.jti !== jti) return 'revoked';
    if (row.expiresAt.getTime() <= Date.now()) return 'expired';
    return (await this.rotate(sid, row.adminId, await this.passwordDue(row), jti)) ?? 'revoked';
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
