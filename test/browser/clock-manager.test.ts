// The time-clock manager console in Chromium against the real server: a manager signs in,
// creates a site by typing its fence's coordinates and a QR code on it, prints the QR sheet
// (checked by decoding the printed image); creates a worker and resets their device binding;
// sees a worker clocked in on the live board (and on its map) and marks a late punch reviewed; finds a security
// alert; creates a webhook whose secret is shown once; is told a username is taken; renames a tag; pages through a worker's history; after
// sign-in goes to the page asked for, never to another origin; sees a worker locked by failed sign-ins (whose app says why) and unlocks them. Every screen in both languages and
// at phone width: clock-manager-screens.test.ts; an unfenced site, QR codes' usability and an alert's
// workflow: clock-manager-fences-alerts.test.ts.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import ExcelJS from 'exceljs';
import jsQR from 'jsqr';
import type { Browser, Page } from 'playwright-core';
import { MANAGER_PASSWORD } from '../helpers/app.ts';
import { browserSkip, newPage, onConsole, PHONE, screenshot, settled, signInClock, visit, waitUntil, type ConsoleServer, type Watched } from '../helpers/browser.ts';
import { call } from '../helpers/http.ts';
import { clock, createWorker, managerToken, newDeviceUuid, siteWithQr, workerLogin } from '../helpers/timeclock.ts';

const CENTRE = { latitude: 48.8566, longitude: 2.3522 };

/** Decodes the QR image shown on the page (drawn to a canvas in the page, decoded here). */
async function decodeQr(page: Page): Promise<string | null> {
  // Runs in the page (a string: this project's type-check has no DOM types).
  const pixels = await page.evaluate<{ width: number; height: number; data: number[] }>(`(() => {
    const img = document.querySelector('main.qr-sheet img');
    const canvas = document.createElement('canvas');
    canvas.width = img.naturalWidth;
    canvas.height = img.naturalHeight;
    const ctx = canvas.getContext('2d');
    ctx.drawImage(img, 0, 0);
    const data = ctx.getImageData(0, 0, canvas.width, canvas.height);
    return { width: data.width, height: data.height, data: Array.from(data.data) };
  })()`);
  // jsqr is CommonJS: its default export is the function at run time.
  const decode = jsQR as unknown as (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;
  return decode(Uint8ClampedArray.from(pixels.data), pixels.width, pixels.height)?.data ?? null;
}

describe('time-clock manager console', { skip: browserSkip() }, () => {
  let browser: Browser;
  let server: ConsoleServer;
  let manager: string;
  onConsole((s, b) => ((server = s), (browser = b)));
  before(async () => {
    manager = await managerToken(server.app);
  });

  test('sites, QR codes and their sheet, workers, the live board, alerts and webhooks', { timeout: 360_000 }, async () => {
    const w: Watched = await newPage(browser);
    const { page } = w;
    await signInClock(page, server.base, server.app.platform.config.MANAGER_USERNAME, MANAGER_PASSWORD);
    await page.waitForURL(/\/clock\/manager\/board$/);
    await page.getByText('No worker is clocked in.').waitFor();

    // A site whose fence is typed (nothing drawn): a circle of 150 m.
    await page.getByRole('menuitem', { name: 'Sites' }).click();
    await page.waitForURL(/\/manager\/sites$/);
    await page.getByRole('button', { name: 'New site' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('North yard');
    // Refused in the form before any request: a latitude out of range.
    await dialog.getByLabel('Centre latitude').fill('123');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText('A latitude between −90 and 90.').waitFor();
    await dialog.getByLabel('Centre latitude').fill(String(CENTRE.latitude));
    await dialog.getByLabel('Centre longitude').fill(String(CENTRE.longitude));
    await dialog.getByLabel('Radius (m)').fill('150');
    await dialog.locator('.leaflet-interactive').first().waitFor();
    await dialog.getByText('No map tiles configured').waitFor();
    await settled(page);
    await screenshot(page, 'clock-manager-site-editor-en-US');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('cell', { name: 'North yard', exact: true }).waitFor();
    await page.getByRole('cell', { name: 'circle, 150 m' }).waitFor();
    const sites = await call(server.app, 'GET', '/api/managers/sites', { token: manager });
    const site = sites.body.find((s: { name: string }) => s.name === 'North yard');
    assert.deepEqual(site.fence, { type: 'circle', center: CENTRE, radiusMetres: 150 });

    // A QR code on it.
    await page.getByRole('menuitem', { name: 'QR codes' }).click();
    await page.getByRole('button', { name: 'New QR code' }).click();
    await dialog.getByLabel('Name').fill('Gate A');
    await dialog.getByLabel('Site').click();
    await page.locator('.ant-select-item-option[title="North yard"]').click();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('cell', { name: 'Gate A', exact: true }).waitFor();
    // Each code says its site.
    await page.getByRole('row', { name: /Gate A/ }).getByRole('cell', { name: 'North yard', exact: true }).waitFor();
    const codes = await call(server.app, 'GET', `/api/managers/qr-codes?siteId=${site.id}`, { token: manager });
    assert.equal(codes.body.length, 1);
    const qr = codes.body[0].id as string;
    assert.equal(await page.getByRole('link', { name: 'Print sheet' }).getAttribute('href'), `/clock/manager/qr/${qr}/print`);

    // Its sheet, as printed: the site, the code's name and a QR image that decodes to the code.
    await page.goto(`${server.base}/clock/manager/qr/${qr}/print`);
    await page.getByRole('heading', { name: 'North yard' }).waitFor();
    await page.getByRole('heading', { name: 'Gate A' }).waitFor();
    await page.getByRole('img', { name: 'QR Gate A' }).waitFor();
    assert.equal(await decodeQr(page), qr);
    await page.emulateMedia({ media: 'print' });
    assert.equal(await page.getByRole('button', { name: 'Print' }).isVisible(), false, 'the tools are not printed');
    assert.equal(await page.getByRole('img', { name: 'QR Gate A' }).isVisible(), true);
    await screenshot(page, 'clock-manager-qr-sheet-print-en-US');
    await page.emulateMedia({ media: 'screen' });

    // A worker, who signs in on a phone (binding it); the manager resets the binding.
    await visit(page, '/clock/manager/workers');
    await page.getByRole('button', { name: 'New worker' }).click();
    await dialog.getByLabel('Username').fill('ana.field');
    await dialog.getByLabel('Full name').fill('Ana Field');
    await dialog.getByLabel('Password').fill('short');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText('At least 12 characters.').waitFor();
    await dialog.getByLabel('Password').fill('Worker-pass-123');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('button', { name: 'Ana Field' }).waitFor();
    const found = await call(server.app, 'GET', '/api/managers/workers?search=ana.field', { token: manager });
    const ana = found.body.workers[0] as { id: number };
    const anaToken = await workerLogin(server.app, 'ana.field', 'Worker-pass-123');
    await page.getByRole('button', { name: 'Ana Field' }).click();
    const drawer = page.locator('.ant-drawer');
    await drawer.getByText(/^android-/).waitFor();
    await settled(page);
    await screenshot(page, 'clock-manager-worker-en-US');
    await drawer.getByRole('button', { name: 'Reset device binding' }).click();
    await page.locator('.ant-popconfirm').getByRole('button', { name: 'Reset device binding' }).click();
    await drawer.getByText('No device bound').waitFor();
    const detail = await call(server.app, 'GET', `/api/managers/workers/${ana.id}`, { token: manager });
    assert.equal(detail.body.device, null);
    await drawer.locator('.ant-drawer-close').click();

    // A new password from a worker's row: a short one is refused at the field; the saved one signs in.
    const dan = await createWorker(server.app, manager, { fullName: 'Dan Reset' });
    await page.reload();
    await page.getByRole('row').filter({ hasText: 'Dan Reset' }).getByRole('button', { name: 'Reset password' }).click();
    const reset = page.getByRole('dialog', { name: 'Reset password — Dan Reset' });
    await reset.getByLabel('New password').fill('short');
    await reset.getByRole('button', { name: 'Save' }).click();
    await reset.getByText('At least 12 characters.').waitFor();
    await reset.getByLabel('New password').fill('Worker-pass-456');
    await reset.getByRole('button', { name: 'Save' }).click();
    await reset.waitFor({ state: 'hidden' });
    await workerLogin(server.app, dan.username, 'Worker-pass-456');

    // Ana clocks in on site; Ben's clock-in arrives late (captured 10 minutes ago, offline).
    const res = await clock(server.app, anaToken, { userId: ana.id, eventType: 'clock_in', qrCodeValue: qr, ...CENTRE });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const ben = await call(server.app, 'POST', '/api/managers/workers', { token: manager, body: { username: 'ben.late', password: 'Worker-pass-123', fullName: 'Ben Late' } });
    const benToken = await workerLogin(server.app, 'ben.late', 'Worker-pass-123');
    const late = await call(server.app, 'POST', '/api/clock', {
      token: benToken,
      body: { userId: ben.body.id, eventType: 'clock_in', qrCodeValue: qr, ...CENTRE, capturedAt: new Date(Date.now() - 10 * 60_000).toISOString(), clientEventId: crypto.randomUUID() },
    });
    assert.equal(late.status, 200, JSON.stringify(late.body));

    await page.getByRole('menuitem', { name: 'Live board' }).click();
    const board = page.getByRole('table').first();
    await board.getByText('Ana Field').waitFor();
    await board.getByText('Ben Late').waitFor();
    const anaRow = page.getByRole('row', { name: /Ana Field/ }).first();
    await anaRow.getByText('North yard').waitFor();
    await anaRow.getByText('Inside').waitFor();
    const lateTable = page.getByRole('table').nth(1);
    await lateTable.getByText('Ben Late').waitFor();
    // The map of the last positions (no tiles configured: drawn on a grid): Ana inside the fence.
    const map = page.getByRole('application', { name: 'Map of the last positions' });
    await map.locator('.map-worker-label').getByText('Ana Field', { exact: true }).waitFor();
    await map.locator('path.map-worker.inside').first().waitFor();
    assert.equal(await map.locator('.leaflet-tile').count(), 0, 'no tiles are loaded');
    await settled(page);
    await screenshot(page, 'clock-manager-board-late-en-US');
    await lateTable.getByRole('button', { name: 'Mark reviewed' }).click();
    await page.getByText('No late punch awaits review.').waitFor();
    // Ana walks 1 km north: the next refresh shows her outside, in the table and on the map.
    const moved = await call(server.app, 'POST', '/api/location/update', {
      token: anaToken, body: { userId: ana.id, latitude: 48.8656, longitude: 2.3522, accuracy: 12, source: 'manual' },
    });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    await anaRow.getByText('Outside').waitFor();
    await map.locator('path.map-worker.outside').waitFor();
    await settled(page);
    await screenshot(page, 'clock-manager-board-map-en-US');
    const awaiting = await call(server.app, 'GET', '/api/managers/late-punches?reviewed=false', { token: manager });
    assert.equal(awaiting.body.totalCount, 0);

    // A security alert: Ana tries to clock out 1 km away (refused, recorded as an alert).
    const outside = await clock(server.app, anaToken, { userId: ana.id, eventType: 'clock_out', qrCodeValue: qr, latitude: 48.8656, longitude: 2.3522 });
    assert.equal(outside.status, 403, JSON.stringify(outside.body));
    await page.getByRole('menuitem', { name: 'Alerts' }).click();
    const alertRow = page.getByRole('row', { name: /Outside the fence/ }).first();
    await alertRow.getByText('Ana Field').waitFor();
    await alertRow.getByText('Medium').or(alertRow.getByText('High')).or(alertRow.getByText('Low')).first().waitFor();

    // The app blacklist.
    await page.getByRole('menuitem', { name: 'App blacklist' }).click();
    await page.getByLabel('Package identifier').fill('not a package');
    await page.getByRole('button', { name: 'Add' }).click();
    await page.getByText('A package identifier such as').waitFor();
    await page.getByLabel('Package identifier').fill('com.example.fakegps');
    await page.getByRole('button', { name: 'Add' }).click();
    await page.getByRole('cell', { name: 'com.example.fakegps', exact: true }).waitFor();

    // A webhook: its secret is shown once, when created, and never again.
    await page.getByRole('menuitem', { name: 'Webhooks' }).click();
    await page.getByRole('button', { name: 'New webhook' }).click();
    await dialog.getByLabel('URL').fill('http://127.0.0.1:9/hook');
    await dialog.getByRole('checkbox', { name: 'security.violation' }).check();
    await dialog.getByRole('button', { name: 'Save' }).click();
    const secretBox = page.locator('.mgr-secret');
    await secretBox.waitFor();
    const secret = (await secretBox.innerText()).trim();
    assert.ok(secret.length >= 16, secret);
    await page.getByText('Copy this secret now').waitFor();
    await settled(page);
    await screenshot(page, 'clock-manager-webhook-secret-en-US');
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).last().click();
    await page.getByRole('cell', { name: 'http://127.0.0.1:9/hook', exact: true }).waitFor();
    assert.equal(await page.getByText(secret).count(), 0, 'the secret is not shown again');
    await page.reload();
    await page.getByRole('cell', { name: 'http://127.0.0.1:9/hook', exact: true }).waitFor();
    assert.ok(!(await page.content()).includes(secret));
    const hooks = await call(server.app, 'GET', '/api/managers/webhooks', { token: manager });
    assert.deepEqual(hooks.body.map((h: { events: string[] }) => h.events.sort()), [['security.violation', 'worker.clock_in']]);
    assert.ok(!JSON.stringify(hooks.body).includes(secret));

    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, []);
    await w.context.close();
  });

  test('timesheets: a worker’s week with sessions and breaks, an XLSX export that downloads; work rules with their example day recomputed while editing; at 1440 and 390 px in both languages', async () => {
    const rules = { weekStartsOn: 1, dailyOvertimeAfterMinutes: 480, weeklyOvertimeAfterMinutes: 2400, breakRules: [], rounding: { mode: 'none', minutes: 15 }, longSessionMinutes: 960 };
    assert.equal((await call(server.app, 'PUT', '/api/managers/work-rules', { token: manager, body: rules })).status, 200);
    const site = await siteWithQr(server.app, manager, { type: 'circle', center: { latitude: 47.1, longitude: 8.1 }, radiusMetres: 100 });
    const worker = await createWorker(server.app, manager, { fullName: 'Tess Hours' });
    // Monday of this week (UTC, as the browser here): 08:00–12:00 and 12:30–17:30, 9 hours with a 30-minute break.
    const now = new Date();
    const monday = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - ((now.getUTCDay() + 6) % 7)));
    const at = (h: number, m: number) => new Date(monday.getTime() + (h * 60 + m) * 60_000).toISOString();
    for (const [type, time] of [['clock_in', at(8, 0)], ['clock_out', at(12, 0)], ['clock_in', at(12, 30)], ['clock_out', at(17, 30)]] as const) {
      await server.app.platform.db.query(
        `INSERT INTO timeclock.clock_events (user_id, event_type, qr_code_id, site_id, latitude, longitude, created_at) VALUES ($1, $2, $3, $4, 47.1, 8.1, $5)`,
        [worker.id, type, site.qr, site.siteId, time],
      );
    }
    try {
      const w = await newPage(browser, 'en-US');
      const { page } = w;
      await signInClock(page, server.base, server.app.platform.config.MANAGER_USERNAME, MANAGER_PASSWORD);
      await page.waitForURL(/\/clock\/manager\/board$/);
      await page.getByRole('menuitem', { name: 'Timesheets' }).click();
      await page.getByText('This week', { exact: true }).waitFor();
      const search = page.getByLabel('Worker', { exact: true });
      await search.fill('Tess');
      await search.press('Enter');
      const row = page.getByRole('row', { name: /Tess Hours/ });
      await row.getByRole('cell', { name: '9:00', exact: true }).waitFor();
      await row.getByRole('cell', { name: '1:00', exact: true }).waitFor();
      assert.match(page.url(), /search=Tess/, 'the filters are in the address');
      await settled(page);
      await screenshot(page, 'clock-manager-timesheets-en-US');
      await row.getByRole('button', { name: /Tess Hours/ }).click();
      const drawer = page.locator('.ant-drawer');
      await drawer.getByText('08:00–12:00 · 4:00').waitFor();
      await drawer.getByText('12:30–17:30 · 5:00').waitFor();
      await drawer.getByRole('img', { name: /Sessions of .*08:00–12:00, 12:30–17:30/ }).waitFor();
      await settled(page);
      await screenshot(page, 'clock-manager-timesheet-week-en-US');
      await drawer.locator('.ant-drawer-close').click();
      await drawer.waitFor({ state: 'hidden' });
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export XLSX' }).click()]);
      assert.match(download.suggestedFilename(), /\.xlsx$/);
      const book = new ExcelJS.Workbook();
      await book.xlsx.readFile(await download.path());
      const sheet = book.worksheets[0]!;
      const header = (sheet.getRow(1).values as unknown[]).slice(1);
      const tess = sheet.getRow(2);
      assert.equal(tess.getCell(header.indexOf('Full name') + 1).value, 'Tess Hours');
      assert.equal(tess.getCell(header.indexOf('Paid (h)') + 1).value, 9);
      await page.getByText('The file is ready: it downloads now.').waitFor();

      // Work rules: the example day follows the edits before anything is saved.
      await page.getByRole('menuitem', { name: 'Work rules' }).click();
      const result = page.getByTestId('example-result');
      await result.getByText('Worked 9:25 · break 0:20 · paid 9:25 · regular 8:00 · overtime 1:25').waitFor();
      await page.getByRole('button', { name: 'Add a break rule' }).click();
      await result.getByText('Worked 9:25 · break 0:30 · paid 9:15 · regular 8:00 · overtime 1:15').waitFor();
      await result.getByText(/the shortfall was deducted/).waitFor();
      await settled(page);
      await screenshot(page, 'clock-manager-work-rules-en-US');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Work rules saved').waitFor();
      const saved = await call(server.app, 'GET', '/api/managers/work-rules', { token: manager });
      assert.deepEqual(saved.body.breakRules, [{ afterMinutes: 360, breakMinutes: 30 }]);
      assert.deepEqual(w.errors, []);
      assert.deepEqual(w.failed, []);
      await w.context.close();

      const phone = await newPage(browser, 'zh-CN', { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
      const p = phone.page;
      const width = () => p.evaluate<number>('Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)');
      await signInClock(p, server.base, server.app.platform.config.MANAGER_USERNAME, MANAGER_PASSWORD);
      await p.waitForURL(/\/clock\/manager\/board$/);
      await visit(p, '/clock/manager/timesheets?search=Tess');
      const card = p.locator('.mgr-card').filter({ hasText: 'Tess Hours' });
      await card.getByText('9:00').first().waitFor();
      await settled(p);
      assert.ok(await width() <= 390, `timesheets at 390 px: ${await width()}`);
      await screenshot(p, 'clock-manager-phone-timesheets-zh-CN');
      // Every period can be chosen at 390 px (side by side, "Custom" was cut off at the edge).
      await p.getByRole('combobox', { name: '期间' }).click();
      // The list is drawn, and measured, after the click: read once all five are in it.
      const OPTIONS = '.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option';
      await waitUntil(p, `document.querySelectorAll('${OPTIONS}').length === 5`);
      const periods = p.locator(OPTIONS);
      assert.deepEqual(await periods.allTextContents(), ['本周', '上周', '本月', '上月', '自定义']);
      await periods.filter({ hasText: '自定义' }).click();
      await p.locator('.ts-period .ant-picker-range').waitFor();
      await settled(p);
      assert.ok(await width() <= 390, `a custom period at 390 px: ${await width()}`);
      await screenshot(p, 'clock-manager-phone-timesheets-custom-zh-CN');
      await card.getByRole('button', { name: /Tess Hours/ }).click();
      await p.locator('.ant-drawer').getByText('08:00–12:00 · 4:00').waitFor();
      await settled(p);
      assert.ok(await width() <= 390, `a worker's week at 390 px: ${await width()}`);
      await screenshot(p, 'clock-manager-phone-timesheet-week-zh-CN');
      await visit(p, '/clock/manager/rules');
      await p.getByTestId('example-result').getByText(/^工作 9:25/).waitFor();
      await settled(p);
      assert.ok(await width() <= 390, `work rules at 390 px: ${await width()}`);
      await screenshot(p, 'clock-manager-phone-work-rules-zh-CN');
      assert.deepEqual(phone.errors, []);
      assert.deepEqual(phone.failed, []);
      await phone.context.close();
    } finally {
      await call(server.app, 'PUT', '/api/managers/work-rules', { token: manager, body: rules });
    }
  });

  test('tags: created, renamed (a name in use refused), and the new name shown on the workers who have it', async () => {
    const found = await call(server.app, 'GET', '/api/managers/workers?search=ana.field', { token: manager });
    const ana = found.body.workers[0] as { id: number };
    const night = await call(server.app, 'POST', '/api/managers/tags', { token: manager, body: { name: 'Night shift' } });
    await call(server.app, 'PATCH', `/api/managers/workers/${ana.id}`, { token: manager, body: { tagIds: [night.body.id] } });
    const w = await newPage(browser);
    await signInClock(w.page, server.base, server.app.platform.config.MANAGER_USERNAME, MANAGER_PASSWORD, '/clock/manager/workers');
    const anaRow = w.page.getByRole('row', { name: /Ana Field/ });
    await anaRow.getByText('Night shift').waitFor();
    await w.page.locator('.mgr-filters').getByRole('button', { name: 'Tags' }).click();
    const dialog = w.page.getByRole('dialog');
    await dialog.getByLabel('New tag').fill('Day shift');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.getByRole('cell', { name: 'Day shift', exact: true }).waitFor();

    await dialog.getByRole('button', { name: 'Rename Night shift' }).click();
    const name = dialog.getByLabel('Tag name');
    assert.equal(await name.inputValue(), 'Night shift');
    await name.fill('day SHIFT');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText('This name is already used.').first().waitFor();
    await name.fill('Nights, late');
    await name.press('Enter');
    await dialog.getByText('A tag name cannot contain a comma.').waitFor();
    await name.fill('Nights');
    await name.press('Enter');
    await dialog.getByRole('cell', { name: 'Nights', exact: true }).waitFor();
    await dialog.getByRole('row', { name: /Nights/ }).getByRole('cell', { name: '1 worker', exact: true }).waitFor();
    await dialog.getByRole('row', { name: /Day shift/ }).getByRole('cell', { name: '0 workers', exact: true }).waitFor();
    await settled(w.page);
    await screenshot(w.page, 'clock-manager-tags-en-US');
    const tags = await call(server.app, 'GET', '/api/managers/tags', { token: manager });
    assert.deepEqual(tags.body.map((g: { name: string; worker_count: number }) => [g.name, g.worker_count]), [['Day shift', 0], ['Nights', 1]]);
    await dialog.getByRole('button', { name: 'Close' }).last().click();
    await anaRow.getByText('Nights', { exact: true }).waitFor();
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, ['PATCH /api/managers/tags/' + String(night.body.id) + ' 409']);
    await w.context.close();
  });

  test('a username already taken (in any case, a manager’s too) is refused in words, in both languages', async () => {
    for (const [lang, taken, others] of [
      ['en-US', 'This username is taken.', { newWorker: 'New worker', username: 'Username', fullName: 'Full name', password: 'Password', save: 'Save' }],
      ['zh-CN', '该用户名已被使用。', { newWorker: '新建员工', username: '用户名', fullName: '姓名', password: '密码', save: '保存' }],
    ] as const) {
      const w = await newPage(browser, lang);
      await signInClock(w.page, server.base, server.app.platform.config.MANAGER_USERNAME, MANAGER_PASSWORD, '/clock/manager/workers');
      await w.page.getByRole('button', { name: others.newWorker }).click();
      const dialog = w.page.getByRole('dialog');
      const notices = w.page.locator('.ant-message').getByText(taken, { exact: true });
      for (const username of ['ANA.Field', server.app.platform.config.MANAGER_USERNAME.toUpperCase()]) {
        // The notice of the attempt before closes by itself after a few seconds; counting notices
        // across attempts would race it on a loaded machine, so each attempt starts with none.
        await notices.first().waitFor({ state: 'detached' });
        await dialog.getByLabel(others.username).fill(username);
        // A changed username clears the refusal of the one before.
        await dialog.locator('.ant-form-item-explain-error').getByText(taken).waitFor({ state: 'detached' });
        await dialog.getByLabel(others.fullName).fill('Ana Again');
        await dialog.getByLabel(others.password).fill('Worker-pass-123');
        const answer = w.page.waitForResponse((r) => r.url().endsWith('/api/managers/workers') && r.request().method() === 'POST');
        await dialog.getByRole('button', { name: others.save }).click();
        assert.equal((await answer).status(), 409);
        // Next to the field, and in the message of the action: the manager's language, nothing else.
        await dialog.locator('.ant-form-item-explain-error').getByText(taken, { exact: true }).waitFor();
        await notices.first().waitFor();
        await settled(w.page);
        await screenshot(w.page, `clock-manager-username-taken-${lang}`);
      }
      assert.equal((await call(server.app, 'GET', '/api/managers/workers?search=Ana%20Again', { token: manager })).body.totalCount, 0);
      assert.deepEqual(w.errors, []);
      assert.deepEqual(w.failed, ['POST /api/managers/workers 409', 'POST /api/managers/workers 409']);
      await w.context.close();
    }
  });

  test('sign-in goes to the page a signed-out visit asked for (`next`), never to another origin', async () => {
    const w = await newPage(browser);
    const username = server.app.platform.config.MANAGER_USERNAME;
    // Signed out, a console page leads to the sign-in page, which then leads back to it, filters kept.
    await signInClock(w.page, server.base, username, MANAGER_PASSWORD, '/clock/manager/workers?q=ana');
    await w.page.waitForURL(`${server.base}/clock/manager/workers?q=ana`);
    assert.equal(await w.page.getByLabel('Name or username').inputValue(), 'ana');
    await w.page.getByRole('button', { name: 'Ana Field' }).waitFor();
    // Elsewhere than a page of the app: the console's home.
    for (const next of ['https://evil.example/', '//evil.example/manager', '/\\evil.example/manager', 'javascript:alert(1)', '/history']) {
      await w.page.getByRole('button', { name: 'Sign out' }).click();
      await w.page.waitForURL(/\/clock\/login/);
      await signInClock(w.page, server.base, username, MANAGER_PASSWORD, `/clock/login?next=${encodeURIComponent(next)}`);
      await w.page.waitForURL(`${server.base}/clock/manager/board`);
    }
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, []);
    await w.context.close();
  });

  test('a worker’s history in the console pages through every event, newest first', async () => {
    const spot = await siteWithQr(server.app, manager);
    const cal = await createWorker(server.app, manager, { fullName: 'Cal Many' });
    const token = await workerLogin(server.app, cal.username, cal.password);
    for (let i = 0; i < 23; i += 1) {
      const res = await clock(server.app, token, { userId: cal.id, eventType: i % 2 === 0 ? 'clock_in' : 'clock_out', qrCodeValue: spot.qr, ...spot.center });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    }
    const all = await call(server.app, 'GET', `/api/worker/clock-history/${cal.id}?limit=500`, { token: manager });
    const ids = all.body.map((e: { id: number }) => String(e.id));
    assert.equal(ids.length, 23);

    for (const lang of ['en-US', 'zh-CN'] as const) {
      const w = await newPage(browser, lang);
      await signInClock(w.page, server.base, server.app.platform.config.MANAGER_USERNAME, MANAGER_PASSWORD);
      await w.page.waitForURL(/\/clock\/manager\/board$/);
      await visit(w.page, `/clock/manager/workers?q=${cal.username}`);
      await w.page.getByRole('button', { name: 'Cal Many' }).click();
      const drawer = w.page.locator('.ant-drawer');
      await drawer.getByText(lang === 'en-US' ? 'Total: 23' : '共 23 条').waitFor();
      const rows = drawer.getByRole('tabpanel').locator('tr[data-row-key]');
      const seen: string[] = [];
      for (const [page, size] of [[1, 10], [2, 10], [3, 3]] as const) {
        if (page > 1) await drawer.locator('.ant-pagination').getByTitle(String(page), { exact: true }).click();
        await drawer.locator(`.ant-pagination-item-active[title="${page}"]`).waitFor();
        await waitUntil(w.page, `document.querySelector('.ant-drawer [role=tabpanel] tr[data-row-key]')?.getAttribute('data-row-key') === '${ids[(page - 1) * 10]}'`);
        assert.equal(await rows.count(), size);
        seen.push(...await w.page.evaluate<string[]>(`[...document.querySelectorAll('.ant-drawer [role=tabpanel] tr[data-row-key]')].map((tr) => tr.getAttribute('data-row-key'))`));
        if (page === 3) {
          await settled(w.page);
          await screenshot(w.page, `clock-manager-worker-history-page3-${lang}`);
        }
      }
      assert.deepEqual(seen, ids, 'every event once, in the server’s order');
      assert.deepEqual(w.errors, []);
      assert.deepEqual(w.failed, []);
      await w.context.close();
    }
  });

  test('a tag typed in “New worker” is created with the worker, never dropped; the detail says since when the worker is clocked in', async () => {
    const w = await newPage(browser);
    await signInClock(w.page, server.base, server.app.platform.config.MANAGER_USERNAME, MANAGER_PASSWORD, '/clock/manager/workers');
    await w.page.getByRole('button', { name: 'New worker' }).click();
    const dialog = w.page.getByRole('dialog');
    await dialog.getByLabel('Username').fill('dee.crane');
    await dialog.getByLabel('Full name').fill('Dee Crane');
    await dialog.getByLabel('Password').fill('Worker-pass-123');
    // One tag typed and entered, one typed and left in the field, one existing in another case.
    const tags = dialog.getByLabel('Tags');
    await tags.fill('Crane crew');
    await tags.press('Enter');
    await tags.fill('nights');
    await tags.press('Enter');
    await tags.fill('Riggers');
    await dialog.getByText('type a new one and press Enter: it is created when you save', { exact: false }).waitFor();
    await settled(w.page);
    await screenshot(w.page, 'clock-manager-worker-new-tags-en-US');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await w.page.getByRole('button', { name: 'Dee Crane' }).waitFor();
    const found = await call(server.app, 'GET', '/api/managers/workers?search=dee.crane', { token: manager });
    assert.deepEqual(found.body.workers[0].tags.split(',').sort(), ['Crane crew', 'Nights', 'Riggers']);
    const all = await call(server.app, 'GET', '/api/managers/tags', { token: manager });
    assert.deepEqual(all.body.map((g: { name: string }) => g.name).filter((n: string) => /crane|rigger|night/i.test(n)).sort(), ['Crane crew', 'Nights', 'Riggers']);

    // Ana clocked in at North yard (the first test): her detail says so in words, not the raw state.
    await visit(w.page, '/clock/manager/workers?q=ana.field');
    await w.page.getByRole('button', { name: 'Ana Field' }).click();
    const state = w.page.locator('.ant-drawer').getByTestId('clock-state');
    await state.getByText(/^Clocked in since \d\d:\d\d at North yard$/).waitFor();
    await settled(w.page);
    await screenshot(w.page, 'clock-manager-worker-state-en-US');
    await w.page.locator('.ant-drawer-close').click();
    await w.page.getByRole('button', { name: '中文' }).click();
    await w.page.getByRole('button', { name: 'Ana Field' }).click();
    await state.getByText(/^自 \d\d:\d\d 起在岗（North yard）$/).waitFor();
    await settled(w.page);
    await screenshot(w.page, 'clock-manager-worker-state-zh-CN');
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, []);
    await w.context.close();
  });

  test('a worker locked by failed sign-ins: the app says why, the console shows until when and unlocks them (at 390 px in Chinese)', async () => {
    const lee = await createWorker(server.app, manager, { username: 'lee.locked', fullName: 'Lee Locked' });
    for (let i = 0; i < server.app.platform.config.LOGIN_MAX_FAILURES; i += 1) {
      const res = await call(server.app, 'POST', '/api/auth/login', { body: { username: lee.username, password: 'Wrong-pass-000', deviceUuid: newDeviceUuid() } });
      assert.equal(res.status, 401);
    }
    const app = await newPage(browser);
    await signInClock(app.page, server.base, lee.username, lee.password);
    await app.page.getByRole('alert').getByText('Too many failed sign-ins: this account is locked. Try again in 15 min, or ask a manager to unlock it', { exact: true }).waitFor();
    assert.deepEqual(app.errors, []);
    assert.deepEqual(app.failed, ['POST /api/auth/login 429']);
    await app.context.close();

    const LOCKED = /^Locked until (\d{4}-\d\d-\d\d )?\d\d:\d\d$/;
    const w = await newPage(browser);
    await signInClock(w.page, server.base, server.app.platform.config.MANAGER_USERNAME, MANAGER_PASSWORD, '/clock/manager/workers?q=lee.locked');
    const row = w.page.getByRole('row', { name: /Lee Locked/ });
    await row.getByText(LOCKED).waitFor();
    await settled(w.page);
    await screenshot(w.page, 'clock-manager-worker-locked-en-US');

    const phone = await newPage(browser, 'zh-CN', PHONE);
    const p = phone.page;
    await signInClock(p, server.base, server.app.platform.config.MANAGER_USERNAME, MANAGER_PASSWORD, '/clock/manager/workers?q=lee.locked');
    const card = p.locator('.mgr-card').filter({ hasText: 'Lee Locked' });
    await card.getByText(/^锁定至 (\d{4}-\d\d-\d\d )?\d\d:\d\d$/).waitFor();
    const width = () => p.evaluate<number>('Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)');
    await settled(p);
    assert.ok(await width() <= 390, `a locked worker at 390 px: ${await width()}`);
    await screenshot(p, 'clock-manager-phone-worker-locked-zh-CN');
    await card.getByRole('button', { name: '解锁' }).click();
    const confirm = p.locator('.ant-popconfirm');
    await confirm.getByText('确定为 Lee Locked 解锁？其可立即重新登录。').waitFor();
    await settled(p);
    assert.ok(await width() <= 390, `the unlock confirmation at 390 px: ${await width()}`);
    await screenshot(p, 'clock-manager-phone-worker-unlock-zh-CN');
    await confirm.getByRole('button', { name: '取消' }).click();
    await confirm.waitFor({ state: 'hidden' });
    assert.deepEqual(phone.errors, []);
    assert.deepEqual(phone.failed, []);
    await phone.context.close();

    await row.getByRole('button', { name: 'Unlock' }).click();
    await w.page.locator('.ant-popconfirm').getByText('Unlock Lee Locked? They can sign in again at once.').waitFor();
    await w.page.locator('.ant-popconfirm').getByRole('button', { name: 'Unlock' }).click();
    await w.page.locator('.ant-message').getByText('Unlocked', { exact: true }).waitFor();
    await row.getByText(LOCKED).waitFor({ state: 'detached' });
    assert.equal(await row.getByRole('button', { name: 'Unlock' }).count(), 0);
    const detail = await call(server.app, 'GET', `/api/managers/workers/${lee.id}`, { token: manager });
    assert.equal(detail.body.lockedUntil, null);
    assert.ok(await workerLogin(server.app, lee.username, lee.password));
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, []);
    await w.context.close();
  });
});
