// Hours: punches turned into sessions, days, breaks, overtime and rounding (exact seconds), the
// work rules, the timesheet routes of managers and workers, and the payroll export (CSV and XLSX
// parsed back and compared with the API's numbers). Punches of past days are written into
// timeclock.clock_events as the clock route records them (their time is the capture time).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { startApp, type TestApp } from '../helpers/app.ts';
import { call } from '../helpers/http.ts';
import { assertTcError, circle, clock, createQr, createSite, createWorker, managerToken, signedInWorker, siteWithQr } from '../helpers/timeclock.ts';

const H = 3600;
const M = 60;

const RULES = {
  weekStartsOn: 1,
  dailyOvertimeAfterMinutes: 480 as number | null,
  weeklyOvertimeAfterMinutes: 2400 as number | null,
  breakRules: [] as { afterMinutes: number; breakMinutes: number }[],
  rounding: { mode: 'none', minutes: 15 },
  longSessionMinutes: 960,
  autoClockOutAfterMinutes: 720 as number | null,
  leftFenceMinutes: 30,
  minRestMinutes: 660 as number | null,
  maxDailyMinutes: 600 as number | null,
};

describe('hours', () => {
  let app: TestApp;
  let manager: string;
  let utcSite: number;

  const qrs = new Map<number, string>();
  const qrOf = async (siteId: number) => {
    if (!qrs.has(siteId)) qrs.set(siteId, (await createQr(app, manager, { name: `QR ${siteId}`, siteId })).id);
    return qrs.get(siteId)!;
  };
  /** A punch as the clock route records it (a forced clock-out has no QR code and no site). */
  const punch = async (userId: number, type: 'clock_in' | 'clock_out', at: string, siteId: number | null, extra: { late?: boolean; forced?: boolean } = {}) =>
    app.platform.db.query(
      `INSERT INTO timeclock.clock_events (user_id, event_type, qr_code_id, site_id, latitude, longitude, created_at, received_at, late, forced, captured_at)
       VALUES ($1, $2, $3, $4, 0, 0, $5, $6, $7, $8, $9)`,
      [
        userId, type, siteId === null ? null : await qrOf(siteId), siteId, at,
        extra.late ? new Date(Date.parse(at) + 3 * H * 1000).toISOString() : at, extra.late ?? false, extra.forced ?? false, extra.late ? at : null,
      ],
    );
  /** Clock-in and clock-out pairs at a site. */
  const shifts = async (userId: number, siteId: number, pairs: [string, string][]) => {
    for (const [a, b] of pairs) {
      await punch(userId, 'clock_in', a, siteId);
      await punch(userId, 'clock_out', b, siteId);
    }
  };
  const rules = (patch: Partial<typeof RULES>) => call(app, 'PUT', '/api/managers/work-rules', { token: manager, body: { ...RULES, ...patch } });
  const sheet = async (userId: number, from: string, to = from) => {
    const res = await call(app, 'GET', `/api/managers/timesheets/${userId}?from=${from}&to=${to}`, { token: manager });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  };
  const worker = async (fullName?: string) => (await createWorker(app, manager, fullName ? { fullName } : {})).id;
  const zoneSite = async (timezone: string) => {
    const res = await call(app, 'POST', '/api/managers/sites', { token: manager, body: { name: `Site ${timezone}`, fence: circle(), timezone } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.timezone, timezone);
    return res.body.id as number;
  };

  before(async () => {
    app = await startApp({ DISPLAY_TIMEZONE: 'UTC', TIMECLOCK_RATE_LIMIT_GENERAL: '10000', TIMECLOCK_RATE_LIMIT_CLOCK: '1000' });
    manager = await managerToken(app);
    utcSite = (await createSite(app, manager, circle(), 'UTC works')).id;
  });
  after(() => app?.close());

  test('the work rules: defaults, a change recorded with who made it, bad values refused', async () => {
    const first = await call(app, 'GET', '/api/managers/work-rules', { token: manager });
    assert.equal(first.status, 200);
    assert.deepEqual({ ...first.body, updatedAt: undefined, updatedBy: undefined }, { ...RULES, updatedAt: undefined, updatedBy: undefined });
    assert.equal(first.body.updatedAt, null);

    const set = await rules({ breakRules: [{ afterMinutes: 540, breakMinutes: 45 }, { afterMinutes: 360, breakMinutes: 30 }] });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.deepEqual(set.body.breakRules, [{ afterMinutes: 360, breakMinutes: 30 }, { afterMinutes: 540, breakMinutes: 45 }]);
    assert.equal(set.body.updatedBy.username, app.platform.config.MANAGER_USERNAME);
    assert.ok(Date.parse(set.body.updatedAt) > Date.now() - 60_000);

    for (const bad of [{ weekStartsOn: 8 }, { rounding: { mode: 'sideways', minutes: 15 } }, { dailyOvertimeAfterMinutes: -1 }, { breakRules: [{ afterMinutes: 60 }] }]) {
      const res = await call(app, 'PUT', '/api/managers/work-rules', { token: manager, body: { ...RULES, ...bad } });
      assertTcError(res, 400, 'VALIDATION_ERROR');
    }
    const { weekStartsOn: _, ...missing } = RULES;
    assertTcError(await call(app, 'PUT', '/api/managers/work-rules', { token: manager, body: missing }), 400, 'VALIDATION_ERROR');
    assert.equal((await rules({})).status, 200);
  });

  test('the rules screen’s example day: computed under rules not saved, nothing stored', async () => {
    const preview = (rules: Partial<typeof RULES>, sessions: { start: string; end: string }[]) =>
      call(app, 'POST', '/api/managers/work-rules/preview', { token: manager, body: { rules: { ...RULES, ...rules }, sessions } });
    const split = await preview({ breakRules: [{ afterMinutes: 360, breakMinutes: 45 }] }, [{ start: '08:00', end: '12:00' }, { start: '12:30', end: '17:30' }]);
    assert.equal(split.status, 200, JSON.stringify(split.body));
    assert.deepEqual(
      [split.body.workedSeconds, split.body.breakSeconds, split.body.paidSeconds, split.body.regularSeconds, split.body.overtimeSeconds, split.body.flags],
      [9 * H, 45 * M, 8 * H + 45 * M, 8 * H, 45 * M, ['break_deducted', 'missing_break']],
    );
    const night = await preview({ rounding: { mode: 'up', minutes: 30 } }, [{ start: '22:00', end: '05:50' }]);
    assert.deepEqual([night.body.workedSeconds, night.body.paidSeconds], [7 * H + 50 * M, 8 * H]);
    // Eight sessions each across midnight: every one on its own night, only the first counts for the day shown.
    const nights = await preview({}, Array.from({ length: 8 }, () => ({ start: '23:00', end: '01:00' })));
    assert.equal(nights.status, 200, JSON.stringify(nights.body));
    assert.equal(nights.body.workedSeconds, 2 * H);
    assertTcError(await call(app, 'POST', '/api/managers/work-rules/preview', { token: manager, body: { rules: RULES, sessions: [{ start: '25:00', end: '26:00' }] } }), 400, 'VALIDATION_ERROR');
    assertTcError(await call(app, 'POST', '/api/managers/work-rules/preview', { token: manager, body: { rules: RULES, sessions: [] } }), 400, 'VALIDATION_ERROR');
    assert.equal((await call(app, 'GET', '/api/managers/work-rules', { token: manager })).body.breakRules.length, 0, 'nothing stored');
  });

  test('a plain day, and a split day with a lunch break (daily overtime after 8 h)', async () => {
    const u = await worker();
    await shifts(u, utcSite, [['2026-03-02T09:00:00Z', '2026-03-02T17:00:00Z']]);
    await shifts(u, utcSite, [['2026-03-03T08:00:00Z', '2026-03-03T12:00:00Z'], ['2026-03-03T12:30:00Z', '2026-03-03T17:00:00Z']]);
    const s = await sheet(u, '2026-03-02', '2026-03-03');
    const [plain, split] = s.days;
    assert.deepEqual(
      { worked: plain.workedSeconds, brk: plain.breakSeconds, paid: plain.paidSeconds, reg: plain.regularSeconds, ot: plain.overtimeSeconds, flags: plain.flags },
      { worked: 8 * H, brk: 0, paid: 8 * H, reg: 8 * H, ot: 0, flags: [] },
    );
    assert.deepEqual(
      { worked: split.workedSeconds, brk: split.breakSeconds, paid: split.paidSeconds, reg: split.regularSeconds, ot: split.overtimeSeconds },
      { worked: 8.5 * H, brk: 30 * M, paid: 8.5 * H, reg: 8 * H, ot: 30 * M },
    );
    assert.equal(split.sessions.length, 2);
    assert.equal(split.sessions[0].start, '2026-03-03T08:00:00.000Z');
    assert.equal(split.sessions[0].siteName, 'UTC works');
    assert.deepEqual(s.totals, { workedSeconds: 16.5 * H, breakSeconds: 30 * M, paidSeconds: 16.5 * H, regularSeconds: 16 * H, overtimeSeconds: 30 * M });
  });

  test('a night shift across midnight belongs to the day it started', async () => {
    const u = await worker();
    await shifts(u, utcSite, [['2026-03-04T22:00:00Z', '2026-03-05T06:00:00Z']]);
    const s = await sheet(u, '2026-03-04', '2026-03-05');
    assert.equal(s.days[0].workedSeconds, 8 * H);
    assert.equal(s.days[1].workedSeconds, 0);
    assert.deepEqual(s.days[1].sessions, []);
  });

  test('shifts across each daylight-saving change of Europe/Berlin and America/New_York count their real length', async () => {
    const berlin = await zoneSite('Europe/Berlin');
    const newYork = await zoneSite('America/New_York');
    const u = await worker();
    // 22:00–06:00 local. Berlin: spring forward on 2026-03-29 (CET +1 → CEST +2), back on 2026-10-25.
    await shifts(u, berlin, [['2026-03-28T21:00:00Z', '2026-03-29T04:00:00Z'], ['2026-10-24T20:00:00Z', '2026-10-25T05:00:00Z']]);
    // New York: forward on 2026-03-08 (EST −5 → EDT −4), back on 2026-11-01.
    await shifts(u, newYork, [['2026-03-08T03:00:00Z', '2026-03-08T10:00:00Z'], ['2026-11-01T02:00:00Z', '2026-11-01T11:00:00Z']]);
    const day = async (date: string) => (await sheet(u, date)).days[0];
    assert.equal((await day('2026-03-28')).workedSeconds, 7 * H, 'Berlin, the night clocks go forward: 7 h');
    assert.equal((await day('2026-10-24')).workedSeconds, 9 * H, 'Berlin, the night clocks go back: 9 h');
    assert.equal((await day('2026-03-07')).workedSeconds, 7 * H, 'New York, forward: 7 h (clock-in at 22:00 on the 7th local)');
    assert.equal((await day('2026-10-31')).workedSeconds, 9 * H, 'New York, back: 9 h');
    assert.equal((await day('2026-03-08')).workedSeconds, 0, 'the UTC date of the New York clock-in is not its day');
  });

  test('a site in UTC+05:45: the local date of the clock-in decides the day', async () => {
    const kathmandu = await zoneSite('Asia/Kathmandu');
    const u = await worker();
    // 00:30–04:30 on 10 June local = 18:45–22:45 UTC on 9 June.
    await shifts(u, kathmandu, [['2026-06-09T18:45:00Z', '2026-06-09T22:45:00Z']]);
    const s = await sheet(u, '2026-06-09', '2026-06-10');
    assert.equal(s.days[0].workedSeconds, 0);
    assert.equal(s.days[1].workedSeconds, 4 * H);
  });

  test('break rules: met, short by 10 minutes, not met at all', async () => {
    assert.equal((await rules({ breakRules: [{ afterMinutes: 360, breakMinutes: 30 }, { afterMinutes: 540, breakMinutes: 45 }] })).status, 200);
    try {
      const u = await worker();
      await shifts(u, utcSite, [['2026-04-06T08:00:00Z', '2026-04-06T12:00:00Z'], ['2026-04-06T12:30:00Z', '2026-04-06T17:00:00Z']]);
      await shifts(u, utcSite, [['2026-04-07T08:00:00Z', '2026-04-07T12:00:00Z'], ['2026-04-07T12:20:00Z', '2026-04-07T17:00:00Z']]);
      await shifts(u, utcSite, [['2026-04-08T08:00:00Z', '2026-04-08T17:00:00Z']]);
      await shifts(u, utcSite, [['2026-04-09T08:00:00Z', '2026-04-09T18:00:00Z']]);
      const [met, short, none, long] = (await sheet(u, '2026-04-06', '2026-04-09')).days;
      assert.deepEqual([met.workedSeconds, met.breakSeconds, met.paidSeconds, met.flags], [8.5 * H, 30 * M, 8.5 * H, []]);
      assert.deepEqual([short.workedSeconds, short.breakSeconds, short.paidSeconds, short.flags], [8 * H + 40 * M, 30 * M, 8.5 * H, ['break_deducted', 'missing_break']]);
      // 9 h worked is not more than 9 h: the 30-minute rule applies.
      assert.deepEqual([none.workedSeconds, none.breakSeconds, none.paidSeconds, none.flags], [9 * H, 30 * M, 8.5 * H, ['break_deducted', 'missing_break']]);
      // 10 h: the 45-minute rule.
      assert.deepEqual([long.workedSeconds, long.breakSeconds, long.paidSeconds, long.overtimeSeconds], [10 * H, 45 * M, 9 * H + 15 * M, 1 * H + 15 * M]);
    } finally {
      await rules({});
    }
  });

  test('daily and weekly overtime overlap without counting an hour twice', async () => {
    const u = await worker();
    // Monday 2026-05-04 to Saturday 2026-05-09, 9 h a day.
    for (let d = 4; d <= 9; d++) await shifts(u, utcSite, [[`2026-05-0${d}T07:00:00Z`, `2026-05-0${d}T16:00:00Z`]]);
    const s = await sheet(u, '2026-05-04', '2026-05-10');
    assert.deepEqual(s.days.slice(0, 5).map((d: { overtimeSeconds: number }) => d.overtimeSeconds), [H, H, H, H, H]);
    // Saturday: 1 h daily overtime, and its 8 regular hours are beyond the week's 40.
    assert.equal(s.days[5].regularSeconds, 0);
    assert.equal(s.days[5].overtimeSeconds, 9 * H);
    assert.deepEqual(s.totals, { workedSeconds: 54 * H, breakSeconds: 0, paidSeconds: 54 * H, regularSeconds: 40 * H, overtimeSeconds: 14 * H });
    // A period starting mid-week still counts the week's earlier days for weekly overtime.
    const sat = await sheet(u, '2026-05-09');
    assert.equal(sat.totals.overtimeSeconds, 9 * H);
    // Either rule off.
    await rules({ weeklyOvertimeAfterMinutes: null });
    try {
      assert.equal((await sheet(u, '2026-05-04', '2026-05-10')).totals.overtimeSeconds, 6 * H);
      await rules({ dailyOvertimeAfterMinutes: null });
      assert.equal((await sheet(u, '2026-05-04', '2026-05-10')).totals.overtimeSeconds, 14 * H);
      // The week starting on Sunday: Monday to Saturday are one week still.
      await rules({ dailyOvertimeAfterMinutes: null, weekStartsOn: 2 });
      assert.equal((await sheet(u, '2026-05-04', '2026-05-10')).totals.overtimeSeconds, 5 * H, 'Tuesday to Saturday: 45 h, 5 over');
    } finally {
      await rules({});
    }
  });

  test('rounding each session to 15 minutes: nearest, up, down, none', async () => {
    const u = await worker();
    await shifts(u, utcSite, [['2026-06-01T08:00:00Z', '2026-06-01T15:08:00Z']]);
    const paid = async () => (await sheet(u, '2026-06-01')).days[0];
    try {
      const expected = { nearest: 7 * H + 15 * M, up: 7 * H + 15 * M, down: 7 * H, none: 7 * H + 8 * M } as const;
      for (const mode of ['nearest', 'up', 'down', 'none'] as const) {
        await rules({ rounding: { mode, minutes: 15 } });
        const d = await paid();
        assert.equal(d.paidSeconds, expected[mode], mode);
        assert.equal(d.workedSeconds, 7 * H + 8 * M, 'the recorded time is unchanged');
        assert.equal(d.sessions[0].paidSeconds, expected[mode]);
      }
      await rules({ rounding: { mode: 'nearest', minutes: 15 } });
      await shifts(u, utcSite, [['2026-06-02T08:00:00Z', '2026-06-02T15:07:00Z']]);
      assert.equal((await sheet(u, '2026-06-02')).days[0].paidSeconds, 7 * H, '7 minutes round down to the nearest quarter');
    } finally {
      await rules({});
    }
  });

  test('flags: an open session, a forced clock-out, a late offline punch, a long session', async () => {
    const u = await worker();
    await punch(u, 'clock_in', '2026-07-01T08:00:00Z', utcSite);
    await punch(u, 'clock_out', '2026-07-01T12:00:00Z', null, { forced: true });
    await punch(u, 'clock_in', '2026-07-02T08:00:00Z', utcSite, { late: true });
    await punch(u, 'clock_out', '2026-07-02T12:00:00Z', utcSite);
    await shifts(u, utcSite, [['2026-07-03T06:00:00Z', '2026-07-03T23:00:00Z']]);
    await punch(u, 'clock_in', '2026-07-06T08:00:00Z', utcSite);
    const s = await sheet(u, '2026-07-01', '2026-07-06');
    assert.deepEqual(s.days.map((d: { flags: string[] }) => d.flags), [['forced'], ['late'], ['long', 'over_daily_max'], [], [], ['open']]);
    assert.equal(s.days[0].workedSeconds, 4 * H, 'a forced clock-out still ends the session');
    assert.equal(s.days[5].workedSeconds, 0, 'an open session in a past period counts nothing');
    assert.equal(s.days[5].sessions[0].end, null);
    const list = await call(app, 'GET', `/api/managers/timesheets?from=2026-07-01&to=2026-07-06&search=${encodeURIComponent('')}&limit=100`, { token: manager });
    const row = list.body.items.find((r: { userId: number }) => r.userId === u);
    assert.deepEqual(row.flags, { open: 1, late: 1, forced: 1, break_deducted: 0, long: 1, edited: 0, auto: 0, short_rest: 0, over_daily_max: 1, missing_break: 0 });
    assert.equal(row.openSessions, 1);
    assert.equal(row.days, 4);
  });

  test('an open session today counts up to now (a live view), through the real clock route', async () => {
    const site = await siteWithQr(app, manager, circle(47, 8, 100));
    const w = await signedInWorker(app, manager);
    const res = await clock(app, w.token, { userId: w.id, eventType: 'clock_in', qrCodeValue: site.qr, ...site.center });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await new Promise((r) => setTimeout(r, 1100));
    const today = new Date().toISOString().slice(0, 10);
    const mine = await call(app, 'GET', `/api/worker/timesheet?from=${today}&to=${today}`, { token: w.token });
    assert.equal(mine.status, 200, JSON.stringify(mine.body));
    assert.equal(mine.body.userId, w.id);
    assert.deepEqual(mine.body.days[0].flags, ['open']);
    assert.ok(mine.body.days[0].workedSeconds >= 1, `counts up to now: ${mine.body.days[0].workedSeconds}`);
  });

  test('ranges: 62 days apart accepted; 63, reversed and impossible dates refused with the field named, in both languages', async () => {
    const u = await worker();
    const get = (q: string, lang = 'en-US') => call(app, 'GET', `/api/managers/timesheets?${q}`, { token: manager, headers: { 'accept-language': lang } });
    const ok = await get('from=2026-01-01&to=2026-03-04');
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const one = await sheet(u, '2026-01-01', '2026-03-04');
    assert.equal(one.days.length, 63, 'every date of the range, empty ones included');
    const long = await get('from=2026-01-01&to=2026-03-05');
    assertTcError(long, 400, 'VALIDATION_ERROR');
    assert.equal(long.body.details.field, 'to');
    assert.match(long.body.message, /63 days apart; at most 62/);
    const reversed = await get('from=2026-03-05&to=2026-03-01', 'zh-CN');
    assertTcError(reversed, 400, 'VALIDATION_ERROR');
    assert.match(reversed.body.message, /早于/);
    const impossible = await get('from=2026-02-30&to=2026-03-01');
    assertTcError(impossible, 400, 'VALIDATION_ERROR');
    assert.equal(impossible.body.details.field, 'from');
    assertTcError(await get('from=yesterday&to=2026-03-01'), 400, 'VALIDATION_ERROR');
    assertTcError(await get('to=2026-03-01'), 400, 'VALIDATION_ERROR');
    assertTcError(await call(app, 'GET', `/api/managers/timesheets/${u}?from=2026-03-01&to=2026-02-01`, { token: manager }), 400, 'VALIDATION_ERROR');
    assertTcError(await call(app, 'GET', '/api/managers/timesheets/999999?from=2026-03-01&to=2026-03-01', { token: manager }), 404, 'NOT_FOUND');
  });

  test('workers: their own timesheet only; manager routes refused', async () => {
    const w = await signedInWorker(app, manager);
    assertTcError(await call(app, 'GET', '/api/managers/timesheets?from=2026-03-01&to=2026-03-02', { token: w.token }), 403, 'FORBIDDEN');
    assertTcError(await call(app, 'GET', `/api/managers/timesheets/${w.id}?from=2026-03-01&to=2026-03-02`, { token: w.token }), 403, 'FORBIDDEN');
    assertTcError(await call(app, 'GET', '/api/managers/work-rules', { token: w.token }), 403, 'FORBIDDEN');
    assertTcError(await call(app, 'POST', '/api/managers/timesheets/export', { token: w.token, body: { from: '2026-03-01', to: '2026-03-02', format: 'csv', detail: 'workers' } }), 403, 'FORBIDDEN');
    // No way to name someone else: an extra parameter is refused or ignored, never obeyed.
    const other = await worker();
    await shifts(other, utcSite, [['2026-03-10T08:00:00Z', '2026-03-10T12:00:00Z']]);
    const res = await call(app, 'GET', `/api/worker/timesheet?from=2026-03-10&to=2026-03-10&userId=${other}`, { token: w.token });
    if (res.status === 200) {
      assert.equal(res.body.userId, w.id);
      assert.equal(res.body.totals.workedSeconds, 0);
    } else {
      assertTcError(res, 400, 'VALIDATION_ERROR');
    }
    assertTcError(await call(app, 'GET', '/api/worker/timesheet?from=2026-03-10&to=2026-03-10'), 401, 'TOKEN_INVALID');
  });

  test('the managers’ list: every worker (zeros included), paging, search, tag and site filters, sorted by name or hours', async () => {
    const tag = await call(app, 'POST', '/api/managers/tags', { token: manager, body: { name: 'Night crew' } });
    assert.equal(tag.status, 201, JSON.stringify(tag.body));
    const a = (await createWorker(app, manager, { fullName: 'Aaron Listed', tagIds: [tag.body.id] })).id;
    const b = (await createWorker(app, manager, { fullName: 'Abby Listed' })).id;
    const c = (await createWorker(app, manager, { fullName: 'Abel Listed', tagIds: [tag.body.id] })).id;
    const otherSite = (await createSite(app, manager, circle(1, 1, 100), 'Elsewhere')).id;
    await shifts(a, utcSite, [['2026-08-03T08:00:00Z', '2026-08-03T10:00:00Z']]);
    await shifts(b, otherSite, [['2026-08-03T08:00:00Z', '2026-08-03T14:00:00Z']]);
    const list = async (q: string) => {
      const res = await call(app, 'GET', `/api/managers/timesheets?from=2026-08-03&to=2026-08-09&${q}`, { token: manager });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body;
    };
    const byName = await list('search=listed');
    assert.equal(byName.total, 3);
    assert.deepEqual(byName.items.map((r: { userId: number }) => r.userId), [a, b, c]);
    assert.deepEqual(byName.items.map((r: { paidSeconds: number }) => r.paidSeconds), [2 * H, 6 * H, 0]);
    assert.equal(byName.from, '2026-08-03');
    const byHours = await list('search=listed&sort=hours');
    assert.deepEqual(byHours.items.map((r: { userId: number }) => r.userId), [b, a, c]);
    const page2 = await list('search=listed&limit=2&page=2');
    assert.deepEqual([page2.total, page2.page, page2.limit, page2.items.map((r: { userId: number }) => r.userId)], [3, 2, 2, [c]]);
    assert.deepEqual((await list(`search=listed&tag=${tag.body.id}`)).items.map((r: { userId: number }) => r.userId), [a, c]);
    const atSite = await list(`search=listed&siteId=${otherSite}`);
    assert.deepEqual(atSite.items.map((r: { userId: number }) => r.userId), [b]);
    assert.equal((await list('search=nobody-is-called-this')).total, 0);
    assertTcError(await call(app, 'GET', '/api/managers/timesheets?from=2026-08-03&to=2026-08-09&limit=101', { token: manager }), 400, 'VALIDATION_ERROR');
  });

  async function exported(body: Record<string, unknown>, lang = 'en-US'): Promise<{ task: { id: number; format: string }; file: Buffer; type: string }> {
    const res = await call(app, 'POST', '/api/managers/timesheets/export', { token: manager, body, headers: { 'accept-language': lang } });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    let task = res.body;
    for (let i = 0; i < 400 && (task.status === 'pending' || task.status === 'processing'); i++) {
      await new Promise((r) => setTimeout(r, 50));
      task = (await call(app, 'GET', `/api/managers/exports/${task.id}`, { token: manager })).body;
    }
    assert.equal(task.status, 'completed', JSON.stringify(task));
    const dl = await app.app.inject({ method: 'GET', url: task.downloadUrl, headers: { authorization: `Bearer ${manager}` } });
    assert.equal(dl.statusCode, 200);
    return { task, file: dl.rawPayload, type: String(dl.headers['content-type']) };
  }

  test('the payroll export: CSV and XLSX at each detail level, parsed back, equal to the API', async () => {
    const u = (await createWorker(app, manager, { fullName: '=Payroll Person' })).id;
    await shifts(u, utcSite, [['2026-09-07T08:00:00Z', '2026-09-07T12:00:00Z'], ['2026-09-07T12:45:00Z', '2026-09-07T18:00:00Z']]);
    await shifts(u, utcSite, [['2026-09-08T08:00:00Z', '2026-09-08T15:20:00Z']]);
    const api = await sheet(u, '2026-09-07', '2026-09-13');
    const filters = { from: '2026-09-07', to: '2026-09-13', search: 'Payroll Person' };
    const hours = (s: number) => (s / 3600).toFixed(2);

    const csv = await exported({ ...filters, format: 'csv', detail: 'workers' });
    assert.match(csv.type, /^text\/csv/);
    const rows = parse<Record<string, string>>(csv.file.toString('utf8').replace(/^\uFEFF/, ''), { columns: true });
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!['Full name'], "'=Payroll Person", 'formula-safe cell');
    assert.equal(rows[0]!['Paid (h)'], hours(api.totals.paidSeconds));
    assert.equal(rows[0]!['Overtime (h)'], hours(api.totals.overtimeSeconds));
    assert.equal(rows[0]!['Paid (h:mm)'], '16:35');
    assert.equal(rows[0]!['Days worked'], '2');

    const days = await exported({ ...filters, format: 'csv', detail: 'days' }, 'zh-CN');
    const dayRows = parse<Record<string, string>>(days.file.toString('utf8').replace(/^\uFEFF/, ''), { columns: true });
    assert.deepEqual(dayRows.map((r) => r['日期']), ['2026-09-07', '2026-09-08']);
    assert.deepEqual(dayRows.map((r) => r['休息（小时）']), [hours(api.days[0].breakSeconds), hours(api.days[1].breakSeconds)]);

    const sessions = await exported({ ...filters, format: 'csv', detail: 'sessions' });
    const sessionRows = parse<Record<string, string>>(sessions.file.toString('utf8').replace(/^\uFEFF/, ''), { columns: true });
    assert.equal(sessionRows.length, 3);
    assert.deepEqual(sessionRows.map((r) => [r['Start'], r['Site']]), [
      ['2026-09-07 08:00:00', 'UTC works'], ['2026-09-07 12:45:00', 'UTC works'], ['2026-09-08 08:00:00', 'UTC works'],
    ]);

    for (const detail of ['workers', 'days', 'sessions'] as const) {
      const x = await exported({ ...filters, format: 'xlsx', detail });
      assert.match(x.type, /spreadsheetml/);
      const book = new ExcelJS.Workbook();
      await book.xlsx.load(x.file as unknown as ArrayBuffer);
      const ws = book.worksheets[0]!;
      const header = (ws.getRow(1).values as unknown[]).slice(1);
      const paidCol = header.indexOf('Paid (h)') + 1;
      assert.ok(paidCol > 0, JSON.stringify(header));
      const dataRows = detail === 'workers' ? 1 : detail === 'days' ? 2 : 3;
      assert.equal(ws.rowCount, 1 + dataRows + 1, 'header, rows, totals');
      const paid = ws.getRow(2).getCell(paidCol);
      assert.equal(typeof paid.value, 'number', 'a typed numeric cell');
      const totals = ws.getRow(dataRows + 2);
      assert.equal(totals.getCell(1).value, 'Total');
      const sum = totals.getCell(paidCol).value as { formula: string; result: number };
      assert.match(sum.formula, /^SUM\(/);
      assert.equal(sum.result.toFixed(2), hours(api.totals.paidSeconds));
      const clockCol = header.indexOf('Paid (h:mm)') + 1;
      assert.equal(ws.getRow(2).getCell(clockCol).numFmt, '[h]:mm');
    }
    // Bad bodies are refused before anything is queued.
    assertTcError(await call(app, 'POST', '/api/managers/timesheets/export', { token: manager, body: { ...filters, format: 'pdf', detail: 'workers' } }), 400, 'VALIDATION_ERROR');
    assertTcError(await call(app, 'POST', '/api/managers/timesheets/export', { token: manager, body: { from: '2026-01-01', to: '2026-06-01', format: 'csv', detail: 'workers' } }), 400, 'VALIDATION_ERROR');
    assertTcError(await call(app, 'GET', '/api/managers/exports/999999', { token: manager }), 404, 'NOT_FOUND');
  });

  test('sites: a time zone validated and stored as the runtime spells it', async () => {
    const bad = await call(app, 'POST', '/api/managers/sites', { token: manager, body: { name: 'Nowhere', fence: null, timezone: 'Mars/Olympus' } });
    assertTcError(bad, 400, 'VALIDATION_ERROR');
    assert.equal(bad.body.details.field, 'timezone');
    const site = await createSite(app, manager, null, 'Zone default');
    const got = await call(app, 'GET', `/api/managers/sites/${site.id}`, { token: manager });
    assert.equal(got.body.timezone, 'UTC');
    const changed = await call(app, 'PATCH', `/api/managers/sites/${site.id}`, { token: manager, body: { timezone: 'europe/berlin' } });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.equal(changed.body.timezone, 'Europe/Berlin', 'the usual spelling, whatever case was sent');
  });
});
