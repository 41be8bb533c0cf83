// The role editor keeps permissions and menus in step (issue 27, item 7: a role with permissions
// but no menus gave an empty console), and the sidebar's titles (item 8).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { menuTitle } from '../src/components/menuTitle.ts';
import { listPermissionOf, menusForPermissions, permissionsForMenus, roleView, screenOf } from '../src/screens/roles/grants.ts';

// The seeded tree's shape: directories (type 1) and screens (type 2).
const menus = [
  { id: 1, parent_id: 0, slug: 'dashboard', type: 2 },
  { id: 10, parent_id: 0, slug: 'trade', type: 1 },
  { id: 11, parent_id: 10, slug: 'order', type: 2 },
  { id: 14, parent_id: 0, slug: 'log', type: 1 },
  { id: 15, parent_id: 14, slug: 'log-operation', type: 2 },
  { id: 16, parent_id: 14, slug: 'log-login', type: 2 },
  { id: 21, parent_id: 0, slug: 'attachment', type: 2 },
  { id: 22, parent_id: 0, slug: 'notification', type: 2 },
];
// As the server links them: to the menu named like the module (a directory for log.*).
const permissions = [
  { id: 100, slug: 'dashboard.view', menu_id: 1 },
  { id: 101, slug: 'order.create', menu_id: 11 },
  { id: 102, slug: 'order.list', menu_id: 11 },
  { id: 103, slug: 'order.view', menu_id: 11 },
  { id: 104, slug: 'log.operation', menu_id: 14 },
  { id: 105, slug: 'log.login', menu_id: 14 },
  { id: 106, slug: 'attachment.upload', menu_id: 21 },
  { id: 107, slug: 'attachment.view', menu_id: 21 },
  { id: 108, slug: 'notification.send', menu_id: 22 },
  { id: 109, slug: 'custom.thing', menu_id: null },
];

test('a permission belongs to the screen it acts on, not to a directory', () => {
  assert.equal(screenOf(permissions[4]!, menus), 15, 'log.operation → the operation log, not the Logs directory');
  assert.equal(screenOf(permissions[1]!, menus), 11);
  assert.equal(screenOf(permissions[9]!, menus), undefined);
  assert.equal(listPermissionOf(11, menus, permissions), 102, 'orders are read with order.list');
  assert.equal(listPermissionOf(1, menus, permissions), 100, 'the dashboard with dashboard.view');
  assert.equal(listPermissionOf(21, menus, permissions), 107, 'files with attachment.view, not upload');
  assert.equal(listPermissionOf(16, menus, permissions), 105);
  assert.equal(listPermissionOf(22, menus, permissions), undefined, 'sending is not reading: the own notifications need none');
});

test('granting a screen\'s permissions brings its menu entry and the directories above it', () => {
  assert.deepEqual(menusForPermissions([104], [], menus, permissions), [14, 15]);
  assert.deepEqual(menusForPermissions([101, 102], [1], menus, permissions), [1, 10, 11]);
  assert.deepEqual(menusForPermissions([109], [1], menus, permissions), [1], 'a permission of no screen adds nothing');
});

test('granting a menu entry brings the permission that reads it', () => {
  assert.deepEqual(permissionsForMenus([10, 11], [], menus, permissions), [102]);
  assert.deepEqual(permissionsForMenus([22], [101], menus, permissions), [101]);
});

test('the editor says what the role will see, and what it cannot reach or read', () => {
  // The report's role: permissions without menus.
  const before = roleView([101, 102, 104], [], menus, permissions);
  assert.deepEqual(before.screens, []);
  assert.deepEqual(before.unreachable.map((p) => p.slug), ['order.create', 'order.list', 'log.operation']);
  const after = roleView([102], [10, 11, 14, 15], menus, permissions);
  assert.deepEqual(after.screens.map((m) => m.slug), ['order', 'log-operation']);
  assert.deepEqual(after.empty.map((m) => m.slug), ['log-operation'], 'in the menu without log.operation: an empty screen');
});

test('the sidebar shows the title from the server, translating only an unchanged seeded one', () => {
  const t = ((key: string) => (key === 'common:menu.order' ? '订单管理' : key)) as never;
  assert.equal(menuTitle({ slug: 'order', title: 'Orders' }, t), '订单管理');
  assert.equal(menuTitle({ slug: 'order', title: 'Sales orders' }, t), 'Sales orders', 'an edited title is shown as edited');
  assert.equal(menuTitle({ slug: 'reports', title: 'Reports' }, t), 'Reports');
});
