// Authenticator codes of administrators (part of the access kernel): sign-in, binding and
// unbinding an authenticator all accept a code the same way, once. Also the authenticator's
// one-time recovery codes, which sign-in, unbinding and asking for new codes accept in the same
// field as a 6-digit code (the two shapes cannot be confused: six digits, or ten characters of
// the recovery alphabet).
//
// Recovery codes are hashed with argon2id, as passwords are (platform/auth/password.ts): a code
// carries about 49.5 bits (ten characters of 31), far beyond what the sign-in lockout lets anyone
// try online, and the slow salted hash keeps a stolen copy of the table from giving them back
// offline without any key to keep (a keyed fast hash would tie the codes to a server secret whose
// rotation would silently void them). Checking a typed code costs one verification per unused
// code of the account (at most 10, about 13 ms each, two at a time), paid only when a recovery
// code is typed. A code is consumed by a conditional UPDATE (`used_at IS NULL`), so of
// concurrent uses of one code exactly one succeeds.
import { randomInt } from 'node:crypto';
import { and, count, eq, isNull, lt, or } from 'drizzle-orm';
import { matchTotpStep } from '../../platform/auth/totp.ts';
import { hashPassword, verifyPassword } from '../../platform/auth/password.ts';
import type { Database, Executor } from '../../platform/db/database.ts';
import { msg } from '../../platform/i18n.ts';
import { admins, recoveryCodes } from '../db/schema.ts';
import type { SystemLog } from './log-records.ts';
import type { Notifier } from './notifier.ts';

/** What a person may type for a code: six digits (spaces allowed, as some apps show `123 456`), or a recovery code. */
export const AUTHENTICATOR_CODE = {
  minLength: 1,
  maxLength: 32,
  description: 'the current 6-digit authenticator code (spaces ignored), or one of the account’s unused recovery codes (`xxxxx-xxxxx`, case, spaces and hyphens ignored); a code of another shape is answered like a wrong one',
};

/** How many recovery codes a set holds. */
export const RECOVERY_CODE_COUNT = 10;
/** Digits and lower-case letters without those read alike (0/o, 1/i/l): 31 symbols. */
export const RECOVERY_ALPHABET = '23456789abcdefghjkmnpqrstuvwxyz';
const RECOVERY_LENGTH = 10;
/** A recovery code as shown: two groups of five, `k7m2q-9xv4c`. */
export const RECOVERY_CODE_PATTERN = `^[${RECOVERY_ALPHABET}]{5}-[${RECOVERY_ALPHABET}]{5}$`;

const sixDigits = (code: string) => {
  const digits = code.replace(/\s+/g, '');
  return /^\d{6}$/.test(digits) ? digits : null;
};

/** A typed recovery code in its stored form (lower case, no spaces or hyphens), or null when it cannot be one. */
export function normaliseRecoveryCode(typed: string): string | null {
  const code = typed.toLowerCase().replace(/[\s-]+/g, '');
  if (code.length !== RECOVERY_LENGTH) return null;
  for (const c of code) if (!RECOVERY_ALPHABET.includes(c)) return null;
  return code;
}

function newRecoveryCode(): string {
  let code = '';
  for (let i = 0; i < RECOVERY_LENGTH; i++) code += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/** A new set of recovery codes as shown once, and the hashes to store (made before any transaction: about 130 ms). */
export async function newRecoveryCodes(): Promise<{ codes: string[]; hashes: string[] }> {
  const codes = new Set<string>();
  while (codes.size < RECOVERY_CODE_COUNT) codes.add(newRecoveryCode());
  const list = [...codes];
  const hashes = await Promise.all(list.map((c) => hashPassword(normaliseRecoveryCode(c)!)));
  return { codes: list, hashes };
}

/** Replaces the administrator's recovery codes with `hashes` (the old ones stop working). */
export async function storeRecoveryCodes(db: Executor, adminId: number, hashes: readonly string[]): Promise<void> {
  await db.orm.delete(recoveryCodes).where(eq(recoveryCodes.adminId, adminId));
  await db.orm.insert(recoveryCodes).values(hashes.map((codeHash) => ({ adminId, codeHash })));
}

/** Deletes the administrator's recovery codes (their authenticator was removed). */
export async function dropRecoveryCodes(db: Executor, adminId: number): Promise<void> {
  await db.orm.delete(recoveryCodes).where(eq(recoveryCodes.adminId, adminId));
}

/** How many of the administrator's recovery codes are still unused. */
export async function recoveryCodesLeft(db: Executor, adminId: number): Promise<number> {
  const [row] = await db.orm
    .select({ n: count() })
    .from(recoveryCodes)
    .where(and(eq(recoveryCodes.adminId, adminId), isNull(recoveryCodes.usedAt)));
  return Number(row?.n ?? 0);
}

/**
 * Uses one of the administrator's recovery codes: the number of unused codes left after it, or
 * null when `typed` matches none of the unused ones (or another request used it first).
 */
export async function consumeRecoveryCode(db: Executor, adminId: number, typed: string): Promise<number | null> {
  const code = normaliseRecoveryCode(typed);
  if (code === null) return null;
  const unused = await db.orm
    .select({ id: recoveryCodes.id, hash: recoveryCodes.codeHash })
    .from(recoveryCodes)
    .where(and(eq(recoveryCodes.adminId, adminId), isNull(recoveryCodes.usedAt)));
  const matches = await Promise.all(unused.map((r) => verifyPassword(r.hash, code)));
  const match = unused.find((_, i) => matches[i]);
  if (!match) return null;
  const used = await db.orm
    .update(recoveryCodes)
    .set({ usedAt: new Date() })
    .where(and(eq(recoveryCodes.id, match.id), isNull(recoveryCodes.usedAt)))
    .returning({ id: recoveryCodes.id });
  if (used.length === 0) return null;
  return recoveryCodesLeft(db, adminId);
}

/**
 * Accepts a code of `secret` once: its time step must be newer than the last one the
 * administrator used. A code that is not six digits (spaces aside) is simply wrong.
 */
export async function consumeTotp(db: Executor, adminId: number, secret: string, code: string): Promise<boolean> {
  const step = matchTotpStep(secret, code.replace(/\s+/g, ''));
  if (step === null) return false;
  const updated = await db.orm
    .update(admins)
    .set({ totpLastStep: step })
    .where(and(eq(admins.id, adminId), or(isNull(admins.totpLastStep), lt(admins.totpLastStep, step))))
    .returning({ id: admins.id });
  return updated.length === 1;
}

/** What a recovery code was used for (said in the log row and the notification). */
export type RecoveryPurpose = 'login' | 'unbind' | 'regenerate';

export interface CodeContext {
  purpose: RecoveryPurpose;
  ip: string;
  traceId?: string | undefined;
}

/**
 * The second factor as sign-in and the self-service routes check it: a 6-digit code of the bound
 * secret, or a recovery code. Using a recovery code writes a system log row (level warning) and
 * notifies the account (kind `security`), so that a use by someone else does not go unseen.
 */
export class SecondFactor {
  private readonly db: Database;
  private readonly notifier: Notifier;
  private readonly systemLog: SystemLog;
  constructor(deps: { db: Database; notifier: Notifier; systemLog: SystemLog }) {
    this.db = deps.db;
    this.notifier = deps.notifier;
    this.systemLog = deps.systemLog;
  }

  /** How the code was accepted (`totp` or `recovery`, with the codes left), or null when it was not. */
  async accept(
    account: { id: number; username: string; secret: string },
    code: string,
    context: CodeContext,
  ): Promise<{ via: 'totp' } | { via: 'recovery'; left: number } | null> {
    if (sixDigits(code) !== null) return (await consumeTotp(this.db, account.id, account.secret, code)) ? { via: 'totp' } : null;
    const left = await consumeRecoveryCode(this.db, account.id, code);
    if (left === null) return null;
    await this.recoveryUsed(account, left, context);
    return { via: 'recovery', left };
  }

  private async recoveryUsed(account: { id: number; username: string }, left: number, context: CodeContext) {
    // Never the code itself: which one was used is of no help to anyone reading the log.
    this.systemLog.system('warning', `administrator ${account.username} used a recovery code (${context.purpose}); ${left} left`, {
      admin_id: account.id,
      username: account.username,
      purpose: context.purpose,
      ip: context.ip,
      recovery_codes_left: left,
    }, context.traceId);
    await this.notifier.notify(account.id, {
      kind: 'security',
      title: msg('admin.notifications.system.recoveryCodeUsedTitle'),
      content: msg(left === 0 ? 'admin.notifications.system.recoveryCodeUsedLast' : 'admin.notifications.system.recoveryCodeUsed', {
        purpose: msg(`admin.notifications.system.recoveryPurpose.${context.purpose}`),
        ip: context.ip,
        left,
      }),
    });
  }
}
