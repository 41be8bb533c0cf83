// The time-clock worker app (/clock/) in Chromium at phone size, against the real server in this
// process (bench/clock.ts is the API's own load benchmark):
//   (1) the JavaScript transferred before the clock screen is interactive (sign-in, then the
//       "Clock in" button usable), compressed as the server sends it (budget 150 KB; the QR
//       decoder loads with the camera, in its worker, after that);
//   (2) with BENCH_LATENCY_MS (40) of network latency added to the page's requests, a tap on
//       "Clock in" (the site's QR code in front of the fake camera, the position known, set by the
//       browser): the time from the answer of POST /api/clock arriving in the page until the
//       confirmation is painted (target <= 30 ms), and the whole as a ratio to the request's own
//       length; median of BENCH_ROUNDS (7). The clock screen reads
//       the code and follows the position while it is open, so the tap is timed once the button
//       says the code is read: it only queues the punch (IndexedDB) and sends it.
// PGlite by default; BENCH_DATABASE_URL for PostgreSQL (a fresh database next to it, dropped at the end).
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../test/helpers/browser.ts';
import { qrVideo } from '../test/helpers/camera.ts';
import { acceptGivenPassword } from '../test/helpers/timeclock.ts';
import { addLatency, browserBenchServer, fmt, reportAction, timedAction, type ActionTiming } from './lib.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const BUDGET_KB = 150;
const TARGET_MS = 30;
const PASSWORD = 'Bench-pass-123';

const bench = await browserBenchServer('clockapp', {
  ADMIN_PASSWORD: PASSWORD,
  MANAGER_PASSWORD: PASSWORD,
  TIMECLOCK_RATE_LIMIT_AUTH: '100000',
  TIMECLOCK_RATE_LIMIT_CLOCK: '100000',
  // The worker is clocked out through the API right after each timed clock-in.
  CLOCK_MIN_INTERVAL_SECONDS: '0',
});
const { server, base, dataDir } = bench;

let browser: Browser | undefined;
try {
  const api = async (method: string, url: string, token: string | null, body?: unknown) => {
    const res = await fetch(base + url, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const login = async (username: string, deviceUuid: string) =>
    (await api('POST', '/api/auth/login', null, { username, password: PASSWORD, deviceUuid })).token as string;

  // A site with a 100 m circle, its QR code, a worker.
  const manager = await login('manager', `web-${randomUUID()}`);
  const center = { latitude: 48.8566, longitude: 2.3522 };
  const site = await api('POST', '/api/managers/sites', manager, { name: 'Bench site', fence: { type: 'circle', center, radiusMetres: 100 } });
  const qr = (await api('POST', '/api/managers/qr-codes', manager, { name: 'Gate', siteId: site.id })).id as string;
  const worker = await api('POST', '/api/managers/workers', manager, { username: 'benchworker', password: PASSWORD, fullName: 'Bench Worker' });
  const userId = worker.id as number;
  // The password the manager gave is taken as the worker's own: the measured sign-in goes
  // straight to the clock, not through the first sign-in's change of password.
  await acceptGivenPassword(server, 'benchworker');

  const video = path.join(dataDir, 'qr.y4m');
  writeFileSync(video, qrVideo(qr));
  browser = await launchBrowser(['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-video-capture=${video}`]);
  console.log(`# time-clock worker app benchmark (${server.platform.db.kind}, Node ${process.versions.node}, ${availableParallelism()} cores, Chromium)`);

  // (1) JavaScript before the clock screen is interactive, from a fresh phone: the sign-in page,
  // then the worker app's chunk.
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale: 'en-US',
    geolocation: { ...center, accuracy: 8 }, permissions: ['geolocation', 'camera'],
    // The service worker would fetch every file of the build in the background and answer the
    // page's requests from its cache (sizes unknown there): the page's own downloads are measured.
    serviceWorkers: 'block',
  });
  const page = await context.newPage();
  // When the "Clock in" button is first in the page: what was requested after it (the QR
  // decoder, fetched when the camera starts) is not counted.
  await page.addInitScript(`new MutationObserver((_, o) => {
    if (![...document.querySelectorAll('button')].some((b) => b.textContent?.startsWith('Clock in'))) return;
    window.__interactiveAt = performance.now();
    o.disconnect();
  }).observe(document, { childList: true, subtree: true })`);
  await page.goto(`${base}/clock/login`);
  await page.getByLabel('Username').fill('benchworker');
  await page.getByLabel('Password').fill(PASSWORD);
  // The app keeps its token out of reach of scripts: the bench reads it from the sign-in's answer.
  const signedIn = page.waitForResponse((r) => r.url().endsWith('/api/auth/login') && r.ok());
  await page.getByRole('button', { name: 'Sign in' }).click();
  const token = ((await (await signedIn).json()) as { token: string }).token;
  await page.getByRole('button', { name: 'Clock in' }).waitFor();
  // (Strings: these run in the page, whose DOM types the server's program does not have.)
  const scripts = await page.evaluate<{ name: string; bytes: number }[]>(`performance.getEntriesByType('resource')
    .filter((e) => (e.initiatorType === 'script' || e.name.endsWith('.js')) && e.startTime <= window.__interactiveAt)
    .map((e) => ({ name: e.name, bytes: e.encodedBodySize }))`);
  // The same files gzipped (the budget's measure; Chromium took Brotli).
  const gzipped = async (url: string) => new Promise<number>((resolve, reject) => {
    http.get(url, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
      let n = 0;
      res.on('data', (c: Buffer) => (n += c.length)).on('end', () => resolve(n)).on('error', reject);
    }).on('error', reject);
  });
  const gz = await Promise.all(scripts.map((s) => gzipped(s.name)));
  const kb = gz.reduce((n, b) => n + b, 0) / 1024;
  const br = scripts.reduce((n, s) => n + s.bytes, 0) / 1024;
  console.log(`clock screen: ${scripts.length} scripts, ${fmt(kb, 1)} KB gzipped (${fmt(br, 1)} KB as sent, Brotli) before it is interactive (budget ${BUDGET_KB} KB) ${kb <= BUDGET_KB ? 'PASS' : 'OVER BUDGET'}`);
  scripts.forEach((s, i) => console.log(`  ${s.name.replace(base, '')}: ${fmt(gz[i]! / 1024, 1)} KB gzipped, ${fmt(s.bytes / 1024, 1)} KB Brotli`));

  // (2) Tap to confirmation. Each clock-in starts from clocked out: the
  // worker is clocked out again through the API (not timed) after each.
  const punch = (eventType: 'clock_in' | 'clock_out') => ({
    userId, eventType, qrCodeValue: qr, ...center, clientEventId: randomUUID(), capturedAt: new Date().toISOString(),
  });
  const reset = () => api('POST', '/api/clock', token, punch('clock_out'));
  await addLatency(page);
  const tap = async (): Promise<ActionTiming> => {
    await page.goto(`${base}/clock/`);
    // The code read and the position known: the button says so.
    await page.getByRole('button', { name: 'Clock in' }).and(page.locator('[data-ready]')).waitFor();
    return page.evaluate<ActionTiming>(timedAction(
      `document.querySelector('button[data-ready]').click()`,
      `[...document.querySelectorAll('.confirm')].some((p) => /^Clocked in at/.test(p.textContent || ''))`,
      '/api/clock$',
    ));
  };
  await tap(); // warm-up: the chunks and the decoder loaded, the database warm
  await reset();
  const rounds: ActionTiming[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    rounds.push(await tap());
    await reset();
  }
  reportAction('clock-in, a tap on "Clock in" until the confirmation is painted', rounds, TARGET_MS);
  await context.close();
} finally {
  await browser?.close();
  await bench.close();
}
