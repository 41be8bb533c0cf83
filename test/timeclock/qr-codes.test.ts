// Sites with geofences and QR codes (manager endpoints), and the geofence geometry.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { distanceMetres, insideFence } from '../../src/timeclock/kernel/geofence.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { call } from '../helpers/http.ts';
import { assertTcError, circle, createQr, createSite, managerToken, signedInWorker } from '../helpers/timeclock.ts';

describe('geofence geometry', () => {
  test('haversine distance: one degree of latitude is about 111.2 km; Paris to London about 343.5 km', () => {
    assert.ok(Math.abs(distanceMetres({ latitude: 0, longitude: 0 }, { latitude: 1, longitude: 0 }) - 111_195) < 1);
    assert.ok(Math.abs(distanceMetres({ latitude: 48.8566, longitude: 2.3522 }, { latitude: 51.5074, longitude: -0.1278 }) / 1000 - 343.5) < 1);
  });

  test('circle: the boundary is inside; outside reports the distance to the edge', () => {
    const c = { type: 'circle' as const, center: { latitude: 0, longitude: 0 }, radiusMetres: 1000 };
    assert.deepEqual(insideFence(c, { latitude: 0, longitude: 0 }), { inside: true, distanceMetres: 0 });
    assert.equal(insideFence(c, { latitude: 999 / 111_195, longitude: 0 }).inside, true);
    const out = insideFence(c, { latitude: 1010 / 111_195, longitude: 0 });
    assert.equal(out.inside, false);
    assert.ok(Math.abs(out.distanceMetres - 10) < 0.1, String(out.distanceMetres));
  });

  test('polygon: concave shapes, either winding, distance to the nearest edge', () => {
    // An L shape (concave), clockwise, around (0,0)-(0.01,0.01) with the top-right quarter cut out.
    const l = { type: 'polygon' as const, points: [
      { latitude: 0, longitude: 0 }, { latitude: 0.01, longitude: 0 }, { latitude: 0.01, longitude: 0.005 },
      { latitude: 0.005, longitude: 0.005 }, { latitude: 0.005, longitude: 0.01 }, { latitude: 0, longitude: 0.01 },
    ] };
    assert.equal(insideFence(l, { latitude: 0.002, longitude: 0.002 }).inside, true);
    assert.equal(insideFence(l, { latitude: 0.008, longitude: 0.002 }).inside, true);
    const notch = insideFence(l, { latitude: 0.008, longitude: 0.008 });
    assert.equal(notch.inside, false);
    assert.ok(Math.abs(notch.distanceMetres - 0.003 * 111_195) < 2, String(notch.distanceMetres));
    const reversed = { type: 'polygon' as const, points: [...l.points].reverse() };
    assert.equal(insideFence(reversed, { latitude: 0.002, longitude: 0.008 }).inside, true);
    assert.equal(insideFence(reversed, { latitude: -0.001, longitude: 0.002 }).inside, false);
    // A vertex and an edge point count as inside.
    assert.equal(insideFence(l, { latitude: 0, longitude: 0 }).inside, true);
    assert.equal(insideFence(l, { latitude: 0, longitude: 0.003 }).inside, true);
  });
});

describe('sites and QR codes', () => {
  let app: TestApp;
  let manager: string;
  before(async () => {
    app = await startApp();
    manager = await managerToken(app);
  });
  after(() => app?.close());

  test('POST /api/managers/qr-codes with only a name: 201 { id, name, is_active } (and its site and usability) on the default site', async () => {
    const res = await call(app, 'POST', '/api/managers/qr-codes', { token: manager, body: { name: 'Main entrance' } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    // The contract's fields, and the extensions of issue 27: the site, and whether the code can be used.
    assert.deepEqual(Object.keys(res.body).sort(), ['id', 'is_active', 'name', 'siteId', 'siteName', 'site_has_fence', 'unusable_reason', 'usable']);
    assert.match(res.body.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(res.body.name, 'Main entrance');
    assert.equal(res.body.is_active, true);
    const detail = await call(app, 'GET', `/api/managers/qr-codes/${res.body.id}`, { token: manager });
    const sites = await call(app, 'GET', '/api/managers/sites', { token: manager });
    const def = sites.body.find((s: { is_default: boolean }) => s.is_default);
    assert.equal(detail.body.siteId, def.id);
    assert.equal(def.fence, null);
  });

  test('GET /api/managers/qr-codes: every code with exactly id, name, is_active, created_at, its site and its usability, newest first; filters', async () => {
    const site = await createSite(app, manager, circle(), 'Listed yard');
    const a = await createQr(app, manager, { name: 'A', siteId: site.id });
    const b = await createQr(app, manager, { name: 'B', siteId: site.id });
    await call(app, 'PATCH', `/api/managers/qr-codes/${a.id}`, { token: manager, body: { is_active: false } });
    const res = await call(app, 'GET', '/api/managers/qr-codes', { token: manager });
    assert.equal(res.status, 200);
    assert.ok(Array.isArray(res.body));
    for (const q of res.body) {
      assert.deepEqual(Object.keys(q).sort(), ['created_at', 'id', 'is_active', 'name', 'siteId', 'siteName', 'site_has_fence', 'unusable_reason', 'usable']);
    }
    const ids = res.body.map((q: { id: string }) => q.id);
    assert.ok(ids.indexOf(b.id) < ids.indexOf(a.id));
    assert.equal(res.body.find((q: { id: string }) => q.id === a.id).is_active, false);
    const ofSite = await call(app, 'GET', `/api/managers/qr-codes?siteId=${site.id}&active=true`, { token: manager });
    assert.deepEqual(ofSite.body.map((q: { id: string }) => q.id), [b.id]);
    // Each code names its own site: the default site's code too, and a moved code its new site.
    const def = (await call(app, 'GET', '/api/managers/sites', { token: manager })).body.find((s: { is_default: boolean }) => s.is_default);
    const onDefault = await createQr(app, manager, { name: 'C' });
    const other = await createSite(app, manager, circle(3, 3, 50), 'Other yard');
    await call(app, 'PATCH', `/api/managers/qr-codes/${b.id}`, { token: manager, body: { siteId: other.id } });
    const sites = new Map((await call(app, 'GET', '/api/managers/qr-codes', { token: manager })).body.map((q: { id: string; siteId: number; siteName: string }) => [q.id, [q.siteId, q.siteName]]));
    assert.deepEqual(sites.get(a.id), [site.id, 'Listed yard']);
    assert.deepEqual(sites.get(b.id), [other.id, 'Other yard']);
    assert.deepEqual(sites.get(onDefault.id), [def.id, def.name]);
  });

  test('QR codes: site assignment, rename, activation; bad input 400; unknown 404', async () => {
    const s1 = await createSite(app, manager, circle(1, 1, 50));
    const s2 = await createSite(app, manager, circle(2, 2, 50));
    const qr = await createQr(app, manager, { name: 'Dock', siteId: s1.id });
    const moved = await call(app, 'PATCH', `/api/managers/qr-codes/${qr.id}`, { token: manager, body: { siteId: s2.id, name: 'Dock 2' } });
    assert.equal(moved.status, 200);
    assert.deepEqual([moved.body.siteId, moved.body.name, moved.body.is_active], [s2.id, 'Dock 2', true]);
    assertTcError(await call(app, 'POST', '/api/managers/qr-codes', { token: manager, body: { name: 'X', siteId: 999_999 } }), 400, 'VALIDATION_ERROR');
    assertTcError(await call(app, 'PATCH', `/api/managers/qr-codes/${qr.id}`, { token: manager, body: { siteId: 999_999 } }), 400, 'VALIDATION_ERROR');
    assertTcError(await call(app, 'POST', '/api/managers/qr-codes', { token: manager, body: {} }), 400, 'VALIDATION_ERROR');
    assertTcError(await call(app, 'POST', '/api/managers/qr-codes', { token: manager, body: { name: ' ' } }), 400, 'VALIDATION_ERROR');
    assertTcError(await call(app, 'POST', '/api/managers/qr-codes', { token: manager, body: { name: 'X', is_active: false } }), 400, 'VALIDATION_ERROR');
    assertTcError(await call(app, 'PATCH', `/api/managers/qr-codes/${qr.id}`, { token: manager, body: {} }), 400, 'VALIDATION_ERROR');
    assertTcError(await call(app, 'PATCH', '/api/managers/qr-codes/3f1b0d8e-0000-4000-8000-000000000000', { token: manager, body: { is_active: false } }), 404, 'NOT_FOUND');
    assertTcError(await call(app, 'GET', '/api/managers/qr-codes/not-a-uuid', { token: manager }), 400, 'VALIDATION_ERROR');
  });

  test('sites: create circle and polygon fences; invalid fences are 400; update; delete rules', async () => {
    const res = await call(app, 'POST', '/api/managers/sites', { token: manager, body: { name: 'Depot', fence: circle(45, 5, 250) } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(res.body.fence, circle(45, 5, 250));
    assert.equal(res.body.is_default, false);
    const poly = { type: 'polygon', points: [{ latitude: 1, longitude: 1 }, { latitude: 1, longitude: 2 }, { latitude: 2, longitude: 2 }] };
    assert.equal((await call(app, 'POST', '/api/managers/sites', { token: manager, body: { name: 'Field', fence: poly } })).status, 201);
    for (const fence of [
      { type: 'circle', center: { latitude: 91, longitude: 0 }, radiusMetres: 10 },
      { type: 'circle', center: { latitude: 0, longitude: 0 }, radiusMetres: 0 },
      { type: 'circle', center: { latitude: 0, longitude: 0 } },
      { type: 'polygon', points: [{ latitude: 1, longitude: 1 }, { latitude: 1, longitude: 2 }] },
      { type: 'polygon', points: [{ latitude: 1, longitude: 1 }, { latitude: 1, longitude: 1 }, { latitude: 1, longitude: 1 }] },
      { type: 'polygon', points: [{ latitude: 0, longitude: 179 }, { latitude: 1, longitude: -179 }, { latitude: 0, longitude: -179 }] },
      { type: 'square', points: [] },
    ]) {
      assertTcError(await call(app, 'POST', '/api/managers/sites', { token: manager, body: { name: 'Bad', fence } }), 400, 'VALIDATION_ERROR');
    }
    const id = res.body.id as number;
    const updated = await call(app, 'PATCH', `/api/managers/sites/${id}`, { token: manager, body: { fence: null } });
    assert.equal(updated.body.fence, null);
    assert.equal(updated.body.name, 'Depot');
    assert.equal((await call(app, 'GET', `/api/managers/sites/${id}`, { token: manager })).body.fence, null);

    await createQr(app, manager, { name: 'On depot', siteId: id });
    const refused = await call(app, 'DELETE', `/api/managers/sites/${id}`, { token: manager });
    assertTcError(refused, 409, 'CONFLICT');
    // The site is named, its id kept in the details.
    assert.match(refused.body.message, /site "Depot" still has 1 QR code\(s\)/);
    assert.deepEqual(refused.body.details, { siteId: id });
    const def = (await call(app, 'GET', '/api/managers/sites', { token: manager })).body.find((s: { is_default: boolean }) => s.is_default);
    assertTcError(await call(app, 'DELETE', `/api/managers/sites/${def.id}`, { token: manager }), 409, 'CONFLICT');
    const empty = await createSite(app, manager, null);
    assert.equal((await call(app, 'DELETE', `/api/managers/sites/${empty.id}`, { token: manager })).status, 204);
    assertTcError(await call(app, 'GET', `/api/managers/sites/${empty.id}`, { token: manager }), 404, 'NOT_FOUND');
  });

  test('a code on a site without a fence is created (201) but marked unusable, in the reply and the list; console-settings asks for the default site’s fence', async () => {
    const settings0 = (await call(app, 'GET', '/api/managers/console-settings', { token: manager })).body;
    const def0 = (await call(app, 'GET', '/api/managers/sites', { token: manager })).body.find((s: { is_default: boolean }) => s.is_default);
    assert.equal(def0.has_fence, false);
    assert.equal(def0.usable, false);
    assert.deepEqual(settings0.setup.defaultSite, { id: def0.id, name: def0.name, has_fence: false });
    assert.equal(settings0.setup.needed, settings0.setup.fencedSites === 0);

    const created = await call(app, 'POST', '/api/managers/qr-codes', { token: manager, body: { name: 'Unfenced gate' } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.is_active, true);
    assert.equal(created.body.siteId, def0.id);
    assert.equal(created.body.site_has_fence, false);
    assert.equal(created.body.usable, false);
    assert.equal(created.body.unusable_reason, 'GEOFENCE_NOT_CONFIGURED');
    const listed = (await call(app, 'GET', '/api/managers/qr-codes', { token: manager })).body.find((q: { id: string }) => q.id === created.body.id);
    assert.equal(listed.usable, false);
    assert.equal(listed.unusable_reason, 'GEOFENCE_NOT_CONFIGURED');

    const fenced = await createSite(app, manager, circle(46, 6, 100));
    const good = await call(app, 'POST', '/api/managers/qr-codes', { token: manager, body: { name: 'Fenced gate', siteId: fenced.id } });
    assert.equal(good.body.usable, true);
    assert.equal(good.body.unusable_reason, null);
    const site = (await call(app, 'GET', `/api/managers/sites/${fenced.id}`, { token: manager })).body;
    assert.equal(site.has_fence, true);
    assert.equal(site.usable, true);
    const settings1 = (await call(app, 'GET', '/api/managers/console-settings', { token: manager })).body;
    assert.equal(settings1.setup.needed, false);
    assert.ok(settings1.setup.fencedSites >= 1);
    // Deactivated: INACTIVE comes first.
    const off = await call(app, 'PATCH', `/api/managers/qr-codes/${good.body.id}`, { token: manager, body: { is_active: false } });
    assert.equal(off.body.usable, false);
    assert.equal(off.body.unusable_reason, 'INACTIVE');
    const doc = (await call(app, 'GET', '/api/docs/openapi.json')).body;
    assert.match(JSON.stringify(doc.paths['/api/managers/qr-codes'].post), /unusable_reason/);
  });

  test('setting a fence on the default site makes its QR codes usable', async () => {
    const w = await signedInWorker(app, manager);
    const qr = await createQr(app, manager, { name: 'Default gate' });
    const def = (await call(app, 'GET', '/api/managers/sites', { token: manager })).body.find((s: { is_default: boolean }) => s.is_default);
    assert.equal((await call(app, 'GET', `/api/managers/qr-codes/${qr.id}`, { token: manager })).body.unusable_reason, 'GEOFENCE_NOT_CONFIGURED');
    const body = { userId: w.id, eventType: 'clock_in', qrCodeValue: qr.id, latitude: 10, longitude: 10 };
    assertTcError(await call(app, 'POST', '/api/clock', { token: w.token, body }), 409, 'GEOFENCE_NOT_CONFIGURED');
    assert.equal((await call(app, 'PATCH', `/api/managers/sites/${def.id}`, { token: manager, body: { fence: circle(10, 10, 30) } })).status, 200);
    assert.equal((await call(app, 'POST', '/api/clock', { token: w.token, body })).status, 200);
    const now = (await call(app, 'GET', `/api/managers/qr-codes/${qr.id}`, { token: manager })).body;
    assert.equal(now.usable, true);
    assert.equal(now.unusable_reason, null);
    assert.equal((await call(app, 'GET', '/api/managers/console-settings', { token: manager })).body.setup.defaultSite.has_fence, true);
  });

  test('the default site’s seeded name is in the reader’s language wherever it is shown; saved back as seen it stays seeded; a rename is shown as written in every language', async () => {
    const en = { 'accept-language': 'en-US' };
    const zh = { 'accept-language': 'zh-CN' };
    const get = async (url: string, headers: Record<string, string>, token = manager) => {
      const res = await call(app, 'GET', url, { token, headers });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body;
    };
    const names = async (headers: Record<string, string>) => {
      const def = (await get('/api/managers/sites', headers)).find((s: { is_default: boolean }) => s.is_default);
      return {
        list: def.name as string,
        one: (await get(`/api/managers/sites/${def.id}`, headers)).name as string,
        setup: (await get('/api/managers/console-settings', headers)).setup.defaultSite.name as string,
      };
    };
    const def = (await get('/api/managers/sites', en)).find((s: { is_default: boolean }) => s.is_default);
    assert.equal((await call(app, 'PATCH', `/api/managers/sites/${def.id}`, { token: manager, body: { fence: null } })).status, 200);
    assert.deepEqual(await names(en), { list: 'Default site', one: 'Default site', setup: 'Default site' });
    assert.deepEqual(await names(zh), { list: '默认场地', one: '默认场地', setup: '默认场地' });

    // A QR code names its site in the reader's language too, and so does a refusal on it.
    const qr = await call(app, 'POST', '/api/managers/qr-codes', { token: manager, headers: zh, body: { name: 'Seeded gate' } });
    assert.equal(qr.body.siteName, '默认场地');
    assert.equal((await get(`/api/managers/qr-codes/${qr.body.id}`, en)).siteName, 'Default site');
    assert.equal((await get(`/api/managers/qr-codes?siteId=${def.id}`, zh))[0].siteName, '默认场地');
    const w = await signedInWorker(app, manager);
    const punch = { userId: w.id, eventType: 'clock_in', qrCodeValue: qr.body.id, latitude: 20, longitude: 20 };
    const refused = await call(app, 'POST', '/api/clock', { token: w.token, headers: zh, body: punch });
    assertTcError(refused, 409, 'GEOFENCE_NOT_CONFIGURED');
    assert.match(refused.body.message, /默认场地/);

    // The editor saved in Chinese for its fence sends the name back as it showed it: still the seeded name.
    const saved = await call(app, 'PATCH', `/api/managers/sites/${def.id}`, { token: manager, headers: zh, body: { name: '默认场地', fence: circle(20, 20, 50) } });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    assert.equal(saved.body.name, '默认场地');
    assert.deepEqual(await names(en), { list: 'Default site', one: 'Default site', setup: 'Default site' });
    assert.equal((await call(app, 'POST', '/api/clock', { token: w.token, body: punch })).status, 200);
    assert.equal((await get(`/api/worker/clock-history/${w.id}`, zh, w.token))[0].siteName, '默认场地');
    assert.equal((await get(`/api/worker/clock-history/${w.id}`, en, w.token))[0].siteName, 'Default site');
    const onBoard = (headers: Record<string, string>) => get('/api/managers/board', headers)
      .then((b: { workers: { userId: number; site: { name: string } }[] }) => b.workers.find((x) => x.userId === w.id)?.site.name);
    assert.equal(await onBoard(zh), '默认场地');
    assert.equal(await onBoard(en), 'Default site');

    // Renamed (in Chinese): the manager's own name, in every language; no translation overrides it.
    const renamed = await call(app, 'PATCH', `/api/managers/sites/${def.id}`, { token: manager, headers: zh, body: { name: '北门场地' } });
    assert.equal(renamed.body.name, '北门场地');
    for (const headers of [en, zh]) {
      assert.deepEqual(await names(headers), { list: '北门场地', one: '北门场地', setup: '北门场地' });
      assert.equal((await get(`/api/managers/qr-codes/${qr.body.id}`, headers)).siteName, '北门场地');
      assert.equal((await get(`/api/worker/clock-history/${w.id}`, headers, w.token))[0].siteName, '北门场地');
      assert.equal(await onBoard(headers), '北门场地');
    }
    // Renamed in English, then saved back unchanged in Chinese: still that name.
    await call(app, 'PATCH', `/api/managers/sites/${def.id}`, { token: manager, headers: en, body: { name: 'North gate' } });
    await call(app, 'PATCH', `/api/managers/sites/${def.id}`, { token: manager, headers: zh, body: { name: 'North gate', fence: circle(20, 20, 60) } });
    for (const headers of [en, zh]) assert.deepEqual(await names(headers), { list: 'North gate', one: 'North gate', setup: 'North gate' });
  });
});
