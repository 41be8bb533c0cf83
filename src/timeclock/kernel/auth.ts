// Authentication of every time-clock route (DESIGN §6). Each route declares
// `config.access`: 'public' (login only), 'user' (any signed-in worker or manager) or
// 'manager'. A declared route gets an onRequest hook that verifies the bearer token and that
// the account still exists and is enabled and that the token was not revoked, then sets
// `request.user`.
//
// Revocation is by version, not by time: every token carries its account's `tokenVersion`, and a
// password change, disabling or deleting the account adds one to it (`REVOKE_TOKENS`), so every
// token issued before is refused whatever second it was issued in, re-enabling the account does
// not bring them back, and refresh (which needs a valid token) cannot renew them. The account's
// row (role, status, version) is read at most every USER_CACHE_MS per instance; `forget` drops
// it at once on this instance and, through the platform's pub/sub (Redis, or PostgreSQL
// LISTEN/NOTIFY), on every other one, the cache's expiry bounding the delay if a message is lost.
//
// An account whose password someone else set (a manager, the reset-password command, the first
// manager's generated one), or whose password is older than the password policy allows, may only
// choose a new one: its tokens pass only the routes that declare `passwordStep` (the change, its
// rules, `/me`), every other route answering 403 PASSWORD_CHANGE_REQUIRED until the change.
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { sql } from 'drizzle-orm';
import type { JwtCodec } from '../../platform/auth/jwt.ts';
import { passwordChangeDue, type PasswordPolicies } from '../../platform/auth/password-policy.ts';
import type { PubSub } from '../../platform/cache/pubsub.ts';
import type { Database } from '../../platform/db/database.ts';
import { AppError } from '../../platform/http/errors.ts';
import type { ROLES } from '../db/schema.ts';
import { E } from '../errors.ts';
import { msg } from '../../platform/i18n.ts';

export type Role = (typeof ROLES)[number];

/** The token payload besides iat and exp. */
export interface TimeclockClaims {
  userId: number;
  role: Role;
  /** The account's token version when the token was issued (absent from tokens issued before migration 0005). */
  tokenVersion?: number;
}

/** The SET of an update to `users` that revokes every token of the account issued before it. */
export const REVOKE_TOKENS = { tokenVersion: sql`token_version + 1` } as const;

/** Pub/sub channel: `{ users: number[] }` whose cached account rows every instance drops. */
export const TIMECLOCK_AUTH_CHANNEL = 'timeclock.auth';

export interface Caller {
  userId: number;
  role: Role;
  /** The account's current token version (what a token signed for the caller carries). */
  tokenVersion: number;
  /** The account must choose a new password before anything else (routes with `passwordStep` only). */
  mustChangePassword: boolean;
}

export type RouteAccess = 'public' | 'user' | 'manager';

declare module 'fastify' {
  interface FastifyRequest {
    user: Caller | null;
  }
  interface FastifyContextConfig {
    /** Who may call a time-clock route. */
    access?: RouteAccess;
    /**
     * Rate-limit tier (contract's Limits table): `auth` 5/min per IP, `clock` 10/min per user,
     * `location` 60/min per user; signed-in routes default to `general`, 100/min per user.
     */
    limit?: 'auth' | 'clock' | 'location' | 'general';
    /** A signed-in route open to an account that must choose a new password first (the change itself, its rules, `/me`). */
    passwordStep?: boolean;
  }
}

const USER_CACHE_MS = 1000;
const MAX_ENTRIES = 50_000;

export class TimeclockAuth {
  private readonly cache = new Map<number, { checkedAt: number; account: Account | null }>();
  private readonly db: Database;
  private readonly jwt: JwtCodec<TimeclockClaims>;
  private readonly refreshJwt: JwtCodec<TimeclockClaims>;
  private readonly pubsub: PubSub;
  private readonly policies: PasswordPolicies;
  private unsubscribe: (() => Promise<void>) | undefined;
  /** Counts invalidations: a read that started before one is not cached (it may predate the change). */
  private epoch = 0;

  constructor({ db, jwt, refreshJwt, pubsub, policies }: {
    db: Database; jwt: JwtCodec<TimeclockClaims>; refreshJwt: JwtCodec<TimeclockClaims>; pubsub: PubSub; policies: PasswordPolicies;
  }) {
    this.db = db;
    this.policies = policies;
    this.jwt = jwt;
    this.refreshJwt = refreshJwt;
    this.pubsub = pubsub;
  }

  async start(): Promise<void> {
    this.unsubscribe = await this.pubsub.subscribe(TIMECLOCK_AUTH_CHANNEL, (m) => {
      for (const id of (m as { users?: unknown }).users as number[] ?? []) this.drop(id);
    });
  }

  async stop(): Promise<void> {
    await this.unsubscribe?.();
    this.cache.clear();
  }

  /**
   * Drops the cached state of a user on every instance (call once the change committed: a new
   * password, disabling, enabling or deleting the account).
   */
  async forget(userId: number): Promise<void> {
    this.drop(userId);
    await this.pubsub.publish(TIMECLOCK_AUTH_CHANNEL, { users: [userId] });
  }

  private drop(userId: number): void {
    this.epoch += 1;
    this.cache.delete(userId);
  }

  hookFor(access: Exclude<RouteAccess, 'public'>, passwordStep = false): onRequestAsyncHookHandler {
    return async (request) => {
      const caller = await this.authenticate(request);
      if (caller.mustChangePassword && !passwordStep) throw new AppError(E.PASSWORD_CHANGE_REQUIRED);
      if (access === 'manager' && caller.role !== 'manager') throw new AppError(E.FORBIDDEN, { detail: msg('timeclock.auth.managersOnly') });
      request.user = caller;
    };
  }

  /** The caller named by a valid bearer token whose account is enabled; 401 otherwise. */
  async authenticate(request: FastifyRequest): Promise<Caller> {
    const header = request.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
    if (!match) throw new AppError(E.TOKEN_INVALID, { detail: msg('timeclock.auth.missingBearerToken') });
    return this.callerOf(this.jwt, match[1]!);
  }

  /**
   * The caller named by the web app's refresh cookie (its own signing key: never a bearer token),
   * under exactly the checks of a bearer token: an enabled account, and not revoked since it
   * was issued. 401 otherwise.
   */
  authenticateRefresh(credential: string): Promise<Caller> {
    return this.callerOf(this.refreshJwt, credential);
  }

  private async callerOf(codec: JwtCodec<TimeclockClaims>, token: string): Promise<Caller> {
    const verified = codec.verify(token);
    if (!verified.ok) throw new AppError(verified.reason === 'expired' ? E.TOKEN_EXPIRED : E.TOKEN_INVALID);
    const { userId, iat, tokenVersion } = verified.payload;
    if (!Number.isSafeInteger(userId)) throw new AppError(E.TOKEN_INVALID);
    const account = await this.account(userId);
    if (!account) throw new AppError(E.TOKEN_INVALID, { detail: msg('timeclock.auth.accountUnusable') });
    // A token without a version predates them: version 0, and issued after the last time-based revocation.
    const revoked = tokenVersion === undefined ? account.tokenVersion !== 0 || iat < account.validAfter : tokenVersion !== account.tokenVersion;
    if (revoked) throw new AppError(E.TOKEN_INVALID, { detail: msg('timeclock.auth.tokenRevoked') });
    const mustChangePassword = passwordChangeDue(await this.policies.current(), account.password);
    return { userId, role: account.role, tokenVersion: account.tokenVersion, mustChangePassword };
  }

  private async account(userId: number): Promise<Account | null> {
    const now = Date.now();
    const hit = this.cache.get(userId);
    if (hit && now - hit.checkedAt < USER_CACHE_MS) return hit.account;
    const epoch = this.epoch;
    // Raw: signed-in requests run it (measured hot; the cache above bounds it to once a second per user).
    const [row] = await this.db.query<{ role: Role; tokens_valid_after: number; token_version: number; must_change_password: boolean; password_changed_at: Date }>(
      'SELECT role, tokens_valid_after, token_version, must_change_password, password_changed_at FROM timeclock.users WHERE id = $1 AND status = 1',
      [userId],
    );
    const account = row
      ? {
        role: row.role, validAfter: Number(row.tokens_valid_after), tokenVersion: row.token_version,
        password: { mustChange: row.must_change_password, changedAt: new Date(row.password_changed_at) },
      }
      : null;
    if (epoch === this.epoch) {
      if (this.cache.size >= MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(userId, { checkedAt: now, account });
    }
    return account;
  }
}

interface Account {
  role: Role;
  /** Tokens without a version claim and an earlier `iat` are revoked. */
  validAfter: number;
  /** Tokens of another version are revoked. */
  tokenVersion: number;
  /** Whether someone else set the password, and when it was set (passwordChangeDue). */
  password: { mustChange: boolean; changedAt: Date };
}

/** 403 unless the caller is `userId` or a manager (DESIGN §6). */
export function assertSelfOrManager(request: FastifyRequest, userId: number): Caller {
  const caller = request.user;
  if (!caller) throw new AppError(E.TOKEN_INVALID);
  if (caller.role !== 'manager' && caller.userId !== userId) {
    throw new AppError(E.FORBIDDEN, { detail: msg('timeclock.auth.ownUserIdOnly') });
  }
  return caller;
}
