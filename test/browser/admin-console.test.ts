// The console's frame and its lists as people met them at 1440 × 900 and at 390 px, in English
// and in Chinese (issue 27): the sidebar (titles edited in the Menus screen, the icons of the
// menu data, a collapsed sidebar that keeps every entry, a new screen opened at its top), a
// menu that follows a change of roles without a reload, the role editor that keeps permissions
// and menus together, every list's columns in view at 1440 px, and a phone-width console
// (the menu in a drawer, tables scrolling inside their card, no sideways page scroll).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { within } from '../helpers/app.ts';
import { adminPage, browserSkip, newPage, onConsole, screenshot, signIn, waitUntil, visit, type ConsoleServer } from '../helpers/browser.ts';
import { acceptGivenPassword, call, login } from '../helpers/http.ts';

// The functions passed to page.evaluate run in the page; this project's type-check has no DOM types.
declare const document: any, window: any;

const DESK = { viewport: { width: 1440, height: 900 } };
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

/** Every list screen of the console. */
const LISTS = [
  '/system/admins', '/system/roles', '/system/menus', '/system/permissions', '/system/departments', '/system/dictionaries',
  '/system/blacklists', '/trade/orders', '/trade/payment-methods', '/trade/payments', '/logs/operation', '/logs/login',
  '/logs/system', '/monitor/online', '/attachments', '/notifications',
];

const flat = (nodes: any[]): any[] => nodes.flatMap((n) => [n, ...flat(n.children ?? [])]);

/** Columns hidden by sideways scrolling: the table's and the page's overflow. */
async function overflow(page: Page) {
  return page.evaluate(() => ({
    page: document.documentElement.scrollWidth - window.innerWidth,
    tables: [...document.querySelectorAll('.ant-table-content, .ant-table-body')].map((el) => el.scrollWidth - el.clientWidth),
  }));
}

async function settle(page: Page, path: string) {
  await page.waitForURL((u) => u.pathname === path);
  await page.locator('.ant-table-tbody .ant-table-row, .ant-table-placeholder, .ant-empty').first().waitFor();
  await page.waitForFunction(() => !document.querySelector('.ant-spin-spinning'));
}

describe('console frame and lists', { skip: browserSkip() }, () => {
  let browser: Browser;
  let server: ConsoleServer;
  let token: string;
  onConsole((s, b) => ((server = s), (browser = b)));
  before(async () => {
    token = await login(server.app);
    // Ids of five digits, as a console in use has.
    for (const table of ['admins', 'orders', 'roles', 'login_logs', 'operation_logs']) {
      await server.app.platform.db.query(`SELECT setval(pg_get_serial_sequence('admin.${table}', 'id'), 12344)`).catch(() => undefined);
    }
    for (let i = 0; i < 12; i++) {
      const r = await call(server.app, 'POST', '/api/admin/orders', {
        token, body: { user_id: 40_000 + i, amount: 1234.5, request_id: `layout-${i}-${Date.now()}`, products: [{ product_id: 1, product_name: 'Tea', price: 1234.5, quantity: 1 }] },
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      if (i % 3 === 0) await call(server.app, 'PUT', `/api/admin/orders/${r.body.data.order.id}`, { token, body: { status: 'paid' } });
    }
    const roles = await call(server.app, 'GET', '/api/admin/roles?page_size=100', { token });
    const superRole = roles.body.data.list.find((r: any) => r.slug === 'super_admin');
    const a = await call(server.app, 'POST', '/api/admin/admins', {
      token, body: { username: 'clerk_with_a_long_name', password: 'Clerk-pass-123', nickname: 'Clerk with a long nickname', email: 'clerk@example.com', role_ids: [superRole.id], department_id: 1 },
    });
    assert.equal(a.status, 200, JSON.stringify(a.body));
  });

  test('the sidebar: edited titles, the icons of the menu data, a collapsed sidebar keeps every entry, a new screen opens at its top', async () => {
    const menus = flat((await call(server.app, 'GET', '/api/admin/menus', { token })).body.data.list);
    const orders = menus.find((m) => m.slug === 'order');
    const edited = await call(server.app, 'PUT', `/api/admin/menus/${orders.id}`, { token, body: { title_i18n: { 'en-US': 'Sales orders', 'zh-CN': '销售订单' } } });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    try {
      for (const language of ['en-US', 'zh-CN']) {
        const w = await adminPage(browser, server.base, language, DESK);
        const { page } = w;
        const nav = page.getByRole('navigation', { name: language === 'en-US' ? 'Back office' : '后台管理' });
        // The title as edited in each language; an unchanged seeded one translated.
        const salesOrders = language === 'en-US' ? 'Sales orders' : '销售订单';
        const trade = nav.getByRole('menuitem', { name: language === 'en-US' ? 'Trade' : '交易', exact: true });
        const showTrade = () => within(10_000, async () => {
          if (await nav.getByRole('menuitem', { name: salesOrders }).isVisible()) return true;
          if (await trade.getAttribute('aria-expanded') !== 'true') await trade.click();
          return undefined;
        });
        assert.ok(await showTrade(), 'the Trade submenu opens');
        await nav.getByRole('menuitem', { name: language === 'en-US' ? 'Payment methods' : '支付方式' }).waitFor();
        // Every entry draws the icon its menu data names.
        const top = nav.locator('.ant-menu-root > li');
        const count = await top.count();
        assert.ok(count >= 7, `${count} top-level entries`);
        for (let i = 0; i < count; i++) assert.equal(await top.nth(i).locator('.anticon').first().isVisible(), true, `entry ${i} has an icon`);
        await screenshot(page, `console-sidebar-${language}`);

        // A new screen opens at its top, wherever the last one was scrolled to.
        assert.ok(await showTrade(), 'the Trade submenu is still open');
        await nav.getByRole('menuitem', { name: salesOrders }).click();
        await settle(page, '/trade/orders');
        // Scrolled once the screen is drawn long enough to scroll.
        await waitUntil(page, '(window.scrollTo(0, 200), window.scrollY > 0)', 10_000);
        await nav.getByRole('menuitem', { name: language === 'en-US' ? /^Payments$/ : /^支付记录$/ }).click();
        await settle(page, '/trade/payments');
        // The address changes a moment before the screen does: the new screen, once drawn, is at its top.
        await waitUntil(page, `window.scrollY === 0 && location.pathname === '/trade/payments'`, 5_000);

        // Collapsed: every top-level entry (Dashboard, Files and Notifications too) shows its icon, and no stray letters.
        await page.locator('.ant-layout-sider-trigger').click();
        await page.waitForFunction(() => document.querySelector('.shell-sider').offsetWidth <= 80);
        await page.waitForTimeout(300); // the collapse animation
        for (let i = 0; i < count; i++) {
          const box = await top.nth(i).locator('.anticon').first().boundingBox();
          assert.ok(box && box.width > 0 && box.x < 80, `entry ${i} visible when collapsed`);
        }
        // An entry without an icon would show the first letter of its title instead.
        assert.equal(await nav.locator('.ant-menu-inline-collapsed-noicon').count(), 0);
        await screenshot(page, `console-sidebar-collapsed-${language}`);
        assert.deepEqual(w.errors, []);
        assert.deepEqual(w.failed, []);
        await w.context.close();
      }
    } finally {
      await call(server.app, 'PUT', `/api/admin/menus/${orders.id}`, { token, body: { title_i18n: { 'en-US': 'Orders', 'zh-CN': '订单' } } });
    }
  });

  test('the role editor gives a screen with its permission, says what the role will see, and the menu follows without a reload', async () => {
    const w = await adminPage(browser, server.base, 'en-US', DESK);
    const { page } = w;
    await page.goto(`${server.base}/system/roles`);
    await page.getByRole('button', { name: 'Create' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Role name').fill('Order clerks');
    await dialog.getByLabel('Slug').fill('order_clerks');
    await dialog.getByRole('tab', { name: /^Permissions/ }).click();
    const view = dialog.getByRole('status', { name: 'What this role will see' });
    await view.getByText(/will see no screen/).waitFor();
    // Ticking the orders list brings the Orders entry (and the Trade directory above it).
    await dialog.getByRole('tree', { name: 'Permission tree' }).getByText('order.list', { exact: true }).click();
    await view.getByText('This role will see 1 screen in its menu: Orders.').waitFor();
    await dialog.getByRole('tab', { name: /^Menus/ }).click();
    await dialog.getByRole('tab', { name: 'Menus (2)' }).waitFor();
    // Ticking Payments brings payment.list.
    await dialog.getByRole('tree', { name: 'Menu tree' }).getByText('Payments', { exact: true }).click();
    await dialog.getByRole('tab', { name: 'Permissions (2)' }).waitFor();
    await view.getByText(/2 screens in its menu: Orders, Payments/).waitFor();
    await screenshot(page, 'console-role-editor');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved').first().waitFor();
    const roles = await call(server.app, 'GET', '/api/admin/roles?page_size=100&name=Order%20clerks', { token });
    const role = roles.body.data.list[0];
    const slugs = (await call(server.app, 'GET', '/api/admin/permissions?page_size=100', { token })).body.data.list
      .filter((p: any) => role.permission_ids.includes(p.id)).map((p: any) => p.slug).sort();
    assert.deepEqual(slugs, ['order.list', 'payment.list']);

    // A clerk with that role sees Orders and Payments; a new menu appears when the window regains focus.
    const clerk = await call(server.app, 'POST', '/api/admin/admins', { token, body: { username: 'orderclerk', password: 'Clerk-pass-123', role_ids: [role.id], department_id: 1 } });
    assert.equal(clerk.status, 200, JSON.stringify(clerk.body));
    const them = await newPage(browser, 'en-US', DESK);
    await acceptGivenPassword(server.app, 'orderclerk');
    await signIn(them.page, server.base, 'orderclerk', 'Clerk-pass-123');
    await them.page.waitForURL(/\/trade\/orders/);
    const nav = them.page.getByRole('navigation', { name: 'Back office' });
    await nav.getByRole('menuitem', { name: 'Payments' }).waitFor();
    assert.equal(await nav.getByRole('menuitem', { name: 'Logs' }).count(), 0);
    const menus = flat((await call(server.app, 'GET', '/api/admin/menus', { token })).body.data.list);
    const more = menus.filter((m) => ['log', 'log-operation'].includes(m.slug)).map((m) => m.id);
    const updated = await call(server.app, 'PUT', `/api/admin/roles/${role.id}`, { token, body: { menu_ids: [...role.menu_ids, ...more] } });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    await them.page.evaluate(() => window.dispatchEvent(new Event('focus')));
    await nav.getByRole('menuitem', { name: 'Logs' }).waitFor();
    assert.deepEqual(them.errors, []);
    await them.context.close();
    await w.context.close();
  });

  test('the dashboard’s Business tab charts 30 days with a legend; its System tab charts today hour by hour; operations and permissions are named in the reader’s language', async () => {
    for (const [language, names, created, viewPermissions, business] of [
      ['en-US', ['Operations', 'Successful sign-ins'], 'Create orders', 'View permissions', ['Orders', 'Revenue', 'System', 'Top products by quantity']],
      ['zh-CN', ['操作', '成功登录'], '新增订单', '查看权限', ['订单数', '收入', '系统', '销量最高的商品']],
    ] as const) {
      const w = await adminPage(browser, server.base, language, DESK);
      const { page } = w;
      // Business first (the default tab): the 30 days' chart, its legend naming both series with the period's totals.
      const figures = (await call(server.app, 'GET', '/api/admin/dashboard/business', { token })).body.data as { period: { orders: number }; by_day: unknown[] };
      assert.equal(figures.by_day.length, 30);
      const businessLegend = page.locator('.dashboard-by-day .recharts-legend-item-text');
      await businessLegend.first().waitFor();
      const series = await businessLegend.allInnerTexts();
      assert.deepEqual(series.map((t) => t.replace(/ \(.*\)$/, '')).sort(), [business[0], business[1]].sort());
      const ordersItem = series.find((t) => t.startsWith(`${business[0]} (`));
      assert.equal(ordersItem, `${business[0]} (${figures.period.orders})`);
      await page.locator('.dashboard-products').getByText(business[3]).waitFor();
      await screenshot(page, `console-dashboard-business-${language}`);
      await page.getByRole('tab', { name: business[2] }).click();
      const stats = await call(server.app, 'GET', '/api/admin/dashboard/stats', { token, headers: { 'accept-language': language } });
      const activity = stats.body.data.activity_today as { date: string; series: { name: string; total: number }[] };
      // Both series of the whole day, named by the server: not a guess from the newest ten rows.
      const legend = page.locator('.dashboard-activity .recharts-legend-item-text');
      await legend.first().waitFor();
      const texts = await legend.allInnerTexts();
      assert.deepEqual(texts.map((t) => t.replace(/ \(\d+\)$/, '')).sort(), [...names].sort());
      const operations = Number(/\((\d+)\)$/.exec(texts.find((t) => t.startsWith(names[0]))!)![1]);
      assert.ok(operations >= 12, `the day’s operations (${operations}) count every order this test created, not the newest ten rows`);
      assert.equal(activity.series.length, 2);
      await page.locator('.dashboard-activity').getByText(activity.date).first().waitFor();
      assert.equal(await page.locator('.dashboard-activity .recharts-wrapper text', { hasText: /^00:00$/ }).count(), 1, 'the x axis starts at midnight');
      // Recent operations: what was done, not the module and action slugs.
      await page.locator('.ant-card', { hasText: language === 'en-US' ? 'Recent operations' : '最近操作' }).getByText(created).first().waitFor();
      await screenshot(page, `console-dashboard-${language}`);

      await page.goto(`${server.base}/logs/operation`);
      await settle(page, '/logs/operation');
      await page.locator('.ant-table-tbody').getByText(created).first().waitFor();
      assert.equal(await page.locator('.ant-table-tbody').getByText(/^order$/).count(), 0, 'no raw module slug');
      await screenshot(page, `console-operation-log-${language}`);

      await page.goto(`${server.base}/system/permissions?slug=permission.list`);
      await settle(page, '/system/permissions');
      await page.locator('.ant-table-row', { hasText: 'permission.list' }).first().getByText(viewPermissions, { exact: true }).waitFor();
      await screenshot(page, `console-permissions-${language}`);
      assert.deepEqual(w.errors, []);
      assert.deepEqual(w.failed, []);
      await w.context.close();
    }
  });

  for (const language of ['en-US', 'zh-CN']) {
    test(`at 1440 px every list shows all its columns without sideways scrolling (${language})`, async () => {
      const w = await adminPage(browser, server.base, language, DESK);
      const { page } = w;
      await screenshot(page, `console-1440-dashboard-${language}`);
      const wide: string[] = [];
      for (const path of LISTS) {
        await visit(page, path);
        await settle(page, path);
        const o = await overflow(page);
        if (o.page > 0 || o.tables.some((x) => x > 1)) wide.push(`${path} ${JSON.stringify(o)}`);
        // No cell's text is cut or wraps: every row is one line high.
        const tall = await page.evaluate(() => [...document.querySelectorAll('.ant-table-tbody .ant-table-row')]
          .filter((r) => r.offsetHeight > 80).length);
        if (tall > 0) wide.push(`${path}: ${tall} rows over 80 px high`);
        await screenshot(page, `console-1440${path.replaceAll('/', '-')}-${language}`);
        if (path === '/trade/orders') {
          // Cancelling asks "Cancel order" / "Keep it", not "Confirm" / "Cancel".
          const [yes, no] = language === 'en-US' ? ['Cancel order', 'Keep it'] : ['取消订单', '保留订单'];
          await page.getByRole('button', { name: yes, exact: true }).first().click();
          const bubble = page.locator('.ant-popconfirm');
          await bubble.getByRole('button', { name: no, exact: true }).waitFor();
          await bubble.getByRole('button', { name: yes, exact: true }).waitFor();
          await screenshot(page, `console-1440-orders-cancel-${language}`);
          await bubble.getByRole('button', { name: no, exact: true }).click();
        }
      }
      assert.deepEqual(wide, []);
      assert.deepEqual(w.errors, []);
      assert.deepEqual(w.failed, []);
      await w.context.close();
    });

    test(`at 390 px the menu is a drawer, tables scroll inside their card, and the page never scrolls sideways (${language})`, async () => {
      const w = await adminPage(browser, server.base, language, PHONE);
      const { page } = w;
      assert.equal(await page.locator('.shell-sider').count(), 0, 'no sidebar on a phone');
      await page.locator('.dashboard-by-day .recharts-legend-item-text').first().waitFor();
      assert.ok((await overflow(page)).page <= 0, 'the business dashboard does not scroll sideways');
      await screenshot(page, `console-390-dashboard-${language}`);
      await page.getByRole('button', { name: language === 'en-US' ? 'Menu' : '菜单' }).click();
      const drawer = page.getByRole('dialog');
      await drawer.getByRole('menuitem', { name: language === 'en-US' ? 'Trade' : '交易' }).click();
      await screenshot(page, `console-390-drawer-${language}`);
      await drawer.getByRole('menuitem', { name: language === 'en-US' ? 'Orders' : '订单' }).click();
      await settle(page, '/trade/orders');
      await drawer.waitFor({ state: 'hidden' });
      const problems: string[] = [];
      for (const path of ['/trade/orders', ...LISTS.filter((p) => p !== '/trade/orders')]) {
        if (path !== '/trade/orders') await visit(page, path);
        await settle(page, path);
        const o = await overflow(page);
        if (o.page > 0) problems.push(`${path} page ${o.page} px too wide`);
        // The first column in view is data, not the Actions column pinned over it.
        const first = await page.locator('.ant-table-thead th').first().innerText();
        if (/^(Actions|操作)$/.test(first.trim())) problems.push(`${path} starts with Actions`);
        const pinned = await page.locator('.ant-table-cell-fix-right, .ant-table-cell-fix-end').count();
        if (pinned > 0) problems.push(`${path} has ${pinned} pinned cells`);
        await screenshot(page, `console-390${path.replaceAll('/', '-')}-${language}`);
      }
      assert.deepEqual(problems, []);
      assert.deepEqual(w.errors, []);
      assert.deepEqual(w.failed, []);
      await w.context.close();
    });
  }
});
