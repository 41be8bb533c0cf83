// Approved and locked periods (issue 30 §3): approval refused while something is left to check;
// a lock needs approvals, stores the days as they were (a change of the work rules afterwards
// leaves them), refuses a late offline punch with its reason and any correction, never overlaps
// another lock; unlocking needs a reason and is recorded; only PERIOD_LOCK_MANAGERS may lock.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.ts';
import { call } from '../helpers/http.ts';
import { assertTcError, circle, createQr, createSite, managerToken, signedInWorker } from '../helpers/timeclock.ts';

const H = 3600;

describe('approved and locked periods', () => {
  let app: TestApp;
  let manager: string;
  let siteId: number;
  let qr: string;
  const inside = { latitude: 48.8566, longitude: 2.3522 };
  const db = () => app.platform.db;

  const punch = async (userId: number, type: 'clock_in' | 'clock_out', at: string, origin: 'punch' | 'auto' = 'punch') => {
    const [row] = await db().query<{ id: number }>(
      `INSERT INTO timeclock.clock_events (user_id, event_type, qr_code_id, site_id, latitude, longitude, created_at, received_at, origin)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8) RETURNING id`,
      [userId, type, origin === 'auto' ? null : qr, siteId, inside.latitude, inside.longitude, at, origin],
    );
    await db().query(
      `INSERT INTO timeclock.worker_state (user_id, state, last_event_id) VALUES ($1, $2, $3) ON CONFLICT (user_id) DO UPDATE SET state = $2, last_event_id = $3`,
      [userId, type, row!.id],
    );
    return Number(row!.id);
  };
  const sheet = async (userId: number, from: string, to = from) => {
    const res = await call(app, 'GET', `/api/managers/timesheets/${userId}?from=${from}&to=${to}`, { token: manager });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  };
  const approve = (userId: number, from: string, to = from) => call(app, 'POST', `/api/managers/timesheets/${userId}/approve`, { token: manager, body: { from, to } });
  const lock = (body: Record<string, unknown>) => call(app, 'POST', '/api/managers/periods/lock', { token: manager, body });
  const unlock = (body: Record<string, unknown>) => call(app, 'POST', '/api/managers/periods/unlock', { token: manager, body });

  const exported = async (body: Record<string, unknown>) => {
    const queued = await call(app, 'POST', '/api/managers/timesheets/export', { token: manager, body });
    assert.equal(queued.status, 202, JSON.stringify(queued.body));
    let task = queued.body;
    for (let i = 0; i < 400 && (task.status === 'pending' || task.status === 'processing'); i++) {
      await new Promise((r) => setTimeout(r, 50));
      task = (await call(app, 'GET', `/api/managers/exports/${task.id}`, { token: manager })).body;
    }
    assert.equal(task.status, 'completed', JSON.stringify(task));
    return (await app.app.inject({ method: 'GET', url: task.downloadUrl, headers: { authorization: `Bearer ${manager}` } })).payload;
  };

  before(async () => {
    app = await startApp({ DISPLAY_TIMEZONE: 'UTC', TIMECLOCK_RATE_LIMIT_GENERAL: '10000', TIMECLOCK_RATE_LIMIT_CLOCK: '1000', CLOCK_MIN_INTERVAL_SECONDS: '0', CLOCK_CAPTURE_WINDOW_HOURS: '72' });
    manager = await managerToken(app);
    siteId = (await createSite(app, manager, circle(inside.latitude, inside.longitude, 100), 'Depot')).id;
    qr = (await createQr(app, manager, { name: 'Depot gate', siteId })).id;
  });
  after(() => app?.close());

  test('approval is refused while an automatic clock-out is not reviewed or a request not decided; then the days show approved', async () => {
    const w = await signedInWorker(app, manager);
    await punch(w.id, 'clock_in', '2026-04-06T08:00:00Z');
    const auto = await punch(w.id, 'clock_out', '2026-04-06T20:00:00Z', 'auto');
    await punch(w.id, 'clock_in', '2026-04-07T08:00:00Z');
    await punch(w.id, 'clock_out', '2026-04-07T16:00:00Z');
    const asked = await call(app, 'POST', '/api/worker/corrections', { token: w.token, body: { kind: 'move', eventId: auto, at: '2026-04-06T17:00:00Z', reason: 'left at five' } });
    assert.equal(asked.status, 201, JSON.stringify(asked.body));

    let res = await approve(w.id, '2026-04-06', '2026-04-12');
    assertTcError(res, 409, 'PERIOD_NOT_READY');
    assert.deepEqual([res.body.details.autoClockOuts, res.body.details.pendingCorrections], [[auto], [asked.body.id]]);
    assert.match(res.body.message, /1 automatic clock-out/);
    assert.equal((await approve(w.id, '2026-04-07')).status, 201, 'a day without exceptions can be approved');

    assert.equal((await call(app, 'POST', `/api/managers/corrections/${asked.body.id}/approve`, { token: manager })).status, 200);
    assert.equal((await call(app, 'POST', `/api/managers/auto-clock-outs/${auto}/review`, { token: manager })).status, 200);
    res = await approve(w.id, '2026-04-06', '2026-04-12');
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.approvedBy, (await call(app, 'GET', '/api/me', { token: manager })).body.userId);
    const s = await sheet(w.id, '2026-04-05', '2026-04-07');
    assert.deepEqual(s.days.map((d: { approved: boolean; locked: boolean }) => [d.approved, d.locked]), [[false, false], [true, false], [true, false]]);
    assertTcError(await approve(999_999, '2026-04-06'), 404, 'NOT_FOUND');
    assertTcError(await approve(w.id, '2026-04-07', '2026-04-01'), 400, 'VALIDATION_ERROR');
  });

  test('a lock needs approvals, keeps the days as they were, refuses a late punch and any correction, and is lifted only with a reason', async () => {
    const w = await signedInWorker(app, manager);
    const idle = await signedInWorker(app, manager);
    // Yesterday, 07:00 to 17:00, 10 h. The capture window is 72 h here so that a late punch
    // captured yesterday at 18:00 is inside it whatever the time of day the test runs.
    const day = new Date(Date.now() - 24 * H * 1000).toISOString().slice(0, 10);
    await punch(w.id, 'clock_in', `${day}T07:00:00Z`);
    const out = await punch(w.id, 'clock_out', `${day}T17:00:00Z`);

    let res = await lock({ from: day, to: day, userIds: [w.id, idle.id] });
    assertTcError(res, 409, 'PERIOD_NOT_READY');
    assert.deepEqual(res.body.details.notApproved, [w.id], 'a worker with no punches needs no approval');
    assert.equal((await approve(w.id, day)).status, 201);
    res = await lock({ from: day, to: day, userIds: [w.id, idle.id] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual([res.body.locked, res.body.userIds], [2, [w.id, idle.id]]);
    assertTcError(await lock({ from: day, to: day, userIds: [w.id] }), 409, 'CONFLICT');

    const before = (await sheet(w.id, day)).days[0];
    assert.deepEqual([before.locked, before.approved, before.overtimeSeconds], [true, true, 2 * H]);
    // The rules change: no daily overtime. The locked day keeps its figures; an open day follows.
    const rules = (await call(app, 'GET', '/api/managers/work-rules', { token: manager })).body;
    const { updatedAt: _a, updatedBy: _b, ...body } = rules;
    assert.equal((await call(app, 'PUT', '/api/managers/work-rules', { token: manager, body: { ...body, dailyOvertimeAfterMinutes: null } })).status, 200);
    assert.equal((await sheet(w.id, day)).days[0].overtimeSeconds, 2 * H);

    // A punch captured inside the locked day, arriving late: refused with its reason.
    const late = await call(app, 'POST', '/api/clock', {
      token: w.token,
      body: { userId: w.id, eventType: 'clock_in', qrCodeValue: qr, ...inside, capturedAt: `${day}T18:00:00Z`, clientEventId: randomUUID() },
    });
    assertTcError(late, 409, 'PERIOD_LOCKED');
    assert.match(late.body.message, /Ask your manager/);
    assert.equal(late.body.details.date, day);
    // Corrections inside it are refused too.
    assertTcError(await call(app, 'POST', '/api/managers/corrections', { token: manager, body: { userId: w.id, kind: 'move', eventId: out, at: `${day}T16:00:00Z`, reason: 'x' } }), 409, 'PERIOD_LOCKED');
    assertTcError(await call(app, 'POST', '/api/worker/corrections', { token: w.token, body: { kind: 'move', eventId: out, at: `${day}T16:00:00Z`, reason: 'x' } }), 409, 'PERIOD_LOCKED');

    // The payroll export limited to locked periods: that day only, saying so.
    const earlier = new Date(Date.parse(`${day}T00:00:00Z`) - 24 * H * 1000).toISOString().slice(0, 10);
    await punch(w.id, 'clock_in', `${earlier}T07:00:00Z`);
    await punch(w.id, 'clock_out', `${earlier}T09:00:00Z`);
    const file = await exported({ from: earlier, to: day, format: 'csv', detail: 'days', periods: 'locked', search: w.username });
    const lines = file.replace(/^\uFEFF/, '').trim().split(/\r?\n/);
    assert.equal(lines.length, 2, file);
    assert.match(lines[0]!, /Period$/);
    assert.match(lines[1]!, new RegExp(`${day}.*,locked$`));
    assert.equal((await exported({ from: earlier, to: day, format: 'csv', detail: 'days', search: w.username })).trim().split(/\r?\n/).length, 3, 'all days by default');

    // Unlocking needs a reason, and is recorded.
    assertTcError(await unlock({ from: day, to: day }), 400, 'VALIDATION_ERROR');
    res = await unlock({ from: day, to: day, userIds: [w.id], reason: 'payroll rerun for a missed bonus' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual([res.body.unlocked, res.body.userIds], [1, [w.id]]);
    const [row] = await db().query<{ unlock_reason: string; unlocked_by: number }>('SELECT unlock_reason, unlocked_by FROM timeclock.period_locks WHERE user_id = $1', [w.id]);
    assert.equal(row!.unlock_reason, 'payroll rerun for a missed bonus');
    assertTcError(await unlock({ from: day, to: day, userIds: [w.id], reason: 'again' }), 404, 'NOT_FOUND');
    const after = (await sheet(w.id, day)).days[0];
    assert.deepEqual([after.locked, after.overtimeSeconds], [false, 0], 'unlocked, the day is computed again under the rules in force');
    assert.equal((await call(app, 'POST', '/api/managers/corrections', { token: manager, body: { userId: w.id, kind: 'move', eventId: out, at: `${day}T16:00:00Z`, reason: 'gate log' } })).status, 201);
    assert.equal((await call(app, 'PUT', '/api/managers/work-rules', { token: manager, body })).status, 200);
  });

  test('a lock of every worker: each worker with punches must be approved, then every one is locked', async () => {
    const w = await signedInWorker(app, manager);
    await punch(w.id, 'clock_in', '2026-02-02T08:00:00Z');
    await punch(w.id, 'clock_out', '2026-02-02T12:00:00Z');
    let res = await lock({ from: '2026-02-02', to: '2026-02-02' });
    assertTcError(res, 409, 'PERIOD_NOT_READY');
    assert.ok(res.body.details.notApproved.includes(w.id));
    for (const id of res.body.details.notApproved as number[]) assert.equal((await approve(id, '2026-02-02')).status, 201);
    res = await lock({ from: '2026-02-02', to: '2026-02-02' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.ok(res.body.userIds.includes(w.id));
    assert.equal((await sheet(w.id, '2026-02-02')).days[0].locked, true);
    assert.equal((await unlock({ from: '2026-02-02', to: '2026-02-02', reason: 'test over' })).status, 200);
  });

  test('only the managers PERIOD_LOCK_MANAGERS names lock and unlock', async () => {
    const other = await startApp({ DISPLAY_TIMEZONE: 'UTC', PERIOD_LOCK_MANAGERS: 'payroll-lead' });
    try {
      const token = await managerToken(other);
      const res = await call(other, 'POST', '/api/managers/periods/lock', { token, body: { from: '2026-01-01', to: '2026-01-31' } });
      assertTcError(res, 403, 'FORBIDDEN');
      assert.match(res.body.message, /PERIOD_LOCK_MANAGERS/);
      assertTcError(await call(other, 'POST', '/api/managers/periods/unlock', { token, body: { from: '2026-01-01', to: '2026-01-31', reason: 'x' } }), 403, 'FORBIDDEN');
    } finally {
      await other.close();
    }
  });
});
