// The console's access-control screens in Chromium: a role built from the permission and menu
// trees decides what its administrator sees; the department tree is edited and a refused delete
// says why; a menu added under a directory takes its place in the tree; a role's data scope
// decides whose orders and figures its holder sees, and is changed in the role form's tree.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { assertOk } from '../helpers/assert.ts';
import { adminPage, browserSkip, newPage, onConsole, screenshot, settled, signIn, visit, waitUntil, type ConsoleServer } from '../helpers/browser.ts';
import { acceptGivenPassword, call, login, seedAdmin } from '../helpers/http.ts';

/** The row of a table that holds `text`. */
const row = (page: Page, text: string) => page.getByRole('row').filter({ hasText: text });
/** The control labelled `label` (a required field's label starts with its mark). */
const field = (scope: Page | Locator, label: string) => scope.getByLabel(new RegExp(`^(\\* ?)?${label}( :)?$`));

/**
 * The screen at a desk's width (1440 px) and a phone's (390 px), with a picture of each (when
 * TEST_SCREENSHOTS=1): the page never scrolls sideways; at the desk's width, nor does a list's
 * table, whose rows stay under 80 px high (as every list's in admin-console.test.ts); back at
 * the usual 1400 px after. `shown`: what the pictures show, scrolled into view.
 */
async function atBothWidths(page: Page, name: string, shown?: Locator): Promise<void> {
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    const tables = width === 390 ? '[]' : `[...document.querySelectorAll('.ant-table-content')].map((el) => el.scrollWidth - el.clientWidth)`;
    const overflow = `[document.documentElement.scrollWidth - window.innerWidth, ...${tables}]`;
    // The layout follows the width once the console has read the new breakpoint.
    const fits = await waitUntil(page, `${overflow}.every((x) => x <= 1)`).then(() => true, () => false);
    await shown?.scrollIntoViewIfNeeded();
    await settled(page);
    await screenshot(page, `${name}-${width}`);
    assert.ok(fits, `${name} at ${width} px scrolls sideways (the page, then each table): ${JSON.stringify(await page.evaluate(overflow))}`);
    if (width === 1440) {
      const heights = await page.evaluate<number[]>(`[...document.querySelectorAll('.ant-table-tbody .ant-table-row')].map((r) => r.offsetHeight)`);
      assert.ok(heights.every((h) => h <= 80), `${name} at 1440 px: rows ${JSON.stringify(heights)} px high`);
    }
  }
  await page.setViewportSize({ width: 1400, height: 900 });
}

describe('console roles, menus, permissions and departments', { skip: browserSkip() }, () => {
  let browser: Browser;
  let server: ConsoleServer;
  onConsole((s, b) => ((server = s), (browser = b)));

  test('a role made in the console with ticked permissions and a menu gives its administrator exactly that menu', async () => {
    const w = await adminPage(browser, server.base);
    await visit(w.page, '/system/roles');
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
    await acceptGivenPassword(server.app, 'log.reader');
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
    await visit(w.page, '/system/departments');
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
    await w.page.getByText('Delete failed: department "Head Office" still has child departments', { exact: false }).waitFor();
    await w.page.getByRole('tooltip').waitFor({ state: 'hidden' });
    await screenshot(w.page, 'departments');
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, ['DELETE /api/admin/departments/1 400']);
    await w.context.close();
  });

  test('a menu created under a directory appears in the tree; a directory with children cannot be deleted', async () => {
    const w = await adminPage(browser, server.base);
    await visit(w.page, '/system/menus');
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
    await w.page.getByText('Delete failed: menu "Logs" still has children', { exact: false }).waitFor();
    await w.page.getByRole('tooltip').waitFor({ state: 'hidden' });
    await screenshot(w.page, 'menus');
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, ['DELETE /api/admin/menus/14 400']);
    await w.context.close();
  });

  test('the permissions list, filtered in the URL; the screens in Chinese', async () => {
    const w = await adminPage(browser, server.base);
    await visit(w.page, '/system/permissions');
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

    // One who may list permissions but not menus reads each permission's menu by its title.
    const reader = await seedAdmin(server.app, { permissions: ['permission.list'], menus: ['system', 'permission'] });
    const r = await newPage(browser);
    await signIn(r.page, server.base, reader.username, reader.password);
    await r.page.waitForURL(/\/system\/permissions$/);
    await visit(r.page, '/system/permissions?slug=role.update');
    await row(r.page, 'role.update').getByText('Roles', { exact: true }).waitFor();
    await screenshot(r.page, 'permissions-menu-named');
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.failed, []);
    await r.context.close();

    const zh = await adminPage(browser, server.base, 'zh-CN');
    await visit(zh.page, '/system/roles');
    await zh.page.getByRole('button', { name: '新建' }).click();
    await zh.page.getByRole('dialog', { name: '新建角色' }).getByRole('tab', { name: /权限/ }).click();
    await zh.page.getByRole('tab', { name: /权限/, selected: true }).waitFor();
    await zh.page.getByRole('tree', { name: '权限树' }).getByText('role.update', { exact: true }).waitFor();
    await zh.page.getByRole('tree', { name: '权限树' }).getByText(/^编辑角色/).waitFor();
    await screenshot(zh.page, 'roles-zh');
    await visit(zh.page, '/system/departments');
    await zh.page.getByRole('button', { name: '新增下级 总部' }).waitFor();
    await screenshot(zh.page, 'departments-zh');
    await visit(zh.page, '/system/menus');
    await row(zh.page, 'audit-trail').waitFor();
    await zh.page.locator('.ant-spin-spinning').waitFor({ state: 'detached' });
    await screenshot(zh.page, 'menus-zh');
    await visit(zh.page, '/system/permissions?slug=role.');
    await row(zh.page, 'role.update').getByText('编辑角色').waitFor();
    await screenshot(zh.page, 'permissions-zh');
    assert.deepEqual(zh.errors, []);
    assert.deepEqual(zh.failed, []);
    await zh.context.close();
  });

  test('data scopes: a clerk of Sales sees Sales’ orders and figures; made custom over Support in the role form, Support’s', async () => {
    const root = await login(server.app);
    const department = async (name: string, parentId = 1): Promise<number> =>
      assertOk(await call(server.app, 'POST', '/api/admin/departments', { token: root, body: { name, parent_id: parentId } })).id;
    const sales = await department('Sales');
    const support = await department('Support');
    for (const name of ['Sales East', 'Sales West', 'Sales North', 'Sales South']) await department(name, sales);
    /** An administrator of `departmentId` whose one role has `scope`, and one order of theirs. */
    const person = async (username: string, departmentId: number, scope: string, permissions: string[], menus: string[] = []) => {
      const who = await seedAdmin(server.app, { username, permissions: ['order.create', ...permissions], menus });
      assertOk(await call(server.app, 'PUT', `/api/admin/admins/${who.id}`, { token: root, body: { department_id: departmentId } }));
      assertOk(await call(server.app, 'PUT', `/api/admin/roles/${who.roleId}`, { token: root, body: { data_scope: scope } }));
      const token = await login(server.app, who.username, who.password);
      const order = assertOk(await call(server.app, 'POST', '/api/admin/orders', {
        token, body: { user_id: 7, amount: 12.5, products: [{ product_id: 1, product_name: 'Tea', price: 2.5, quantity: 5 }] },
      })).order as { order_no: string };
      return { ...who, orderNo: order.order_no };
    };
    const clerk = await person('sales_clerk', sales, 'department',
      ['dashboard.view', 'order.list', 'order.view', 'role.list', 'role.update'], ['dashboard', 'trade', 'order', 'system', 'role']);
    const colleague = await person('sales_lead', sales, 'department_and_below', []);
    const agent = await person('support_agent', support, 'self', []);

    // The clerk sees the orders of Sales only, and Sales' figures.
    const them = await newPage(browser);
    await signIn(them.page, server.base, clerk.username, clerk.password);
    await them.page.waitForURL(/\/dashboard$/);
    await them.page.getByRole('tab', { name: 'System' }).click();
    await them.page.getByRole('group', { name: 'Administrators' }).getByText('2', { exact: true }).waitFor();
    await visit(them.page, '/trade/orders');
    await row(them.page, colleague.orderNo).waitFor();
    await row(them.page, clerk.orderNo).waitFor();
    assert.equal(await row(them.page, agent.orderNo).count(), 0, 'Support’s order is not listed');
    assert.equal(await them.page.getByRole('row').count(), 3, 'the header and the two orders of Sales');

    // Their role says so, and they cannot widen it: the refusal is said in the form.
    await visit(them.page, '/system/roles');
    await row(them.page, `Role ${clerk.username}`).getByText('Their department only').waitFor();
    await them.page.getByRole('button', { name: `Edit Role ${clerk.username}` }).click();
    const own = them.page.getByRole('dialog', { name: `Edit Role ${clerk.username}` });
    await own.getByRole('radio', { name: 'All data' }).check();
    const refused = them.page.waitForResponse((r) => r.request().method() === 'PUT' && new URL(r.url()).pathname === `/api/admin/roles/${clerk.roleId}`);
    await own.getByRole('button', { name: 'Save' }).click();
    assert.equal((await refused).status(), 403);
    await own.getByRole('alert').getByText(/data scope cannot reach further than yours/).waitFor();
    await own.getByRole('button', { name: 'Cancel' }).click();
    assert.deepEqual(them.errors, []);
    assert.deepEqual(them.failed, [`PUT /api/admin/roles/${clerk.roleId} 403`]);

    // The super administrator makes the clerk's role custom, over Support.
    const w = await adminPage(browser, server.base);
    await visit(w.page, '/system/roles');
    await w.page.getByRole('button', { name: `Edit Role ${clerk.username}` }).click();
    const dialog = w.page.getByRole('dialog', { name: `Edit Role ${clerk.username}` });
    assert.equal(await dialog.getByRole('radio', { name: 'Their department only' }).isChecked(), true);
    await dialog.getByRole('radio', { name: 'Chosen departments' }).check();
    const tree = dialog.getByRole('tree', { name: 'Department tree' });
    await tree.getByText('Support', { exact: true }).click();
    await dialog.getByRole('tabpanel', { name: 'Details' }).getByText('1 chosen').waitFor();
    await atBothWidths(w.page, 'roles-data-scope-en-US', tree);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await w.page.getByText('Saved').first().waitFor();
    await row(w.page, `Role ${clerk.username}`).getByText('Support', { exact: true }).waitFor();
    await atBothWidths(w.page, 'roles-list-data-scope-en-US');
    const role = assertOk(await call(server.app, 'GET', `/api/admin/roles?name=${encodeURIComponent(`Role ${clerk.username}`)}`, { token: root })).list[0];
    assert.deepEqual([role.data_scope, role.department_ids], ['custom', [support]]);

    // The administrators say what each one reaches.
    await visit(w.page, '/system/admins');
    await row(w.page, clerk.username).getByText('Support', { exact: true }).waitFor();
    await row(w.page, agent.username).getByText('Only their own data').waitFor();
    // Sales and the four below it: the first two, and "+3" naming the others.
    const lead = row(w.page, colleague.username);
    for (const name of ['Sales', 'Sales East', '+3']) await lead.getByText(name, { exact: true }).waitFor();
    await lead.getByLabel('3 more: Sales West, Sales North, Sales South').waitFor();
    await row(w.page, 'Protected').getByText('All data').waitFor();
    await atBothWidths(w.page, 'admins-data-scope-en-US');
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, []);
    await w.context.close();

    // The clerk, at the next request: Support's orders, and their own.
    await them.page.goto(`${server.base}/trade/orders`);
    await row(them.page, agent.orderNo).waitFor();
    await row(them.page, clerk.orderNo).waitFor();
    assert.equal(await row(them.page, colleague.orderNo).count(), 0, 'the Sales colleague’s order is no longer listed');
    assert.equal(await them.page.getByRole('row').count(), 3, 'the header, Support’s order and their own');
    assert.deepEqual(them.errors, []);
    await them.context.close();

    // In Chinese.
    const zh = await adminPage(browser, server.base, 'zh-CN');
    await visit(zh.page, '/system/roles');
    await row(zh.page, `Role ${clerk.username}`).getByText('Support', { exact: true }).waitFor();
    await row(zh.page, `Role ${colleague.username}`).getByText('本部门及以下', { exact: true }).waitFor();
    await zh.page.getByRole('button', { name: `编辑 Role ${clerk.username}` }).click();
    const zhDialog = zh.page.getByRole('dialog', { name: `编辑 Role ${clerk.username}` });
    assert.equal(await zhDialog.getByRole('radio', { name: '指定部门' }).isChecked(), true);
    const zhTree = zhDialog.getByRole('tree', { name: '部门树' });
    await zhTree.getByText('Support', { exact: true }).waitFor();
    await atBothWidths(zh.page, 'roles-data-scope-zh-CN', zhTree);
    await zhDialog.getByRole('button', { name: '取消' }).click();
    await visit(zh.page, '/system/admins');
    await row(zh.page, agent.username).getByText('仅本人数据').waitFor();
    await row(zh.page, '受保护').getByText('全部数据').waitFor();
    await atBothWidths(zh.page, 'admins-data-scope-zh-CN');
    assert.deepEqual(zh.errors, []);
    assert.deepEqual(zh.failed, []);
    await zh.context.close();
  });
});
