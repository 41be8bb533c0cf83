// Administrators' passwords (part of the access kernel): the one stored password policy, which
// both services apply (the time clock through the process it shares with the back office:
// src/server.ts), a new password checked against it and the account's earlier ones, and the one
// way a password is written: the outgoing hash kept in the account's history, the new one's age
// started, and whether its owner must replace it (someone else chose it) recorded.
import { eq } from 'drizzle-orm';
import { earlierPasswords, rememberPassword } from '../../platform/auth/password-history.ts';
import { checkPassword, defaultPolicy, PasswordPolicies, type PasswordPolicy } from '../../platform/auth/password-policy.ts';
import type { PubSub } from '../../platform/cache/pubsub.ts';
import type { Config } from '../../platform/config.ts';
import type { Database, Executor } from '../../platform/db/database.ts';
import { AppError } from '../../platform/http/errors.ts';
import { formatDisplay } from '../../platform/time.ts';
import { admins, passwordHistory, passwordPolicy } from '../db/schema.ts';
import { E } from '../errors.ts';

/** The policy in force: the stored row, or the defaults (LOGIN_MAX_FAILURES, LOGIN_LOCK_SECONDS for the lockout). */
export function adminPasswordPolicies(deps: { db: Database; config: Config; pubsub: PubSub }): PasswordPolicies {
  return new PasswordPolicies({
    defaults: defaultPolicy(deps.config),
    pubsub: deps.pubsub,
    load: async (): Promise<Partial<PasswordPolicy> | null> => {
      const [row] = await deps.db.orm.select().from(passwordPolicy).where(eq(passwordPolicy.id, 1));
      if (!row) return null;
      const { id: _id, updatedBy: _by, updatedAt: _at, ...policy } = row;
      return policy;
    },
  });
}

/** Who chose a password: its owner, or someone else (then sign-in asks the owner for a new one). */
export type PasswordSetter = 'owner' | 'other';

/**
 * Refuses (400, 30007, its detail naming the rule) a password the policy does not accept for
 * `username`; with `adminId`, also one of the account's last `history` passwords.
 */
export async function assertPasswordAccepted(
  policies: PasswordPolicies,
  exec: Executor,
  input: { password: string; username: string; adminId?: number; field: string },
): Promise<void> {
  const policy = await policies.current();
  const previous: string[] = [];
  if (input.adminId !== undefined && policy.history > 0) {
    const [current] = await exec.orm.select({ hash: admins.passwordHash }).from(admins).where(eq(admins.id, input.adminId));
    if (current) previous.push(current.hash, ...(policy.history > 1 ? await earlierPasswords(exec, passwordHistory, input.adminId) : []));
  }
  const refusal = await checkPassword(policy, { password: input.password, username: input.username, previous });
  if (refusal) throw new AppError(E.PASSWORD_REFUSED, { detail: refusal.detail, details: { field: input.field, rule: refusal.rule } });
}

/**
 * Stores `hash` as the administrator's password (in the caller's transaction `tx`): the outgoing
 * one goes to the history, the age starts now, and the owner must choose a new one at the next
 * sign-in when someone else set it. Sessions are the caller's to end. Returns false when there is
 * no such administrator.
 */
export async function storePassword(tx: Executor, adminId: number, hash: string, setBy: PasswordSetter): Promise<boolean> {
  const [before] = await tx.orm.select({ hash: admins.passwordHash }).from(admins).where(eq(admins.id, adminId)).for('update');
  if (!before) return false;
  await rememberPassword(tx, passwordHistory, adminId, before.hash);
  await tx.orm.update(admins)
    .set({ passwordHash: hash, passwordChangedAt: new Date(), mustChangePassword: setBy === 'other', updatedAt: new Date() })
    .where(eq(admins.id, adminId));
  return true;
}

/**
 * An administrator's password as the operation log keeps its state (kernel/audit.ts): when it was
 * set and whether it must change, never the hash; null when there is no such administrator.
 */
export async function passwordState(db: Database, adminId: number, tz: string) {
  const [row] = await db.orm.select({ at: admins.passwordChangedAt, must: admins.mustChangePassword }).from(admins).where(eq(admins.id, adminId));
  return row ? { password_changed_at: formatDisplay(row.at, tz), must_change_password: row.must } : null;
}
