// Where sign-ins come from (issue 31, part 4): each login-log row's location (loopback, private,
// public with its country and city from the shipped GeoLite data, unknown), shown in the reader's
// language in the list, the dashboard and the export; the list's country filter; and the notice
// of a successful sign-in from a country the account had never signed in from. The server trusts
// X-Forwarded-For from loopback (TRUST_PROXY), so a request can come "from" any address.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { Placeholder } from 'drizzle-orm';
import { earlierSignIns } from '../../src/admin/features/auth/auth.new-country.ts';
import { classifyIp, locateIp } from '../../src/platform/geo/ip-location.ts';
import { startApp, within, type TestApp } from '../helpers/app.ts';
import { call, login, seedAdmin, type Reply, type SeededAdmin } from '../helpers/http.ts';
import { assertError, assertOk } from '../helpers/assert.ts';

// Addresses whose place the pinned data (fast-geoip 1.1.88) gives: checked first, below.
const US = '8.8.8.8';
const US_TOO = '8.8.4.4';
const CN = '223.5.5.5';
const GB = '81.2.69.142';

let app: TestApp;
let superToken: string;

before(async () => {
  app = await startApp({ TRUST_PROXY: 'loopback' });
  superToken = await login(app);
});
after(() => app?.close());

/** Signs `admin` in as if from `ip` (none: the socket's own, 127.0.0.1); a wrong `password` fails. */
function signIn(admin: SeededAdmin, ip?: string, password = admin.password) {
  return call(app, 'POST', '/api/admin/login', { body: { username: admin.username, password }, headers: ip ? { 'x-forwarded-for': ip } : {} });
}

interface Location { kind: string; country: string; country_name: string; city: string; label: string }
interface Row { id: number; admin_id: number | null; ip: string; status: number; location: Location }

/** The reply's data (assertOk, whose envelope message is the English one, for a reply in either language). */
function dataOf(res: Reply): any {
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.code, 200);
  return res.body.data;
}

async function rowsOf(adminId: number, lang = 'en-US', query = ''): Promise<Row[]> {
  const res = await call(app, 'GET', `/api/admin/logs/login?admin_id=${adminId}&page_size=100&order_by=id:asc${query}`, { token: superToken, headers: { 'accept-language': lang } });
  return dataOf(res).list as Row[];
}

async function notificationsOf(admin: SeededAdmin, lang = 'en-US') {
  const token = assertOk(await signIn(admin)).token as string;
  const res = await call(app, 'GET', '/api/admin/notifications?page_size=100', { token, headers: { 'accept-language': lang } });
  return (dataOf(res).list as { title: string; content: string; kind: string }[]).filter((n) => n.kind === 'security');
}

async function newCountryRows(adminId: number) {
  return app.platform.db.query<{ level: string; message: string; context: any }>(
    `SELECT level, message, context FROM admin.system_logs WHERE (context->>'admin_id')::bigint = $1 AND message LIKE '%new country%' ORDER BY id`,
    [adminId],
  );
}

/** Longer than a background check takes (two index probes), so that a notice not sent is not merely late. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

test('the shipped data places the test addresses (and nothing else is looked up)', async () => {
  assert.deepEqual(await locateIp(US), { kind: 'public', country: 'US', city: '' });
  assert.deepEqual(await locateIp(US_TOO), { kind: 'public', country: 'US', city: '' });
  assert.deepEqual(await locateIp(CN), { kind: 'public', country: 'CN', city: 'Hangzhou' });
  assert.deepEqual(await locateIp(GB), { kind: 'public', country: 'GB', city: 'Long Buckby' });
  // The data would place private and reserved blocks somewhere: they are never looked up.
  for (const [ip, kind] of [
    ['127.0.0.1', 'loopback'], ['::1', 'loopback'], ['::ffff:127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'], ['172.16.0.1', 'private'], ['192.168.1.1', 'private'], ['100.64.0.1', 'private'], ['169.254.1.1', 'private'],
    ['fd12:3456::1', 'private'], ['fe80::1%eth0', 'private'],
    ['2001:4860:4860::8888', 'unknown'], ['203.0.113.5', 'unknown'], ['0.0.0.0', 'unknown'], ['224.0.0.1', 'unknown'], ['not an address', 'unknown'], ['', 'unknown'],
  ] as const) {
    assert.deepEqual(classifyIp(ip), { kind }, ip);
    assert.deepEqual(await locateIp(ip), { kind, country: '', city: '' }, ip);
  }
  assert.deepEqual(classifyIp(`::ffff:${US}`), { kind: 'lookup', ipv4: US });
  assert.deepEqual(classifyIp('::ffff:808:808'), { kind: 'lookup', ipv4: US });
});

describe('the login log says where each attempt came from', () => {
  let admin: SeededAdmin;
  before(async () => {
    admin = await seedAdmin(app);
    for (const ip of [undefined, '10.1.2.3', 'fd12:3456::1', CN, US, '2001:4860:4860::8888', `::ffff:${GB}`]) assertOk(await signIn(admin, ip));
    assertError(await signIn(admin, US, 'Wrong-pass-123'), 401, 10001);
  });

  test('loopback, private, public with its country and city, IPv6 and IPv4-mapped, in English', async () => {
    const rows = await rowsOf(admin.id);
    assert.deepEqual(rows.map((r) => [r.ip, r.status, r.location]), [
      ['127.0.0.1', 1, { kind: 'loopback', country: '', country_name: '', city: '', label: 'This machine' }],
      ['10.1.2.3', 1, { kind: 'private', country: '', country_name: '', city: '', label: 'Private network' }],
      ['fd12:3456::1', 1, { kind: 'private', country: '', country_name: '', city: '', label: 'Private network' }],
      [CN, 1, { kind: 'public', country: 'CN', country_name: 'China', city: 'Hangzhou', label: 'Hangzhou, China' }],
      [US, 1, { kind: 'public', country: 'US', country_name: 'United States', city: '', label: 'United States' }],
      ['2001:4860:4860::8888', 1, { kind: 'unknown', country: '', country_name: '', city: '', label: 'Unknown' }],
      [`::ffff:${GB}`, 1, { kind: 'public', country: 'GB', country_name: 'United Kingdom', city: 'Long Buckby', label: 'Long Buckby, United Kingdom' }],
      // A failed attempt is placed too.
      [US, 0, { kind: 'public', country: 'US', country_name: 'United States', city: '', label: 'United States' }],
    ]);
  });

  test('the names and labels in Chinese', async () => {
    const rows = await rowsOf(admin.id, 'zh-CN');
    assert.deepEqual(rows.map((r) => [r.location.country_name, r.location.label]), [
      ['', '本机'], ['', '内网'], ['', '内网'], ['中国', '中国 Hangzhou'], ['美国', '美国'], ['', '未知'], ['英国', '英国 Long Buckby'], ['美国', '美国'],
    ]);
  });

  test('rows written before locations were recorded read as unknown', async () => {
    await app.platform.db.query(`INSERT INTO admin.login_logs (admin_id, username, ip, status, reason) VALUES ($1, $2, '8.8.8.8', 1, 'success')`, [admin.id, admin.username]);
    const old = (await rowsOf(admin.id)).at(-1)!;
    assert.deepEqual(old.location, { kind: 'unknown', country: '', country_name: '', city: '', label: 'Unknown' });
    await app.platform.db.query(`DELETE FROM admin.login_logs WHERE id = $1`, [old.id]);
  });

  test('the country filter is exact, upper case', async () => {
    assert.deepEqual((await rowsOf(admin.id, 'en-US', '&country=US')).map((r) => r.status), [1, 0]);
    assert.deepEqual((await rowsOf(admin.id, 'en-US', '&country=CN&status=1')).map((r) => r.ip), [CN]);
    assert.deepEqual(await rowsOf(admin.id, 'en-US', '&country=FR'), []);
    for (const bad of ['cn', 'CHN', 'C', '']) {
      assertError(await call(app, 'GET', `/api/admin/logs/login?country=${bad}`, { token: superToken }), 400, 30001);
    }
  });

  test('the dashboard’s recent sign-ins carry the location', async () => {
    const stats = dataOf(await call(app, 'GET', '/api/admin/dashboard/stats', { token: superToken, headers: { 'accept-language': 'zh-CN' } }));
    const mine = (stats.recent_logins as Row[]).filter((r) => r.admin_id === admin.id);
    assert.ok(mine.length > 0, JSON.stringify(stats.recent_logins));
    assert.deepEqual(mine[0]!.location, { kind: 'public', country: 'US', country_name: '美国', city: '', label: '美国' });
  });

  test('the export has the location, its country and city, in the requester’s language', async () => {
    const task = dataOf(await call(app, 'POST', `/api/admin/logs/login/export?admin_id=${admin.id}&country=CN`, {
      token: superToken, body: {}, headers: { 'accept-language': 'zh-CN' },
    }));
    const done = await within(10_000, async () => {
      const t = assertOk(await call(app, 'GET', `/api/admin/exports/${task.id}`, { token: superToken }));
      return t.status === 'completed' || t.status === 'failed' ? t : undefined;
    });
    assert.ok(done, 'the export ends');
    assert.equal(done.value.status, 'completed', JSON.stringify(done));
    const file = await app.app.inject({ method: 'GET', url: done.value.download_url, headers: { authorization: `Bearer ${superToken}` } });
    const csv: string[][] = parse(file.rawPayload.toString('utf8'), { bom: true });
    assert.deepEqual(csv[0], ['id', 'created_at', 'admin_id', 'username', 'status', 'reason', 'ip', 'user_agent', 'location', 'country', 'city']);
    assert.equal(csv.length, 2);
    assert.equal(csv[1]![6], CN);
    assert.deepEqual(csv[1]!.slice(8), ['中国 Hangzhou', 'CN', 'Hangzhou']);
  });
});

describe('a sign-in from a new country', () => {
  test('notifies the account and writes a system log row, once per new country, and only for a success after a located one', async () => {
    const admin = await seedAdmin(app);
    // The first located sign-in has no earlier country to differ from; loopback and private ones are not located.
    assertOk(await signIn(admin, US));
    assertOk(await signIn(admin));
    assertOk(await signIn(admin, '192.168.1.20'));
    // The same country again (another address), and a failure from a new one: nothing.
    assertOk(await signIn(admin, US_TOO));
    assertError(await signIn(admin, CN, 'Wrong-pass-123'), 401, 10001);
    await settle();
    assert.deepEqual(await notificationsOf(admin), []);
    assert.deepEqual(await newCountryRows(admin.id), []);

    // A success from China: one notice (the failure from there before does not count as having been there).
    const res = assertOk(await signIn(admin, CN));
    assert.ok(res.token);
    const notes = await within(5000, async () => {
      const n = await notificationsOf(admin);
      return n.length > 0 ? n : undefined;
    });
    assert.ok(notes, 'the notification arrives');
    assert.deepEqual(notes.value.map((n) => [n.title, n.content]), [[
      'Sign-in from a new country or region',
      `Your account signed in from China (IP ${CN}), where it had never signed in before. If this was not you, change your password at once: that also ends your other sessions.`,
    ]]);
    const zh = await notificationsOf(admin, 'zh-CN');
    assert.deepEqual(zh.map((n) => [n.title, n.content]), [[
      '来自新国家或地区的登录',
      `你的账号从中国（IP ${CN}）登录，此前从未在该国家或地区登录过。如非本人操作，请立即修改密码，这也会结束你的其他会话。`,
    ]]);
    const [logId] = (await rowsOf(admin.id, 'en-US', `&country=CN&status=1`)).map((r) => r.id);
    // The system log is written in batches just after the notice.
    const logged = (await within(5000, async () => {
      const r = await newCountryRows(admin.id);
      return r.length > 0 ? r : undefined;
    }))?.value ?? [];
    assert.equal(logged.length, 1);
    assert.equal(logged[0]!.level, 'warning');
    assert.equal(logged[0]!.message, `administrator ${admin.username} signed in from a new country or region: CN (${CN})`);
    assert.deepEqual(logged[0]!.context, { admin_id: admin.id, username: admin.username, ip: CN, country: 'CN', city: 'Hangzhou', login_log_id: logId });

    // China again: nothing more. Then the United Kingdom: a second notice.
    assertOk(await signIn(admin, CN));
    await settle();
    assertOk(await signIn(admin, GB));
    const both = await within(5000, async () => {
      const n = await notificationsOf(admin);
      return n.length > 1 ? n : undefined;
    });
    assert.ok(both, 'the second notification arrives');
    await settle();
    assert.deepEqual((await notificationsOf(admin)).map((n) => n.content.match(/from (.+?) \(IP/)?.[1]), ['United Kingdom', 'China']);
    const second = await within(5000, async () => {
      const r = await newCountryRows(admin.id);
      return r.length > 1 ? r : undefined;
    });
    assert.deepEqual(second?.value.map((r) => r.context.country), ['CN', 'GB']);
    // Nobody else was told.
    assert.deepEqual((assertOk(await call(app, 'GET', '/api/admin/notifications?page_size=100', { token: superToken })).list as { kind: string }[]).filter((n) => n.kind === 'security'), []);
  });

  test('the check reads the partial index, in the prepared statement’s generic plan too', async () => {
    const db = app.platform.db;
    const probes = earlierSignIns(db.orm);
    for (const [name, statement] of Object.entries(probes)) {
      const { sql, params } = statement.getQuery();
      const values: Record<string, unknown> = { adminId: 1, country: 'US', logId: 1_000_000 };
      // The placeholders by name; the others (the LIMIT) as Drizzle sends them.
      const args = params.map((x) => (x instanceof Placeholder ? values[x.name] : x));
      const plan = await db.transaction(async (tx) => {
        // A generic plan is one made for any values, as a named prepared statement gets after five calls.
        await tx.query(`SET LOCAL plan_cache_mode = force_generic_plan`);
        await tx.query(`SET LOCAL enable_seqscan = off`);
        await tx.query(`PREPARE probe_${name} AS ${sql}`);
        const rows = await tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE probe_${name}(${args.map((a) => (typeof a === 'string' ? `'${a}'` : String(a))).join(', ')})`);
        await tx.query(`DEALLOCATE probe_${name}`);
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      });
      assert.match(plan, /login_logs_admin_country_idx/, `${name}:\n${plan}`);
    }
  });
});
