// Self-service authenticator (TOTP) binding. A new secret is pending (kept server-side for
// 10 minutes, keyed by administrator) until the administrator proves it with a code; once
// bound, the secret is never returned again. A code is accepted once (kernel/second-factor.ts)
// and within ±1 step. Binding and unbinding end the administrator's other sessions.
import { timingSafeEqual } from 'node:crypto';
import { and, eq, isNotNull, isNull } from 'drizzle-orm';
import { newTotpSecret, totpUri } from '../../../platform/auth/totp.ts';
import type { KvStore } from '../../../platform/cache/kv.ts';
import type { Database, Orm } from '../../../platform/db/database.ts';
import { p } from '../../../platform/db/statements.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { admins } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import type { Principal } from '../../kernel/guard.ts';
import { consumeTotp } from '../../kernel/second-factor.ts';
import type { Sessions } from '../../kernel/sessions.ts';
import { msg } from '../../../platform/i18n.ts';

export const TOTP_ISSUER = 'FieldOps Admin';
export const PENDING_TTL_MS = 10 * 60_000;

/** The account's name and bound secret (placeholder `id`), built once: the status is read on every profile page. */
const accountOf = (orm: Orm) =>
  orm.select({ username: admins.username, secret: admins.totpSecret }).from(admins).where(eq(admins.id, p('id'))).prepare('admin_totp_account');

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
  private readonly accountRow: ReturnType<typeof accountOf>;
  constructor(deps: { db: Database; kv: KvStore; sessions: Sessions }) {
    this.db = deps.db;
    this.kv = deps.kv;
    this.sessions = deps.sessions;
    this.accountRow = accountOf(deps.db.orm);
  }

  private async account(adminId: number) {
    const [row] = await this.accountRow.execute({ id: adminId });
    if (!row) throw new AppError(E.TOKEN_REVOKED);
    return row;
  }

  async status(principal: Principal) {
    const { secret } = await this.account(principal.adminId);
    return { is_bound: secret !== null };
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
    const ended = await this.db.transaction(async (tx) => {
      const updated = await tx.orm
        .update(admins)
        .set({ totpSecret: pending, updatedAt: new Date() })
        .where(and(eq(admins.id, principal.adminId), isNull(admins.totpSecret)))
        .returning({ id: admins.id });
      if (updated.length === 0) throw new AppError(E.ALREADY_EXISTS, { detail: msg('admin.authenticator.alreadyBound') });
      return this.sessions.endAllOf(principal.adminId, 'security', principal.sessionId, tx);
    });
    await this.kv.del(key);
    await this.sessions.publish({ admins: [principal.adminId], sessions: ended });
  }

  async unbind(principal: Principal, code: string) {
    const { secret } = await this.account(principal.adminId);
    if (!secret) throw new AppError(E.VALIDATION, { detail: msg('admin.authenticator.notBound') });
    if (!(await consumeTotp(this.db, principal.adminId, secret, code))) {
      throw new AppError(E.AUTHENTICATOR_CODE_WRONG, { details: { field: 'code' } });
    }
    const ended = await this.db.transaction(async (tx) => {
      await tx.orm
        .update(admins)
        .set({ totpSecret: null, updatedAt: new Date() })
        .where(and(eq(admins.id, principal.adminId), isNotNull(admins.totpSecret)));
      return this.sessions.endAllOf(principal.adminId, 'security', principal.sessionId, tx);
    });
    await this.sessions.publish({ admins: [principal.adminId], sessions: ended });
  }
}
