// The password policy's rules as pure functions (src/platform/auth/password-policy.ts): the kinds
// of characters, the common list, the first rule broken in order, the history against real
// argon2id hashes, and when a password is due for a change.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hashPassword } from '../../src/platform/auth/password.ts';
import { characterClasses, checkPassword, commonPasswords, defaultPolicy, passwordChangeDue, type PasswordPolicy } from '../../src/platform/auth/password-policy.ts';

const policy: PasswordPolicy = defaultPolicy({ LOGIN_MAX_FAILURES: 5, LOGIN_LOCK_SECONDS: 900 });
const ruleOf = async (password: string, changes: Partial<PasswordPolicy> = {}, previous: string[] = []) =>
  (await checkPassword({ ...policy, ...changes }, { password, username: 'Jo.Smith', previous }))?.rule ?? null;

describe('password policy rules', () => {
  test('the defaults: 12 characters, 3 of 4 kinds, no common password, not the username, the last 5, no expiry; the lockout from the environment', () => {
    assert.deepEqual(policy, { minLength: 12, minClasses: 3, rejectCommon: true, rejectUsername: true, history: 5, maxAgeDays: 0, lockMaxFailures: 5, lockSeconds: 900 });
  });

  test('kinds of characters: lower-case, upper-case, digits and anything else, in any script', () => {
    assert.equal(characterClasses('abc'), 1);
    assert.equal(characterClasses('abcDEF'), 2);
    assert.equal(characterClasses('abcDEF123'), 3);
    assert.equal(characterClasses('abcDEF123 '), 4);
    assert.equal(characterClasses('éÉ٣'), 3, 'accented letters and Arabic-Indic digits');
    assert.equal(characterClasses('密码密码'), 1, 'letters without case count as "others"');
  });

  test('the common list holds the 10,000 most common passwords, lower-case', async () => {
    const common = await commonPasswords();
    assert.equal(common.size, 10_000);
    for (const p of ['123456', 'password', 'qwerty123456', 'sunshine']) assert.ok(common.has(p), p);
  });

  test('the first rule broken, in order: length, kinds, username, common list, history', async () => {
    assert.equal(await ruleOf('Abc-123'), 'min_length');
    assert.equal(await ruleOf('密码密码密码密码密码密码'), 'char_classes', 'twelve characters, counted as code points');
    assert.equal(await ruleOf('abcdefghijkl'), 'char_classes');
    assert.equal(await ruleOf('X-JO.SMITH-2024'), 'username');
    assert.equal(await ruleOf('Qwerty123456'), 'common');
    assert.equal(await ruleOf('Harbour-lights-2031'), null);
    assert.equal(await ruleOf('Qwerty123456', { rejectCommon: false }), null);
    assert.equal(await ruleOf('X-JO.SMITH-2024', { rejectUsername: false }), null);
    assert.equal(await ruleOf('abcdefgh', { minLength: 8, minClasses: 1, rejectCommon: false }), null);
  });

  test('history: the current password and the earlier ones, as many as `history` asks', async () => {
    const [current, earlier, oldest] = await Promise.all(['Current-pass-0001', 'Earlier-pass-0002', 'Oldest-pass-00003'].map(hashPassword));
    const previous = [current!, earlier!, oldest!];
    assert.equal(await ruleOf('Current-pass-0001', {}, previous), 'history');
    assert.equal(await ruleOf('Oldest-pass-00003', {}, previous), 'history');
    assert.equal(await ruleOf('Oldest-pass-00003', { history: 2 }, previous), null);
    assert.equal(await ruleOf('Earlier-pass-0002', { history: 0 }, previous), null);
    const refusal = await checkPassword({ ...policy, history: 1 }, { password: 'Current-pass-0001', username: 'jo', previous });
    assert.equal(refusal?.detail.key, 'platform.password.sameAsCurrent');
  });

  test('a password is due when someone else set it, or when it is older than the maximum age', () => {
    const now = Date.parse('2026-06-01T00:00:00Z');
    const days = (n: number) => new Date(now - n * 86_400_000);
    assert.equal(passwordChangeDue(policy, { mustChange: true, changedAt: days(0) }, now), true);
    assert.equal(passwordChangeDue(policy, { mustChange: false, changedAt: days(10_000) }, now), false, 'no maximum age by default');
    assert.equal(passwordChangeDue({ ...policy, maxAgeDays: 30 }, { mustChange: false, changedAt: days(29) }, now), false);
    assert.equal(passwordChangeDue({ ...policy, maxAgeDays: 30 }, { mustChange: false, changedAt: days(30) }, now), true);
  });
});
