// Location tracking: POST /api/location/update and GET /api/location/status/:userId, the
// alerts raised from positions (impossible travel, implausible accuracy), the tracking window
// and the retention purge.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LocationService } from '../../src/timeclock/features/location/location.service.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { call } from '../helpers/http.ts';
import { assertTcError, circle, clock, managerToken, signedInWorker, siteWithQr } from '../helpers/timeclock.ts';

const PARIS = { latitude: 48.8566, longitude: 2.3522 };
/** About 105 km north-east of Paris. */
const REIMS_WAY = { latitude: 49.2583, longitude: 3.5 };
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

type Worker = Awaited<ReturnType<typeof signedInWorker>>;

function update(app: TestApp, w: { id: number; token: string }, body: Record<string, unknown> = {}) {
  return call(app, 'POST', '/api/location/update', {
    token: w.token,
    body: { userId: w.id, ...PARIS, accuracy: 12, source: 'background', ...body },
  });
}

const status = (app: TestApp, token: string, userId: number) => call(app, 'GET', `/api/location/status/${userId}`, { token });

async function alertsOf(app: TestApp, manager: string, userId: number, type?: string) {
  const res = await call(app, 'GET', `/api/managers/security/alerts?userId=${userId}${type ? `&type=${type}` : ''}&limit=100`, { token: manager });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.alerts as { alert_type: string; severity: string; details: Record<string, unknown> }[];
}

describe('location tracking', () => {
  let app: TestApp;
  let manager: string;
  let w: Worker;
  let other: Worker;

  before(async () => {
    app = await startApp({ TIMECLOCK_RATE_LIMIT_LOCATION: '1000' });
    manager = await managerToken(app);
    w = await signedInWorker(app, manager);
    other = await signedInWorker(app, manager);
  });
  after(() => app?.close());

  test('a worker never tracked: not tracking, nothing known', async () => {
    const res = await status(app, w.token, w.id);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, { isTracking: false, lastUpdate: null, currentLocation: null, withinGeofence: null });
  });

  test('an update is stored and shows in the status; managers read it too', async () => {
    const before = Date.now();
    const res = await update(app, w, { timestamp: new Date(before - 2000).toISOString() });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(Object.keys(res.body).sort(), ['message', 'timestamp']);
    assert.match(res.body.timestamp, ISO);
    assert.ok(Math.abs(Date.parse(res.body.timestamp) - before) < 60_000);
    assert.equal(res.headers['x-ratelimit-limit'], '1000');

    for (const token of [w.token, manager]) {
      const s = await status(app, token, w.id);
      assert.equal(s.status, 200, JSON.stringify(s.body));
      assert.equal(s.body.isTracking, true);
      assert.match(s.body.lastUpdate, ISO);
      assert.equal(s.body.currentLocation.latitude, PARIS.latitude);
      assert.equal(s.body.currentLocation.longitude, PARIS.longitude);
      assert.equal(s.body.currentLocation.accuracy, 12);
      assert.equal(s.body.currentLocation.source, 'background');
      assert.equal(s.body.currentLocation.timestamp, new Date(before - 2000).toISOString());
      assert.equal(s.body.withinGeofence, null, 'no current site');
    }
  });

  test('the timestamp defaults to the time of receipt', async () => {
    const res = await update(app, other, { timestamp: undefined, source: 'manual' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const s = await status(app, other.token, other.id);
    assert.equal(s.body.currentLocation.source, 'manual');
    assert.ok(Math.abs(Date.parse(s.body.currentLocation.timestamp) - Date.now()) < 60_000);
  });

  test('invalid location data is a 400 VALIDATION_ERROR naming the field', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ latitude: 90.5 }, /latitude/],
      [{ latitude: -91 }, /latitude/],
      [{ longitude: 180.01 }, /longitude/],
      [{ longitude: -181 }, /longitude/],
      [{ latitude: '48.85' }, /latitude/],
      [{ accuracy: -1 }, /accuracy/],
      [{ source: 'gps' }, /source/],
      [{ source: undefined }, /source/],
      [{ userId: undefined }, /userId/],
      [{ userId: 0 }, /userId/],
      [{ timestamp: 'yesterday' }, /timestamp/],
      [{ timestamp: '2026-01-01 10:00:00' }, /timestamp/],
      [{ timestamp: '2026-02-30T10:00:00Z' }, /timestamp/],
      [{ timestamp: '2025-12-31T23:59:60Z' }, /timestamp/],
      [{ timestamp: new Date(Date.now() + 6 * 60_000).toISOString() }, /future/],
      [{ timestamp: new Date(Date.now() - 8 * 86_400_000).toISOString() }, /7 days/],
      [{ speed: 3 }, /speed/],
    ];
    for (const [body, field] of cases) {
      const res = await update(app, w, body);
      assertTcError(res, 400, 'VALIDATION_ERROR');
      assert.match(res.body.message, field, JSON.stringify(body));
    }
    const bad = await call(app, 'POST', '/api/location/update', {
      token: w.token, payload: '{"userId":', headers: { 'content-type': 'application/json' },
    });
    assertTcError(bad, 400, 'VALIDATION_ERROR');
    // A timestamp within the 5-minute skew is accepted.
    const skew = await update(app, w, { timestamp: new Date(Date.now() + 4 * 60_000).toISOString() });
    assert.equal(skew.status, 200, JSON.stringify(skew.body));
  });

  test('only the device itself reports a position: 403 for another user, managers included; 401 for a bad token', async () => {
    assertTcError(await update(app, { id: other.id, token: w.token }), 403, 'FORBIDDEN');
    assertTcError(await update(app, { id: w.id, token: manager }), 403, 'FORBIDDEN');
    assertTcError(await update(app, { id: w.id, token: 'not-a-token' }), 401, 'TOKEN_INVALID');
  });

  test('status: 403 for another worker, 404 for an unknown user, 400 for a bad id', async () => {
    assertTcError(await status(app, other.token, w.id), 403, 'FORBIDDEN');
    assertTcError(await status(app, manager, 99_999_999), 404, 'NOT_FOUND');
    assertTcError(await status(app, manager, 0), 400, 'VALIDATION_ERROR');
    assertTcError(await call(app, 'GET', '/api/location/status/abc', { token: manager }), 400, 'VALIDATION_ERROR');
  });

  test('tracking stops when no update arrived within the window; the last position stays', async () => {
    const x = await signedInWorker(app, manager);
    assert.equal((await update(app, x)).status, 200);
    assert.equal((await status(app, x.token, x.id)).body.isTracking, true);
    // The last update arrived 301 s ago (TRACKING_WINDOW_SECONDS is 300).
    await app.platform.db.query(`UPDATE timeclock.last_positions SET received_at = now() - interval '301 seconds' WHERE user_id = $1`, [x.id]);
    const s = await status(app, x.token, x.id);
    assert.equal(s.body.isTracking, false);
    assert.match(s.body.lastUpdate, ISO);
    assert.equal(s.body.currentLocation.latitude, PARIS.latitude);
  });

  test('a late sample (older device timestamp) is stored but does not replace the newer position', async () => {
    const x = await signedInWorker(app, manager);
    const now = Date.now();
    assert.equal((await update(app, x, { latitude: 48.86, timestamp: new Date(now - 1000).toISOString() })).status, 200);
    assert.equal((await update(app, x, { latitude: 48.8601, timestamp: new Date(now - 60_000).toISOString() })).status, 200);
    const s = await status(app, x.token, x.id);
    assert.equal(s.body.currentLocation.latitude, 48.86);
    const [n] = await app.platform.db.query<{ n: number }>('SELECT count(*)::int AS n FROM timeclock.location_samples WHERE user_id = $1', [x.id]);
    assert.equal(n!.n, 2);
  });

  test('withinGeofence follows the fence of the site of the latest clock-in', async () => {
    const x = await signedInWorker(app, manager);
    const site = await siteWithQr(app, manager, circle(PARIS.latitude, PARIS.longitude, 200));
    const ci = await clock(app, x.token, { userId: x.id, eventType: 'clock_in', qrCodeValue: site.qr, ...PARIS });
    assert.equal(ci.status, 200, JSON.stringify(ci.body));
    // The clock-in position is the current location (source clock_event).
    let s = await status(app, x.token, x.id);
    assert.equal(s.body.currentLocation.source, 'clock_event');
    assert.equal(s.body.withinGeofence, true);

    assert.equal((await update(app, x, { latitude: PARIS.latitude + 0.0005 })).status, 200); // ~55 m north
    s = await status(app, manager, x.id);
    assert.equal(s.body.withinGeofence, true);

    assert.equal((await update(app, x, { latitude: PARIS.latitude + 0.005 })).status, 200); // ~550 m north
    s = await status(app, manager, x.id);
    assert.equal(s.body.withinGeofence, false);
    assert.equal(s.body.currentLocation.latitude, PARIS.latitude + 0.005);
  });

  test('impossible travel between two updates raises a high alert; a plausible move does not', async () => {
    const x = await signedInWorker(app, manager);
    const t0 = Date.now() - 120_000;
    assert.equal((await update(app, x, { timestamp: new Date(t0).toISOString() })).status, 200);
    // 1.1 km in 60 s is 66 km/h: a car, not an alert.
    assert.equal((await update(app, x, { latitude: PARIS.latitude + 0.01, timestamp: new Date(t0 + 60_000).toISOString() })).status, 200);
    assert.deepEqual(await alertsOf(app, manager, x.id, 'impossible_travel'), []);
    // ~105 km in the next 60 s is over 6,000 km/h.
    assert.equal((await update(app, x, { ...REIMS_WAY, timestamp: new Date(t0 + 120_000).toISOString() })).status, 200);
    const alerts = await alertsOf(app, manager, x.id, 'impossible_travel');
    assert.equal(alerts.length, 1);
    assert.equal(alerts[0]!.severity, 'high');
    assert.ok((alerts[0]!.details.impliedKmh as number) > 5000, JSON.stringify(alerts[0]));
    assert.equal(alerts[0]!.details.limitKmh, 300);
    const sec = await call(app, 'GET', `/api/security/status/${x.id}`, { token: x.token });
    assert.equal(sec.body.recentAlerts[0].alert_type, 'impossible_travel');
  });

  test('impossible travel is also found between a clock event and the next update', async () => {
    const x = await signedInWorker(app, manager);
    const site = await siteWithQr(app, manager, circle(PARIS.latitude, PARIS.longitude, 200));
    assert.equal((await clock(app, x.token, { userId: x.id, eventType: 'clock_in', qrCodeValue: site.qr, ...PARIS })).status, 200);
    assert.equal((await update(app, x, { ...REIMS_WAY, source: 'background' })).status, 200);
    const alerts = await alertsOf(app, manager, x.id, 'impossible_travel');
    assert.equal(alerts.length, 1, JSON.stringify(alerts));
  });

  test('GPS jitter within the accuracy radii is not travel', async () => {
    const x = await signedInWorker(app, manager);
    const t0 = Date.now() - 10_000;
    assert.equal((await update(app, x, { accuracy: 800, timestamp: new Date(t0).toISOString() })).status, 200);
    // 1.5 km in 1 s, but each fix claims 800 m of uncertainty.
    assert.equal((await update(app, x, { latitude: PARIS.latitude + 0.0135, accuracy: 800, timestamp: new Date(t0 + 1000).toISOString() })).status, 200);
    assert.deepEqual(await alertsOf(app, manager, x.id, 'impossible_travel'), []);
  });

  test('implausible accuracy raises one alert per type within the cooldown', async () => {
    const x = await signedInWorker(app, manager);
    assert.equal((await update(app, x, { accuracy: 0 })).status, 200);
    assert.equal((await update(app, x, { accuracy: 0.2 })).status, 200);
    const alerts = await alertsOf(app, manager, x.id, 'implausible_accuracy');
    assert.equal(alerts.length, 1);
    assert.equal(alerts[0]!.severity, 'medium');
    assert.equal(alerts[0]!.details.accuracy, 0);
    // Accuracy of 3 m or 2 km is normal.
    const y = await signedInWorker(app, manager);
    assert.equal((await update(app, y, { accuracy: 3 })).status, 200);
    assert.equal((await update(app, y, { accuracy: 2000 })).status, 200);
    assert.deepEqual(await alertsOf(app, manager, y.id), []);
    // Over 5 km is useless for a fence: a low alert.
    assert.equal((await update(app, y, { accuracy: 6000 })).status, 200);
    const low = await alertsOf(app, manager, y.id, 'implausible_accuracy');
    assert.deepEqual(low.map((a) => a.severity), ['low']);
  });

  test('a phone re-sending an old position is not tracking; last seen is the position’s own time (status, worker detail, board)', async () => {
    const x = await signedInWorker(app, manager);
    const old = new Date(Date.now() - 600_000).toISOString();
    // Taken 10 minutes ago (beyond TRACKING_WINDOW_SECONDS, 300), received now.
    assert.equal((await update(app, x, { timestamp: old })).status, 200);
    let s = await status(app, manager, x.id);
    assert.equal(s.body.isTracking, false);
    assert.equal(s.body.lastUpdate, old);
    assert.equal(s.body.currentLocation.timestamp, old);
    let detail = (await call(app, 'GET', `/api/managers/workers/${x.id}`, { token: manager })).body;
    assert.equal(detail.lastSeenAt, old);
    assert.equal(detail.isTracking, false);
    assert.equal(detail.lastPosition.timestamp, old);

    // A fresh position: tracking, and last seen moves with it.
    const fresh = new Date(Date.now() - 5_000).toISOString();
    assert.equal((await update(app, x, { timestamp: fresh })).status, 200);
    s = await status(app, manager, x.id);
    assert.equal(s.body.isTracking, true);
    assert.equal(s.body.lastUpdate, fresh);
    const freshReceipt = s.body.currentLocation.receivedAt as string;
    detail = (await call(app, 'GET', `/api/managers/workers/${x.id}`, { token: manager })).body;
    assert.equal(detail.lastSeenAt, fresh);
    assert.equal(detail.isTracking, true);

    // The old one sent again changes nothing: not the position, its time or its receipt.
    assert.equal((await update(app, x, { timestamp: old })).status, 200);
    s = await status(app, manager, x.id);
    assert.equal(s.body.lastUpdate, fresh);
    assert.equal(s.body.currentLocation.receivedAt, freshReceipt);

    // That fresh position is now 301 s old by its own time: no longer tracking, even though an update just arrived.
    await app.platform.db.query(`UPDATE timeclock.last_positions SET recorded_at = now() - interval '301 seconds' WHERE user_id = $1`, [x.id]);
    assert.equal((await update(app, x, { timestamp: old })).status, 200);
    assert.equal((await status(app, manager, x.id)).body.isTracking, false);
    assert.equal((await call(app, 'GET', `/api/managers/workers/${x.id}`, { token: manager })).body.isTracking, false);

    // On the board: a worker whose clock-in (its position) was captured 10 minutes ago, sent now, is not tracking.
    const y = await signedInWorker(app, manager);
    const site = await siteWithQr(app, manager);
    const punched = await call(app, 'POST', '/api/clock', {
      token: y.token, body: { userId: y.id, eventType: 'clock_in', qrCodeValue: site.qr, ...site.center, capturedAt: old },
    });
    assert.equal(punched.status, 200, JSON.stringify(punched.body));
    const board = (await call(app, 'GET', '/api/managers/board', { token: manager })).body;
    const row = board.workers.find((r: { userId: number }) => r.userId === y.id);
    assert.equal(row.lastPosition.timestamp, old);
    assert.equal(row.isTracking, false);
  });
});

describe('location rate limit and retention', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp({ TIMECLOCK_RATE_LIMIT_LOCATION: '3', LOCATION_RETENTION_DAYS: '30' });
  });
  after(() => app?.close());

  test('updates are limited per user (location tier) with the rate-limit headers', async () => {
    const manager = await managerToken(app);
    const w = await signedInWorker(app, manager);
    for (let i = 0; i < 3; i++) {
      const res = await update(app, w);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.headers['x-ratelimit-limit'], '3');
      assert.equal(res.headers['x-ratelimit-remaining'], String(2 - i));
    }
    const limited = await update(app, w);
    assertTcError(limited, 429, 'RATE_LIMITED');
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    // Another worker has their own budget; the status route is in the general tier.
    const other = await signedInWorker(app, manager);
    assert.equal((await update(app, other)).status, 200);
    assert.equal((await status(app, w.token, w.id)).status, 200);
  });

  test('samples older than LOCATION_RETENTION_DAYS are purged, newer ones kept', async () => {
    const manager = await managerToken(app);
    const w = await signedInWorker(app, manager);
    const db = app.platform.db;
    await db.query(
      `INSERT INTO timeclock.location_samples (user_id, latitude, longitude, source, recorded_at, received_at)
       SELECT $1, 48.85, 2.35, 'background', t, t
       FROM (SELECT now() - make_interval(days => d) + interval '1 hour' AS t
             FROM generate_series(1, 40) d) g`,
      [w.id],
    );
    const service = new LocationService({ db, config: app.platform.config, logger: app.platform.logger });
    const purged = await service.purge();
    assert.equal(purged, 10, 'days 31..40');
    const [left] = await db.query<{ n: number; oldest: number }>(
      `SELECT count(*)::int AS n, max(extract(day FROM now() - received_at))::int AS oldest FROM timeclock.location_samples WHERE user_id = $1`,
      [w.id],
    );
    assert.equal(left!.n, 30);
    assert.ok(left!.oldest <= 30);
    assert.equal(await service.purge(), 0);
  });
});
