// Approved and locked periods in Chromium against the real server (1440 × 900): a manager asks to
// approve a worker's period from Timesheets and is told in words what is left in Exceptions (an
// automatic clock-out to review); its time is corrected from the inbox's list and it is reviewed;
// the compliance report shows the day over the daily maximum and its export downloads a file with
// it; the period is approved and the days marked; the period is locked for the worker and the days
// marked locked; the payroll export limited to locked periods downloads a file with the locked day;
// the period is unlocked, the reason required. The manager then sets the attendance rules in Work
// rules and a site's closing time in Sites, read back from the API, and finds a session open too
// long in its tab of the inbox (every tab in view at phone width) and adds its missing clock-out
// from the row. On a phone, the worker reads the reminder and the automatic clock-out, clocks in (a
// photo of the site's code) too soon after the last day and is warned of the short rest, then, the
// clock-in moved earlier by a manager, is told the day is over the daily maximum. Past punches are
// written into the tables as the clock route records them (origin 'auto' for the automatic
// clock-out); the forgotten clock-out sweep is kept from running.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import QRCode from 'qrcode';
import { MANAGER_PASSWORD } from '../helpers/app.ts';
import { browserSkip, newPage, onConsole, PHONE, screenshot, settled, signInClock, type ConsoleServer } from '../helpers/browser.ts';
import { call } from '../helpers/http.ts';
import { circle, createQr, createSite, createWorker, managerToken } from '../helpers/timeclock.ts';

const CENTRE = { latitude: 48.8566, longitude: 2.3522 };
const DESK = { viewport: { width: 1440, height: 900 }, timezoneId: 'UTC' };
const dayBefore = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
const D1 = dayBefore(3);
const D = dayBefore(2);
const at = (date: string, time: string) => new Date(`${date}T${time}:00Z`).toISOString();
/** The rows of a CSV file (no quoted commas in these). */
const csvRows = (text: string) => text.replace(/^\uFEFF/, '').split(/\r?\n/).map((l) => l.split(',').map((c) => c.replace(/^"|"$/g, '')));

describe('time clock: approved and locked periods', { skip: browserSkip() }, () => {
  let browser: Browser;
  let server: ConsoleServer;
  onConsole((s, b) => ((server = s), (browser = b)), { ATTENDANCE_SWEEP_MS: '3600000', CLOCK_MIN_INTERVAL_SECONDS: '0' });
  const db = () => server.app.platform.db;
  let manager: string;
  let ana: Awaited<ReturnType<typeof createWorker>>;
  let site: { id: number };
  let qr: string;
  const punch = async (type: 'clock_in' | 'clock_out', time: string, origin: 'punch' | 'auto' = 'punch') => {
    const [row] = await db().query<{ id: number }>(
      `INSERT INTO timeclock.clock_events (user_id, event_type, qr_code_id, site_id, latitude, longitude, created_at, received_at, origin)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8) RETURNING id`,
      [ana.id, type, origin === 'auto' ? null : qr, site.id, CENTRE.latitude, CENTRE.longitude, time, origin],
    );
    await db().query(`INSERT INTO timeclock.worker_state (user_id, state, last_event_id) VALUES ($1, $2, $3)
      ON CONFLICT (user_id) DO UPDATE SET state = $2, last_event_id = $3`, [ana.id, type, row!.id]);
    return Number(row!.id);
  };

  test('a manager approves a worker (refused first, in words), locks the period, exports the locked days and unlocks with a reason; then sets the attendance rules and a site’s closing time', async () => {
    manager = await managerToken(server.app);
    const sites = await call(server.app, 'GET', '/api/managers/sites', { token: manager });
    const home = sites.body.find((s: { is_default: boolean }) => s.is_default);
    assert.equal((await call(server.app, 'PATCH', `/api/managers/sites/${home.id}`, { token: manager, body: { fence: circle(40.0, -3.7, 100) } })).status, 200);
    site = await createSite(server.app, manager, circle(CENTRE.latitude, CENTRE.longitude, 100), 'North yard');
    ({ id: qr } = await createQr(server.app, manager, { name: 'Gate A', siteId: site.id }));
    ana = await createWorker(server.app, manager, { username: 'ana.field', fullName: 'Ana Field' });
    // The day before: a forgotten clock-out closed automatically at 20:00; then a day 08:00–16:00.
    await punch('clock_in', at(D1, '08:00'));
    const auto = await punch('clock_out', at(D1, '20:00'), 'auto');
    await punch('clock_in', at(D, '08:00'));
    await punch('clock_out', at(D, '16:00'));

    const w = await newPage(browser, 'en-US', DESK);
    const { page } = w;
    await signInClock(page, server.base, server.app.platform.config.MANAGER_USERNAME, MANAGER_PASSWORD);
    await page.waitForURL(/\/clock\/manager\/board$/);
    await page.goto(`${server.base}/clock/manager/timesheets?period=custom&from=${D1}&to=${D}&worker=${ana.id}`);
    const days = page.locator('.ant-drawer');
    await days.getByText('Worked 8:00').waitFor();

    // Refused while the automatic clock-out waits for review, saying so.
    await days.getByRole('button', { name: 'Approve this period' }).click();
    await days.getByRole('alert').getByText('Not approved yet: 1 automatic clock-out to review left in Exceptions for this period. Review them first.').waitFor();
    await settled(page);
    await screenshot(page, 'clock-periods-approve-refused-en-US');
    // The menu counts it; the Exceptions inbox lists it (the tab kept in the URL).
    await page.goto(`${server.base}/clock/manager/exceptions`);
    await page.getByRole('menuitem', { name: 'Exceptions 1 to decide or review' }).waitFor();
    await page.getByRole('tab', { name: 'Automatic clock-outs (1)' }).click();
    await page.waitForURL(/\/manager\/exceptions\?tab=auto$/);
    const autos = page.getByRole('row', { name: /Ana Field/ });
    await autos.getByText('The limit (work rules or closing time)').waitFor();
    await settled(page);
    await screenshot(page, 'clock-periods-auto-clock-outs-en-US');

    // Its time corrected from the list: the session closed at 19:30 instead.
    await autos.getByRole('button', { name: `Correct the time: Ana Field, ${D1} 20:00` }).click();
    const correct = page.getByRole('dialog', { name: `Change the clock-out of Ana Field (${D1} 20:00)` });
    await correct.getByLabel('New time').fill(`${D1} 19:30`);
    await correct.getByLabel('New time').press('Enter');
    await correct.getByLabel('Reason').fill('Left at 19:30, the gate log says.');
    await settled(page);
    await screenshot(page, 'clock-periods-auto-correct-en-US');
    await correct.getByRole('button', { name: 'Correct', exact: true }).click();
    await page.getByText('Corrected: the timesheet is recomputed.').waitFor();
    await correct.waitFor({ state: 'detached' });
    await autos.getByText('Corrected since').waitFor();
    await page.getByRole('tab', { name: 'Automatic clock-outs', exact: true }).waitFor();
    const moved = await db().query<{ voided: boolean; at: string }>(
      `SELECT (SELECT voided_at IS NOT NULL FROM timeclock.clock_events WHERE id = $1) AS voided,
              (SELECT created_at FROM timeclock.clock_events WHERE user_id = $2 AND event_type = 'clock_out' AND origin = 'correction' AND voided_at IS NULL) AS at`,
      [auto, ana.id]);
    assert.equal(moved[0]!.voided, true);
    assert.equal(new Date(moved[0]!.at).toISOString(), at(D1, '19:30'));
    // And reviewed.
    await autos.getByRole('button', { name: /^Mark reviewed: Ana Field/ }).click();
    await page.getByText('Marked reviewed.').waitFor();
    await page.getByText('No automatic clock-out waits for review.').waitFor();
    const reviewed = await db().query<{ n: number }>('SELECT count(*)::int AS n FROM timeclock.clock_events WHERE id = $1 AND reviewed_at IS NOT NULL', [auto]);
    assert.equal(reviewed[0]!.n, 1);

    // The compliance report: 08:00–19:30 is over the daily maximum (10 h); its export has the row.
    await page.getByRole('tab', { name: 'Compliance' }).click();
    await page.waitForURL(/\?tab=compliance$/);
    const over = page.getByRole('row', { name: /Ana Field/ });
    await over.getByText('Over the daily maximum').waitFor();
    await over.getByText('Paid 11:30').waitFor();
    await settled(page);
    await screenshot(page, 'clock-periods-compliance-en-US');
    const compliance = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const report = csvRows(await readFile(await (await compliance).path(), 'utf8'));
    const ruleColumn = report[0]!.indexOf('Rule');
    assert.ok(ruleColumn >= 0, `the header: ${report[0]!.join(',')}`);
    const line = report.find((r) => r.includes('Ana Field') && r.includes(D1));
    assert.ok(line, `the day ${D1} in the file:\n${report.map((r) => r.join(',')).join('\n')}`);
    assert.equal(line[ruleColumn], 'Over the daily maximum');
    assert.ok(line.includes('11:30'), line.join(','));
    await page.goto(`${server.base}/clock/manager/timesheets?period=custom&from=${D1}&to=${D}&worker=${ana.id}`);
    await days.getByRole('button', { name: 'Approve this period' }).click();
    await page.getByText('Period approved').waitFor();
    await days.getByText('Every day of this period is approved.').waitFor();
    await days.locator('.ts-day-head .ts-mark').filter({ hasText: 'Approved' }).nth(1).waitFor();
    assert.equal(await days.locator('.ts-day-head .ts-mark').filter({ hasText: 'Approved' }).count(), 2);
    await page.getByRole('button', { name: 'Close' }).click();
    await days.waitFor({ state: 'hidden' });

    // Locked for the chosen worker. (Every worker, none chosen, is a 500 of the server for now:
    // POST /api/managers/periods/lock without userIds.)
    await page.getByRole('button', { name: 'Lock…', exact: true }).click();
    const lock = page.getByRole('dialog', { name: `Lock ${D1} – ${D}` });
    await lock.getByText('Leave empty for every worker.').waitFor();
    await lock.getByLabel('Workers').click();
    await page.locator('.ant-select-item-option[title="Ana Field"]').click();
    await lock.getByText('Workers', { exact: true }).click();
    await settled(page);
    await screenshot(page, 'clock-periods-lock-en-US');
    await lock.getByRole('button', { name: 'Lock', exact: true }).click();
    await page.getByText('Period locked').or(lock.getByRole('alert')).first().waitFor();
    assert.equal(await lock.getByRole('alert').count(), 0, `refused: ${(await lock.getByRole('alert').allInnerTexts()).join(' ')}`);
    await lock.waitFor({ state: 'detached' });
    const locks = await db().query<{ n: number }>('SELECT count(*)::int AS n FROM timeclock.period_locks WHERE user_id = $1', [ana.id]);
    assert.equal(locks[0]!.n, 1);

    // The days marked locked.
    await page.getByRole('button', { name: /Ana Field/ }).click();
    await days.getByText('Worked 8:00').waitFor();
    // (The days shown at once may be those read before the lock, until they are read again.)
    await days.locator('.ts-day-head .ts-mark').filter({ hasText: 'Locked' }).nth(1).waitFor();
    assert.equal(await days.locator('.ts-day-head .ts-mark').filter({ hasText: 'Locked' }).count(), 2);
    await settled(page);
    await screenshot(page, 'clock-periods-locked-days-en-US');
    await page.getByRole('button', { name: 'Close' }).click();
    await days.waitFor({ state: 'hidden' });

    // The export of the locked periods only, a row a day: the locked day with its Period column.
    await page.getByLabel('Rows').click();
    await page.locator('.ant-select-item-option[title="One per day"]').click();
    await page.getByLabel('Days', { exact: true }).click();
    await page.locator('.ant-select-item-option[title="Locked periods only"]').click();
    assert.match(page.url(), /days=locked/);
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const download = await downloading;
    const file = await readFile(await download.path(), 'utf8');
    assert.match(file.split('\n')[0]!, /Period/);
    const row = file.split('\n').find((l) => l.includes(D) && l.includes('Ana Field'));
    assert.ok(row, `the locked day ${D} in the file:\n${file}`);
    await page.getByText('The file is ready: it downloads now.').waitFor();
    await settled(page);
    await screenshot(page, 'clock-periods-export-en-US');

    // Unlocked, the reason required.
    await page.getByRole('button', { name: 'Unlock…', exact: true }).click();
    const unlock = page.getByRole('dialog', { name: `Unlock ${D1} – ${D}` });
    await unlock.getByRole('button', { name: 'Unlock', exact: true }).click();
    await unlock.getByText('Say why the period is unlocked.').waitFor();
    await unlock.getByLabel('Reason').fill('A missed correction for Ana.');
    await unlock.getByRole('button', { name: 'Unlock', exact: true }).click();
    await page.getByText('Period unlocked').waitFor();
    const active = await db().query<{ n: number }>('SELECT count(*)::int AS n FROM timeclock.period_locks WHERE user_id = $1 AND unlocked_at IS NULL', [ana.id]);
    assert.equal(active[0]!.n, 0);

    // The attendance rules: a forgotten session closed after 10 h, a reminder after 20 min outside
    // the fence, 24 h of rest between two days, at most 1 h paid a day (the worker is warned below).
    await page.getByRole('menuitem', { name: 'Work rules' }).click();
    await page.getByRole('heading', { name: 'Attendance and working time' }).waitFor();
    const rule = (name: string) => page.getByRole('spinbutton', { name });
    await rule('Close a forgotten session after').fill('10');
    await rule('Remind a worker outside the fence after').fill('20');
    await rule('Minimum rest between two days').fill('24');
    await rule('Maximum paid time a day').fill('1');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Work rules saved').waitFor();
    await page.getByText(/^Last changed by Manager, /).waitFor();
    await page.getByRole('heading', { name: 'Attendance and working time' }).scrollIntoViewIfNeeded();
    await settled(page);
    await screenshot(page, 'clock-periods-work-rules-en-US');
    const rules = (await call(server.app, 'GET', '/api/managers/work-rules', { token: manager })).body;
    assert.deepEqual(
      [rules.autoClockOutAfterMinutes, rules.leftFenceMinutes, rules.minRestMinutes, rules.maxDailyMinutes],
      [600, 20, 1440, 60],
      JSON.stringify(rules),
    );

    // The site's closing time.
    await page.getByRole('menuitem', { name: 'Sites' }).click();
    await page.getByRole('row', { name: /North yard/ }).getByRole('button', { name: 'Edit' }).click();
    const editor = page.getByRole('dialog', { name: 'Edit site' });
    await editor.getByLabel('Closes at').fill('21:30');
    await editor.getByLabel('Closes at').press('Enter');
    await settled(page);
    await screenshot(page, 'clock-periods-site-closes-en-US');
    await editor.getByRole('button', { name: 'Save', exact: true }).click();
    await editor.waitFor({ state: 'detached' });
    await page.getByRole('row', { name: /North yard/ }).getByText('21:30').waitFor();
    const saved = (await call(server.app, 'GET', '/api/managers/sites', { token: manager })).body.find((s: { id: number }) => s.id === site.id);
    assert.equal(saved.closesAt, '21:30');

    // Last (another worker in the pickers above): a session open past the long-session limit (20 h,
    // the sweep kept from running) listed under its tab, every tab in view at phone width; its
    // missing clock-out added from the row.
    const ben = await createWorker(server.app, manager, { username: 'ben.open', fullName: 'Ben Open' });
    const since = new Date(Date.now() - 20 * 3_600_000);
    since.setUTCSeconds(0, 0);
    const [benIn] = await db().query<{ id: number }>(
      `INSERT INTO timeclock.clock_events (user_id, event_type, qr_code_id, site_id, latitude, longitude, created_at, received_at)
       VALUES ($1, 'clock_in', $2, $3, $4, $5, $6, $6) RETURNING id`,
      [ben.id, qr, site.id, CENTRE.latitude, CENTRE.longitude, since.toISOString()],
    );
    await db().query(`INSERT INTO timeclock.worker_state (user_id, state, last_event_id) VALUES ($1, 'clock_in', $2)`, [ben.id, benIn!.id]);
    const minute = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ');
    await page.goto(`${server.base}/clock/manager/exceptions`);
    await page.getByRole('tab', { name: 'Open too long (1)' }).click();
    await page.waitForURL(/\?tab=open$/);
    const open = page.getByRole('row', { name: /Ben Open/ });
    await open.getByText(`In ${minute(since)}, open 20:`).waitFor();
    await open.getByText('North yard').waitFor();
    await open.getByText('No position').waitFor();
    await settled(page);
    await screenshot(page, 'clock-periods-open-sessions-en-US');
    await page.setViewportSize({ width: 390, height: 844 });
    const bar = (await page.getByRole('tablist').boundingBox())!;
    for (const name of ['Requests', 'Auto clock-outs', 'Overdue (1)', 'Compliance']) {
      const tab = (await page.getByRole('tab', { name }).boundingBox())!;
      assert.ok(tab.x >= bar.x && tab.x + tab.width <= Math.min(bar.x + bar.width, 390), `the tab ${name} in view at 390 px: ${JSON.stringify({ tab, bar })}`);
    }
    await page.locator('.mgr-card').filter({ hasText: 'Ben Open' }).waitFor();
    await settled(page);
    await screenshot(page, 'clock-periods-open-sessions-phone-en-US');
    await page.setViewportSize(DESK.viewport);
    const out = new Date(since.getTime() + 8 * 3_600_000);
    await open.getByRole('button', { name: `Add the missing clock-out: Ben Open, in ${minute(since)}` }).click();
    const add = page.getByRole('dialog', { name: `Add the clock-out of Ben Open (clocked in ${minute(since)})` });
    await add.getByLabel('Clock-out time').fill(minute(out));
    await add.getByLabel('Clock-out time').press('Enter');
    await add.getByLabel('Reason').fill('Left at the end of the shift.');
    await add.getByRole('button', { name: 'Correct', exact: true }).click();
    await add.waitFor({ state: 'detached' });
    await page.getByText('No session is open too long.').waitFor();
    await page.getByRole('tab', { name: 'Open too long', exact: true }).waitFor();
    const benOut = await db().query<{ at: string }>(`SELECT created_at AS at FROM timeclock.clock_events WHERE user_id = $1 AND event_type = 'clock_out'`, [ben.id]);
    assert.deepEqual(benOut.map((r) => new Date(r.at).toISOString()), [out.toISOString()]);

    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, ['POST /api/managers/timesheets/' + ana.id + '/approve 409']);
    await w.context.close();
  });

  test('on a phone the worker reads the reminder and the automatic clock-out in words (then marked read), is warned of the short rest at a clock-in and of the daily maximum', async () => {
    // The phone's day (and the site's) from 01:00 at the earliest: the clock-in moved back 2 h
    // below stays on today (UTC from 03:00, Tokyo's day before).
    const zone = new Date().getUTCHours() >= 3 ? 'UTC' : 'Asia/Tokyo';
    if (zone !== 'UTC') assert.equal((await call(server.app, 'PATCH', `/api/managers/sites/${site.id}`, { token: manager, body: { timezone: zone } })).status, 200);
    /** A time as the phone shows it, as a pattern (whatever space the browser puts before AM). */
    const shown = (iso: string) => new Intl.DateTimeFormat('en-US', { timeZone: zone, hour: '2-digit', minute: '2-digit' }).format(new Date(iso)).replace(/\s/g, '\\s');
    await db().query(`INSERT INTO timeclock.notifications (user_id, kind, data) VALUES
      ($1, 'clock_reminder', $2::jsonb), ($1, 'auto_clock_out', $3::jsonb)`,
    [ana.id, JSON.stringify({ reason: 'site_closed', sessionStart: at(D1, '08:00') }), JSON.stringify({ closedAt: at(D1, '20:00'), basis: 'limit' })]);
    // The last day: a session that began yesterday (UTC, the server's day) and ended less than the
    // 24 h of rest the manager set before now.
    const today = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
    const lastIn = today - 3 * 3_600_000;
    const lastOut = Math.max(lastIn + 15 * 60_000, Date.now() - 23 * 3_600_000);
    await punch('clock_in', new Date(lastIn).toISOString());
    await punch('clock_out', new Date(lastOut).toISOString());

    // Without a camera (refused by the browser): a photo of the site's code, at the site.
    const w = await newPage(browser, 'en-US', { ...PHONE, timezoneId: zone, geolocation: { ...CENTRE, accuracy: 8 }, permissions: ['geolocation', 'camera'] });
    const { page } = w;
    await page.addInitScript(`navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException('Permission denied', 'NotAllowedError'))`);
    await signInClock(page, server.base, ana.username, ana.password);
    const decisions = page.getByTestId('decisions');
    await decisions.getByText(new RegExp(`^The site has closed but you are still clocked in \\(since .*${shown(at(D1, '08:00'))}\\)\\. If you stopped working, clock out\\.`)).waitFor();
    await decisions.getByText(new RegExp(`^You forgot to clock out: your session was closed automatically at .*${shown(at(D1, '20:00'))} \\(the longest a session may stay open\\)\\.`)).waitFor();
    await settled(page);
    await screenshot(page, 'clock-periods-worker-notices-en-US');
    assert.ok(await page.evaluate<number>('document.documentElement.scrollWidth') <= 390);
    let unread = 2;
    for (let i = 0; i < 100 && unread > 0; i += 1) {
      unread = Number((await db().query<{ n: number }>('SELECT count(*)::int AS n FROM timeclock.notifications WHERE user_id = $1 AND read_at IS NULL', [ana.id]))[0]!.n);
      if (unread > 0) await page.waitForTimeout(50);
    }
    assert.equal(unread, 0, 'shown: read');

    // The clock-in: recorded, with the short rest in words (the rest the server measured).
    await page.getByLabel('Take a photo of the code').setInputFiles({ name: 'code.png', mimeType: 'image/png', buffer: await QRCode.toBuffer(qr, { scale: 8 }) });
    await page.getByRole('button', { name: 'Clock in' }).and(page.locator('[data-ready]')).click();
    await page.getByText(/^Clocked in at \d/).waitFor();
    const [clockIn] = await db().query<{ id: number; created_at: string }>(
      `SELECT id, created_at FROM timeclock.clock_events WHERE user_id = $1 AND event_type = 'clock_in' AND origin = 'punch' ORDER BY created_at DESC LIMIT 1`, [ana.id]);
    const rest = Math.floor((Date.parse(new Date(clockIn!.created_at).toISOString()) - lastOut) / 60_000);
    const hm = (minutes: number) => `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}`;
    await page.getByText(`Clocked in, but only ${hm(rest)} after your last day ended: the minimum rest is 24:00. Your manager is told.`).waitFor();
    await settled(page);
    await screenshot(page, 'clock-periods-worker-short-rest-en-US');

    // A manager moves the clock-in 2 h back: today is then over the day's maximum of 1 h paid.
    const move = await call(server.app, 'POST', '/api/managers/corrections', {
      token: manager, body: { userId: ana.id, kind: 'move', eventId: Number(clockIn!.id), at: new Date(Date.parse(new Date(clockIn!.created_at).toISOString()) - 2 * 3_600_000).toISOString(), reason: 'Started at the gate earlier.' },
    });
    assert.equal(move.status, 201, JSON.stringify(move.body));
    await page.reload();
    await page.getByTestId('daily-max').getByText('Over the daily maximum of 1:00 paid today. Clock out when you can, and tell your manager.').waitFor();
    await settled(page);
    await screenshot(page, 'clock-periods-worker-daily-max-en-US');
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, []);
    await w.context.close();
  });
});
