// The administration console in Chromium (Debian's, driven by playwright-core), against the real
// server in this process:
//   (1) the JavaScript transferred before the sign-in page is interactive (the sign-in button
//       usable), compressed as the server sends it (budget 300 KB; every other screen loads on
//       demand);
//   (2) with BENCH_ORDERS orders in the database (default 1,000,000; npm run seed's generator)
//       and BENCH_LATENCY_MS (40) of network latency added to the page's requests, a click on
//       "Orders" in the menu: the time from the list's answer arriving in the page until its
//       first rows are painted (target <= 50 ms), and the whole as a ratio to the request's own
//       length; median of BENCH_ROUNDS (7).
// PGlite by default; BENCH_DATABASE_URL for PostgreSQL (a fresh database next to it, dropped at the end).
import { availableParallelism } from 'node:os';
import { seedOrders } from '../src/admin/features/orders/orders.seed.ts';
import { launchBrowser } from '../test/helpers/browser.ts';
import { addLatency, browserBenchServer, fmt, reportAction, timedAction, type ActionTiming } from './lib.ts';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const BUDGET_KB = 300;
const TARGET_MS = 50;
const PASSWORD = 'Bench-pass-123';

const bench = await browserBenchServer('console', { ADMIN_PASSWORD: PASSWORD, CAPTCHA_ENABLED: 'false', AUTH_RATE_LIMIT: '100000' });
const { server, base } = bench;
const browser = await launchBrowser();

try {
  console.log(`# console benchmark (${server.platform.db.kind}, Node ${process.versions.node}, ${availableParallelism()} cores, Chromium)`);

  // (1) JavaScript before the sign-in page is interactive.
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${base}/login`);
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  const scripts = await page.evaluate(() =>
    (performance.getEntriesByType('resource') as unknown as { name: string; initiatorType: string; encodedBodySize: number }[])
      .filter((e) => e.initiatorType === 'script' || e.name.endsWith('.js'))
      .map((e) => ({ name: e.name, bytes: e.encodedBodySize })));
  const kb = scripts.reduce((n, s) => n + s.bytes, 0) / 1024;
  console.log(`sign-in page: ${scripts.length} scripts, ${fmt(kb, 1)} KB transferred (compressed) before it is interactive (budget ${BUDGET_KB} KB) ${kb <= BUDGET_KB ? 'PASS' : 'OVER BUDGET'}`);

  // (2) The orders screen on a large table.
  const seeded = await seedOrders(server.platform.db, { orders: ORDERS });
  console.log(`seeded ${fmt(seeded.orders)} orders in ${fmt(seeded.ms / 1000, 1)} s`);
  await page.getByLabel('Username').fill('admin');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/dashboard$/);
  // Timed in the page, from the click on the menu link: until the list's answer arrived, and
  // from then until a row of orders is in the DOM and the next frame has come.
  await addLatency(page);
  const screen = async (): Promise<ActionTiming> => {
    await page.goto(`${base}/dashboard`);
    await page.getByText('Sign-ins today').waitFor();
    await page.getByRole('menuitem', { name: 'Trade' }).click();
    await page.getByRole('link', { name: 'Orders', exact: true }).waitFor();
    // The click is made once the page is at rest, as a person's is: the dashboard's requests
    // answered and the screens' chunks loaded in idle time.
    await page.waitForLoadState('networkidle');
    await page.evaluate('new Promise((resolve) => requestIdleCallback(() => requestIdleCallback(resolve)))');
    return page.evaluate<ActionTiming>(timedAction(
      `[...document.querySelectorAll('a')].find((a) => a.textContent === 'Orders').click()`,
      `[...document.querySelectorAll('tr.ant-table-row')].some((tr) => /\\d{27}/.test(tr.textContent || ''))`,
      '/api/admin/orders(\\?|$)',
    ));
  };
  await screen(); // warm-up: the screen's chunk is loaded
  const rounds: ActionTiming[] = [];
  for (let i = 0; i < ROUNDS; i++) rounds.push(await screen());
  reportAction('orders screen, a click on "Orders" until its first page of rows is painted', rounds, TARGET_MS);
  await context.close();
} finally {
  await browser.close();
  await bench.close();
}
