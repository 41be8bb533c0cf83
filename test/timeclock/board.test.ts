// The manager console's server side: GET /api/managers/board (who is clocked in now, where,
// within the fence or not, tracking or not; filters; thousands of workers in one answer) and
// GET /api/managers/console-settings (the map tile server).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.ts';
import { call } from '../helpers/http.ts';
import { assertTcError, circle, clock, managerToken, signedInWorker, siteWithQr } from '../helpers/timeclock.ts';

const board = (app: TestApp, token: string, query = '') => call(app, 'GET', `/api/managers/board${query}`, { token });

describe('live board', () => {
  let app: TestApp;
  let manager: string;

  before(async () => {
    app = await startApp({ TIMECLOCK_RATE_LIMIT_AUTH: '1000', TIMECLOCK_RATE_LIMIT_GENERAL: '1000', TIMECLOCK_RATE_LIMIT_CLOCK: '1000' });
    manager = await managerToken(app);
  });
  after(() => app?.close());

  test('nobody clocked in: an empty board', async () => {
    const res = await board(app, manager);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.workers, []);
    assert.equal(res.body.total, 0);
    assert.equal(res.body.trackingWindowSeconds, app.platform.config.TRACKING_WINDOW_SECONDS);
  });

  test('a clocked-in worker: since, site, QR code, position inside the fence, tracking; a move outside; clocking out removes them', async () => {
    const site = await siteWithQr(app, manager, circle(48.8566, 2.3522, 100));
    const w = await signedInWorker(app, manager, { fullName: 'Board Walker' });
    const idle = await signedInWorker(app, manager);
    const res = await clock(app, w.token, { userId: w.id, eventType: 'clock_in', qrCodeValue: site.qr, ...site.center });
    assert.equal(res.status, 200, JSON.stringify(res.body));

    let b = await board(app, manager);
    assert.equal(b.status, 200, JSON.stringify(b.body));
    const row = b.body.workers.find((x: { userId: number }) => x.userId === w.id);
    assert.ok(row, 'the clocked-in worker is listed');
    assert.ok(!b.body.workers.some((x: { userId: number }) => x.userId === idle.id), 'a worker never clocked in is not');
    assert.equal(row.full_name, 'Board Walker');
    assert.equal(row.since, res.body.timestamp);
    assert.deepEqual(row.site, { id: site.siteId, name: row.site.name });
    assert.equal(row.qrCodeName, `QR ${site.siteId}`);
    assert.equal(row.lastPosition.latitude, site.center.latitude);
    assert.equal(row.lastPosition.source, 'clock_event');
    assert.equal(row.withinGeofence, true);
    assert.equal(row.isTracking, true);

    // About 1.1 km north: outside the 100 m circle.
    const moved = await call(app, 'POST', '/api/location/update', {
      token: w.token, body: { userId: w.id, latitude: 48.8666, longitude: 2.3522, accuracy: 10, source: 'background' },
    });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    b = await board(app, manager, `?siteId=${site.siteId}`);
    assert.equal(b.body.total, 1);
    assert.equal(b.body.workers[0].userId, w.id);
    assert.equal(b.body.workers[0].withinGeofence, false);
    assert.equal(b.body.workers[0].lastPosition.latitude, 48.8666);

    // Filters: another site, a search that matches, one that does not.
    const other = await siteWithQr(app, manager, circle(40, 3, 100));
    assert.equal((await board(app, manager, `?siteId=${other.siteId}`)).body.total, 0);
    assert.equal((await board(app, manager, '?search=walker')).body.workers[0]?.userId, w.id);
    assert.equal((await board(app, manager, '?search=nobody-like-this')).body.total, 0);

    const out = await clock(app, w.token, { userId: w.id, eventType: 'clock_out', qrCodeValue: site.qr, ...site.center });
    assert.equal(out.status, 200, JSON.stringify(out.body));
    b = await board(app, manager);
    assert.ok(!b.body.workers.some((x: { userId: number }) => x.userId === w.id), 'clocked out: no longer listed');
  });

  test('a worker not tracking: position older than the tracking window', async () => {
    const site = await siteWithQr(app, manager, circle(10, 10, 200));
    const w = await signedInWorker(app, manager);
    const res = await clock(app, w.token, { userId: w.id, eventType: 'clock_in', qrCodeValue: site.qr, ...site.center });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await app.platform.db.query(`UPDATE timeclock.last_positions SET received_at = now() - interval '1 hour' WHERE user_id = $1`, [w.id]);
    const row = (await board(app, manager, `?siteId=${site.siteId}`)).body.workers[0];
    assert.equal(row.userId, w.id);
    assert.equal(row.isTracking, false);
    assert.equal(row.withinGeofence, true);
  });

  test('thousands of workers clocked in: one answer, limit and total', async () => {
    const site = await siteWithQr(app, manager, circle(20, 20, 500));
    const n = 2500;
    // Seeded in bulk (signing in 2500 workers through the API would take minutes): workers,
    // their clock-ins on the site, their state and positions, half inside the fence.
    await app.platform.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO timeclock.users (username, password_hash, full_name, role)
         SELECT 'bulk' || g, 'x', 'Bulk ' || g, 'worker' FROM generate_series(1, $1::int) g`, [n]);
      await tx.query(
        `INSERT INTO timeclock.clock_events (user_id, event_type, qr_code_id, site_id, latitude, longitude, created_at)
         SELECT u.id, 'clock_in', $1::uuid, $2::bigint, 20, 20, now() - make_interval(secs => u.id::int % 1000)
         FROM timeclock.users u WHERE u.username LIKE 'bulk%'`, [site.qr, site.siteId]);
      await tx.query(
        `INSERT INTO timeclock.worker_state (user_id, state, last_event_id)
         SELECT e.user_id, 'clock_in', e.id FROM timeclock.clock_events e WHERE e.site_id = $1::bigint`, [site.siteId]);
      await tx.query(
        `INSERT INTO timeclock.last_positions (user_id, latitude, longitude, accuracy, source, recorded_at)
         SELECT u.id, CASE WHEN u.id % 2 = 0 THEN 20 ELSE 21 END, 20, 10, 'background', now()
         FROM timeclock.users u WHERE u.username LIKE 'bulk%'`);
    });
    const all = await board(app, manager, `?siteId=${site.siteId}&limit=5000`);
    assert.equal(all.status, 200);
    assert.equal(all.body.total, n);
    assert.equal(all.body.workers.length, n);
    assert.equal(new Set(all.body.workers.map((x: { userId: number }) => x.userId)).size, n);
    const inside = all.body.workers.filter((x: { withinGeofence: boolean }) => x.withinGeofence).length;
    assert.equal(inside, n / 2);
    const since = all.body.workers.map((x: { since: string }) => Date.parse(x.since));
    assert.ok(since.every((t: number, i: number) => i === 0 || since[i - 1]! >= t), 'most recent clock-in first');

    const page = await board(app, manager, `?siteId=${site.siteId}&limit=10`);
    assert.equal(page.body.total, n);
    assert.equal(page.body.workers.length, 10);
    assertTcError(await board(app, manager, '?limit=5001'), 400, 'VALIDATION_ERROR');
  });
});

describe('console settings', () => {
  test('no tile server by default; the configured one when set', async () => {
    const plain = await startApp();
    try {
      const res = await call(plain, 'GET', '/api/managers/console-settings', { token: await managerToken(plain) });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      // A fresh database: no site has a fence yet, so the console is told to lead the manager to the default site's fence.
      const def = (await call(plain, 'GET', '/api/managers/sites', { token: await managerToken(plain) })).body[0];
      assert.deepEqual(res.body, {
        mapTileUrl: null, mapAttribution: '', trackingWindowSeconds: 300, lateAfterSeconds: 120, minIntervalSeconds: 0,
        displayTimezone: plain.platform.config.DISPLAY_TIMEZONE,
        setup: { needed: true, defaultSite: { id: def.id, name: def.name, has_fence: false }, fencedSites: 0 },
      });
    } finally {
      await plain.close();
    }
    const tiles = await startApp({ CLOCK_MAP_TILE_URL: 'https://tiles.example/{z}/{x}/{y}.png', CLOCK_MAP_ATTRIBUTION: '© Example' });
    try {
      const res = await call(tiles, 'GET', '/api/managers/console-settings', { token: await managerToken(tiles) });
      assert.equal(res.body.mapTileUrl, 'https://tiles.example/{z}/{x}/{y}.png');
      assert.equal(res.body.mapAttribution, '© Example');
    } finally {
      await tiles.close();
    }
  });
});
