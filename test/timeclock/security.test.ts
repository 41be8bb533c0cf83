// Security: the app blacklist (read and managed), a worker's security status with the risk
// score and level computed from server-observed alerts, and the managers' alert list.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.ts';
import { call } from '../helpers/http.ts';
import { assertTcError, circle, clock, managerToken, signedInWorker, siteWithQr } from '../helpers/timeclock.ts';

const PARIS = { latitude: 48.8566, longitude: 2.3522 };
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

type Worker = Awaited<ReturnType<typeof signedInWorker>>;

describe('security', () => {
  let app: TestApp;
  let manager: string;
  let w: Worker;

  const locate = (x: Worker, body: Record<string, unknown>) =>
    call(app, 'POST', '/api/location/update', { token: x.token, body: { userId: x.id, ...PARIS, accuracy: 10, source: 'background', ...body } });
  const securityStatus = (token: string, userId: number) => call(app, 'GET', `/api/security/status/${userId}`, { token });
  const alerts = (query = '') => call(app, 'GET', `/api/managers/security/alerts${query}`, { token: manager });

  before(async () => {
    app = await startApp();
    manager = await managerToken(app);
    w = await signedInWorker(app, manager);
  });
  after(() => app?.close());

  describe('app blacklist', () => {
    test('any signed-in user reads the seeded list of mock-location apps, sorted', async () => {
      for (const token of [w.token, manager]) {
        const res = await call(app, 'GET', '/api/security/app-blacklist', { token });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.ok(Array.isArray(res.body));
        for (const id of ['com.lexa.fakegps', 'com.incorporateapps.fakegps.fre', 'com.blogspot.newapphorizons.fakegps', 'ru.gavrikov.mocklocations']) {
          assert.ok(res.body.includes(id), id);
        }
        assert.deepEqual(res.body, [...res.body].sort());
      }
    });

    test('managers add (201, then 200 when listed already) and remove (204, then 404)', async () => {
      const add = await call(app, 'POST', '/api/managers/security/app-blacklist', { token: manager, body: { packageId: 'com.example.spoofer' } });
      assert.equal(add.status, 201, JSON.stringify(add.body));
      assert.equal(add.body.packageId, 'com.example.spoofer');
      assert.match(add.body.created_at, ISO);
      const again = await call(app, 'POST', '/api/managers/security/app-blacklist', { token: manager, body: { packageId: 'com.example.spoofer' } });
      assert.equal(again.status, 200);
      assert.equal(again.body.created_at, add.body.created_at);
      assert.ok((await call(app, 'GET', '/api/security/app-blacklist', { token: w.token })).body.includes('com.example.spoofer'));

      const del = await call(app, 'DELETE', '/api/managers/security/app-blacklist/com.example.spoofer', { token: manager });
      assert.equal(del.status, 204);
      assert.equal(del.body, '');
      assert.ok(!(await call(app, 'GET', '/api/security/app-blacklist', { token: w.token })).body.includes('com.example.spoofer'));
      assertTcError(await call(app, 'DELETE', '/api/managers/security/app-blacklist/com.example.spoofer', { token: manager }), 404, 'NOT_FOUND');
    });

    test('blacklist changes: 400 for malformed ids and unknown fields', async () => {
      for (const body of [{ packageId: 'nodots' }, { packageId: 'com..x' }, { packageId: 'com.x y' }, { packageId: 12 }, {}, { packageId: 'com.x.y', note: 'x' }]) {
        assertTcError(await call(app, 'POST', '/api/managers/security/app-blacklist', { token: manager, body }), 400, 'VALIDATION_ERROR');
      }
      assertTcError(await call(app, 'DELETE', '/api/managers/security/app-blacklist/not-a-package', { token: manager }), 400, 'VALIDATION_ERROR');
      // The seeded entries are still there.
      assert.ok((await call(app, 'GET', '/api/security/app-blacklist', { token: w.token })).body.includes('com.lexa.fakegps'));
    });
  });

  describe('security status and risk', () => {
    test('a worker without alerts: no check, no alerts, low', async () => {
      const res = await securityStatus(w.token, w.id);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body, { latestSecurityCheck: null, recentAlerts: [], securityStatus: 'low' });
    });

    test('alerts raise the score by severity (medium 20, high 40) and the level (medium from 20, high from 50)', async () => {
      const x = await signedInWorker(app, manager);
      // implausible accuracy (medium): 20, medium.
      assert.equal((await locate(x, { accuracy: 0 })).status, 200);
      let s = await securityStatus(x.token, x.id);
      assert.equal(s.status, 200);
      assert.equal(s.body.securityStatus, 'medium');
      assert.equal(s.body.latestSecurityCheck.risk_score, 20);
      assert.equal(s.body.latestSecurityCheck.risk_level, 'medium');
      assert.equal(s.body.latestSecurityCheck.user_id, x.id);
      assert.match(s.body.latestSecurityCheck.timestamp, ISO);
      assert.equal(s.body.recentAlerts.length, 1);
      assert.deepEqual(Object.keys(s.body.recentAlerts[0]).sort(), ['alert_type', 'created_at', 'id', 'severity', 'status']);
      assert.equal(s.body.recentAlerts[0].alert_type, 'implausible_accuracy');
      const firstCheck = s.body.latestSecurityCheck.id;

      // impossible travel (high): 60, high.
      assert.equal((await locate(x, { latitude: 50.5, timestamp: new Date().toISOString() })).status, 200);
      s = await securityStatus(manager, x.id);
      assert.equal(s.body.securityStatus, 'high');
      assert.equal(s.body.latestSecurityCheck.risk_score, 60);
      assert.equal(s.body.latestSecurityCheck.risk_level, 'high');
      assert.ok(s.body.latestSecurityCheck.id > firstCheck);
      assert.deepEqual(s.body.recentAlerts.map((a: { alert_type: string }) => a.alert_type), ['impossible_travel', 'implausible_accuracy']);
      assert.deepEqual(s.body.recentAlerts.map((a: { severity: string }) => a.severity), ['high', 'medium']);

      // A week later the alerts have aged out: the level now is low; the last check is kept.
      await app.platform.db.query(`UPDATE timeclock.security_alerts SET created_at = created_at - interval '8 days' WHERE user_id = $1`, [x.id]);
      s = await securityStatus(x.token, x.id);
      assert.equal(s.body.securityStatus, 'low');
      assert.deepEqual(s.body.recentAlerts, []);
      assert.equal(s.body.latestSecurityCheck.risk_level, 'high');
      // A new low alert (at the same place as before) counts only itself: 5, low.
      assert.equal((await locate(x, { latitude: 50.5, accuracy: 6000 })).status, 200);
      s = await securityStatus(x.token, x.id);
      assert.equal(s.body.latestSecurityCheck.risk_score, 5);
      assert.equal(s.body.securityStatus, 'low');
    });

    test('refused clock events and forced clock-outs reported by the clock raise alerts too', async () => {
      const x = await signedInWorker(app, manager);
      const site = await siteWithQr(app, manager, circle(PARIS.latitude, PARIS.longitude, 100));
      const outside = await clock(app, x.token, { userId: x.id, eventType: 'clock_in', qrCodeValue: site.qr, latitude: 48.9, longitude: 2.4 });
      assertTcError(outside, 403, 'OUTSIDE_GEOFENCE');
      const forced = await clock(app, x.token, { userId: x.id, eventType: 'clock_out', qrCodeValue: 'FORCE_CLOCK_OUT', ...PARIS });
      assert.equal(forced.status, 200, JSON.stringify(forced.body));
      const s = await securityStatus(x.token, x.id);
      const types = s.body.recentAlerts.map((a: { alert_type: string }) => a.alert_type);
      assert.deepEqual(types, ['forced_clock_out', 'geofence_violation']);
      assert.notEqual(s.body.securityStatus, 'low');
    });

    test('status: 403 for another worker, 404 for an unknown user, 400 for a bad id', async () => {
      const other = await signedInWorker(app, manager);
      assertTcError(await securityStatus(other.token, w.id), 403, 'FORBIDDEN');
      assertTcError(await securityStatus(manager, 99_999_999), 404, 'NOT_FOUND');
      assertTcError(await call(app, 'GET', '/api/security/status/x', { token: manager }), 400, 'VALIDATION_ERROR');
    });

    test('the removed client endpoints do not exist (server-side computation only)', async () => {
      assertTcError(await call(app, 'POST', '/api/security/check', { token: w.token, body: {} }), 404, 'NOT_FOUND');
      assertTcError(await call(app, 'POST', '/api/security/alert', { token: w.token, body: {} }), 404, 'NOT_FOUND');
    });
  });

  describe('alert list for managers', () => {
    let a: Worker;
    let b: Worker;
    before(async () => {
      a = await signedInWorker(app, manager, { fullName: 'Alice Alert' });
      b = await signedInWorker(app, manager);
      assert.equal((await locate(a, { accuracy: 0 })).status, 200); // medium
      assert.equal((await locate(a, { latitude: 50.5, timestamp: new Date().toISOString() })).status, 200); // high
      assert.equal((await locate(b, { accuracy: 9000 })).status, 200); // low
    });

    test('newest first, with the worker and the details; filters by user, severity, type and since', async () => {
      const all = await alerts(`?userId=${a.id}`);
      assert.equal(all.status, 200, JSON.stringify(all.body));
      assert.equal(all.body.totalCount, 2);
      assert.equal(all.body.currentPage, 1);
      assert.equal(all.body.totalPages, 1);
      assert.deepEqual(all.body.alerts.map((x: { alert_type: string }) => x.alert_type), ['impossible_travel', 'implausible_accuracy']);
      const first = all.body.alerts[0];
      assert.equal(first.user_id, a.id);
      assert.equal(first.username, a.username);
      assert.equal(first.full_name, 'Alice Alert');
      assert.equal(first.severity, 'high');
      assert.match(first.created_at, ISO);
      assert.equal(typeof first.details.impliedKmh, 'number');

      const high = await alerts(`?severity=high&userId=${a.id}`);
      assert.deepEqual(high.body.alerts.map((x: { severity: string }) => x.severity), ['high']);
      const byType = await alerts('?type=implausible_accuracy');
      assert.ok(byType.body.alerts.every((x: { alert_type: string }) => x.alert_type === 'implausible_accuracy'));
      assert.ok(byType.body.alerts.some((x: { user_id: number }) => x.user_id === b.id));
      const future = await alerts(`?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`);
      assert.equal(future.body.totalCount, 0);
      const recent = await alerts(`?userId=${b.id}&since=${encodeURIComponent(new Date(Date.now() - 60_000).toISOString())}`);
      assert.equal(recent.body.totalCount, 1);
    });

    test('paging: page and limit, totalPages', async () => {
      const total = (await alerts()).body.totalCount as number;
      assert.ok(total >= 3);
      const p1 = await alerts('?limit=2&page=1');
      const p2 = await alerts('?limit=2&page=2');
      assert.equal(p1.body.alerts.length, 2);
      assert.equal(p1.body.totalPages, Math.ceil(total / 2));
      assert.equal(p2.body.currentPage, 2);
      const ids1 = p1.body.alerts.map((x: { id: number }) => x.id);
      const ids2 = p2.body.alerts.map((x: { id: number }) => x.id);
      assert.ok(ids1.every((id: number) => !ids2.includes(id)));
      const beyond = await alerts('?limit=2&page=1000');
      assert.deepEqual(beyond.body.alerts, []);
    });

    test('workflow: acknowledge and resolve with a note; resolved alerts leave the default list; the board counts open ones', async () => {
      const c = await signedInWorker(app, manager);
      assert.equal((await locate(c, { accuracy: 0 })).status, 200);
      const [alert] = (await alerts(`?userId=${c.id}`)).body.alerts;
      assert.equal(alert.status, 'open');
      assert.equal(alert.acknowledged, null);
      assert.equal(alert.resolved, null);
      const board0 = (await call(app, 'GET', '/api/managers/board', { token: manager })).body;
      assert.ok(board0.openAlerts >= 1);

      const ack = await call(app, 'POST', `/api/managers/security/alerts/${alert.id}/acknowledge`, { token: manager, body: { note: '  Calling the worker  ' } });
      assert.equal(ack.status, 200, JSON.stringify(ack.body));
      assert.equal(ack.body.status, 'acknowledged');
      assert.equal(ack.body.acknowledged.note, 'Calling the worker');
      assert.equal(ack.body.acknowledged.by.username, app.platform.config.MANAGER_USERNAME);
      assert.match(ack.body.acknowledged.at, ISO);
      const board1 = (await call(app, 'GET', '/api/managers/board', { token: manager })).body;
      assert.equal(board1.openAlerts, board0.openAlerts - 1);
      assert.equal(board1.unresolvedAlerts, board0.unresolvedAlerts);
      // Acknowledging twice is refused, in both languages.
      const twice = await call(app, 'POST', `/api/managers/security/alerts/${alert.id}/acknowledge`, { token: manager, body: {} });
      assertTcError(twice, 409, 'ALERT_ALREADY_ACKNOWLEDGED');
      assert.equal(twice.body.details.status, 'acknowledged');
      const twiceZh = await call(app, 'POST', `/api/managers/security/alerts/${alert.id}/acknowledge`, { token: manager, headers: { 'accept-language': 'zh-CN' } });
      assertTcError(twiceZh, 409, 'ALERT_ALREADY_ACKNOWLEDGED');
      assert.match(twiceZh.body.message, /已由/);
      // Still listed by default (unresolved), and under status=acknowledged.
      assert.equal((await alerts(`?userId=${c.id}`)).body.totalCount, 1);
      assert.equal((await alerts(`?userId=${c.id}&status=acknowledged`)).body.totalCount, 1);
      assert.equal((await alerts(`?userId=${c.id}&status=open`)).body.totalCount, 0);

      // Resolve with no body at all.
      const resolved = await call(app, 'POST', `/api/managers/security/alerts/${alert.id}/resolve`, { token: manager });
      assert.equal(resolved.status, 200, JSON.stringify(resolved.body));
      assert.equal(resolved.body.status, 'resolved');
      assert.equal(resolved.body.resolved.note, null);
      assert.equal(resolved.body.acknowledged.note, 'Calling the worker');
      assert.equal((await alerts(`?userId=${c.id}`)).body.totalCount, 0, 'resolved alerts leave the default view');
      const listed = (await alerts(`?userId=${c.id}&status=resolved`)).body.alerts;
      assert.deepEqual(listed.map((x: { id: number }) => x.id), [alert.id]);
      assert.equal((await alerts(`?userId=${c.id}&status=all`)).body.totalCount, 1);
      assert.equal((await call(app, 'GET', '/api/managers/board', { token: manager })).body.unresolvedAlerts, board0.unresolvedAlerts - 1);
      // The worker's status shows the alert's status too.
      const status = (await call(app, 'GET', `/api/security/status/${c.id}`, { token: manager })).body;
      assert.equal(status.recentAlerts[0].status, 'resolved');

      // Refusals: resolving twice, acknowledging a resolved alert, an unknown alert, a bad note, a worker's token.
      assertTcError(await call(app, 'POST', `/api/managers/security/alerts/${alert.id}/resolve`, { token: manager, body: { note: 'again' } }), 409, 'ALERT_ALREADY_RESOLVED');
      assertTcError(await call(app, 'POST', `/api/managers/security/alerts/${alert.id}/acknowledge`, { token: manager, body: {} }), 409, 'ALERT_ALREADY_RESOLVED');
      const unknown = await call(app, 'POST', '/api/managers/security/alerts/999999999/resolve', { token: manager, body: {} });
      assertTcError(unknown, 404, 'NOT_FOUND');
      assert.match(unknown.body.message, /security alert 999999999 not found/);
      assertTcError(await call(app, 'POST', '/api/managers/security/alerts/x/resolve', { token: manager, body: {} }), 400, 'VALIDATION_ERROR');
      const [other] = (await alerts(`?userId=${a.id}`)).body.alerts;
      assertTcError(await call(app, 'POST', `/api/managers/security/alerts/${other.id}/resolve`, { token: manager, body: { note: 'x'.repeat(1001) } }), 400, 'VALIDATION_ERROR');
      assertTcError(await call(app, 'POST', `/api/managers/security/alerts/${other.id}/resolve`, { token: manager, body: { note: 'ok', extra: 1 } }), 400, 'VALIDATION_ERROR');
      assertTcError(await call(app, 'POST', `/api/managers/security/alerts/${other.id}/resolve`, { token: a.token, body: {} }), 403, 'FORBIDDEN');
      assert.equal((await alerts(`?userId=${a.id}`)).body.alerts[0].status, 'open', 'refused requests change nothing');
      // An open alert can be resolved directly.
      const direct = await call(app, 'POST', `/api/managers/security/alerts/${other.id}/resolve`, { token: manager, body: { note: 'False alarm' } });
      assert.equal(direct.body.status, 'resolved');
      assert.equal(direct.body.acknowledged, null);
      assert.equal(direct.body.resolved.note, 'False alarm');
    });

    test('400 for bad filters or paging', async () => {
      for (const q of ['?severity=critical', '?type=nope', '?since=yesterday', '?limit=0', '?limit=101', '?page=0', '?userId=x', '?status=closed', '?extra=1']) {
        const res = await alerts(q);
        if (q === '?extra=1') {
          // Unknown query parameters are ignored, as everywhere in the API.
          assert.equal(res.status, 200);
          continue;
        }
        assertTcError(res, 400, 'VALIDATION_ERROR');
      }
    });
  });
});
