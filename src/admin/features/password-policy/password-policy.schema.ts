import { Type } from 'typebox';
import { POLICY_BOUNDS } from '../../../platform/auth/password-policy.ts';
import { Nullable } from '../../../platform/http/schemas.ts';
import { Body, Envelope } from '../../http.ts';

/** The settings, as the policy screen edits them (every one sent: a save replaces the policy). */
const PolicyFields = {
  min_length: Type.Integer({ ...POLICY_BOUNDS.minLength, description: 'characters a new password has at least (default 12)' }),
  min_classes: Type.Integer({
    ...POLICY_BOUNDS.minClasses,
    description: 'kinds of characters a new password mixes at least, of 4: lower-case letters, upper-case letters, digits, others (default 3)',
  }),
  reject_common: Type.Boolean({ description: 'refuse the 10,000 most common passwords, compared without case (default true)' }),
  reject_username: Type.Boolean({ description: 'refuse a password containing the username, without case (default true)' }),
  history: Type.Integer({
    ...POLICY_BOUNDS.history,
    description: 'a new password differs from the account’s last this many passwords, the current one included (default 5); 0: from the current one only, as the change asks',
  }),
  max_age_days: Type.Integer({ ...POLICY_BOUNDS.maxAgeDays, description: 'days after which sign-in asks for a new password; 0: never (default)' }),
  lock_max_failures: Type.Integer({
    ...POLICY_BOUNDS.lockMaxFailures,
    description: 'failed sign-ins of one account name within `lock_seconds` that lock it (default: LOGIN_MAX_FAILURES, 5)',
  }),
  lock_seconds: Type.Integer({
    ...POLICY_BOUNDS.lockSeconds,
    description: 'the failure-counting window and the lock’s duration, seconds (default: LOGIN_LOCK_SECONDS, 900)',
  }),
};

export const PolicyBody = Body(PolicyFields);

export const PolicyReply = Envelope(Type.Object({
  ...PolicyFields,
  stored: Type.Boolean({ description: 'false: nobody saved a policy yet, and these are the defaults' }),
  updated_at: Nullable(Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }), { description: 'when it was last saved' }),
  updated_by: Nullable(Type.String(), { description: 'the username of who saved it last (null: never saved, or that administrator was deleted)' }),
}));
