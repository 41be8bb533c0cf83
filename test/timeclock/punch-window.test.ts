// The duplicate-punch window (issue 27, item 1): an opposite punch less than
// CLOCK_MIN_INTERVAL_SECONDS after the worker's latest event is refused with 409 PUNCH_TOO_SOON,
// forced clock-outs included; 0 restores the contract's bare same-state rule. The times compared
// are the events' own times (the capture time of an offline punch), set here with `capturedAt`
// so that no test waits.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { closeAll, startApp, type TestApp } from '../helpers/app.ts';
import { call } from '../helpers/http.ts';
import { assertTcError, managerToken, signedInWorker, siteWithQr } from '../helpers/timeclock.ts';

const ago = (seconds: number) => new Date(Date.now() - seconds * 1000).toISOString();

describe('duplicate-punch window', () => {
  let windowed: TestApp;
  let bare: TestApp;
  before(async () => {
    // One after the other: two starting at once on a loaded machine can pass Fastify's plugin timeout.
    windowed = await startApp({ CLOCK_MIN_INTERVAL_SECONDS: '10' });
    bare = await startApp({ CLOCK_MIN_INTERVAL_SECONDS: '0' });
  });
  after(() => closeAll(windowed, bare));

  async function setUp(app: TestApp) {
    const manager = await managerToken(app);
    const w = await signedInWorker(app, manager);
    const site = await siteWithQr(app, manager);
    const punch = (eventType: string, capturedAt: string, extra: Record<string, unknown> = {}) =>
      call(app, 'POST', '/api/clock', {
        token: w.token,
        headers: { 'accept-language': 'en-US' },
        body: { userId: w.id, eventType, qrCodeValue: site.qr, ...site.center, capturedAt, ...extra },
      });
    const events = async () => (await call(app, 'GET', `/api/worker/clock-history/${w.id}`, { token: w.token })).body as { event_type: string }[];
    return { manager, w, site, punch, events };
  }

  test('a clock-out then a clock-in 1 s later is refused with PUNCH_TOO_SOON, in both languages; 10 s later it is accepted', async () => {
    const { punch, events, w, site } = await setUp(windowed);
    assert.equal((await punch('clock_in', ago(120))).status, 200);
    const out = await punch('clock_out', ago(60));
    assert.equal(out.status, 200, JSON.stringify(out.body));
    const tooSoon = await punch('clock_in', ago(59));
    assertTcError(tooSoon, 409, 'PUNCH_TOO_SOON');
    assert.match(tooSoon.body.message, /you clocked out 1 s ago/);
    assert.deepEqual(tooSoon.body.details, {
      lastEventType: 'clock_out',
      lastEventAt: out.body.timestamp,
      secondsSinceLastEvent: 1,
      minIntervalSeconds: 10,
      retryAfterSeconds: 9,
    });
    const zh = await call(windowed, 'POST', '/api/clock', {
      token: w.token, headers: { 'accept-language': 'zh-CN' },
      body: { userId: w.id, eventType: 'clock_in', qrCodeValue: site.qr, ...site.center, capturedAt: ago(58) },
    });
    assertTcError(zh, 409, 'PUNCH_TOO_SOON');
    assert.match(zh.body.message, /秒前刚下班打卡/);
    // Nothing was recorded, and no security alert was raised for the double tap.
    assert.deepEqual((await events()).map((e) => e.event_type), ['clock_out', 'clock_in']);
    const [alerts] = await windowed.platform.db.query<{ n: number }>('SELECT count(*)::int AS n FROM timeclock.security_alerts WHERE user_id = $1', [w.id]);
    assert.equal(alerts!.n, 0);
    // The same-state rule is unchanged and comes first.
    assertTcError(await punch('clock_out', ago(59)), 409, 'DUPLICATE_EVENT');
    // 10 s after the clock-out, the clock-in is accepted.
    assert.equal((await punch('clock_in', ago(50))).status, 200);
    assert.deepEqual((await events()).map((e) => e.event_type), ['clock_in', 'clock_out', 'clock_in']);
  });

  test('live punches: a double tap (clock-in then clock-out at once) records only the first', async () => {
    const { w, site, events } = await setUp(windowed);
    const body = (eventType: string) => ({ userId: w.id, eventType, qrCodeValue: site.qr, ...site.center });
    assert.equal((await call(windowed, 'POST', '/api/clock', { token: w.token, body: body('clock_in') })).status, 200);
    const second = await call(windowed, 'POST', '/api/clock', { token: w.token, body: body('clock_out') });
    assertTcError(second, 409, 'PUNCH_TOO_SOON');
    assert.equal(second.body.details.lastEventType, 'clock_in');
    assert.ok(second.body.details.retryAfterSeconds >= 1 && second.body.details.retryAfterSeconds <= 10);
    assert.deepEqual((await events()).map((e) => e.event_type), ['clock_in']);
  });

  test('a forced clock-out is not exempt', async () => {
    const { punch, w, site, events } = await setUp(windowed);
    assert.equal((await punch('clock_in', ago(30))).status, 200);
    const forced = await call(windowed, 'POST', '/api/clock', {
      token: w.token, body: { userId: w.id, eventType: 'clock_out', qrCodeValue: 'FORCE_CLOCK_OUT', ...site.center, capturedAt: ago(28) },
    });
    assertTcError(forced, 409, 'PUNCH_TOO_SOON');
    assert.equal(forced.body.details.lastEventType, 'clock_in');
    assert.deepEqual((await events()).map((e) => e.event_type), ['clock_in']);
  });

  test('offline punches are judged by their capture times: sent together they pass, a replayed double tap does not', async () => {
    const { punch, events } = await setUp(windowed);
    // Made an hour apart, sent back to back.
    assert.equal((await punch('clock_in', ago(3600), { clientEventId: crypto.randomUUID() })).status, 200);
    assert.equal((await punch('clock_out', ago(60), { clientEventId: crypto.randomUUID() })).status, 200);
    // Made 2 s after the clock-out while offline and sent a minute later: still a double tap.
    const id = crypto.randomUUID();
    const capturedAt = ago(58);
    const late = await punch('clock_in', capturedAt, { clientEventId: id });
    assertTcError(late, 409, 'PUNCH_TOO_SOON');
    assert.equal(late.body.details.secondsSinceLastEvent, 2);
    // Its replay (same client event id and body) gets the same answer and records nothing.
    const replay = await punch('clock_in', capturedAt, { clientEventId: id });
    assertTcError(replay, 409, 'PUNCH_TOO_SOON');
    assert.deepEqual(replay.body.details, late.body.details);
    assert.deepEqual((await events()).map((e) => e.event_type), ['clock_out', 'clock_in']);
  });

  test('CLOCK_MIN_INTERVAL_SECONDS=0 restores the bare rule: the clock-in 1 s after the clock-out is accepted', async () => {
    const { punch, events } = await setUp(bare);
    assert.equal((await punch('clock_in', ago(120))).status, 200);
    assert.equal((await punch('clock_out', ago(60))).status, 200);
    assert.equal((await punch('clock_in', ago(59))).status, 200);
    assertTcError(await punch('clock_in', ago(58)), 409, 'DUPLICATE_EVENT');
    assert.deepEqual((await events()).map((e) => e.event_type), ['clock_in', 'clock_out', 'clock_in']);
  });

  test('the default is 10 s, and the reference page documents the window and FORCE_CLOCK_OUT', async () => {
    const { loadConfig } = await import('../../src/platform/config.ts');
    assert.equal(loadConfig({}).CLOCK_MIN_INTERVAL_SECONDS, 10);
    const doc = (await call(windowed, 'GET', '/api/docs/openapi.json')).body;
    const clockDoc = doc.paths['/api/clock'].post.description as string;
    assert.match(clockDoc, /PUNCH_TOO_SOON/);
    assert.match(clockDoc, /capture time of a punch sent with `capturedAt`/);
    assert.match(clockDoc, /FORCE_CLOCK_OUT is on by default/);
    assert.match(doc.info.description, /FORCE_CLOCK_OUT is on by default/);
    assert.match(doc.info.description, /PUNCH_TOO_SOON/);
  });
});
