// The console's access-control screens in Chromium: a role built from the permission and menu
// trees decides what its administrator sees; the department tree is edited and a refused delete
// says why; a menu added under a directory takes its place in the tree.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { adminPage, browserSkip, newPage, onConsole, screenshot, signIn, type ConsoleServer } from '../helpers/browser.ts';
import { call, login } from '../helpers/http.ts';

/** The row of a table that holds `text`. */
const row = (page: Page, text: string) => page.getByRole('row').filter({ hasText: text });
/** The control labelled `label` (a required field's label starts with its mark). */
const field = (scope: Page | Locator, label: string) => scope.getByLabel(new RegExp(`^(\\* ?)?${label}( :)?$`));

describe('console roles, menus, permissions and departments', { skip: browserSkip() }, () => {
  let browser: Browser;
  let server: ConsoleServer;
  onConsole((s, b) => ((server = s), (browser = b)));

  test('a role made in the console with ticked permissions and a menu gives its administrator exactly that menu', async () => {
    const w = await adminPage(browser, server.base);
    await w.page.goto(`${server.base}/system/roles`);
    await row(w.page, 'super_admin').getByText('Super administrator').first().waitFor();
    await screenshot(w.page, 'roles');

    await w.page.getByRole('button', { name: 'Create' }).click();
    const dialog = w.page.getByRole('dialog', { name: 'New role' });
    await field(dialog, 'Role name').fill('Log readers');
    await field(dialog, 'Slug').fill('log_readers');
    await dialog.getByRole('tab', { name: /Permissions/ }).click();
    const permissions = dialog.getByRole('tree', { name: 'Permission tree' });
    // A permission brings the menu of its screen and the directory above it.
    await permissions.getByText('log.operation', { exact: true }).click();
    await dialog.getByRole('tab', { name: 'Permissions (1)' }).waitFor();
    await dialog.getByRole('tab', { name: 'Menus (2)' }).waitFor();
    await screenshot(w.page, 'roles-permission-tree');
    await dialog.getByRole('tab', { name: /Menus/ }).click();
    // A menu brings the permissions its screen needs.
    await dialog.getByRole('tree', { name: 'Menu tree' }).getByText('Login logs', { exact: true }).click();
    await dialog.getByRole('tab', { name: 'Menus (3)' }).waitFor();
    await dialog.getByRole('tab', { name: 'Permissions (2)' }).waitFor();
    await screenshot(w.page, 'roles-menu-tree');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await w.page.getByText('Saved').first().waitFor();
    await row(w.page, 'log_readers').getByText('2 permissions').waitFor();
    await row(w.page, 'log_readers').getByText('3 menus').waitFor();

    // The super administrator's protected fields cannot be edited.
    await w.page.getByRole('button', { name: 'Edit Super Administrator' }).click();
    const protectedDialog = w.page.getByRole('dialog', { name: 'Edit Super Administrator' });
    assert.equal(await field(protectedDialog, 'Slug').isDisabled(), true);
    assert.equal(await protectedDialog.getByRole('switch', { name: 'Enabled' }).isDisabled(), true);
    await protectedDialog.getByRole('button', { name: 'Cancel' }).click();

    const operator = await login(server.app);
    const roles = await call(server.app, 'GET', '/api/admin/roles?name=Log%20readers', { token: operator });
    const role = (roles.body.data.list as { id: number; permission_ids: number[]; menu_ids: number[] }[])[0]!;
    assert.equal(role.permission_ids.length, 2);
    assert.equal(role.menu_ids.length, 3);
    const created = await call(server.app, 'POST', '/api/admin/admins', {
      token: operator,
      body: { username: 'log.reader', password: 'Reader-pass-1', nickname: 'Log reader', role_ids: [role.id] },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, []);
    await w.context.close();

    const reader = await newPage(browser);
    await signIn(reader.page, server.base, 'log.reader', 'Reader-pass-1');
    await reader.page.waitForURL(/\/logs\/(operation|login)$/);
    const nav = reader.page.getByRole('navigation', { name: 'Back office' });
    // Landing on a screen under Logs opens that directory.
    await nav.getByRole('link', { name: 'Operation logs' }).waitFor();
    await nav.getByRole('link', { name: 'Login logs' }).waitFor();
    await screenshot(reader.page, 'roles-granted-menu');
    const entries = await nav.getByRole('menuitem').evaluateAll((items) => items.map((i) => i.textContent.trim()));
    assert.deepEqual(entries, ['Logs', 'Operation logs', 'Login logs']);
    assert.deepEqual(reader.errors, []);
    await reader.context.close();
  });

  test('the department tree: a child is added and renamed; deleting a department with members is refused with the reason', async () => {
    const w = await adminPage(browser, server.base);
    await w.page.goto(`${server.base}/system/departments`);
    await w.page.getByRole('button', { name: 'Add child Head Office' }).click();
    const create = w.page.getByRole('dialog', { name: 'New department under Head Office' });
    await field(create, 'Department').fill('Field team');
    await field(create, 'Leader').fill('Ada');
    await create.getByRole('button', { name: 'Save' }).click();
    await row(w.page, 'Field team').waitFor();

    await w.page.getByRole('button', { name: 'Edit Field team' }).click();
    const edit = w.page.getByRole('dialog', { name: 'Edit Field team' });
    await field(edit, 'Department').fill('Field operations');
    await edit.getByRole('button', { name: 'Save' }).click();
    await row(w.page, 'Field operations').waitFor();
    // The child sits under Head Office.
    assert.match(await row(w.page, 'Field operations').getAttribute('class') ?? '', /ant-table-row-level-1/);

    await w.page.getByRole('button', { name: 'Delete Head Office' }).click();
    await w.page.getByRole('tooltip').getByRole('button', { name: 'OK', exact: true }).click();
    await w.page.getByText(/Delete failed: department \d+ still has child departments/).waitFor();
    await w.page.getByRole('tooltip').waitFor({ state: 'hidden' });
    await screenshot(w.page, 'departments');
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, ['DELETE /api/admin/departments/1 400']);
    await w.context.close();
  });

  test('a menu created under a directory appears in the tree; a directory with children cannot be deleted', async () => {
    const w = await adminPage(browser, server.base);
    await w.page.goto(`${server.base}/system/menus`);
    await w.page.getByRole('button', { name: 'Add child Logs' }).click();
    const create = w.page.getByRole('dialog', { name: 'New menu under Logs' });
    await field(create, 'Title').fill('Audit trail');
    await field(create, 'Slug').fill('audit-trail');
    await field(create, 'Path').fill('/logs/audit');
    await field(create, 'Component').fill('log/audit/index');
    await create.getByRole('button', { name: 'Save' }).click();
    const added = row(w.page, 'audit-trail');
    await added.waitFor();
    assert.match(await added.getAttribute('class') ?? '', /ant-table-row-level-1/);
    await added.getByText('Menu', { exact: true }).waitFor();

    await w.page.getByRole('button', { name: 'Delete Logs' }).click();
    await w.page.getByRole('tooltip').getByRole('button', { name: 'OK', exact: true }).click();
    await w.page.getByText(/Delete failed: menu \d+ still has children/).waitFor();
    await w.page.getByRole('tooltip').waitFor({ state: 'hidden' });
    await screenshot(w.page, 'menus');
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, ['DELETE /api/admin/menus/14 400']);
    await w.context.close();
  });

  test('the permissions list, filtered in the URL; the screens in Chinese', async () => {
    const w = await adminPage(browser, server.base);
    await w.page.goto(`${server.base}/system/permissions`);
    await field(w.page, 'Slug').fill('role.');
    await w.page.getByRole('button', { name: 'Search' }).click();
    await w.page.waitForURL(/slug=role\./);
    await row(w.page, 'role.update').waitFor();
    assert.equal(await row(w.page, 'admin.update').count(), 0);
    // A system permission keeps its slug, method and path.
    await w.page.getByRole('button', { name: 'Edit role.update' }).click();
    const system = w.page.getByRole('dialog', { name: 'Edit role.update' });
    assert.equal(await field(system, 'Slug').isDisabled(), true);
    assert.equal(await field(system, 'Name').isDisabled(), false);
    await w.page.waitForTimeout(400); // the dialog's opening animation
    await screenshot(w.page, 'permissions-edit-system');
    await system.getByRole('button', { name: 'Cancel' }).click();
    await screenshot(w.page, 'permissions');

    // A custom permission is created, then deleted.
    await w.page.goto(`${server.base}/system/permissions?slug=report`);
    await w.page.getByRole('button', { name: 'Create' }).click();
    const create = w.page.getByRole('dialog', { name: 'New permission' });
    await field(create, 'Name').fill('View reports');
    await field(create, 'Slug').fill('report.view');
    await create.getByRole('button', { name: 'Save' }).click();
    await row(w.page, 'report.view').first().waitFor(); // a custom permission: it has a Delete button
    await w.page.getByRole('button', { name: 'Delete report.view' }).click();
    const deleted = w.page.waitForResponse((r) => r.request().method() === 'DELETE' && new URL(r.url()).pathname.startsWith('/api/admin/permissions/'));
    await w.page.getByRole('tooltip').getByRole('button', { name: 'OK', exact: true }).click();
    assert.equal((await deleted).status(), 200);
    await w.page.getByText('Nothing matches these filters').waitFor();
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, []);
    await w.context.close();

    const zh = await adminPage(browser, server.base, 'zh-CN');
    await zh.page.goto(`${server.base}/system/roles`);
    await zh.page.getByRole('button', { name: '新建' }).click();
    await zh.page.getByRole('dialog', { name: '新建角色' }).getByRole('tab', { name: /权限/ }).click();
    await zh.page.getByRole('tab', { name: /权限/, selected: true }).waitFor();
    await zh.page.getByRole('tree', { name: '权限树' }).getByText('role.update', { exact: true }).waitFor();
    await zh.page.getByRole('tree', { name: '权限树' }).getByText(/^编辑角色/).waitFor();
    await screenshot(zh.page, 'roles-zh');
    await zh.page.goto(`${server.base}/system/departments`);
    await zh.page.getByRole('button', { name: '新增下级 总部' }).waitFor();
    await screenshot(zh.page, 'departments-zh');
    await zh.page.goto(`${server.base}/system/menus`);
    await row(zh.page, 'audit-trail').waitFor();
    await zh.page.locator('.ant-spin-spinning').waitFor({ state: 'detached' });
    await screenshot(zh.page, 'menus-zh');
    await zh.page.goto(`${server.base}/system/permissions?slug=role.`);
    await row(zh.page, 'role.update').getByText('编辑角色').waitFor();
    await screenshot(zh.page, 'permissions-zh');
    assert.deepEqual(zh.errors, []);
    assert.deepEqual(zh.failed, []);
    await zh.context.close();
  });
});
