// Password recovery by an operator (`npm run reset-password -- timeclock <username>`), for a
// worker or a manager: a new password that revokes every token issued before it (its token
// version moves on; each instance sees it within a second, see kernel/auth.ts). The time clock has no per-account lockout
// (its sign-in limit counts per address), so there is none to clear.
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../../../platform/db/database.ts';
import { REVOKE_TOKENS } from '../../kernel/auth.ts';
import { users } from '../../db/schema.ts';

/** null when no live account has that name (case-insensitive, as at sign-in). */
export async function recoverTimeclockAccount(tx: Executor, username: string, passwordHash: string) {
  const [account] = await tx.orm
    .update(users)
    .set({ passwordHash, ...REVOKE_TOKENS, updatedAt: sql`now()` })
    .where(and(eq(sql`lower(${users.username})`, username.trim().toLowerCase()), isNull(users.deletedAt)))
    .returning({ id: users.id, username: users.username, role: users.role });
  return account ?? null;
}
