// Webhooks: endpoint management, signed deliveries to a real local HTTP receiver, retries with
// back-off, giving up, resending, recovery of deliveries abandoned by a crashed instance, and
// delivery once across two instances (PostgreSQL).
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { closeAll, onPostgres, startApp, within, type TestApp } from '../helpers/app.ts';
import { call } from '../helpers/http.ts';
import { assertTcError, circle, clock, managerToken, signedInWorker, siteWithQr } from '../helpers/timeclock.ts';

const PARIS = { latitude: 48.8566, longitude: 2.3522 };
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const FAST = { WEBHOOK_RETRY_BASE_MS: '200', WEBHOOK_POLL_MS: '100', WEBHOOK_TIMEOUT_MS: '1000' };

interface Hit {
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

/** A local HTTP receiver; `answer(n)` gives the status of the n-th request (from 1), or 'hang'. */
async function receiver(answer: (n: number, hit: Hit) => number | 'hang' = () => 200) {
  const hits: Hit[] = [];
  const hanging: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const hit = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      hits.push(hit);
      const status = answer(hits.length, hit);
      if (status === 'hang') return void hanging.push(res);
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status >= 300 ? `receiver says ${status}` : 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    hits,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Checks `t=<unix>,v1=<hex HMAC-SHA256(secret, t + "." + body)>` as a receiver should. */
function signatureValid(secret: string, header: unknown, body: string): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(header));
  if (!m) return false;
  const expected = createHmac('sha256', secret).update(`${m[1]}.${body}`).digest();
  return Math.abs(Date.now() / 1000 - Number(m[1])) < 300 && timingSafeEqual(expected, Buffer.from(m[2]!, 'hex'));
}

describe('webhooks', () => {
  let app: TestApp;
  let manager: string;
  const receivers: Awaited<ReturnType<typeof receiver>>[] = [];

  const create = (body: Record<string, unknown>) => call(app, 'POST', '/api/managers/webhooks', { token: manager, body });
  const deliveries = (id: number, query = '') => call(app, 'GET', `/api/managers/webhooks/${id}/deliveries${query}`, { token: manager });
  const listen = async (answer?: Parameters<typeof receiver>[0]) => {
    const r = await receiver(answer);
    receivers.push(r);
    return r;
  };
  /** Polls the delivery log of an endpoint until `ok` holds for it. */
  const logUntil = async (id: number, ok: (list: any[]) => boolean, ms = 10_000) => {
    const found = await within(ms, async () => {
      const res = await deliveries(id, '?limit=100');
      return ok(res.body.deliveries) ? res.body.deliveries as any[] : undefined;
    });
    assert.ok(found, `delivery log of ${id}: ${JSON.stringify((await deliveries(id)).body)}`);
    return found.value;
  };

  before(async () => {
    app = await startApp(FAST);
    manager = await managerToken(app);
  });
  after(() => closeAll(app, ...receivers));

  describe('endpoint management', () => {
    test('create shows the secret once; list, get and update never do', async () => {
      const res = await create({ url: 'https://hooks.example.com/a', events: ['worker.clock_in', 'security.violation'], description: 'HR system' });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.deepEqual(Object.keys(res.body).sort(), ['created_at', 'description', 'events', 'id', 'is_active', 'secret', 'updated_at', 'url']);
      assert.match(res.body.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
      assert.equal(res.body.url, 'https://hooks.example.com/a');
      assert.deepEqual(res.body.events, ['worker.clock_in', 'security.violation']);
      assert.equal(res.body.is_active, true);
      assert.match(res.body.created_at, ISO);
      const id = res.body.id as number;

      const list = await call(app, 'GET', '/api/managers/webhooks', { token: manager });
      assert.equal(list.status, 200);
      const listed = list.body.find((e: { id: number }) => e.id === id);
      assert.equal(listed.description, 'HR system');
      assert.ok(!JSON.stringify(list.body).includes('whsec_'));

      const one = await call(app, 'GET', `/api/managers/webhooks/${id}`, { token: manager });
      assert.equal(one.status, 200);
      assert.equal(one.body.secret, undefined);

      const patched = await call(app, 'PATCH', `/api/managers/webhooks/${id}`, { token: manager, body: { events: ['worker.clock_out'], is_active: false } });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      assert.deepEqual(patched.body.events, ['worker.clock_out']);
      assert.equal(patched.body.is_active, false);
      assert.equal(patched.body.url, 'https://hooks.example.com/a', 'fields left out are kept');
      assert.equal(patched.body.description, 'HR system');
      assert.equal(patched.body.secret, undefined);

      const rotated = await call(app, 'POST', `/api/managers/webhooks/${id}/rotate-secret`, { token: manager });
      assert.equal(rotated.status, 200);
      assert.match(rotated.body.secret, /^whsec_/);
      assert.notEqual(rotated.body.secret, res.body.secret);

      const del = await call(app, 'DELETE', `/api/managers/webhooks/${id}`, { token: manager });
      assert.equal(del.status, 204);
      for (const [method, url] of [
        ['GET', `/api/managers/webhooks/${id}`], ['DELETE', `/api/managers/webhooks/${id}`], ['GET', `/api/managers/webhooks/${id}/deliveries`],
        ['POST', `/api/managers/webhooks/${id}/rotate-secret`],
      ] as const) {
        assertTcError(await call(app, method, url, { token: manager }), 404, 'NOT_FOUND');
      }
      assertTcError(await call(app, 'PATCH', `/api/managers/webhooks/${id}`, { token: manager, body: { is_active: true } }), 404, 'NOT_FOUND');
    });

    test('400 for a bad URL, events or fields', async () => {
      const bodies: Record<string, unknown>[] = [
        { url: 'ftp://hooks.example.com/a', events: ['worker.clock_in'] },
        { url: 'hooks.example.com/a', events: ['worker.clock_in'] },
        { url: 'https://user:pass@hooks.example.com/a', events: ['worker.clock_in'] },
        { url: 'http://', events: ['worker.clock_in'] },
        { url: 'https://hooks.example.com/a', events: [] },
        { url: 'https://hooks.example.com/a', events: ['worker.lunch'] },
        { url: 'https://hooks.example.com/a', events: ['worker.clock_in', 'worker.clock_in'] },
        { url: 'https://hooks.example.com/a' },
        { events: ['worker.clock_in'] },
        { url: 'https://hooks.example.com/a', events: ['worker.clock_in'], secret: 'mine' },
        { url: 'https://hooks.example.com/a', events: ['worker.clock_in'], is_active: 'yes' },
      ];
      for (const body of bodies) assertTcError(await create(body), 400, 'VALIDATION_ERROR');
      const ok = await create({ url: 'https://hooks.example.com/b', events: ['worker.clock_in'] });
      assert.equal(ok.status, 201);
      for (const body of [{}, { url: 'ftp://x.example.com' }, { secret: 'x' }]) {
        assertTcError(await call(app, 'PATCH', `/api/managers/webhooks/${ok.body.id}`, { token: manager, body }), 400, 'VALIDATION_ERROR');
      }
      assertTcError(await call(app, 'GET', '/api/managers/webhooks/abc', { token: manager }), 400, 'VALIDATION_ERROR');
      assertTcError(await call(app, 'PUT', `/api/managers/webhooks/${ok.body.id}`, { token: manager, body: { is_active: true } }), 405, 'METHOD_NOT_ALLOWED');
      assertTcError(await call(app, 'POST', '/api/managers/webhooks', {
        token: manager, payload: 'url=https://x.example.com', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }), 415, 'UNSUPPORTED_MEDIA_TYPE');
      assertTcError(await deliveries(ok.body.id, '?status=lost'), 400, 'VALIDATION_ERROR');
      assertTcError(await deliveries(ok.body.id, '?limit=500'), 400, 'VALIDATION_ERROR');
      await call(app, 'DELETE', `/api/managers/webhooks/${ok.body.id}`, { token: manager });
    });
  });

  describe('deliveries', () => {
    test('a clock-in reaches the receiver, signed, after the receiver failed twice', async () => {
      const r = await listen((n) => (n === 1 ? 500 : n === 2 ? 503 : 200));
      const hook = await create({ url: r.url, events: ['worker.clock_in'] });
      assert.equal(hook.status, 201);
      const w = await signedInWorker(app, manager);
      const site = await siteWithQr(app, manager, circle(PARIS.latitude, PARIS.longitude, 150));
      const ci = await clock(app, w.token, { userId: w.id, eventType: 'clock_in', qrCodeValue: site.qr, ...PARIS });
      assert.equal(ci.status, 200, JSON.stringify(ci.body));

      const [delivery] = await logUntil(hook.body.id, (l) => l[0]?.status === 'delivered');
      assert.equal(r.hits.length, 3);
      const expected = { event: 'worker.clock_in', data: { userId: w.id, timestamp: ci.body.timestamp, location: PARIS } };
      r.hits.forEach((hit, i) => {
        assert.deepEqual(JSON.parse(hit.body), expected);
        assert.ok(signatureValid(hook.body.secret, hit.headers['x-webhook-signature'], hit.body), `signature of attempt ${i + 1}`);
        assert.equal(hit.headers['x-webhook-id'], String(delivery.id));
        assert.equal(hit.headers['x-webhook-event'], 'worker.clock_in');
        assert.equal(hit.headers['x-webhook-attempt'], String(i + 1));
        assert.equal(hit.headers['content-type'], 'application/json');
      });
      assert.ok(!signatureValid('whsec_wrong', r.hits[2]!.headers['x-webhook-signature'], r.hits[2]!.body));
      assert.ok(!signatureValid(hook.body.secret, r.hits[2]!.headers['x-webhook-signature'], r.hits[2]!.body.replace('clock_in', 'clock_ou')));
      // Back-off: the second retry waits about twice as long as the first (base 200 ms).
      assert.ok(r.hits[1]!.at - r.hits[0]!.at >= 190, 'first retry after the base delay');
      assert.ok(r.hits[2]!.at - r.hits[1]!.at >= 390, 'second retry after twice the base delay');

      assert.equal(delivery.attempts, 3);
      assert.equal(delivery.last_status_code, 200);
      assert.equal(delivery.last_error, null);
      assert.equal(delivery.next_attempt_at, null);
      assert.match(delivery.delivered_at, ISO);
      assert.deepEqual(delivery.payload, expected);
      assert.equal(delivery.event, 'worker.clock_in');
      assert.equal(delivery.resend_of, null);

      // Resend: a new delivery of the same body, with its own id.
      const resent = await call(app, 'POST', `/api/managers/webhooks/deliveries/${delivery.id}/resend`, { token: manager });
      assert.equal(resent.status, 202, JSON.stringify(resent.body));
      assert.equal(resent.body.resend_of, delivery.id);
      assert.equal(resent.body.status, 'pending');
      const log = await logUntil(hook.body.id, (l) => l.length === 2 && l[0].status === 'delivered');
      assert.equal(log[0].id, resent.body.id);
      assert.equal(r.hits.length, 4);
      assert.equal(r.hits[3]!.body, r.hits[0]!.body);
      assert.equal(r.hits[3]!.headers['x-webhook-id'], String(resent.body.id));
      await call(app, 'DELETE', `/api/managers/webhooks/${hook.body.id}`, { token: manager });
    });

    test('each endpoint gets only its events: security.violation for a refused clock-in, worker.clock_out', async () => {
      const sec = await listen();
      const out = await listen();
      const secHook = await create({ url: sec.url, events: ['security.violation'] });
      const outHook = await create({ url: out.url, events: ['worker.clock_out'] });
      const w = await signedInWorker(app, manager);
      const site = await siteWithQr(app, manager, circle(PARIS.latitude, PARIS.longitude, 100));
      assertTcError(await clock(app, w.token, { userId: w.id, eventType: 'clock_in', qrCodeValue: site.qr, latitude: 48.87, longitude: 2.36 }), 403, 'OUTSIDE_GEOFENCE');
      assert.equal((await clock(app, w.token, { userId: w.id, eventType: 'clock_in', qrCodeValue: site.qr, ...PARIS })).status, 200);
      assert.equal((await clock(app, w.token, { userId: w.id, eventType: 'clock_out', qrCodeValue: site.qr, ...PARIS })).status, 200);

      await logUntil(secHook.body.id, (l) => l.length === 1 && l[0].status === 'delivered');
      await logUntil(outHook.body.id, (l) => l.length === 1 && l[0].status === 'delivered');
      assert.equal(sec.hits.length, 1);
      const violation = JSON.parse(sec.hits[0]!.body);
      assert.equal(violation.event, 'security.violation');
      assert.equal(violation.data.userId, w.id);
      assert.equal(violation.data.alertType, 'geofence_violation');
      assert.ok(['low', 'medium', 'high'].includes(violation.data.severity));
      assert.match(violation.data.timestamp, ISO);
      assert.ok(signatureValid(secHook.body.secret, sec.hits[0]!.headers['x-webhook-signature'], sec.hits[0]!.body));
      assert.equal(out.hits.length, 1);
      const clockOut = JSON.parse(out.hits[0]!.body);
      assert.equal(clockOut.event, 'worker.clock_out');
      assert.deepEqual(clockOut.data.location, PARIS);
      for (const h of [secHook, outHook]) await call(app, 'DELETE', `/api/managers/webhooks/${h.body.id}`, { token: manager });
    });

    test('an inactive endpoint gets no new events and its pending deliveries wait; one failing after WEBHOOK_MAX_AGE_HOURS is marked failed', async () => {
      const r = await listen(() => 500);
      const hook = await create({ url: r.url, events: ['worker.clock_in'] });
      const w = await signedInWorker(app, manager);
      const site = await siteWithQr(app, manager, circle(PARIS.latitude, PARIS.longitude, 150));
      assert.equal((await clock(app, w.token, { userId: w.id, eventType: 'clock_in', qrCodeValue: site.qr, ...PARIS })).status, 200);
      await logUntil(hook.body.id, (l) => l[0]?.attempts >= 1);
      assert.equal((await call(app, 'PATCH', `/api/managers/webhooks/${hook.body.id}`, { token: manager, body: { is_active: false } })).status, 200);
      let [d] = await logUntil(hook.body.id, (l) => l[0]?.status === 'pending');
      assert.equal(d.last_status_code, 500);
      assert.equal(d.last_error, 'HTTP 500: receiver says 500');
      assert.match(d.next_attempt_at, ISO);
      assertTcError(await call(app, 'POST', `/api/managers/webhooks/deliveries/${d.id}/resend`, { token: manager }), 409, 'CONFLICT');
      // No delivery is queued for an inactive endpoint.
      assert.equal((await clock(app, w.token, { userId: w.id, eventType: 'clock_out', qrCodeValue: site.qr, ...PARIS })).status, 200);
      assert.equal((await clock(app, w.token, { userId: w.id, eventType: 'clock_in', qrCodeValue: site.qr, ...PARIS })).status, 200);
      assert.equal((await deliveries(hook.body.id)).body.totalCount, 1);

      // The event happened 25 hours ago: the next failure is the last.
      const attempts = d.attempts as number;
      await app.platform.db.query(`UPDATE timeclock.webhook_deliveries SET created_at = now() - interval '25 hours' WHERE id = $1`, [d.id]);
      [d] = (await deliveries(hook.body.id)).body.deliveries;
      assert.equal(d.status, 'pending', 'waiting while the endpoint is inactive');
      assert.equal((await call(app, 'PATCH', `/api/managers/webhooks/${hook.body.id}`, { token: manager, body: { is_active: true } })).status, 200);
      [d] = await logUntil(hook.body.id, (l) => l[0]?.status === 'failed');
      assert.equal(d.attempts, attempts + 1);
      assert.equal(r.hits.length, attempts + 1);
      assert.equal(d.last_status_code, 500);
      assert.equal(d.next_attempt_at, null);
      assert.equal(d.delivered_at, null);
      assert.equal((await deliveries(hook.body.id, '?status=failed')).body.totalCount, 1);
      assert.equal((await deliveries(hook.body.id, '?status=delivered')).body.totalCount, 0);
      assertTcError(await call(app, 'POST', '/api/managers/webhooks/deliveries/99999999/resend', { token: manager }), 404, 'NOT_FOUND');
      await call(app, 'DELETE', `/api/managers/webhooks/${hook.body.id}`, { token: manager });
    });

    test('a receiver that does not answer within WEBHOOK_TIMEOUT_MS is a failed attempt, retried', async () => {
      const r = await listen((n) => (n === 1 ? 'hang' : 200));
      const hook = await create({ url: r.url, events: ['worker.clock_in'] });
      const w = await signedInWorker(app, manager);
      const site = await siteWithQr(app, manager, circle(PARIS.latitude, PARIS.longitude, 150));
      assert.equal((await clock(app, w.token, { userId: w.id, eventType: 'clock_in', qrCodeValue: site.qr, ...PARIS })).status, 200);
      const failedOnce = await logUntil(hook.body.id, (l) => l[0]?.attempts >= 1 && l[0].last_error !== null);
      assert.equal(failedOnce[0].last_error, 'no answer within 1000 ms');
      assert.equal(failedOnce[0].last_status_code, null);
      const [d] = await logUntil(hook.body.id, (l) => l[0]?.status === 'delivered');
      assert.equal(d.attempts, 2);
      await call(app, 'DELETE', `/api/managers/webhooks/${hook.body.id}`, { token: manager });
    });

    test('a delivery left in flight by a crashed instance is sent once its lease expires', async () => {
      const r = await listen();
      const hook = await create({ url: r.url, events: ['security.violation'] });
      const payload = JSON.stringify({ event: 'security.violation', data: { userId: 1, alertType: 'impossible_travel', severity: 'high', timestamp: new Date().toISOString() } });
      const [row] = await app.platform.db.query<{ id: number }>(
        `INSERT INTO timeclock.webhook_deliveries (endpoint_id, event, payload, status, attempts, locked_by, locked_until)
         VALUES ($1, 'security.violation', $2, 'processing', 1, 'crashed-instance', now() - interval '1 second') RETURNING id`,
        [hook.body.id, payload],
      );
      const [d] = await logUntil(hook.body.id, (l) => l[0]?.status === 'delivered');
      assert.equal(d.id, Number(row!.id));
      assert.equal(d.attempts, 1, 'the abandoned attempt does not count');
      assert.equal(r.hits.length, 1);
      assert.equal(r.hits[0]!.body, payload);
      await call(app, 'DELETE', `/api/managers/webhooks/${hook.body.id}`, { token: manager });
    });
  });

  describe('private targets refused (WEBHOOK_ALLOW_PRIVATE=false)', () => {
    let strict: TestApp;
    before(async () => {
      strict = await startApp({ ...FAST, WEBHOOK_ALLOW_PRIVATE: 'false' });
    });
    after(() => strict?.close());

    test('loopback, private and link-local URLs are a 400; public ones are accepted', async () => {
      const token = await managerToken(strict);
      for (const url of ['http://127.0.0.1:8080/x', 'http://localhost/x', 'http://10.1.2.3/x', 'http://192.168.0.10/x', 'http://169.254.169.254/latest', 'http://[::1]/x', 'http://[fd00::1]/x', 'http://[::ffff:127.0.0.1]/x']) {
        const res = await call(strict, 'POST', '/api/managers/webhooks', { token, body: { url, events: ['worker.clock_in'] } });
        assertTcError(res, 400, 'VALIDATION_ERROR');
        assert.match(res.body.message, /not a public address|local name/, url);
      }
      const ok = await call(strict, 'POST', '/api/managers/webhooks', { token, body: { url: 'https://93.184.216.34/x', events: ['worker.clock_in'] } });
      assert.equal(ok.status, 201, JSON.stringify(ok.body));
    });
  });

  describe('two instances', { skip: onPostgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL)' }, () => {
    test('every delivery is sent exactly once across instances', async () => {
      const sibling = await app.sibling();
      try {
        const r = await listen();
        const hook = await create({ url: r.url, events: ['worker.clock_in', 'worker.clock_out'] });
        const w = await signedInWorker(app, manager);
        const site = await siteWithQr(app, manager, circle(PARIS.latitude, PARIS.longitude, 150));
        const events = 24;
        for (let i = 0; i < events; i++) {
          const eventType = i % 2 === 0 ? 'clock_in' : 'clock_out';
          const res = await clock(i % 2 === 0 ? app : sibling, w.token, { userId: w.id, eventType, qrCodeValue: site.qr, ...PARIS });
          assert.equal(res.status, 200, JSON.stringify(res.body));
        }
        await logUntil(hook.body.id, (l) => l.length === events && l.every((d) => d.status === 'delivered'), 20_000);
        const ids = r.hits.map((h) => h.headers['x-webhook-id']);
        assert.equal(ids.length, events, 'no delivery sent twice');
        assert.equal(new Set(ids).size, events);
        await call(app, 'DELETE', `/api/managers/webhooks/${hook.body.id}`, { token: manager });
      } finally {
        await sibling.close();
      }
    });
  });
});
