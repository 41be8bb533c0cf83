// Password recovery by an operator (`npm run reset-password -- timeclock <username>`), for a
// worker or a manager: a new password that revokes every token issued before it (its token
// version moves on; each instance sees it within a second, see kernel/auth.ts), and which its
// owner must replace before anything else (someone else chose it). The sign-in lockout of the
// account's name ends and its failures are forgotten (auth.service.ts), so the owner can sign in
// with it at once.
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../../../platform/db/database.ts';
import { storePassword } from '../../kernel/passwords.ts';
import { loginFailures, users } from '../../db/schema.ts';

/** null when no live account has that name (case-insensitive, as at sign-in). */
export async function recoverTimeclockAccount(tx: Executor, username: string, passwordHash: string) {
  const [account] = await tx.orm.select({ id: users.id, username: users.username, role: users.role }).from(users)
    .where(and(eq(sql`lower(${users.username})`, username.trim().toLowerCase()), isNull(users.deletedAt)));
  if (!account || !(await storePassword(tx, account.id, passwordHash, 'other'))) return null;
  await tx.orm.delete(loginFailures).where(eq(loginFailures.accountKey, sql`lower(${account.username})`));
  return account;
}
