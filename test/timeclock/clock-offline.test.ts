// Offline punches on POST /api/clock: the client event id (a replay answers the original
// result and records nothing new, also under concurrency; another body with a used id is a
// 409), the capture time (window, order, state and history as of it, QR codes deactivated
// after it), late punches for managers (listed, reviewed) and the implausible-gap alert.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/platform/config.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { call, type Reply } from '../helpers/http.ts';
import { assertTcError, circle, createQr, managerToken, signedInWorker, siteWithQr, tokenUserId } from '../helpers/timeclock.ts';

type Worker = Awaited<ReturnType<typeof signedInWorker>>;
type Site = Awaited<ReturnType<typeof siteWithQr>>;

const HOUR = 3_600_000;
/** An instant `ms` from now, ISO 8601 UTC. */
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

function punch(app: TestApp, token: string, body: Record<string, unknown>): Promise<Reply> {
  return call(app, 'POST', '/api/clock', { token, body });
}

const counts = async (app: TestApp, userId: number) => {
  const [row] = await app.platform.db.query<Record<string, number>>(
    `SELECT (SELECT count(*)::int FROM timeclock.clock_events WHERE user_id = $1) AS events,
            (SELECT count(*)::int FROM timeclock.security_alerts WHERE user_id = $1) AS alerts,
            (SELECT count(*)::int FROM timeclock.location_samples WHERE user_id = $1) AS positions,
            (SELECT count(*)::int FROM timeclock.webhook_deliveries WHERE (payload::jsonb -> 'data' ->> 'userId')::bigint = $1) AS webhooks`,
    [userId],
  );
  return { events: Number(row!.events), alerts: Number(row!.alerts), positions: Number(row!.positions), webhooks: Number(row!.webhooks) };
};

async function alertsOf(app: TestApp, userId: number) {
  return app.platform.db.query<{ alert_type: string; severity: string; details: Record<string, any> }>(
    `SELECT alert_type, severity, details FROM timeclock.security_alerts WHERE user_id = $1 ORDER BY id`,
    [userId],
  );
}

const history = async (app: TestApp, w: Worker, query = '') => {
  const res = await call(app, 'GET', `/api/worker/clock-history/${w.id}${query}`, { token: w.token });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as Record<string, any>[];
};

describe('offline punches', () => {
  let app: TestApp;
  let manager: string;
  let site: Site;
  const body = (w: Worker, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ userId: w.id, eventType: 'clock_in', qrCodeValue: site.qr, ...site.center, ...extra });

  before(async () => {
    app = await startApp();
    manager = await managerToken(app);
    site = await siteWithQr(app, manager, circle(48.8566, 2.3522, 100));
    // Every clock webhook is queued for this endpoint (never delivered: nothing listens on port 9).
    await app.platform.db.query(
      `INSERT INTO timeclock.webhook_endpoints (url, events, secret, is_active)
       VALUES ('http://127.0.0.1:9/hook', ARRAY['worker.clock_in','worker.clock_out','security.violation'], 's', true)`,
    );
  });
  after(() => app?.close());

  test('a replay with the same client event id answers the original 200 and records nothing new', async () => {
    const w = await signedInWorker(app, manager);
    const id = randomUUID();
    const capturedAt = ago(3 * HOUR);
    const first = await punch(app, w.token, body(w, { clientEventId: id, capturedAt, notes: 'basement, no signal' }));
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual(Object.keys(first.body).sort(), ['clientEventId', 'eventType', 'late', 'location', 'message', 'receivedAt', 'timestamp']);
    assert.equal(first.body.timestamp, capturedAt);
    assert.equal(first.body.late, true);
    assert.equal(first.body.clientEventId, id);
    assert.ok(Date.parse(first.body.receivedAt) > Date.parse(capturedAt));
    const recorded = await counts(app, w.id);
    assert.deepEqual(recorded, { events: 1, alerts: 0, positions: 1, webhooks: 1 });

    // The same id in upper case is the same id.
    for (const clientEventId of [id, id.toUpperCase(), id]) {
      const again = await punch(app, w.token, body(w, { clientEventId, capturedAt, notes: 'basement, no signal' }));
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.deepEqual(again.body, first.body);
    }
    assert.deepEqual(await counts(app, w.id), recorded);
    const [event] = await app.platform.db.query<{ client_event_id: string; recorded_by: number }>(
      'SELECT client_event_id, recorded_by FROM timeclock.clock_events WHERE user_id = $1',
      [w.id],
    );
    assert.equal(event!.client_event_id, id);
    assert.equal(Number(event!.recorded_by), w.id);
    // Another worker may use the same id for their own punch.
    const other = await signedInWorker(app, manager);
    assert.equal((await punch(app, other.token, body(other, { clientEventId: id, capturedAt }))).status, 200);
    assert.equal((await counts(app, other.id)).events, 1);
  });

  test('20 concurrent identical requests: one event, one position, one webhook, 20 identical answers', async () => {
    const w = await signedInWorker(app, manager);
    const b = body(w, { clientEventId: randomUUID(), capturedAt: ago(HOUR) });
    const replies = await Promise.all(Array.from({ length: 20 }, () => punch(app, w.token, b)));
    assert.deepEqual(replies.map((r) => r.status), Array(20).fill(200), JSON.stringify(replies.map((r) => r.body)));
    for (const r of replies) assert.deepEqual(r.body, replies[0]!.body);
    assert.deepEqual(await counts(app, w.id), { events: 1, alerts: 0, positions: 1, webhooks: 1 });
  });

  test('20 concurrent replays of a refused punch: one refusal recorded, 20 identical answers', async () => {
    const w = await signedInWorker(app, manager);
    const b = body(w, { clientEventId: randomUUID(), latitude: site.center.latitude + 0.05 });
    const replies = await Promise.all(Array.from({ length: 20 }, () => punch(app, w.token, b)));
    for (const r of replies) {
      assertTcError(r, 403, 'OUTSIDE_GEOFENCE');
      assert.deepEqual(r.body, replies[0]!.body);
    }
    assert.deepEqual(await counts(app, w.id), { events: 0, alerts: 1, positions: 0, webhooks: 1 });
  });

  test('concurrent requests with one id and two bodies: one is recorded, the other body is 409 CLIENT_EVENT_ID_REUSED', async () => {
    const w = await signedInWorker(app, manager);
    const clientEventId = randomUUID();
    const a = body(w, { clientEventId, notes: 'A' });
    const b = body(w, { clientEventId, notes: 'B' });
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => punch(app, w.token, i % 2 === 0 ? a : b)));
    const ok = replies.filter((r) => r.status === 200);
    const reused = replies.filter((r) => r.status === 409);
    assert.equal(ok.length + reused.length, 20, JSON.stringify(replies.map((r) => [r.status, r.body])));
    assert.equal(ok.length, 10);
    for (const r of reused) {
      assertTcError(r, 409, 'CLIENT_EVENT_ID_REUSED');
      assert.deepEqual(r.body.details.fields, ['notes']);
    }
    for (const r of ok) assert.deepEqual(r.body, ok[0]!.body);
    assert.equal((await counts(app, w.id)).events, 1);
  });

  test('the same id with a different body is 409 CLIENT_EVENT_ID_REUSED naming the fields; the same instant in another offset is a replay', async () => {
    const w = await signedInWorker(app, manager);
    const clientEventId = randomUUID();
    const captured = new Date(Date.now() - 2 * HOUR);
    captured.setUTCMilliseconds(0);
    const original = body(w, { clientEventId, capturedAt: captured.toISOString() });
    const first = await punch(app, w.token, original);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const qrB = await createQr(app, manager, { name: 'Side door', siteId: site.siteId });
    const variants: [Record<string, unknown>, string[]][] = [
      [{ eventType: 'clock_out' }, ['eventType']],
      [{ qrCodeValue: qrB.id }, ['qrCodeValue']],
      [{ latitude: site.center.latitude + 0.0001 }, ['latitude']],
      [{ longitude: site.center.longitude + 0.0001, notes: 'x' }, ['longitude', 'notes']],
      [{ capturedAt: new Date(captured.getTime() + 1000).toISOString() }, ['capturedAt']],
      [{ capturedAt: undefined }, ['capturedAt']],
    ];
    for (const [change, fields] of variants) {
      const res = await punch(app, w.token, { ...original, ...change });
      assertTcError(res, 409, 'CLIENT_EVENT_ID_REUSED');
      assert.deepEqual(res.body.details.fields, fields, JSON.stringify(change));
      assert.equal(res.body.details.clientEventId, clientEventId);
    }
    // 2 hours ago in UTC+05:30 is the same instant.
    const shifted = new Date(captured.getTime() + 5.5 * HOUR).toISOString().replace('Z', '+05:30');
    const same = await punch(app, w.token, { ...original, capturedAt: shifted });
    assert.equal(same.status, 200, JSON.stringify(same.body));
    assert.deepEqual(same.body, first.body);
    assert.deepEqual(await counts(app, w.id), { events: 1, alerts: 0, positions: 1, webhooks: 1 });
  });

  test('a refused punch replayed answers the same refusal, even after the state changed, with one security event', async () => {
    const w = await signedInWorker(app, manager);
    // Clocking out while clocked out: 409 DUPLICATE_EVENT.
    const out = body(w, { eventType: 'clock_out', clientEventId: randomUUID() });
    const refused = await punch(app, w.token, out);
    assertTcError(refused, 409, 'DUPLICATE_EVENT');
    assert.deepEqual((await alertsOf(app, w.id)).map((a) => a.alert_type), ['duplicate_event']);
    assert.equal((await alertsOf(app, w.id))[0]!.details.clientEventId, out.clientEventId);
    // The worker clocks in; the refused clock-out, sent again, stays refused and is not recorded.
    assert.equal((await punch(app, w.token, body(w, { clientEventId: randomUUID() }))).status, 200);
    const replay = await punch(app, w.token, out);
    assertTcError(replay, 409, 'DUPLICATE_EVENT');
    assert.deepEqual(replay.body, refused.body);
    // An unknown QR code, replayed.
    const unknown = body(w, { eventType: 'clock_out', qrCodeValue: randomUUID(), clientEventId: randomUUID() });
    const notFound = await punch(app, w.token, unknown);
    assertTcError(notFound, 404, 'QR_CODE_INACTIVE');
    assert.deepEqual((await punch(app, w.token, unknown)).body, notFound.body);
    assert.deepEqual((await alertsOf(app, w.id)).map((a) => a.alert_type), ['duplicate_event', 'qr_invalid']);
    assert.deepEqual((await history(app, w)).map((e) => e.event_type), ['clock_in']);
  });

  test('answers that depend on the caller are not stored: another worker’s 403 does not use up the id', async () => {
    const w = await signedInWorker(app, manager);
    const intruder = await signedInWorker(app, manager);
    const b = body(w, { clientEventId: randomUUID() });
    assertTcError(await punch(app, intruder.token, b), 403, 'FORBIDDEN');
    assert.equal((await punch(app, w.token, b)).status, 200);
  });

  test('capturedAt too far in the future or too old is 400 VALIDATION_ERROR naming it, recorded nowhere; within the skew allowance it is recorded at receipt', async () => {
    const w = await signedInWorker(app, manager);
    const future = await punch(app, w.token, body(w, { capturedAt: ago(-10 * 60_000) }));
    assertTcError(future, 400, 'VALIDATION_ERROR');
    assert.deepEqual([future.body.details.field, future.body.details.reason], ['capturedAt', 'in the future']);
    const old = await punch(app, w.token, body(w, { capturedAt: ago(25 * HOUR) }));
    assertTcError(old, 400, 'VALIDATION_ERROR');
    assert.deepEqual([old.body.details.field, old.body.details.reason, old.body.details.windowHours], ['capturedAt', 'too old', 24]);
    assert.match(old.body.message, /capturedAt/);
    for (const capturedAt of ['2026-01-01T10:00:00', 'yesterday', '2026-01-01T10:00:00+02']) {
      const bad = await punch(app, w.token, body(w, { capturedAt }));
      assertTcError(bad, 400, 'VALIDATION_ERROR');
      assert.match(bad.body.message, /capturedAt/, capturedAt);
    }
    for (const clientEventId of ['not-a-uuid', '00000000-0000-0000-0000-000000000000', `${randomUUID()}0`]) {
      assertTcError(await punch(app, w.token, body(w, { clientEventId })), 400, 'VALIDATION_ERROR');
    }
    assert.deepEqual(await counts(app, w.id), { events: 0, alerts: 0, positions: 0, webhooks: 0 });

    // A refusal for a capture time out of range is final for its client event id.
    const tooOld = body(w, { clientEventId: randomUUID(), capturedAt: ago(25 * HOUR) });
    const first = await punch(app, w.token, tooOld);
    assertTcError(first, 400, 'VALIDATION_ERROR');
    assert.deepEqual((await punch(app, w.token, tooOld)).body, first.body);

    // 60 s ahead (a fast device clock): accepted, recorded at its receipt, not late.
    const capturedAt = ago(-60_000);
    const ahead = await punch(app, w.token, body(w, { capturedAt }));
    assert.equal(ahead.status, 200, JSON.stringify(ahead.body));
    assert.equal(ahead.body.timestamp, ahead.body.receivedAt);
    assert.ok(ahead.body.timestamp < capturedAt);
    assert.equal(ahead.body.late, false);
    const [item] = await history(app, w);
    assert.deepEqual([item!.capturedAt, item!.timestamp, item!.late], [capturedAt, ahead.body.timestamp, false]);
  });

  test('a punch captured before an event already recorded is 409 LATER_EVENT_RECORDED, recorded as a refusal', async () => {
    const w = await signedInWorker(app, manager);
    const online = await punch(app, w.token, body(w));
    assert.equal(online.status, 200);
    const res = await punch(app, w.token, body(w, { eventType: 'clock_out', capturedAt: ago(HOUR), clientEventId: randomUUID() }));
    assertTcError(res, 409, 'LATER_EVENT_RECORDED');
    assert.equal(res.body.details.latestEventAt, online.body.timestamp);
    assert.equal(res.body.details.currentState, 'clock_in');
    assert.deepEqual((await alertsOf(app, w.id)).map((a) => [a.alert_type, a.severity]), [['out_of_order_event', 'low']]);
    assert.deepEqual((await history(app, w)).map((e) => e.event_type), ['clock_in']);
  });

  test('state and history follow the capture time: queued punches sent later, then an online one', async () => {
    const w = await signedInWorker(app, manager);
    const times = [ago(3 * HOUR), ago(2 * HOUR), ago(HOUR)];
    const types = ['clock_in', 'clock_out', 'clock_in'];
    for (let i = 0; i < 3; i++) {
      const res = await punch(app, w.token, body(w, { eventType: types[i], capturedAt: times[i], clientEventId: randomUUID() }));
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.timestamp, times[i]);
    }
    // As of 30 minutes ago the worker was clocked in: a clock-in captured then is a duplicate.
    const dup = await punch(app, w.token, body(w, { capturedAt: ago(HOUR / 2) }));
    assertTcError(dup, 409, 'DUPLICATE_EVENT');
    assert.equal(dup.body.details.currentState, 'clock_in');
    const now = await punch(app, w.token, body(w, { eventType: 'clock_out' }));
    assert.equal(now.status, 200);
    const items = await history(app, w);
    assert.deepEqual(items.map((e) => [e.event_type, e.timestamp, e.late]), [
      ['clock_out', now.body.timestamp, false],
      ['clock_in', times[2], true],
      ['clock_out', times[1], true],
      ['clock_in', times[0], true],
    ]);
    for (const e of items.slice(1)) assert.equal(e.capturedAt, e.timestamp);
    // The range filters on the events' time.
    const range = await history(app, w, `?from=${encodeURIComponent(ago(2.5 * HOUR))}&to=${encodeURIComponent(ago(HOUR / 2))}`);
    assert.deepEqual(range.map((e) => e.timestamp), [times[2], times[1]]);
    // The webhooks carry the capture time.
    const hooks = await app.platform.db.query<{ payload: string }>(
      `SELECT payload FROM timeclock.webhook_deliveries WHERE event LIKE 'worker.%' AND (payload::jsonb -> 'data' ->> 'userId')::bigint = $1 ORDER BY id`,
      [w.id],
    );
    assert.deepEqual(hooks.map((h) => (JSON.parse(h.payload) as { data: { timestamp: string; late?: boolean } }).data).map((d) => [d.timestamp, d.late]), [
      [times[0], true], [times[1], true], [times[2], true], [now.body.timestamp, undefined],
    ]);
  });

  test('a QR code deactivated after the capture time is accepted for that punch, not for a later one', async () => {
    const qr = await createQr(app, manager, { name: 'Retired gate', siteId: site.siteId });
    assert.equal((await call(app, 'PATCH', `/api/managers/qr-codes/${qr.id}`, { token: manager, body: { is_active: false } })).status, 200);
    const w = await signedInWorker(app, manager);
    const before = await punch(app, w.token, body(w, { qrCodeValue: qr.id, capturedAt: ago(HOUR) }));
    assert.equal(before.status, 200, JSON.stringify(before.body));
    const after = await punch(app, w.token, body(w, { eventType: 'clock_out', qrCodeValue: qr.id, capturedAt: new Date().toISOString() }));
    assertTcError(after, 404, 'QR_CODE_INACTIVE');
    assertTcError(await punch(app, w.token, body(w, { eventType: 'clock_out', qrCodeValue: qr.id })), 404, 'QR_CODE_INACTIVE');
  });

  test('FORCE_CLOCK_OUT sent late: recorded at its capture time, flagged late, replayed once', async () => {
    const w = await signedInWorker(app, manager);
    assert.equal((await punch(app, w.token, body(w, { capturedAt: ago(5 * HOUR) }))).status, 200);
    const forced = { userId: w.id, eventType: 'clock_out', qrCodeValue: 'FORCE_CLOCK_OUT', ...site.center, capturedAt: ago(4 * HOUR), clientEventId: randomUUID() };
    const res = await punch(app, w.token, forced);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual([res.body.timestamp, res.body.late], [forced.capturedAt, true]);
    assert.deepEqual((await punch(app, w.token, forced)).body, res.body);
    assert.deepEqual((await alertsOf(app, w.id)).map((a) => a.alert_type), ['forced_clock_out']);
    assert.deepEqual((await history(app, w)).map((e) => [e.event_type, e.forced]), [['clock_out', true], ['clock_in', false]]);
  });

  test('late punches: listed for managers, filtered by review, marked reviewed (who and when)', async () => {
    const w = await signedInWorker(app, manager);
    const capturedAt = ago(3 * HOUR);
    const clientEventId = randomUUID();
    const late = await punch(app, w.token, body(w, { capturedAt, clientEventId, notes: 'tunnel' }));
    assert.equal(late.status, 200);
    // Captured a few seconds ago: not late.
    const prompt = await punch(app, w.token, body(w, { eventType: 'clock_out', capturedAt: ago(5000) }));
    assert.equal(prompt.status, 200);
    assert.equal(prompt.body.late, false);

    const list = (q: string) => call(app, 'GET', `/api/managers/late-punches?userId=${w.id}${q}`, { token: manager });
    const pending = await list('&reviewed=false');
    assert.equal(pending.status, 200, JSON.stringify(pending.body));
    assert.deepEqual([pending.body.totalCount, pending.body.currentPage, pending.body.totalPages], [1, 1, 1]);
    const [item] = pending.body.punches;
    assert.deepEqual(item, {
      id: item.id,
      user_id: w.id,
      username: w.username,
      full_name: item.full_name,
      event_type: 'clock_in',
      timestamp: capturedAt,
      capturedAt,
      receivedAt: late.body.receivedAt,
      delaySeconds: Math.floor((Date.parse(late.body.receivedAt) - Date.parse(capturedAt)) / 1000),
      qrCodeUsedName: `QR ${site.siteId}`,
      forced: false,
      notes: 'tunnel',
      location: site.center,
      clientEventId,
      implausibleGap: false,
      reviewedAt: null,
      reviewedBy: null,
    });

    const reviewed = await call(app, 'POST', `/api/managers/late-punches/${item.id}/review`, { token: manager });
    assert.equal(reviewed.status, 200, JSON.stringify(reviewed.body));
    assert.deepEqual(reviewed.body.reviewedBy, { id: tokenUserId(manager), username: app.platform.config.MANAGER_USERNAME });
    assert.ok(Date.parse(reviewed.body.reviewedAt) >= Date.parse(late.body.receivedAt));
    assert.deepEqual((await list('&reviewed=false')).body.punches, []);
    assert.deepEqual((await list('&reviewed=true')).body.punches, [reviewed.body]);
    assert.deepEqual((await list('')).body.punches, [reviewed.body]);
    // Reviewing again keeps the first review.
    assert.deepEqual((await call(app, 'POST', `/api/managers/late-punches/${item.id}/review`, { token: manager })).body, reviewed.body);
    // The prompt punch is not a late one; nor is an unknown id.
    const [promptEvent] = (await history(app, w)).filter((e) => !e.late);
    assertTcError(await call(app, 'POST', `/api/managers/late-punches/${promptEvent!.id}/review`, { token: manager }), 404, 'NOT_FOUND');
    assertTcError(await call(app, 'POST', '/api/managers/late-punches/999999999/review', { token: manager }), 404, 'NOT_FOUND');
    assertTcError(await call(app, 'GET', '/api/managers/late-punches?limit=101', { token: manager }), 400, 'VALIDATION_ERROR');
    assertTcError(await call(app, 'GET', '/api/managers/late-punches?reviewed=maybe', { token: manager }), 400, 'VALIDATION_ERROR');
  });

  test('a late punch over CLOCK_LATE_ALERT_HOURS raises a late_punch alert (medium), once', async () => {
    const w = await signedInWorker(app, manager);
    const b = body(w, { capturedAt: ago(13 * HOUR), clientEventId: randomUUID() });
    const res = await punch(app, w.token, b);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal((await punch(app, w.token, b)).status, 200);
    const alerts = await alertsOf(app, w.id);
    assert.deepEqual(alerts.map((a) => [a.alert_type, a.severity]), [['late_punch', 'medium']]);
    assert.deepEqual(alerts[0]!.details.reasons, ['received more than 12 h after its capture']);
    assert.equal(alerts[0]!.details.clientEventId, b.clientEventId);
    const listed = await call(app, 'GET', `/api/managers/late-punches?userId=${w.id}`, { token: manager });
    assert.equal(listed.body.punches[0].implausibleGap, true);
  });

  test('a late punch whose worker was heard from meanwhile raises a late_punch alert (high); a reconnection burst does not', async () => {
    const locate = (w: Worker) => call(app, 'POST', '/api/location/update', {
      token: w.token, body: { userId: w.id, ...site.center, accuracy: 10, source: 'background' },
    });
    // The phone reconnects, sends its position, then its queued punch: not suspicious.
    const burst = await signedInWorker(app, manager);
    assert.equal((await locate(burst)).status, 200);
    const quiet = await punch(app, burst.token, body(burst, { capturedAt: ago(3 * HOUR) }));
    assert.equal(quiet.status, 200);
    assert.equal(quiet.body.late, true);
    assert.deepEqual(await alertsOf(app, burst.id), []);

    // A position received an hour ago, after the punch's capture two hours ago: it was online.
    const w = await signedInWorker(app, manager);
    assert.equal((await locate(w)).status, 200);
    await app.platform.db.query(`UPDATE timeclock.location_samples SET received_at = now() - interval '1 hour' WHERE user_id = $1`, [w.id]);
    const res = await punch(app, w.token, body(w, { capturedAt: ago(2 * HOUR) }));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const alerts = await alertsOf(app, w.id);
    assert.deepEqual(alerts.map((a) => [a.alert_type, a.severity]), [['late_punch', 'high']]);
    assert.deepEqual(alerts[0]!.details.heardFrom.map((h: { source: string }) => h.source), ['location_update']);
    assert.deepEqual(alerts[0]!.details.reasons, ['the worker was heard from between its capture and its receipt']);
    const [item] = (await call(app, 'GET', `/api/managers/late-punches?userId=${w.id}`, { token: manager })).body.punches;
    assert.equal(item.implausibleGap, true);
  });
});

describe('offline punches: configured limits', () => {
  let app: TestApp;
  let manager: string;
  let site: Site;
  before(async () => {
    app = await startApp({
      CLOCK_CAPTURE_WINDOW_HOURS: '2',
      CLOCK_CAPTURE_FUTURE_SECONDS: '0',
      CLOCK_LATE_AFTER_SECONDS: '3600',
      CLOCK_LATE_ALERT_HOURS: '1',
      CLOCK_LATE_ONLINE_ALERT: 'false',
    });
    manager = await managerToken(app);
    site = await siteWithQr(app, manager);
  });
  after(() => app?.close());

  test('window, skew allowance, late threshold and alert gap follow the settings', async () => {
    const w = await signedInWorker(app, manager);
    const b = (extra: Record<string, unknown>) => ({ userId: w.id, eventType: 'clock_in', qrCodeValue: site.qr, ...site.center, ...extra });
    assertTcError(await punch(app, w.token, b({ capturedAt: ago(3 * HOUR) })), 400, 'VALIDATION_ERROR');
    assertTcError(await punch(app, w.token, b({ capturedAt: ago(-5000) })), 400, 'VALIDATION_ERROR');
    const in90 = await punch(app, w.token, b({ capturedAt: ago(1.5 * HOUR) }));
    assert.equal(in90.status, 200, JSON.stringify(in90.body));
    assert.equal(in90.body.late, true);
    const out30 = await punch(app, w.token, b({ eventType: 'clock_out', capturedAt: ago(HOUR / 2) }));
    assert.equal(out30.status, 200, JSON.stringify(out30.body));
    assert.equal(out30.body.late, false);
    assert.deepEqual((await alertsOf(app, w.id)).map((a) => [a.alert_type, a.details.reasons]), [['late_punch', ['received more than 1 h after its capture']]]);
  });

  test('the settings are validated at start-up', () => {
    for (const [key, value] of [['CLOCK_CAPTURE_WINDOW_HOURS', '0'], ['CLOCK_CAPTURE_FUTURE_SECONDS', '-1'], ['CLOCK_LATE_AFTER_SECONDS', 'soon'], ['CLOCK_LATE_ONLINE_ALERT', 'perhaps']]) {
      assert.throws(() => loadConfig({ [key!]: value }), (err: unknown) => err instanceof ConfigError && err.message.includes(key!), `${key}=${value}`);
    }
    const defaults = loadConfig({});
    assert.deepEqual(
      [defaults.CLOCK_CAPTURE_WINDOW_HOURS, defaults.CLOCK_CAPTURE_FUTURE_SECONDS, defaults.CLOCK_LATE_AFTER_SECONDS, defaults.CLOCK_LATE_ALERT_HOURS, defaults.CLOCK_LATE_ONLINE_ALERT, defaults.CLOCK_LATE_ONLINE_GRACE_SECONDS],
      [24, 120, 120, 12, true, 120],
    );
  });
});
