// Administrator sign-in: captcha, password (argon2id), optional authenticator code (or one of
// its recovery codes), lockout after repeated failures, and the login log. Unknown usernames go
// through the same steps (a dummy hash is verified, failures are counted) so that accounts
// cannot be enumerated. An administrator holding an enabled role that requires an authenticator,
// with none bound, gets a session good only for binding one; one whose password someone else set,
// or whose password expired, a session good only for choosing a new one (kernel/guard.ts). The
// lockout's thresholds are the password policy's (kernel/passwords.ts). Each login-log row says
// where its address is (platform/geo/ip-location.ts, looked up while the password is checked),
// and a success from a new country is reported (auth.new-country.ts).
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Logger } from 'pino';
import { renderCaptcha } from '../../../platform/auth/captcha.ts';
import { hashPassword, verifyAgainstDummy, verifyPassword } from '../../../platform/auth/password.ts';
import { passwordChangeDue, type PasswordPolicies } from '../../../platform/auth/password-policy.ts';
import type { KvStore } from '../../../platform/cache/kv.ts';
import type { Metrics } from '../../../platform/metrics.ts';
import type { Config } from '../../../platform/config.ts';
import type { Database, Orm } from '../../../platform/db/database.ts';
import { p } from '../../../platform/db/statements.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { Periodic } from '../../../platform/jobs/periodic.ts';
import { locateIp, type IpLocation } from '../../../platform/geo/ip-location.ts';
import { formatDisplay } from '../../../platform/time.ts';
import { admins, departments } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import type { Principal } from '../../kernel/guard.ts';
import { assertPasswordAccepted, passwordState, storePassword } from '../../kernel/passwords.ts';
import type { SecondFactor } from '../../kernel/second-factor.ts';
import type { RbacService } from '../../kernel/rbac.ts';
import type { IssuedToken, Sessions } from '../../kernel/sessions.ts';
import type { SystemLog } from '../../kernel/log-records.ts';
import type { Notifier } from '../../kernel/notifier.ts';
import { NewCountryNotice } from './auth.new-country.ts';
import { msg, type Locale } from '../../../platform/i18n.ts';
import { localized } from '../../../platform/translations.ts';

export const CAPTCHA_TTL_MS = 120_000;

export type LoginReason =
  | 'success' | 'recovery_code' | 'captcha' | 'locked' | 'unknown_user' | 'bad_password' | 'disabled'
  | 'authenticator_required' | 'authenticator_wrong';

export interface ClientInfo {
  ip: string;
  userAgent: string;
  /** The request's, for the system log row of a recovery code's use. */
  traceId?: string;
}

/** A sign-in attempt's client, with where its address is (looked up once, at the attempt's start). */
type Located = ClientInfo & { location: Promise<IpLocation> };

interface AccountRow {
  id: number | null;
  username: string | null;
  passwordHash: string | null;
  status: number | null;
  totpSecret: string | null;
  /** No authenticator bound, and an enabled role of the account requires one. */
  mustBind: boolean;
  mustChange: boolean | null;
  changedAt: Date | null;
  failures: number;
  /** Seconds the name stays locked; null when it is not locked. */
  lockSeconds: number | null;
}

export class AuthService {
  private readonly db: Database;
  private readonly orm: Orm;
  private readonly kv: KvStore;
  private readonly config: Config;
  private readonly sessions: Sessions;
  private readonly rbac: RbacService;
  private readonly secondFactor: SecondFactor;
  private readonly logger: Logger;
  private readonly metrics: Metrics;
  private readonly policies: PasswordPolicies;
  private readonly purger: Periodic;
  private readonly newCountry: NewCountryNotice;
  /** GET /info's administrator with their department (placeholder `id`), built once. */
  private readonly profileOf;
  constructor(deps: {
    db: Database; kv: KvStore; config: Config; sessions: Sessions; rbac: RbacService; secondFactor: SecondFactor; logger: Logger; metrics: Metrics;
    policies: PasswordPolicies; notifier: Notifier; systemLog: SystemLog;
  }) {
    this.policies = deps.policies;
    this.newCountry = new NewCountryNotice(deps);
    this.db = deps.db;
    this.orm = deps.db.orm;
    this.kv = deps.kv;
    this.config = deps.config;
    this.sessions = deps.sessions;
    this.rbac = deps.rbac;
    this.secondFactor = deps.secondFactor;
    this.logger = deps.logger;
    this.metrics = deps.metrics;
    this.profileOf = this.orm
      .select({ admin: admins, department: { id: departments.id, name: departments.name, nameI18n: departments.nameI18n } })
      .from(admins)
      .leftJoin(departments, eq(departments.id, admins.departmentId))
      .where(eq(admins.id, p('id')))
      .prepare('admin_profile');
    this.purger = new Periodic({
      everyMs: 3_600_000,
      atStart: false,
      logger: this.logger,
      level: 'warn',
      failure: 'purging expired login failure counts failed',
      task: async () => {
        await this.db.query(`DELETE FROM admin.login_failures WHERE ends_at < now()`);
      },
    });
  }

  async newCaptcha() {
    const { text, png, width, height } = await renderCaptcha();
    const id = randomUUID();
    await this.kv.set(`admin:captcha:${id}`, text.toLowerCase(), CAPTCHA_TTL_MS);
    return {
      captcha_id: id,
      captcha_image: `data:image/png;base64,${png.toString('base64')}`,
      expires_in: CAPTCHA_TTL_MS / 1000,
      width,
      height,
      enabled: this.config.CAPTCHA_ENABLED,
    };
  }

  /** Single use: the answer is taken whether or not it matches. */
  private async checkCaptcha(id: string | undefined, code: string | undefined): Promise<boolean> {
    if (!id || !code) return false;
    const answer = await this.kv.take(`admin:captcha:${id}`);
    return answer !== null && answer === code.trim().toLowerCase();
  }

  private async log(username: string, adminId: number | null, client: Located, reason: Exclude<LoginReason, 'success'>) {
    this.metrics.loginFailure('admin', reason);
    const where = await client.location;
    await this.db.query(
      `INSERT INTO admin.login_logs (admin_id, username, ip, user_agent, status, reason, location_kind, country, city) VALUES ($1, $2, $3, $4, 0, $5, $6, $7, $8)`,
      [adminId, username.slice(0, 64), client.ip, client.userAgent.slice(0, 512), reason, where.kind, where.country, where.city],
    );
  }

  async login(
    input: { username: string; password: string; captcha_id?: string | undefined; captcha_code?: string | undefined; google_code?: string | undefined },
    attempt: ClientInfo,
  ) {
    // Looked up while the password is checked (about 1 ms; a slow lookup is given up as unknown), never a failure of its own.
    const client: Located = { ...attempt, location: locateIp(attempt.ip) };
    const username = input.username.trim();
    const key = username.toLowerCase();
    if (this.config.CAPTCHA_ENABLED) {
      if (!input.captcha_id || !input.captcha_code) {
        throw new AppError(E.VALIDATION, { detail: msg('admin.auth.captchaRequired') });
      }
      if (!(await this.checkCaptcha(input.captcha_id, input.captcha_code))) {
        await this.log(username, null, client, 'captcha');
        throw new AppError(E.CAPTCHA_WRONG);
      }
    }

    // The account (if any) and the failure count of its name (existing or not) in one query;
    // a fixed statement, prepared once per connection, on the hottest unauthenticated path.
    const [found] = await this.db.query<AccountRow>(
      `SELECT a.id, a.username, a.password_hash AS "passwordHash", a.status, a.totp_secret AS "totpSecret",
              (a.totp_secret IS NULL AND EXISTS (
                SELECT 1 FROM admin.admin_roles ar JOIN admin.roles r ON r.id = ar.role_id
                WHERE ar.admin_id = a.id AND r.status = 1 AND r.require_authenticator)) AS "mustBind",
              a.must_change_password AS "mustChange", a.password_changed_at AS "changedAt",
              coalesce(f.failures, 0) AS failures,
              CASE WHEN f.locked_until > now() THEN ceil(extract(epoch FROM f.locked_until - now()))::int END AS "lockSeconds"
       FROM (SELECT $1::text AS account_key) k
       LEFT JOIN admin.admins a ON lower(a.username) = k.account_key
       LEFT JOIN admin.login_failures f ON f.account_key = k.account_key AND f.ends_at > now()`,
      [key],
    );
    const failures = found!.failures;
    if (found!.lockSeconds !== null) {
      await this.log(username, null, client, 'locked');
      throw this.lockedError(found!.lockSeconds);
    }
    const admin = found!.id === null ? undefined : (found as AccountRow & { id: number; username: string; passwordHash: string; status: number });

    const passwordOk = admin ? await verifyPassword(admin.passwordHash, input.password) : await verifyAgainstDummy(input.password);
    if (!admin || !passwordOk) {
      await this.fail(key, username, admin?.id ?? null, client, admin ? 'bad_password' : 'unknown_user');
      throw new AppError(E.BAD_CREDENTIALS);
    }
    if (admin.status !== 1) {
      await this.log(username, admin.id, client, 'disabled');
      throw new AppError(E.ACCOUNT_DISABLED);
    }
    let recovered = false;
    if (admin.totpSecret) {
      if (!input.google_code) {
        await this.log(username, admin.id, client, 'authenticator_required');
        throw new AppError(E.AUTHENTICATOR_CODE_INVALID);
      }
      const accepted = await this.secondFactor.accept(
        { id: admin.id, username: admin.username, secret: admin.totpSecret },
        input.google_code,
        { purpose: 'login', ip: client.ip, traceId: client.traceId },
      );
      if (!accepted) {
        await this.fail(key, username, admin.id, client, 'authenticator_wrong');
        throw new AppError(E.AUTHENTICATOR_CODE_INVALID);
      }
      recovered = accepted.via === 'recovery';
    }

    if (failures > 0) await this.db.query(`DELETE FROM admin.login_failures WHERE account_key = $1`, [key]);
    const policy = await this.policies.current();
    const location = await client.location;
    const session = await this.sessions.openForLogin(admin, client.ip, client.userAgent, {
      bindingOnly: admin.mustBind === true,
      mustChangePassword: passwordChangeDue(policy, { mustChange: admin.mustChange === true, changedAt: new Date(admin.changedAt!) }),
      reason: recovered ? 'recovery_code' : 'success',
      location,
    });
    this.newCountry.watch({ adminId: admin.id, username: admin.username, ip: client.ip, location, logId: session.logId, traceId: client.traceId });
    return session;
  }

  /**
   * Counts a failure and logs it, in one statement. The count starts a window of the policy's
   * `lockSeconds`; the failure that reaches its `lockMaxFailures` locks the name for a full window.
   */
  private async fail(key: string, username: string, adminId: number | null, client: Located, reason: Exclude<LoginReason, 'success'>) {
    this.metrics.loginFailure('admin', reason);
    const { lockSeconds, lockMaxFailures } = await this.policies.current();
    const where = await client.location;
    const [row] = await this.db.query<{ failures: number }>(
      `WITH f AS (
         INSERT INTO admin.login_failures AS f (account_key, failures, ends_at, locked_until)
         VALUES ($1, 1, now() + make_interval(secs => $2), CASE WHEN $3::int <= 1 THEN now() + make_interval(secs => $2) END)
         ON CONFLICT (account_key) DO UPDATE SET
           failures = CASE WHEN f.ends_at <= now() THEN 1 ELSE f.failures + 1 END,
           ends_at = CASE WHEN f.ends_at <= now() OR f.failures + 1 >= $3 THEN now() + make_interval(secs => $2) ELSE f.ends_at END,
           locked_until = CASE
             WHEN (CASE WHEN f.ends_at <= now() THEN 1 ELSE f.failures + 1 END) >= $3 THEN now() + make_interval(secs => $2)
             WHEN f.ends_at <= now() THEN NULL
             ELSE f.locked_until END
         RETURNING failures
       ), l AS (
         INSERT INTO admin.login_logs (admin_id, username, ip, user_agent, status, reason, location_kind, country, city)
         VALUES ($4, $5, $6, $7, 0, $8, $9, $10, $11)
       )
       SELECT failures FROM f`,
      [key, lockSeconds, lockMaxFailures, adminId, username.slice(0, 64), client.ip, client.userAgent.slice(0, 512), reason, where.kind, where.country, where.city],
    );
    if (row!.failures === lockMaxFailures) {
      this.metrics.lockout('admin');
      this.logger.warn({ username, ip: client.ip }, 'administrator login locked after repeated failures');
    }
  }

  /** Forgets, every hour, failure counts whose window has passed (they no longer count anyway). */
  start() {
    this.purger.start();
  }

  stop(): Promise<void> {
    return this.purger.stop();
  }

  private lockedError(seconds: number) {
    return new AppError(E.LOGIN_LOCKED, { params: { minutes: Math.ceil(seconds / 60) }, headers: { 'Retry-After': String(seconds) } });
  }

  async logout(principal: Principal) {
    await this.sessions.end([principal.sessionId], 'logout');
  }

  /** A new token for the session of a bearer token (`principal`) or of the console's refresh cookie. */
  async refresh(by: Principal | { cookie: string }): Promise<IssuedToken> {
    if ('cookie' in by) {
      const issued = await this.sessions.refreshWith(by.cookie);
      if (typeof issued !== 'string') return issued;
      throw new AppError(issued === 'expired' ? E.TOKEN_EXPIRED : issued === 'invalid' ? E.TOKEN_INVALID : E.TOKEN_REVOKED);
    }
    const rotated = await this.sessions.rotate(by.sessionId, by.adminId, by.restriction === 'change_password');
    if (!rotated) throw new AppError(E.TOKEN_REVOKED);
    return rotated;
  }

  async profile(principal: Principal, locale: Locale = 'en-US') {
    const [row] = await this.profileOf.execute({ id: principal.adminId });
    if (!row) throw new AppError(E.TOKEN_REVOKED);
    const grants = await this.rbac.grantsOf(principal.adminId);
    const menus = await this.rbac.menuTreeFor(grants, locale);
    const a = row.admin;
    return {
      id: a.id,
      username: a.username,
      nickname: a.nickname,
      email: a.email,
      phone: a.phone,
      avatar: a.avatar,
      department_id: a.departmentId,
      department: row.department && { id: row.department.id, name: localized(row.department.name, row.department.nameI18n, locale) },
      roles: grants.roles.map((r) => ({ id: r.id, name: localized(r.name, r.nameI18n, locale), slug: r.slug })),
      permissions: grants.permissions,
      menus,
      is_2fa_bound: a.totpSecret !== null,
      last_login_at: formatDisplay(a.lastLoginAt, this.config.DISPLAY_TIMEZONE),
    };
  }

  /** The caller's password as the operation log keeps its state (kernel/passwords.ts). */
  passwordState(adminId: number) {
    return passwordState(this.db, adminId, this.config.DISPLAY_TIMEZONE);
  }

  /** What a new password must be, as the policy says (the change form shows it). */
  async passwordRules() {
    const p = await this.policies.current();
    return {
      min_length: p.minLength, min_classes: p.minClasses, reject_common: p.rejectCommon, reject_username: p.rejectUsername, history: p.history, max_age_days: p.maxAgeDays,
    };
  }

  /**
   * Checks the old password and the policy, stores the new one and ends the administrator's other
   * sessions; a session restricted to this change becomes an ordinary one (or one for binding an
   * authenticator, when a role requires one) as the guard reads it again.
   */
  async changePassword(principal: Principal, input: { old_password: string; password: string; password_confirmation: string }) {
    if (input.password !== input.password_confirmation) {
      throw new AppError(E.VALIDATION, { detail: msg('admin.auth.passwordConfirmationMismatch'), details: { field: 'password_confirmation' } });
    }
    const [admin] = await this.orm.select({ hash: admins.passwordHash }).from(admins).where(eq(admins.id, principal.adminId));
    if (!admin || !(await verifyPassword(admin.hash, input.old_password))) {
      throw new AppError(E.VALIDATION, { detail: msg('admin.auth.oldPasswordIncorrect'), details: { field: 'old_password' } });
    }
    if (input.old_password === input.password) {
      throw new AppError(E.VALIDATION, { detail: msg('admin.auth.newPasswordMustDiffer'), details: { field: 'password' } });
    }
    await assertPasswordAccepted(this.policies, this.db, { password: input.password, username: principal.username, adminId: principal.adminId, field: 'password' });
    const hash = await hashPassword(input.password);
    const ended = await this.db.transaction(async (tx) => {
      await storePassword(tx, principal.adminId, hash, 'owner');
      return this.sessions.endAllOf(principal.adminId, 'password_changed', principal.sessionId, tx);
    });
    await this.sessions.publish({ admins: [principal.adminId], sessions: ended });
  }
}
