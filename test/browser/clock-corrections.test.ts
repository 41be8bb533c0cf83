// Corrections of punches (issue 30) in Chromium against the real server: a worker on a phone
// (390 × 844) asks, from the history, for the clock-out they forgot after an open clock-in, is
// refused in words a change that would break the order of their punches, and withdraws another
// request; a manager sees the request in the Exceptions inbox (in Chinese at phone width, in
// English at 1440 × 900) with the time the trail suggests and the trail on the map, approves it
// with a note, and the worker's timesheet shows the session with its new hours, flagged edited;
// from Timesheets the manager corrects the session's clock-out, is refused in words a move that
// would leave a clock-out without its clock-in, and reads the clock-out's history; at the app's
// next opening the worker reads the decisions in words (then marked read) and sees the punches
// marked in the history, then asks (in Chinese) for a whole session they forgot to clock at all.
// The inbox keeps its tab in the URL and shows every tab at phone width, in both languages, and
// names the worker its filter was given in the URL (never a number). Past
// punches and positions are written into the tables as the clock and the location
// routes record them; the forgotten clock-out sweep is kept from closing the open session.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { MANAGER_PASSWORD } from '../helpers/app.ts';
import { browserSkip, newPage, onConsole, PHONE, screenshot, settled, signInClock, type ConsoleServer, type Watched } from '../helpers/browser.ts';
import { call } from '../helpers/http.ts';
import { circle, createQr, createSite, createWorker, managerToken } from '../helpers/timeclock.ts';

const CENTRE = { latitude: 48.8566, longitude: 2.3522 };
const METRES_PER_DEGREE = (2 * Math.PI * 6_371_008.8) / 360;
/** A point `north` and `east` metres from the centre (the fence is a 100 m circle). */
const near = (north: number, east = 0) => ({
  latitude: CENTRE.latitude + north / METRES_PER_DEGREE,
  longitude: CENTRE.longitude + east / (METRES_PER_DEGREE * Math.cos((CENTRE.latitude * Math.PI) / 180)),
});
const UTC = { timezoneId: 'UTC' };
const DESK = { viewport: { width: 1440, height: 900 }, ...UTC };
const PHONE_UTC = { ...PHONE, ...UTC };

/** `YYYY-MM-DD` of `days` days before today (UTC, as the pages here). */
const dayBefore = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
const D1 = dayBefore(3);
const D = dayBefore(2);
const at = (date: string, time: string) => new Date(`${date}T${time}:00Z`).toISOString();

describe('time clock: corrections of punches', { skip: browserSkip() }, () => {
  let browser: Browser;
  let server: ConsoleServer;
  let manager: string;
  let ana: Awaited<ReturnType<typeof createWorker>>;
  /** The worker's phone, kept for the whole file: the account is bound to it. */
  let phone: Watched;
  // The sweep would close the open session (past the work rules' limit) before the worker asks.
  onConsole((s, b) => ((server = s), (browser = b)), { ATTENDANCE_SWEEP_MS: '3600000', CLOCK_MIN_INTERVAL_SECONDS: '0' });

  const db = () => server.app.platform.db;
  const unread = async (userId: number) => Number((await db().query<{ n: number }>(
    'SELECT count(*)::int AS n FROM timeclock.notifications WHERE user_id = $1 AND read_at IS NULL', [userId]))[0]!.n);
  const width = (page: Page) => page.evaluate<number>('Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)');
  /** The inbox's tabs, each wholly in view in the tab bar (none left to the bar's overflow menu). */
  const everyTabInView = async (page: Page, names: string[]) => {
    const bar = (await page.getByRole('tablist').boundingBox())!;
    assert.ok(bar.x + bar.width <= 390, `the tab bar at 390 px: ${JSON.stringify(bar)}`);
    for (const name of names) {
      const tab = (await page.getByRole('tab', { name }).boundingBox())!;
      assert.ok(tab.x >= bar.x && tab.x + tab.width <= bar.x + bar.width, `the tab ${name} in view: ${JSON.stringify({ tab, bar })}`);
    }
    assert.equal(await page.getByRole('tab').count(), names.length);
  };

  before(async () => {
    manager = await managerToken(server.app);
    // The default site fenced too (far away): no "draw the fence first" banner on the screens.
    const sites = await call(server.app, 'GET', '/api/managers/sites', { token: manager });
    const home = sites.body.find((s: { is_default: boolean }) => s.is_default);
    assert.equal((await call(server.app, 'PATCH', `/api/managers/sites/${home.id}`, { token: manager, body: { fence: circle(40.0, -3.7, 100) } })).status, 200);
    const site = await createSite(server.app, manager, circle(CENTRE.latitude, CENTRE.longitude, 100), 'North yard');
    const { id: qr } = await createQr(server.app, manager, { name: 'Gate A', siteId: site.id });
    ana = await createWorker(server.app, manager, { username: 'ana.field', fullName: 'Ana Field' });
    // The day before: 07:30–16:00. Then a clock-in at 08:00 and no clock-out (forgotten).
    let last = 0;
    for (const [type, time] of [['clock_in', at(D1, '07:30')], ['clock_out', at(D1, '16:00')], ['clock_in', at(D, '08:00')]] as const) {
      const [row] = await db().query<{ id: number }>(
        `INSERT INTO timeclock.clock_events (user_id, event_type, qr_code_id, site_id, latitude, longitude, created_at, received_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING id`,
        [ana.id, type, qr, site.id, CENTRE.latitude, CENTRE.longitude, time],
      );
      last = Number(row!.id);
    }
    await db().query(`INSERT INTO timeclock.worker_state (user_id, state, last_event_id) VALUES ($1, 'clock_in', $2)
      ON CONFLICT (user_id) DO UPDATE SET state = 'clock_in', last_event_id = $2`, [ana.id, last]);
    // The trail: about the yard all day until 17:05, then walking away north-east from 17:20 (the
    // trail suggests 17:05).
    const trail: [string, { latitude: number; longitude: number }][] = [];
    for (let h = 8; h <= 16; h += 1) {
      const a = (h * 40 * Math.PI) / 180;
      trail.push([`${String(h).padStart(2, '0')}:00`, near(50 * Math.sin(a), 50 * Math.cos(a))], [`${String(h).padStart(2, '0')}:30`, near(-30 * Math.cos(a), 30 * Math.sin(a))]);
    }
    trail.push(['17:05', near(70, 20)], ['17:20', near(160, 70)], ['17:40', near(260, 150)], ['18:30', near(380, 260)]);
    for (const [time, where] of trail) {
      await db().query(
        `INSERT INTO timeclock.location_samples (user_id, latitude, longitude, accuracy, source, recorded_at, received_at) VALUES ($1, $2, $3, 12, 'background', $4, $4)`,
        [ana.id, where.latitude, where.longitude, at(D, time)],
      );
    }
  });
  after(async () => {
    await phone?.context.close();
  });

  test('a worker on a phone asks for the forgotten clock-out; a move that breaks the order is refused in words; another request is withdrawn', async () => {
    phone = await newPage(browser, 'en-US', PHONE_UTC);
    const { page } = phone;
    await signInClock(page, server.base, ana.username, ana.password);
    await page.getByTestId('clock-state').waitFor();
    await page.getByRole('navigation').getByRole('link', { name: 'History' }).click();
    await page.getByRole('heading', { name: 'My punches' }).waitFor();

    // The clock-in left open: the forgotten clock-out is the first choice.
    await page.getByRole('button', { name: /^Correct the clock-in of .*08:00/ }).click();
    const sheet = page.getByRole('dialog', { name: 'Request a correction' });
    await sheet.getByRole('radio', { name: 'I forgot to clock out' }).and(page.locator(':checked')).waitFor();
    await sheet.getByLabel('When I stopped working').fill(`${D}T17:10`);
    await sheet.getByLabel('Why (your manager reads it)').fill('I forgot to clock out when I left at 17:10.');
    await screenshot(page, 'clock-corrections-worker-request-en-US');
    await sheet.getByRole('button', { name: 'Send the request' }).click();
    await page.getByText('Request sent: your manager will decide.').waitFor();
    assert.equal(await sheet.count(), 0);

    // The clock-in moved to the day before, after that day's clock-in: two clock-ins in a row.
    await page.getByRole('button', { name: /^Correct the clock-in of .*08:00/ }).click();
    await sheet.getByRole('radio', { name: 'The time is wrong' }).check();
    await sheet.getByLabel('The right time').fill(`${D1}T15:00`);
    await sheet.getByLabel('Why (your manager reads it)').fill('Wrong day.');
    await sheet.getByRole('button', { name: 'Send the request' }).click();
    await sheet.getByRole('alert').getByText(/^This would leave your clock-in of .*07:30 AM out of order: clock-ins and clock-outs must alternate/).waitFor();
    await screenshot(page, 'clock-corrections-worker-refused-en-US');
    await sheet.getByRole('button', { name: 'Cancel' }).click();

    // Another request (the day before's clock-out, later), then withdrawn from the list of requests.
    await page.getByRole('button', { name: /^Correct the clock-out of .*04:00/ }).click();
    await sheet.getByLabel('The right time').fill(`${D1}T16:30`);
    await sheet.getByLabel('Why (your manager reads it)').fill('I stayed to close the gate.');
    await sheet.getByRole('button', { name: 'Send the request' }).click();
    await page.getByText('Request sent: your manager will decide.').waitFor();
    await page.getByRole('navigation').getByRole('link', { name: 'Requests' }).click();
    const requests = page.getByTestId('request');
    await requests.filter({ hasText: /^Add a clock-out at .*05:10/ }).getByText('Waiting for your manager').waitFor();
    const later = requests.filter({ hasText: /^Change the clock-out of .*04:00.* to .*04:30/ });
    await later.getByText('Waiting for your manager').waitFor();
    await later.getByRole('button', { name: /^Withdraw the request: / }).click();
    await page.getByText('Request withdrawn.').waitFor();
    await later.getByText('Withdrawn', { exact: true }).waitFor();
    await screenshot(page, 'clock-corrections-worker-requests-en-US');
    assert.ok(await width(page) <= 390, `the requests at 390 px: ${await width(page)}`);
    const mine = await call(server.app, 'GET', `/api/managers/corrections?status=all&userId=${ana.id}`, { token: manager });
    assert.deepEqual(mine.body.corrections.map((c: { kind: string; status: string }) => `${c.kind} ${c.status}`), ['move cancelled', 'add pending']);
    assert.deepEqual(phone.errors, []);
    assert.deepEqual(phone.failed, ['POST /api/worker/corrections 409']);
  });

  test('the inbox in Chinese at phone width: the request, the time the trail suggests and the trail on the map, without sideways scrolling', async () => {
    const w = await newPage(browser, 'zh-CN', PHONE_UTC);
    const { page } = w;
    await signInClock(page, server.base, server.app.platform.config.MANAGER_USERNAME, MANAGER_PASSWORD);
    await page.waitForURL(/\/clock\/manager\/board$/);
    await page.getByRole('button', { name: '菜单' }).click();
    await page.getByRole('menuitem', { name: '异常处理' }).click();
    await page.waitForURL(/\/manager\/exceptions$/);
    const card = page.locator('.mgr-card').filter({ hasText: 'Ana Field' });
    await card.getByText(`补记下班打卡：${D} 17:10`).waitFor();
    await card.getByText('待处理', { exact: true }).waitFor();
    assert.equal(await page.locator('.mgr-card').count(), 1, 'the withdrawn request is not waiting');
    await settled(page);
    assert.ok(await width(page) <= 390, `the inbox at 390 px: ${await width(page)}`);
    await screenshot(page, 'clock-corrections-inbox-phone-zh-CN');
    await card.getByRole('button', { name: /^查看证据/ }).click();
    const drawer = page.locator('.cx-detail');
    await drawer.getByTestId('suggestion').getByText(`轨迹推断的时间：${D} 17:05`).waitFor();
    await drawer.getByText('员工离开电子围栏前在围栏内的最后一个位置。').waitFor();
    await drawer.getByText(`申请的时间为 ${D} 17:10：比轨迹晚 5 分钟。`).waitFor();
    const map = drawer.getByRole('application', { name: '申请时间前后的位置' });
    await map.locator('path.map-trail.inside').first().waitFor();
    await map.locator('path.map-trail.outside').first().waitFor();
    await map.locator('.map-worker-label').getByText('推断 17:05').waitFor();
    await settled(page);
    assert.ok(await width(page) <= 390, `the evidence at 390 px: ${await width(page)}`);
    await screenshot(page, 'clock-corrections-evidence-phone-zh-CN');
    await map.scrollIntoViewIfNeeded();
    await settled(page);
    await screenshot(page, 'clock-corrections-evidence-map-phone-zh-CN');

    // A link to a tab opens it (the tab in the URL); every tab in view at 390 px; the tab chosen kept.
    await page.goto(`${server.base}/clock/manager/exceptions?tab=auto`);
    await page.getByRole('tab', { name: '自动下班', selected: true }).waitFor();
    await page.getByText('没有待核对的自动下班。').waitFor();
    await everyTabInView(page, ['更正申请', '自动下班', '超时', '合规']);
    assert.ok(await width(page) <= 390, `the automatic clock-outs at 390 px: ${await width(page)}`);
    await settled(page);
    await screenshot(page, 'clock-corrections-inbox-auto-phone-zh-CN');
    await page.getByRole('tab', { name: '合规' }).click();
    await page.waitForURL(/\/manager\/exceptions\?tab=compliance$/);
    await page.getByText('员工违反工作规则中工作时间规定的日子。').waitFor();
    await settled(page);
    await screenshot(page, 'clock-corrections-inbox-compliance-phone-zh-CN');
    await page.getByRole('tab', { name: '更正申请' }).click();
    await page.waitForURL(/\/manager\/exceptions$/);
    await page.locator('.mgr-card').filter({ hasText: 'Ana Field' }).waitFor();
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, []);
    await w.context.close();
  });

  test('a manager approves the request from the inbox with a note; the timesheet shows the session with its new hours, flagged edited; a correction from Timesheets, a refusal in words, and the punch’s history', async () => {
    const w = await newPage(browser, 'en-US', DESK);
    const { page } = w;
    await signInClock(page, server.base, server.app.platform.config.MANAGER_USERNAME, MANAGER_PASSWORD);
    await page.waitForURL(/\/clock\/manager\/board$/);
    // The menu says how many requests (and automatic clock-outs) wait.
    await page.getByRole('menuitem', { name: 'Exceptions 1 to decide or review' }).click();
    const row = page.getByRole('row', { name: /Ana Field/ });
    await row.getByText(`Add a clock-out at ${D} 17:10`).waitFor();
    await row.getByText('I forgot to clock out when I left at 17:10.').waitFor();
    await settled(page);
    await screenshot(page, 'clock-corrections-inbox-en-US');

    // The evidence: the suggestion in words, the trail on the map, the punches, the device.
    await row.getByRole('button', { name: /^Evidence: Add a clock-out/ }).click();
    const drawer = page.locator('.cx-detail');
    await drawer.getByTestId('suggestion').getByText(`The trail suggests ${D} 17:05`).waitFor();
    await drawer.getByText('Based on the last position inside the fence before the worker left it.').waitFor();
    await drawer.getByText(`The request says ${D} 17:10: 5 min later than the trail.`).waitFor();
    await drawer.getByText('Judged against the fence of North yard').waitFor();
    const map = drawer.getByRole('application', { name: 'Positions around the requested time' });
    assert.ok(await map.locator('path.map-trail.inside').count() >= 18);
    assert.equal(await map.locator('path.map-trail.outside').count(), 3);
    await map.locator('path.map-suggested').waitFor();
    await settled(page);
    await screenshot(page, 'clock-corrections-evidence-en-US');
    await drawer.getByText('Positions (22)').click();
    await drawer.locator('.cx-pos.cx-suggested').getByText('17:05:00').waitFor();
    await drawer.locator('.cx-list li').filter({ hasText: `clock-in ${D} 08:00` }).getByText('code Gate A').waitFor();
    await drawer.getByText(/^web-[0-9a-f-]{36}$/).waitFor();
    await settled(page);
    await screenshot(page, 'clock-corrections-evidence-lists-en-US');

    await drawer.getByRole('textbox', { name: 'Note to the worker (optional)' }).fill('Thanks: the trail agrees.');
    await drawer.getByRole('button', { name: 'Approve', exact: true }).click();
    await page.getByText('Approved: the punches are corrected and the worker is told.').waitFor();
    await page.getByText('No correction request waits for a decision.').waitFor();
    await page.getByRole('menuitem', { name: /Exceptions \d+ to decide or review/ }).waitFor({ state: 'detached' });
    const approved = await call(server.app, 'GET', `/api/managers/corrections?status=approved&userId=${ana.id}`, { token: manager });
    assert.deepEqual(approved.body.corrections.map((c: { kind: string; decisionNote: string }) => [c.kind, c.decisionNote]), [['add', 'Thanks: the trail agrees.']]);

    // The decided ones stay in the list under their status.
    await page.getByLabel('Status', { exact: true }).click();
    await page.locator('.ant-select-item-option[title="Approved"]').click();
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('row', { name: /Ana Field/ }).getByText(/^Approved by Manager, /).waitFor();
    assert.match(page.url(), /status=approved/);
    // At phone width, in English too, every tab in view (their shorter labels).
    await page.setViewportSize({ width: 390, height: 844 });
    await everyTabInView(page, ['Requests', 'Auto clock-outs', 'Overdue', 'Compliance']);
    await settled(page);
    await screenshot(page, 'clock-corrections-inbox-phone-en-US');
    await page.setViewportSize(DESK.viewport);

    // The timesheet: 08:00–17:10, 9:10 worked, flagged edited.
    await page.goto(`${server.base}/clock/manager/timesheets?period=custom&from=${D1}&to=${D}&worker=${ana.id}`);
    const days = page.locator('.ant-drawer');
    const session = days.locator('.ts-sessions li').filter({ hasText: '08:00–17:10 · 9:10' });
    await session.getByText('Edited').waitFor();
    await days.getByText('Worked 9:10').waitFor();
    await settled(page);
    await screenshot(page, 'clock-corrections-timesheet-edited-en-US');

    // The manager moves the clock-out to the time the trail supports: 9:05.
    await session.getByRole('button', { name: 'Correct the session 08:00–17:10' }).click();
    await page.getByRole('menuitem', { name: 'Change the clock-out time' }).click();
    const dialog = page.getByRole('dialog', { name: `Change the clock-out of Ana Field (${D} 17:10)` });
    const time = dialog.getByLabel('New time');
    await time.fill(`${D} 17:05`);
    await time.press('Enter');
    await dialog.getByLabel('Reason').fill('Left at 17:05, as the trail shows.');
    await dialog.getByRole('button', { name: 'Correct', exact: true }).click();
    await page.getByText('Corrected: the timesheet is recomputed.').waitFor();
    await days.locator('.ts-sessions li').filter({ hasText: '08:00–17:05 · 9:05' }).getByText('Edited').waitFor();
    await days.getByText('Worked 9:05').waitFor();

    // A move that would leave the day before's clock-out without its clock-in is refused, in words, in the dialog.
    await days.locator('.ts-sessions li').filter({ hasText: '07:30–16:00' }).getByRole('button', { name: 'Correct the session 07:30–16:00' }).click();
    await page.getByRole('menuitem', { name: 'Change the clock-in time' }).click();
    const refused = page.getByRole('dialog', { name: `Change the clock-in of Ana Field (${D1} 07:30)` });
    await refused.getByLabel('New time').fill(`${D} 09:00`);
    await refused.getByLabel('New time').press('Enter');
    await refused.getByLabel('Reason').fill('Wrong day.');
    await refused.getByRole('button', { name: 'Correct', exact: true }).click();
    await refused.getByRole('alert').getByText(`This would leave the clock-out of ${D1} 16:00 out of order: clock-ins and clock-outs must alternate, and a clock-out needs a clock-in before it. Correct that punch first, or choose another time.`).waitFor();
    await settled(page);
    await screenshot(page, 'clock-corrections-timesheet-refused-en-US');
    await refused.getByRole('button', { name: 'Cancel' }).click();
    await days.locator('.ts-sessions li').filter({ hasText: '07:30–16:00 · 8:30' }).waitFor();

    // The clock-out's history: the version the request added, replaced by the manager's.
    await days.locator('.ts-sessions li').filter({ hasText: '08:00–17:05' }).getByRole('button', { name: 'Correct the session 08:00–17:05' }).click();
    await page.getByRole('menuitem', { name: 'History of the clock-out' }).click();
    const history = page.getByRole('dialog', { name: `History of the clock-out of ${D} 17:05` });
    await history.getByText(`Add a clock-out at ${D} 17:10`).waitFor();
    await history.getByText(`Move the clock-out of ${D} 17:10 to 17:05`).waitFor();
    await history.getByText('Left at 17:05, as the trail shows.').waitFor();
    assert.equal(await history.locator('.cx-voided').count(), 1);
    await settled(page);
    await screenshot(page, 'clock-corrections-punch-history-en-US');
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, ['POST /api/managers/corrections 409']);
    await w.context.close();
  });

  test('at the next opening the worker reads the decisions in words, marked read; the history marks the punches; both languages', async () => {
    const { page } = phone;
    assert.equal(await unread(ana.id), 2, 'the approval and the manager’s correction');
    await page.goto(`${server.base}/clock/`);
    const decisions = page.getByTestId('decisions');
    await decisions.getByText(/^Your request was approved: Add a clock-out at .*05:10 PM\./).waitFor();
    await decisions.getByText('Note from your manager: “Thanks: the trail agrees.”').waitFor();
    await decisions.getByText(/^Your manager corrected your punches: Change the clock-out of .*05:10 PM to .*05:05 PM\. Reason: Left at 17:05, as the trail shows\./).waitFor();
    await screenshot(page, 'clock-corrections-worker-decisions-en-US');
    for (let i = 0; i < 100 && await unread(ana.id) > 0; i += 1) await page.waitForTimeout(50);
    assert.equal(await unread(ana.id), 0, 'shown: read');
    await decisions.getByRole('button', { name: 'OK' }).first().click();
    await decisions.locator('p').first().waitFor();
    assert.equal(await decisions.locator('p').count(), 1);

    // The history: the clock-out the request added, voided by the manager's move (struck through), and its replacement.
    await page.getByRole('navigation').getByRole('link', { name: 'History' }).click();
    await page.locator('.history li.voided').filter({ hasText: '05:10 PM' }).getByText('Voided by a correction: not counted').waitFor();
    await page.locator('.history li:not(.voided)').filter({ hasText: '05:05 PM' }).getByText('Corrected').waitFor();
    assert.equal(await page.getByRole('button', { name: /^Correct the clock-out of .*05:10 PM/ }).count(), 0, 'a voided punch is not corrected again');
    await screenshot(page, 'clock-corrections-worker-history-en-US');

    // Read once: the next opening shows nothing more.
    const asked = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/notifications');
    await page.goto(`${server.base}/clock/requests`);
    await asked;
    await page.getByTestId('request').first().waitFor();
    assert.equal(await page.getByTestId('decisions').count(), 0);
    await page.getByTestId('request').filter({ hasText: /^Add a clock-out at/ }).getByText('Approved').waitFor();
    await page.getByText('Note from Manager: “Thanks: the trail agrees.”').waitFor();
    await page.getByRole('button', { name: '中文' }).click();
    await page.getByRole('heading', { name: '我的更正申请' }).waitFor();
    await page.getByTestId('request').filter({ hasText: /^补记下班打卡：/ }).getByText('已批准').waitFor();
    await page.getByTestId('request').filter({ hasText: /^将 .* 的下班打卡改为/ }).getByText('已撤回').waitFor();
    assert.ok(await width(page) <= 390, `the requests at 390 px: ${await width(page)}`);
    await screenshot(page, 'clock-corrections-worker-requests-zh-CN');
    await page.getByRole('navigation').getByRole('link', { name: '记录' }).click();
    await page.locator('.history li.voided').first().getByText('已被更正作废：不计入工时').waitFor();
    await screenshot(page, 'clock-corrections-worker-history-zh-CN');

    // A whole session with no punch: a start and an end (an end before the start refused in words).
    const D3 = dayBefore(4);
    await page.getByRole('button', { name: '忘记上班和下班打卡' }).click();
    const sheet = page.getByRole('dialog', { name: '申请更正' });
    await sheet.getByText('用于完全没有打卡的一段工作：请填写开始和结束的时间。').waitFor();
    await sheet.getByLabel('实际上班时间').fill(`${D3}T09:00`);
    await sheet.getByLabel('实际下班时间').fill(`${D3}T08:30`);
    await sheet.getByLabel('原因（主管会看到）').fill('手机没电，整天没有打卡。');
    await sheet.getByRole('button', { name: '提交申请' }).click();
    await sheet.getByRole('alert').getByText('结束时间必须晚于开始时间。').waitFor();
    await screenshot(page, 'clock-corrections-worker-session-zh-CN');
    await sheet.getByLabel('实际下班时间').fill(`${D3}T12:30`);
    assert.equal(await sheet.getByRole('alert').count(), 0, 'the refusal goes with the change');
    await sheet.getByRole('button', { name: '提交申请' }).click();
    await page.getByText('申请已提交：等待主管处理。').waitFor();
    await page.getByRole('navigation').getByRole('link', { name: '申请' }).click();
    await page.getByTestId('request').filter({ hasText: /^补记工段 .*09:00 – 12:30/ }).getByText('等待主管处理').waitFor();
    await screenshot(page, 'clock-corrections-worker-requests-session-zh-CN');
    const session = await call(server.app, 'GET', `/api/managers/corrections?userId=${ana.id}`, { token: manager });
    assert.deepEqual(session.body.corrections.map((c: { kind: string; after: { eventType: string; at: string }[] }) => [c.kind, c.after.map((p) => `${p.eventType} ${p.at}`)]),
      [['add', [`clock_in ${at(D3, '09:00')}`, `clock_out ${at(D3, '12:30')}`]]]);
    await page.getByRole('button', { name: 'EN' }).click();
    assert.deepEqual(phone.errors, []);
    assert.deepEqual(phone.failed, ['POST /api/worker/corrections 409']);
  });

  test('a worker chosen in the URL is named in the inbox’s worker filter, even beyond the first workers the filter offers', async () => {
    // The filter offers the first 20 workers: the one chosen comes after them and has no request.
    for (let i = 0; i < 20; i += 1) await createWorker(server.app, manager);
    const bea = await createWorker(server.app, manager, { username: 'bea.late', fullName: 'Bea Late' });
    const w = await newPage(browser, 'en-US', DESK);
    await signInClock(w.page, server.base, server.app.platform.config.MANAGER_USERNAME, MANAGER_PASSWORD);
    await w.page.waitForURL(/\/clock\/manager\/board$/);
    await w.page.goto(`${server.base}/clock/manager/exceptions?userId=${bea.id}`);
    await w.page.locator('.list-filters').getByText('Bea Late (bea.late)', { exact: true }).waitFor();
    assert.equal(await w.page.getByText(`#${bea.id}`).count(), 0);
    await screenshot(w.page, 'clock-corrections-inbox-worker-named');
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, []);
    await w.context.close();
  });
});
