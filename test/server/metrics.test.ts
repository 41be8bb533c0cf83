// GET /metrics (Prometheus text): off by default; with METRICS_TOKEN on the public port for its
// bearer; on a port of its own (listenMetrics). What it reports follows what happened.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { listenMetrics } from '../../src/platform/http/metrics-endpoint.ts';
import { closeAll, startApps, withRedis, type TestApp } from '../helpers/app.ts';
import { call, login } from '../helpers/http.ts';
import { createWorker, managerToken } from '../helpers/timeclock.ts';

const TOKEN = 'metrics-token-0123456789';

/** The value of the sample `series` (its name and labels exactly as printed), or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('metrics', () => {
  let off: TestApp;
  let on: TestApp;
  const scrape = async () => {
    const res = await call(on, 'GET', '/metrics', { token: TOKEN });
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    return res.body as string;
  };
  before(async () => {
    [off, on] = await startApps([{}, { METRICS_TOKEN: TOKEN, LOGIN_MAX_FAILURES: '2' }]);
  });
  after(() => closeAll(off, on));

  test('off by default: no /metrics', async () => {
    assert.equal((await call(off, 'GET', '/metrics', { token: TOKEN })).status, 404);
  });

  test('on the public port only for the token’s bearer', async () => {
    assert.equal((await call(on, 'GET', '/metrics')).status, 401);
    assert.equal((await call(on, 'GET', '/metrics', { token: `${TOKEN}x` })).status, 401);
    assert.equal((await call(on, 'GET', '/metrics', { token: TOKEN })).status, 200);
  });

  test('requests by service, route template and status, with durations; sign-in failures and lockouts; statement errors', async () => {
    const token = await login(on);
    await call(on, 'GET', '/api/admin/info', { token });
    await call(on, 'GET', '/api/admin/admins/123456', { token });
    await call(on, 'GET', '/no/such/page');
    for (let i = 0; i < 2; i++) await call(on, 'POST', '/api/admin/login', { body: { username: 'ghost', password: 'Wrong-pass-1' } });
    const manager = await managerToken(on);
    const worker = await createWorker(on, manager);
    await call(on, 'POST', '/api/managers/workers', { token: manager, body: { username: worker.username, password: 'Worker-pass-123', fullName: 'Twice' } });
    await call(on, 'POST', '/api/auth/login', { body: { username: worker.username, password: 'Wrong-pass-1', deviceUuid: 'web-0b7f4f56-3c3e-4a4c-9d7e-6a8f1c2b3d4e' } });

    const text = await scrape();
    assert.equal(sample(text, 'http_requests_total{service="admin",method="GET",route="/api/admin/info",status="200"}'), 1);
    assert.equal(sample(text, 'http_requests_total{service="admin",method="GET",route="/api/admin/admins/:id",status="404"}'), 1);
    assert.equal(sample(text, 'http_requests_total{service="web",method="GET",route="(unmatched)",status="404"}'), 1);
    assert.equal(sample(text, 'http_requests_total{service="timeclock",method="POST",route="/api/managers/workers",status="409"}'), 1);
    assert.equal(sample(text, 'http_request_duration_seconds_count{service="admin",method="POST",route="/api/admin/login",status="200"}'), 1);
    assert.equal(sample(text, 'http_request_duration_seconds_bucket{le="+Inf",service="admin",method="POST",route="/api/admin/login",status="200"}'), 1);
    assert.equal(sample(text, 'login_failures_total{service="admin",reason="unknown_user"}'), 2);
    assert.equal(sample(text, 'login_lockouts_total{service="admin"}'), 1);
    assert.equal(sample(text, 'login_failures_total{service="timeclock",reason="bad_password"}'), 1);
    assert.ok((sample(text, 'db_statement_errors_total{code="23505"}') ?? 0) >= 1, 'the taken username was a unique violation');
  });

  test('pool, dependencies, queues, WebSockets and the process', async () => {
    const text = await scrape();
    assert.ok((sample(text, 'db_pool_connections{state="max"}') ?? 0) >= 1);
    assert.notEqual(sample(text, 'db_pool_connections{state="in_use"}'), undefined);
    assert.equal(sample(text, 'dependency_up{dependency="database"}'), 1);
    assert.equal(sample(text, 'dependency_up{dependency="redis"}'), withRedis ? 1 : undefined);
    assert.equal(sample(text, 'queue_jobs{queue="export_tasks",state="waiting"}'), 0);
    assert.equal(sample(text, 'queue_jobs{queue="webhook_deliveries",state="running"}'), 0);
    assert.equal(sample(text, 'queue_oldest_waiting_seconds{queue="export_tasks"}'), 0);
    assert.equal(sample(text, 'queue_scrape_errors'), 0);
    assert.equal(sample(text, 'websockets_open'), 0);
    assert.ok((sample(text, 'process_cpu_user_seconds_total') ?? 0) > 0);
    assert.ok((sample(text, 'nodejs_heap_size_used_bytes') ?? 0) > 0);

    // A delivery waiting (backing off before its next attempt) shows in its queue, with its age.
    const [endpoint] = await on.platform.db.query<{ id: number }>(
      `INSERT INTO timeclock.webhook_endpoints (url, events, secret) VALUES ('https://hooks.example.com/x', '{clock.in}', 'secret-0123456789') RETURNING id`,
    );
    await on.platform.db.query(
      `INSERT INTO timeclock.webhook_deliveries (endpoint_id, event, payload, next_attempt_at, created_at) VALUES ($1, 'clock.in', '{}', now() + interval '1 hour', now() - interval '90 seconds')`,
      [endpoint!.id],
    );
    const later = await scrape();
    assert.equal(sample(later, 'queue_jobs{queue="webhook_deliveries",state="waiting"}'), 1);
    assert.ok((sample(later, 'queue_oldest_waiting_seconds{queue="webhook_deliveries"}') ?? 0) >= 89);
  });

  test('on a port of its own, with or without a token', async () => {
    const open = await listenMetrics(on.platform.metrics, '127.0.0.1', 0);
    const guarded = await listenMetrics(on.platform.metrics, '127.0.0.1', 0, TOKEN);
    try {
      const url = (s: typeof open, path = '/metrics') => `http://127.0.0.1:${(s.address() as AddressInfo).port}${path}`;
      const res = await fetch(url(open));
      assert.equal(res.status, 200);
      assert.match(await res.text(), /^# HELP /m);
      assert.equal((await fetch(url(open, '/'))).status, 404);
      assert.equal((await fetch(url(guarded))).status, 401);
      assert.equal((await fetch(url(guarded), { headers: { authorization: `Bearer ${TOKEN}` } })).status, 200);
    } finally {
      open.close();
      guarded.close();
    }
  });
});
