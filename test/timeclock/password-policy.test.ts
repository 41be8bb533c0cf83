// The password policy for workers and managers: each rule refused with a message naming it (in
// both languages) and accepted; a password a manager set (or the first manager's generated one)
// replaced before anything else, the sign-in reply keeping the contract's `token` and `fullName`;
// the history; expiry; and the one policy of the back office applied when both services share a
// process (the defaults when the time clock runs alone).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { closeAll, startApp, type TestApp } from '../helpers/app.ts';
import { call, login, type Reply } from '../helpers/http.ts';
import { assertTcError, managerToken, newDeviceUuid } from '../helpers/timeclock.ts';

let seq = 0;
const newName = () => `tcpp${(seq += 1)}${Date.now().toString(36)}`;

/** A worker created by `manager` through the API, with the password as the manager gave it. */
async function createWorker(app: TestApp, manager: string, password: string, lang = 'en-US', username = newName()): Promise<Reply> {
  return call(app, 'POST', '/api/managers/workers', { token: manager, body: { username, password, fullName: 'Pat Policy' }, headers: { 'accept-language': lang } });
}

/** A refusal of the password: 400 VALIDATION_ERROR naming the field and the rule, its message in the request's language. */
function assertRefused(res: Reply, field: string, rule: string, text: RegExp): void {
  assertTcError(res, 400, 'VALIDATION_ERROR');
  assert.deepEqual(res.body.details, { field, rule });
  assert.match(res.body.message, text, res.body.message);
}

const signIn = (app: TestApp, username: string, password: string, deviceUuid = newDeviceUuid()) =>
  call(app, 'POST', '/api/auth/login', { body: { username, password, deviceUuid } });

describe('time clock alone: the policy’s defaults', () => {
  let app: TestApp;
  let manager: string;
  before(async () => {
    app = await startApp();
    manager = await managerToken(app);
  });
  after(() => closeAll(app));

  test('each rule, refused in both languages and accepted', async () => {
    assertRefused(await createWorker(app, manager, 'Abcd-1234'), 'password', 'min_length', /the password must be at least 12 characters long/);
    assertRefused(await createWorker(app, manager, 'Abcd-1234', 'zh-CN'), 'password', 'min_length', /密码长度至少为 12 个字符/);
    assertRefused(await createWorker(app, manager, 'abcdefgh12345'), 'password', 'char_classes', /at least 3 of the 4 kinds of characters/);
    assertRefused(await createWorker(app, manager, 'abcdefgh12345', 'zh-CN'), 'password', 'char_classes', /至少包含以下 4 类字符中的 3 类/);
    const username = newName();
    assertRefused(await createWorker(app, manager, `Pw-${username.toUpperCase()}`, 'en-US', username), 'password', 'username', /must not contain the username/);
    assertRefused(await createWorker(app, manager, `Pw-${username.toUpperCase()}`, 'zh-CN', username), 'password', 'username', /密码不能包含用户名/);
    assertRefused(await createWorker(app, manager, 'Qwerty123456'), 'password', 'common', /one of the 10,000 most common passwords/);
    assertRefused(await createWorker(app, manager, 'Qwerty123456', 'zh-CN'), 'password', 'common', /最常用的 10,000 个密码之一/);
    assert.equal((await createWorker(app, manager, 'Given-pass-1234')).status, 201);
  });

  test('a worker’s first sign-in with a manager-set password: a token good only for the change, then an ordinary one', async () => {
    const created = await createWorker(app, manager, 'Given-pass-1234');
    const { id, username } = created.body as { id: number; username: string };
    const device = newDeviceUuid();
    const signed = await signIn(app, username, 'Given-pass-1234', device);
    assert.equal(signed.status, 200);
    // The contract's fields stay; the flag is added.
    assert.deepEqual(Object.keys(signed.body).sort(), ['fullName', 'mustChangePassword', 'role', 'token', 'userId']);
    assert.equal(signed.body.fullName, 'Pat Policy');
    assert.equal(signed.body.mustChangePassword, true);
    const token = signed.body.token as string;

    const refused = await call(app, 'GET', `/api/worker/clock-history/${id}`, { token });
    assertTcError(refused, 403, 'PASSWORD_CHANGE_REQUIRED');
    assert.match(refused.body.message, /Choose a new password before going on/);
    assert.match((await call(app, 'GET', `/api/workers/${id}`, { token, headers: { 'accept-language': 'zh-CN' } })).body.message, /请先设置新密码再继续/);
    assert.equal((await call(app, 'GET', '/api/me', { token })).status, 200);
    assert.deepEqual((await call(app, 'GET', '/api/me/password-policy', { token })).body,
      { minLength: 12, minClasses: 3, rejectCommon: true, rejectUsername: true, history: 5, maxAgeDays: 0 });
    const refreshed = await call(app, 'POST', '/api/auth/refresh', { token });
    assert.equal(refreshed.body.mustChangePassword, true);

    const change = (body: Record<string, string>, lang = 'en-US') => call(app, 'PUT', '/api/me/password', { token, body, headers: { 'accept-language': lang } });
    assertTcError(await change({ currentPassword: 'Wrong-pass-0000', newPassword: 'Own-choice-5678' }), 400, 'VALIDATION_ERROR');
    assertRefused(await change({ currentPassword: 'Given-pass-1234', newPassword: 'Given-pass-1234' }), 'newPassword', 'history', /must differ from the current one/);
    assertRefused(await change({ currentPassword: 'Given-pass-1234', newPassword: 'ownchoice5678' }, 'zh-CN'), 'newPassword', 'char_classes', /至少包含以下 4 类字符中的 3 类/);
    const changed = await change({ currentPassword: 'Given-pass-1234', newPassword: 'Own-choice-5678' });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.deepEqual(Object.keys(changed.body).sort(), ['mustChangePassword', 'token']);
    assert.equal(changed.body.mustChangePassword, false);
    assert.match(String(changed.headers['set-cookie']), /fieldops_clock_refresh=/);
    // The restricted token is revoked; the new one opens every route of the worker.
    assertTcError(await call(app, 'GET', `/api/worker/clock-history/${id}`, { token }), 401, 'TOKEN_INVALID');
    assert.equal((await call(app, 'GET', `/api/worker/clock-history/${id}`, { token: changed.body.token })).status, 200);
    const again = await signIn(app, username, 'Own-choice-5678', device);
    assert.equal(again.body.mustChangePassword, false);
  });

  test('a new password from a manager: the history refuses the last ones; the worker replaces it before anything else', async () => {
    const created = await createWorker(app, manager, 'First-pass-0001');
    const { id, username } = created.body as { id: number; username: string };
    const patch = (password: string, lang = 'en-US') =>
      call(app, 'PATCH', `/api/managers/workers/${id}`, { token: manager, body: { password }, headers: { 'accept-language': lang } });
    assert.equal((await patch('Second-pass-0002')).status, 200);
    assertRefused(await patch('First-pass-0001'), 'password', 'history', /must differ from the last 5 passwords of the account/);
    assertRefused(await patch('First-pass-0001', 'zh-CN'), 'password', 'history', /新密码不能与该账号最近 5 次使用的密码相同/);
    assert.equal((await patch('Third-pass-0003')).status, 200);
    const device = newDeviceUuid();
    const signed = await signIn(app, username, 'Third-pass-0003', device);
    assert.equal(signed.body.mustChangePassword, true);
    const token = signed.body.token as string;
    assertRefused(
      await call(app, 'PUT', '/api/me/password', { token, body: { currentPassword: 'Third-pass-0003', newPassword: 'Second-pass-0002' } }),
      'newPassword', 'history', /the last 5 passwords/,
    );
    assert.equal((await call(app, 'PUT', '/api/me/password', { token, body: { currentPassword: 'Third-pass-0003', newPassword: 'Fourth-pass-0004' } })).status, 200);
  });

  test('the first manager’s generated password is replaced at the first sign-in; MANAGER_PASSWORD is the operator’s own', async () => {
    assert.equal((await signIn(app, 'manager', app.env.MANAGER_PASSWORD!)).body.mustChangePassword, false);
    const fresh = await startApp({ MANAGER_PASSWORD: '' });
    try {
      const generated = fresh.platform.generatedCredentials.find((c) => c.account === 'time-clock manager');
      assert.ok(generated);
      const signed = await signIn(fresh, 'manager', generated.password);
      assert.equal(signed.body.mustChangePassword, true);
      assertTcError(await call(fresh, 'GET', '/api/managers/workers', { token: signed.body.token }), 403, 'PASSWORD_CHANGE_REQUIRED');
      const changed = await call(fresh, 'PUT', '/api/me/password', { token: signed.body.token, body: { currentPassword: generated.password, newPassword: 'Leader-own-9876' } });
      assert.equal(changed.status, 200);
      assert.equal((await call(fresh, 'GET', '/api/managers/workers', { token: changed.body.token })).status, 200);
    } finally {
      await fresh.close();
    }
  });
});

describe('time clock beside the back office: one policy', () => {
  let app: TestApp;
  let admin: string;
  let manager: string;
  before(async () => {
    app = await startApp({ SERVICES: 'admin,timeclock' });
    admin = await login(app);
    manager = await managerToken(app);
  });
  after(() => closeAll(app));

  const setPolicy = async (changes: Record<string, number | boolean>) => {
    const res = await call(app, 'PUT', '/api/admin/password-policy', {
      token: admin,
      body: { min_length: 12, min_classes: 3, reject_common: true, reject_username: true, history: 5, max_age_days: 0, lock_max_failures: 5, lock_seconds: 900, ...changes },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  };

  test('the console’s policy applies to workers at once', async () => {
    await setPolicy({ min_length: 16 });
    assertRefused(await createWorker(app, manager, 'Given-pass-1234'), 'password', 'min_length', /at least 16 characters/);
    assert.equal((await createWorker(app, manager, 'Given-pass-1234-5678')).status, 201);
    const token = (await signIn(app, 'manager', app.env.MANAGER_PASSWORD!)).body.token as string;
    assert.equal((await call(app, 'GET', '/api/me/password-policy', { token })).body.minLength, 16);
    await setPolicy({});
  });

  test('expiry: a password older than max_age_days is replaced at sign-in and at refresh', async () => {
    const created = await createWorker(app, manager, 'Aging-pass-0001');
    const { id, username } = created.body as { id: number; username: string };
    await app.platform.db.query(`UPDATE timeclock.users SET must_change_password = false, password_changed_at = now() - interval '31 days' WHERE id = $1`, [id]);
    const device = newDeviceUuid();
    const before = await signIn(app, username, 'Aging-pass-0001', device);
    assert.equal(before.body.mustChangePassword, false, 'no maximum age by default');
    await setPolicy({ max_age_days: 30 });
    const signed = await signIn(app, username, 'Aging-pass-0001', device);
    assert.equal(signed.body.mustChangePassword, true);
    // A token issued before the policy changed is limited too, and so is the one its refresh gives.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    assertTcError(await call(app, 'GET', `/api/worker/clock-history/${id}`, { token: before.body.token }), 403, 'PASSWORD_CHANGE_REQUIRED');
    assert.equal((await call(app, 'POST', '/api/auth/refresh', { token: before.body.token })).body.mustChangePassword, true);
    const changed = await call(app, 'PUT', '/api/me/password', { token: signed.body.token, body: { currentPassword: 'Aging-pass-0001', newPassword: 'Renewed-pass-0002' } });
    assert.equal(changed.status, 200);
    assert.equal((await call(app, 'GET', `/api/worker/clock-history/${id}`, { token: changed.body.token })).status, 200);
    await setPolicy({});
  });
});
