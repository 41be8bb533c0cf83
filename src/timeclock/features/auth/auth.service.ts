// Worker and manager sign-in. Unknown usernames verify a dummy hash, so that they answer
// exactly like a wrong password (401 INVALID_CREDENTIALS) in about the same time. A disabled
// account is told so only after the right password. Workers are bound to one device
// (DESIGN §7.5); managers are not. An account whose password someone else set, or whose password
// expired, signs in with tokens good only for choosing a new one (`mustChangePassword`,
// kernel/auth.ts); the change answers a new, ordinary token.
import type { Logger } from 'pino';
import type { Static } from 'typebox';
import { expiryIn, type JwtCodec } from '../../../platform/auth/jwt.ts';
import { hashPassword, verifyAgainstDummy, verifyPassword } from '../../../platform/auth/password.ts';
import { passwordChangeDue, type PasswordPolicies } from '../../../platform/auth/password-policy.ts';
import { AppError } from '../../../platform/http/errors.ts';
import type { Config } from '../../../platform/config.ts';
import type { Database } from '../../../platform/db/database.ts';
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
  }

  async login(input: Static<typeof LoginBody>, locale: Locale): Promise<Static<typeof LoginReply> & { refresh: string }> {
    // Raw: every sign-in runs it (measured hot).
    const [user] = await this.db.query<{
      id: number; password_hash: string; full_name: string; role: Role; status: number; token_version: number; must_change_password: boolean; password_changed_at: Date;
    }>(
      `SELECT id, password_hash, full_name, role, status, token_version, must_change_password, password_changed_at FROM timeclock.users
       WHERE lower(username) = lower($1) AND deleted_at IS NULL`,
      [input.username.trim()],
    );
    const passwordOk = user ? await verifyPassword(user.password_hash, input.password) : await verifyAgainstDummy(input.password);
    if (!user || !passwordOk) {
      this.metrics.loginFailure('timeclock', user ? 'bad_password' : 'unknown_user');
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
    const mustChangePassword = passwordChangeDue(await this.policies.current(), { mustChange: user.must_change_password, changedAt: new Date(user.password_changed_at) });
    return {
      ...this.issue({ userId, role: user.role, tokenVersion: user.token_version }),
      fullName: personName(user.full_name, user.role, locale), userId, role: user.role, mustChangePassword,
    };
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
