// The earlier passwords of accounts, as argon2id hashes, so that a new password can be refused
// for being one of the last few (the password policy's `history`). Each service keeps them in a
// `<schema>.password_history` table that its schema module declares with `passwordHistoryTable`
// and its migration creates; its current password stays in its own accounts table.
import { and, desc, eq, notInArray } from 'drizzle-orm';
import { bigint, text, timestamp, type PgSchema } from 'drizzle-orm/pg-core';
import type { Executor } from '../db/database.ts';
import { POLICY_BOUNDS } from './password-policy.ts';

/** Earlier hashes kept per account besides the current one: enough for the largest `history`, which counts the current one. */
export const HISTORY_KEPT = POLICY_BOUNDS.history.maximum - 1;

export const passwordHistoryTable = (schema: PgSchema<string>) => schema.table('password_history', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
  accountId: bigint('account_id', { mode: 'number' }).notNull(),
  passwordHash: text('password_hash').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

export type PasswordHistoryTable = ReturnType<typeof passwordHistoryTable>;

/** The account's earlier hashes, newest first (its current one is the caller's). */
export async function earlierPasswords(exec: Executor, table: PasswordHistoryTable, accountId: number): Promise<string[]> {
  const rows = await exec.orm.select({ hash: table.passwordHash }).from(table)
    .where(eq(table.accountId, accountId)).orderBy(desc(table.id)).limit(HISTORY_KEPT);
  return rows.map((r) => r.hash);
}

/** Keeps the outgoing hash of an account whose password changes (in the caller's transaction), dropping the oldest beyond HISTORY_KEPT. */
export async function rememberPassword(tx: Executor, table: PasswordHistoryTable, accountId: number, outgoingHash: string): Promise<void> {
  await tx.orm.insert(table).values({ accountId, passwordHash: outgoingHash });
  const kept = tx.orm.select({ id: table.id }).from(table).where(eq(table.accountId, accountId)).orderBy(desc(table.id)).limit(HISTORY_KEPT);
  await tx.orm.delete(table).where(and(eq(table.accountId, accountId), notInArray(table.id, kept)));
}
