// The time-clock manager console's every screen in Chromium against the real server, in both
// languages at desk size and at phone width (390 px): each photographed
// (scratch/screenshots/clock-manager-*), a phone's screens checked to fit without sideways
// scrolling. The data is made through the API first: a fenced site with a QR code, two tags, a
// worker clocked in and one whose clock-in arrived late, a refused clock-out (an alert), an app
// on the blacklist and a webhook. The flows that make them in the console are in
// clock-manager.test.ts; this file is apart so that the two run side by side.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { MANAGER_PASSWORD } from '../helpers/app.ts';
import { browserSkip, newPage, onConsole, screenshot, settled, signInClock, visit, type ConsoleServer } from '../helpers/browser.ts';
import { call } from '../helpers/http.ts';
import { circle, clock, createQr, createSite, createWorker, managerToken, workerLogin } from '../helpers/timeclock.ts';

const CENTRE = { latitude: 48.8566, longitude: 2.3522 };
const SCREENS = ['board', 'timesheets', 'exceptions', 'workers', 'sites', 'qr', 'alerts', 'blacklist', 'webhooks'] as const;

describe('time-clock manager console: every screen', { skip: browserSkip() }, () => {
  let browser: Browser;
  let server: ConsoleServer;
  let manager: string;
  onConsole((s, b) => ((server = s), (browser = b)));
  before(async () => {
    manager = await managerToken(server.app);
    const app = server.app;
    const site = await createSite(app, manager, circle(CENTRE.latitude, CENTRE.longitude, 150), 'North yard');
    const { id: qr } = await createQr(app, manager, { name: 'Gate A', siteId: site.id });
    const tags = [];
    for (const name of ['Day shift', 'Nights']) tags.push((await call(app, 'POST', '/api/managers/tags', { token: manager, body: { name } })).body.id as number);
    const ana = await createWorker(app, manager, { username: 'ana.field', fullName: 'Ana Field', tagIds: [tags[1]!] });
    const anaToken = await workerLogin(app, ana.username, ana.password);
    assert.equal((await clock(app, anaToken, { userId: ana.id, eventType: 'clock_in', qrCodeValue: qr, ...CENTRE })).status, 200);
    const ben = await createWorker(app, manager, { username: 'ben.late', fullName: 'Ben Late' });
    const late = await call(app, 'POST', '/api/clock', {
      token: await workerLogin(app, ben.username, ben.password),
      body: { userId: ben.id, eventType: 'clock_in', qrCodeValue: qr, ...CENTRE, capturedAt: new Date(Date.now() - 10 * 60_000).toISOString(), clientEventId: crypto.randomUUID() },
    });
    assert.equal(late.status, 200, JSON.stringify(late.body));
    // Ana tries to clock out 1 km away: refused, recorded as an alert.
    const outside = await clock(app, anaToken, { userId: ana.id, eventType: 'clock_out', qrCodeValue: qr, latitude: 48.8656, longitude: 2.3522 });
    assert.equal(outside.status, 403, JSON.stringify(outside.body));
    assert.equal((await call(app, 'POST', '/api/managers/security/app-blacklist', { token: manager, body: { packageId: 'com.example.fakegps' } })).status, 201);
    const hook = await call(app, 'POST', '/api/managers/webhooks', { token: manager, body: { url: 'http://127.0.0.1:9/hook', events: ['worker.clock_in', 'security.violation'] } });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));
  });

  // One test per language: each walks every screen (about 25 s alone, several times that on a
  // loaded machine).
  for (const lang of ['en-US', 'zh-CN']) test(`every screen in ${lang}`, async () => {
    const en = lang === 'en-US';
    const w = await newPage(browser, lang);
    await signInClock(w.page, server.base, server.app.platform.config.MANAGER_USERNAME, MANAGER_PASSWORD);
    await w.page.waitForURL(/\/clock\/manager\/board$/);
    // The seeded manager is named in the console's language.
    await w.page.locator('.mgr-header').getByText(en ? 'Manager' : '主管', { exact: true }).waitFor();
    for (const screen of SCREENS) {
      await visit(w.page, `/clock/manager/${screen}`);
      await w.page.locator('.ant-table, .ant-card').first().waitFor();
      // The seeded default site, named in the console's language.
      if (screen === 'sites') await w.page.getByRole('cell', { name: en ? /^Default site/ : /^默认场地/ }).waitFor();
      await settled(w.page);
      await screenshot(w.page, `clock-manager-${screen}-${lang}`);
    }
    // The site editor and a worker's drawer.
    await w.page.goto(`${server.base}/clock/manager/sites`);
    await w.page.getByRole('row', { name: /North yard/ }).getByRole('button', { name: /^(Edit|编辑)$/ }).click();
    await w.page.locator('.leaflet-interactive').first().waitFor();
    await settled(w.page);
    await screenshot(w.page, `clock-manager-site-edit-${lang}`);
    await w.page.goto(`${server.base}/clock/manager/workers`);
    await w.page.getByRole('button', { name: 'Ana Field' }).click();
    await w.page.locator('.ant-drawer').getByRole('tab').first().waitFor();
    await settled(w.page);
    await screenshot(w.page, `clock-manager-worker-drawer-${lang}`);
    await w.page.locator('.ant-drawer-close').click();
    await w.page.locator('.mgr-filters').getByRole('button', { name: /(Tags|标签)$/ }).click();
    await w.page.getByRole('dialog').getByRole('button', { name: /^(Rename|重命名) / }).first().click();
    await settled(w.page);
    await screenshot(w.page, `clock-manager-tags-${lang}`);
    const codes = await call(server.app, 'GET', '/api/managers/qr-codes', { token: manager });
    await w.page.goto(`${server.base}/clock/manager/qr/${codes.body[0].id}/print`);
    await w.page.getByRole('img').first().waitFor();
    await screenshot(w.page, `clock-manager-qr-sheet-${lang}`);
    // Switching the language names the seeded site and manager in the other one at once.
    await w.page.goto(`${server.base}/clock/manager/sites`);
    await w.page.getByRole('cell', { name: en ? /^Default site/ : /^默认场地/ }).waitFor();
    await w.page.locator('.mgr-header').getByRole('button', { name: en ? '中文' : 'EN', exact: true }).click();
    await w.page.getByRole('cell', { name: en ? /^默认场地/ : /^Default site/ }).waitFor();
    await w.page.locator('.mgr-header').getByText(en ? '主管' : 'Manager', { exact: true }).waitFor();
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, []);
    await w.context.close();
  });

  for (const lang of ['en-US', 'zh-CN'] as const) test(`at phone width (390 px) every screen fits without sideways scrolling: navigation in a drawer, lists as cards, forms in one column (${lang})`, async () => {
    const w = await newPage(browser, lang, { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    const { page } = w;
    await signInClock(page, server.base, server.app.platform.config.MANAGER_USERNAME, MANAGER_PASSWORD);
    await page.waitForURL(/\/clock\/manager\/board$/);
    const width = () => page.evaluate<number>('Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)');
    // What sticks out past the right edge, to say in a failure.
    const wide = () => page.evaluate<string[]>(`[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > 390.5)
      .slice(0, 5).map((e) => e.tagName + '.' + String(e.className).slice(0, 60) + ' ' + Math.round(e.getBoundingClientRect().right))`);
    for (const screen of SCREENS) {
      await visit(page, `/clock/manager/${screen}`);
      await page.locator('.mgr-cards, .mgr-cards-empty').first().waitFor();
      await settled(page);
      await screenshot(page, `clock-manager-phone-${screen}-${lang}`);
      assert.ok(await width() <= 390, `${screen} (${lang}) is ${await width()} px wide: ${(await wide()).join('; ')}`);
    }
    // No table at phone width: the workers are cards, each with its actions.
    await page.goto(`${server.base}/clock/manager/workers`);
    await page.locator('.mgr-card').filter({ hasText: 'Ana Field' }).waitFor();
    assert.equal(await page.locator('table').count(), 0);
    // The navigation is in a drawer opened from the header.
    await page.getByRole('button', { name: lang === 'en-US' ? 'Menu' : '菜单' }).click();
    await page.getByRole('menuitem', { name: lang === 'en-US' ? 'Sites' : '场地' }).waitFor();
    await settled(page);
    await screenshot(page, `clock-manager-phone-nav-${lang}`);
    await page.getByRole('menuitem', { name: lang === 'en-US' ? 'Sites' : '场地' }).click();
    await page.waitForURL(/\/manager\/sites$/);
    await page.locator('.mgr-card').filter({ hasText: 'North yard' }).waitFor();
    // A form and a worker's detail.
    await page.goto(`${server.base}/clock/manager/workers`);
    await page.getByRole('button', { name: lang === 'en-US' ? 'New worker' : '新建员工' }).click();
    await page.getByRole('dialog').getByLabel(lang === 'en-US' ? 'Username' : '用户名').waitFor();
    await settled(page);
    assert.ok(await width() <= 390, `the new worker form (${lang}) is ${await width()} px wide`);
    await screenshot(page, `clock-manager-phone-worker-form-${lang}`);
    await page.getByRole('dialog').getByRole('button', { name: lang === 'en-US' ? 'Cancel' : '取消' }).click();
    await page.getByRole('button', { name: 'Ana Field' }).click();
    await page.locator('.ant-drawer').getByRole('tab').first().waitFor();
    await settled(page);
    assert.ok(await width() <= 390, `a worker's detail (${lang}) is ${await width()} px wide`);
    await screenshot(page, `clock-manager-phone-worker-drawer-${lang}`);
    await page.goto(`${server.base}/clock/manager/sites`);
    await page.locator('.mgr-card').filter({ hasText: 'North yard' }).getByRole('button', { name: lang === 'en-US' ? 'Edit' : '编辑' }).click();
    await page.locator('.leaflet-interactive').first().waitFor();
    await settled(page);
    assert.ok(await width() <= 390, `the site editor (${lang}) is ${await width()} px wide`);
    await screenshot(page, `clock-manager-phone-site-edit-${lang}`);
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, []);
    await w.context.close();
  });
});
