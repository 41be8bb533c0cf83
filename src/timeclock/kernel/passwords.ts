// Workers' and managers' passwords (part of the access kernel): a new password checked against
// the password policy (the back office's when it runs in this process, else the defaults:
// src/server.ts) and the account's earlier ones, and the one way a password is written: the
// outgoing hash kept in the account's history, the new one's age started, whether its owner must
// replace it (someone else chose it) recorded, and every token issued before revoked.
import { eq, sql } from 'drizzle-orm';
import { earlierPasswords, rememberPassword } from '../../platform/auth/password-history.ts';
import { checkPassword, type PasswordPolicies } from '../../platform/auth/password-policy.ts';
import type { Executor } from '../../platform/db/database.ts';
import { AppError } from '../../platform/http/errors.ts';
import { passwordHistory, users } from '../db/schema.ts';
import { E } from '../errors.ts';
import { REVOKE_TOKENS } from './auth.ts';

/** Who chose a password: its owner, or someone else (then the owner must choose a new one before anything else). */
export type PasswordSetter = 'owner' | 'other';

/**
 * Refuses (400 VALIDATION_ERROR, `details` naming the field and the rule) a password the policy
 * does not accept for `username`; with `userId`, also one of the account's last `history` passwords.
 */
export async function assertPasswordAccepted(
  policies: PasswordPolicies,
  exec: Executor,
  input: { password: string; username: string; userId?: number; field: string },
): Promise<void> {
  const policy = await policies.current();
  const previous: string[] = [];
  if (input.userId !== undefined && policy.history > 0) {
    const [current] = await exec.orm.select({ hash: users.passwordHash }).from(users).where(eq(users.id, input.userId));
    if (current) previous.push(current.hash, ...(policy.history > 1 ? await earlierPasswords(exec, passwordHistory, input.userId) : []));
  }
  const refusal = await checkPassword(policy, { password: input.password, username: input.username, previous });
  if (refusal) throw new AppError(E.VALIDATION_ERROR, { detail: refusal.detail, details: { field: input.field, rule: refusal.rule } });
}

/**
 * Stores `hash` as the password of the account `userId` (in the caller's transaction): the
 * outgoing one goes to the history, the age starts now, every earlier token is revoked, and the
 * owner must choose a new one when someone else set it. The caller tells the instances
 * (TimeclockAuth.forget) once it commits. Returns the account's new token version (null: no such
 * account).
 */
export async function storePassword(tx: Executor, userId: number, hash: string, setBy: PasswordSetter): Promise<{ tokenVersion: number } | null> {
  const [before] = await tx.orm.select({ hash: users.passwordHash }).from(users).where(eq(users.id, userId)).for('update');
  if (!before) return null;
  await rememberPassword(tx, passwordHistory, userId, before.hash);
  const [after] = await tx.orm.update(users)
    .set({ passwordHash: hash, passwordChangedAt: sql`now()`, mustChangePassword: setBy === 'other', ...REVOKE_TOKENS, updatedAt: sql`now()` })
    .where(eq(users.id, userId))
    .returning({ tokenVersion: users.tokenVersion });
  return after!;
}
