// The password and account policy of the back office: each rule refused with a message naming
// it (in both languages) and accepted; the policy managed in the console (permission, bounds,
// operation log); a password someone else set (created, given, reset, generated at start-up)
// replaced before anything else, with the same session going on; the history; expiry; the
// lockout's thresholds from the policy, and unlocking.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { closeAll, startApp, within, type TestApp } from '../helpers/app.ts';
import { assertError, assertOk } from '../helpers/assert.ts';
import { call, login, seedAdmin, signedInAdmin, type Reply } from '../helpers/http.ts';

let app: TestApp;
let admin: string;

before(async () => {
  app = await startApp();
  admin = await login(app);
});
after(() => closeAll(app));

const DEFAULTS = {
  min_length: 12, min_classes: 3, reject_common: true, reject_username: true, history: 5, max_age_days: 0, lock_max_failures: 5, lock_seconds: 900,
};

/** Sets the policy (every setting: the defaults, with `changes`). */
async function setPolicy(changes: Partial<typeof DEFAULTS> = {}) {
  return assertOk(await call(app, 'PUT', '/api/admin/password-policy', { token: admin, body: { ...DEFAULTS, ...changes } }));
}

/** The administrator `username` created by the super administrator with `password`, in `lang`. */
const create = (username: string, password: string, lang = 'en-US') =>
  call(app, 'POST', '/api/admin/admins', { token: admin, body: { username, password }, headers: { 'accept-language': lang } });

/** A refusal of the password by the policy: 400 30007, its message naming the rule in the request's language. */
function assertRefused(res: Reply, rule: RegExp): void {
  assertError(res, 400, 30007);
  assert.match(res.body.message, rule, res.body.message);
}

let seq = 0;
const newName = (stem = 'pp') => `${stem}${(seq += 1)}${Date.now().toString(36)}`;

/** Signs in `username`; the login reply's data. */
async function signIn(username: string, password: string) {
  return assertOk(await call(app, 'POST', '/api/admin/login', { body: { username, password } }));
}

describe('the rules, each refused with its name in both languages and accepted', () => {
  after(() => setPolicy());

  test('minimum length', async () => {
    assertRefused(await create(newName(), 'Abcd-1234'), /the password must be at least 12 characters long/);
    assertRefused(await create(newName(), 'Abcd-1234', 'zh-CN'), /密码长度至少为 12 个字符/);
    assertOk(await create(newName(), 'Abcd-1234-xyz'));
    await setPolicy({ min_length: 16 });
    assertRefused(await create(newName(), 'Abcd-1234-xyz'), /at least 16 characters/);
    assertOk(await create(newName(), 'Abcd-1234-xyz-7890'));
    await setPolicy();
  });

  test('kinds of characters', async () => {
    assertRefused(await create(newName(), 'abcdefgh12345'), /at least 3 of the 4 kinds of characters: lower-case letters, upper-case letters, digits, other characters/);
    assertRefused(await create(newName(), 'abcdefgh12345', 'zh-CN'), /至少包含以下 4 类字符中的 3 类/);
    assertOk(await create(newName(), 'Abcdefgh12345'));
    // A space is a character of the fourth kind.
    assertOk(await create(newName(), 'abcdefgh 1234'));
    await setPolicy({ min_classes: 4 });
    assertRefused(await create(newName(), 'Abcdefgh12345'), /at least 4 of the 4 kinds/);
    assertOk(await create(newName(), 'Abcdefgh-12345'));
    await setPolicy();
  });

  test('the username', async () => {
    const username = newName('clerk');
    assertRefused(await create(username, `X-${username.toUpperCase()}-9`), /the password must not contain the username/);
    assertRefused(await create(username, `X-${username.toUpperCase()}-9`, 'zh-CN'), /密码不能包含用户名/);
    await setPolicy({ reject_username: false });
    assertOk(await create(username, `X-${username.toUpperCase()}-9`));
    await setPolicy();
  });

  test('the 10,000 most common passwords, compared without case', async () => {
    assertRefused(await create(newName(), 'Qwerty123456'), /the password is one of the 10,000 most common passwords/);
    assertRefused(await create(newName(), 'Qwerty123456', 'zh-CN'), /该密码属于最常用的 10,000 个密码之一/);
    await setPolicy({ min_length: 8, min_classes: 1 });
    assertRefused(await create(newName(), 'SUNSHINE'), /most common passwords/);
    assertOk(await create(newName(), 'sunshine-over-the-hills'));
    await setPolicy({ reject_common: false });
    assertOk(await create(newName(), 'Qwerty123456'));
    await setPolicy();
  });

  test('the last passwords: a reset and the owner’s change refuse the last `history` of them', async () => {
    const who = await seedAdmin(app, { password: 'First-pass-0001' });
    const reset = (password: string, lang = 'en-US') =>
      call(app, 'PUT', `/api/admin/admins/${who.id}/reset-password`, { token: admin, body: { password }, headers: { 'accept-language': lang } });
    assertOk(await reset('Second-pass-0002'));
    assertOk(await reset('Third-pass-0003'));
    assertRefused(await reset('First-pass-0001'), /the password must differ from the last 5 passwords of the account/);
    assertRefused(await reset('First-pass-0001', 'zh-CN'), /新密码不能与该账号最近 5 次使用的密码相同/);
    assertRefused(await reset('Third-pass-0003'), /the last 5 passwords/);
    await setPolicy({ history: 2 });
    assertRefused(await reset('Second-pass-0002'), /the last 2 passwords/);
    assertOk(await reset('First-pass-0001'));
    await setPolicy({ history: 1 });
    assertRefused(await reset('First-pass-0001'), /the new password must differ from the current one/);
    await setPolicy();

    // The owner's own change: the history holds what the others set too.
    const token = (await signIn(who.username, 'First-pass-0001')).token;
    const change = (password: string) =>
      call(app, 'PUT', '/api/admin/password', { token, body: { old_password: 'First-pass-0001', password, password_confirmation: password } });
    assertRefused(await change('Second-pass-0002'), /the last 5 passwords/);
    assertOk(await change('Fourth-pass-0004'));
  });
});

describe('the policy in the console', () => {
  after(() => setPolicy());

  test('the defaults until saved, with the lockout from the environment; a save is read back with who saved it', async () => {
    const before = assertOk(await call(app, 'GET', '/api/admin/password-policy', { token: admin }));
    // Earlier blocks saved it: its values are the defaults again.
    assert.deepEqual({ ...before, stored: undefined, updated_at: undefined, updated_by: undefined }, { ...DEFAULTS, stored: undefined, updated_at: undefined, updated_by: undefined });
    const saved = await setPolicy({ min_length: 14, max_age_days: 90, lock_max_failures: 3, lock_seconds: 600 });
    assert.equal(saved.min_length, 14);
    assert.equal(saved.max_age_days, 90);
    assert.equal(saved.stored, true);
    assert.equal(saved.updated_by, 'admin');
    assert.match(saved.updated_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const rules = assertOk(await call(app, 'GET', '/api/admin/password/policy', { token: admin }));
    assert.deepEqual(rules, { min_length: 14, min_classes: 3, reject_common: true, reject_username: true, history: 5, max_age_days: 90 });
  });

  test('a fresh database has no stored policy: the environment’s lockout', async () => {
    const other = await startApp({ LOGIN_MAX_FAILURES: '7', LOGIN_LOCK_SECONDS: '120' });
    try {
      const policy = assertOk(await call(other, 'GET', '/api/admin/password-policy', { token: await login(other) }));
      assert.equal(policy.stored, false);
      assert.equal(policy.updated_by, null);
      assert.deepEqual({ ...policy, stored: undefined, updated_at: undefined, updated_by: undefined },
        { ...DEFAULTS, lock_max_failures: 7, lock_seconds: 120, stored: undefined, updated_at: undefined, updated_by: undefined });
    } finally {
      await other.close();
    }
  });

  test('reading and saving need their permissions; values out of bounds are refused; a save is in the operation log', async () => {
    const viewer = await signedInAdmin(app, { permissions: ['password_policy.view'] });
    assertOk(await call(app, 'GET', '/api/admin/password-policy', { token: viewer.token }));
    assertError(await call(app, 'PUT', '/api/admin/password-policy', { token: viewer.token, body: DEFAULTS }), 403, 20001);
    const nobody = await signedInAdmin(app);
    assertError(await call(app, 'GET', '/api/admin/password-policy', { token: nobody.token }), 403, 20001);
    for (const bad of [{ min_length: 7 }, { min_classes: 5 }, { history: 25 }, { max_age_days: -1 }, { lock_max_failures: 0 }]) {
      assertError(await call(app, 'PUT', '/api/admin/password-policy', { token: admin, body: { ...DEFAULTS, ...bad } }), 400, 30001);
    }
    assertError(await call(app, 'PUT', '/api/admin/password-policy', { token: admin, body: { min_length: 12 } }), 400, 30001);
    await setPolicy({ history: 3 });
    const logged = await within(3000, async () => {
      const logs = assertOk(await call(app, 'GET', '/api/admin/logs/operation?module=password_policy&action=update', { token: admin }));
      return logs.list.find((row: { params: { body?: { history?: number } } }) => row.params.body?.history === 3);
    });
    assert.equal(logged?.value.username, 'admin');
    assert.equal(logged?.value.method, 'PUT');
    const menus = assertOk(await call(app, 'GET', '/api/admin/info', { token: admin })).menus as { slug: string; path: string; children: { slug: string; path: string }[] }[];
    const system = menus.find((m) => m.slug === 'system')!;
    assert.deepEqual(system.children.filter((m) => m.slug === 'password-policy').map((m) => m.path), ['/system/password-policy']);
  });
});

describe('a password someone else set is replaced before anything else', () => {
  /** Signs in with a password someone else set: the token is good only for the change, in both languages. */
  async function assertMustChange(username: string, password: string): Promise<string> {
    const signed = await signIn(username, password);
    assert.equal(signed.must_change_password, true);
    assert.equal(signed.must_bind_authenticator, false);
    const refused = await call(app, 'GET', '/api/admin/info', { token: signed.token });
    assertError(refused, 403, 10012);
    assert.match(refused.body.message, /Choose a new password/);
    assert.match((await call(app, 'GET', '/api/admin/info', { token: signed.token, headers: { 'accept-language': 'zh-CN' } })).body.message, /请先设置新密码/);
    return signed.token as string;
  }

  /** The owner's change with the same token, which then opens every route; the next sign-in is ordinary. */
  async function change(username: string, token: string, old: string, password: string) {
    assertOk(await call(app, 'GET', '/api/admin/password/policy', { token }));
    // The policy applies to the owner's choice as well.
    assertRefused(await call(app, 'PUT', '/api/admin/password', { token, body: { old_password: old, password: 'short-one', password_confirmation: 'short-one' } }), /at least 12/);
    assertOk(await call(app, 'PUT', '/api/admin/password', { token, body: { old_password: old, password, password_confirmation: password } }));
    assertOk(await call(app, 'GET', '/api/admin/info', { token }));
    const again = await signIn(username, password);
    assert.equal(again.must_change_password, false);
  }

  test('created by an administrator', async () => {
    const username = newName('new');
    assertOk(await create(username, 'Given-pass-1234'));
    const token = await assertMustChange(username, 'Given-pass-1234');
    // Refresh keeps it limited; sign-out works.
    const refreshed = assertOk(await call(app, 'POST', '/api/admin/refresh-token', { token }));
    assert.equal(refreshed.must_change_password, true);
    await change(username, refreshed.token, 'Given-pass-1234', 'Own-choice-5678');
  });

  test('given a new password by an edit, or by a reset', async () => {
    const who = await signedInAdmin(app, { password: 'Chosen-pass-0001' });
    assertOk(await call(app, 'PUT', `/api/admin/admins/${who.id}`, { token: admin, body: { password: 'Edited-pass-0002' } }));
    // The session open at the time ended with the edit.
    assertError(await call(app, 'GET', '/api/admin/info', { token: who.token }), 401, 10004);
    await change(who.username, await assertMustChange(who.username, 'Edited-pass-0002'), 'Edited-pass-0002', 'Chosen-again-0003');
    assertOk(await call(app, 'PUT', `/api/admin/admins/${who.id}/reset-password`, { token: admin, body: { password: 'Reset-pass-0004' } }));
    await change(who.username, await assertMustChange(who.username, 'Reset-pass-0004'), 'Reset-pass-0004', 'Chosen-again-0005');
  });

  test('with a role requiring an authenticator too: the password first, then the binding', async () => {
    const who = await seedAdmin(app, { password: 'Given-pass-0001' });
    await app.platform.db.query('UPDATE admin.roles SET require_authenticator = true WHERE id = $1', [who.roleId]);
    await app.platform.db.query('UPDATE admin.admins SET must_change_password = true WHERE id = $1', [who.id]);
    const signed = await signIn(who.username, 'Given-pass-0001');
    assert.equal(signed.must_change_password, true);
    assert.equal(signed.must_bind_authenticator, true);
    assertError(await call(app, 'GET', '/api/admin/google-authenticator/status', { token: signed.token }), 403, 10012);
    const password = 'Own-choice-0002';
    assertOk(await call(app, 'PUT', '/api/admin/password', { token: signed.token, body: { old_password: 'Given-pass-0001', password, password_confirmation: password } }));
    assertError(await call(app, 'GET', '/api/admin/info', { token: signed.token }), 403, 10011);
    assertOk(await call(app, 'GET', '/api/admin/google-authenticator/status', { token: signed.token }));
  });

  test('the first administrator’s generated password', async () => {
    const fresh = await startApp({ ADMIN_PASSWORD: '' });
    try {
      const generated = fresh.platform.generatedCredentials.find((c) => c.account === 'administrator');
      assert.ok(generated);
      const signed = assertOk(await call(fresh, 'POST', '/api/admin/login', { body: { username: 'admin', password: generated.password } }));
      assert.equal(signed.must_change_password, true);
      assertError(await call(fresh, 'GET', '/api/admin/info', { token: signed.token }), 403, 10012);
    } finally {
      await fresh.close();
    }
    // A password from ADMIN_PASSWORD is the operator's own choice.
    assert.equal((await signIn('admin', app.env.ADMIN_PASSWORD!)).must_change_password, false);
  });
});

describe('expiry', () => {
  after(() => setPolicy());

  test('a password older than max_age_days is replaced at sign-in, and restricts a session open at the time', async () => {
    const who = await signedInAdmin(app, { password: 'Aging-pass-0001' });
    await app.platform.db.query(`UPDATE admin.admins SET password_changed_at = now() - interval '31 days' WHERE id = $1`, [who.id]);
    assert.equal((await signIn(who.username, 'Aging-pass-0001')).must_change_password, false, 'no maximum age by default');
    await setPolicy({ max_age_days: 30 });
    const signed = await signIn(who.username, 'Aging-pass-0001');
    assert.equal(signed.must_change_password, true);
    // The session opened before: restricted once the guard reads it again (within SESSION_CACHE_MS).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    assertError(await call(app, 'GET', '/api/admin/info', { token: who.token }), 403, 10012);
    const password = 'Renewed-pass-0002';
    assertOk(await call(app, 'PUT', '/api/admin/password', { token: signed.token, body: { old_password: 'Aging-pass-0001', password, password_confirmation: password } }));
    assertOk(await call(app, 'GET', '/api/admin/info', { token: signed.token }));
    assert.equal((await signIn(who.username, password)).must_change_password, false);
  });
});

describe('lockout and unlock', () => {
  after(() => setPolicy());

  test('the policy’s thresholds lock an account; the administrators list shows it; unlock ends it (permission admin.unlock, logged)', async () => {
    await setPolicy({ lock_max_failures: 2, lock_seconds: 600 });
    const who = await seedAdmin(app, { password: 'Locked-pass-0001' });
    for (let i = 0; i < 2; i += 1) assertError(await call(app, 'POST', '/api/admin/login', { body: { username: who.username, password: 'Wrong-pass-0000' } }), 401, 10001);
    const locked = await call(app, 'POST', '/api/admin/login', { body: { username: who.username, password: 'Locked-pass-0001' } });
    assertError(locked, 429, 10006);
    assert.match(locked.body.message, /try again in 10 minutes/);

    const listed = assertOk(await call(app, 'GET', `/api/admin/admins?username=${who.username}`, { token: admin })).list[0];
    assert.match(listed.locked_until, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    assert.equal(assertOk(await call(app, 'GET', `/api/admin/admins/${who.id}`, { token: admin })).locked_until, listed.locked_until);

    const clerk = await signedInAdmin(app, { permissions: ['admin.list'] });
    assertError(await call(app, 'POST', `/api/admin/admins/${who.id}/unlock`, { token: clerk.token }), 403, 20001);
    assertError(await call(app, 'POST', '/api/admin/admins/999999/unlock', { token: admin }), 404, 30003);
    assertOk(await call(app, 'POST', `/api/admin/admins/${who.id}/unlock`, { token: admin }));
    assert.equal(assertOk(await call(app, 'GET', `/api/admin/admins/${who.id}`, { token: admin })).locked_until, null);
    assert.equal((await signIn(who.username, 'Locked-pass-0001')).must_change_password, false);
    // Operation rows are written just after the response, in batches.
    const logged = await within(3000, async () => {
      const logs = assertOk(await call(app, 'GET', '/api/admin/logs/operation?module=admin&action=unlock', { token: admin }));
      return logs.list.find((row: { username: string; status_code: number }) => row.username === 'admin' && row.status_code === 200);
    });
    assert.equal(logged?.value.path, `/api/admin/admins/${who.id}/unlock`);
  });
});
