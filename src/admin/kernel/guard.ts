// Authentication and permission checks for every admin route. This folder is the
// administrators' access kernel (principal, guard, sessions, grants): features import it, it
// imports no feature. A verified token names a session; the session (live? same token?
// account enabled?) and its grants are cached per instance for at most SESSION_CACHE_MS, and
// dropped at once when any instance publishes an invalidation, so a logout or kick-out is
// refused everywhere within a second.
//
// A restricted session is good for one step only, and passes only the routes that declare that
// step (`steps`): choosing a new password, when someone else set the administrator's password or
// it expired (every other route refuses it with 403 10012 until the change, which opens it at
// once); binding an authenticator, when a role of the administrator requires one and none is
// bound (sessions.bindingOnly; 403 10011 until the binding). The password comes first.
import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import type { JwtCodec } from '../../platform/auth/jwt.ts';
import type { PubSub } from '../../platform/cache/pubsub.ts';
import type { Config } from '../../platform/config.ts';
import { AppError, type ErrorDef } from '../../platform/http/errors.ts';
import { E } from '../errors.ts';
import type { DataScope } from './data-scope.ts';
import type { RbacService } from './rbac.ts';
import { AUTH_CHANNEL, type AdminTokenClaims, type AuthInvalidation, type Sessions } from './sessions.ts';
import { msg } from '../../platform/i18n.ts';

/** The one thing a restricted session may do (besides signing out and renewing its token). */
export type SessionStep = 'change_password' | 'bind_authenticator';

/** The refusal of a restricted session on a route that is not its step. */
export const STEP_REFUSALS: Record<SessionStep, ErrorDef> = {
  change_password: E.PASSWORD_CHANGE_REQUIRED,
  bind_authenticator: E.AUTHENTICATOR_BINDING_REQUIRED,
};

export interface Principal {
  sessionId: number;
  adminId: number;
  username: string;
  isSuper: boolean;
  permissions: ReadonlySet<string>;
  /** The rows of departments and administrators the caller reaches (kernel/data-scope.ts). */
  scope: DataScope;
  /** The step the session is good for only (routes declaring it in `steps`); null: an ordinary session. */
  restriction: SessionStep | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    admin: Principal | null;
  }
}

interface Entry {
  checkedAt: number;
  /** null: the session cannot be used (ended, unknown, or its account disabled). */
  principal: Principal | null;
  jti: string;
  expiresAt: number;
}

const MAX_ENTRIES = 50_000;
const TOUCH_EVERY_MS = 60_000;

export class Guard {
  private readonly cache = new Map<number, Entry>();
  private readonly jwt: JwtCodec<AdminTokenClaims>;
  private readonly sessions: Sessions;
  private readonly rbac: RbacService;
  private readonly cacheMs: number;
  private unsubscribe: (() => Promise<void>) | undefined;
  /** Bumped by every invalidation: a load that straddles one is used once, not cached. */
  private epoch = 0;

  constructor(deps: { jwt: JwtCodec<AdminTokenClaims>; sessions: Sessions; rbac: RbacService; config: Config }) {
    this.jwt = deps.jwt;
    this.sessions = deps.sessions;
    this.rbac = deps.rbac;
    this.cacheMs = deps.config.SESSION_CACHE_MS;
  }

  async start(pubsub: PubSub) {
    this.unsubscribe = await pubsub.subscribe(AUTH_CHANNEL, (m) => this.invalidate(m as AuthInvalidation));
  }

  async stop() {
    await this.unsubscribe?.();
    this.cache.clear();
  }

  invalidate(m: AuthInvalidation) {
    this.epoch += 1;
    if (m.everyone) this.cache.clear();
    for (const id of m.sessions ?? []) this.cache.delete(id);
    if (m.admins?.length) {
      const admins = new Set(m.admins);
      for (const [sid, e] of this.cache) if (e.principal && admins.has(e.principal.adminId)) this.cache.delete(sid);
    }
  }

  /**
   * The onRequest hook of one route: authenticates (401), refuses a restricted session unless the
   * route is one of its `steps` (403 10012 or 10011) and, when `permission` is given, checks it
   * (403). Cached sessions are checked without leaving the current tick.
   */
  hookFor(permission: string | undefined, steps: readonly SessionStep[] = []): onRequestHookHandler {
    const authorize = (request: FastifyRequest, principal: Principal) => {
      request.admin = principal;
      if (principal.restriction && !steps.includes(principal.restriction)) throw new AppError(STEP_REFUSALS[principal.restriction]);
      if (permission && !principal.isSuper && !principal.permissions.has(permission)) {
        throw new AppError(E.NO_PERMISSION, { detail: msg('admin.guard.permissionNeeded', { permission }) });
      }
    };
    return (request, _reply, done) => {
      let result: Principal | Promise<Principal>;
      try {
        result = this.authenticate(request.headers.authorization);
        if (!(result instanceof Promise)) authorize(request, result);
      } catch (err) {
        done(err as Error);
        return;
      }
      if (result instanceof Promise) {
        result.then((principal) => authorize(request, principal)).then(() => done(), (err: Error) => done(err));
      } else {
        done();
      }
    };
  }

  /** The principal of a bearer header: at once when its session is cached, else after loading it. */
  authenticate(header: string | undefined): Principal | Promise<Principal> {
    const token = header?.startsWith('Bearer ') ? header.slice(7).trim() : undefined;
    if (!token) throw new AppError(E.TOKEN_INVALID);
    const verified = this.jwt.verify(token);
    if (!verified.ok) throw new AppError(verified.reason === 'expired' ? E.TOKEN_EXPIRED : E.TOKEN_INVALID);
    const { sid, jti } = verified.payload;
    if (!Number.isSafeInteger(sid) || typeof jti !== 'string') throw new AppError(E.TOKEN_INVALID);

    const now = Date.now();
    const entry = this.cache.get(sid);
    if (entry && now - entry.checkedAt < this.cacheMs) return this.accept(entry, jti, now);
    const epoch = this.epoch;
    return this.load(sid, now).then((loaded) => {
      if (epoch === this.epoch) {
        if (this.cache.size >= MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
        this.cache.set(sid, loaded);
      }
      return this.accept(loaded, jti, Date.now());
    });
  }

  private accept(entry: Entry, jti: string, now: number): Principal {
    if (!entry.principal || entry.jti !== jti) throw new AppError(E.TOKEN_REVOKED);
    if (entry.expiresAt <= now) throw new AppError(E.TOKEN_EXPIRED);
    return entry.principal;
  }

  private async load(sid: number, now: number): Promise<Entry> {
    const row = await this.sessions.lookup(sid);
    if (!row || row.endedAt || row.status !== 1) {
      return { checkedAt: now, principal: null, jti: '', expiresAt: 0 };
    }
    const grants = await this.rbac.grantsOf(row.adminId);
    const scope = await this.rbac.scopeOf(row.adminId, grants);
    const passwordDue = await this.sessions.passwordDue(row);
    if (now - row.lastActiveAt.getTime() > TOUCH_EVERY_MS) {
      this.sessions.touch(sid).catch(() => {});
    }
    return {
      checkedAt: now,
      jti: row.jti,
      expiresAt: row.expiresAt.getTime(),
      principal: {
        sessionId: sid,
        adminId: row.adminId,
        username: row.username,
        isSuper: grants.isSuper,
        permissions: new Set(grants.permissions),
        scope,
        restriction: passwordDue ? 'change_password' : row.bindingOnly ? 'bind_authenticator' : null,
      },
    };
  }
}
