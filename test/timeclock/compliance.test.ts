// Working-time warnings (issue 30 §4): each rule on exact cases (the boundary is not a
// violation), a rest across a daylight-saving night counted in real hours, the compliance report
// and its export, and the warning on a clock-in that starts a day too soon.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.ts';
import { call } from '../helpers/http.ts';
import { circle, createQr, createSite, managerToken, signedInWorker } from '../helpers/timeclock.ts';

describe('working-time warnings', () => {
  let app: TestApp;
  let manager: string;
  let siteId: number;
  let berlin: number;
  const qrs = new Map<number, string>();
  const inside = { latitude: 48.8566, longitude: 2.3522 };
  const db = () => app.platform.db;

  const punch = async (userId: number, type: 'clock_in' | 'clock_out', at: string, site = siteId) => {
    const [row] = await db().query<{ id: number }>(
      `INSERT INTO timeclock.clock_events (user_id, event_type, qr_code_id, site_id, latitude, longitude, created_at, received_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING id`,
      [userId, type, qrs.get(site), site, inside.latitude, inside.longitude, at],
    );
    await db().query(
      `INSERT INTO timeclock.worker_state (user_id, state, last_event_id) VALUES ($1, $2, $3) ON CONFLICT (user_id) DO UPDATE SET state = $2, last_event_id = $3`,
      [userId, type, row!.id],
    );
  };
  const shift = async (userId: number, from: string, to: string, site = siteId) => {
    await punch(userId, 'clock_in', from, site);
    await punch(userId, 'clock_out', to, site);
  };
  const flags = async (userId: number, from: string, to: string) => {
    const res = await call(app, 'GET', `/api/managers/timesheets/${userId}?from=${from}&to=${to}`, { token: manager });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return Object.fromEntries(res.body.days.map((d: { date: string; flags: string[] }) => [d.date, d.flags.filter((f) => ['short_rest', 'over_daily_max', 'missing_break'].includes(f))]));
  };

  before(async () => {
    app = await startApp({ DISPLAY_TIMEZONE: 'UTC', TIMECLOCK_RATE_LIMIT_GENERAL: '10000', TIMECLOCK_RATE_LIMIT_CLOCK: '1000' });
    manager = await managerToken(app);
    siteId = (await createSite(app, manager, circle(), 'Depot')).id;
    const b = await call(app, 'POST', '/api/managers/sites', { token: manager, body: { name: 'Berlin', fence: circle(), timezone: 'Europe/Berlin' } });
    berlin = b.body.id;
    for (const id of [siteId, berlin]) qrs.set(id, (await createQr(app, manager, { name: `QR ${id}`, siteId: id })).id);
    const rules = (await call(app, 'GET', '/api/managers/work-rules', { token: manager })).body;
    const { updatedAt: _a, updatedBy: _b, ...body } = rules;
    const res = await call(app, 'PUT', '/api/managers/work-rules', { token: manager, body: { ...body, breakRules: [{ afterMinutes: 360, breakMinutes: 30 }] } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual([res.body.minRestMinutes, res.body.maxDailyMinutes], [660, 600], 'the defaults: 11 h of rest, 10 h a day');
  });
  after(() => app?.close());

  test('each rule on exact cases; the boundary is no violation', async () => {
    const w = await signedInWorker(app, manager);
    // Mon: 08:00-12:00, 12:30-18:30 (10 h paid, a 30 min break): nothing. Tue 05:30 (11 h after 18:30): nothing.
    await shift(w.id, '2026-05-04T08:00:00Z', '2026-05-04T12:00:00Z');
    await shift(w.id, '2026-05-04T12:30:00Z', '2026-05-04T18:30:00Z');
    await shift(w.id, '2026-05-05T05:30:00Z', '2026-05-05T09:30:00Z');
    // Wed 06:00 (20 h 30 min later): 06:00-11:00, 11:29-16:30 (a 29 min break: missing_break, 30 min deducted).
    await shift(w.id, '2026-05-06T06:00:00Z', '2026-05-06T11:00:00Z');
    await shift(w.id, '2026-05-06T11:29:00Z', '2026-05-06T16:30:00Z');
    // Thu 03:29 (10 h 59 min after 16:30): short_rest; 03:29-14:00 with a 30 min break at 08:00: 10 h 1 min paid: over_daily_max.
    await shift(w.id, '2026-05-07T03:29:00Z', '2026-05-07T08:00:00Z');
    await shift(w.id, '2026-05-07T08:30:00Z', '2026-05-07T14:00:00Z');
    assert.deepEqual(await flags(w.id, '2026-05-04', '2026-05-07'), {
      '2026-05-04': [], '2026-05-05': [], '2026-05-06': ['missing_break'], '2026-05-07': ['short_rest', 'over_daily_max'],
    });
  });

  test('a rest across the night the clocks go forward counts its real length', async () => {
    const w = await signedInWorker(app, manager);
    // Berlin: out at 22:00 on 28 March (21:00Z, UTC+1), in at 09:00 on 29 March (07:00Z, UTC+2): 11 h on the wall clock, 10 h of rest.
    await shift(w.id, '2026-03-28T13:00:00Z', '2026-03-28T21:00:00Z', berlin);
    await shift(w.id, '2026-03-29T07:00:00Z', '2026-03-29T12:00:00Z', berlin);
    assert.deepEqual((await flags(w.id, '2026-03-29', '2026-03-29'))['2026-03-29'], ['short_rest']);
    const day = (await call(app, 'GET', `/api/managers/timesheets/${w.id}?from=2026-03-29&to=2026-03-29`, { token: manager })).body.days[0];
    assert.equal(day.restBeforeSeconds, 10 * 3600);
  });

  test('the compliance report lists every violation; its export is a file of them', async () => {
    const w = await signedInWorker(app, manager, { fullName: 'Zed Compliance' });
    await shift(w.id, '2026-06-01T06:00:00Z', '2026-06-01T17:00:00Z');
    await shift(w.id, '2026-06-02T02:00:00Z', '2026-06-02T06:00:00Z');
    const res = await call(app, 'GET', `/api/managers/compliance?from=2026-06-01&to=2026-06-02&search=Zed`, { token: manager });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.violations.map((v: { date: string; rule: string }) => [v.date, v.rule]), [
      ['2026-06-01', 'over_daily_max'], ['2026-06-01', 'missing_break'], ['2026-06-02', 'short_rest'],
    ]);
    assert.equal(res.body.violations[2].restBeforeSeconds, 9 * 3600);
    const queued = await call(app, 'POST', '/api/managers/compliance/export', { token: manager, headers: { 'accept-language': 'zh-CN' }, body: { from: '2026-06-01', to: '2026-06-02', format: 'csv', search: 'Zed' } });
    assert.equal(queued.status, 202, JSON.stringify(queued.body));
    let task = queued.body;
    for (let i = 0; i < 400 && (task.status === 'pending' || task.status === 'processing'); i++) {
      await new Promise((r) => setTimeout(r, 50));
      task = (await call(app, 'GET', `/api/managers/exports/${task.id}`, { token: manager })).body;
    }
    assert.equal(task.status, 'completed', JSON.stringify(task));
    const dl = await app.app.inject({ method: 'GET', url: task.downloadUrl, headers: { authorization: `Bearer ${manager}` } });
    assert.equal(dl.statusCode, 200);
    const lines = dl.payload.replace(/^\uFEFF/, '').trim().split(/\r?\n/);
    assert.equal(lines.length, 4);
    assert.match(lines[0]!, /规则/);
    assert.match(lines[3]!, /两日之间休息不足/);
  });

  test('a clock-in that starts a day too soon is recorded, with a warning for the worker and an alert for managers', async () => {
    const w = await signedInWorker(app, manager);
    const now = Date.now();
    await shift(w.id, new Date(now - 30 * 3600_000).toISOString(), new Date(now - 9 * 3600_000).toISOString());
    const res = await call(app, 'POST', '/api/clock', { token: w.token, body: { userId: w.id, eventType: 'clock_in', qrCodeValue: qrs.get(siteId), ...inside } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.warning.code, 'short_rest');
    assert.equal(res.body.warning.minRestMinutes, 660);
    assert.ok(Math.abs(res.body.warning.restMinutes - 540) <= 1);
    const alerts = await call(app, 'GET', `/api/managers/security/alerts?userId=${w.id}&type=short_rest`, { token: manager });
    assert.equal(alerts.body.alerts.length, 1);
    // After a lunch break the same day, no warning.
    const out = await call(app, 'POST', '/api/clock', { token: w.token, body: { userId: w.id, eventType: 'clock_out', qrCodeValue: qrs.get(siteId), ...inside } });
    assert.equal(out.status, 200, JSON.stringify(out.body));
    await db().query(`UPDATE timeclock.clock_events SET created_at = created_at - interval '1 minute' WHERE user_id = $1 AND created_at > now() - interval '1 hour'`, [w.id]);
    const back = await call(app, 'POST', '/api/clock', { token: w.token, body: { userId: w.id, eventType: 'clock_in', qrCodeValue: qrs.get(siteId), ...inside } });
    assert.equal(back.status, 200, JSON.stringify(back.body));
    assert.equal(back.body.warning, undefined);
  });
});
