// Password recovery by an operator (`npm run reset-password -- admin <username>`): a new
// password, which its owner must replace at the next sign-in (someone else chose it), every
// session ended, the sign-in lockout cleared, in the caller's transaction.
// No caller account is involved, so none of the API's checks on the caller apply (protected
// accounts included): whoever can run the command already holds the database.
import { eq, sql } from 'drizzle-orm';
import type { Executor } from '../../../platform/db/database.ts';
import { admins, loginFailures } from '../../db/schema.ts';
import { storePassword } from '../../kernel/passwords.ts';
import { endSessionsOf } from '../../kernel/sessions.ts';

export interface RecoveredAdmin {
  id: number;
  username: string;
  /** Publish these on AUTH_CHANNEL once the transaction commits. */
  endedSessions: number[];
}

/** null when no administrator has that name (case-insensitive, as at sign-in). */
export async function recoverAdminAccount(tx: Executor, username: string, passwordHash: string): Promise<RecoveredAdmin | null> {
  const key = username.trim().toLowerCase();
  const [admin] = await tx.orm.select({ id: admins.id, username: admins.username }).from(admins).where(eq(sql`lower(${admins.username})`, key));
  if (!admin || !(await storePassword(tx, admin.id, passwordHash, 'other'))) return null;
  const endedSessions = await endSessionsOf(tx, admin.id, 'password_reset');
  await tx.orm.delete(loginFailures).where(eq(loginFailures.accountKey, key));
  return { ...admin, endedSessions };
}
