// The time-clock manager console in Chromium against the real server, continued from
// clock-manager.test.ts (apart, so that the suite's files run side by side in similar times): a
// new database's unfenced default site (the first sign-in is led to draw its fence, the QR form
// offers only fenced sites), whether a QR code can be used and why not, a worker's "Last seen",
// and an alert's workflow at 1440 and 390 px in both languages.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { MANAGER_PASSWORD } from '../helpers/app.ts';
import { browserSkip, newPage, onConsole, screenshot, settled, signInClock, visit, type ConsoleServer } from '../helpers/browser.ts';
import { call } from '../helpers/http.ts';
import { circle, clock, createSite, createWorker, managerToken, siteWithQr, workerLogin } from '../helpers/timeclock.ts';

const CENTRE = { latitude: 48.8566, longitude: 2.3522 };

describe('time-clock manager console: fences, QR codes and alerts', { skip: browserSkip() }, () => {
  let browser: Browser;
  let server: ConsoleServer;
  let manager: string;
  onConsole((s, b) => ((server = s), (browser = b)));
  before(async () => {
    manager = await managerToken(server.app);
    // A fenced site, which the QR form offers.
    await createSite(server.app, manager, circle(CENTRE.latitude, CENTRE.longitude, 150), 'North yard');
  });

  test('a site without a fence: the first sign-in is led to draw the default site’s, the QR form offers only fenced sites and says why, the sites screen warns', async () => {
    const sites = await call(server.app, 'GET', '/api/managers/sites', { token: manager });
    const home = sites.body.find((s: { is_default: boolean }) => s.is_default) as { id: number; name: string; fence: unknown };
    assert.equal(home.fence, null, 'a new database’s default site has no fence');
    for (const lang of ['zh-CN', 'en-US'] as const) {
      const en = lang === 'en-US';
      // The seeded name, in the console's language.
      const name = en ? home.name : '默认场地';
      const w = await newPage(browser, lang);
      const { page } = w;
      await signInClock(page, server.base, server.app.platform.config.MANAGER_USERNAME, MANAGER_PASSWORD);
      await page.waitForURL(/\/clock\/manager\/board$/);
      const banner = page.getByTestId('fence-banner');
      await banner.getByText(en ? `Draw the fence of “${name}” before anyone clocks` : `员工打卡前，请先绘制“${name}”的电子围栏`).waitFor();
      await settled(page);
      await screenshot(page, `clock-manager-first-fence-${lang}`);

      await visit(page, '/clock/manager/qr');
      await page.getByRole('button', { name: en ? 'New QR code' : '新建二维码' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByTestId('unfenced-note').getByText(en ? `${name} is not offered: it has no fence.` : `未提供没有电子围栏的场地：${name}。`).waitFor();
      await dialog.getByLabel(en ? 'Site' : '场地').click();
      await page.locator('.ant-select-item-option[title="North yard"]').waitFor();
      assert.equal(await page.locator('.ant-select-item-option').filter({ hasText: name }).count(), 0, 'the unfenced default site is not offered');
      await settled(page);
      await screenshot(page, `clock-manager-qr-form-fenced-only-${lang}`);
      await page.keyboard.press('Escape');
      await dialog.getByRole('button', { name: en ? 'Cancel' : '取消' }).click();

      await visit(page, '/clock/manager/sites');
      await page.getByRole('alert').getByText(en ? 'A site without a fence cannot be used for clocking' : '没有电子围栏的场地不能用于打卡', { exact: false }).waitFor();
      await settled(page);
      await screenshot(page, `clock-manager-sites-unfenced-${lang}`);
      assert.deepEqual(w.errors, []);
      assert.deepEqual(w.failed, []);
      await w.context.close();
    }

    // The banner leads to the default site's editor; once its fence is drawn, the banner goes.
    const w = await newPage(browser);
    await signInClock(w.page, server.base, server.app.platform.config.MANAGER_USERNAME, MANAGER_PASSWORD);
    await w.page.getByTestId('fence-banner').getByRole('button', { name: 'Draw the fence' }).click();
    await w.page.waitForURL(new RegExp(`/manager/sites\\?edit=${home.id}$`));
    const dialog = w.page.getByRole('dialog');
    await dialog.getByLabel('Centre latitude').fill('48.85');
    await dialog.getByLabel('Centre longitude').fill('2.35');
    await dialog.getByLabel('Radius (m)').fill('200');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await w.page.getByRole('cell', { name: 'circle, 200 m' }).waitFor();
    await w.page.getByRole('menuitem', { name: 'Live board' }).click();
    await w.page.getByText('No worker is clocked in.').or(w.page.getByRole('table').first()).first().waitFor();
    assert.equal(await w.page.getByTestId('fence-banner').count(), 0);
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, []);
    await w.context.close();
  });

  test('a QR code says in words whether workers can clock with it and why not; a worker’s “Last seen” is their newest position’s own time', async () => {
    const sites = await call(server.app, 'GET', '/api/managers/sites', { token: manager });
    const unfenced = (sites.body as { id: number; fence: unknown }[]).find((x) => x.fence === null);
    const fenced = await siteWithQr(server.app, manager);
    const noFence = unfenced ?? { id: (await call(server.app, 'POST', '/api/managers/sites', { token: manager, body: { name: 'No fence yard', fence: null } })).body.id as number };
    await call(server.app, 'POST', '/api/managers/qr-codes', { token: manager, body: { name: 'Gate without fence', siteId: noFence.id } });
    const inactive = await call(server.app, 'POST', '/api/managers/qr-codes', { token: manager, body: { name: 'Gate switched off', siteId: fenced.siteId } });
    assert.equal((await call(server.app, 'PATCH', `/api/managers/qr-codes/${inactive.body.id}`, { token: manager, body: { is_active: false } })).status, 200);

    // A position taken two days ago, sent now: "Last seen" is when it was taken, not the device's sign-in.
    const seen = await createWorker(server.app, manager, { fullName: 'Seen Twodays' });
    const seenToken = await workerLogin(server.app, seen.username, seen.password);
    const taken = new Date(Math.floor(Date.now() / 1000) * 1000 - 2 * 86_400_000);
    const sent = await call(server.app, 'POST', '/api/location/update', { token: seenToken, body: { userId: seen.id, latitude: 48.8566, longitude: 2.3522, timestamp: taken.toISOString(), source: 'background' } });
    assert.ok(sent.status < 300, JSON.stringify(sent.body));
    const never = await createWorker(server.app, manager, { fullName: 'Never Located' });
    await workerLogin(server.app, never.username, never.password);
    const p2 = (n: number) => String(n).padStart(2, '0');
    const local = `${taken.getFullYear()}-${p2(taken.getMonth() + 1)}-${p2(taken.getDate())} ${p2(taken.getHours())}:${p2(taken.getMinutes())}:${p2(taken.getSeconds())}`;

    for (const lang of ['en-US', 'zh-CN'] as const) {
      const en = lang === 'en-US';
      const w = await newPage(browser, lang);
      const { page } = w;
      await signInClock(page, server.base, server.app.platform.config.MANAGER_USERNAME, MANAGER_PASSWORD);
      await page.waitForURL(/\/clock\/manager\/board$/);
      await visit(page, '/clock/manager/qr');
      const row = (name: string) => page.locator('tr.ant-table-row').filter({ hasText: name });
      await row(`QR ${fenced.siteId}`).getByText(en ? 'Usable' : '可用', { exact: true }).waitFor();
      await row('Gate without fence').getByText(en ? 'Not usable' : '不可用', { exact: true }).waitFor();
      await row('Gate without fence').getByText(en ? 'Its site has no fence: draw one on Sites.' : '所在场地没有电子围栏：请在“场地”中绘制。').waitFor();
      await row('Gate switched off').getByText(en ? 'The code is inactive: activate it.' : '二维码已停用：请先启用。').waitFor();
      await settled(page);
      await screenshot(page, `clock-manager-qr-usable-${lang}`);

      await visit(page, `/clock/manager/workers?q=${seen.username}`);
      await page.getByRole('button', { name: 'Seen Twodays' }).click();
      await page.getByTestId('last-seen').getByText(local, { exact: true }).waitFor();
      await settled(page);
      await screenshot(page, `clock-manager-worker-last-seen-${lang}`);
      await page.goto(`${server.base}/clock/manager/workers?q=${never.username}`);
      await page.getByRole('button', { name: 'Never Located' }).click();
      await page.getByTestId('last-seen').getByText(en ? 'Never: no position received yet.' : '从未出现：尚未收到任何位置。', { exact: true }).waitFor();
      assert.deepEqual(w.errors, []);
      assert.deepEqual(w.failed, []);
      await w.context.close();
    }
  });

  test('an alert’s workflow: acknowledged with a note (the board’s open count drops), resolved (it leaves the default view; the status filter shows it), at 1440 and 390 px in both languages', async () => {
    const site = await siteWithQr(server.app, manager, { type: 'circle', center: CENTRE, radiusMetres: 100 });
    for (const lang of ['en-US', 'zh-CN'] as const) {
      for (const width of [1440, 390] as const) {
        const en = lang === 'en-US';
        const narrow = width === 390;
        const tag = `${lang}-${width}`;
        // A refusal the server records as an alert: a clock-in 1 km outside the site's fence.
        const worker = await createWorker(server.app, manager, { fullName: `Alert Case ${lang} ${width}` });
        const token = await workerLogin(server.app, worker.username, worker.password);
        const refused = await clock(server.app, token, { userId: worker.id, eventType: 'clock_in', qrCodeValue: site.qr, latitude: 48.8656, longitude: 2.3522 });
        assert.equal(refused.status, 403, JSON.stringify(refused.body));
        const mine = await call(server.app, 'GET', `/api/managers/security/alerts?userId=${worker.id}`, { token: manager });
        assert.equal(mine.body.totalCount, 1, JSON.stringify(mine.body));
        const open = (await call(server.app, 'GET', '/api/managers/board', { token: manager })).body.openAlerts as number;
        assert.ok(open >= 1);

        const w = await newPage(browser, lang, narrow
          ? { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true }
          : { viewport: { width: 1440, height: 900 } });
        const { page } = w;
        await signInClock(page, server.base, server.app.platform.config.MANAGER_USERNAME, MANAGER_PASSWORD);
        await page.waitForURL(/\/clock\/manager\/board$/);
        const openLink = (n: number) => page.getByRole('link', { name: en ? `Open alerts: ${n}. Show the alerts` : `待处理告警：${n}。查看告警`, exact: true });
        await openLink(open).waitFor();
        await openLink(open).click();
        await page.waitForURL(/\/clock\/manager\/alerts$/);
        // This worker's alerts (the worker filter lives in the URL, as a click on the name sets it).
        await page.goto(`${server.base}/clock/manager/alerts?userId=${worker.id}`);
        const items = narrow ? page.locator('.mgr-card') : page.locator('tr.ant-table-row');
        const item = items.filter({ hasText: worker.fullName });
        await item.getByText(en ? 'Outside the fence' : '超出围栏').waitFor();
        await item.getByText(en ? 'Open' : '待处理', { exact: true }).waitFor();

        // Acknowledged with a note: marked, the note shown, the board's open count one less.
        const ackNote = en ? 'Called the foreman: a delivery at the gate.' : '已联系工头：在大门口收货。';
        await item.getByRole('button', { name: en ? 'Acknowledge' : '确认', exact: true }).click();
        let dialog = page.getByRole('dialog');
        await dialog.getByLabel(en ? 'Note (optional)' : '备注（可选）').fill(ackNote);
        await dialog.getByRole('button', { name: en ? 'Acknowledge' : '确认', exact: true }).click();
        await dialog.waitFor({ state: 'hidden' });
        await item.getByText(ackNote).waitFor();
        await item.getByText(en ? 'Acknowledged' : '已确认', { exact: true }).waitFor();
        assert.equal(await item.getByRole('button', { name: en ? 'Acknowledge' : '确认', exact: true }).count(), 0, 'an acknowledged alert is not acknowledged again');
        await settled(page);
        await screenshot(page, `clock-manager-alert-acknowledged-${tag}`);
        await visit(page, '/clock/manager/board');
        await openLink(open - 1).waitFor();

        // Resolved with a note: it leaves the default view (not resolved); "Resolved" shows it with both notes.
        const resolveNote = en ? 'Delivery confirmed; no action needed.' : '收货已确认，无需处理。';
        await page.goto(`${server.base}/clock/manager/alerts?userId=${worker.id}`);
        await item.getByRole('button', { name: en ? 'Resolve' : '解决', exact: true }).click();
        dialog = page.getByRole('dialog');
        await dialog.getByLabel(en ? 'Note (optional)' : '备注（可选）').fill(resolveNote);
        await dialog.getByRole('button', { name: en ? 'Resolve' : '解决', exact: true }).click();
        await dialog.waitFor({ state: 'hidden' });
        await page.getByText(en ? 'Nothing matches these filters' : '没有符合筛选条件的数据').waitFor();
        assert.equal(await item.count(), 0, 'a resolved alert leaves the default view');
        await page.getByRole('combobox', { name: en ? 'Status' : '状态' }).click();
        await page.locator(`.ant-select-item-option[title="${en ? 'Resolved' : '已解决'}"]`).click();
        await page.waitForURL(/status=resolved/);
        await item.getByText(resolveNote).waitFor();
        await item.getByText(ackNote).waitFor();
        assert.equal(await item.getByRole('button').filter({ hasText: en ? 'Resolve' : '解决' }).count(), 0, 'a resolved alert offers no step');
        await settled(page);
        await screenshot(page, `clock-manager-alert-resolved-${tag}`);
        if (narrow) assert.ok(await page.evaluate<number>('document.documentElement.scrollWidth') <= 390, 'no sideways scrolling');
        await visit(page, '/clock/manager/board');
        await openLink(open - 1).waitFor();

        const stored = await call(server.app, 'GET', `/api/managers/security/alerts?userId=${worker.id}&status=all`, { token: manager });
        assert.equal(stored.body.alerts[0].status, 'resolved');
        assert.equal(stored.body.alerts[0].acknowledged.note, ackNote);
        assert.equal(stored.body.alerts[0].resolved.note, resolveNote);
        assert.deepEqual(w.errors, []);
        assert.deepEqual(w.failed, []);
        await w.context.close();
      }
    }
  });
});
