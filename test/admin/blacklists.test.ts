// IP blacklists: CRUD and batch delete, the accepted rule forms and their canonical text,
// enforcement on every admin request (login included) by client address, IPv4-mapped IPv6,
// X-Forwarded-For only from trusted proxies, the self-lockout guard, hit logging, and (on
// PostgreSQL) a change on one instance applied on another within a second.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import type { InjectOptions } from 'fastify';
import pino from 'pino';
import { ConfigError, loadConfig } from '../../src/platform/config.ts';
import { ADMIN_PASSWORD, closeAll, CLUSTER_MODES, clusterSkip, startApp, startWithSibling, within, type TestApp } from '../helpers/app.ts';
import { call, login, signedInAdmin, type Reply } from '../helpers/http.ts';
import { assertError, assertOk } from '../helpers/assert.ts';

const DISPLAY_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const UNKNOWN_ID = 987_654_321;
const BLOCKED = '203.0.113.7';

let app: TestApp;
let token: string;
const logLines: Record<string, unknown>[] = [];

before(async () => {
  // Warnings are captured: every blacklist hit must be logged.
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) logLines.push(JSON.parse(line));
      cb();
    },
  });
  app = await startApp({}, { logger: pino({ level: 'warn' }, sink) });
  token = await login(app);
});
after(() => app?.close());

/** app.inject with a chosen client socket address (the `call` helper always uses 127.0.0.1). */
async function from(
  a: TestApp,
  remoteAddress: string,
  method: InjectOptions['method'],
  url: string,
  opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const res = await a.app.inject({ method, url, remoteAddress, headers, ...(opts.body !== undefined ? { payload: opts.body as object } : {}) });
  let body: unknown = res.body;
  try {
    body = res.json();
  } catch {
    /* not JSON */
  }
  return { status: res.statusCode, body, headers: res.headers };
}

const loginFrom = (a: TestApp, remoteAddress: string, headers: Record<string, string> = {}) =>
  from(a, remoteAddress, 'POST', '/api/admin/login', { body: { username: 'admin', password: ADMIN_PASSWORD }, headers });

const create = (body: unknown, t = token, a: TestApp = app) => call(a, 'POST', '/api/admin/blacklists', { token: t, body });
const update = (id: number | string, body: unknown, t = token, a: TestApp = app) => call(a, 'PUT', `/api/admin/blacklists/${id}`, { token: t, body });
const remove = (id: number | string, t = token, a: TestApp = app) => call(a, 'DELETE', `/api/admin/blacklists/${id}`, { token: t });
const batch = (body: unknown, t = token, a: TestApp = app) => call(a, 'DELETE', '/api/admin/blacklists/batch', { token: t, body });
const get = (id: number | string, t = token) => call(app, 'GET', `/api/admin/blacklists/${id}`, { token: t });
const list = (query = '', t = token) => call(app, 'GET', `/api/admin/blacklists${query}`, { token: t });

/** Creates a rule and returns its record. */
async function rule(ip: string, extra: Record<string, unknown> = {}, a: TestApp = app, t = token) {
  return assertOk(await create({ ip, ...extra }, t, a)) as { id: number; ip: string; remark: string; status: number; created_at: string; updated_at: string };
}

async function removeAll(a: TestApp = app, t = token) {
  const [row] = await a.platform.db.query<{ ids: number[] | null }>('SELECT array_agg(id) AS ids FROM admin.blacklists');
  const ids = (row?.ids ?? []).map(Number);
  if (ids.length > 0) assertOk(await batch({ ids }, t, a));
}

describe('rule forms', () => {
  after(() => removeAll());

  const accepted: [string, string][] = [
    ['192.0.2.1', '192.0.2.1'],
    [' 192.0.2.2 ', '192.0.2.2'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['::ffff:192.0.2.3', '192.0.2.3'],
    ['192.0.2.77/24', '192.0.2.0/24'],
    ['10.20.30.40/8', '10.0.0.0/8'],
    ['192.0.2.4/32', '192.0.2.4'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['2001:db8:abcd:12::1/48', '2001:db8:abcd::/48'],
    ['::ffff:198.51.100.0/120', '198.51.100.0/24'],
    ['2001:db8:1::5/128', '2001:db8:1::5'],
    ['192.0.2.10-192.0.2.20', '192.0.2.10-192.0.2.20'],
    ['192.0.2.30 - 192.0.2.40', '192.0.2.30-192.0.2.40'],
    ['192.0.2.50-192.0.2.50', '192.0.2.50'],
    ['2001:db8::10-2001:DB8::00ff', '2001:db8::10-2001:db8::ff'],
  ];
  for (const [input, stored] of accepted) {
    test(`accepts ${JSON.stringify(input)} as ${stored}`, async () => {
      // Rules covering 127.0.0.1 (the caller here) cannot be active: these are saved inactive.
      const created = await rule(input, { status: 0, remark: `form ${input}` });
      assert.equal(created.ip, stored);
      assert.equal(created.status, 0);
      assert.equal(created.remark, `form ${input}`.trim(), 'remarks are trimmed');
      assert.match(created.created_at, DISPLAY_TIME);
      assert.match(created.updated_at, DISPLAY_TIME);
      assert.deepEqual(Object.keys(created).sort(), ['created_at', 'id', 'ip', 'remark', 'status', 'updated_at']);
    });
  }

  const refused = [
    'garbage', '', '   ', '256.1.1.1', '1.2.3', '01.2.3.4', '1.2.3.4.5', '1.2.3.4/33', '2001:db8::/129', '1.2.3.4/-1', '1.2.3.4/',
    '1.2.3.4/abc', '1.2.3.4/08', '1.2.3.0/24/8', '192.0.2.20-192.0.2.10', '2001:db8::ff-2001:db8::1', '192.0.2.1-2001:db8::1',
    '192.0.2.1-', '-192.0.2.1', '192.0.2.1-192.0.2.5-192.0.2.9', '2001:db8:::1', 'fe80::1%eth0', 'localhost', 'x'.repeat(101),
  ];
  for (const input of refused) {
    test(`refuses ${JSON.stringify(input.length > 40 ? `${input.slice(0, 10)}…` : input)} with 400 30001`, async () => {
      const res = await create({ ip: input, status: 0 });
      assertError(res, 400, 30001);
    });
  }

  test('refuses wrong types and unknown fields', async () => {
    assertError(await create({ ip: 42 }), 400, 30001);
    assertError(await create({}), 400, 30001);
    assertError(await create({ ip: '192.0.2.99', status: 2 }), 400, 30001);
    assertError(await create({ ip: '192.0.2.99', status: '1' }), 400, 30001);
    assertError(await create({ ip: '192.0.2.99', remark: 'x'.repeat(256) }), 400, 30001);
    assertError(await create({ ip: '192.0.2.99', reason: 'x' }), 400, 30001);
    assert.equal(assertOk(await list('?ip=192.0.2.99')).total, 0, 'nothing was created');
  });

  test('the refusal names the problem', async () => {
    const res = await create({ ip: '192.0.2.20-192.0.2.10' });
    assert.match(res.body.message, /start .* must not be after its end/);
    const prefix = await create({ ip: '1.2.3.4/33' });
    assert.match(prefix.body.message, /prefix .* 0 to 32/);
  });
});

describe('CRUD', () => {
  after(() => removeAll());

  test('POST defaults to active with an empty remark; GET /{id} returns it', async () => {
    const created = await rule('198.51.100.1');
    assert.equal(created.status, 1);
    assert.equal(created.remark, '');
    const fetched = assertOk(await get(created.id));
    assert.deepEqual(fetched, created);
  });

  test('the same rule twice, in any spelling, is 400 30002', async () => {
    const first = await rule('198.51.100.2', { remark: 'first' });
    for (const again of ['198.51.100.2', '::ffff:198.51.100.2', '198.51.100.2/32', '198.51.100.2-198.51.100.2', ' 198.51.100.2']) {
      assertError(await create({ ip: again }), 400, 30002);
    }
    const block = await rule('198.51.100.128/25');
    assertError(await create({ ip: '198.51.100.200/25' }), 400, 30002);
    // An update onto another rule's text is a duplicate too; the rule itself is unchanged.
    assertError(await update(block.id, { ip: '198.51.100.2' }), 400, 30002);
    assert.equal(assertOk(await get(block.id)).ip, '198.51.100.128/25');
    assertOk(await get(first.id));
  });

  test('GET /{id}, PUT and DELETE of an unknown id are 404 30003; a bad id is 400 30001', async () => {
    assertError(await get(UNKNOWN_ID), 404, 30003);
    assertError(await update(UNKNOWN_ID, { remark: 'x' }), 404, 30003);
    assertError(await remove(UNKNOWN_ID), 404, 30003);
    assertError(await get('abc'), 400, 30001);
    assertError(await get(0), 400, 30001);
    assertError(await update('abc', { remark: 'x' }), 400, 30001);
    assertError(await remove('abc'), 400, 30001);
  });

  test('PUT changes only the fields sent, normalises ip and moves updated_at', async () => {
    const created = await rule('198.51.100.3', { remark: 'before' });
    await sleep(1100);
    const remarked = assertOk(await update(created.id, { remark: 'after' }));
    assert.equal(remarked.ip, '198.51.100.3');
    assert.equal(remarked.status, 1);
    assert.equal(remarked.remark, 'after');
    assert.equal(remarked.created_at, created.created_at);
    assert.notEqual(remarked.updated_at, created.updated_at);

    const moved = assertOk(await update(created.id, { ip: '2001:DB8:0::7/64', status: 0 }));
    assert.equal(moved.ip, '2001:db8::/64');
    assert.equal(moved.status, 0);
    assert.equal(moved.remark, 'after');
    assert.deepEqual(assertOk(await get(created.id)), moved);
  });

  test('PUT validates its body', async () => {
    const created = await rule('198.51.100.4');
    assertError(await update(created.id, {}), 400, 30001);
    assertError(await update(created.id, { ip: '198.51.100.9-198.51.100.4' }), 400, 30001);
    assertError(await update(created.id, { ip: 'nope' }), 400, 30001);
    assertError(await update(created.id, { status: 5 }), 400, 30001);
    assertError(await update(created.id, { id: 3 }), 400, 30001);
    assert.equal(assertOk(await get(created.id)).ip, '198.51.100.4');
  });

  test('DELETE /{id} removes the rule', async () => {
    const created = await rule('198.51.100.5');
    const res = await remove(created.id);
    assert.deepEqual(assertOk(res), { deleted: 1, not_found: [] });
    assertError(await get(created.id), 404, 30003);
    assertError(await remove(created.id), 404, 30003);
  });

  test('DELETE /batch deletes the existing ids together and reports the others', async () => {
    const a = await rule('198.51.100.6');
    const b = await rule('198.51.100.7');
    const keep = await rule('198.51.100.8');
    const res = await batch({ ids: [a.id, UNKNOWN_ID, b.id] });
    assert.deepEqual(assertOk(res), { deleted: 2, not_found: [UNKNOWN_ID] });
    assertError(await get(a.id), 404, 30003);
    assertError(await get(b.id), 404, 30003);
    assertOk(await get(keep.id));
    assert.deepEqual(assertOk(await batch({ ids: [UNKNOWN_ID] })), { deleted: 0, not_found: [UNKNOWN_ID] });
  });

  test('DELETE /batch validates its body and deletes nothing on a bad one', async () => {
    const a = await rule('198.51.100.9');
    assertError(await batch({ ids: [] }), 400, 30001);
    assertError(await batch({ ids: [a.id, a.id] }), 400, 30001);
    assertError(await batch({ ids: [String(a.id)] }), 400, 30001);
    assertError(await batch({ ids: [0] }), 400, 30001);
    assertError(await batch({}), 400, 30001);
    assertError(await batch({ ids: [a.id], all: true }), 400, 30001);
    assertError(await batch({ ids: Array.from({ length: 101 }, (_, i) => a.id + i) }), 400, 30001);
    assertOk(await get(a.id));
  });
});

describe('GET /blacklists', () => {
  const ids: number[] = [];
  before(async () => {
    await removeAll();
    for (const [ip, status] of [['192.0.2.101', 1], ['192.0.2.102', 0], ['198.51.100.101', 1], ['2001:db8:77::/48', 0], ['192.0.2.110-192.0.2.119', 1]] as const) {
      ids.push((await rule(ip, { status, remark: `list ${ip}` })).id);
    }
  });
  after(() => removeAll());

  test('pages with defaults 1 and 10, newest first', async () => {
    const data = assertOk(await list());
    assert.equal(data.page, 1);
    assert.equal(data.page_size, 10);
    assert.equal(data.total, 5);
    assert.deepEqual(data.list.map((r: { id: number }) => r.id), [...ids].reverse());
    const page2 = assertOk(await list('?page=2&page_size=2'));
    assert.equal(page2.total, 5);
    assert.deepEqual(page2.list.map((r: { id: number }) => r.id), [ids[2], ids[1]]);
  });

  test('filters: fuzzy ip, status', async () => {
    const fuzzy = assertOk(await list('?ip=192.0.2.1'));
    assert.deepEqual(fuzzy.list.map((r: { ip: string }) => r.ip).sort(), ['192.0.2.101', '192.0.2.102', '192.0.2.110-192.0.2.119']);
    assert.equal(assertOk(await list('?ip=DB8:77')).list[0].ip, '2001:db8:77::/48');
    assert.equal(assertOk(await list('?ip=%25')).total, 0, 'LIKE wildcards match themselves');
    const inactive = assertOk(await list('?status=0'));
    assert.deepEqual(inactive.list.map((r: { ip: string }) => r.ip).sort(), ['192.0.2.102', '2001:db8:77::/48']);
    assert.equal(assertOk(await list('?status=1&ip=198.51')).total, 1);
  });

  test('order_by over the allowed fields', async () => {
    const byIp = assertOk(await list('?order_by=ip:asc'));
    const ips = byIp.list.map((r: { ip: string }) => r.ip);
    assert.deepEqual(ips, [...ips].sort());
    const byId = assertOk(await list('?order_by=id:asc'));
    assert.deepEqual(byId.list.map((r: { id: number }) => r.id), ids);
    assertOk(await list('?order_by=status:desc'));
    assertOk(await list('?order_by=created_at:asc'));
    assertError(await list('?order_by=remark:asc'), 400, 30001);
    assertError(await list('?order_by=id'), 400, 30001);
  });

  test('refuses bad paging and filters with 400 30001', async () => {
    assertError(await list('?page_size=101'), 400, 30001);
    assertError(await list('?page=0'), 400, 30001);
    assertError(await list('?status=2'), 400, 30001);
    assertError(await list('?status=x'), 400, 30001);
  });
});

describe('permissions', () => {
  test('blacklist.list reads; writing needs blacklist.create, .update, .delete', async () => {
    const { token: rt } = await signedInAdmin(app, { permissions: ['blacklist.list'] });
    assertOk(await list('', rt));
    assertError(await create({ ip: '192.0.2.201' }, rt), 403, 20001);

    const { token: wt } = await signedInAdmin(app, { permissions: ['blacklist.create', 'blacklist.update', 'blacklist.delete'] });
    const created = await rule('192.0.2.201', {}, app, wt);
    assertOk(await update(created.id, { remark: 'by writer' }, wt));
    assertError(await get(created.id, wt), 403, 20001);
    assertOk(await remove(created.id, wt));
  });
});

describe('enforcement', () => {
  after(() => removeAll());

  test('a blocked CIDR is refused at /login with 403 20003, and the hit is logged', async () => {
    assertOk(await loginFrom(app, BLOCKED));
    const r = await rule('203.0.113.0/24', { remark: 'test net 3' });
    const res = await loginFrom(app, BLOCKED);
    assertError(res, 403, 20003);

    const hit = logLines.find((l) => l.ip === BLOCKED && l.rule === '203.0.113.0/24');
    assert.ok(hit, `a warning names the address and the rule: ${JSON.stringify(logLines)}`);
    assert.equal(hit.level, 40, 'warn');
    assert.equal(hit.path, '/api/admin/login');
    assert.equal(hit.trace_id, res.body.trace_id);

    // Other addresses are not affected.
    assertOk(await loginFrom(app, '203.0.114.1'));
    assertOk(await loginFrom(app, '198.51.100.77'));
    assertOk(await remove(r.id));
    assertOk(await loginFrom(app, BLOCKED));
  });

  test('every admin request is refused: captcha, authenticated routes, unknown paths', async () => {
    const r = await rule('203.0.113.0/24');
    const t = await login(app);
    assertError(await from(app, BLOCKED, 'GET', '/api/admin/captcha'), 403, 20003);
    assertError(await from(app, BLOCKED, 'GET', '/api/admin/info', { token: t }), 403, 20003);
    assertError(await from(app, BLOCKED, 'GET', '/api/admin/blacklists', { token: t }), 403, 20003);
    assertError(await from(app, BLOCKED, 'GET', '/api/admin/info'), 403, 20003);
    assertError(await from(app, BLOCKED, 'GET', '/api/admin/no-such-path'), 403, 20003);
    assertError(await from(app, BLOCKED, 'DELETE', `/api/admin/blacklists/${r.id}`, { token: t }), 403, 20003);
    assertOk(await get(r.id));
    assertOk(await from(app, '203.0.114.1', 'GET', '/api/admin/info', { token: t }));
    assertOk(await remove(r.id));
  });

  test('a blocked range is refused; addresses just outside it are not', async () => {
    const r = await rule('198.51.100.10-198.51.100.20');
    assertError(await loginFrom(app, '198.51.100.10'), 403, 20003);
    assertError(await loginFrom(app, '198.51.100.15'), 403, 20003);
    assertError(await loginFrom(app, '198.51.100.20'), 403, 20003);
    assertOk(await loginFrom(app, '198.51.100.9'));
    assertOk(await loginFrom(app, '198.51.100.21'));
    assertOk(await remove(r.id));
  });

  test('IPv6 rules block IPv6 clients', async () => {
    const single = await rule('2001:db8:dead::1');
    const block = await rule('2001:db8:beef::/48');
    assertError(await loginFrom(app, '2001:db8:dead::1'), 403, 20003);
    assertError(await loginFrom(app, '2001:db8:dead:0:0:0:0:1'), 403, 20003);
    assertError(await loginFrom(app, '2001:db8:beef:1::42'), 403, 20003);
    assertOk(await loginFrom(app, '2001:db8:dead::2'));
    assertOk(await loginFrom(app, '2001:db8:bef0::1'));
    assertOk(await batch({ ids: [single.id, block.id] }));
  });

  test('an IPv4-mapped IPv6 client is blocked by the IPv4 rule, and a mapped rule blocks the IPv4 client', async () => {
    const r = await rule('203.0.113.0/24');
    assertError(await loginFrom(app, `::ffff:${BLOCKED}`), 403, 20003);
    assertError(await loginFrom(app, '::ffff:cb00:7107'), 403, 20003); // 203.0.113.7 in hex groups
    assertOk(await loginFrom(app, '::ffff:203.0.114.1'));
    assertOk(await remove(r.id));

    const mapped = await rule('::ffff:198.51.100.33');
    assert.equal(mapped.ip, '198.51.100.33');
    assertError(await loginFrom(app, '198.51.100.33'), 403, 20003);
    assertError(await loginFrom(app, '::ffff:198.51.100.33'), 403, 20003);
    assertOk(await remove(mapped.id));
  });

  test('X-Forwarded-For from a client is ignored without TRUST_PROXY', async () => {
    const r = await rule('203.0.113.0/24');
    // A blocked client cannot escape by claiming another address...
    assertError(await loginFrom(app, BLOCKED, { 'x-forwarded-for': '192.0.2.1' }), 403, 20003);
    assertError(await loginFrom(app, BLOCKED, { 'x-forwarded-for': '127.0.0.1', 'x-real-ip': '127.0.0.1' }), 403, 20003);
    // ...and nobody is blocked for an address they merely name.
    assertOk(await loginFrom(app, '192.0.2.1', { 'x-forwarded-for': BLOCKED }));
    assertOk(await remove(r.id));
  });

  test('an inactive rule does not block; activating and deactivating apply at once', async () => {
    const r = await rule('203.0.113.0/24', { status: 0 });
    assertOk(await loginFrom(app, BLOCKED));
    assertOk(await update(r.id, { status: 1 }));
    assertError(await loginFrom(app, BLOCKED), 403, 20003);
    assertOk(await update(r.id, { status: 0 }));
    assertOk(await loginFrom(app, BLOCKED));
    assertOk(await update(r.id, { status: 1, ip: '203.0.113.0/28' }));
    assertError(await loginFrom(app, BLOCKED), 403, 20003);
    assertOk(await loginFrom(app, '203.0.113.100'));
    assertOk(await remove(r.id));
  });

  test('deleting a rule unblocks at once, by id or in a batch', async () => {
    const a = await rule('203.0.113.0/24');
    const b = await rule('198.51.100.50');
    assertError(await loginFrom(app, BLOCKED), 403, 20003);
    assertError(await loginFrom(app, '198.51.100.50'), 403, 20003);
    assertOk(await remove(a.id));
    assertOk(await loginFrom(app, BLOCKED));
    assertError(await loginFrom(app, '198.51.100.50'), 403, 20003);
    assertOk(await batch({ ids: [b.id] }));
    assertOk(await loginFrom(app, '198.51.100.50'));
  });

  test('overlapping rules: the address stays blocked until the last covering rule goes', async () => {
    const wide = await rule('203.0.113.0/24');
    const narrow = await rule('203.0.113.0-203.0.113.15');
    assertOk(await remove(wide.id));
    assertError(await loginFrom(app, BLOCKED), 403, 20003);
    assertOk(await remove(narrow.id));
    assertOk(await loginFrom(app, BLOCKED));
  });
});

describe('self-lockout guard', () => {
  after(() => removeAll());

  test("an active rule covering the caller's own address is refused with 400 40001", async () => {
    for (const ip of ['127.0.0.1', '127.0.0.0/8', '127.0.0.0-127.0.0.9', '::ffff:127.0.0.1', '0.0.0.0/0', '::/0']) {
      const res = await create({ ip });
      assertError(res, 400, 40001);
      assert.match(res.body.message, /your own address 127\.0\.0\.1/);
    }
    assert.equal(assertOk(await list()).total, 0);
    // The caller can still reach the service.
    assertOk(await list());
  });

  test('it can be saved inactive, but not activated from the covered address', async () => {
    const r = await rule('127.0.0.0/8', { status: 0 });
    assertError(await update(r.id, { status: 1 }), 400, 40001);
    const other = await rule('192.0.2.0/24');
    assertError(await update(other.id, { ip: '127.0.0.1' }), 400, 40001);
    assert.equal(assertOk(await get(other.id)).ip, '192.0.2.0/24');
    assert.equal(assertOk(await get(r.id)).status, 0);
    // Someone elsewhere may activate it.
    const res = await from(app, '198.51.100.200', 'PUT', `/api/admin/blacklists/${r.id}`, { token, body: { status: 1 } });
    assert.equal(assertOk(res).status, 1);
    assertError(await list(), 403, 20003);
    assertOk(await from(app, '198.51.100.200', 'DELETE', `/api/admin/blacklists/${r.id}`, { token }));
    assertOk(await list());
  });

  test('the guard uses the client address, which a client-sent X-Forwarded-For does not change', async () => {
    const res = await from(app, BLOCKED, 'POST', '/api/admin/blacklists', { token, body: { ip: BLOCKED }, headers: { 'x-forwarded-for': '192.0.2.9' } });
    assertError(res, 400, 40001);
    assertError(await from(app, '198.51.100.222', 'POST', '/api/admin/blacklists', { token, body: { ip: '198.51.100.222' } }), 400, 40001);
  });
});

describe('TRUST_PROXY', () => {
  let proxied: TestApp;
  let ptoken: string;
  const PROXY = '10.1.2.3';
  before(async () => {
    proxied = await startApp({ TRUST_PROXY: '10.0.0.0/8, 192.0.2.250' });
    ptoken = await login(proxied);
    await rule('203.0.113.0/24', {}, proxied, ptoken);
  });
  after(() => proxied?.close());

  test('from a trusted proxy, the forwarded client address is the one checked', async () => {
    assertError(await loginFrom(proxied, PROXY, { 'x-forwarded-for': BLOCKED }), 403, 20003);
    assertError(await loginFrom(proxied, '192.0.2.250', { 'x-forwarded-for': BLOCKED }), 403, 20003);
    assertError(await loginFrom(proxied, PROXY, { 'x-forwarded-for': `::ffff:${BLOCKED}` }), 403, 20003);
    assertOk(await loginFrom(proxied, PROXY, { 'x-forwarded-for': '198.51.100.1' }));
    assertOk(await loginFrom(proxied, PROXY));
  });

  test('a client cannot escape by prepending addresses: the proxy appends the real one', async () => {
    assertError(await loginFrom(proxied, PROXY, { 'x-forwarded-for': `192.0.2.1, ${BLOCKED}` }), 403, 20003);
    assertError(await loginFrom(proxied, PROXY, { 'x-forwarded-for': `10.9.9.9, ${BLOCKED}` }), 403, 20003);
    // Two trusted hops: the nearest untrusted address counts.
    assertError(await loginFrom(proxied, PROXY, { 'x-forwarded-for': `192.0.2.1, ${BLOCKED}, 10.0.0.9` }), 403, 20003);
    assertOk(await loginFrom(proxied, PROXY, { 'x-forwarded-for': `${BLOCKED}, 198.51.100.1` }));
  });

  test('from anyone else, X-Forwarded-For is still ignored', async () => {
    assertError(await loginFrom(proxied, BLOCKED, { 'x-forwarded-for': '192.0.2.1' }), 403, 20003);
    assertOk(await loginFrom(proxied, '192.0.2.1', { 'x-forwarded-for': BLOCKED }));
    assertOk(await loginFrom(proxied, '192.0.2.251', { 'x-forwarded-for': BLOCKED }));
  });

  test('the self-lockout guard sees the forwarded address', async () => {
    const res = await from(proxied, PROXY, 'POST', '/api/admin/blacklists', {
      token: ptoken,
      body: { ip: '198.51.100.0/24' },
      headers: { 'x-forwarded-for': '198.51.100.7' },
    });
    assertError(res, 400, 40001);
    assert.match(res.body.message, /198\.51\.100\.7/);
  });

  test('TRUST_PROXY is validated at start-up', () => {
    assert.deepEqual(loadConfig({}).trustedProxies, []);
    assert.deepEqual(loadConfig({ TRUST_PROXY: ' 10.0.0.0/8 , ::1,loopback ' }).trustedProxies, ['10.0.0.0/8', '::1', 'loopback']);
    for (const bad of ['true', '*', '10.0.0.0/33', '300.1.1.1', '10.0.0.1,nope', '::/129']) {
      assert.throws(() => loadConfig({ TRUST_PROXY: bad }), (err: unknown) => err instanceof ConfigError && /TRUST_PROXY/.test(err.message), bad);
    }
  });
});

/** Polls until a login from `ip` on `a` gets `status`; returns how long that took, or null. */
async function loginStatusWithin(a: TestApp, ip: string, status: number, limitMs: number): Promise<number | null> {
  const hit = await within(limitMs, async () => ((await loginFrom(a, ip)).status === status ? true : undefined));
  return hit?.ms ?? null;
}

for (const { mode, label, overrides } of CLUSTER_MODES) {
  describe(`two instances sharing ${label}`, { skip: clusterSkip(mode) }, () => {
    const apps: TestApp[] = [];
    after(() => closeAll(...apps.reverse()));

    test('a rule created, deactivated or deleted on one instance applies on the other within 1 second', async () => {
      const [one, two] = await startWithSibling(overrides);
      apps.push(one, two);
      assert.equal(one.platform.pubsub.kind, mode === 'redis' ? 'redis' : 'postgres');
      const t = await login(one);
      assertOk(await loginFrom(two, BLOCKED));

      const created = await rule('203.0.113.0/24', {}, one, t);
      const blockedAfter = await loginStatusWithin(two, BLOCKED, 403, 1000);
      assert.ok(blockedAfter !== null, 'blocked on the other instance within 1 s');
      assertError(await loginFrom(two, BLOCKED), 403, 20003);

      assertOk(await update(created.id, { status: 0 }, t, one));
      assert.ok((await loginStatusWithin(two, BLOCKED, 200, 1000)) !== null, 'deactivation reaches the other instance within 1 s');

      assertOk(await update(created.id, { status: 1 }, t, one));
      assert.ok((await loginStatusWithin(two, BLOCKED, 403, 1000)) !== null);
      assertOk(await remove(created.id, t, one));
      assert.ok((await loginStatusWithin(two, BLOCKED, 200, 1000)) !== null, 'deletion reaches the other instance within 1 s');
    });
  });
}
