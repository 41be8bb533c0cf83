// End-to-end tests of the browser clients: Debian's Chromium driven by playwright-core (no
// browser download), against the real server listening on a free port and serving the built
// console. Every page records its uncaught errors and the API requests that failed, so that a
// test can assert there were none it did not expect.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before } from 'node:test';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { running } from '../../src/platform/db/data-dir-lock.ts';
import type { ServerOptions } from '../../src/server.ts';
import { ADMIN_PASSWORD, startApp, type TestApp } from './app.ts';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const root = path.resolve(import.meta.dirname, '../..');
export const SCREENSHOTS = path.join(root, 'scratch', 'screenshots');

/** Why browser tests cannot run here, or false. They run in the PGlite pass only. */
export function browserSkip(): string | false {
  if (process.env.TEST_DATABASE_URL) return 'browser tests run in the PGlite pass';
  if (!existsSync(CHROMIUM)) return `needs Chromium at ${CHROMIUM} (apt-get install chromium)`;
  return false;
}

/** Headless Chromium; `args` adds flags (e.g. a fake camera playing a file). */
export async function launchBrowser(args: string[] = []): Promise<Browser> {
  const release = await browserSlot();
  try {
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', ...args],
    });
    browser.on('disconnected', release);
    return browser;
  } catch (err) {
    release();
    throw err;
  }
}

// Chromium is the heaviest thing the suite runs: four test files each driving one on a two-core
// machine made every one of them three to five times slower (and its waits time out). The run's
// test processes share TEST_BROWSER_SLOTS (2) slots, files under TEST_BROWSER_LOCKS (made by
// test/global-setup.ts) created exclusively with their owner's pid, taken over from a process
// that no longer runs, as the embedded database's folder lock does (data-dir-lock.ts).
// A process holding a slot launches further browsers without waiting (it would wait on itself).
let held = 0;
let heldLock: string | undefined;

async function browserSlot(): Promise<() => void> {
  const dir = process.env.TEST_BROWSER_LOCKS;
  if (!dir) return () => {};
  if (held === 0) heldLock = await takeSlot(dir, Number(process.env.TEST_BROWSER_SLOTS ?? 2));
  held += 1;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    held -= 1;
    if (held === 0 && heldLock) rmSync(heldLock, { force: true });
  };
}

async function takeSlot(dir: string, slots: number): Promise<string> {
  for (;;) {
    for (let i = 0; i < slots; i++) {
      const lock = path.join(dir, `slot-${i}`);
      try {
        writeFileSync(lock, `${process.pid}\n`, { flag: 'wx' });
        return lock;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const owner = Number.parseInt(readFileSync(lock, 'utf8'), 10);
        if (Number.isSafeInteger(owner) && !running(owner)) rmSync(lock, { force: true });
      }
    }
    await sleep(200);
  }
}

/** Builds the clients when their build is missing or stale (scripts/web.ts ensure): once, in test/global-setup.ts. */
export function ensureConsoleBuilt(): void {
  execFileSync(process.execPath, [path.join(root, 'scripts/web.ts'), 'ensure'], { cwd: root, stdio: 'inherit' });
}

export interface ConsoleServer {
  app: TestApp;
  base: string;
}

/** The real server on a free port, serving the console. */
export async function startConsole(overrides: Record<string, string> = {}, opts: ServerOptions = {}): Promise<ConsoleServer> {
  const app = await startApp(overrides, opts);
  await app.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.app.server.address() as { port: number };
  return { app, base: `http://127.0.0.1:${port}` };
}

/**
 * A describe block's console server and browser: started before its tests and closed after them;
 * `ready` receives both once started (a block's own `before`, registered after this, runs next);
 * `overrides`, the server's configuration beyond the tests' own.
 */
export function onConsole(ready: (server: ConsoleServer, browser: Browser) => void, overrides: Record<string, string> = {}): void {
  let server: ConsoleServer | undefined;
  let browser: Browser | undefined;
  before(async () => {
    server = await startConsole(overrides);
    browser = await launchBrowser();
    ready(server, browser);
  });
  after(async () => {
    await browser?.close();
    await server?.app.close();
  });
}

export interface Watched {
  page: Page;
  context: BrowserContext;
  /** Uncaught page errors and console errors. */
  errors: string[];
  /** API requests answered 4xx/5xx or not answered, as `METHOD path status`. */
  failed: string[];
}

/** How long one step (an action, a wait, a navigation) may take. */
export const STEP_TIMEOUT_MS = 90_000;

/** A phone, for the worker app (pass as `newPage`'s options). */
export const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

/** A new page in a fresh context (its own storage), watched for errors. */
export async function newPage(browser: Browser, language = 'en-US', options: BrowserContextOptions = {}): Promise<Watched> {
  // Reduced motion: the clients then show dialogs, drawers and menus without animating them, so
  // a step does not wait for an element to stop moving (web/shared/antd/motion.ts).
  const context = await browser.newContext({ locale: language, viewport: { width: 1400, height: 900 }, reducedMotion: 'reduce', ...options });
  // Playwright's 30 s for an action or a wait: a CI machine loaded by the other files running
  // beside this one has taken longer to load a console. A real failure only takes longer to show.
  context.setDefaultTimeout(STEP_TIMEOUT_MS);
  const page = await context.newPage();
  const watched: Watched = { page, context, errors: [], failed: [] };
  page.on('pageerror', (err) => watched.errors.push(err.message));
  page.on('console', (msg) => {
    // Chromium's own lines for a refused request or socket upgrade (a session ended, say) are
    // not page errors: the requests themselves are checked below.
    if (msg.type() === 'error' && !/Failed to load resource|^WebSocket connection to .* failed/.test(msg.text())) watched.errors.push(msg.text());
  });
  page.on('response', (res) => {
    const url = new URL(res.url());
    if (url.pathname.startsWith('/api/') && res.status() >= 400) watched.failed.push(`${res.request().method()} ${url.pathname} ${res.status()}`);
  });
  page.on('requestfailed', (req) => {
    const url = new URL(req.url());
    // A request cut short by leaving the page (a navigation, a reload) is not a failure.
    if (req.failure()?.errorText === 'net::ERR_ABORTED') return;
    if (url.pathname.startsWith('/api/') && !url.pathname.endsWith('/ws/notifications')) watched.failed.push(`${req.method()} ${url.pathname} failed`);
  });
  return watched;
}

/**
 * Signs in through the sign-in page. The captcha is off in tests unless a test turns it on; the
 * page then shows no captcha field, and `captcha` is typed only when the server asks for one.
 */
export async function signIn(page: Page, base: string, username: string, password: string, captcha = 'anything'): Promise<void> {
  const asked = page.waitForResponse((res) => new URL(res.url()).pathname === '/api/admin/captcha');
  await page.goto(`${base}/login`);
  const { data } = (await (await asked).json()) as { data: { enabled: boolean } };
  await page.getByLabel(/Username|用户名/).fill(username);
  await page.getByLabel(/^(Password|密码)$/).fill(password);
  if (data.enabled) await page.getByRole('textbox', { name: /Characters in the picture|图中字符/ }).fill(captcha);
  await page.getByRole('button', { name: /^(Sign in|登录)$/ }).click();
}

/** A new page signed in to the console as the seeded administrator, on the dashboard. */
export async function adminPage(browser: Browser, base: string, language = 'en-US', options: BrowserContextOptions = {}): Promise<Watched> {
  const w = await newPage(browser, language, options);
  await signIn(w.page, base, 'admin', ADMIN_PASSWORD);
  await w.page.waitForURL(/\/dashboard$/);
  return w;
}

/**
 * Goes to `path` (with its query) of the client the page shows, as its own links do: through the
 * browser's history, so the client's router renders the screen without loading the page again
 * (a full load parses the client's scripts and styles anew). For visiting screen after screen;
 * a test about what a typed address or a reload does uses page.goto or page.reload.
 */
export async function visit(page: Page, path: string): Promise<void> {
  await page.evaluate(`history.pushState(null, '', ${JSON.stringify(path)}); dispatchEvent(new PopStateEvent('popstate'))`);
}

/** Signs in to the time-clock app (/clock/login, or `at`: a page that leads there) as a worker or a manager. */
export async function signInClock(page: Page, base: string, username: string, password: string, at = '/clock/login'): Promise<void> {
  await page.goto(`${base}${at}`);
  await page.getByLabel(/^(Username|用户名)$/).fill(username);
  await page.getByLabel(/^(Password|密码)$/).fill(password);
  await page.getByRole('button', { name: /^(Sign in|登录)$/ }).click();
}

/**
 * Pictures of the screens, for people to look at: taken when TEST_SCREENSHOTS=1 (`npm run
 * test:screenshots`), into scratch/screenshots. Nothing is asserted on them, and a full-page
 * picture at a phone's pixel ratio costs the browser more than the steps around it, so the
 * everyday suite (and CI, where nobody looks) does not take them.
 */
const PICTURES = process.env.TEST_SCREENSHOTS === '1';

export async function screenshot(page: Page, name: string): Promise<void> {
  if (!PICTURES) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/**
 * Waits until no table is loading and no animation or transition is running (a finite one: the
 * fade of a table that has just loaded, say), so that a screenshot shows the screen as it settles.
 * Only for pictures: a screen still moving after 10 s is photographed as it is, since what the
 * test asserts was checked before.
 */
export async function settled(page: Page): Promise<void> {
  if (!PICTURES) return;
  // Polled with page.evaluate (the DevTools protocol): waitForFunction compiles a string
  // predicate in the page, which the app's Content-Security-Policy (no 'unsafe-eval') refuses
  // and reports as a console error.
  const still = `!!document.querySelector('[class*="-enter-active"], [class*="-appear-active"], [class*="-leave-active"], .ant-spin-spinning')
    || document.getAnimations().some((a) => a.playState === 'running' && a.effect?.getTiming().iterations !== Infinity)`;
  for (let i = 0; i < 200 && await page.evaluate<boolean>(still); i += 1) await page.waitForTimeout(50);
}

/**
 * Waits until `expression` is true in the page, polled with page.evaluate (the DevTools
 * protocol). Not page.waitForFunction with a string: that compiles the string in the page, which
 * the clients' Content-Security-Policy (no 'unsafe-eval') refuses.
 */
export async function waitUntil(page: Page, expression: string, timeout = STEP_TIMEOUT_MS): Promise<void> {
  const end = Date.now() + timeout;
  while (!await page.evaluate<boolean>(`!!(${expression})`)) {
    if (Date.now() > end) throw new Error(`waited ${timeout} ms for: ${expression}`);
    await page.waitForTimeout(50);
  }
}
