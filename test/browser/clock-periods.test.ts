// Approved and locked periods in Chromium against the real server (1440 × 900): a manager asks to
// approve a worker's period from Timesheets and is told in words what is left in Exceptions (an
// automatic clock-out to review); once it is reviewed the period is approved and the days marked;
// the period is locked for the worker and the days marked locked; the payroll export limited to
// locked periods downloads a file with the locked day; the period is unlocked, the reason required.
// Past punches are written into the tables as the clock route records them (origin 'auto' for the
// automatic clock-out); the forgotten clock-out sweep is kept from running.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
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

describe('time clock: approved and locked periods', { skip: browserSkip() }, () => {
  let browser: Browser;
  let server: ConsoleServer;
  onConsole((s, b) => ((server = s), (browser = b)), { ATTENDANCE_SWEEP_MS: '3600000', CLOCK_MIN_INTERVAL_SECONDS: '0' });
  const db = () => server.app.platform.db;
  let ana: Awaited<ReturnType<typeof createWorker>>;

  test('a manager approves a worker (refused first, in words), locks the period, exports the locked days and unlocks with a reason', async () => {
    const manager = await managerToken(server.app);
    const sites = await call(server.app, 'GET', '/api/managers/sites', { token: manager });
    const home = sites.body.find((s: { is_default: boolean }) => s.is_default);
    assert.equal((await call(server.app, 'PATCH', `/api/managers/sites/${home.id}`, { token: manager, body: { fence: circle(40.0, -3.7, 100) } })).status, 200);
    const site = await createSite(server.app, manager, circle(CENTRE.latitude, CENTRE.longitude, 100), 'North yard');
    const { id: qr } = await createQr(server.app, manager, { name: 'Gate A', siteId: site.id });
    ana = await createWorker(server.app, manager, { username: 'ana.field', fullName: 'Ana Field' });
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
    // The menu counts it; the Exceptions inbox lists it, and it is reviewed there.
    await page.goto(`${server.base}/clock/manager/exceptions`);
    await page.getByRole('menuitem', { name: 'Exceptions 1 waits for a decision' }).waitFor();
    await page.getByRole('tab', { name: 'Automatic clock-outs (1)' }).click();
    const autos = page.getByRole('row', { name: /Ana Field/ });
    await autos.getByText('The last position inside the fence').or(autos.getByText('The limit (work rules or closing time)')).first().waitFor();
    await settled(page);
    await screenshot(page, 'clock-periods-auto-clock-outs-en-US');
    await autos.getByRole('button', { name: /^Mark reviewed: Ana Field/ }).click();
    await page.getByText('Marked reviewed.').waitFor();
    await page.getByText('No automatic clock-out waits for review.').waitFor();
    const reviewed = await db().query<{ n: number }>('SELECT count(*)::int AS n FROM timeclock.clock_events WHERE id = $1 AND reviewed_at IS NOT NULL', [auto]);
    assert.equal(reviewed[0]!.n, 1);
    await page.getByRole('tab', { name: 'Compliance' }).click();
    await page.getByRole('row', { name: /Ana Field/ }).getByText('Over the daily maximum').waitFor();
    await settled(page);
    await screenshot(page, 'clock-periods-compliance-en-US');
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
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, ['POST /api/managers/timesheets/' + ana.id + '/approve 409']);
    await w.context.close();
  });

  test('on a phone the worker reads, at the opening, the reminder to clock out and the automatic clock-out in words, then marked read', async () => {
    await db().query(`INSERT INTO timeclock.notifications (user_id, kind, data) VALUES
      ($1, 'clock_reminder', $2::jsonb), ($1, 'auto_clock_out', $3::jsonb)`,
    [ana.id, JSON.stringify({ reason: 'site_closed', sessionStart: at(D1, '08:00') }), JSON.stringify({ closedAt: at(D1, '20:00'), basis: 'limit' })]);
    const w = await newPage(browser, 'en-US', { ...PHONE, timezoneId: 'UTC' });
    const { page } = w;
    await signInClock(page, server.base, ana.username, ana.password);
    const decisions = page.getByTestId('decisions');
    await decisions.getByText(/^The site has closed but you are still clocked in \(since .*08:00 AM\)\. If you stopped working, clock out\./).waitFor();
    await decisions.getByText(/^You forgot to clock out: your session was closed automatically at .*08:00 PM \(the longest a session may stay open\)\./).waitFor();
    await settled(page);
    await screenshot(page, 'clock-periods-worker-notices-en-US');
    assert.ok(await page.evaluate<number>('document.documentElement.scrollWidth') <= 390);
    let unread = 2;
    for (let i = 0; i < 100 && unread > 0; i += 1) {
      unread = Number((await db().query<{ n: number }>('SELECT count(*)::int AS n FROM timeclock.notifications WHERE user_id = $1 AND read_at IS NULL', [ana.id]))[0]!.n);
      if (unread > 0) await page.waitForTimeout(50);
    }
    assert.equal(unread, 0, 'shown: read');
    assert.deepEqual(w.errors, []);
    await w.context.close();
  });
});
