// The administration console in Chromium, signing in and out: with the captcha off and on (its
// answer read from the store the test owns), with an authenticator, refusals in both languages,
// what a permission-limited administrator sees, and a session ended elsewhere; a role that
// requires an authenticator leading through its binding and the recovery codes shown once, and
// a sign-in with one of them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { newTotpSecret, totpCode } from '../../src/platform/auth/totp.ts';
import { ADMIN_PASSWORD, within } from '../helpers/app.ts';
import { adminPage, browserSkip, launchBrowser, newPage, onConsole, PHONE, screenshot, settled, signIn, startConsole, type ConsoleServer } from '../helpers/browser.ts';
import { call, login, seedAdmin } from '../helpers/http.ts';

// The functions passed to page.evaluate run in the page; this project's type-check has no DOM types.
declare const document: any, window: any;

/** Pictures of the screen at a desk's width and a phone's (when TEST_SCREENSHOTS=1), back at the desk's after. */
async function bothWidths(page: Page, name: string): Promise<void> {
  if (process.env.TEST_SCREENSHOTS !== '1') return;
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await settled(page);
    await screenshot(page, `${name}-${width}`);
  }
  await page.setViewportSize({ width: 1400, height: 900 });
}

/** An administrator of the admin list whose role requires an authenticator (set here unless `viaConsole`), none bound. */
async function mustBind(server: ConsoleServer, viaConsole = false) {
  // The list's filters read departments and roles (on a phone as soon as it opens).
  const who = await seedAdmin(server.app, { permissions: ['admin.list', 'department.list', 'role.list'], menus: ['system', 'admin'] });
  if (!viaConsole) await server.app.platform.db.query('UPDATE admin.roles SET require_authenticator = true WHERE id = $1', [who.roleId]);
  return who;
}

/** Binds an authenticator in the binding step (or on the profile): the codes the page shows. */
async function bindInPage(page: Page, labels: { setUp: string; code: string; turnOn: string; list: string }, shot: string): Promise<{ secret: string; codes: string[] }> {
  await page.getByRole('button', { name: labels.setUp }).click();
  const secretEl = page.locator('[data-secret]');
  await secretEl.waitFor();
  await page.getByRole('img', { name: /QR code|二维码/ }).waitFor();
  await bothWidths(page, shot);
  const secret = (await secretEl.getAttribute('data-secret'))!;
  await page.getByLabel(labels.code).fill(totpCode(secret));
  await page.getByRole('button', { name: labels.turnOn }).click();
  const list = page.getByRole('list', { name: labels.list });
  await list.waitFor();
  return { secret, codes: (await list.getByRole('listitem').allTextContents()).map((c) => c.trim()) };
}

describe('console sign-in', { skip: browserSkip() }, () => {
  let browser: Browser;
  let server: ConsoleServer;
  onConsole((s, b) => ((server = s), (browser = b)));

  test('the super administrator signs in, sees the whole menu and the dashboard; signs out', async () => {
    const w = await adminPage(browser, server.base);
    await w.page.getByRole('tab', { name: 'Business', selected: true }).waitFor();
    const nav = w.page.getByRole('navigation', { name: 'Back office' });
    for (const entry of ['Dashboard', 'System', 'Trade', 'Logs', 'Monitoring', 'Files', 'Notifications']) {
      assert.equal(await nav.getByRole('menuitem', { name: entry, exact: true }).count(), 1, entry);
    }
    await w.page.getByRole('menuitem', { name: 'System' }).click();
    await w.page.getByRole('link', { name: 'Administrators' }).waitFor();
    await screenshot(w.page, 'dashboard');
    await w.page.getByRole('button', { name: 'Profile' }).click();
    await w.page.getByRole('menuitem', { name: 'Sign out' }).click();
    await w.page.waitForURL(/\/login/);
    await w.page.getByText('You have signed out.').waitFor();
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, []);
    await w.context.close();
  });

  test('with the captcha off, the sign-in page shows no picture and no field, and the login sends no captcha', async () => {
    const w = await newPage(browser);
    const logins: unknown[] = [];
    w.page.on('request', (req) => {
      if (new URL(req.url()).pathname === '/api/admin/login') logins.push(req.postDataJSON());
    });
    const asked = w.page.waitForResponse((res) => new URL(res.url()).pathname === '/api/admin/captcha');
    await w.page.goto(`${server.base}/login`);
    assert.equal(((await (await asked).json()) as { data: { enabled: boolean } }).data.enabled, false);
    await w.page.getByLabel(/Username/).waitFor();
    assert.equal(await w.page.getByText('Characters in the picture').count(), 0, 'no captcha label');
    assert.equal(await w.page.locator('.captcha, .captcha-row').count(), 0, 'no picture, no field');
    await screenshot(w.page, 'sign-in-captcha-off');
    await w.page.getByLabel(/Username/).fill('admin');
    await w.page.getByLabel(/^Password$/).fill(ADMIN_PASSWORD);
    await w.page.getByRole('button', { name: 'Sign in' }).click();
    await w.page.waitForURL(/\/dashboard$/);
    assert.deepEqual(logins, [{ username: 'admin', password: ADMIN_PASSWORD }]);
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, []);
    await w.context.close();
  });

  test('a wrong password is refused with the server’s message, in the chosen language', async () => {
    const w = await newPage(browser);
    await signIn(w.page, server.base, 'admin', 'Wrong-pass-1');
    await w.page.getByRole('alert').getByText('Wrong username or password').waitFor();
    // The language switch changes the screen and the server's messages.
    await w.page.getByText('中文').click();
    await w.page.getByText('登录后台管理').waitFor();
    await w.page.getByLabel('密码').fill('Wrong-pass-2');
    await w.page.getByRole('button', { name: '登录' }).click();
    await w.page.getByRole('alert').getByText('用户名或密码错误').waitFor();
    await screenshot(w.page, 'sign-in-refused-zh');
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, ['POST /api/admin/login 401', 'POST /api/admin/login 401']);
    await w.context.close();
  });

  test('an account with an authenticator is asked for its code in a second step', async () => {
    const who = await seedAdmin(server.app, { permissions: ['admin.list'], menus: ['system', 'admin'] });
    const secret = newTotpSecret();
    await server.app.platform.db.query('UPDATE admin.admins SET totp_secret = $1 WHERE id = $2', [secret, who.id]);
    const w = await newPage(browser);
    // Someone signed out on this browser: the banner saying so belongs to the first step only.
    await signIn(w.page, server.base, 'admin', ADMIN_PASSWORD);
    await w.page.waitForURL(/\/dashboard$/);
    await w.page.getByRole('button', { name: 'Profile' }).click();
    await w.page.getByRole('menuitem', { name: 'Sign out' }).click();
    await w.page.getByText('You have signed out.').waitFor();
    await w.page.getByLabel(/Username/).fill(who.username);
    await w.page.getByLabel(/^Password$/).fill(who.password);
    await w.page.getByRole('button', { name: 'Sign in' }).click();
    await w.page.getByText('enter the 6-digit code from your authenticator app').waitFor();
    assert.equal(await w.page.getByText('You have signed out.').count(), 0, 'no sign-out banner on the authenticator step');
    await screenshot(w.page, 'sign-in-authenticator-step');
    await w.page.getByLabel('Authenticator code').fill(totpCode(secret));
    await w.page.getByRole('button', { name: 'Sign in' }).click();
    await w.page.waitForURL(/\/system\/admins/);
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, ['POST /api/admin/login 401'], 'only the first step, which asked for the code');
    await w.context.close();
  });

  test('a role that requires an authenticator: bound at sign-in, recovery codes shown once (download offered), then one signs in', async () => {
    const who = await mustBind(server, true);
    // The super administrator sets the role's rule in the role form.
    const operator = await adminPage(browser, server.base);
    const roleName = `Role ${who.username}`;
    await operator.page.goto(`${server.base}/system/roles?name=${encodeURIComponent(who.username)}`);
    await operator.page.getByRole('button', { name: `Edit ${roleName}` }).click();
    const form = operator.page.getByRole('dialog', { name: `Edit ${roleName}` });
    await form.getByRole('switch', { name: 'Requires an authenticator' }).click();
    await bothWidths(operator.page, 'role-requires-authenticator');
    await form.getByRole('button', { name: 'Save' }).click();
    await operator.page.getByRole('row', { name: new RegExp(roleName) }).getByText('Authenticator required').waitFor();
    assert.deepEqual(operator.errors, []);
    assert.deepEqual(operator.failed, []);
    await operator.context.close();

    const w = await newPage(browser);
    await signIn(w.page, server.base, who.username, who.password);
    // The binding step, before anything else.
    await w.page.getByText('A role of your account requires an authenticator app.').waitFor();
    await bothWidths(w.page, 'bind-step-en');
    const { codes } = await bindInPage(w.page, { setUp: 'Set up an authenticator', code: 'Authenticator code', turnOn: 'Turn on', list: 'Recovery codes' }, 'bind-step-qr-en');
    assert.equal(codes.length, 10);
    for (const c of codes) assert.match(c, /^[2-9a-hjkmnp-z]{5}-[2-9a-hjkmnp-z]{5}$/);
    await w.page.getByText('Save these codes now: they are not shown again.').waitFor();
    // The download holds every code.
    const downloading = w.page.waitForEvent('download');
    await w.page.getByRole('button', { name: 'Download' }).click();
    const file = await downloading;
    assert.equal(file.suggestedFilename(), 'recovery-codes.txt');
    const text = readFileSync(await file.path(), 'utf8');
    for (const c of codes) assert.ok(text.includes(c), `${c} in the file`);
    await bothWidths(w.page, 'recovery-codes-en');
    // Going on needs the person's word that they saved them.
    const next = w.page.getByRole('button', { name: 'Continue to the back office' });
    assert.equal(await next.isDisabled(), true);
    await w.page.getByRole('checkbox', { name: 'I have saved these codes somewhere safe' }).check();
    await next.click();
    await w.page.waitForURL(/\/system\/admins/);

    // Shown once: not on the profile, which counts them, nor after a reload.
    await w.page.goto(`${server.base}/profile`);
    await w.page.getByText('Recovery codes left').waitFor();
    await w.page.getByLabel('Recovery codes left').getByText('10 of 10').waitFor();
    assert.equal(await w.page.getByText(codes[0]!).count(), 0);
    await w.page.getByRole('button', { name: 'Profile' }).click();
    await w.page.getByRole('menuitem', { name: 'Sign out' }).click();
    await w.page.getByText('You have signed out.').waitFor();

    // A recovery code in place of the app's code.
    await w.page.getByLabel(/Username/).fill(who.username);
    await w.page.getByLabel(/^Password$/).fill(who.password);
    await w.page.getByRole('button', { name: 'Sign in' }).click();
    await w.page.getByRole('button', { name: 'Lost your authenticator? Use a recovery code' }).click();
    await w.page.getByLabel('Recovery code').fill(codes[0]!.toUpperCase());
    await bothWidths(w.page, 'sign-in-recovery-en');
    await w.page.getByRole('button', { name: 'Sign in' }).click();
    await w.page.waitForURL(/\/system\/admins/);
    await w.page.goto(`${server.base}/profile`);
    await w.page.getByLabel('Recovery codes left').getByText('9 of 10').waitFor();
    await bothWidths(w.page, 'profile-authenticator-en');
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, ['POST /api/admin/login 401'], 'only the sign-in that asked for the code');
    await w.context.close();
  });

  test('the binding step, the recovery codes and the recovery sign-in in Chinese, on a phone', async () => {
    const who = await mustBind(server);
    const w = await newPage(browser, 'zh-CN', PHONE);
    await signIn(w.page, server.base, who.username, who.password);
    await w.page.getByText('你的账号所属角色要求使用身份验证器应用。').waitFor();
    assert.ok(await w.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scroll');
    await bothWidths(w.page, 'bind-step-zh');
    const { codes } = await bindInPage(w.page, { setUp: '绑定身份验证器', code: '验证码', turnOn: '开启', list: '恢复码' }, 'bind-step-qr-zh');
    assert.equal(codes.length, 10);
    await w.page.getByText('请立即保存这些恢复码：它们不会再次显示。').waitFor();
    assert.ok(await w.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scroll');
    await bothWidths(w.page, 'recovery-codes-zh');
    await w.page.getByRole('checkbox', { name: '我已妥善保存这些恢复码' }).check();
    await w.page.getByRole('button', { name: '进入后台管理' }).click();
    await w.page.waitForURL(/\/system\/admins/);
    // Signed out and in again with a recovery code.
    const fresh = await newPage(browser, 'zh-CN', PHONE);
    await signIn(fresh.page, server.base, who.username, who.password);
    await fresh.page.getByRole('button', { name: '身份验证器不在身边？使用恢复码' }).click();
    await fresh.page.getByLabel('恢复码').fill(codes[9]!);
    await bothWidths(fresh.page, 'sign-in-recovery-zh');
    await fresh.page.getByRole('button', { name: '登录' }).click();
    await fresh.page.waitForURL(/\/system\/admins/);
    await fresh.page.goto(`${server.base}/profile`);
    await fresh.page.getByLabel('剩余恢复码').getByText('9 / 10').waitFor();
    await bothWidths(fresh.page, 'profile-authenticator-zh');
    for (const page of [w, fresh]) assert.deepEqual(page.errors, []);
    assert.deepEqual(w.failed, []);
    assert.deepEqual(fresh.failed, ['POST /api/admin/login 401']);
    await w.context.close();
    await fresh.context.close();
  });

  test('an administrator limited to some permissions sees only their menus', async () => {
    const who = await seedAdmin(server.app, { permissions: ['log.operation'], menus: ['log', 'log-operation'] });
    const w = await newPage(browser);
    await signIn(w.page, server.base, who.username, who.password);
    await w.page.waitForURL(/\/logs\/operation/);
    const nav = w.page.getByRole('navigation', { name: 'Back office' });
    await nav.getByText('Logs', { exact: true }).waitFor();
    assert.equal(await nav.getByText('System', { exact: true }).count(), 0);
    assert.equal(await nav.getByText('Orders').count(), 0);
    // A page the administrator may not see does not exist for them.
    await w.page.goto(`${server.base}/system/admins`);
    await w.page.getByText('This page does not exist.').waitFor();
    assert.deepEqual(w.errors, []);
    await w.context.close();
  });

  test('a session ended elsewhere (kicked out) returns to sign-in, saying why', async () => {
    const who = await seedAdmin(server.app, { permissions: ['admin.list'], menus: ['system', 'admin'] });
    const w = await newPage(browser);
    await signIn(w.page, server.base, who.username, who.password);
    await w.page.waitForURL(/\/system\/admins/);
    const operator = await login(server.app);
    const sessions = await call(server.app, 'GET', `/api/admin/online-admins?username=${who.username}`, { token: operator });
    for (const s of sessions.body.data.list as { token_id: number }[]) {
      assert.equal((await call(server.app, 'DELETE', `/api/admin/online-admins/${s.token_id}`, { token: operator })).status, 200);
    }
    await w.page.reload();
    await w.page.waitForURL(/\/login/);
    await w.page.getByText('Your session was ended').waitFor();
    await screenshot(w.page, 'sign-in-after-kick-out');
    assert.deepEqual(w.errors, []);
    await w.context.close();
  });
});

describe('console sign-in with the captcha on', { skip: browserSkip() }, () => {
  let browser: Browser;
  let server: ConsoleServer;
  before(async () => {
    server = await startConsole({ CAPTCHA_ENABLED: 'true' });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.app.close();
  });

  test('the picture is shown at the size the server gives, on a desk and on a phone', async () => {
    for (const [name, options] of [['1440', { viewport: { width: 1440, height: 900 } }], ['390', PHONE]] as const) {
      const w = await newPage(browser, 'en-US', options);
      const asked = w.page.waitForResponse((res) => new URL(res.url()).pathname === '/api/admin/captcha');
      await w.page.goto(`${server.base}/login`);
      const { data } = (await (await asked).json()) as { data: { enabled: boolean; width: number; height: number } };
      assert.equal(data.enabled, true);
      const img = w.page.getByRole('img', { name: 'Characters in the picture' });
      await img.waitFor();
      await w.page.waitForFunction(() => document.querySelector('.captcha img')?.complete === true);
      const size = await img.evaluate((el) => {
        const i = el as unknown as { naturalWidth: number; naturalHeight: number; clientWidth: number; clientHeight: number };
        return { natural: [i.naturalWidth, i.naturalHeight], shown: [i.clientWidth, i.clientHeight] };
      });
      assert.deepEqual(size.shown, [data.width, data.height], `${name}: shown at width x height`);
      assert.deepEqual(size.natural, [data.width, data.height], `${name}: the picture has that size`);
      assert.ok(await w.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `${name}: no sideways scroll`);
      await screenshot(w.page, `console-${name}-sign-in`);
      assert.deepEqual(w.errors, []);
      await w.context.close();
    }
  });

  test('a wrong answer is refused; the right one (read from the store) signs in', async () => {
    const w = await newPage(browser);
    const captchas: string[] = [];
    w.page.on('response', (res) => {
      if (new URL(res.url()).pathname === '/api/admin/captcha') {
        res.json().then((b: { data: { captcha_id: string } }) => captchas.push(b.data.captcha_id), () => {});
      }
    });
    await signIn(w.page, server.base, 'admin', ADMIN_PASSWORD, 'wrong');
    await w.page.getByRole('alert').getByText('Wrong or expired captcha').waitFor();
    // A new picture came with the refusal (the second captcha of the page, read once its answer
    // has arrived; CI once read the first, already used): its answer is in the store this test owns.
    const second = await within(30_000, async () => captchas[1]);
    assert.ok(second, 'a new captcha came with the refusal');
    const answer = await server.app.platform.kv.get(`admin:captcha:${second.value}`);
    assert.ok(answer, 'the new captcha is in the store');
    await w.page.getByRole('textbox', { name: 'Characters in the picture' }).fill(answer);
    await w.page.getByRole('button', { name: 'Sign in' }).click();
    await w.page.waitForURL(/\/dashboard$/);
    assert.deepEqual(w.errors, []);
    await w.context.close();
  });
});
