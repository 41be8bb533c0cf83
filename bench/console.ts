// The administration console in Chromium (Debian's, driven by playwright-core), against the real
// server in this process:
//   (1) the JavaScript transferred before the sign-in page is interactive (the sign-in button
//       usable), compressed as the server sends it (budget 300 KB; every other screen loads on
//       demand);
//   (2) with BENCH_ORDERS orders in the database (default 1,000,000; npm run seed's generator),
//       the time from clicking "Orders" in the menu until the first page of rows is rendered, as
//       a ratio to the time of the same API request (the one the screen made, replayed) made
//       directly in the same run (target <= 1.5); BENCH_ROUNDS (7) alternated rounds, median.
// PGlite by default; BENCH_DATABASE_URL for PostgreSQL (a fresh database next to it, dropped at the end).
import { availableParallelism } from 'node:os';
import { seedOrders } from '../src/admin/features/orders/orders.seed.ts';
import { launchBrowser } from '../test/helpers/browser.ts';
import { browserBenchServer, fmt, median } from './lib.ts';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const BUDGET_KB = 300;
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
  await page.getByRole('textbox', { name: 'Characters in the picture' }).fill('x');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/dashboard$/);
  const token = await page.evaluate(() => (JSON.parse(localStorage.getItem('fieldops.admin.session')!) as { token: string }).token);
  let listUrl: string | undefined;
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.pathname === '/api/admin/orders' && r.method() === 'GET') listUrl = r.url();
  });
  // Timed in the page, from the click on the menu link until a row of orders is in the DOM and
  // the next frame has been painted (the load generator's own round trips left out).
  const screen = async (): Promise<number> => {
    await page.goto(`${base}/dashboard`);
    await page.getByText('Sign-ins today').waitFor();
    await page.getByRole('menuitem', { name: 'Trade' }).click();
    await page.getByRole('link', { name: 'Orders', exact: true }).waitFor();
    // The click is made once the page is at rest, as a person's is: the dashboard's requests
    // answered and the screens' chunks loaded in idle time.
    await page.waitForLoadState('networkidle');
    await page.evaluate('new Promise((resolve) => requestIdleCallback(() => requestIdleCallback(resolve)))');
    // (A string: this runs in the page, whose DOM types the server's program does not have.)
    return page.evaluate<number>(`new Promise((resolve) => {
      const link = [...document.querySelectorAll('a')].find((a) => a.textContent === 'Orders');
      const start = performance.now();
      const rowShown = () => [...document.querySelectorAll('tr.ant-table-row')].some((tr) => /\\d{27}/.test(tr.textContent || ''));
      const observer = new MutationObserver(() => {
        if (!rowShown()) return;
        observer.disconnect();
        requestAnimationFrame(() => resolve(performance.now() - start));
      });
      observer.observe(document.body, { childList: true, subtree: true, characterData: true });
      link.click();
    })`);
  };
  const direct = async (): Promise<number> => {
    const start = performance.now();
    const res = await fetch(listUrl!, { headers: { authorization: `Bearer ${token}` } });
    await res.json();
    if (!res.ok) throw new Error(`${listUrl}: ${res.status}`);
    return performance.now() - start;
  };
  await screen(); // warm-up: the screen's chunk is loaded, the request URL known
  await direct();
  const ui: number[] = [];
  const api: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    ui.push(await screen());
    api.push(await direct());
  }
  const ratio = median(ui.map((u, i) => u / api[i]!));
  console.log(`orders screen, first page rendered: ${fmt(median(ui))} ms vs the same request direct ${fmt(median(api))} ms (${listUrl?.replace(base, '')}); ratio ${fmt(ratio, 2)} (target <= 1.5) ${ratio <= 1.5 ? 'PASS' : 'ABOVE TARGET'}`);
  await context.close();
} finally {
  await browser.close();
  await bench.close();
}
