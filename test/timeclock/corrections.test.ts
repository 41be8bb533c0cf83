// Corrections of punches (issue 30): every kind made by a manager, the original punch kept and
// the totals recomputed; refusals that would break the alternation of punches, every bad field
// at once, a refused correction changing nothing; a worker's request with its evidence (the
// trail judged against the fence, a suggested time), approval, rejection, cancellation, and one
// result of concurrent approvals; the clock's state after a correction; notifications, webhooks
// and the history of a punch. Past punches and positions are written into the tables as the
// clock and the location routes record them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.ts';
import { call } from '../helpers/http.ts';
import { assertTcError, circle, clock, createQr, createSite, managerToken, signedInWorker } from '../helpers/timeclock.ts';

const H = 3600;

describe('corrections', () => {
  let app: TestApp;
  let manager: string;
  let siteId: number;
  let qr: string;
  const fence = circle(48.8566, 2.3522, 100);
  const inside = { latitude: 48.8566, longitude: 2.3522 };
  const outside = { latitude: 48.8666, longitude: 2.3522 }; // about 1.1 km north

  const db = () => app.platform.db;
  /** A punch as the clock route records it. */
  const punch = async (userId: number, type: 'clock_in' | 'clock_out', at: string): Promise<number> => {
    const [row] = await db().query<{ id: number }>(
      `INSERT INTO timeclock.clock_events (user_id, event_type, qr_code_id, site_id, latitude, longitude, created_at, received_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING id`,
      [userId, type, qr, siteId, inside.latitude, inside.longitude, at],
    );
    await db().query(
      `INSERT INTO timeclock.worker_state (user_id, state, last_event_id) VALUES ($1, $2, $3)
       ON CONFLICT (user_id) DO UPDATE SET state = $2, last_event_id = $3`,
      [userId, type, row!.id],
    );
    return Number(row!.id);
  };
  const position = (userId: number, at: string, where: { latitude: number; longitude: number }) =>
    db().query(
      `INSERT INTO timeclock.location_samples (user_id, latitude, longitude, accuracy, source, recorded_at, received_at) VALUES ($1, $2, $3, 10, 'background', $4, $4)`,
      [userId, where.latitude, where.longitude, at],
    );
  const day = async (userId: number, date: string) => {
    const res = await call(app, 'GET', `/api/managers/timesheets/${userId}?from=${date}&to=${date}`, { token: manager });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.days[0];
  };
  const correct = (body: Record<string, unknown>) => call(app, 'POST', '/api/managers/corrections', { token: manager, body });
  const counts = async (userId: number) => {
    const [row] = await db().query<{ events: number; voided: number; corrections: number }>(
      `SELECT (SELECT count(*)::int FROM timeclock.clock_events WHERE user_id = $1) AS events,
              (SELECT count(*)::int FROM timeclock.clock_events WHERE user_id = $1 AND voided_at IS NOT NULL) AS voided,
              (SELECT count(*)::int FROM timeclock.corrections WHERE user_id = $1) AS corrections`,
      [userId],
    );
    return row!;
  };

  before(async () => {
    app = await startApp({ DISPLAY_TIMEZONE: 'UTC', TIMECLOCK_RATE_LIMIT_GENERAL: '10000', TIMECLOCK_RATE_LIMIT_CLOCK: '1000', CLOCK_MIN_INTERVAL_SECONDS: '0' });
    manager = await managerToken(app);
    siteId = (await createSite(app, manager, fence, 'Depot')).id;
    qr = (await createQr(app, manager, { name: 'Depot gate', siteId })).id;
  });
  after(() => app?.close());

  test('a manager moves, voids and adds punches: the originals are kept, the totals follow, the sessions are flagged edited', async () => {
    const w = await signedInWorker(app, manager);
    const inAt = await punch(w.id, 'clock_in', '2026-03-02T09:00:00.000Z');
    const outAt = await punch(w.id, 'clock_out', '2026-03-02T17:00:00.000Z');
    assert.equal((await day(w.id, '2026-03-02')).workedSeconds, 8 * H);

    // Move the clock-out to 18:00.
    const moved = await correct({ userId: w.id, kind: 'move', eventId: outAt, at: '2026-03-02T18:00:00Z', reason: 'stayed for the delivery' });
    assert.equal(moved.status, 201, JSON.stringify(moved.body));
    assert.equal(moved.body.status, 'approved');
    assert.equal(moved.body.decidedBy.username, app.platform.config.MANAGER_USERNAME);
    assert.deepEqual(moved.body.before.map((p: { eventId: number; at: string }) => [p.eventId, p.at]), [[outAt, '2026-03-02T17:00:00.000Z']]);
    const replacement = moved.body.after[0].eventId as number;
    assert.ok(replacement > outAt);
    assert.equal(moved.body.after[0].at, '2026-03-02T18:00:00.000Z');
    assert.equal(moved.body.after[0].siteName, 'Depot');
    let d = await day(w.id, '2026-03-02');
    assert.equal(d.workedSeconds, 9 * H);
    assert.deepEqual(d.sessions[0].flags, ['edited']);
    assert.ok(d.flags.includes('edited'));

    // The original is kept, marked; the history shows both.
    const [original] = await db().query<{ created_at: Date; voided_at: Date | null; voided_by: number }>('SELECT created_at, voided_at, voided_by FROM timeclock.clock_events WHERE id = $1', [outAt]);
    assert.equal(original!.created_at.toISOString(), '2026-03-02T17:00:00.000Z');
    assert.ok(original!.voided_at);
    assert.equal(Number(original!.voided_by), moved.body.id);
    const history = await call(app, 'GET', `/api/worker/clock-history/${w.id}?limit=10`, { token: w.token });
    assert.equal(history.status, 200, JSON.stringify(history.body));
    const byId = new Map(history.body.map((e: { id: number }) => [e.id, e]));
    assert.deepEqual(
      [byId.get(outAt), byId.get(replacement)].map((e: any) => [e.voided, e.origin, e.correctionId, e.qrCodeUsedName]),
      [[true, 'punch', moved.body.id, 'Depot gate'], [false, 'correction', moved.body.id, 'Depot gate']],
    );
    const chain = await call(app, 'GET', `/api/managers/punches/${outAt}/history`, { token: manager });
    assert.equal(chain.status, 200, JSON.stringify(chain.body));
    assert.deepEqual(chain.body.chain.map((c: { eventId: number; voided: boolean }) => [c.eventId, c.voided]), [[outAt, true], [replacement, false]]);
    assert.deepEqual(chain.body.corrections.map((c: { id: number }) => c.id), [moved.body.id]);
    assert.equal((await call(app, 'GET', `/api/managers/punches/${replacement}/history`, { token: manager })).body.chain.length, 2);

    // Void the whole session (both punches at once): nothing worked that day.
    const voided = await correct({ userId: w.id, kind: 'void', eventId: inAt, pairEventId: replacement, reason: 'was on leave; the badge was used by mistake' });
    assert.equal(voided.status, 201, JSON.stringify(voided.body));
    assert.deepEqual(voided.body.before.map((p: { eventId: number }) => p.eventId), [inAt, replacement]);
    assert.deepEqual(voided.body.after, []);
    d = await day(w.id, '2026-03-02');
    assert.deepEqual([d.workedSeconds, d.sessions.length], [0, 0]);

    // Add a session that was never punched, before a later one: both punches at once.
    await punch(w.id, 'clock_in', '2026-03-04T08:00:00.000Z');
    await punch(w.id, 'clock_out', '2026-03-04T12:00:00.000Z');
    assertTcError(await correct({ userId: w.id, kind: 'add', eventType: 'clock_in', at: '2026-03-03T08:00:00Z', siteId, reason: 'x' }), 409, 'CORRECTION_BREAKS_ORDER');
    const added = await correct({ userId: w.id, kind: 'add', eventType: 'clock_in', at: '2026-03-03T08:00:00Z', endAt: '2026-03-03T12:30:00Z', siteId, reason: 'the phone was dead' });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    assert.deepEqual(added.body.after.map((p: { eventType: string }) => p.eventType), ['clock_in', 'clock_out']);
    assertTcError(await correct({ userId: w.id, kind: 'add', eventType: 'clock_out', at: '2026-03-05T08:00:00Z', endAt: '2026-03-05T07:00:00Z', reason: 'x' }), 400, 'VALIDATION_ERROR');
    d = await day(w.id, '2026-03-03');
    assert.equal(d.workedSeconds, 4.5 * H);
    assert.deepEqual(d.sessions[0].flags, ['edited']);
    assert.equal(d.sessions[0].siteName, 'Depot');
    assert.deepEqual(await counts(w.id), { events: 7, voided: 3, corrections: 3 });
  });

  test('a correction that would break the order of punches is refused, naming the punch; every bad field at once; nothing changes', async () => {
    const w = await signedInWorker(app, manager);
    const in1 = await punch(w.id, 'clock_in', '2026-03-09T09:00:00.000Z');
    const out1 = await punch(w.id, 'clock_out', '2026-03-09T17:00:00.000Z');
    const in2 = await punch(w.id, 'clock_in', '2026-03-10T09:00:00.000Z');
    await punch(w.id, 'clock_out', '2026-03-10T17:00:00.000Z');
    const before = await counts(w.id);

    // A clock-in inside a session.
    let res = await correct({ userId: w.id, kind: 'add', eventType: 'clock_in', at: '2026-03-09T12:00:00Z', reason: 'x' });
    assertTcError(res, 409, 'CORRECTION_BREAKS_ORDER');
    assert.deepEqual([res.body.details.reason, res.body.details.conflictingEventId], ['two_in_a_row', in1]);
    assert.match(res.body.message, /must alternate/);
    // A clock-out moved before its clock-in.
    res = await correct({ userId: w.id, kind: 'move', eventId: out1, at: '2026-03-09T08:00:00Z', reason: 'x' });
    assertTcError(res, 409, 'CORRECTION_BREAKS_ORDER');
    // One punch of a session voided alone.
    res = await correct({ userId: w.id, kind: 'void', eventId: in2, reason: 'x' });
    assertTcError(res, 409, 'CORRECTION_BREAKS_ORDER');
    // The pair must be the other punch of the same session.
    res = await correct({ userId: w.id, kind: 'void', eventId: in2, pairEventId: out1, reason: 'x' });
    assertTcError(res, 400, 'VALIDATION_ERROR');
    assert.equal(res.body.details.field, 'pairEventId');
    // A clock-out before the worker's first punch.
    res = await correct({ userId: w.id, kind: 'add', eventType: 'clock_out', at: '2026-03-01T10:00:00Z', reason: 'x' });
    assertTcError(res, 409, 'CORRECTION_BREAKS_ORDER');
    assert.deepEqual([res.body.details.reason, res.body.details.conflictingEventId], ['no_clock_in_before', null]);
    // Every bad field, in both languages.
    for (const [lang, word] of [['en-US', /required/], ['zh-CN', /必须/]] as const) {
      res = await call(app, 'POST', '/api/managers/corrections', { token: manager, headers: { 'accept-language': lang }, body: { userId: w.id, kind: 'add', eventId: in1, reason: 'x' } });
      assertTcError(res, 400, 'VALIDATION_ERROR');
      assert.deepEqual(res.body.details.fields, ['eventType', 'at', 'eventId']);
      assert.match(res.body.message, word);
    }
    res = await correct({ userId: w.id, kind: 'add', eventType: 'clock_in', at: new Date(Date.now() + 3_600_000).toISOString(), reason: 'x' });
    assertTcError(res, 400, 'VALIDATION_ERROR');
    assert.equal(res.body.details.field, 'at');
    assertTcError(await correct({ userId: w.id, kind: 'move', eventId: in1, reason: 'x' }), 400, 'VALIDATION_ERROR');
    assertTcError(await correct({ userId: w.id, kind: 'move', eventId: in1, at: '2026-03-09T08:30:00Z', siteId: 999_999, reason: 'x' }), 400, 'VALIDATION_ERROR');
    assertTcError(await correct({ userId: w.id, kind: 'void', eventId: 999_999, reason: 'x' }), 404, 'NOT_FOUND');
    assertTcError(await correct({ userId: 999_999, kind: 'void', eventId: in1, reason: 'x' }), 404, 'NOT_FOUND');
    assertTcError(await correct({ userId: w.id, kind: 'void', eventId: in1, reason: '' }), 400, 'VALIDATION_ERROR');
    assert.deepEqual(await counts(w.id), before, 'a refused correction changes nothing');

    // A punch already replaced is not corrected again.
    const moved = await correct({ userId: w.id, kind: 'move', eventId: in1, at: '2026-03-09T08:30:00Z', reason: 'came early' });
    assert.equal(moved.status, 201, JSON.stringify(moved.body));
    res = await correct({ userId: w.id, kind: 'move', eventId: in1, at: '2026-03-09T08:45:00Z', reason: 'x' });
    assertTcError(res, 409, 'PUNCH_ALREADY_CORRECTED');
    assert.equal(res.body.details.correctionId, moved.body.id);
  });

  test('a worker requests a forgotten clock-out; the manager sees the trail and a suggested time, approves it, and the timesheet and the clock follow', async () => {
    const w = await signedInWorker(app, manager);
    const other = await signedInWorker(app, manager);
    // Clocked in through the clock today, an hour ago... the clock-out forgotten; the trail leaves the fence.
    const inAt = new Date(Date.now() - 5 * H * 1000);
    const inId = await punch(w.id, 'clock_in', inAt.toISOString());
    const t = (minutes: number) => new Date(inAt.getTime() + minutes * 60_000).toISOString();
    for (const m of [10, 60, 120, 180]) await position(w.id, t(m), inside);
    for (const m of [185, 200, 240]) await position(w.id, t(m), outside);
    const hooks = await call(app, 'POST', '/api/managers/webhooks', { token: manager, body: { url: 'https://hooks.example.com/c', events: ['correction.requested', 'correction.decided'] } });
    assert.equal(hooks.status, 201, JSON.stringify(hooks.body));

    const asked = await call(app, 'POST', '/api/worker/corrections', { token: w.token, body: { kind: 'add', eventType: 'clock_out', at: t(190), reason: 'I forgot to clock out' } });
    assert.equal(asked.status, 201, JSON.stringify(asked.body));
    assert.equal(asked.body.status, 'pending');
    assert.deepEqual([asked.body.after[0].eventId, asked.body.after[0].siteId], [null, siteId], 'the session’s site by default');
    assert.equal((await counts(w.id)).events, 1, 'nothing applied yet');
    // One pending request per punch only applies to existing punches; a second request of the same punch is refused.
    const voidAsk = await call(app, 'POST', '/api/worker/corrections', { token: w.token, body: { kind: 'move', eventId: inId, at: t(-10), reason: 'I came earlier' } });
    assert.equal(voidAsk.status, 201, JSON.stringify(voidAsk.body));
    assertTcError(await call(app, 'POST', '/api/worker/corrections', { token: w.token, body: { kind: 'move', eventId: inId, at: t(-20), reason: 'x' } }), 409, 'CONFLICT');

    // Who may do what.
    assertTcError(await call(app, 'POST', '/api/worker/corrections', { token: manager, body: { kind: 'void', eventId: inId, reason: 'x' } }), 403, 'FORBIDDEN');
    assertTcError(await call(app, 'POST', '/api/worker/corrections', { token: other.token, body: { kind: 'void', eventId: inId, reason: 'x' } }), 404, 'NOT_FOUND');
    assertTcError(await call(app, 'GET', `/api/worker/corrections/${asked.body.id}`, { token: other.token }), 404, 'NOT_FOUND');
    assertTcError(await call(app, 'POST', `/api/managers/corrections/${asked.body.id}/approve`, { token: w.token }), 403, 'FORBIDDEN');
    assertTcError(await call(app, 'POST', `/api/worker/corrections/${asked.body.id}/cancel`, { token: other.token }), 404, 'NOT_FOUND');
    assert.equal((await call(app, 'GET', '/api/worker/corrections', { token: other.token })).body.totalCount, 0);
    const mine = await call(app, 'GET', '/api/worker/corrections', { token: w.token });
    assert.deepEqual(mine.body.corrections.map((c: { id: number }) => c.id), [voidAsk.body.id, asked.body.id]);

    // The managers are told; the inbox lists pending requests.
    const told = await call(app, 'GET', '/api/notifications?unread=true', { token: manager });
    assert.ok(told.body.notifications.some((n: any) => n.kind === 'correction_requested' && n.data.correctionId === asked.body.id));
    const inbox = await call(app, 'GET', `/api/managers/corrections?userId=${w.id}`, { token: manager });
    assert.equal(inbox.body.totalCount, 2);

    // The evidence: the trail judged against the fence, and the last position inside before leaving.
    const detail = await call(app, 'GET', `/api/managers/corrections/${asked.body.id}`, { token: manager });
    assert.equal(detail.status, 200, JSON.stringify(detail.body));
    const ev = detail.body.evidence;
    assert.equal(ev.site.id, siteId);
    assert.deepEqual(ev.positions.map((p: { insideFence: boolean }) => p.insideFence), [true, true, true, true, false, false, false]);
    assert.deepEqual([ev.suggestedAt, ev.suggestedBasis], [t(180), 'left_fence']);
    assert.deepEqual(ev.punches.map((p: { id: number; qrCodeName: string }) => [p.id, p.qrCodeName]), [[inId, 'Depot gate']]);
    assert.equal(ev.device.deviceUuid, w.deviceUuid.toLowerCase());

    // Approved at the suggested time? The manager approves the request as asked.
    const approved = await call(app, 'POST', `/api/managers/corrections/${asked.body.id}/approve`, { token: manager, body: { note: 'matches the trail' } });
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    assert.deepEqual([approved.body.status, approved.body.decisionNote], ['approved', 'matches the trail']);
    assert.ok(approved.body.after[0].eventId > inId);
    assertTcError(await call(app, 'POST', `/api/managers/corrections/${asked.body.id}/reject`, { token: manager }), 409, 'CORRECTION_ALREADY_DECIDED');
    const today = inAt.toISOString().slice(0, 10);
    const d = await day(w.id, today);
    assert.equal(d.sessions.find((s: { start: string }) => s.start === inAt.toISOString()).workedSeconds, 190 * 60);

    // The worker is clocked out again, so the clock takes their next clock-in.
    const state = await call(app, 'GET', `/api/managers/workers/${w.id}`, { token: manager });
    assert.equal(state.body.clock_state, 'clock_out');
    const punched = await clock(app, w.token, { userId: w.id, eventType: 'clock_in', qrCodeValue: qr, ...inside });
    assert.equal(punched.status, 200, JSON.stringify(punched.body));

    // The worker is told; a rejection carries its note; a cancelled request is not decided again.
    const decided = await call(app, 'GET', '/api/notifications', { token: w.token });
    assert.deepEqual(decided.body.notifications.map((n: any) => [n.kind, n.data.status]), [['correction_decided', 'approved']]);
    const foreign = await call(app, 'POST', '/api/notifications/read', { token: w.token, body: { ids: [decided.body.notifications[0].id + 100_000] } });
    assert.deepEqual([foreign.status, foreign.body.updated], [200, 0], 'ids that are not the caller’s unread ones change nothing');
    assert.equal((await call(app, 'POST', '/api/notifications/read', { token: w.token, body: { ids: [decided.body.notifications[0].id] } })).body.updated, 1);
    assert.equal((await call(app, 'GET', '/api/notifications', { token: w.token })).body.unreadCount, 0);
    const rejected = await call(app, 'POST', `/api/managers/corrections/${voidAsk.body.id}/reject`, { token: manager, body: { note: 'the gate log says 09:00' } });
    assert.deepEqual([rejected.status, rejected.body.status, rejected.body.decisionNote], [200, 'rejected', 'the gate log says 09:00']);
    const again = await call(app, 'POST', '/api/worker/corrections', { token: w.token, body: { kind: 'move', eventId: inId, at: t(-10), reason: 'really' } });
    assert.equal(again.status, 201);
    const cancelled = await call(app, 'POST', `/api/worker/corrections/${again.body.id}/cancel`, { token: w.token });
    assert.equal(cancelled.body.status, 'cancelled');
    assertTcError(await call(app, 'POST', `/api/managers/corrections/${again.body.id}/approve`, { token: manager }), 409, 'CORRECTION_ALREADY_DECIDED');

    const delivered = await db().query<{ event: string }>('SELECT event FROM timeclock.webhook_deliveries WHERE endpoint_id = $1 ORDER BY id', [hooks.body.id]);
    assert.deepEqual(delivered.map((r) => r.event), ['correction.requested', 'correction.requested', 'correction.decided', 'correction.decided', 'correction.requested']);
  });

  test('concurrent approvals of one request give one result and one punch', async () => {
    const w = await signedInWorker(app, manager);
    await punch(w.id, 'clock_in', '2026-03-16T09:00:00.000Z');
    const asked = await call(app, 'POST', '/api/worker/corrections', { token: w.token, body: { kind: 'add', eventType: 'clock_out', at: '2026-03-16T17:00:00Z', reason: 'forgot' } });
    assert.equal(asked.status, 201, JSON.stringify(asked.body));
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) =>
      call(app, 'POST', `/api/managers/corrections/${asked.body.id}/${i % 2 ? 'reject' : 'approve'}`, { token: manager })));
    const ok = results.filter((r) => r.status === 200);
    assert.equal(ok.length, 1, JSON.stringify(results.map((r) => r.status)));
    for (const r of results) if (r.status !== 200) assertTcError(r, 409, 'CORRECTION_ALREADY_DECIDED');
    const { events } = await counts(w.id);
    assert.equal(events, ok[0]!.body.status === 'approved' ? 2 : 1);
  });

  test('a request is checked again when approved: a punch recorded since that breaks the order refuses the approval', async () => {
    const w = await signedInWorker(app, manager);
    await punch(w.id, 'clock_in', '2026-03-17T09:00:00.000Z');
    const asked = await call(app, 'POST', '/api/worker/corrections', { token: w.token, body: { kind: 'add', eventType: 'clock_out', at: '2026-03-17T17:00:00Z', reason: 'forgot' } });
    assert.equal(asked.status, 201, JSON.stringify(asked.body));
    // Meanwhile the manager recorded that clock-out directly at 16:00.
    assert.equal((await correct({ userId: w.id, kind: 'add', eventType: 'clock_out', at: '2026-03-17T16:00:00Z', reason: 'from the gate log' })).status, 201);
    const res = await call(app, 'POST', `/api/managers/corrections/${asked.body.id}/approve`, { token: manager });
    assertTcError(res, 409, 'CORRECTION_BREAKS_ORDER');
    const still = await call(app, 'GET', `/api/managers/corrections/${asked.body.id}`, { token: manager });
    assert.equal(still.body.status, 'pending');
    assert.equal((await call(app, 'POST', `/api/managers/corrections/${asked.body.id}/reject`, { token: manager, body: { note: 'recorded from the gate log' } })).status, 200);
  });
});
