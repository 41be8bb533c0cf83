// Authenticator codes of administrators (part of the access kernel): sign-in, binding and
// unbinding an authenticator all accept a code the same way, once.
import { and, eq, isNull, lt, or } from 'drizzle-orm';
import { matchTotpStep } from '../../platform/auth/totp.ts';
import type { Executor } from '../../platform/db/database.ts';
import { admins } from '../db/schema.ts';

/** What a person may type for a code: six digits, spaces allowed (some apps show `123 456`). */
export const AUTHENTICATOR_CODE = { minLength: 1, maxLength: 16, description: 'the current 6-digit authenticator code (spaces ignored); a code of another shape is answered like a wrong one' };

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
