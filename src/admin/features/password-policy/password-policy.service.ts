// The password and account policy as the console manages it: one row (admin.password_policy),
// the defaults until someone saves it. A save tells every instance (kernel/passwords.ts reads it
// again), and applies to the next password set and the next sign-in: passwords already set are
// not checked again, sessions open at the time are restricted when their password expires.
import { eq, sql } from 'drizzle-orm';
import type { Static } from 'typebox';
import type { PasswordPolicies } from '../../../platform/auth/password-policy.ts';
import type { Config } from '../../../platform/config.ts';
import type { Database } from '../../../platform/db/database.ts';
import { formatDisplay } from '../../../platform/time.ts';
import { admins, passwordPolicy } from '../../db/schema.ts';
import type { Principal } from '../../kernel/guard.ts';
import type { PolicyBody, PolicyReply } from './password-policy.schema.ts';

export class PasswordPolicyService {
  private readonly db: Database;
  private readonly policies: PasswordPolicies;
  private readonly tz: string;
  constructor(deps: { db: Database; config: Config; policies: PasswordPolicies }) {
    this.db = deps.db;
    this.policies = deps.policies;
    this.tz = deps.config.DISPLAY_TIMEZONE;
  }

  async get(): Promise<Static<typeof PolicyReply>['data']> {
    const [[saved], policy] = await Promise.all([
      this.db.orm.select({ updatedAt: passwordPolicy.updatedAt, by: admins.username }).from(passwordPolicy)
        .leftJoin(admins, eq(admins.id, passwordPolicy.updatedBy)).where(eq(passwordPolicy.id, 1)),
      this.policies.current(),
    ]);
    return {
      min_length: policy.minLength,
      min_classes: policy.minClasses,
      reject_common: policy.rejectCommon,
      reject_username: policy.rejectUsername,
      history: policy.history,
      max_age_days: policy.maxAgeDays,
      lock_max_failures: policy.lockMaxFailures,
      lock_seconds: policy.lockSeconds,
      stored: saved !== undefined,
      updated_at: formatDisplay(saved?.updatedAt, this.tz),
      updated_by: saved?.by ?? null,
    };
  }

  async update(caller: Principal, input: Static<typeof PolicyBody>): Promise<Static<typeof PolicyReply>['data']> {
    const values = {
      minLength: input.min_length,
      minClasses: input.min_classes,
      rejectCommon: input.reject_common,
      rejectUsername: input.reject_username,
      history: input.history,
      maxAgeDays: input.max_age_days,
      lockMaxFailures: input.lock_max_failures,
      lockSeconds: input.lock_seconds,
      updatedBy: caller.adminId,
      updatedAt: sql`now()`,
    };
    await this.db.orm.insert(passwordPolicy).values({ id: 1, ...values }).onConflictDoUpdate({ target: passwordPolicy.id, set: values });
    await this.policies.changed();
    return this.get();
  }
}
