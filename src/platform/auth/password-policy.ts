// The password and account policy both services apply: what a new password must be (length,
// kinds of characters, not one of the 10,000 most common, not containing the username, none of
// the account's last passwords), how long a password lasts, and when repeated failed sign-ins
// lock an account. The rules are checked here; each service stores its accounts' hashes and
// history, and the admin service stores the one policy row (src/admin/kernel/passwords.ts)
// that `PasswordPolicies` loads.
import type { Config } from '../config.ts';
import type { PubSub } from '../cache/pubsub.ts';
import { msg, type Msg } from '../i18n.ts';
import { verifyPassword } from './password.ts';

export interface PasswordPolicy {
  /** Characters (code points) a new password has at least. */
  minLength: number;
  /** Kinds of characters (lower-case, upper-case, digits, others) a new password mixes at least. */
  minClasses: number;
  /** Refuse the 10,000 most common passwords (compared without case). */
  rejectCommon: boolean;
  /** Refuse a password that contains the account's username (without case). */
  rejectUsername: boolean;
  /** How many of the account's latest passwords (the current one included) a new one must differ from; 0: only the rules above. */
  history: number;
  /** Days a password lasts before sign-in asks for a new one; 0: forever. */
  maxAgeDays: number;
  /** Failed sign-ins of one account name within `lockSeconds` that lock it (each service counts its own accounts' names). */
  lockMaxFailures: number;
  /** The failure-counting window and the lock's duration, seconds. */
  lockSeconds: number;
}

/** The bounds of each setting (the API's schema and the console's form use them). */
export const POLICY_BOUNDS = {
  minLength: { minimum: 8, maximum: 128 },
  minClasses: { minimum: 1, maximum: 4 },
  history: { minimum: 0, maximum: 24 },
  maxAgeDays: { minimum: 0, maximum: 3650 },
  lockMaxFailures: { minimum: 1, maximum: 100 },
  lockSeconds: { minimum: 1, maximum: 86_400 },
} as const;

/** The policy before anyone sets one: the defaults, and the lockout the environment configures. */
export function defaultPolicy(config: Pick<Config, 'LOGIN_MAX_FAILURES' | 'LOGIN_LOCK_SECONDS'>): PasswordPolicy {
  return {
    minLength: 12,
    minClasses: 3,
    rejectCommon: true,
    rejectUsername: true,
    history: 5,
    maxAgeDays: 0,
    lockMaxFailures: config.LOGIN_MAX_FAILURES,
    lockSeconds: config.LOGIN_LOCK_SECONDS,
  };
}

/** The rule a refused password broke (the `rule` of a refusal's details). */
export type PasswordRule = 'min_length' | 'char_classes' | 'username' | 'common' | 'history';

export interface PasswordRefusal {
  rule: PasswordRule;
  /** What the rule asks, in the reader's language. */
  detail: Msg;
}

/** How many of the four kinds of characters `password` mixes: lower-case, upper-case, digits, anything else. */
export function characterClasses(password: string): number {
  return [/\p{Ll}/u, /\p{Lu}/u, /\p{Nd}/u, /[^\p{Ll}\p{Lu}\p{Nd}]/u].filter((kind) => kind.test(password)).length;
}

let common: Promise<ReadonlySet<string>> | undefined;
/**
 * The 10,000 most common passwords, lower-case: the head of the frequency-ordered list that
 * @zxcvbn-ts/language-common ships (from leaked password sets). Loaded on the first check that needs it.
 */
export function commonPasswords(): Promise<ReadonlySet<string>> {
  common ??= import('@zxcvbn-ts/language-common').then(({ dictionary }) => new Set(dictionary['passwords-common'].slice(0, 10_000)));
  return common;
}

/**
 * The first rule of `policy` that `password` breaks, or null when it may be set. `username` is the
 * account's; `previous` its current hash then its earlier ones, newest first (verified only when
 * the cheaper rules pass, at most `history` of them).
 */
export async function checkPassword(
  policy: PasswordPolicy,
  input: { password: string; username: string; previous?: readonly string[] },
): Promise<PasswordRefusal | null> {
  const { password } = input;
  if ([...password].length < policy.minLength) return { rule: 'min_length', detail: msg('platform.password.minLength', { min: policy.minLength }) };
  if (characterClasses(password) < policy.minClasses) {
    return { rule: 'char_classes', detail: msg('platform.password.charClasses', { min: policy.minClasses }) };
  }
  const lower = password.toLowerCase();
  const username = input.username.trim().toLowerCase();
  if (policy.rejectUsername && username && lower.includes(username)) return { rule: 'username', detail: msg('platform.password.username') };
  if (policy.rejectCommon && (await commonPasswords()).has(lower)) return { rule: 'common', detail: msg('platform.password.common') };
  for (const hash of (input.previous ?? []).slice(0, policy.history)) {
    if (await verifyPassword(hash, password)) {
      return {
        rule: 'history',
        detail: policy.history === 1 ? msg('platform.password.sameAsCurrent') : msg('platform.password.history', { count: policy.history }),
      };
    }
  }
  return null;
}

/**
 * Whether sign-in must ask the account for a new password: someone else set it (`mustChange`), or
 * it is older than the policy's maximum age.
 */
export function passwordChangeDue(policy: PasswordPolicy, account: { mustChange: boolean; changedAt: Date }, now = Date.now()): boolean {
  return account.mustChange || (policy.maxAgeDays > 0 && now - account.changedAt.getTime() >= policy.maxAgeDays * 86_400_000);
}

/** Pub/sub channel: the stored policy changed; every instance reads it again. */
export const POLICY_CHANNEL = 'password-policy';
/** How long an instance trusts the policy it read (a lost change message delays it this long at most). */
const POLICY_CACHE_MS = 60_000;

/**
 * The policy in force on this instance: the stored one (`load`), the defaults when none is stored
 * or no loader is given (a time clock running without the back office), read again after a change
 * is announced on POLICY_CHANNEL, or after POLICY_CACHE_MS.
 */
export class PasswordPolicies {
  readonly defaults: PasswordPolicy;
  private readonly load: (() => Promise<Partial<PasswordPolicy> | null>) | undefined;
  private readonly pubsub: PubSub | undefined;
  private cached: { at: number; policy: Promise<PasswordPolicy> } | undefined;
  private unsubscribe: (() => Promise<void>) | undefined;

  constructor(deps: { defaults: PasswordPolicy; load?: () => Promise<Partial<PasswordPolicy> | null>; pubsub?: PubSub }) {
    this.defaults = deps.defaults;
    this.load = deps.load;
    this.pubsub = deps.pubsub;
  }

  async start(): Promise<void> {
    if (this.load && this.pubsub) this.unsubscribe = await this.pubsub.subscribe(POLICY_CHANNEL, () => this.forget());
  }

  async stop(): Promise<void> {
    await this.unsubscribe?.();
  }

  current(): Promise<PasswordPolicy> {
    const now = Date.now();
    if (!this.load) return Promise.resolve(this.defaults);
    if (!this.cached || now - this.cached.at >= POLICY_CACHE_MS) {
      const policy = this.load().then((stored) => ({ ...this.defaults, ...stored }));
      // A failed read is not kept: the next caller tries again.
      policy.catch(() => {
        if (this.cached?.policy === policy) this.cached = undefined;
      });
      this.cached = { at: now, policy };
    }
    return this.cached.policy;
  }

  /** Tells every instance (this one at once) that the stored policy changed. */
  async changed(): Promise<void> {
    this.forget();
    await this.pubsub?.publish(POLICY_CHANNEL, {});
  }

  private forget(): void {
    this.cached = undefined;
  }
}
