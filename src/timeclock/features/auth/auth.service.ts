// Worker and manager sign-in. Unknown usernames verify a dummy hash, so that they answer
// exactly like a wrong password (401 INVALID_CREDENTIALS) in about the same time. A disabled
// account is told so only after the right password. Workers are bound to one device
// (DESIGN §7.5); managers are not. An account whose password someone else set, or whose password
// expired, signs in with tokens good only for choosing a new one (`mustChangePassword`,
// kernel/auth.ts); the change answers a new, ordinary token. Wrong passwords and unknown names
// are counted per account name (existing or not, so that a lock reveals no account), and a name
// the password policy's thresholds locked is refused before its password is checked: the back
// office's lockout (admin auth.service.ts), in the time clock's own table. A manager ends a
// worker's lock (workers.service.ts), the reset-password command any account's (auth.recovery.ts).
import type { Logger } from 'pino';
import type { Static } from 'typebox';
import { expiryIn, type JwtCodec } from '../../../platform/auth/jwt.ts';
import { hashPassword, verifyAgainstDummy, verifyPassword } from '../../../platform/auth/password.ts';
import { passwordChangeDue, type PasswordPolicies } from '../../../platform/auth/password-policy.ts';
import { AppError } from '../../../platform/http/errors.ts';
import type { Config } from '../../../platform/config.ts';
import type { Database } from '../../../platform/db/database.ts';
import { Periodic } from '../../../platform/jobs/periodic.ts';
import type { Metrics } from '../../../platform/metrics.ts';
import type { Caller, Role, TimeclockAuth, TimeclockClaims } from '../../kernel/auth.ts';
import { assertPasswordAccepted, storePassword } from '../../kernel/passwords.ts';
import { E } from '../../errors.ts';
import type { DeviceBinding } from '../../kernel/device-binding.ts';
import type { LoginBody, LoginReply, MeReply, PasswordChangeBody, PasswordRulesReply, RefreshReply } from './auth.schema.ts';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { p } from '../../../platform/db/statements.ts';
import { devices, tags, users, workerTags } from '../../db/schema.ts';
import { msg, type Locale } from '../../../platform/i18n.ts';
import { personName } from '../../seeds.ts';

interface Account {
  id: number; password_hash: string; full_name: string; role: Role; status: number; token_version: number; must_change_password: boolean; password_changed_at: Date;
}

/** The account of a name (its columns null when there is none) and the failures counted against the name. */
type AccountRow = { [K in keyof Account]: Account[K] | null } & {
  failures: number;
  /** Seconds the name stays locked; null when it is not locked. */
  lock_seconds: number | null;
};

const PURGE_EVERY_MS = 3_600_000;

export class AuthService {
  private readonly db: Database;
  private readonly jwt: JwtCodec<TimeclockClaims>;
  private readonly refreshJwt: JwtCodec<TimeclockClaims>;
  private readonly config: Config;
  private readonly logger: Logger;
  private readonly devices: DeviceBinding;
  private readonly metrics: Metrics;
  private readonly auth: TimeclockAuth;
  private readonly policies: PasswordPolicies;
  private readonly account;
  private readonly purger: Periodic;
  constructor(deps: {
    db: Database; jwt: JwtCodec<TimeclockClaims>; refreshJwt: JwtCodec<TimeclockClaims>; config: Config; logger: Logger; devices: DeviceBinding; metrics: Metrics;
    auth: TimeclockAuth; policies: PasswordPolicies;
  }) {
    this.db = deps.db;
    this.auth = deps.auth;
    this.policies = deps.policies;
    const tagNames = this.db.orm
      .select({ names: sql`array_agg(${tags.name} ORDER BY lower(${tags.name}), ${tags.id})` })
      .from(workerTags)
      .innerJoin(tags, eq(tags.id, workerTags.tagId))
      .where(eq(workerTags.userId, users.id));
    this.account = this.db.orm
      .select({
        id: users.id, username: users.username, fullName: users.fullName, role: users.role, createdAt: users.createdAt,
        device: devices, tags: sql<string[] | null>`(${tagNames})`,
      })
      .from(users)
      .leftJoin(devices, eq(devices.userId, users.id))
      .where(and(eq(users.id, p('id')), eq(users.status, 1), isNull(users.deletedAt)))
      .prepare('tc_me');
    this.jwt = deps.jwt;
    this.refreshJwt = deps.refreshJwt;
    this.config = deps.config;
    this.logger = deps.logger;
    this.devices = deps.devices;
    this.metrics = deps.metrics;
    this.purger = new Periodic({
      everyMs: PURGE_EVERY_MS,
      atStart: false,
      logger: this.logger,
      level: 'warn',
      failure: 'purging expired time-clock login failure counts failed',
      task: async () => {
        await this.db.query(`DELETE FROM timeclock.login_failures WHERE ends_at < now()`);
      },
    });
  }

  /** Forgets, every hour, failure counts whose window has passed (they no longer count anyway). */
  start(): void {
    this.purger.start();
  }

  stop(): Promise<void> {
    return this.purger.stop();
  }

  async login(input: Static<typeof LoginBody>, locale: Locale): Promise<Static<typeof LoginReply> & { refresh: string }> {
    const username = input.username.trim();
    // The account (if any) and the failures counted against its name (existing or not) in one
    // query. Raw: every sign-in runs it (measured hot).
    const [found] = await this.db.query<AccountRow>(
      `SELECT u.id, u.password_hash, u.full_name, u.role, u.status, u.token_version, u.must_change_password, u.password_changed_at,
              coalesce(f.failures, 0) AS failures,
              CASE WHEN f.locked_until > now() THEN ceil(extract(epoch FROM f.locked_until - now()))::int END AS lock_seconds
       FROM (SELECT lower($1) AS account_key) k
       LEFT JOIN timeclock.users u ON lower(u.username) = k.account_key AND u.deleted_at IS NULL
       LEFT JOIN timeclock.login_failures f ON f.account_key = k.account_key AND f.ends_at > now()`,
      [username],
    );
    // Refused before the password is checked, so that a locked name answers the same whatever is typed.
    if (found!.lock_seconds !== null) {
      this.metrics.loginFailure('timeclock', 'locked');
      throw lockedError(found!.lock_seconds);
    }
    const user = found!.id === null ? undefined : (found as Account & AccountRow);
    const passwordOk = user ? await verifyPassword(user.password_hash, input.password) : await verifyAgainstDummy(input.password);
    if (!user || !passwordOk) {
      await this.fail(username, user ? 'bad_password' : 'unknown_user');
      throw new AppError(E.INVALID_CREDENTIALS);
    }
    if (user.status !== 1) {
      this.metrics.loginFailure('timeclock', 'disabled');
      throw new AppError(E.ACCOUNT_DISABLED);
    }
    const userId = user.id;
    if (user.role === 'worker') {
      const outcome = await this.devices.bindOrCheck(userId, input.deviceUuid);
      if (!outcome.ok) {
        this.metrics.loginFailure('timeclock', outcome.reason);
        await this.devices.recordMismatch({ userId, deviceUuid: input.deviceUuid.toLowerCase(), reason: outcome.reason, source: 'login' });
        throw new AppError(E.DEVICE_NOT_AUTHORIZED, {
          detail: outcome.reason === 'bound_to_another_device' ? msg('timeclock.auth.boundToAnotherDevice') : msg('timeclock.auth.deviceOfAnotherUser'),
          details: { reason: outcome.reason },
        });
      }
    }
    if (user.failures > 0) await this.db.query(`DELETE FROM timeclock.login_failures WHERE account_key = lower($1)`, [username]);
    const mustChangePassword = passwordChangeDue(await this.policies.current(), { mustChange: user.must_change_password, changedAt: new Date(user.password_changed_at) });
    return {
      ...this.issue({ userId, role: user.role, tokenVersion: user.token_version }),
      fullName: personName(user.full_name, user.role, locale), userId, role: user.role, mustChangePassword,
    };
  }

  /**
   * Counts a failed sign-in of the name. The count starts a window of the policy's `lockSeconds`;
   * the failure that reaches its `lockMaxFailures` locks the name for a full window. A name
   * already locked is left as it is: a failure that passed the lock's check just before the lock
   * was set does not extend it.
   */
  private async fail(username: string, reason: 'bad_password' | 'unknown_user'): Promise<void> {
    this.metrics.loginFailure('timeclock', reason);
    const { lockSeconds, lockMaxFailures } = await this.policies.current();
    const [row] = await this.db.query<{ locked: boolean }>(
      `INSERT INTO timeclock.login_failures AS f (account_key, failures, ends_at, locked_until)
       VALUES (lower($1), 1, now() + make_interval(secs => $2), CASE WHEN $3::int <= 1 THEN now() + make_interval(secs => $2) END)
       ON CONFLICT (account_key) DO UPDATE SET
         failures = CASE WHEN f.ends_at <= now() THEN 1 ELSE f.failures + 1 END,
         ends_at = CASE WHEN f.ends_at <= now() OR f.failures + 1 >= $3 THEN now() + make_interval(secs => $2) ELSE f.ends_at END,
         locked_until = CASE WHEN (CASE WHEN f.ends_at <= now() THEN 1 ELSE f.failures + 1 END) >= $3 THEN now() + make_interval(secs => $2) END
       WHERE f.locked_until IS NULL OR f.locked_until <= now()
       RETURNING locked_until IS NOT NULL AS locked`,
      [username, lockSeconds, lockMaxFailures],
    );
    if (row?.locked) {
      this.metrics.lockout('timeclock');
      this.logger.warn({ username }, 'time-clock sign-in locked after repeated failures');
    }
  }

  /** A new token for the caller (whose token or refresh cookie, and account, were checked), and a new refresh cookie value. */
  refresh(caller: Caller): Static<typeof RefreshReply> & { refresh: string } {
    try {
      return { ...this.issue(caller), mustChangePassword: caller.mustChangePassword };
    } catch (err) {
      this.logger.error({ err, userId: caller.userId }, 'token refresh failed');
      throw new AppError(E.INTERNAL_ERROR, { detail: msg('timeclock.auth.refreshFailed') });
    }
  }

  /**
   * The access token and the web app's refresh credential, with the same claims (so that every
   * revocation check of the one applies to the other), each signed with its own key.
   */
  private issue(caller: Pick<Caller, 'userId' | 'role' | 'tokenVersion'>): { token: string; refresh: string } {
    const claims: TimeclockClaims = { userId: caller.userId, role: caller.role, tokenVersion: caller.tokenVersion };
    return {
      token: this.jwt.sign(claims, expiryIn(this.config.TIMECLOCK_TOKEN_TTL)),
      refresh: this.refreshJwt.sign(claims, expiryIn(this.config.TIMECLOCK_REFRESH_TTL)),
    };
  }

  /** What a new password must be, as the policy says (the change step shows it). */
  async passwordRules(): Promise<Static<typeof PasswordRulesReply>> {
    const p = await this.policies.current();
    return { minLength: p.minLength, minClasses: p.minClasses, rejectCommon: p.rejectCommon, rejectUsername: p.rejectUsername, history: p.history, maxAgeDays: p.maxAgeDays };
  }

  /**
   * The caller's own new password: the current one proven, the policy and the account's last
   * passwords respected. Every earlier token of the account is revoked (other phones sign in
   * again); the reply is a new, ordinary token, and a new refresh cookie value.
   */
  async changePassword(caller: Caller, input: Static<typeof PasswordChangeBody>): Promise<Static<typeof RefreshReply> & { refresh: string }> {
    const [user] = await this.db.orm.select({ username: users.username, hash: users.passwordHash }).from(users)
      .where(and(eq(users.id, caller.userId), isNull(users.deletedAt)));
    if (!user) throw new AppError(E.TOKEN_INVALID, { detail: msg('timeclock.auth.accountUnusable') });
    if (!(await verifyPassword(user.hash, input.currentPassword))) {
      throw new AppError(E.VALIDATION_ERROR, { detail: msg('timeclock.auth.currentPasswordIncorrect'), details: { field: 'currentPassword' } });
    }
    if (input.newPassword === input.currentPassword) {
      throw new AppError(E.VALIDATION_ERROR, { detail: msg('platform.password.sameAsCurrent'), details: { field: 'newPassword', rule: 'history' } });
    }
    await assertPasswordAccepted(this.policies, this.db, { password: input.newPassword, username: user.username, userId: caller.userId, field: 'newPassword' });
    const hash = await hashPassword(input.newPassword);
    const stored = await this.db.transaction((tx) => storePassword(tx, caller.userId, hash, 'owner'));
    if (!stored) throw new AppError(E.TOKEN_INVALID, { detail: msg('timeclock.auth.accountUnusable') });
    await this.auth.forget(caller.userId);
    return { ...this.issue({ ...caller, tokenVersion: stored.tokenVersion }), mustChangePassword: false };
  }

  /** The signed-in account: `GET /api/me`. */
  async me(caller: Caller, locale: Locale): Promise<Static<typeof MeReply>> {
    const [row] = await this.account.execute({ id: caller.userId });
    // The route's hook has just checked the account; it can only have gone since.
    if (!row) throw new AppError(E.TOKEN_INVALID, { detail: msg('timeclock.auth.accountUnusable') });
    const device = row.device;
    return {
      userId: row.id,
      username: row.username,
      fullName: personName(row.fullName, row.role, locale),
      role: row.role,
      createdAt: row.createdAt.toISOString(),
      deviceBinding: row.role === 'manager' ? 'not_required' : device ? 'bound' : 'unbound',
      device: device ? { deviceUuid: device.deviceUuid, registeredAt: device.registeredAt.toISOString(), lastSeen: device.lastSeen.toISOString() } : null,
      tags: row.role === 'worker' ? (row.tags ?? []) : [],
    };
  }
}

/** 429 ACCOUNT_LOCKED: how long the lock lasts, in the message (minutes), `details` and Retry-After (seconds). */
function lockedError(seconds: number): AppError {
  return new AppError(E.ACCOUNT_LOCKED, {
    params: { minutes: Math.ceil(seconds / 60) },
    details: { retryAfterSeconds: seconds },
    headers: { 'Retry-After': String(seconds) },
  });
}
