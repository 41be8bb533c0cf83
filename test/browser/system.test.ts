// The system screens of the console in Chromium: dictionaries, the IP blacklist, the three logs
// (the trace link from a system log row to the operation rows of the same request, and where
// each sign-in of the login log came from, at a desk and on a phone), online
// administrators (kicking out a session of another browser), and server monitoring.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import ExcelJS from 'exceljs';
import type { Browser, Page } from 'playwright-core';
import { recordSystemLog } from '../../src/admin/features/logs/logs.recorder.ts';
import { within } from '../helpers/app.ts';
import { adminPage, browserSkip, newPage, onConsole, PHONE, screenshot, settled, signIn, visit, type ConsoleServer } from '../helpers/browser.ts';
import { call, login, seedAdmin } from '../helpers/http.ts';

/** Rows of the main table (antd's measure row left out). */
const rows = (page: Page) => page.locator('.ant-table-tbody tr.ant-table-row');

describe('console system screens', { skip: browserSkip() }, () => {
  let browser: Browser;
  let server: ConsoleServer;
  let token: string;
  // Lists over growing tables count at most 10 rows here (the login log's step pages past it).
  onConsole((s, b) => ((server = s), (browser = b)), { LIST_COUNT_LIMIT: '10' });
  before(async () => {
    token = await login(server.app);
  });

  test('a dictionary type and one of its items are created and found; a code used twice is refused next to the field', async () => {
    const w = await adminPage(browser, server.base);
    await visit(w.page, '/system/dictionaries');
    await w.page.getByText('Choose a dictionary type on the left').waitFor();

    await w.page.getByRole('button', { name: 'New type' }).click();
    const typeForm = w.page.getByRole('dialog', { name: 'New dictionary type' });
    await typeForm.getByLabel('Name').fill('Shipping carriers');
    await typeForm.getByLabel('Code').fill('bad code');
    await typeForm.getByRole('button', { name: 'Save' }).click();
    await typeForm.getByText('1 to 64 letters, digits').waitFor();
    await typeForm.getByLabel('Code').fill('shipping_carrier');
    await typeForm.getByRole('button', { name: 'Save' }).click();
    // The new type is chosen at once, and its (empty) items shown.
    await w.page.getByText('Items of Shipping carriers').waitFor();
    assert.match(w.page.url(), /type=\d+/);

    await w.page.getByRole('button', { name: 'New item' }).click();
    const itemForm = w.page.getByRole('dialog', { name: 'New item of Shipping carriers' });
    await itemForm.getByLabel('Name').fill('Parcel Express');
    await itemForm.getByLabel('Code').fill('PARCEL');
    await itemForm.getByRole('textbox', { name: 'Value', exact: true }).fill('parcel-express');
    await itemForm.getByRole('button', { name: 'Save' }).click();
    await rows(w.page).filter({ hasText: 'Parcel Express' }).filter({ hasText: 'parcel-express' }).waitFor();

    // The same code in another case: the server's refusal, next to the code.
    await w.page.getByRole('button', { name: 'New item' }).click();
    await itemForm.getByLabel('Name').fill('Parcel again');
    await itemForm.getByLabel('Code').fill('parcel');
    await itemForm.getByRole('button', { name: 'Save' }).click();
    await itemForm.getByText('already exists').waitFor();
    await screenshot(w.page, 'system-dictionary-duplicate');
    await itemForm.getByRole('button', { name: 'Cancel' }).click();

    // Found by the items' filter, which lives in the URL with the chosen type.
    await w.page.getByRole('textbox', { name: 'Code' }).fill('parc');
    await w.page.getByRole('button', { name: 'Search', exact: true }).click();
    await w.page.waitForURL(/code=parc/);
    assert.equal(await rows(w.page).filter({ hasText: 'Parcel Express' }).count(), 1);
    await w.page.reload();
    await rows(w.page).filter({ hasText: 'Parcel Express' }).waitFor();
    await screenshot(w.page, 'system-dictionaries');
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, ['POST /api/admin/dictionaries 400']);
    await w.context.close();
  });

  test('a CIDR rule is created; one blocking the caller is refused; two rules are deleted together', async () => {
    const w = await adminPage(browser, server.base);
    await visit(w.page, '/system/blacklists');
    await w.page.getByText('Nothing here yet').waitFor();
    await w.page.getByRole('button', { name: 'Create' }).click();
    const form = w.page.getByRole('dialog', { name: 'New rule' });
    await form.waitFor();
    await form.getByLabel('IP rule').fill('198.51.100.0/33');
    await form.getByLabel('Remark').fill('scanner network');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByText('An IPv4 or IPv6 address, a CIDR block').waitFor();
    await form.getByLabel('IP rule').fill('198.51.100.0/24');
    await form.getByRole('button', { name: 'Save' }).click();
    await rows(w.page).filter({ hasText: '198.51.100.0/24' }).filter({ hasText: 'scanner network' }).waitFor();

    // The caller's own address (the test browser comes from 127.0.0.1): refused, said at the field.
    await w.page.getByRole('button', { name: 'Create' }).click();
    await form.getByLabel('IP rule').fill('127.0.0.0/8');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.locator('.ant-form-item-explain-error').waitFor();
    await screenshot(w.page, 'system-blacklist-own-address');
    await form.getByRole('button', { name: 'Cancel' }).click();

    const other = await call(server.app, 'POST', '/api/admin/blacklists', { token, body: { ip: '2001:db8::/32', remark: 'documentation' } });
    assert.equal(other.status, 200);
    await w.page.getByRole('button', { name: 'Search', exact: true }).click();
    await w.page.reload();
    await w.page.getByRole('checkbox', { name: 'IP rule 198.51.100.0/24' }).check();
    await w.page.getByRole('checkbox', { name: 'IP rule 2001:db8::/32' }).check();
    await screenshot(w.page, 'system-blacklists');
    await w.page.getByRole('button', { name: 'Delete selected' }).click();
    const deleted = w.page.waitForResponse((r) => r.url().endsWith('/api/admin/blacklists/batch'));
    await w.page.getByRole('button', { name: 'OK', exact: true }).click();
    const reply = await deleted;
    assert.equal(reply.status(), 200);
    assert.deepEqual(((await reply.json()) as { data: unknown }).data, { deleted: 2, not_found: [] });
    await w.page.getByText('2 deleted, 0 already gone').waitFor();
    await w.page.getByText('Nothing here yet').waitFor();
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, ['POST /api/admin/blacklists 400']);

    // The operation log has the row of the rule just created, found by module.
    await visit(w.page, '/logs/operation');
    await w.page.getByRole('textbox', { name: 'Module' }).fill('blacklist');
    await w.page.getByRole('button', { name: 'Search', exact: true }).click();
    await w.page.waitForURL(/module=blacklist/);
    // Newest first: the rule made in the console is the oldest creation.
    const created = rows(w.page).filter({ hasText: '/api/admin/blacklists' }).filter({ hasText: 'Add IP blacklist rules' });
    await created.first().waitFor();
    assert.equal(await created.count(), 3, 'the console\'s rule, the refused one, the one made through the API');
    await created.last().getByRole('button', { name: /^Details/ }).click();
    const drawer = w.page.getByRole('dialog');
    await drawer.getByLabel('Parameters').getByText('"ip": "198.51.100.0/24"').waitFor();
    // What it changed: the rule, named by its address, with the values it was created with.
    const change = drawer.getByRole('region', { name: /^Created blacklist rule “198\.51\.100\.0\/24”/ });
    await change.getByLabel('After: 198.51.100.0/24').waitFor();
    await w.page.waitForTimeout(400); // the drawer's slide
    await screenshot(w.page, 'system-operation-log-detail');
    assert.deepEqual(w.errors, []);
    await w.context.close();
  });

  test('a system log row leads to the operation log rows of the same trace; the login log lists sign-ins', async () => {
    const trace = randomUUID().replaceAll('-', '');
    const made = await call(server.app, 'POST', '/api/admin/dictionaries', { token, headers: { 'x-trace-id': trace }, body: { name: 'Traced type', code: `traced_${Date.now()}` } });
    assert.equal(made.status, 200);
    recordSystemLog('warning', 'a warning written while handling the traced request', { hint: 'test' }, trace);
    const w = await adminPage(browser, server.base);
    await visit(w.page, '/logs/system?level=warning');
    const row = rows(w.page).filter({ hasText: 'a warning written while handling the traced request' });
    await row.getByRole('button', { name: /^Details/ }).click();
    await w.page.getByRole('dialog').getByLabel('Context').getByText('"hint": "test"').waitFor();
    await w.page.waitForTimeout(400); // the drawer's slide
    await screenshot(w.page, 'system-system-log-detail');
    await w.page.getByRole('dialog').getByRole('link', { name: 'Operation log rows of this trace' }).click();
    await w.page.waitForURL(new RegExp(`/logs/operation\\?trace_id=${trace}$`));
    assert.doesNotMatch(w.page.url(), /start_date|end_date/, 'the server filters by trace: no time window');
    await w.page.getByText(`Showing the operation log rows of trace ${trace}`).waitFor();
    await rows(w.page).filter({ hasText: '/api/admin/dictionaries' }).waitFor();
    assert.equal(await rows(w.page).count(), 1, 'only the row of the trace');
    await screenshot(w.page, 'system-operation-log-trace');
    // The same filter exported as an Excel file: the one row of the trace.
    await w.page.getByRole('button', { name: 'Export Excel' }).click();
    const exporting = w.page.getByRole('dialog', { name: 'Export' });
    await exporting.getByText('Ready: 1 rows').waitFor();
    const downloading = w.page.waitForEvent('download');
    await exporting.getByRole('button', { name: 'Download the file' }).click();
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile((await (await downloading).path()));
    const sheet = book.worksheets[0]!;
    assert.equal(sheet.actualRowCount, 2);
    assert.equal(sheet.getRow(2).getCell(12).value, trace);
    await exporting.getByRole('button', { name: 'Close', exact: true }).last().click();
    // And back: the operation row links to the system rows of its trace.
    await rows(w.page).first().getByRole('button', { name: /^Details/ }).click();
    await w.page.getByRole('dialog').getByRole('link', { name: 'System log rows of this trace' }).click();
    await w.page.waitForURL(/\/logs\/system\?trace_id=/);
    await rows(w.page).filter({ hasText: 'a warning written while handling the traced request' }).waitFor();
    assert.equal(await rows(w.page).count(), 1);
    await screenshot(w.page, 'system-system-logs');

    await visit(w.page, '/logs/login');
    await w.page.getByRole('combobox', { name: 'Result' }).click();
    await w.page.getByTitle('Success', { exact: true }).click();
    await w.page.getByRole('switch', { name: 'Time of day' }).click();
    await w.page.getByRole('button', { name: 'Search', exact: true }).click();
    await w.page.waitForURL(/status=1/);
    await rows(w.page).filter({ hasText: 'Signed in' }).first().waitFor();
    await screenshot(w.page, 'system-login-logs');
    // A date with a time of day in the URL turns the switch on; turned off, the search sends the day alone.
    await w.page.goto(`${server.base}/logs/login?start_date=2020-01-01+08:30:00`);
    const precise = w.page.getByRole('switch', { name: 'Time of day' });
    await rows(w.page).first().waitFor();
    assert.equal(await precise.getAttribute('aria-checked'), 'true');
    await precise.click();
    await w.page.getByRole('button', { name: 'Search', exact: true }).click();
    await w.page.waitForURL(/\?start_date=2020-01-01$/);
    // More sign-ins match than the server counts (LIST_COUNT_LIMIT): the pager says so.
    await server.app.platform.db.query(
      `INSERT INTO admin.login_logs (username, ip, status, reason) SELECT 'capped', '192.0.2.' || n, 0, 'wrong_password' FROM generate_series(1, 12) n`,
    );
    await w.page.goto(`${server.base}/logs/login?ip=192.0.2.`);
    await w.page.getByText('More than 10 match: narrow the filters to count them all').waitFor();
    await screenshot(w.page, 'system-login-logs-capped');
    // The rows past the count are reached with the next page, which comes back short: the last.
    await w.page.getByRole('listitem', { name: 'Next Page' }).click();
    await w.page.waitForURL(/page=2/);
    // The address exactly: "192.0.2.1" is also part of .10 to .12 on the first page, shown until the second arrives.
    await rows(w.page).getByRole('cell', { name: '192.0.2.1', exact: true }).waitFor();
    assert.equal(await rows(w.page).count(), 2);
    assert.equal(await w.page.getByRole('listitem', { name: 'Next Page' }).getAttribute('aria-disabled'), 'true');
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, []);
    await w.context.close();
  });

  test('the login log says where each sign-in came from, at a desk and on a phone, in both languages', async () => {
    const who = await seedAdmin(server.app);
    // Rows as sign-ins from these places write them (the API tests make them through real sign-ins).
    await server.app.platform.db.query(
      `INSERT INTO admin.login_logs (admin_id, username, ip, user_agent, status, reason, location_kind, country, city) VALUES
         ($1, $2, '127.0.0.1', $3, 1, 'success', 'loopback', '', ''), ($1, $2, '10.20.30.40', $3, 1, 'success', 'private', '', ''),
         ($1, $2, '2001:db8:85a3::8a2e:370:7334', $3, 0, 'authenticator_required', 'unknown', '', ''), ($1, $2, '8.8.8.8', $3, 1, 'success', 'public', 'US', ''),
         ($1, $2, '81.2.69.142', $3, 1, 'success', 'public', 'GB', 'Long Buckby'), ($1, $2, '223.5.5.5', $3, 1, 'success', 'public', 'CN', 'Hangzhou')`,
      [who.id, who.username, 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36'],
    );
    const places = {
      'en-US': { column: 'Location', labels: ['Hangzhou, China', 'Long Buckby, United Kingdom', 'United States', 'Unknown', 'Private network', 'This machine'], detail: 'Details' },
      'zh-CN': { column: '登录地点', labels: ['中国 Hangzhou', '英国 Long Buckby', '美国', '未知', '内网', '本机'], detail: '详情' },
    } as const;
    for (const [language, place] of Object.entries(places)) {
      for (const [width, options] of [['desk', { viewport: { width: 1440, height: 900 } }], ['phone', PHONE]] as const) {
        const w = await adminPage(browser, server.base, language, options);
        await visit(w.page, `/logs/login?admin_id=${who.id}`);
        await rows(w.page).first().getByText(place.labels[0]).waitFor();
        assert.equal(await rows(w.page).count(), 6);
        await w.page.getByRole('columnheader', { name: place.column }).waitFor();
        for (const [i, label] of place.labels.entries()) await rows(w.page).nth(i).getByRole('cell', { name: label, exact: true }).waitFor();
        await settled(w.page);
        await screenshot(w.page, `system-login-locations-${width}${language === 'zh-CN' ? '-zh' : ''}`);
        // The row's detail names the place and its country code.
        await rows(w.page).first().getByRole('button', { name: new RegExp(`^${place.detail}`) }).click();
        await w.page.getByRole('dialog').getByText(`${place.labels[0]} (CN)`).waitFor();
        await w.page.waitForTimeout(400); // the drawer's slide
        await screenshot(w.page, `system-login-location-detail-${width}${language === 'zh-CN' ? '-zh' : ''}`);
        assert.deepEqual(w.errors, []);
        assert.deepEqual(w.failed, []);
        await w.context.close();
      }
    }
  });

  test('an administrator kicks out the sessions of another browser, which is sent to sign-in on its next request', async () => {
    const who = await seedAdmin(server.app, { permissions: ['log.login'], menus: ['log', 'log-login'] });
    const other = await newPage(browser);
    await signIn(other.page, server.base, who.username, who.password);
    await other.page.waitForURL(/\/logs\/login/);
    await login(server.app, who.username, who.password);

    const w = await adminPage(browser, server.base);
    await visit(w.page, '/monitor/online');
    await rows(w.page).filter({ hasText: 'This session' }).waitFor();
    await w.page.getByRole('textbox', { name: 'Username' }).fill(who.username);
    await w.page.getByRole('button', { name: 'Search', exact: true }).click();
    await w.page.waitForURL(new RegExp(`username=${who.username}`));
    const count = (n: number) => within(10_000, async () => ((await rows(w.page).count()) === n ? true : undefined));
    assert.ok(await count(2), 'the two sessions of that administrator');
    await screenshot(w.page, 'system-online');
    // One by its own button, the other selected and kicked out in a batch.
    await rows(w.page).first().getByRole('button', { name: /^Kick out/ }).click();
    await w.page.getByRole('button', { name: 'OK', exact: true }).click();
    await w.page.getByText('Session ended').waitFor();
    assert.ok(await count(1), 'one session left');
    await rows(w.page).first().getByRole('checkbox').check();
    await w.page.getByRole('button', { name: 'Kick out selected' }).click();
    await w.page.getByRole('button', { name: 'OK', exact: true }).click();
    await w.page.getByText('1 ended, 0 no longer online').waitFor();
    await w.page.getByText('Nothing matches these filters').waitFor();

    await other.page.reload();
    await other.page.waitForURL(/\/login/);
    await other.page.getByText('Your session was ended').waitFor();
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, []);
    await other.context.close();
    await w.context.close();
  });

  test('the monitor shows the host, runtime, database and cache figures and samples them again every 5 seconds', async () => {
    const w = await adminPage(browser, server.base);
    await visit(w.page, '/monitor/system');
    const sample = w.page.getByRole('status').filter({ hasText: 'Last sample' });
    await sample.waitFor();
    for (const label of ['CPU Usage', 'Memory Usage', 'Disk Usage', 'Heap']) await w.page.getByRole('progressbar', { name: label }).waitFor();
    await w.page.getByText(/of \d+(\.\d)? [KMGT]?B/).first().waitFor();
    await w.page.getByText(/^v\d+\.\d+\.\d+$/).waitFor();
    // The database (the embedded one in this pass) and the cache (this process's memory), both up.
    const database = w.page.getByRole('region', { name: 'Database' });
    await database.getByLabel('Database: Up').waitFor();
    await database.getByText('PGlite', { exact: true }).waitFor();
    await database.getByText(/^PostgreSQL \d+.*PGlite/).waitFor();
    await database.getByText(/^\d+(\.\d+)? ms$/).waitFor();
    await database.getByText(/^\d+(\.\d)? [KMGT]?B$/).waitFor();
    await database.getByText(/^\d+ under way · \d+ waiting · pool size 1$/).waitFor();
    const cache = w.page.getByRole('region', { name: 'Cache' });
    await cache.getByLabel('Cache: Up').waitFor();
    await cache.getByText('Memory', { exact: true }).waitFor();
    await cache.getByText(/No Redis configured/).waitFor();
    const first = await sample.textContent();
    const changed = await within(9000, async () => ((await w.page.locator('[role=status]').first().textContent()) !== first ? true : undefined));
    assert.ok(changed, 'the sample time changes');
    await screenshot(w.page, 'system-monitor');
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, []);
    await w.context.close();
  });

  test('an operation’s changes read as before and after, in Chinese at phone width', async () => {
    const made = await call(server.app, 'POST', '/api/admin/dictionaries', { token, body: { name: 'Carriers', code: `carriers_${Date.now()}` } });
    assert.equal(made.status, 200);
    const changed = await call(server.app, 'PUT', `/api/admin/dictionaries/${made.body.data.id}`, { token, body: { name: 'Parcel carriers' } });
    assert.equal(changed.status, 200);
    const w = await adminPage(browser, server.base, 'zh-CN', { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await visit(w.page, `/logs/operation?trace_id=${changed.body.trace_id}`);
    await rows(w.page).first().getByRole('button', { name: /^详情/ }).click();
    const change = w.page.getByRole('dialog').getByRole('region', { name: /^修改字典项 “Parcel carriers”/ });
    // The name, and its English text among its translations (`name_i18n.en-US`): nothing else changed.
    await change.getByLabel('修改前: Carriers').first().waitFor();
    await change.getByLabel('修改后: Parcel carriers').first().waitFor();
    assert.deepEqual(await change.locator('code').allTextContents(), ['name', 'name_i18n.en-US']);
    await change.scrollIntoViewIfNeeded();
    await screenshot(w.page, 'system-operation-log-changes-zh-390');
    assert.deepEqual(w.errors, []);
    await w.context.close();
  });

  test('the screens in Chinese', async () => {
    const w = await adminPage(browser, server.base, 'zh-CN');
    const screens: [string, string, string][] = [
      ['/system/dictionaries', '字典类型', 'dictionaries'],
      ['/system/blacklists', 'IP 规则', 'blacklists'],
      ['/logs/operation', '模块', 'operation-logs'],
      ['/logs/login', '结果', 'login-logs'],
      ['/logs/system', '追踪 ID', 'system-logs'],
      ['/monitor/online', '当前会话', 'online'],
      ['/monitor/system', '数据库', 'monitor'],
    ];
    for (const [path, text, name] of screens) {
      await visit(w.page, path);
      await w.page.getByText(text).first().waitFor();
      await w.page.locator('.ant-spin-spinning').waitFor({ state: 'detached' }).catch(() => undefined);
      await screenshot(w.page, `system-${name}-zh`);
    }
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, []);
    await w.context.close();
  });
});
