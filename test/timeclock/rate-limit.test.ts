// The contract's rate limits: auth per IP, clock and general per user, with X-RateLimit-*
// headers (reset as epoch seconds) and 429 RATE_LIMITED with Retry-After; shared across
// instances through Redis.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Server } from '../../src/server.ts';
import { closeAll, MANAGER_PASSWORD, onPostgres, startApp, startWithSibling, withRedis, within, type TestApp } from '../helpers/app.ts';
import { assertLimitHeaders } from '../helpers/assert.ts';
import { call, type Reply } from '../helpers/http.ts';
import { assertTcError, clock, createWorker, tokenUserId, newDeviceUuid, siteWithQr, workerLogin, signedInWorker } from '../helpers/timeclock.ts';

// The contract's values.
const LIMITS = { TIMECLOCK_RATE_LIMIT_AUTH: '5', TIMECLOCK_RATE_LIMIT_CLOCK: '10', TIMECLOCK_RATE_LIMIT_LOCATION: '60', TIMECLOCK_RATE_LIMIT_GENERAL: '100' };

async function from(app: Server, ip: string, method: 'GET' | 'POST', url: string, body?: object, token?: string): Promise<Reply> {
  const res = await app.app.inject({
    method, url, remoteAddress: ip,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    ...(body ? { payload: body } : {}),
  });
  return { status: res.statusCode, body: res.json(), headers: res.headers };
}

describe('time-clock rate limits (contract values)', () => {
  let app: TestApp;
  let manager: string;
  before(async () => {
    app = await startApp(LIMITS);
    // The manager signs in from its own address, outside the tested IPs.
    const res = await from(app, '10.9.9.9', 'POST', '/api/auth/login', { username: 'manager', password: MANAGER_PASSWORD, deviceUuid: newDeviceUuid('web') });
    manager = res.body.token;
  });
  after(() => app?.close());

  test('the 6th login from one IP within a minute is 429 with headers and Retry-After; another IP is not affected', async () => {
    const body = { username: 'nobody', password: 'Wrong-pass-1', deviceUuid: newDeviceUuid() };
    for (let i = 1; i <= 5; i++) {
      const res = await from(app, '10.0.0.1', 'POST', '/api/auth/login', body);
      assertTcError(res, 401, 'INVALID_CREDENTIALS');
      assertLimitHeaders(res, 5, 5 - i);
    }
    const sixth = await from(app, '10.0.0.1', 'POST', '/api/auth/login', body);
    assertTcError(sixth, 429, 'RATE_LIMITED');
    assertLimitHeaders(sixth, 5, 0);
    const retryAfter = Number(sixth.headers['retry-after']);
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, String(sixth.headers['retry-after']));
    assert.equal(sixth.body.details.limit, 5);
    // Even the right password is refused now.
    assertTcError(await from(app, '10.0.0.1', 'POST', '/api/auth/login', { username: 'manager', password: MANAGER_PASSWORD, deviceUuid: newDeviceUuid() }), 429, 'RATE_LIMITED');
    // Validation failures count and carry the headers too.
    const other = await from(app, '10.0.0.2', 'POST', '/api/auth/login', {});
    assertTcError(other, 400, 'VALIDATION_ERROR');
    assertLimitHeaders(other, 5, 4);
  });

  test('refresh shares the auth tier of the client IP', async () => {
    const w = await createWorker(app, manager);
    const token = (await from(app, '10.0.1.1', 'POST', '/api/auth/login', { username: w.username, password: w.password, deviceUuid: newDeviceUuid() })).body.token as string;
    for (let i = 2; i <= 5; i++) {
      const res = await from(app, '10.0.1.1', 'POST', '/api/auth/refresh', undefined, token);
      assert.equal(res.status, 200);
      assertLimitHeaders(res, 5, 5 - i);
    }
    assertTcError(await from(app, '10.0.1.1', 'POST', '/api/auth/refresh', undefined, token), 429, 'RATE_LIMITED');
    // A refused refresh (a bad token) counts before the token is checked, and says so.
    const refused = await from(app, '10.0.1.2', 'POST', '/api/auth/refresh', undefined, 'not-a-token');
    assertTcError(refused, 401, 'TOKEN_INVALID');
    assertLimitHeaders(refused, 5, 4);
  });

  test('clock: 10 per minute per user, whatever the IP; another user is not affected; limited responses carry the headers', async () => {
    const site = await siteWithQr(app, manager);
    const a = await createWorker(app, manager);
    const b = await createWorker(app, manager);
    const tokenA = await workerLogin(app, a.username, a.password);
    const tokenB = await workerLogin(app, b.username, b.password);
    for (let i = 1; i <= 10; i++) {
      const res = await from(app, `10.0.2.${i}`, 'POST', '/api/clock', { userId: a.id, eventType: i % 2 ? 'clock_in' : 'clock_out', qrCodeValue: site.qr, ...site.center }, tokenA);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assertLimitHeaders(res, 10, 10 - i);
    }
    const eleventh = await clock(app, tokenA, { userId: a.id, eventType: 'clock_in', qrCodeValue: site.qr, ...site.center });
    assertTcError(eleventh, 429, 'RATE_LIMITED');
    assert.ok(Number(eleventh.headers['retry-after']) >= 1);
    // The refused request recorded nothing.
    const [n] = await app.platform.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM timeclock.clock_events WHERE user_id = $1`, [a.id]);
    assert.equal(n!.n, 10);
    const otherUser = await clock(app, tokenB, { userId: b.id, eventType: 'clock_in', qrCodeValue: site.qr, ...site.center });
    assert.equal(otherUser.status, 200);
    assertLimitHeaders(otherUser, 10, 9);
    // The clock tier is separate from the general one.
    const general = await call(app, 'GET', `/api/workers/${a.id}`, { token: tokenA });
    assert.equal(general.status, 200);
    assert.equal(general.headers['x-ratelimit-limit'], '100');
  });

  test('general routes: 100 per minute per user, errors included', async () => {
    const { token, ...w } = await signedInWorker(app, manager);
    for (let i = 1; i <= 100; i++) {
      const res = await call(app, 'GET', i % 10 ? `/api/workers/${w.id}` : `/api/workers/${tokenUserId(manager)}`, { token });
      assert.equal(res.status, i % 10 ? 200 : 403);
      assertLimitHeaders(res, 100, 100 - i);
    }
    const over = await call(app, 'GET', `/api/workers/${w.id}`, { token });
    assertTcError(over, 429, 'RATE_LIMITED');
    assertLimitHeaders(over, 100, 0);
    // The manager is counted separately.
    assert.equal((await call(app, 'GET', `/api/workers/${w.id}`, { token: manager })).status, 200);
  });

  test('health and docs are not limited', async () => {
    const res = await call(app, 'GET', '/api/health');
    assert.equal(res.status, 200);
    assert.equal(res.headers['x-ratelimit-limit'], undefined);
  });
});

describe('rate limits across instances', { skip: onPostgres && withRedis ? false : 'needs PostgreSQL and Redis (TEST_DATABASE_URL, TEST_REDIS_URL)' }, () => {
  let a: TestApp;
  let b: TestApp;
  before(async () => {
    [a, b] = await startWithSibling(LIMITS);
  });
  after(() => closeAll(b, a));

  test('login attempts from one IP are counted once across two instances sharing Redis', async () => {
    const body = { username: 'nobody', password: 'Wrong-pass-1', deviceUuid: newDeviceUuid() };
    for (let i = 1; i <= 5; i++) {
      const res = await from(i % 2 ? a : b, '10.1.0.1', 'POST', '/api/auth/login', body);
      assert.equal(res.status, 401);
      assertLimitHeaders(res, 5, 5 - i);
    }
    assertTcError(await from(b, '10.1.0.1', 'POST', '/api/auth/login', body), 429, 'RATE_LIMITED');
    assertTcError(await from(a, '10.1.0.1', 'POST', '/api/auth/login', body), 429, 'RATE_LIMITED');
  });

  test('the general limit on one instance refuses the 101st request of a minute, at once', async () => {
    const manager = (await from(a, '10.1.0.9', 'POST', '/api/auth/login', { username: 'manager', password: MANAGER_PASSWORD, deviceUuid: newDeviceUuid('web') })).body.token as string;
    const { token, ...w } = await signedInWorker(a, manager);
    for (let i = 1; i <= 100; i++) {
      const res = await call(a, 'GET', `/api/workers/${w.id}`, { token });
      assert.equal(res.status, 200);
      assertLimitHeaders(res, 100, 100 - i);
    }
    const over = await call(a, 'GET', `/api/workers/${w.id}`, { token });
    assertTcError(over, 429, 'RATE_LIMITED');
    assertLimitHeaders(over, 100, 0);
  });

  test('the general limit across instances: the other instance accepts only until its counts are reconciled with Redis', async () => {
    const manager = (await from(b, '10.1.0.9', 'POST', '/api/auth/login', { username: 'manager', password: MANAGER_PASSWORD, deviceUuid: newDeviceUuid('web') })).body.token as string;
    const { token, ...w } = await signedInWorker(a, manager);
    for (let i = 1; i <= 100; i++) assert.equal((await call(a, 'GET', `/api/workers/${w.id}`, { token })).status, 200);
    assertTcError(await call(a, 'GET', `/api/workers/${w.id}`, { token }), 429, 'RATE_LIMITED');
    // The sibling has not counted this user yet: its first request is accepted (the documented
    // bound), and it goes on accepting only until its reconciliation brings it the shared total.
    const accepted: number[] = [];
    const refused = await within(10_000, async () => {
      const res = await call(b, 'GET', `/api/workers/${w.id}`, { token });
      if (res.status === 429) return res;
      assert.equal(res.status, 200);
      accepted.push(Number(res.headers['x-ratelimit-remaining']));
      return undefined;
    });
    assert.ok(refused, 'the sibling never learnt of the first instance’s count');
    assertTcError(refused.value, 429, 'RATE_LIMITED');
    assertLimitHeaders(refused.value, 100, 0);
    assert.ok(accepted.length >= 1);
    // What it accepted meanwhile it counted from 1, as an instance that had seen nothing else.
    assert.deepEqual(accepted, accepted.map((_, i) => 99 - i));
    // From then on both refuse: the shared count holds both instances' requests.
    assertTcError(await call(b, 'GET', `/api/workers/${w.id}`, { token }), 429, 'RATE_LIMITED');
    assertTcError(await call(a, 'GET', `/api/workers/${w.id}`, { token }), 429, 'RATE_LIMITED');
  });
});
