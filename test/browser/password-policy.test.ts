// The password policy in Chromium: the super administrator sets it on its screen and unlocks a
// clerk that failed sign-ins locked (marked "Locked" on the administrators screen); the clerk,
// whose password the super administrator gave, is made to choose their own at sign-in (a rule
// refused in words, in Chinese after switching once) and then works normally. In the time-clock
// app, on a phone, a worker's first sign-in with the password a manager set asks for a new one
// before the clock screen.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { adminPage, browserSkip, newPage, onConsole, PHONE, screenshot, settled, signIn, signInClock, type ConsoleServer } from '../helpers/browser.ts';
import { call, login } from '../helpers/http.ts';
import { managerToken } from '../helpers/timeclock.ts';

const DESK = { viewport: { width: 1440, height: 900 } };

describe('password policy: the console and the time-clock app', { skip: browserSkip() }, () => {
  let browser: Browser;
  let server: ConsoleServer;
  let root: string;
  onConsole((s, b) => ((server = s), (browser = b)));
  before(async () => {
    root = await login(server.app);
  });

  test('the policy saved on its screen; a locked clerk unlocked; the clerk chooses their own password, then works', async () => {
    const roles = await call(server.app, 'POST', '/api/admin/roles', {
      token: root,
      body: { name: 'Order readers', slug: 'order_readers', permission_ids: [], menu_ids: [] },
    });
    assert.equal(roles.status, 200, JSON.stringify(roles.body));
    const menus = (await call(server.app, 'GET', '/api/admin/menus', { token: root })).body.data.list as { id: number; slug: string; children: unknown[] }[];
    const flat = (nodes: any[]): any[] => nodes.flatMap((n) => [n, ...flat(n.children)]);
    const perms = (await call(server.app, 'GET', '/api/admin/permissions?page_size=100&slug=order.list', { token: root })).body.data.list as { id: number; slug: string }[];
    assert.equal((await call(server.app, 'PUT', `/api/admin/roles/${roles.body.data.id}`, {
      token: root,
      body: { permission_ids: perms.filter((p) => p.slug === 'order.list').map((p) => p.id), menu_ids: flat(menus).filter((m) => ['trade', 'order'].includes(m.slug)).map((m) => m.id) },
    })).status, 200);

    // The super administrator raises the minimum length on the policy screen.
    const w = await adminPage(browser, server.base, 'en-US', DESK);
    await w.page.goto(`${server.base}/system/password-policy`);
    await w.page.getByText('Nobody has saved a policy yet: these are the defaults.').waitFor();
    await w.page.getByLabel('Minimum length').fill('14');
    await w.page.getByRole('button', { name: 'Save' }).click();
    await w.page.getByText('Last saved by admin at').waitFor();
    await screenshot(w.page, 'password-policy');

    // The clerk, given a password, is locked out by five wrong ones; the administrators screen says so and unlocks them.
    const created = await call(server.app, 'POST', '/api/admin/admins', {
      token: root, body: { username: 'clerk.jo', password: 'Given-pass-12345', nickname: 'Jo', role_ids: [roles.body.data.id] },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    for (let i = 0; i < 5; i += 1) await call(server.app, 'POST', '/api/admin/login', { body: { username: 'clerk.jo', password: 'Wrong-pass-00000' } });
    await w.page.goto(`${server.base}/system/admins?username=clerk.jo`);
    const row = w.page.getByRole('row').filter({ hasText: 'clerk.jo' });
    await row.getByText('Locked', { exact: true }).waitFor();
    await row.getByRole('button', { name: 'Unlock' }).click();
    await w.page.getByText('clerk.jo can sign in again').waitFor();
    await row.getByText('Locked', { exact: true }).waitFor({ state: 'detached' });
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, []);
    await w.context.close();

    // Signing in with the given password leads to the change form, which says what the policy asks.
    const them = await newPage(browser, 'en-US', DESK);
    await signIn(them.page, server.base, 'clerk.jo', 'Given-pass-12345');
    await them.page.getByRole('heading', { name: 'Choose your own password' }).waitFor();
    await them.page.getByText('at least 14 characters').waitFor();
    await screenshot(them.page, 'password-change-step-en');
    // In Chinese from here: the server's refusal names the rule in the same language.
    await them.page.getByText('中文').click();
    await them.page.getByRole('heading', { name: '设置你自己的密码' }).waitFor();
    await them.page.getByLabel('当前密码').fill('Given-pass-12345');
    await them.page.getByLabel('新密码', { exact: true }).fill('My-clerk.jo-pass-1');
    await them.page.getByLabel('确认新密码').fill('My-clerk.jo-pass-1');
    await them.page.getByRole('button', { name: '修改密码' }).click();
    await them.page.getByText('密码不能包含用户名').first().waitFor();
    await settled(them.page);
    await screenshot(them.page, 'password-change-refused-zh');
    await them.page.getByLabel('新密码', { exact: true }).fill('Harbour-lights-2031');
    await them.page.getByLabel('确认新密码').fill('Harbour-lights-2031');
    await them.page.getByRole('button', { name: '修改密码' }).click();
    // The same session goes on into the console: their orders.
    await them.page.waitForURL(/\/trade\/orders/);
    await them.page.getByRole('navigation', { name: '后台管理' }).getByRole('menuitem', { name: '订单' }).waitFor();
    assert.deepEqual(them.errors, []);
    assert.deepEqual(them.failed, ['PUT /api/admin/password 400']);
    const again = await call(server.app, 'POST', '/api/admin/login', { body: { username: 'clerk.jo', password: 'Harbour-lights-2031' } });
    assert.equal(again.body.data.must_change_password, false);
    await them.context.close();
  });

  test('a worker’s first sign-in on a phone asks for a new password, then opens the clock screen', async () => {
    const manager = await managerToken(server.app);
    const created = await call(server.app, 'POST', '/api/managers/workers', {
      token: manager, body: { username: 'ida.new', password: 'Given-pass-12345', fullName: 'Ida New' },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const w = await newPage(browser, 'en-US', PHONE);
    await signInClock(w.page, server.base, 'ida.new', 'Given-pass-12345');
    await w.page.getByRole('heading', { name: 'Choose your own password' }).waitFor();
    await w.page.getByText(/Hello Ida New/).waitFor();
    // The console's policy (saved above) applies to the time clock too.
    await w.page.getByText('At least 14 characters.').waitFor();
    await w.page.getByLabel('Current password').fill('Given-pass-12345');
    await w.page.getByLabel('New password', { exact: true }).fill('qwertyuiopasdf');
    await w.page.getByLabel('New password again').fill('qwertyuiopasdf');
    await w.page.getByRole('button', { name: 'Save my new password' }).click();
    await w.page.getByRole('alert').getByText(/at least 3 of the 4 kinds of characters/).waitFor();
    // Nothing wider than the phone.
    assert.equal(await w.page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth'), true);
    await screenshot(w.page, 'clock-password-change-refused');
    await w.page.getByLabel('New password', { exact: true }).fill('Quiet-river-2031');
    await w.page.getByLabel('New password again').fill('Quiet-river-2031');
    await w.page.getByRole('button', { name: 'Save my new password' }).click();
    await w.page.getByTestId('clock-state').waitFor();
    await w.page.getByText('Ida New').first().waitFor();
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, ['PUT /api/me/password 400']);
    await w.context.close();
  });
});
