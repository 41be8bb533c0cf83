// The worker app of the time clock (/clock/) in Chromium at phone size, against the real server:
// sign-in binds the phone and a second phone is refused with the explanation; signed out, a page
// of the app leads to sign-in and back; clock-in with the site's QR code shown to a fake camera (a
// Y4M video made here from the code's modules) at a position set by the test: the clock screen
// reads the code before the tap, which only sends; the camera waits for a first tap when the
// browser would ask for it, and stops when the page is hidden and after a minute without a tap;
// without a camera, a photo of the code; a refusal outside the fence with the distance; an
// offline clock-out kept on the phone, shown as waiting, surviving a reload while offline, and
// sent exactly once when the network returns; a server error said and the punch kept, then
// recorded once; targets of at least 44 px; history and security screens, shown offline as last
// loaded, with its time; both languages.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import QRCode from 'qrcode';
import { browserSkip, launchBrowser, newPage, PHONE, screenshot, signInClock, startConsole, waitUntil, type ConsoleServer, type Watched } from '../helpers/browser.ts';
import { qrVideo } from '../helpers/camera.ts';
import { call } from '../helpers/http.ts';
import { circle, createWorker, managerToken, siteWithQr } from '../helpers/timeclock.ts';

const METRES_PER_DEGREE = (2 * Math.PI * 6_371_008.8) / 360;

describe('time clock: the worker app', { skip: browserSkip() }, () => {
  let browser: Browser;
  let server: ConsoleServer;
  let manager: string;
  let site: Awaited<ReturnType<typeof siteWithQr>>;
  let dir: string;
  // Phones report an accuracy radius; 0 (Playwright's default) is flagged as implausible.
  const inside = () => ({ latitude: site.center.latitude + 20 / METRES_PER_DEGREE, longitude: site.center.longitude, accuracy: 8 });

  before(async () => {
    server = await startConsole();
    manager = await managerToken(server.app);
    site = await siteWithQr(server.app, manager, circle(48.8566, 2.3522, 100));
    dir = mkdtempSync(path.join(tmpdir(), 'clock-camera-'));
    const video = path.join(dir, 'qr.y4m');
    writeFileSync(video, qrVideo(site.qr));
    browser = await launchBrowser(['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-video-capture=${video}`]);
  });
  after(async () => {
    await browser?.close();
    await server?.app.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /**
   * A phone at `position` with a worker signed in; geolocation and, unless `camera` is false, the
   * camera allowed beforehand. `clock`: the page's time is the test's to move forward.
   */
  async function phone(language: string, worker: { username: string; password: string }, position = inside(), { camera = true, clock = false } = {}): Promise<Watched> {
    const w = await newPage(browser, language, { ...PHONE, geolocation: position, permissions: camera ? ['geolocation', 'camera'] : ['geolocation'] });
    if (clock) await w.page.clock.install();
    await signInClock(w.page, server.base, worker.username, worker.password);
    await w.page.getByTestId('clock-state').waitFor();
    return w;
  }

  /** The big button once it says the site's code is read (and the position known). */
  const ready = (page: Page, name: string) => page.getByRole('button', { name }).and(page.locator('[data-ready]'));
  const cameraOn = (page: Page) => page.evaluate<boolean>(`document.querySelector('.viewfinder video').srcObject !== null`);
  /** The page hidden (another app in front) or shown again, as the browser reports it. */
  const show = (page: Page, visible: boolean) => page.evaluate(`Object.defineProperty(document, 'visibilityState', { value: '${visible ? 'visible' : 'hidden'}', configurable: true });
    document.dispatchEvent(new Event('visibilitychange'))`);

  const history = async (userId: number) => (await call(server.app, 'GET', `/api/worker/clock-history/${userId}`, { token: manager })).body as {
    event_type: string; clientEventId: string | null; siteName: string | null; capturedAt: string | null;
  }[];

  test('a worker signs in on a phone (bound to it); another phone is refused with what to do', async () => {
    const worker = await createWorker(server.app, manager, { fullName: 'Ada Field' });
    const w = await phone('en-US', worker);
    await w.page.getByText('Ada Field').waitFor();
    await w.page.getByText('Clocked out', { exact: true }).waitFor();
    await w.page.getByRole('button', { name: 'Clock in' }).waitFor();
    await w.page.getByText(/Location sharing is off/).waitFor();
    await screenshot(w.page, 'clock-worker-start-en');
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, []);

    const other = await newPage(browser, 'zh-CN', PHONE);
    await signInClock(other.page, server.base, worker.username, worker.password);
    await other.page.getByRole('alert').getByText(/另一部手机|another phone/).waitFor();
    const text = await other.page.getByRole('alert').textContent();
    await screenshot(other.page, 'clock-worker-other-phone-zh');
    await other.context.close();
    const en = await newPage(browser, 'en-US', PHONE);
    await signInClock(en.page, server.base, worker.username, worker.password);
    await en.page.getByRole('alert').getByText('This account is bound to another phone. Ask your manager to reset the device binding, then sign in here.').waitFor();
    assert.deepEqual(en.failed, ['POST /api/auth/login 403']);
    assert.ok(text && text.length > 5, String(text));
    await en.context.close();
    await w.context.close();
  });

  test('signed out, a page of the app leads to sign-in, which leads back to it', async () => {
    const worker = await createWorker(server.app, manager);
    const w = await newPage(browser, 'en-US', PHONE);
    await signInClock(w.page, server.base, worker.username, worker.password, '/clock/security');
    await w.page.getByRole('heading', { name: 'Security status' }).waitFor();
    assert.equal(new URL(w.page.url()).pathname, '/clock/security');
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, []);
    await w.context.close();
  });

  test('clock-in with the site’s QR code read before the tap, which only sends; then a refusal outside the fence with the distance', async () => {
    const worker = await createWorker(server.app, manager);
    const w = await phone('en-US', worker);
    await ready(w.page, 'Clock in').getByText('Site code read: tap to send').waitFor();
    await w.page.getByText('Position: ±8 m').waitFor();
    await screenshot(w.page, 'clock-worker-ready-en');
    await ready(w.page, 'Clock in').click();
    await w.page.getByText(/^Clocked in at \d/).waitFor();
    await w.page.getByText('Clocked in', { exact: true }).waitFor();
    await w.page.getByRole('button', { name: 'Clock out' }).waitFor();
    const [event] = await history(worker.id);
    assert.equal(event?.event_type, 'clock_in');
    assert.ok(event.clientEventId, 'sent with a client event id');
    await w.page.getByText(`at ${event.siteName}`).waitFor();
    // Location sharing is on while clocked in: one update was sent at once.
    await w.page.getByText(/Location sharing is on/).waitFor();
    await w.page.getByText(/Last sent/).waitFor();
    await screenshot(w.page, 'clock-worker-clocked-in-en');

    // 400 m north of the centre: 300 m outside the 100 m circle.
    await w.context.setGeolocation({ latitude: site.center.latitude + 400 / METRES_PER_DEGREE, longitude: site.center.longitude, accuracy: 8 });
    await w.page.getByRole('button', { name: 'Clock out' }).click();
    const refusal = w.page.getByRole('alert').filter({ hasText: /m outside the site’s area/ });
    await refusal.waitFor();
    const metres = Number(/(\d+) m outside/.exec((await refusal.textContent()) ?? '')?.[1]);
    assert.ok(Math.abs(metres - 300) <= 2, String(metres));
    await screenshot(w.page, 'clock-worker-outside-en');
    await w.page.getByText('Clocked in', { exact: true }).waitFor();
    assert.deepEqual((await history(worker.id)).map((e) => e.event_type), ['clock_in']);
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, ['POST /api/clock 403']);
    await w.context.close();
  });

  test('a double tap records one punch: the button shows the confirmation, and the opposite punch needs the code read again', async () => {
    for (const [language, clockIn, clockOut, recorded, again] of [
      ['en-US', 'Clock in', 'Clock out', 'Clock-in recorded', 'For the next punch, the code is read again'],
      ['zh-CN', '上班打卡', '下班打卡', '上班打卡已记录', '下次打卡需重新识别二维码'],
    ] as const) {
      const worker = await createWorker(server.app, manager);
      const w = await phone(language, worker, inside(), { clock: true });
      const sent: string[] = [];
      w.page.on('request', (r) => { if (r.method() === 'POST' && r.url().endsWith('/api/clock')) sent.push(r.url()); });
      const button = ready(w.page, clockIn);
      await button.waitFor();
      const box = (await button.boundingBox())!;
      // Two taps 150 ms apart where the thumb is, whatever the button shows by then.
      await w.page.touchscreen.tap(box.x + box.width / 2, box.y + box.height / 2);
      await w.page.waitForTimeout(150);
      await w.page.touchscreen.tap(box.x + box.width / 2, box.y + box.height / 2);
      const confirmed = w.page.getByTestId('confirmed');
      await confirmed.getByText(recorded).waitFor();
      await confirmed.getByText(again).waitFor();
      assert.equal(await confirmed.isDisabled(), true);
      await screenshot(w.page, `clock-worker-confirmed-${language}`);
      // More taps while it is shown do nothing; then the code read afresh makes the button ready.
      await w.page.touchscreen.tap(box.x + box.width / 2, box.y + box.height / 2);
      await w.page.clock.fastForward(6_000);
      await ready(w.page, clockOut).waitFor();
      assert.deepEqual((await history(worker.id)).map((e) => e.event_type), ['clock_in']);
      assert.equal(sent.length, 1, 'one punch sent');
      assert.deepEqual(w.errors, []);
      assert.deepEqual(w.failed, []);
      await w.context.close();
    }
  });

  test('the clock screen’s targets are big enough for a thumb: the big button spans the screen, nothing is under 44 px', async () => {
    const worker = await createWorker(server.app, manager);
    const w = await phone('en-US', worker);
    await ready(w.page, 'Clock in').waitFor();
    const big = await ready(w.page, 'Clock in').boundingBox();
    // 390 px wide phone, 17 px margins: the button spans the content (356 px), about 2.5 cm high.
    assert.ok(big && big.width >= 350 && big.height >= 96, JSON.stringify(big));
    // Every control on the screen (the header's, the navigation's, the photo's, tracking's): at
    // least 44 × 44 CSS px (WCAG 2.5.5).
    const controls = `[...document.querySelectorAll('button, a, label.photo')].filter((e) => e.getClientRects().length > 0)
      .map((e) => { const r = e.getBoundingClientRect(); return { name: (e.textContent || e.getAttribute('aria-label') || e.className).trim(), width: Math.round(r.width), height: Math.round(r.height) }; })`;
    const all = await w.page.evaluate<{ name: string; width: number; height: number }[]>(controls);
    assert.ok(all.length >= 7, JSON.stringify(all));
    assert.deepEqual(all.filter((c) => c.width < 44 || c.height < 44), [], JSON.stringify(all));
    // Clocked in: the tracking button and the notices' buttons too.
    await ready(w.page, 'Clock in').click();
    await w.page.getByText(/^Clocked in at \d/).waitFor();
    await w.page.getByRole('button', { name: 'Send my position now' }).waitFor();
    assert.deepEqual((await w.page.evaluate<{ name: string; width: number; height: number }[]>(controls)).filter((c) => c.width < 44 || c.height < 44), []);
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, []);
    await w.context.close();
  });

  test('a server error keeps the punch on the phone and says so; sent again, it is recorded once', async () => {
    const worker = await createWorker(server.app, manager);
    // Service workers blocked: the test answers the app's requests in place of the server.
    const w = await newPage(browser, 'en-US', { ...PHONE, geolocation: inside(), permissions: ['geolocation', 'camera'], serviceWorkers: 'block' });
    await signInClock(w.page, server.base, worker.username, worker.password);
    await ready(w.page, 'Clock in').waitFor();

    // A 500 before the server saw the punch.
    await w.page.route('**/api/clock', (route) => route.fulfill({
      status: 500, contentType: 'application/json', body: JSON.stringify({ message: 'Internal server error', code: 'INTERNAL_ERROR', details: {} }),
    }));
    await ready(w.page, 'Clock in').click();
    await w.page.getByText(/^The server could not take it just now: your clock-in \(.+\) is kept on this phone and will be sent again automatically\./).waitFor();
    await w.page.getByRole('heading', { name: 'Waiting to send' }).waitFor();
    await w.page.getByText('Clocked in', { exact: true }).waitFor();
    await screenshot(w.page, 'clock-worker-server-error-en');
    assert.deepEqual(await history(worker.id), [], 'nothing recorded');

    // A 502 from a proxy after the server recorded it: the answer is lost, the punch still waits.
    await w.page.unrouteAll();
    await w.page.route('**/api/clock', async (route) => {
      await route.fetch();
      await route.fulfill({ status: 502, contentType: 'text/html', body: '<h1>Bad gateway</h1>' });
    });
    // Listened for before the tap: the 502 can come back before a listener set after it.
    const badGateway = w.page.waitForResponse((r) => r.url().endsWith('/api/clock') && r.status() === 502);
    await w.page.getByRole('button', { name: 'Send now' }).click();
    await waitUntil(w.page, `document.querySelector('.waiting') !== null`);
    await badGateway;
    await w.page.getByRole('heading', { name: 'Waiting to send' }).waitFor();
    assert.deepEqual((await history(worker.id)).map((e) => e.event_type), ['clock_in']);

    // The server answers again: the punch is sent once more and recorded only once.
    await w.page.unrouteAll();
    await w.page.getByRole('button', { name: 'Send now' }).click();
    await w.page.getByText(/Your clock-in of .+ has been sent\./).waitFor();
    await w.page.getByRole('heading', { name: 'Waiting to send' }).waitFor({ state: 'detached' });
    await w.page.getByText('Clocked in', { exact: true }).waitFor();
    assert.deepEqual((await history(worker.id)).map((e) => e.event_type), ['clock_in']);
    assert.deepEqual(w.errors, []);
    // Each answered as the test said (the app may have retried meanwhile).
    assert.deepEqual([...new Set(w.failed)], ['POST /api/clock 500', 'POST /api/clock 502']);
    await w.context.close();
  });

  test('when the browser would ask for the camera, it starts on the first tap, which waits for the code and then sends', async () => {
    const worker = await createWorker(server.app, manager);
    const w = await phone('zh-CN', worker, inside(), { camera: false });
    await w.page.getByRole('button', { name: '点按开启摄像头' }).waitFor();
    await w.page.getByRole('button', { name: '上班打卡' }).waitFor();
    assert.equal(await cameraOn(w.page), false);
    await screenshot(w.page, 'clock-worker-camera-off-zh');
    await w.page.getByRole('button', { name: '上班打卡' }).click();
    await w.page.getByText(/^已于 .* 上班打卡/).waitFor();
    assert.equal(await cameraOn(w.page), true);
    assert.deepEqual((await history(worker.id)).map((e) => e.event_type), ['clock_in']);
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, []);
    await w.context.close();
  });

  test('without a camera, the worker is told so and a photo of the code does', async () => {
    const worker = await createWorker(server.app, manager);
    const w = await newPage(browser, 'en-US', { ...PHONE, geolocation: inside(), permissions: ['geolocation', 'camera'] });
    await w.page.addInitScript(`navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException('Permission denied', 'NotAllowedError'))`);
    await signInClock(w.page, server.base, worker.username, worker.password);
    await w.page.getByText('The camera is not available or not allowed. Take a photo of the code instead.').waitFor();
    await screenshot(w.page, 'clock-worker-no-camera-en');
    await w.page.getByLabel('Take a photo of the code').setInputFiles({ name: 'code.png', mimeType: 'image/png', buffer: await QRCode.toBuffer(site.qr, { scale: 8 }) });
    await ready(w.page, 'Clock in').click();
    await w.page.getByText(/^Clocked in at \d/).waitFor();
    assert.deepEqual((await history(worker.id)).map((e) => e.event_type), ['clock_in']);
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, []);
    await w.context.close();
  });

  test('the camera stops while the page is hidden and after a minute without a tap, then starts again on a tap', async () => {
    const worker = await createWorker(server.app, manager);
    const w = await phone('en-US', worker, inside(), { clock: true });
    await ready(w.page, 'Clock in').waitFor();
    assert.equal(await cameraOn(w.page), true);

    await show(w.page, false);
    await waitUntil(w.page, `document.querySelector('.viewfinder video').srcObject === null`);
    await show(w.page, true);
    await ready(w.page, 'Clock in').waitFor();

    await w.page.clock.fastForward(61_000);
    await w.page.getByRole('button', { name: 'Tap to turn the camera on' }).waitFor();
    assert.equal(await cameraOn(w.page), false);
    assert.equal(await w.page.locator('[data-ready]').count(), 0, 'a code read before is not used once the camera is off');
    await screenshot(w.page, 'clock-worker-camera-idle-en');
    await w.page.getByRole('button', { name: 'Tap to turn the camera on' }).click();
    await ready(w.page, 'Clock in').click();
    await w.page.getByText(/^Clocked in at \d/).waitFor();
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, []);
    await w.context.close();
  });

  test('offline clock-out: kept on the phone, shown as waiting, survives a reload while offline, sent exactly once when back online', async () => {
    const worker = await createWorker(server.app, manager);
    const w = await phone('zh-CN', worker);
    // The service worker (the app shell for offline starts) is active before the network goes.
    await waitUntil(w.page, 'navigator.serviceWorker.controller !== null', 90_000);
    await w.page.getByRole('button', { name: '上班打卡' }).click();
    await w.page.getByText(/^已于 .* 上班打卡/).waitFor();
    await screenshot(w.page, 'clock-worker-clocked-in-zh');

    await w.context.setOffline(true);
    await w.page.getByRole('button', { name: '下班打卡' }).click();
    await w.page.getByText(/无网络：您的下班打卡.*已保存在本机/).waitFor();
    await w.page.getByRole('heading', { name: '等待发送' }).waitFor();
    await w.page.getByText('等待发送——按已发送显示').waitFor();
    await w.page.getByText('已下班', { exact: true }).waitFor();
    // The button reflects the queued clock-out: the next action is a clock-in.
    await w.page.getByRole('button', { name: '上班打卡' }).waitFor();
    await screenshot(w.page, 'clock-worker-waiting-zh');

    await w.page.reload();
    await w.page.getByRole('heading', { name: '等待发送' }).waitFor();
    await w.page.getByText(/下班打卡 \d/).waitFor();
    await w.page.getByRole('button', { name: '上班打卡' }).waitFor();
    assert.deepEqual((await history(worker.id)).map((e) => e.event_type), ['clock_in'], 'nothing arrived while offline');

    await w.context.setOffline(false);
    await w.page.getByText(/下班打卡已发送/).waitFor();
    await w.page.getByRole('heading', { name: '等待发送' }).waitFor({ state: 'detached' });
    await w.page.getByText('已下班', { exact: true }).waitFor();
    await screenshot(w.page, 'clock-worker-sent-zh');
    const events = await history(worker.id);
    assert.deepEqual(events.map((e) => e.event_type), ['clock_out', 'clock_in']);
    assert.ok(events[0]!.capturedAt, 'recorded at its capture time');
    // Once more online (a later retry, another reload): still exactly one clock-out.
    await w.page.reload();
    await w.page.getByText('已下班', { exact: true }).waitFor();
    await w.page.getByRole('button', { name: '上班打卡' }).waitFor();
    assert.equal((await history(worker.id)).filter((e) => e.event_type === 'clock_out').length, 1);
    assert.deepEqual(w.errors, []);
    // Only requests made while offline failed (no answer), none answered with an error.
    assert.deepEqual(w.failed.filter((f) => !f.endsWith(' failed')), []);
    await w.context.close();
  });

  test('without a network, history and security show what was last loaded, marked with its time', async () => {
    const worker = await createWorker(server.app, manager);
    const w = await phone('en-US', worker);
    await waitUntil(w.page, 'navigator.serviceWorker.controller !== null', 90_000);
    await w.page.getByRole('button', { name: 'Clock in' }).click();
    await w.page.getByText(/^Clocked in at \d/).waitFor();
    const nav = w.page.getByRole('navigation');
    const [event] = await history(worker.id);
    const punch = w.page.getByText(new RegExp(`${event!.siteName} · QR `));
    const asOf = w.page.getByTestId('as-of');
    // Online: the server's answer, nothing to mark.
    await nav.getByRole('link', { name: 'History' }).click();
    await punch.waitFor();
    await asOf.waitFor({ state: 'detached' });
    await nav.getByRole('link', { name: 'Security' }).click();
    await w.page.getByTestId('risk-level').getByText('All good').waitFor();
    await asOf.waitFor({ state: 'detached' });

    // Offline, even after a reload: the copy kept on this phone, as of when it was loaded.
    await w.context.setOffline(true);
    await w.page.reload();
    await w.page.getByTestId('risk-level').getByText('All good').waitFor();
    await asOf.getByText(/^As of \d\d:\d\d( [AP]M)? \(kept on this phone\)\. Not updated: No connection/).waitFor();
    await nav.getByRole('link', { name: 'History' }).click();
    await punch.waitFor();
    await asOf.getByText(/^As of \d\d:\d\d( [AP]M)? \(kept on this phone\)\. Not updated: No connection/).waitFor();
    await screenshot(w.page, 'clock-worker-history-offline-en');
    await w.page.getByRole('button', { name: '中文' }).click();
    await w.page.getByRole('heading', { name: '我的打卡' }).waitFor();
    await asOf.getByText(/^截至 \d\d:\d\d（本机保存）。未能更新：无法连接服务器/).waitFor();
    await screenshot(w.page, 'clock-worker-history-offline-zh');

    // Online again: the server's answer replaces the copy.
    await w.context.setOffline(false);
    await w.page.reload();
    await punch.waitFor();
    await asOf.waitFor({ state: 'detached' });
    // Signing out forgets the copies: the phone keeps nobody's history.
    await w.page.getByRole('button', { name: '退出登录' }).click();
    await w.page.getByRole('button', { name: '登录' }).waitFor();
    assert.equal(await w.page.evaluate<number>(`Object.keys(localStorage).filter((k) => k.startsWith('fieldops.clock.cache.')).length`), 0);
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed.filter((f) => !f.endsWith(' failed')), []);
    await w.context.close();
  });

  test('my hours: today and this week on the clock screen, each session’s length and each day’s and week’s paid hours in the history, in both languages', async () => {
    const worker = await createWorker(server.app, manager);
    // A session of 2 h 05 min that ended ten minutes ago, recorded as the clock route records punches.
    const end = Date.now() - 10 * 60_000;
    const start = end - (2 * 60 + 5) * 60_000;
    for (const [type, at] of [['clock_in', start], ['clock_out', end]] as const) {
      await server.app.platform.db.query(
        `INSERT INTO timeclock.clock_events (user_id, event_type, qr_code_id, site_id, latitude, longitude, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [worker.id, type, site.qr, site.siteId, site.center.latitude, site.center.longitude, new Date(at).toISOString()],
      );
    }
    const w = await phone('en-US', worker);
    const hours = w.page.getByTestId('my-hours');
    // Today is the day of the clock-in (a run just after midnight puts it on yesterday: then today is 0:00).
    const sameDay = new Date(start).toDateString() === new Date().toDateString();
    await hours.getByText(sameDay ? '2:05' : '0:00').first().waitFor();
    await hours.getByText('This week').waitFor();
    assert.match((await hours.textContent()) ?? '', /^Today \d+:\d\dThis week \d+:\d\d$/);
    await screenshot(w.page, 'clock-worker-hours-en');
    await w.page.getByRole('navigation').getByRole('link', { name: 'History' }).click();
    await w.page.getByRole('heading', { name: 'My punches' }).waitFor();
    await w.page.locator('li.out .length').getByText('2:05').waitFor();
    await w.page.locator('.day-total').getByText('2:05 paid').waitFor();
    await w.page.locator('.week-total').getByText('2:05').waitFor();
    await screenshot(w.page, 'clock-worker-history-hours-en');
    await w.page.getByRole('button', { name: '中文' }).click();
    await w.page.locator('.day-total').getByText('计薪 2:05').waitFor();
    await w.page.getByRole('navigation').getByRole('link', { name: '打卡' }).click();
    await w.page.getByTestId('my-hours').getByText('本周').waitFor();
    await screenshot(w.page, 'clock-worker-hours-zh');
    const overflow = await w.page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    assert.equal(overflow, 0, 'nothing wider than the phone');
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, []);
    await w.context.close();
  });

  test('history and security screens, reachable from the bottom navigation, in both languages', async () => {
    const worker = await createWorker(server.app, manager);
    const w = await phone('en-US', worker);
    await w.page.getByRole('button', { name: 'Clock in' }).click();
    await w.page.getByText(/^Clocked in at \d/).waitFor();
    const nav = w.page.getByRole('navigation');
    await nav.getByRole('link', { name: 'History' }).click();
    await w.page.getByRole('heading', { name: 'My punches' }).waitFor();
    const [event] = await history(worker.id);
    await w.page.getByText(new RegExp(`${event!.siteName} · QR `)).waitFor();
    await screenshot(w.page, 'clock-worker-history-en');
    await nav.getByRole('link', { name: 'Security' }).click();
    await w.page.getByRole('heading', { name: 'Security status' }).waitFor();
    await w.page.getByTestId('risk-level').getByText('All good').waitFor();
    await w.page.getByText('No alerts in the last 7 days.').waitFor();
    await screenshot(w.page, 'clock-worker-security-en');
    await w.page.getByRole('button', { name: '中文' }).click();
    await w.page.getByRole('heading', { name: '安全状态' }).waitFor();
    await screenshot(w.page, 'clock-worker-security-zh');
    await nav.getByRole('link', { name: '记录' }).click();
    await w.page.getByRole('heading', { name: '我的打卡' }).waitFor();
    await screenshot(w.page, 'clock-worker-history-zh');
    await nav.getByRole('link', { name: '打卡' }).click();
    await w.page.getByRole('button', { name: '下班打卡' }).waitFor();
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, []);
    await w.context.close();
  });
});
