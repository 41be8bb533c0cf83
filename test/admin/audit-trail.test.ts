// The audit trail (issue 31, part 4): each write of the back office keeps, in its operation log
// row, the before and after values of the fields it changed, per record, with secrets masked; a
// refused write keeps none.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyPluginAsync } from 'fastify';
import { parse } from 'csv-parse/sync';
import { recordChange } from '../../src/admin/features/logs/logs.changes.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { call, login, seedAdmin, signedInAdmin, type Reply } from '../helpers/http.ts';
import { assertError, assertOk } from '../helpers/assert.ts';

interface Change { entity: string; id: string; label?: string; op: 'create' | 'update' | 'delete'; fields: { field: string; before: unknown; after: unknown }[] }
interface Row { status_code: number; changes: Change[] | null; params: Record<string, unknown> }

// A test-only write whose records cannot be read (as when the database is away while it runs).
const extras: FastifyPluginAsync = async (admin) => {
  admin.put('/test/unreadable/:id', {
    config: { permission: 'testing.unreadable', audit: { entity: 'thing', load: async () => { throw new Error('database away'); } } },
  }, async (request) => ({ code: 200, message: 'ok', data: { id: 1 }, trace_id: request.id }));
};

let app: TestApp;
let token: string;

before(async () => {
  app = await startApp({}, { adminExtras: extras });
  token = await login(app);
});
after(() => app?.close());

/** The operation log row of the request that answered `res` (rows are written just after the response). */
async function rowOf(res: Reply): Promise<Row> {
  const traceId = res.body.trace_id as string;
  const until = Date.now() + 5000;
  for (;;) {
    const list = await call(app, 'GET', `/api/admin/logs/operation?trace_id=${encodeURIComponent(traceId)}`, { token });
    const [row] = assertOk(list).list as Row[];
    if (row) return row;
    if (Date.now() > until) assert.fail(`no operation row for ${traceId}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const fieldsOf = (change: Change | undefined) => Object.fromEntries((change?.fields ?? []).map((f) => [f.field, [f.before, f.after]]));
const uniq = (p: string) => `${p}${Date.now().toString(36)}${Math.floor(Math.random() * 1e6)}`;

describe('recordChange', () => {
  test('an update keeps only the fields that changed, nested ones by their path, arrays whole', () => {
    const change = recordChange('thing', 7,
      { name: 'a', tags: [1, 2], inner: { x: 1, y: 2 }, updated_at: '2026-01-01 00:00:00', note: '' },
      { name: 'b', tags: [1, 3], inner: { x: 1, y: 3 }, updated_at: '2026-01-02 00:00:00', note: null });
    assert.deepEqual(change, {
      entity: 'thing', id: '7', label: 'b', op: 'update',
      fields: [{ field: 'name', before: 'a', after: 'b' }, { field: 'tags', before: [1, 2], after: [1, 3] }, { field: 'inner.y', before: 2, after: 3 }],
    });
  });

  test('a create lists what was set, a delete what there was; nothing before or after is no change', () => {
    assert.deepEqual(recordChange('thing', 1, null, { name: 'n', remark: '' }), { entity: 'thing', id: '1', label: 'n', op: 'create', fields: [{ field: 'name', before: null, after: 'n' }] });
    assert.deepEqual(recordChange('thing', 1, { name: 'n' }, null), { entity: 'thing', id: '1', label: 'n', op: 'delete', fields: [{ field: 'name', before: 'n', after: null }] });
    assert.equal(recordChange('thing', 1, null, null), null);
    assert.deepEqual(recordChange('thing', 1, { name: 'n' }, { name: 'n' })?.fields, []);
  });

  test('a changed secret shows as a change of a masked value, never the value', () => {
    const change = recordChange('m', 1, { config: { api_key: 'old-key', region: 'cn' } }, { config: { api_key: 'new-key', region: 'cn' } });
    assert.deepEqual(change?.fields, [{ field: 'config.api_key', before: '[redacted]', after: '[redacted]' }]);
  });
});

describe('the operation log keeps before and after', () => {
  test('an administrator: created, updated (only the changed field), a new password (when, never what), deleted', async () => {
    const username = uniq('audit');
    const created = await call(app, 'POST', '/api/admin/admins', { token, body: { username, password: 'Audit-pass-w0rd-1', nickname: 'Before', role_ids: [] } });
    const id = assertOk(created).id as number;
    const c = (await rowOf(created)).changes!;
    assert.equal(c.length, 1);
    assert.deepEqual([c[0]!.entity, c[0]!.id, c[0]!.op], ['admin', String(id), 'create']);
    assert.deepEqual(fieldsOf(c[0]).username, [null, username]);
    assert.deepEqual(fieldsOf(c[0]).nickname, [null, 'Before']);

    const updated = await call(app, 'PUT', `/api/admin/admins/${id}`, { token, body: { nickname: 'After' } });
    assertOk(updated);
    const u = (await rowOf(updated)).changes!;
    assert.deepEqual(u, [{ entity: 'admin', id: String(id), label: username, op: 'update', fields: [{ field: 'nickname', before: 'Before', after: 'After' }] }]);

    await new Promise((r) => setTimeout(r, 1100));
    const reset = await call(app, 'PUT', `/api/admin/admins/${id}/reset-password`, { token, body: { password: 'Audit-pass-w0rd-2' } });
    assertOk(reset);
    const r = (await rowOf(reset)).changes!;
    assert.deepEqual(Object.keys(fieldsOf(r[0])), ['password_changed_at'], 'the password was already to be changed: only when it was set moved');
    const [stored] = await app.platform.db.query<{ text: string }>(`SELECT changes::text AS text FROM admin.operation_logs WHERE trace_id = $1`, [reset.body.trace_id]);
    assert.doesNotMatch(stored!.text, /Audit-pass|argon2/);

    const removed = await call(app, 'DELETE', `/api/admin/admins/${id}`, { token });
    assertOk(removed);
    const d = (await rowOf(removed)).changes!;
    assert.equal(d[0]!.op, 'delete');
    assert.deepEqual(fieldsOf(d[0]).username, [username, null]);
  });

  test('a role’s permissions: the lists before and after', async () => {
    const perms = assertOk(await call(app, 'GET', '/api/admin/permissions?page_size=3', { token })).list as { id: number }[];
    const [p1, p2, p3] = perms.map((p) => p.id);
    const role = assertOk(await call(app, 'POST', '/api/admin/roles', { token, body: { name: 'Auditor', slug: uniq('auditor'), permission_ids: [p1, p2] } }));
    const res = await call(app, 'PUT', `/api/admin/roles/${role.id}`, { token, body: { permission_ids: [p1, p3] } });
    assertOk(res);
    const [change] = (await rowOf(res)).changes!;
    assert.equal(change!.op, 'update');
    const [from, to] = fieldsOf(change).permission_ids as [number[], number[]];
    assert.deepEqual([[...from].sort(), [...to].sort()], [[p1, p2].sort(), [p1, p3].sort()]);
  });

  test('a payment method’s new secret: the change is seen, neither value is', async () => {
    const code = uniq('pm');
    const m = assertOk(await call(app, 'POST', '/api/admin/payment-methods', { token, body: { name: 'Card', code, type: 'online', config: { app_id: 'a1', api_key: 'ak-OLD-SECRET-1' } } }));
    const res = await call(app, 'PUT', `/api/admin/payment-methods/${m.id}`, { token, body: { name: 'Card 2', config: { app_id: 'a1', api_key: 'ak-NEW-SECRET-2' } } });
    assertOk(res);
    const row = await rowOf(res);
    assert.deepEqual(fieldsOf(row.changes![0]).name, ['Card', 'Card 2']);
    assert.doesNotMatch(JSON.stringify(row), /SECRET/);
    const [stored] = await app.platform.db.query<{ text: string }>(`SELECT changes::text AS text FROM admin.operation_logs WHERE trace_id = $1`, [res.body.trace_id]);
    assert.doesNotMatch(stored!.text, /SECRET/);
  });

  test('an order: created from the reply; paid, with its status before and after; found by its number', async () => {
    const products = [{ product_id: 1, product_name: 'Widget', price: 2.5, quantity: 2 }];
    const created = await call(app, 'POST', '/api/admin/orders', { token, body: { user_id: 9, amount: 5, products } });
    const { order } = assertOk(created) as { order: { id: number; order_no: string } };
    const [c] = (await rowOf(created)).changes!;
    assert.deepEqual([c!.op, c!.id], ['create', String(order.id)]);
    const [noDetails, details] = fieldsOf(c).details as [null, { product_name: string }[]];
    assert.deepEqual([noDetails, details.map((d) => d.product_name)], [null, ['Widget']]);

    const paid = await call(app, 'PUT', `/api/admin/orders/0?order_no=${order.order_no}`, { token, body: { status: 'paid' } });
    assertOk(paid);
    const [u] = (await rowOf(paid)).changes!;
    assert.deepEqual([u!.op, u!.id, u!.label], ['update', order.order_no, order.order_no]);
    assert.deepEqual(fieldsOf(u)['order.status'], ['pending', 'paid']);
  });

  test('a batch delete: one change per record', async () => {
    const ids = [];
    for (const ip of ['203.0.113.71', '203.0.113.72']) ids.push(assertOk(await call(app, 'POST', '/api/admin/blacklists', { token, body: { ip, remark: 'audit' } })).id as number);
    const res = await call(app, 'DELETE', '/api/admin/blacklists/batch', { token, body: { ids } });
    assertOk(res);
    const changes = (await rowOf(res)).changes!;
    assert.deepEqual(changes.map((c) => [c.op, c.id]), ids.map((id) => ['delete', String(id)]));
    assert.deepEqual(changes.map((c) => fieldsOf(c).ip![0]), ['203.0.113.71', '203.0.113.72']);
  });

  test('the password policy and a kicked-out session (a record that stays, ended)', async () => {
    const current = assertOk(await call(app, 'GET', '/api/admin/password-policy', { token }));
    const res = await call(app, 'PUT', '/api/admin/password-policy', { token, body: { ...policyBody(current), min_length: current.min_length + 1 } });
    assertOk(res);
    const [p] = (await rowOf(res)).changes!;
    assert.equal(p!.entity, 'password_policy');
    assert.deepEqual(fieldsOf(p).min_length, [current.min_length, current.min_length + 1]);
    assertOk(await call(app, 'PUT', '/api/admin/password-policy', { token, body: policyBody(current) }));

    const other = await signedInAdmin(app);
    const sessions = assertOk(await call(app, 'GET', `/api/admin/online-admins?username=${other.username}`, { token })).list as { token_id: number }[];
    const kick = await call(app, 'DELETE', `/api/admin/online-admins/${sessions[0]!.token_id}`, { token });
    assertOk(kick);
    const [k] = (await rowOf(kick)).changes!;
    assert.equal(k!.op, 'update');
    assert.deepEqual(fieldsOf(k).end_reason, [null, 'kicked']);
    assert.equal((fieldsOf(k).ended_at as unknown[])[0], null);
  });

  test('one’s own new password: when it was set, never what it is', async () => {
    const me = await signedInAdmin(app, { password: 'Own-pass-w0rd-1' });
    await new Promise((r) => setTimeout(r, 1100));
    const res = await call(app, 'PUT', '/api/admin/password', {
      token: me.token, body: { old_password: 'Own-pass-w0rd-1', password: 'Own-pass-w0rd-2', password_confirmation: 'Own-pass-w0rd-2' },
    });
    assertOk(res);
    const [c] = (await rowOf(res)).changes!;
    assert.deepEqual([c!.entity, c!.id, c!.op], ['admin', String(me.id), 'update']);
    assert.deepEqual(Object.keys(fieldsOf(c)), ['password_changed_at']);
    assert.doesNotMatch(JSON.stringify(c), /Own-pass/);
  });

  test('each resource: created, one field changed, deleted', async () => {
    const resources: [entity: string, path: string, body: Record<string, unknown>, change: Record<string, unknown>][] = [
      ['permission', '/api/admin/permissions', { name: 'Audit perm', slug: `audit.${uniq('p')}` }, { name: 'Audit perm 2' }],
      ['menu', '/api/admin/menus', { title: 'Audit menu', slug: uniq('audit-menu'), type: 1 }, { sort: 7 }],
      ['department', '/api/admin/departments', { name: uniq('Audit dept ') }, { leader: 'Ann' }],
      ['dictionary', '/api/admin/dictionaries', { name: 'Audit type', code: uniq('audit_') }, { value: 'v2' }],
    ];
    for (const [entity, path, body, change] of resources) {
      const created = await call(app, 'POST', path, { token, body });
      const id = assertOk(created).id as number;
      const [c] = (await rowOf(created)).changes!;
      assert.deepEqual([c!.entity, c!.id, c!.op], [entity, String(id), 'create'], entity);
      const updated = await call(app, 'PUT', `${path}/${id}`, { token, body: change });
      assertOk(updated);
      const [u] = (await rowOf(updated)).changes!;
      const [field, value] = Object.entries(change)[0]!;
      assert.equal(u!.op, 'update', entity);
      assert.deepEqual((fieldsOf(u)[field] as unknown[])[1], value, entity);
      const removed = await call(app, 'DELETE', `${path}/${id}`, { token });
      assertOk(removed);
      const [d] = (await rowOf(removed)).changes!;
      assert.deepEqual([d!.op, d!.label], ['delete', u!.label], entity);
    }

    const sent = await call(app, 'POST', '/api/admin/notifications', { token, body: { title: 'Audit notice', content: 'Hello', all: true } });
    assertOk(sent);
    const [n] = (await rowOf(sent)).changes!;
    assert.deepEqual([n!.entity, n!.op, n!.label], ['notification', 'create', 'Audit notice']);
  });

  test('an exported operation log carries the changes, parsed back the same', async () => {
    const res = await call(app, 'POST', '/api/admin/blacklists', { token, body: { ip: '203.0.113.90', remark: 'export' } });
    assertOk(res);
    const row = await rowOf(res);
    const task = assertOk(await call(app, 'POST', `/api/admin/logs/operation/export?trace_id=${res.body.trace_id}`, { token, body: {} }));
    let done: { status: string; download_url: string } | undefined;
    for (const until = Date.now() + 10_000; !done && Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
      const t = assertOk(await call(app, 'GET', `/api/admin/exports/${task.id}`, { token }));
      if (t.status === 'completed' || t.status === 'failed') done = t;
    }
    assert.equal(done?.status, 'completed');
    const file = await app.app.inject({ method: 'GET', url: done.download_url, headers: { authorization: `Bearer ${token}` } });
    const [header, line]: string[][] = parse(file.rawPayload.toString('utf8'), { bom: true });
    assert.deepEqual(JSON.parse(line![header!.indexOf('changes')]!), row.changes);
  });

  test('a refused write keeps no values; so does a write out of the caller’s reach', async () => {
    const target = await seedAdmin(app);
    const clerk = await signedInAdmin(app, { permissions: ['admin.list'] });
    const refused = await call(app, 'PUT', `/api/admin/admins/${target.id}`, { token: clerk.token, body: { nickname: 'Nope' } });
    assertError(refused, 403, 20001);
    assert.equal((await rowOf(refused)).changes, null);
    const missing = await call(app, 'PUT', '/api/admin/admins/999999999', { token, body: { nickname: 'Nope' } });
    assert.equal(missing.status, 404);
    assert.equal((await rowOf(missing)).changes, null);
  });
});

test('records that cannot be read cost the row its values, never the row or the request', async () => {
  const res = await call(app, 'PUT', '/api/admin/test/unreadable/1', { token, body: {} });
  assert.equal(res.status, 200);
  const row = await rowOf(res);
  assert.equal(row.status_code, 200);
  assert.equal(row.changes, null);
});

/** The policy's editable fields, as PUT takes them. */
function policyBody(p: Record<string, unknown>) {
  const { min_length, min_classes, reject_common, reject_username, history, max_age_days, lock_max_failures, lock_seconds } = p;
  return { min_length, min_classes, reject_common, reject_username, history, max_age_days, lock_max_failures, lock_seconds };
}
