// Authentication of every time-clock route (DESIGN §6). Each route declares
// `config.access`: 'public' (login only), 'user' (any signed-in worker or manager) or
// 'manager'. A declared route gets an onRequest hook that verifies the bearer token and that
// the account still exists and is enabled and that the token was not revoked (checked at most
// every USER_CACHE_MS per instance, and at once after `forget`), then sets `request.user`.
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { JwtCodec } from '../platform/auth/jwt.ts';
import type { Database } from '../platform/db/database.ts';
import { AppError } from '../platform/http/errors.ts';
import type { ROLES } from './db/schema.ts';
import { E } from './errors.ts';
import { msg } from '../platform/i18n.ts';

export type Role = (typeof ROLES)[number];

/** The token payload besides iat and exp. */
export interface TimeclockClaims {
  userId: number;
  role: Role;
}

export interface Caller {
  userId: number;
  role: Role;
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
  }
}

const USER_CACHE_MS = 1000;
const MAX_ENTRIES = 50_000;

export class TimeclockAuth {
  private readonly cache = new Map<number, { checkedAt: number; account: Account | null }>();
  private readonly db: Database;
  private readonly jwt: JwtCodec<TimeclockClaims>;
  private readonly refreshJwt: JwtCodec<TimeclockClaims>;

  constructor({ db, jwt, refreshJwt }: { db: Database; jwt: JwtCodec<TimeclockClaims>; refreshJwt: JwtCodec<TimeclockClaims> }) {
    this.db = db;
    this.jwt = jwt;
    this.refreshJwt = refreshJwt;
  }

  /** Drops the cached state of a user (call after disabling, deleting or changing a role). */
  forget(userId: number): void {
    this.cache.delete(userId);
  }

  hookFor(access: Exclude<RouteAccess, 'public'>): onRequestAsyncHookHandler {
    return async (request) => {
      const caller = await this.authenticate(request);
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
    const { userId, iat } = verified.payload;
    if (!Number.isSafeInteger(userId)) throw new AppError(E.TOKEN_INVALID);
    const account = await this.account(userId);
    if (!account) throw new AppError(E.TOKEN_INVALID, { detail: msg('timeclock.auth.accountDisabledDeleted') });
    if (iat < account.validAfter) throw new AppError(E.TOKEN_INVALID, { detail: msg('timeclock.auth.tokenRevoked') });
    return { userId, role: account.role };
  }

  private async account(userId: number): Promise<Account | null> {
    const now = Date.now();
    const hit = this.cache.get(userId);
    if (hit && now - hit.checkedAt < USER_CACHE_MS) return hit.account;
    // Raw: signed-in requests run it (measured hot; the cache above bounds it to once a second per user).
    const [row] = await this.db.query<{ role: Role; tokens_valid_after: number }>(
      'SELECT role, tokens_valid_after FROM timeclock.users WHERE id = $1 AND status = 1',
      [userId],
    );
    if (this.cache.size >= MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    const account = row ? { role: row.role, validAfter: row.tokens_valid_after } : null;
    this.cache.set(userId, { checkedAt: now, account });
    return account;
  }
}

interface Account {
  role: Role;
  /** Tokens with an earlier `iat` are revoked. */
  validAfter: number;
}

/** 403 unless the caller is `userId` or a manager (DESIGN §6). */
export function assertSelfOrManager(request: FastifyRequest, userId: number): Caller {
  const caller = request.user;
  if (!caller) throw new AppError(E.TOKEN_INVALID);
  if (caller.role !== 'manager' && caller.userId !== userId) {
    throw new AppError(E.FORBIDDEN, { detail: msg('timeclock.auth.workerMayActOnly') });
  }
  return caller;
}
