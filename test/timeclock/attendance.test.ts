// Forgotten clock-outs (issue 30 §1): the limit of a session (work rules, the site's closing
// time, across a daylight-saving change), the reminder when the worker left the fence, the
// automatic clock-out at the last position inside the fence or at the limit, once however many
// sweeps run (concurrently, on a second instance, after a restart), with its alert, notification,
// webhook, timesheet flag and review; the sessions open too long, listed as the summary counts
// them. The sweep is the service's own class run on the app's database; punches and positions of
// the past are written as the clock and location routes write them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AttendanceSweep, departure, limitOf, nextClosing } from '../../src/timeclock/features/attendance/attendance.sweep.ts';
import { DEFAULT_WORK_RULES } from '../../src/timeclock/kernel/work-rules.ts';
import { onPostgres, startApp, type TestApp } from '../helpers/app.ts';
import { call } from '../helpers/http.ts';
import { assertTcError, circle, createQr, createSite, managerToken, signedInWorker } from '../helpers/timeclock.ts';

const MIN = 60_000;
const H = 60 * MIN;

test('a session’s limit: the work rules, or the site’s next closing time in its zone (a daylight-saving night included)', () => {
  const s = { userId: 1, eventId: 1, siteId: 1, fence: null, start: new Date('2026-03-28T22:00:00Z'), timezone: 'Europe/Berlin', closesAt: null };
  assert.equal(limitOf(s, DEFAULT_WORK_RULES)!.toISOString(), '2026-03-29T10:00:00.000Z');
  assert.equal(limitOf(s, { ...DEFAULT_WORK_RULES, autoClockOutAfterMinutes: null }), null);
  // Clocked in at 23:00 Berlin (UTC+1) on the night the clocks go forward: 06:00 the next morning is UTC+2.
  assert.equal(nextClosing(s.start, 'Europe/Berlin', '06:00').toISOString(), '2026-03-29T04:00:00.000Z');
  assert.equal(limitOf({ ...s, closesAt: '06:00' }, DEFAULT_WORK_RULES)!.toISOString(), '2026-03-29T04:00:00.000Z');
  // A closing time later the same day.
  assert.equal(nextClosing(new Date('2026-07-01T06:00:00Z'), 'Europe/Berlin', '18:30').toISOString(), '2026-07-01T16:30:00.000Z');
});

test('a departure: the newest position outside, as every one since the last inside', () => {
  const fence = circle(48.8566, 2.3522, 100);
  const at = (m: number) => new Date(Date.UTC(2026, 0, 1, 8, m));
  const inside = (m: number) => ({ at: at(m), latitude: 48.8566, longitude: 2.3522 });
  const outside = (m: number) => ({ at: at(m), latitude: 48.8666, longitude: 2.3522 });
  assert.equal(departure([inside(0), inside(10)], fence), null);
  assert.deepEqual(departure([inside(0), outside(5), inside(10), outside(20), outside(30)], fence), { lastInside: inside(10), leftAt: at(20) });
  assert.deepEqual(departure([outside(0)], fence), { lastInside: null, leftAt: at(0) });
});

describe('forgotten clock-outs', () => {
  let app: TestApp;
  let manager: string;
  let siteId: number;
  let qr: string;
  const fence = circle(48.8566, 2.3522, 100);
  const inside = { latitude: 48.8566, longitude: 2.3522 };
  const outside = { latitude: 48.8666, longitude: 2.3522 };
  const db = () => app.platform.db;
  const sweeper = (on = app) => new AttendanceSweep({ db: on.platform.db, config: on.platform.config, logger: on.platform.logger });

  const clockIn = async (userId: number, at: Date, site = siteId, code = qr) => {
    const [row] = await db().query<{ id: number }>(
      `INSERT INTO timeclock.clock_events (user_id, event_type, qr_code_id, site_id, latitude, longitude, created_at, received_at)
       VALUES ($1, 'clock_in', $2, $3, $4, $5, $6, $6) RETURNING id`,
      [userId, code, site, inside.latitude, inside.longitude, at],
    );
    await db().query(
      `INSERT INTO timeclock.worker_state (user_id, state, last_event_id) VALUES ($1, 'clock_in', $2)
       ON CONFLICT (user_id) DO UPDATE SET state = 'clock_in', last_event_id = $2`,
      [userId, row!.id],
    );
    return Number(row!.id);
  };
  const position = async (userId: number, at: Date, where: { latitude: number; longitude: number }) => {
    await db().query(
      `INSERT INTO timeclock.location_samples (user_id, latitude, longitude, accuracy, source, recorded_at, received_at) VALUES ($1, $2, $3, 10, 'background', $4, $4)`,
      [userId, where.latitude, where.longitude, at],
    );
    await db().query(
      `INSERT INTO timeclock.last_positions (user_id, latitude, longitude, accuracy, source, recorded_at, received_at) VALUES ($1, $2, $3, 10, 'background', $4, $4)
       ON CONFLICT (user_id) DO UPDATE SET latitude = $2, longitude = $3, recorded_at = $4`,
      [userId, where.latitude, where.longitude, at],
    );
  };
  const autos = (userId: number) =>
    db().query<{ id: number; created_at: Date; latitude: number | null }>(`SELECT id, created_at, latitude FROM timeclock.clock_events WHERE user_id = $1 AND origin = 'auto'`, [userId]);
  const notes = async (token: string) => (await call(app, 'GET', '/api/notifications', { token })).body.notifications as { kind: string; data: Record<string, unknown> }[];

  before(async () => {
    app = await startApp({ DISPLAY_TIMEZONE: 'UTC', TIMECLOCK_RATE_LIMIT_GENERAL: '10000', ATTENDANCE_SWEEP_MS: '3600000' });
    manager = await managerToken(app);
    siteId = (await createSite(app, manager, fence, 'Depot')).id;
    qr = (await createQr(app, manager, { name: 'Depot gate', siteId })).id;
  });
  after(() => app?.close());

  test('past the work rules’ limit, with no trail: closed at the limit, once however many sweeps run; alert, notification, webhook, timesheet flag, review', async () => {
    const w = await signedInWorker(app, manager);
    const hook = await call(app, 'POST', '/api/managers/webhooks', { token: manager, body: { url: 'https://hooks.example.com/a', events: ['worker.clock_out', 'clock.reminder'] } });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));
    const start = new Date(Date.now() - 13 * H);
    await clockIn(w.id, start);

    const results = await Promise.all([sweeper().sweep(), sweeper().sweep(), sweeper().sweep()]);
    assert.equal(results.reduce((n, r) => n + r.closed, 0), 1, JSON.stringify(results));
    assert.deepEqual((await sweeper().sweep()).closed, 0, 'a restarted sweep finds nothing left to do');
    const [auto] = await autos(w.id);
    assert.equal(auto!.created_at.toISOString(), new Date(start.getTime() + 12 * H).toISOString());
    assert.equal(auto!.latitude, null);

    const detail = await call(app, 'GET', `/api/managers/workers/${w.id}`, { token: manager });
    assert.equal(detail.body.clock_state, 'clock_out');
    const alerts = await call(app, 'GET', `/api/managers/security/alerts?userId=${w.id}&type=missed_clock_out`, { token: manager });
    assert.equal(alerts.body.alerts.length, 1);
    assert.equal(alerts.body.alerts[0].details.basis, 'limit');
    const risk = await call(app, 'GET', `/api/security/status/${w.id}`, { token: manager });
    assert.equal(risk.body.securityStatus, 'low', 'an attendance alert is no security risk');
    assert.deepEqual((await notes(w.token)).map((n) => [n.kind, n.data.basis]), [['auto_clock_out', 'limit']]);
    const delivered = await db().query<{ event: string; payload: string }>('SELECT event, payload FROM timeclock.webhook_deliveries WHERE endpoint_id = $1', [hook.body.id]);
    assert.deepEqual(delivered.map((d) => [d.event, JSON.parse(d.payload).data.auto]), [['worker.clock_out', true]]);

    const date = start.toISOString().slice(0, 10);
    const sheet = await call(app, 'GET', `/api/managers/timesheets/${w.id}?from=${date}&to=${new Date().toISOString().slice(0, 10)}`, { token: manager });
    const session = sheet.body.days.flatMap((d: { sessions: unknown[] }) => d.sessions).find((s: { start: string }) => s.start === start.toISOString());
    assert.deepEqual([session.workedSeconds, session.flags], [12 * 3600, ['auto']]);

    const counted = await call(app, 'GET', '/api/managers/exceptions/summary', { token: manager });
    assert.equal(counted.status, 200, JSON.stringify(counted.body));
    assert.ok(counted.body.autoClockOutsToReview >= 1);
    const inbox = await call(app, 'GET', '/api/managers/auto-clock-outs?reviewed=false', { token: manager });
    const mine = inbox.body.autoClockOuts.find((a: { userId: number }) => a.userId === w.id);
    assert.deepEqual([mine.id, mine.sessionStart, mine.basis, mine.siteName, mine.reviewedAt], [Number(auto!.id), start.toISOString(), 'limit', 'Depot', null]);
    const reviewed = await call(app, 'POST', `/api/managers/auto-clock-outs/${mine.id}/review`, { token: manager });
    assert.equal(reviewed.status, 200, JSON.stringify(reviewed.body));
    assert.equal(reviewed.body.reviewedBy.username, app.platform.config.MANAGER_USERNAME);
    assert.ok(!(await call(app, 'GET', '/api/managers/auto-clock-outs?reviewed=false', { token: manager })).body.autoClockOuts.some((a: { id: number }) => a.id === mine.id));
    assert.equal((await call(app, 'GET', '/api/managers/exceptions/summary', { token: manager })).body.autoClockOutsToReview, counted.body.autoClockOutsToReview - 1);
    assertTcError(await call(app, 'POST', `/api/managers/auto-clock-outs/${mine.id - 1}/review`, { token: manager }), 404, 'NOT_FOUND');
    assertTcError(await call(app, 'GET', '/api/managers/auto-clock-outs', { token: w.token }), 403, 'FORBIDDEN');
  });

  test('a worker who left the fence is reminded once, then closed at their last position inside', async () => {
    const w = await signedInWorker(app, manager);
    const start = new Date(Date.now() - 13 * H);
    await clockIn(w.id, start);
    const at = (minutes: number) => new Date(start.getTime() + minutes * MIN);
    for (const m of [5, 60, 240]) await position(w.id, at(m), inside);
    for (const m of [250, 300]) await position(w.id, at(m), outside);
    // Before the limit (now = 5 h 10 min after the clock-in): a reminder only, once.
    const early = at(310);
    assert.deepEqual(await sweeper().sweep(undefined, early), { reminded: 1, closed: 0 });
    assert.deepEqual(await sweeper().sweep(undefined, early), { reminded: 0, closed: 0 });
    assert.deepEqual((await notes(w.token)).map((n) => [n.kind, n.data.reason]), [['clock_reminder', 'left_fence']]);
    // Past the limit: closed at 240 min, the last position inside.
    const { closed } = await sweeper().sweep();
    assert.equal(closed, 1);
    const [auto] = await autos(w.id);
    assert.deepEqual([auto!.created_at.toISOString(), auto!.latitude], [at(240).toISOString(), inside.latitude]);
  });

  test('a site that closes: reminded when it closed, closed at the closing time', async () => {
    const site = await createSite(app, manager, fence, 'Shop');
    await call(app, 'PATCH', `/api/managers/sites/${site.id}`, { token: manager, body: { closesAt: '18:00', timezone: 'UTC' } });
    const shopQr = (await createQr(app, manager, { name: 'Shop door', siteId: site.id })).id;
    const w = await signedInWorker(app, manager);
    const yesterday = new Date(Date.now() - 24 * H);
    const start = new Date(`${yesterday.toISOString().slice(0, 10)}T15:00:00Z`);
    await clockIn(w.id, start, site.id, shopQr);
    const r = await sweeper().sweep();
    assert.deepEqual(r, { reminded: 1, closed: 1 });
    const [auto] = await autos(w.id);
    assert.equal(auto!.created_at.toISOString(), `${yesterday.toISOString().slice(0, 10)}T18:00:00.000Z`);
    assert.deepEqual((await notes(w.token)).map((n) => n.kind).sort(), ['auto_clock_out', 'clock_reminder']);
    const got = await call(app, 'GET', `/api/managers/sites/${site.id}`, { token: manager });
    assert.equal(got.body.closesAt, '18:00');
    assertTcError(await call(app, 'PATCH', `/api/managers/sites/${site.id}`, { token: manager, body: { closesAt: '25:00' } }), 400, 'VALIDATION_ERROR');
  });

  test('a session within its limit, or closed by the worker meanwhile, is left alone', async () => {
    const w = await signedInWorker(app, manager);
    await clockIn(w.id, new Date(Date.now() - 2 * H));
    assert.equal((await sweeper().sweep()).closed, 0);
    assert.equal((await autos(w.id)).length, 0);
  });

  test('two instances sweeping together close a session once', { skip: !onPostgres && 'needs PostgreSQL (TEST_DATABASE_URL): two instances share one database' }, async () => {
    const sibling = await app.sibling();
    try {
      const w = await signedInWorker(app, manager);
      await clockIn(w.id, new Date(Date.now() - 20 * H));
      const results = await Promise.all([sweeper().sweep(), sweeper(sibling).sweep(), sweeper().sweep(), sweeper(sibling).sweep()]);
      assert.equal(results.reduce((n, r) => n + r.closed, 0), 1);
      assert.equal((await autos(w.id)).length, 1);
    } finally {
      await sibling.close();
    }
  });

  // Last: the sweeps of the tests above would close the sessions it leaves open past the limit.
  test('the sessions open past `longSessionMinutes`: as many as the summary counts, oldest first, paged; one given its clock-out leaves; managers only', async () => {
    const [a, b, c, recent] = [await signedInWorker(app, manager), await signedInWorker(app, manager), await signedInWorker(app, manager), await signedInWorker(app, manager)];
    const now = Date.now();
    const aIn = await clockIn(a.id, new Date(now - 30 * H));
    await clockIn(b.id, new Date(now - 20 * H));
    await clockIn(c.id, new Date(now - 17 * H));
    await clockIn(recent.id, new Date(now - 2 * H));
    const seen = new Date(now - 29 * H);
    await position(a.id, seen, inside);
    await position(c.id, new Date(now - 17 * H + 5 * MIN), outside);

    const counted = (await call(app, 'GET', '/api/managers/exceptions/summary', { token: manager })).body.longOpenSessions;
    const all = await call(app, 'GET', '/api/managers/open-sessions?limit=100', { token: manager });
    assert.equal(all.status, 200, JSON.stringify(all.body));
    assert.deepEqual([all.body.totalCount, all.body.openSessions.length, all.body.longSessionMinutes], [counted, counted, DEFAULT_WORK_RULES.longSessionMinutes]);
    type Row = { userId: number; since: string; clockInEventId: number; site: unknown; minutesOpen: number; lastPositionAt: string | null; withinGeofence: boolean | null };
    const rows = all.body.openSessions as Row[];
    const starts = rows.map((r) => r.since);
    assert.deepEqual(starts, [...starts].sort(), 'oldest first');
    const ids = [a.id, b.id, c.id];
    assert.deepEqual(rows.filter((r) => ids.includes(r.userId) || r.userId === recent.id).map((r) => r.userId), ids, 'the 2-hour session is not listed');
    const first = rows.find((r) => r.userId === a.id)!;
    assert.deepEqual(
      [first.clockInEventId, first.since, first.site, first.lastPositionAt, first.withinGeofence],
      [aIn, new Date(now - 30 * H).toISOString(), { id: siteId, name: 'Depot' }, seen.toISOString(), true],
    );
    assert.ok(Math.abs(first.minutesOpen - 30 * 60) <= 1, String(first.minutesOpen));
    assert.deepEqual([rows.find((r) => r.userId === b.id)!.lastPositionAt, rows.find((r) => r.userId === b.id)!.withinGeofence], [null, null]);
    assert.equal(rows.find((r) => r.userId === c.id)!.withinGeofence, false);

    const second = await call(app, 'GET', '/api/managers/open-sessions?page=2&limit=1', { token: manager });
    assert.deepEqual([second.body.openSessions, second.body.totalCount, second.body.currentPage, second.body.totalPages], [[rows[1]], counted, 2, counted]);

    // The missing clock-out added by a correction (what the inbox's action does): b leaves the list and the count.
    const added = await call(app, 'POST', '/api/managers/corrections', {
      token: manager, body: { userId: b.id, kind: 'add', eventType: 'clock_out', at: new Date(now - 12 * H).toISOString(), reason: 'Left at the end of the shift.' },
    });
    assert.ok(added.status < 300, JSON.stringify(added.body));
    const after = await call(app, 'GET', '/api/managers/open-sessions?limit=100', { token: manager });
    assert.ok(!after.body.openSessions.some((r: Row) => r.userId === b.id));
    assert.equal(after.body.totalCount, counted - 1);
    assert.equal((await call(app, 'GET', '/api/managers/exceptions/summary', { token: manager })).body.longOpenSessions, counted - 1);

    assertTcError(await call(app, 'GET', '/api/managers/open-sessions', { token: a.token }), 403, 'FORBIDDEN');
    for (const q of ['page=0', 'limit=0', 'limit=101', 'page=x']) assertTcError(await call(app, 'GET', `/api/managers/open-sessions?${q}`, { token: manager }), 400, 'VALIDATION_ERROR');
  });
});
