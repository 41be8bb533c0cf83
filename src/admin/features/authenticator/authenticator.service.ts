// Self-service authenticator (TOTP) binding. A new secret is pending (kept server-side for
// 10 minutes, keyed by administrator) until the administrator proves it with a code; once
// bound, the secret is never returned again. A code is accepted once (kernel/second-factor.ts)
// and within ±1 step. Binding and unbinding end the administrator's other sessions; binding
// also opens fully a session that was good only for binding (a role requires an authenticator).
// Binding gives the recovery codes, shown in that reply only; new ones (with a code or the
// password) replace them; unbinding deletes them. Unbinding and asking for new codes accept a
// recovery code in place of the 6-digit code.
import { timingSafeEqual } from 'node:crypto';
import { and, eq, isNotNull, isNull } from 'drizzle-orm';
import { verifyPassword } from '../../../platform/auth/password.ts';
import { newTotpSecret, totpUri } from '../../../platform/auth/totp.ts';
import type { KvStore } from '../../../platform/cache/kv.ts';
import type { Database, Orm } from '../../../platform/db/database.ts';
import { p } from '../../../platform/db/statements.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { admins } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import type { Principal } from '../../kernel/guard.ts';
import { consumeTotp, dropRecoveryCodes, newRecoveryCodes, recoveryCodesLeft, storeRecoveryCodes, type SecondFactor } from '../../kernel/second-factor.ts';
import type { Sessions } from '../../kernel/sessions.ts';
import { msg } from '../../../platform/i18n.ts';

export const TOTP_ISSUER = 'FieldOps Admin';
export const PENDING_TTL_MS = 10 * 60_000;

/** The account's name and bound secret (placeholder `id`), built once: the status is read on every profile page. */
const accountOf = (orm: Orm) =>
  orm.select({ username: admins.username, secret: admins.totpSecret, passwordHash: admins.passwordHash }).from(admins).where(eq(admins.id, p('id'))).prepare('admin_totp_account');

/** Where the request came from, for the log row and the notification of a recovery code's use. */
export interface Caller {
  ip: string;
  traceId: string;
}

const pendingKey = (adminId: number) => `admin:totp:pending:${adminId}`;

function sameSecret(a: string, b: string) {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export class AuthenticatorService {
  private readonly db: Database;
  private readonly kv: KvStore;
  private readonly sessions: Sessions;
  private readonly secondFactor: SecondFactor;
  private readonly accountRow: ReturnType<typeof accountOf>;
  constructor(deps: { db: Database; kv: KvStore; sessions: Sessions; secondFactor: SecondFactor }) {
    this.db = deps.db;
    this.kv = deps.kv;
    this.sessions = deps.sessions;
    this.secondFactor = deps.secondFactor;
    this.accountRow = accountOf(deps.db.orm);
  }

  private async account(adminId: number) {
    const [row] = await this.accountRow.execute({ id: adminId });
    if (!row) throw new AppError(E.TOKEN_REVOKED);
    return row;
  }

  async status(principal: Principal) {
    const { secret } = await this.account(principal.adminId);
    return { is_bound: secret !== null, recovery_codes_left: secret === null ? 0 : await recoveryCodesLeft(this.db, principal.adminId) };
  }

  /** A new pending secret (replacing any earlier pending one), its otpauth URI and QR code. */
  async newSecret(principal: Principal) {
    const { username, secret: bound } = await this.account(principal.adminId);
    if (bound) throw new AppError(E.ALREADY_EXISTS, { detail: msg('admin.authenticator.alreadyBoundUnbindFirst') });
    const secret = newTotpSecret();
    const uri = totpUri(secret, TOTP_ISSUER, username);
    // Loaded on the first binding (about 1 MB of heap).
    const { default: QRCode } = await import('qrcode');
    const qrcode = await QRCode.toDataURL(uri, { type: 'image/png', errorCorrectionLevel: 'M', margin: 2, width: 240 });
    await this.kv.set(pendingKey(principal.adminId), secret, PENDING_TTL_MS);
    return { secret, otpauth_url: uri, qrcode, expires_in: PENDING_TTL_MS / 1000 };
  }

  async bind(principal: Principal, input: { secret: string; code: string }) {
    const { secret: bound } = await this.account(principal.adminId);
    if (bound) throw new AppError(E.ALREADY_EXISTS, { detail: msg('admin.authenticator.alreadyBoundUnbindFirst') });
    const key = pendingKey(principal.adminId);
    const pending = await this.kv.get(key);
    if (!pending || !sameSecret(pending, input.secret)) {
      throw new AppError(E.VALIDATION, { detail: msg('admin.authenticator.secretNotPending'), details: { field: 'secret' } });
    }
    if (!(await consumeTotp(this.db, principal.adminId, pending, input.code))) {
      throw new AppError(E.AUTHENTICATOR_CODE_WRONG, { details: { field: 'code' } });
    }
    // Hashed before the transaction (argon2id, about 130 ms for the set).
    const { codes, hashes } = await newRecoveryCodes();
    const ended = await this.db.transaction(async (tx) => {
      const updated = await tx.orm
        .update(admins)
        .set({ totpSecret: pending, updatedAt: new Date() })
        .where(and(eq(admins.id, principal.adminId), isNull(admins.totpSecret)))
        .returning({ id: admins.id });
      if (updated.length === 0) throw new AppError(E.ALREADY_EXISTS, { detail: msg('admin.authenticator.alreadyBound') });
      await storeRecoveryCodes(tx, principal.adminId, hashes);
      await this.sessions.openFully(principal.sessionId, tx);
      return this.sessions.endAllOf(principal.adminId, 'security', principal.sessionId, tx);
    });
    await this.kv.del(key);
    // `admins` drops this session's cached principal too: a binding-only one is read again, open.
    await this.sessions.publish({ admins: [principal.adminId], sessions: ended });
    return { recovery_codes: codes };
  }

  /**
   * A new set of recovery codes for the bound authenticator, proven by its current code (or an
   * unused recovery code) or by the password; the previous codes stop working.
   */
  async regenerate(principal: Principal, input: { code?: string | undefined; password?: string | undefined }, caller: Caller) {
    const { username, secret, passwordHash } = await this.account(principal.adminId);
    if (!secret) throw new AppError(E.VALIDATION, { detail: msg('admin.authenticator.notBound') });
    if ((input.code === undefined) === (input.password === undefined)) {
      throw new AppError(E.VALIDATION, { detail: msg('admin.authenticator.codeOrPassword'), details: { field: 'code' } });
    }
    if (input.code !== undefined) {
      const accepted = await this.secondFactor.accept({ id: principal.adminId, username, secret }, input.code, { purpose: 'regenerate', ...caller });
      if (!accepted) throw new AppError(E.AUTHENTICATOR_CODE_WRONG, { details: { field: 'code' } });
    } else if (!(await verifyPassword(passwordHash, input.password!))) {
      throw new AppError(E.VALIDATION, { detail: msg('admin.authenticator.passwordIncorrect'), details: { field: 'password' } });
    }
    const { codes, hashes } = await newRecoveryCodes();
    await this.db.transaction(async (tx) => {
      // Only while the authenticator is still bound (an unbinding in between wins).
      const [row] = await tx.orm.select({ id: admins.id }).from(admins).where(and(eq(admins.id, principal.adminId), isNotNull(admins.totpSecret))).for('update');
      if (!row) throw new AppError(E.VALIDATION, { detail: msg('admin.authenticator.notBound') });
      await storeRecoveryCodes(tx, principal.adminId, hashes);
    });
    return { recovery_codes: codes };
  }

  async unbind(principal: Principal, code: string, caller: Caller) {
    const { username, secret } = await this.account(principal.adminId);
    if (!secret) throw new AppError(E.VALIDATION, { detail: msg('admin.authenticator.notBound') });
    if (!(await this.secondFactor.accept({ id: principal.adminId, username, secret }, code, { purpose: 'unbind', ...caller }))) {
      throw new AppError(E.AUTHENTICATOR_CODE_WRONG, { details: { field: 'code' } });
    }
    const ended = await this.db.transaction(async (tx) => {
      await tx.orm
        .update(admins)
        .set({ totpSecret: null, updatedAt: new Date() })
        .where(and(eq(admins.id, principal.adminId), isNotNull(admins.totpSecret)));
      await dropRecoveryCodes(tx, principal.adminId);
      return this.sessions.endAllOf(principal.adminId, 'security', principal.sessionId, tx);
    });
    await this.sessions.publish({ admins: [principal.adminId], sessions: ended });
  }
}
