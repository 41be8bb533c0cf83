// The worker app's logic that needs no browser: the offline punch queue (order, exactly-once
// sending, waiting on no answer, refusals removed), the state the clock button reflects, the QR
// value read, and the words of every refusal.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import i18next from 'i18next';
import { effectiveState, isRetryable, memoryStore, nextAction, PunchQueue, qrValueOf, type Punch, type SendError } from '../src/worker/queue.ts';
import { punchRefusal, strings } from '../src/worker/strings.ts';

class Answer extends Error implements SendError {
  status: number;
  code: string;
  details: Record<string, unknown>;
  retryAfter?: number;
  constructor(status: number, code: string, details: Record<string, unknown> = {}, retryAfter?: number) {
    super(code);
    this.status = status;
    this.code = code;
    this.details = details;
    if (retryAfter !== undefined) this.retryAfter = retryAfter;
  }
}
const asAnswer = (e: unknown) => (e instanceof Answer ? e : null);

let n = 0;
const punch = (over: Partial<Punch> = {}): Omit<Punch, 'seq'> => ({
  clientEventId: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
  userId: 7, eventType: 'clock_in', qrCodeValue: 'qr', latitude: 1, longitude: 2, accuracy: 5,
  capturedAt: new Date(Date.UTC(2026, 2, 2, 8, n)).toISOString(), ...over,
});

/** A fake server: records what it received; answers by a script (default: accepted). */
function server(script: (p: Punch, i: number) => Answer | 'ok' = () => 'ok') {
  const received: Punch[] = [];
  const recorded = new Set<string>();
  const send = async (p: Punch) => {
    const answer = script(p, received.length);
    received.push(p);
    if (answer !== 'ok') throw answer;
    recorded.add(p.clientEventId);
    return { timestamp: p.capturedAt, eventType: p.eventType };
  };
  return { send, received, recorded };
}

test('a punch sent with an answer is removed; one without an answer waits, and is sent once the network returns', async () => {
  const store = memoryStore();
  let online = false;
  const s = server(() => (online ? 'ok' : new Answer(0, 'NETWORK')));
  const q = new PunchQueue(store, s.send, asAnswer);
  const a = await q.add(punch({ eventType: 'clock_in' }));
  const first = await q.flush(7);
  assert.deepEqual(first.outcomes, []);
  assert.deepEqual(first.waiting.map((p) => p.clientEventId), [a.clientEventId]);
  assert.equal((first.blockedBy as Answer).status, 0);
  assert.equal(store.map.size, 1, 'kept on the phone');
  const b = await q.add(punch({ eventType: 'clock_out' }));
  online = true;
  const second = await q.flush(7);
  assert.deepEqual(second.outcomes.map((o) => [o.kind, o.punch.clientEventId]), [['sent', a.clientEventId], ['sent', b.clientEventId]]);
  assert.equal(store.map.size, 0);
  assert.deepEqual((await q.flush(7)).outcomes, [], 'nothing is sent twice');
  assert.deepEqual(s.received.map((p) => p.clientEventId), [a.clientEventId, a.clientEventId, b.clientEventId]);
});

test('order: by capture time, then by arrival; a punch that gets no answer holds back the later ones', async () => {
  const store = memoryStore();
  const q = new PunchQueue(store, server().send, asAnswer);
  const late = await q.add(punch({ capturedAt: '2026-03-02T10:00:00.000Z' }));
  const early = await q.add(punch({ capturedAt: '2026-03-02T09:00:00.000Z' }));
  const tie = await q.add(punch({ capturedAt: '2026-03-02T10:00:00.000Z' }));
  assert.deepEqual((await q.waiting(7)).map((p) => p.clientEventId), [early.clientEventId, late.clientEventId, tie.clientEventId]);
  const blocked = new PunchQueue(store, async (p: Punch) => {
    if (p.clientEventId === late.clientEventId) throw new Answer(503, 'SERVICE_UNAVAILABLE');
    return { timestamp: p.capturedAt };
  }, asAnswer);
  const r = await blocked.flush(7);
  assert.deepEqual(r.outcomes.map((o) => o.punch.clientEventId), [early.clientEventId]);
  assert.deepEqual(r.waiting.map((p) => p.clientEventId), [late.clientEventId, tie.clientEventId]);
  assert.deepEqual([...store.map.keys()].sort(), [late.clientEventId, tie.clientEventId].sort());
});

test('a refused punch is reported with its error and removed; the queue goes on with the next', async () => {
  const store = memoryStore();
  const s = server((p) => (p.qrCodeValue === 'old' ? new Answer(404, 'QR_CODE_INACTIVE') : 'ok'));
  const q = new PunchQueue(store, s.send, asAnswer);
  const bad = await q.add(punch({ qrCodeValue: 'old' }));
  const good = await q.add(punch());
  const r = await q.flush(7);
  assert.deepEqual(r.outcomes.map((o) => [o.kind, o.punch.clientEventId]), [['refused', bad.clientEventId], ['sent', good.clientEventId]]);
  const refused = r.outcomes[0]!;
  assert.equal(refused.kind === 'refused' && (refused.error as Answer).code, 'QR_CODE_INACTIVE');
  assert.equal(store.map.size, 0);
});

test('no answer, 5xx, 429 and 401 keep a punch; every other status is the server’s verdict', () => {
  for (const status of [0, 401, 408, 429, 500, 502, 503]) assert.equal(isRetryable({ status, code: 'X' }), true, String(status));
  for (const status of [400, 403, 404, 409]) assert.equal(isRetryable({ status, code: 'X' }), false, String(status));
});

test('an error that is not an answer of the server (a bug, a TypeError of fetch) keeps the punch', async () => {
  const store = memoryStore();
  const q = new PunchQueue(store, async () => {
    throw new TypeError('Failed to fetch');
  }, asAnswer);
  await q.add(punch());
  const r = await q.flush(7);
  assert.equal(r.waiting.length, 1);
  assert.equal(store.map.size, 1);
});

test('concurrent flushes (online event, timer, a tap) send each punch once', async () => {
  const store = memoryStore();
  const s = server();
  const q = new PunchQueue(store, s.send, asAnswer);
  const a = await q.add(punch());
  const b = await q.add(punch({ eventType: 'clock_out' }));
  await Promise.all([q.flush(7), q.flush(7), q.flush(7)]);
  assert.deepEqual(s.received.map((p) => p.clientEventId), [a.clientEventId, b.clientEventId]);
});

test('a tap’s punch (submit) is sent while it is stored once the worker has nothing waiting, told at the answer, removed once stored; otherwise it goes after what waits', async () => {
  // A store whose writes finish when the test says: the send must not wait for them.
  const store = memoryStore();
  let release = () => {};
  const slowPut = store.put.bind(store);
  store.put = (p) => new Promise<void>((resolve) => (release = () => void slowPut(p).then(resolve)));
  let online = true;
  const s = server(() => (online ? 'ok' : new Answer(0, 'NETWORK')));
  const q = new PunchQueue(store, s.send, asAnswer);

  // Before any flush the tab does not know what waits: stored first, as add() then flush().
  const first = q.submit(punch());
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(s.received.length, 0, 'not sent before it is stored');
  release();
  assert.equal((await first).outcomes[0]?.kind, 'sent');

  const a = punch({ eventType: 'clock_out' });
  const r = await q.submit(a);
  assert.deepEqual(s.received.map((p) => p.clientEventId).slice(1), [a.clientEventId], 'sent while being stored');
  assert.deepEqual(r.outcomes.map((o) => [o.kind, o.punch.clientEventId]), [['sent', a.clientEventId]]);
  release();
  // A flush meanwhile (the online event, say) waits until it is removed: it is not sent twice.
  assert.deepEqual((await q.flush(7)).outcomes, []);
  assert.equal(s.received.length, 2);
  assert.equal(store.map.size, 0, 'removed once stored and answered');

  // No answer: it stays, and the next one is stored and sent after it, in order.
  online = false;
  const b = punch();
  const lost = q.submit(b);
  release();
  assert.deepEqual((await lost).waiting.map((p) => p.clientEventId), [b.clientEventId]);
  assert.deepEqual([...store.map.keys()], [b.clientEventId]);
  online = true;
  const c = q.submit(punch({ eventType: 'clock_out' }));
  await new Promise((r) => setTimeout(r, 0));
  release();
  const after = await c;
  assert.deepEqual(after.outcomes.map((o) => o.punch.eventType), ['clock_in', 'clock_out']);
  assert.equal(s.received.at(-2)?.clientEventId, b.clientEventId);
  assert.equal(store.map.size, 0);
});

test('only the signed-in worker’s punches are sent; the queue survives a new queue object over the same store (a reload)', async () => {
  const store = memoryStore();
  const offline = new PunchQueue(store, async () => {
    throw new Answer(0, 'NETWORK');
  }, asAnswer);
  const mine = await offline.add(punch({ userId: 7 }));
  const theirs = await offline.add(punch({ userId: 8 }));
  await offline.flush(7);
  const s = server();
  const reloaded = new PunchQueue(store, s.send, asAnswer);
  assert.deepEqual((await reloaded.waiting(7)).map((p) => p.clientEventId), [mine.clientEventId]);
  await reloaded.flush(7);
  assert.deepEqual(s.received.map((p) => p.clientEventId), [mine.clientEventId]);
  assert.deepEqual([...store.map.keys()], [theirs.clientEventId]);
  // Arrival order continues after the stored punches.
  const next = await reloaded.add(punch({ userId: 8 }));
  assert.ok(next.seq > (store.map.get(theirs.clientEventId)!.seq));
});

test('listeners see the waiting punches change', async () => {
  const q = new PunchQueue(memoryStore(), server().send, asAnswer);
  const seen: number[] = [];
  q.subscribe((w) => seen.push(w.length));
  await q.add(punch());
  await q.add(punch());
  await q.flush(7);
  assert.deepEqual(seen, [1, 2, 1, 0]);
});

test('the button follows the queued state: after a queued clock-in the next action is clock-out', () => {
  assert.deepEqual(effectiveState(null, []), { state: 'clock_out', since: null, queued: false });
  assert.deepEqual(effectiveState({ eventType: 'clock_in', at: '2026-03-02T08:00:00Z' }, []), { state: 'clock_in', since: '2026-03-02T08:00:00Z', queued: false });
  const queued = [{ ...punch({ eventType: 'clock_in', capturedAt: '2026-03-02T08:00:00.000Z' }), seq: 1 }];
  const s = effectiveState({ eventType: 'clock_out', at: '2026-03-01T17:00:00Z' }, queued);
  assert.deepEqual(s, { state: 'clock_in', since: '2026-03-02T08:00:00.000Z', queued: true });
  assert.equal(nextAction(s.state), 'clock_out');
  const both = [...queued, { ...punch({ eventType: 'clock_out', capturedAt: '2026-03-02T17:00:00.000Z' }), seq: 2 }];
  assert.equal(nextAction(effectiveState(null, both).state), 'clock_in');
});

test('the QR value: the code’s UUID, also inside a URL; anything else as read', () => {
  assert.equal(qrValueOf(' 0B8E7C1E-6A57-4C8E-9D1B-2F9F3F6B9C10 \n'), '0b8e7c1e-6a57-4c8e-9d1b-2f9f3f6b9c10');
  assert.equal(qrValueOf('https://clock.example/q?c=0b8e7c1e-6a57-4c8e-9d1b-2f9f3f6b9c10'), '0b8e7c1e-6a57-4c8e-9d1b-2f9f3f6b9c10');
  assert.equal(qrValueOf(' hello '), 'hello');
});

test('every refusal in words, in both languages', async () => {
  const i18n = i18next.createInstance();
  await i18n.init({ resources: { 'en-US': { worker: strings['en-US'] }, 'zh-CN': { worker: strings['zh-CN'] } }, lng: 'en-US', defaultNS: 'worker', interpolation: { escapeValue: false } });
  const time = (iso: string) => iso.slice(11, 16);
  const cases: [Answer, RegExp, RegExp][] = [
    [new Answer(403, 'OUTSIDE_GEOFENCE', { distanceMetres: 42.4 }), /42 m outside/, /42 米/],
    [new Answer(404, 'QR_CODE_INACTIVE'), /not in use/, /未启用/],
    [new Answer(409, 'DUPLICATE_EVENT', { currentState: 'clock_in' }), /already clocked in/, /已经上班/],
    [new Answer(409, 'DUPLICATE_EVENT', { currentState: 'clock_out' }), /already clocked out/, /已经下班/],
    [new Answer(409, 'PUNCH_TOO_SOON', { lastEventType: 'clock_out', secondsSinceLastEvent: 5, minIntervalSeconds: 10, retryAfterSeconds: 5 }), /^You clocked out 5 seconds ago.*wait 5 s/, /5 秒前刚下班打卡.*等 5 秒/],
    [new Answer(409, 'PUNCH_TOO_SOON', { lastEventType: 'clock_in', secondsSinceLastEvent: 2, minIntervalSeconds: 10 }), /^You clocked in 2 seconds ago.*wait 8 s/, /2 秒前刚上班打卡.*等 8 秒/],
    [new Answer(403, 'DEVICE_NOT_AUTHORIZED'), /reset the device binding/, /重置设备绑定/],
    [new Answer(429, 'RATE_LIMITED', {}, 17), /Wait 17 s/, /17 秒/],
    [new Answer(409, 'GEOFENCE_NOT_CONFIGURED'), /no area set up/, /尚未设置范围/],
    [new Answer(409, 'LATER_EVENT_RECORDED', { latestEventAt: '2026-03-02T09:30:00.000Z' }), /later punch \(09:30\)/, /09:30/],
    [new Answer(400, 'VALIDATION_ERROR', { field: 'capturedAt', reason: 'too old' }), /too old/, /过早/],
    [new Answer(400, 'VALIDATION_ERROR', { field: 'capturedAt', reason: 'in the future' }), /clock is wrong/, /时间不正确/],
  ];
  for (const [err, en, zh] of cases) {
    await i18n.changeLanguage('en-US');
    assert.match(punchRefusal(err, i18n.t, time), en, err.code);
    await i18n.changeLanguage('zh-CN');
    assert.match(punchRefusal(err, i18n.t, time), zh, err.code);
  }
});
