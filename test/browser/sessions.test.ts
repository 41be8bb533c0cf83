// Sessions of both web clients (issue 27, item 19): the access token lives in the page's memory
// only (no token in localStorage or sessionStorage, the refresh cookie unreadable by the page),
// a reload keeps the session through the HttpOnly refresh cookie, sign-out ends it for good, no
// sign-in page can be framed by another site, and the worker app, closed and reopened without a
// network, still sends its waiting punch once the network is back.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { adminPage, browserSkip, launchBrowser, newPage, onConsole, PHONE, screenshot, signInClock, startConsole, waitUntil, type ConsoleServer } from '../helpers/browser.ts';
import { qrVideo } from '../helpers/camera.ts';
import { call } from '../helpers/http.ts';
import { circle, createWorker, managerToken, siteWithQr } from '../helpers/timeclock.ts';

const METRES_PER_DEGREE = (2 * Math.PI * 6_371_008.8) / 360;
const JWT = /eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/;

/** Everything the page's script can read that outlives it: both storages and its cookies. */
const readable = (page: Page) => page.evaluate<{ local: Record<string, string>; session: Record<string, string>; cookies: string }>(`({
  local: Object.fromEntries(Object.keys(localStorage).map((k) => [k, localStorage.getItem(k)])),
  session: Object.fromEntries(Object.keys(sessionStorage).map((k) => [k, sessionStorage.getItem(k)])),
  cookies: document.cookie,
})`);

async function assertNoTokenReadable(page: Page, what: string): Promise<void> {
  const r = await readable(page);
  assert.doesNotMatch(JSON.stringify(r), JWT, `${what}: no token where the page's script could read it: ${JSON.stringify(r)}`);
  assert.deepEqual(r.session, {}, what);
  assert.equal(r.cookies, '', `${what}: the refresh cookie is HttpOnly`);
}

/** Another site framing `url`: Chromium must refuse to show it. */
async function assertNotFramed(browser: Browser, url: string, name: string): Promise<void> {
  const w = await newPage(browser);
  // A page of another origin (a data: URL is opaque) with our page in a frame.
  await w.page.setContent(`<h1>Another site</h1><iframe id="f" src="${url}" width="600" height="400"></iframe>`);
  const frame = await (await w.page.waitForSelector('#f')).contentFrame();
  // The frame is left empty (Chromium shows its own error page, not ours).
  await w.page.waitForFunction(() => true);
  const inside = frame ? await frame.evaluate<boolean>(`document.querySelector('#root') !== null`).catch(() => false) : false;
  assert.equal(inside, false, `${url} must not render inside another site's frame`);
  await screenshot(w.page, name);
  await w.context.close();
}

describe('sessions: the administration console', { skip: browserSkip() }, () => {
  let browser: Browser;
  let server: ConsoleServer;
  onConsole((s, b) => ((server = s), (browser = b)));

  test('a reload keeps the session (refresh cookie); no token is readable; sign-out ends it for good', async () => {
    const w = await adminPage(browser, server.base);
    await w.page.getByRole('tab', { name: 'Business', selected: true }).waitFor();
    await assertNoTokenReadable(w.page, 'signed in');
    const cookies = await w.context.cookies(`${server.base}/api/admin/refresh-token`);
    const refresh = cookies.find((c) => c.name === 'fieldops_admin_refresh');
    assert.ok(refresh, 'the refresh cookie is set');
    assert.equal(refresh.httpOnly, true);
    assert.equal(refresh.sameSite, 'Strict');
    assert.equal(refresh.path, '/api/admin/refresh-token');
    assert.equal((await w.context.cookies(`${server.base}/api/admin/info`)).length, 0, 'sent to the refresh route only');

    // A reload, and a new tab opened on a screen: still signed in.
    await w.page.goto(`${server.base}/system/admins`);
    await w.page.getByRole('link', { name: 'Administrators' }).waitFor();
    assert.equal(new URL(w.page.url()).pathname, '/system/admins');
    await w.page.reload();
    await w.page.getByText('Super Administrator').first().waitFor();
    assert.equal(new URL(w.page.url()).pathname, '/system/admins');
    await assertNoTokenReadable(w.page, 'after a reload');
    await screenshot(w.page, 'session-console-after-reload');

    // A new tab takes the session of the open one instead of refreshing it (a refresh would
    // rotate the token under the first tab's requests, refused then); both keep working.
    const second = await w.context.newPage();
    const refreshes: string[] = [];
    second.on('request', (req) => req.url().endsWith('/api/admin/refresh-token') && refreshes.push(req.url()));
    await second.goto(`${server.base}/dashboard`);
    await second.getByRole('tab', { name: 'Business', selected: true }).waitFor();
    assert.deepEqual(refreshes, [], 'the new tab asked the open one, not the refresh cookie');
    await w.page.getByRole('menuitem', { name: 'Dashboard' }).click();
    await w.page.getByRole('tab', { name: 'Business', selected: true }).waitFor();
    await second.close();

    await w.page.getByRole('button', { name: 'Profile' }).click();
    await w.page.getByRole('menuitem', { name: 'Sign out' }).click();
    await w.page.waitForURL(/\/login/);
    assert.equal((await w.context.cookies(`${server.base}/api/admin/refresh-token`)).length, 0, 'sign-out clears the cookie');
    await w.page.reload();
    await w.page.getByText('You have signed out.').waitFor();
    await w.page.goto(`${server.base}/system/admins`);
    await w.page.waitForURL(/\/login/);
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, []);
    await w.context.close();
  });

  test('the sign-in page cannot be framed by another site', async () => {
    await assertNotFramed(browser, `${server.base}/login`, 'session-console-framed');
  });

  test('the API reference page works under its policy', async () => {
    const w = await newPage(browser);
    await w.page.goto(`${server.base}/api/admin/docs`);
    await w.page.getByText('Back-office administration API').first().waitFor();
    await w.page.getByText(/POST\s*\/api\/admin\/login|Sign in with username/).first().waitFor();
    await screenshot(w.page, 'session-reference-page');
    assert.deepEqual(w.errors.filter((e) => /Content Security Policy|Refused to/.test(e)), []);
    await w.context.close();
  });
});

describe('sessions: the time-clock app', { skip: browserSkip() }, () => {
  let browser: Browser;
  let server: ConsoleServer;
  let manager: string;
  let site: Awaited<ReturnType<typeof siteWithQr>>;
  let dir: string;
  const inside = () => ({ latitude: site.center.latitude + 20 / METRES_PER_DEGREE, longitude: site.center.longitude, accuracy: 8 });

  before(async () => {
    server = await startConsole();
    manager = await managerToken(server.app);
    site = await siteWithQr(server.app, manager, circle(48.8566, 2.3522, 100));
    dir = mkdtempSync(path.join(tmpdir(), 'session-camera-'));
    const video = path.join(dir, 'qr.y4m');
    writeFileSync(video, qrVideo(site.qr));
    browser = await launchBrowser(['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-video-capture=${video}`]);
  });
  after(async () => {
    await browser?.close();
    await server?.app.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const history = async (userId: number) => (await call(server.app, 'GET', `/api/worker/clock-history/${userId}`, { token: manager })).body as { event_type: string }[];

  test('a worker stays signed in across a reload, with no token readable; the app closed offline and reopened sends its waiting punch once back online', async () => {
    const worker = await createWorker(server.app, manager, { fullName: 'Rey Reload' });
    const w = await newPage(browser, 'en-US', { ...PHONE, geolocation: inside(), permissions: ['geolocation', 'camera'] });
    await signInClock(w.page, server.base, worker.username, worker.password);
    await w.page.getByTestId('clock-state').waitFor();
    await assertNoTokenReadable(w.page, 'signed in');
    const refresh = (await w.context.cookies(`${server.base}/api/auth/refresh`)).find((c) => c.name === 'fieldops_clock_refresh');
    assert.ok(refresh?.httpOnly, 'an HttpOnly refresh cookie');
    assert.equal(refresh.path, '/api/auth/refresh');

    await w.page.reload();
    await w.page.getByText('Rey Reload').waitFor();
    await w.page.getByTestId('clock-state').waitFor();
    assert.equal(new URL(w.page.url()).pathname, '/clock/');
    await assertNoTokenReadable(w.page, 'after a reload');

    // Clocked in online; the service worker (the offline shell) is active.
    await waitUntil(w.page, 'navigator.serviceWorker.controller !== null', 90_000);
    await w.page.getByRole('button', { name: 'Clock in' }).and(w.page.locator('[data-ready]')).click();
    await w.page.getByText(/^Clocked in at/).waitFor();

    // Offline: the clock-out waits on the phone; then the app is closed.
    await w.context.setOffline(true);
    await w.page.getByRole('button', { name: 'Clock out' }).and(w.page.locator('[data-ready]')).click();
    await w.page.getByRole('heading', { name: 'Waiting to send' }).waitFor();
    await w.page.close();

    // Reopened, still offline: the app opens signed in (no token yet), with the punch waiting.
    const page = await w.context.newPage();
    await page.goto(`${server.base}/clock/`);
    await page.getByText('Rey Reload').waitFor();
    await page.getByRole('heading', { name: 'Waiting to send' }).waitFor();
    await screenshot(page, 'session-clock-reopened-offline');
    assert.deepEqual((await history(worker.id)).map((e) => e.event_type), ['clock_in'], 'nothing arrived while offline');
    await assertNoTokenReadable(page, 'reopened offline');

    // The network is back: a token from the refresh cookie, then the punch, exactly once.
    await w.context.setOffline(false);
    await page.getByRole('heading', { name: 'Waiting to send' }).waitFor({ state: 'detached' });
    await page.getByText('Clocked out', { exact: true }).waitFor();
    await screenshot(page, 'session-clock-sent-after-reopen');
    assert.deepEqual((await history(worker.id)).map((e) => e.event_type), ['clock_out', 'clock_in']);
    assert.deepEqual(w.errors, []);

    // Sign-out ends it for good: the cookie is cleared and a reload stays signed out.
    const loggedOut = page.waitForResponse((r) => r.url().endsWith('/api/auth/logout'));
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/clock\/login/);
    assert.equal((await loggedOut).status(), 204);
    assert.equal((await w.context.cookies(`${server.base}/api/auth/refresh`)).length, 0, 'sign-out clears the cookie');
    await page.goto(`${server.base}/clock/`);
    await page.waitForURL(/\/clock\/login/);
    await w.context.close();
  });

  test('a worker disabled while away is signed out on the next start (the cookie is refused)', async () => {
    const worker = await createWorker(server.app, manager);
    const w = await newPage(browser, 'en-US', { ...PHONE, geolocation: inside(), permissions: ['geolocation'] });
    await signInClock(w.page, server.base, worker.username, worker.password);
    await w.page.getByTestId('clock-state').waitFor();
    assert.equal((await call(server.app, 'PATCH', `/api/managers/workers/${worker.id}`, { token: manager, body: { status: 'disabled' } })).status, 200);
    await w.page.reload();
    await w.page.waitForURL(/\/clock\/login/);
    await w.page.getByText('Your session was ended. Please sign in again.').waitFor();
    await assertNoTokenReadable(w.page, 'signed out');
    assert.deepEqual(w.errors, []);
    await w.context.close();
  });

  test('the sign-in page cannot be framed by another site', async () => {
    await assertNotFramed(browser, `${server.base}/clock/login`, 'session-clock-framed');
  });
});
