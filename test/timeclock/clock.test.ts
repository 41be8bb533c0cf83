// POST /api/clock and GET /api/worker/clock-history: QR, geofence and state checks, the atomic
// state change under concurrency, FORCE_CLOCK_OUT, refusals recorded as security events.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.ts';
import { call } from '../helpers/http.ts';
import {
  assertTcError, circle, clock, createQr, createSite, managerToken, signedInWorker, siteWithQr,
} from '../helpers/timeclock.ts';

const METRES_PER_DEGREE = (2 * Math.PI * 6_371_008.8) / 360;
/** A point `metres` north of `p`. */
const north = (p: { latitude: number; longitude: number }, metres: number) => ({ latitude: p.latitude + metres / METRES_PER_DEGREE, longitude: p.longitude });

async function alertsOf(app: TestApp, userId: number) {
  return app.platform.db.query<{ alert_type: string; severity: string; details: Record<string, unknown> }>(
    `SELECT alert_type, severity, details FROM timeclock.security_alerts WHERE user_id = $1 ORDER BY id`,
    [userId],
  );
}

async function eventsOf(app: TestApp, userId: number) {
  return app.platform.db.query<{ event_type: string; forced: boolean; notes: string | null }>(
    `SELECT event_type, forced, notes FROM timeclock.clock_events WHERE user_id = $1 ORDER BY id`,
    [userId],
  );
}

describe('clock events', () => {
  let app: TestApp;
  let manager: string;
  let site: Awaited<ReturnType<typeof siteWithQr>>;
  before(async () => {
    app = await startApp();
    manager = await managerToken(app);
    site = await siteWithQr(app, manager, circle(48.8566, 2.3522, 100));
  });
  after(() => app?.close());

  test('clock in inside the fence: 200 { message, timestamp, eventType, location } with server time', async () => {
    const w = await signedInWorker(app, manager);
    const at = north(site.center, 95);
    const before = Date.now();
    const res = await clock(app, w.token, { userId: w.id, eventType: 'clock_in', qrCodeValue: site.qr, ...at, notes: 'morning shift' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(Object.keys(res.body).sort(), ['eventType', 'location', 'message', 'timestamp']);
    assert.equal(res.body.eventType, 'clock_in');
    assert.deepEqual(res.body.location, at);
    assert.match(res.body.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const t = Date.parse(res.body.timestamp);
    assert.ok(t >= before - 5000 && t <= Date.now() + 5000, res.body.timestamp);
    assert.deepEqual(await eventsOf(app, w.id), [{ event_type: 'clock_in', forced: false, notes: 'morning shift' }]);
    assert.deepEqual(await alertsOf(app, w.id), []);
  });

  test('a few metres outside the fence is 403 OUTSIDE_GEOFENCE with the distance, recorded as a security event', async () => {
    const w = await signedInWorker(app, manager);
    const res = await clock(app, w.token, { userId: w.id, eventType: 'clock_in', qrCodeValue: site.qr, ...north(site.center, 106) });
    assertTcError(res, 403, 'OUTSIDE_GEOFENCE');
    assert.ok(Math.abs(res.body.details.distanceMetres - 6) < 0.5, JSON.stringify(res.body.details));
    assert.equal(res.body.details.siteId, site.siteId);
    assert.deepEqual(await eventsOf(app, w.id), []);
    const alerts = await alertsOf(app, w.id);
    assert.equal(alerts.length, 1);
    assert.equal(alerts[0]!.alert_type, 'geofence_violation');
    assert.equal(alerts[0]!.severity, 'low');
    // Far away is a more serious violation.
    assertTcError(await clock(app, w.token, { userId: w.id, eventType: 'clock_in', qrCodeValue: site.qr, ...north(site.center, 5000) }), 403, 'OUTSIDE_GEOFENCE');
    assert.equal((await alertsOf(app, w.id))[1]!.severity, 'high');
    // Inside works afterwards.
    assert.equal((await clock(app, w.token, { userId: w.id, eventType: 'clock_in', qrCodeValue: site.qr, ...site.center })).status, 200);
  });

  test('a second clock-in is 409 DUPLICATE_EVENT; clock-out then works; a first clock-out is 409', async () => {
    const w = await signedInWorker(app, manager);
    const body = { userId: w.id, qrCodeValue: site.qr, ...site.center };
    assertTcError(await clock(app, w.token, { ...body, eventType: 'clock_out' }), 409, 'DUPLICATE_EVENT');
    assert.equal((await clock(app, w.token, { ...body, eventType: 'clock_in' })).status, 200);
    const dup = await clock(app, w.token, { ...body, eventType: 'clock_in' });
    assertTcError(dup, 409, 'DUPLICATE_EVENT');
    assert.equal(dup.body.details.currentState, 'clock_in');
    const out = await clock(app, w.token, { ...body, eventType: 'clock_out' });
    assert.equal(out.status, 200);
    assert.equal(out.body.eventType, 'clock_out');
    assert.deepEqual((await eventsOf(app, w.id)).map((e) => e.event_type), ['clock_in', 'clock_out']);
    assert.deepEqual((await alertsOf(app, w.id)).map((a) => a.alert_type), ['duplicate_event', 'duplicate_event']);
  });

  test('50 concurrent clock-ins of one worker record exactly one; the others are 409, none 500', async () => {
    const w = await signedInWorker(app, manager);
    const replies = await Promise.all(
      Array.from({ length: 50 }, () => clock(app, w.token, { userId: w.id, eventType: 'clock_in', qrCodeValue: site.qr, ...site.center })),
    );
    const statuses = replies.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 200).length, 1, statuses.join(','));
    assert.equal(statuses.filter((s) => s === 409).length, 49, statuses.join(','));
    for (const r of replies.filter((x) => x.status === 409)) assert.equal(r.body.code, 'DUPLICATE_EVENT');
    assert.equal((await eventsOf(app, w.id)).length, 1);
  });

  test('an unknown, malformed or inactive QR code is 404 QR_CODE_INACTIVE, recorded', async () => {
    const w = await signedInWorker(app, manager);
    const body = { userId: w.id, eventType: 'clock_in', ...site.center };
    assertTcError(await clock(app, w.token, { ...body, qrCodeValue: '2f1b0d8e-0000-4000-8000-000000000000' }), 404, 'QR_CODE_INACTIVE');
    assertTcError(await clock(app, w.token, { ...body, qrCodeValue: 'not-a-qr-code' }), 404, 'QR_CODE_INACTIVE');
    const qr = await createQr(app, manager, { name: 'Back door', siteId: site.siteId });
    assert.equal((await call(app, 'PATCH', `/api/managers/qr-codes/${qr.id}`, { token: manager, body: { is_active: false } })).status, 200);
    const inactive = await clock(app, w.token, { ...body, qrCodeValue: qr.id });
    assertTcError(inactive, 404, 'QR_CODE_INACTIVE');
    assert.equal(inactive.body.details.reason, 'inactive');
    const alerts = await alertsOf(app, w.id);
    assert.deepEqual(alerts.map((a) => [a.alert_type, a.details.reason]), [['qr_invalid', 'not found'], ['qr_invalid', 'not found'], ['qr_invalid', 'inactive']]);
    assert.deepEqual(await eventsOf(app, w.id), []);
    // Reactivated, it works.
    assert.equal((await call(app, 'PATCH', `/api/managers/qr-codes/${qr.id}`, { token: manager, body: { is_active: true } })).status, 200);
    assert.equal((await clock(app, w.token, { ...body, qrCodeValue: qr.id })).status, 200);
  });

  test('a QR code of a site without a fence (the default site) is refused with 409 GEOFENCE_NOT_CONFIGURED, never recorded', async () => {
    const w = await signedInWorker(app, manager);
    const qr = await createQr(app, manager, { name: 'Default-site code' });
    const res = await clock(app, w.token, { userId: w.id, eventType: 'clock_in', qrCodeValue: qr.id, ...site.center });
    assertTcError(res, 409, 'GEOFENCE_NOT_CONFIGURED');
    assert.equal(res.body.details.reason, 'site has no geofence');
    assert.deepEqual(await eventsOf(app, w.id), []);
    assert.equal((await alertsOf(app, w.id))[0]!.alert_type, 'geofence_violation');
  });

  test('a polygon fence: inside accepted, outside refused with the distance to the nearest edge', async () => {
    const w = await signedInWorker(app, manager);
    const square = { type: 'polygon' as const, points: [
      { latitude: 51.5, longitude: -0.13 }, { latitude: 51.5, longitude: -0.12 }, { latitude: 51.51, longitude: -0.12 }, { latitude: 51.51, longitude: -0.13 },
    ] };
    const s = await createSite(app, manager, square);
    const qr = await createQr(app, manager, { name: 'Square', siteId: s.id });
    const outside = await clock(app, w.token, { userId: w.id, eventType: 'clock_in', qrCodeValue: qr.id, latitude: 51.51 + 20 / METRES_PER_DEGREE, longitude: -0.125 });
    assertTcError(outside, 403, 'OUTSIDE_GEOFENCE');
    assert.ok(Math.abs(outside.body.details.distanceMetres - 20) < 0.5, JSON.stringify(outside.body.details));
    assert.equal((await clock(app, w.token, { userId: w.id, eventType: 'clock_in', qrCodeValue: qr.id, latitude: 51.505, longitude: -0.125 })).status, 200);
  });

  test('bad input is 400 VALIDATION_ERROR: event type, coordinates out of range, missing data, unknown fields', async () => {
    const w = await signedInWorker(app, manager);
    const ok = { userId: w.id, eventType: 'clock_in', qrCodeValue: site.qr, ...site.center };
    const bad: Record<string, unknown>[] = [
      { ...ok, eventType: 'lunch' }, { ...ok, latitude: 91 }, { ...ok, latitude: -90.5 }, { ...ok, longitude: 180.1 }, { ...ok, longitude: -181 },
      { ...ok, latitude: '48.8' }, { ...ok, qrCodeValue: '' }, { ...ok, notes: 'x'.repeat(501) }, { ...ok, extra: 1 }, { ...ok, userId: 0 },
    ];
    for (const field of ['userId', 'eventType', 'qrCodeValue', 'latitude', 'longitude']) {
      const b: Record<string, unknown> = { ...ok };
      delete b[field];
      bad.push(b);
    }
    for (const body of bad) assertTcError(await call(app, 'POST', '/api/clock', { token: w.token, body }), 400, 'VALIDATION_ERROR');
    assert.deepEqual(await eventsOf(app, w.id), []);
  });

  test('worker A clocking for worker B is 403; a manager may clock for a worker', async () => {
    const a = await signedInWorker(app, manager);
    const b = await signedInWorker(app, manager);
    const res = await clock(app, a.token, { userId: b.id, eventType: 'clock_in', qrCodeValue: site.qr, ...site.center });
    assertTcError(res, 403, 'FORBIDDEN');
    assert.deepEqual(await eventsOf(app, b.id), []);
    assert.equal((await clock(app, manager, { userId: b.id, eventType: 'clock_in', qrCodeValue: site.qr, ...site.center })).status, 200);
    assertTcError(await clock(app, manager, { userId: 999_999, eventType: 'clock_in', qrCodeValue: site.qr, ...site.center }), 404, 'NOT_FOUND');
  });

  test('FORCE_CLOCK_OUT records a forced clock-out from any state, without QR or fence, and raises an alert', async () => {
    const w = await signedInWorker(app, manager);
    const far = { latitude: 10, longitude: 10 };
    // From clocked-out (no events yet) and far outside every fence.
    const res = await clock(app, w.token, { userId: w.id, eventType: 'clock_out', qrCodeValue: 'FORCE_CLOCK_OUT', ...far, notes: 'phone died' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.eventType, 'clock_out');
    assert.deepEqual(res.body.location, far);
    // From clocked-in.
    assert.equal((await clock(app, w.token, { userId: w.id, eventType: 'clock_in', qrCodeValue: site.qr, ...site.center })).status, 200);
    assert.equal((await clock(app, w.token, { userId: w.id, eventType: 'clock_out', qrCodeValue: 'FORCE_CLOCK_OUT', ...far })).status, 200);
    assert.deepEqual(await eventsOf(app, w.id), [
      { event_type: 'clock_out', forced: true, notes: 'phone died' },
      { event_type: 'clock_in', forced: false, notes: null },
      { event_type: 'clock_out', forced: true, notes: null },
    ]);
    const forced = (await alertsOf(app, w.id)).filter((a) => a.alert_type === 'forced_clock_out');
    assert.deepEqual(forced.map((a) => a.details.previousState), ['clock_out', 'clock_in']);
    // The state is clocked out: a normal clock-in works again.
    assert.equal((await clock(app, w.token, { userId: w.id, eventType: 'clock_in', qrCodeValue: site.qr, ...site.center })).status, 200);
    // Coordinates are still validated; only clock_out; only the worker themself.
    assertTcError(await clock(app, w.token, { userId: w.id, eventType: 'clock_out', qrCodeValue: 'FORCE_CLOCK_OUT', latitude: 100, longitude: 0 }), 400, 'VALIDATION_ERROR');
    assertTcError(await clock(app, w.token, { userId: w.id, eventType: 'clock_in', qrCodeValue: 'FORCE_CLOCK_OUT', ...far }), 400, 'VALIDATION_ERROR');
    assertTcError(await clock(app, manager, { userId: w.id, eventType: 'clock_out', qrCodeValue: 'FORCE_CLOCK_OUT', ...far }), 403, 'FORBIDDEN');
  });

  test('clock-in and clock-out queue their webhooks in the event’s transaction', async () => {
    await app.platform.db.query(
      `INSERT INTO timeclock.webhook_endpoints (url, events, secret, is_active) VALUES ('http://127.0.0.1:9/hook', ARRAY['worker.clock_in','worker.clock_out'], 's', true)`,
    );
    const w = await signedInWorker(app, manager);
    const res = await clock(app, w.token, { userId: w.id, eventType: 'clock_in', qrCodeValue: site.qr, ...site.center });
    assertTcError(await clock(app, w.token, { userId: w.id, eventType: 'clock_in', qrCodeValue: site.qr, ...site.center }), 409, 'DUPLICATE_EVENT');
    const rows = await app.platform.db.query<{ event: string; payload: string }>(
      `SELECT event, payload FROM timeclock.webhook_deliveries WHERE event LIKE 'worker.%' ORDER BY id`,
    );
    const mine = rows.map((r) => JSON.parse(r.payload) as { event: string; data: Record<string, unknown> }).filter((p) => p.data.userId === w.id);
    assert.deepEqual(mine, [{ event: 'worker.clock_in', data: { userId: w.id, timestamp: res.body.timestamp, location: site.center } }]);
  });

  test('clock history: newest first, with QR code and site names, date range and paging; 403 for another worker, 404 unknown', async () => {
    const w = await signedInWorker(app, manager);
    const other = await signedInWorker(app, manager);
    const qrB = await createQr(app, manager, { name: 'Gate B', siteId: site.siteId });
    const times: string[] = [];
    for (const [eventType, qrCodeValue] of [['clock_in', site.qr], ['clock_out', qrB.id], ['clock_in', qrB.id], ['clock_out', 'FORCE_CLOCK_OUT']] as const) {
      const res = await clock(app, w.token, { userId: w.id, eventType, qrCodeValue, ...site.center });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      times.push(res.body.timestamp as string);
    }
    const res = await call(app, 'GET', `/api/worker/clock-history/${w.id}`, { token: w.token });
    assert.equal(res.status, 200);
    assert.equal(res.headers['x-total-count'], '4');
    const [siteRow] = await app.platform.db.query<{ name: string }>(`SELECT name FROM timeclock.sites WHERE id = $1`, [site.siteId]);
    assert.deepEqual(res.body.map((e: Record<string, unknown>) => [e.event_type, e.qrCodeUsedName, e.siteName, e.timestamp, e.forced]), [
      ['clock_out', 'FORCE_CLOCK_OUT', null, times[3], true],
      ['clock_in', 'Gate B', siteRow!.name, times[2], false],
      ['clock_out', 'Gate B', siteRow!.name, times[1], false],
      ['clock_in', `QR ${site.siteId}`, siteRow!.name, times[0], false],
    ]);
    for (const e of res.body) {
      assert.deepEqual(Object.keys(e).sort(), [
        'capturedAt', 'clientEventId', 'correctionId', 'event_type', 'forced', 'id', 'late', 'notes', 'origin', 'qrCodeUsedName', 'receivedAt', 'siteName', 'timestamp', 'voided',
      ]);
      assert.equal(typeof e.id, 'number');
      // Sent online, without a capture time or client id: received when it happened, not late.
      assert.deepEqual([e.capturedAt, e.receivedAt, e.late, e.clientEventId, e.origin, e.voided, e.correctionId], [null, e.timestamp, false, null, 'punch', false, null]);
    }
    const page2 = await call(app, 'GET', `/api/worker/clock-history/${w.id}?page=2&limit=3`, { token: w.token });
    assert.deepEqual(page2.body.map((e: { id: number }) => e.id), [res.body[3].id]);
    assert.equal(page2.headers['x-total-count'], '4', 'the total of every page, not of the page');
    const page1 = await call(app, 'GET', `/api/worker/clock-history/${w.id}?page=1&limit=3`, { token: manager });
    assert.deepEqual([...page1.body, ...page2.body].map((e: { id: number }) => e.id), res.body.map((e: { id: number }) => e.id), 'the pages together: every event once');
    const past = await call(app, 'GET', `/api/worker/clock-history/${w.id}?page=3&limit=3`, { token: w.token });
    assert.deepEqual([past.status, past.body, past.headers['x-total-count']], [200, [], '4']);
    const range = await call(app, 'GET', `/api/worker/clock-history/${w.id}?from=${encodeURIComponent(times[1]!)}&to=${encodeURIComponent(times[2]!)}`, { token: manager });
    assert.deepEqual(range.body.map((e: { id: number }) => e.id), [res.body[1].id, res.body[2].id]);
    assert.equal(range.headers['x-total-count'], '2');
    const empty = await call(app, 'GET', `/api/worker/clock-history/${w.id}?from=2000-01-01T00:00:00Z&to=2000-01-02T00:00:00Z`, { token: w.token });
    assert.deepEqual(empty.body, []);

    assertTcError(await call(app, 'GET', `/api/worker/clock-history/${w.id}`, { token: other.token }), 403, 'FORBIDDEN');
    assertTcError(await call(app, 'GET', '/api/worker/clock-history/999999', { token: manager }), 404, 'NOT_FOUND');
    assertTcError(await call(app, 'GET', `/api/worker/clock-history/${w.id}?from=yesterday`, { token: w.token }), 400, 'VALIDATION_ERROR');
    assertTcError(await call(app, 'GET', `/api/worker/clock-history/${w.id}?from=2020-01-02T00:00:00Z&to=2020-01-01T00:00:00Z`, { token: w.token }), 400, 'VALIDATION_ERROR');
    assertTcError(await call(app, 'GET', `/api/worker/clock-history/${w.id}?limit=501`, { token: w.token }), 400, 'VALIDATION_ERROR');
    assertTcError(await call(app, 'GET', '/api/worker/clock-history/abc', { token: w.token }), 400, 'VALIDATION_ERROR');
  });
});

describe('FORCE_CLOCK_OUT_ENABLED=false', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp({ FORCE_CLOCK_OUT_ENABLED: 'false' });
  });
  after(() => app?.close());

  test('the FORCE_CLOCK_OUT value is refused like an unknown QR code, and recorded', async () => {
    const manager = await managerToken(app);
    const w = await signedInWorker(app, manager);
    const res = await clock(app, w.token, { userId: w.id, eventType: 'clock_out', qrCodeValue: 'FORCE_CLOCK_OUT', latitude: 1, longitude: 1 });
    assertTcError(res, 404, 'QR_CODE_INACTIVE');
    assert.equal(res.body.details.reason, 'forced clock-out is disabled');
    assert.deepEqual(await eventsOf(app, w.id), []);
    assert.equal((await alertsOf(app, w.id))[0]!.alert_type, 'qr_invalid');
  });
});
