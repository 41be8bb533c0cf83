// Data scopes (issue 31, part 1): a role's scope decides which administrators, orders and
// payments its holders reach, in lists, counts, details and exports, and for every write: a row
// outside the scope answers 404 and is left as it was. Several roles give the union; a
// department moved under another changes `department_and_below` at the next request; imports
// create orders in the importer's department; a scoped administrator cannot hand out a wider scope.
// The rows that belong to an administrator only (log rows, sessions, uploads, notifications
// sent, export tasks, the dashboard's figures) follow their administrator's department.
//
// The company: Head Office (1) › Sales › Sales East, and Head Office › Support. An administrator
// of each scope, each with one role (seedAdmin), set through the API by the super administrator.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { startApp, type TestApp } from '../helpers/app.ts';
import { assertError, assertOk } from '../helpers/assert.ts';
import { call, login, seedAdmin, type SeededAdmin } from '../helpers/http.ts';

const ORDER_PERMISSIONS = ['order.list', 'order.view', 'order.create', 'order.update', 'order.delete', 'order.export', 'order.import', 'payment.list', 'payment.view'];
const ADMIN_PERMISSIONS = ['admin.list', 'admin.update', 'admin.delete', 'admin.reset_password', 'admin.export', 'role.list', 'role.update', 'role.create'];
const OTHER_PERMISSIONS = ['export.manage', 'log.login', 'log.operation', 'online.list', 'online.kick', 'attachment.view', 'attachment.upload', 'attachment.delete', 'notification.send', 'dashboard.view'];

let app: TestApp;
let root: string;
const dept: Record<'sales' | 'east' | 'support', number> = { sales: 0, east: 0, support: 0 };
type Person = SeededAdmin & { token: string };
const people = {} as Record<'salesClerk' | 'salesLead' | 'eastClerk' | 'supportAgent' | 'loner' | 'auditor', Person>;
/** Order ids by the administrator who created them. */
const ordersBy = new Map<string, number[]>();
const paymentsBy = new Map<string, number[]>();

const db = () => app.platform.db;
const ids = (rows: { id: number }[]) => rows.map((r) => r.id).sort((a, b) => a - b);
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const of = (...names: (keyof typeof people)[]) => sorted(names.flatMap((n) => ordersBy.get(n) ?? []));
/** The order the import test made (in Sales East). */
const imported = async () => (await db().query<{ id: number }>("SELECT id FROM admin.orders WHERE request_id = 'scope-import-1'")).map((r) => Number(r.id));
const paymentsOf = (...names: (keyof typeof people)[]) => sorted(names.flatMap((n) => paymentsBy.get(n) ?? []));

async function person(name: keyof typeof people, department: number, scope: string, departmentIds: number[] = []) {
  const seeded = await seedAdmin(app, { username: name.toLowerCase(), permissions: [...ORDER_PERMISSIONS, ...ADMIN_PERMISSIONS, ...OTHER_PERMISSIONS] });
  assertOk(await call(app, 'PUT', `/api/admin/admins/${seeded.id}`, { token: root, body: { department_id: department } }));
  assertOk(await call(app, 'PUT', `/api/admin/roles/${seeded.roleId}`, { token: root, body: { data_scope: scope, department_ids: departmentIds } }));
  people[name] = { ...seeded, token: await login(app, seeded.username, seeded.password) };
}

async function orderBy(name: keyof typeof people, paid: boolean) {
  const t = people[name].token;
  const created = assertOk(await call(app, 'POST', '/api/admin/orders', { token: t, body: { user_id: 9, amount: 5, products: [{ product_id: 1, product_name: 'Tea', price: 5, quantity: 1 }] } }));
  ordersBy.set(name, [...(ordersBy.get(name) ?? []), created.order.id]);
  if (paid) {
    const done = assertOk(await call(app, 'PUT', `/api/admin/orders/${created.order.id}`, { token: t, body: { status: 'paid' } }));
    paymentsBy.set(name, [...(paymentsBy.get(name) ?? []), done.payment.id]);
  }
}

before(async () => {
  app = await startApp();
  root = await login(app);
  assertOk(await call(app, 'POST', '/api/admin/payment-methods', { token: root, body: { name: 'Card', code: 'card', type: 'card', config: {}, sort: 1 } }));
  dept.sales = assertOk(await call(app, 'POST', '/api/admin/departments', { token: root, body: { name: 'Sales', parent_id: 1 } })).id;
  dept.east = assertOk(await call(app, 'POST', '/api/admin/departments', { token: root, body: { name: 'Sales East', parent_id: dept.sales } })).id;
  dept.support = assertOk(await call(app, 'POST', '/api/admin/departments', { token: root, body: { name: 'Support', parent_id: 1 } })).id;
  await person('salesClerk', dept.sales, 'department');
  await person('salesLead', dept.sales, 'department_and_below');
  await person('eastClerk', dept.east, 'department');
  await person('supportAgent', dept.support, 'self');
  await person('loner', dept.support, 'self');
  await person('auditor', 1, 'custom', [dept.support, dept.east]);
  for (const name of ['salesClerk', 'salesLead', 'eastClerk', 'supportAgent', 'loner'] as const) {
    await orderBy(name, true);
    await orderBy(name, false);
  }
});
after(() => app?.close());

describe('data scopes: orders and payments', () => {
  const listed = async (t: string, path = '/api/admin/orders?page_size=100') => {
    const data = assertOk(await call(app, 'GET', path, { token: t }));
    return { ids: ids(data.list), total: data.total as number };
  };

  test('each scope lists and counts exactly its rows; the super administrator every one', async () => {
    const expected: [keyof typeof people, number[]][] = [
      ['salesClerk', of('salesClerk', 'salesLead')],
      ['salesLead', of('salesClerk', 'salesLead', 'eastClerk')],
      ['eastClerk', of('eastClerk')],
      ['supportAgent', of('supportAgent')],
      ['auditor', of('supportAgent', 'loner', 'eastClerk')],
    ];
    for (const [name, want] of expected) {
      assert.deepEqual(await listed(people[name].token), { ids: want, total: want.length }, name);
    }
    const every = of('salesClerk', 'salesLead', 'eastClerk', 'supportAgent', 'loner');
    assert.deepEqual(await listed(root), { ids: every, total: every.length });
    // Payments follow their order's creator and department.
    assert.deepEqual((await listed(people.salesClerk.token, '/api/admin/payments?page_size=100')).ids, paymentsOf('salesClerk', 'salesLead'));
    assert.deepEqual((await listed(people.auditor.token, '/api/admin/payments?page_size=100')).ids, paymentsOf('supportAgent', 'loner', 'eastClerk'));
    // Filters still apply within the scope.
    assert.deepEqual((await listed(people.salesLead.token, '/api/admin/orders?status=paid&page_size=100')).total, 3);
  });

  test('details and writes outside the scope are 404 and change nothing; inside they work', async () => {
    const t = people.salesClerk.token;
    const theirs = ordersBy.get('eastClerk')![1]!;
    const mine = ordersBy.get('salesClerk')![1]!;
    const paymentOutside = paymentsBy.get('eastClerk')![0]!;
    assertError(await call(app, 'GET', `/api/admin/orders/${theirs}`, { token: t }), 404, 30003);
    assertError(await call(app, 'PUT', `/api/admin/orders/${theirs}`, { token: t, body: { status: 'cancelled' } }), 404, 30003);
    assertError(await call(app, 'DELETE', `/api/admin/orders/${theirs}`, { token: t }), 404, 30003);
    assertError(await call(app, 'GET', `/api/admin/payments/${paymentOutside}`, { token: t }), 404, 30003);
    const [row] = await db().query<{ status: string }>('SELECT status FROM admin.orders WHERE id = $1', [theirs]);
    assert.equal(row?.status, 'pending');
    // By order number too.
    const [their] = await db().query<{ order_no: string }>('SELECT order_no FROM admin.orders WHERE id = $1', [theirs]);
    assertError(await call(app, 'GET', `/api/admin/orders/0?order_no=${their!.order_no}`, { token: t }), 404, 30003);
    // A lead above reaches it.
    assert.equal(assertOk(await call(app, 'GET', `/api/admin/orders/${theirs}`, { token: people.salesLead.token })).order.id, theirs);
    assert.equal(assertOk(await call(app, 'GET', `/api/admin/orders/${mine}`, { token: t })).order.id, mine);
    assert.equal(assertOk(await call(app, 'GET', `/api/admin/payments/${paymentsBy.get('salesLead')![0]}`, { token: t })).id, paymentsBy.get('salesLead')![0]);
  });

  test('the export holds the rows of the scope only', async () => {
    const t = people.eastClerk.token;
    const task = assertOk(await call(app, 'POST', '/api/admin/orders/export?order_by=id:asc', { token: t, body: {} }));
    let done = task;
    for (let i = 0; i < 400 && done.status !== 'completed' && done.status !== 'failed'; i++) {
      await new Promise((r) => setTimeout(r, 25));
      done = assertOk(await call(app, 'GET', `/api/admin/orders/export/status/${task.id}`, { token: t }));
    }
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const file = await app.app.inject({ method: 'GET', url: done.download_url, headers: { authorization: `Bearer ${t}` } });
    const records: string[][] = parse(file.body, { bom: true });
    const numbers = records.slice(1).map((r) => r[0]!).sort();
    const want = await db().query<{ order_no: string }>('SELECT order_no FROM admin.orders WHERE id = ANY($1::bigint[]) ORDER BY order_no', [`{${of('eastClerk').join(',')}}`]);
    assert.deepEqual(numbers, want.map((w) => w.order_no));
  });

  test('an import creates its orders in the importer’s department', async () => {
    const boundary = '----scope';
    const body = 'request_id,user_id,amount,products\r\nscope-import-1,4,5,"[{""product_id"":1,""product_name"":""Tea"",""price"":""5"",""quantity"":1}]"\r\n';
    const payload = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="o.csv"\r\nContent-Type: text/csv\r\n\r\n${body}\r\n--${boundary}--\r\n`);
    const summary = assertOk(await call(app, 'POST', '/api/admin/orders/import', { token: people.eastClerk.token, payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }));
    assert.equal(summary.succeeded, 1, JSON.stringify(summary));
    const [row] = await db().query<{ created_by: number; department_id: number }>("SELECT created_by, department_id FROM admin.orders WHERE request_id = 'scope-import-1'");
    assert.deepEqual({ by: Number(row!.created_by), dept: Number(row!.department_id) }, { by: people.eastClerk.id, dept: dept.east });
    const east = await listed(people.eastClerk.token);
    assert.equal(east.total, of('eastClerk').length + 1);
    assert.equal((await listed(people.salesClerk.token)).total, of('salesClerk', 'salesLead').length);
  });
});

describe('data scopes: administrators', () => {
  test('the list, the detail and every write follow the scope (self: only oneself)', async () => {
    const listIds = async (t: string) => ids(assertOk(await call(app, 'GET', '/api/admin/admins?page_size=100', { token: t })).list);
    assert.deepEqual(await listIds(people.salesClerk.token), sorted([people.salesClerk.id, people.salesLead.id]));
    assert.deepEqual(await listIds(people.loner.token), [people.loner.id]);
    const t = people.salesClerk.token;
    const outside = people.eastClerk.id;
    assertError(await call(app, 'GET', `/api/admin/admins/${outside}`, { token: t }), 404, 30003);
    assertError(await call(app, 'PUT', `/api/admin/admins/${outside}`, { token: t, body: { nickname: 'Taken over' } }), 404, 30003);
    assertError(await call(app, 'PUT', `/api/admin/admins/${outside}/reset-password`, { token: t, body: { password: 'Another-pass-1' } }), 404, 30003);
    assertError(await call(app, 'DELETE', `/api/admin/admins/${outside}`, { token: t }), 404, 30003);
    const [row] = await db().query<{ nickname: string }>('SELECT nickname FROM admin.admins WHERE id = $1', [outside]);
    assert.equal(row?.nickname, `Nick ${people.eastClerk.username}`);
    // Inside: a colleague's nickname changes; a move out of the scope's departments is refused.
    assertOk(await call(app, 'PUT', `/api/admin/admins/${people.salesLead.id}`, { token: t, body: { nickname: 'Lead' } }));
    const moved = await call(app, 'PUT', `/api/admin/admins/${people.salesLead.id}`, { token: t, body: { department_id: dept.support } });
    assertError(moved, 400, 30001);
    assert.ok(moved.body.message.includes('department "Support" is outside your data scope'), moved.body.message);
  });

  test('each administrator shows their effective scope', async () => {
    const scopeOf = async (id: number) => assertOk(await call(app, 'GET', `/api/admin/admins/${id}`, { token: root })).data_scope;
    assert.deepEqual(await scopeOf(people.salesLead.id), { all: false, department_ids: sorted([dept.sales, dept.east]) });
    assert.deepEqual(await scopeOf(people.salesClerk.id), { all: false, department_ids: [dept.sales] });
    assert.deepEqual(await scopeOf(people.supportAgent.id), { all: false, department_ids: [] });
    const admin = assertOk(await call(app, 'GET', '/api/admin/admins?username=admin&page_size=100', { token: root })).list.find((a: { username: string }) => a.username === 'admin');
    assert.deepEqual(admin.data_scope, { all: true, department_ids: [] });
  });
});

describe('data scopes: what belongs to an administrator', () => {
  /** Polls `read` until `done` holds (the logs are written in the background), at most 5 s. */
  const until = async <T>(read: () => Promise<T>, done: (v: T) => boolean): Promise<T> => {
    let value = await read();
    for (let i = 0; i < 200 && !done(value); i++) {
      await new Promise((r) => setTimeout(r, 25));
      value = await read();
    }
    return value;
  };
  const sales = () => new Set([people.salesClerk.id, people.salesLead.id]);

  test('login and operation logs, and the dashboard, show the rows of the scope’s administrators only', async () => {
    const t = people.salesClerk.token;
    for (const log of ['login', 'operation']) {
      const rows = await until(
        async () => assertOk(await call(app, 'GET', `/api/admin/logs/${log}?page_size=100`, { token: t })).list as { admin_id: number | null }[],
        (list) => list.some((r) => r.admin_id === people.salesLead.id),
      );
      assert.ok(rows.length > 0, log);
      assert.deepEqual(rows.filter((r) => !sales().has(r.admin_id!)), [], `${log} log rows outside Sales`);
      const everyone = assertOk(await call(app, 'GET', `/api/admin/logs/${log}?page_size=100`, { token: root })).list as { admin_id: number | null }[];
      assert.ok(everyone.some((r) => r.admin_id === people.eastClerk.id), `${log}: the super administrator sees East`);
    }
    // The export holds the same rows (the scope is stored with the task).
    const task = assertOk(await call(app, 'POST', '/api/admin/logs/login/export', { token: t, body: {} }));
    let done = task;
    for (let i = 0; i < 400 && done.status !== 'completed' && done.status !== 'failed'; i++) {
      await new Promise((r) => setTimeout(r, 25));
      done = assertOk(await call(app, 'GET', `/api/admin/exports/${task.id}`, { token: t }));
    }
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const file = await app.app.inject({ method: 'GET', url: done.download_url, headers: { authorization: `Bearer ${t}` } });
    const records: string[][] = parse(file.body, { bom: true });
    const exported = records.slice(1).map((r) => Number(r[2]));
    assert.ok(exported.length > 0);
    assert.deepEqual(exported.filter((id) => !sales().has(id)), []);
    const stats = assertOk(await call(app, 'GET', '/api/admin/dashboard/stats', { token: t }));
    assert.equal(stats.admin_count, 2);
    assert.deepEqual(stats.recent_logins.filter((r: { admin_id: number }) => !sales().has(r.admin_id)), []);
    assert.deepEqual(stats.recent_operations.filter((r: { admin_id: number }) => !sales().has(r.admin_id)), []);
    assert.ok(assertOk(await call(app, 'GET', '/api/admin/dashboard/stats', { token: root })).admin_count >= 7);
  });

  test('online sessions: listed and kicked out within the scope only', async () => {
    const t = people.salesClerk.token;
    const online = assertOk(await call(app, 'GET', '/api/admin/online-admins?page_size=100', { token: t })).list as { admin_id: number; token_id: number }[];
    assert.deepEqual([...new Set(online.map((s) => s.admin_id))].sort((a, b) => a - b), sorted([...sales()]));
    const [east] = await db().query<{ id: number }>('SELECT id FROM admin.sessions WHERE admin_id = $1 AND ended_at IS NULL', [people.eastClerk.id]);
    assertError(await call(app, 'DELETE', `/api/admin/online-admins/${east!.id}`, { token: t }), 404, 30003);
    const batch = assertOk(await call(app, 'POST', '/api/admin/online-admins/batch-kick-out', { token: t, body: { token_ids: [Number(east!.id)] } }));
    assert.deepEqual(batch, { kicked: [], not_found: [Number(east!.id)] });
    assertOk(await call(app, 'GET', '/api/admin/orders?page_size=1', { token: people.eastClerk.token }));
  });

  test('uploads: listed, read and deleted within the scope only', async () => {
    const boundary = '----scopefile';
    const payload = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="type"\r\n\r\nimage\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="east.png"\r\nContent-Type: image/png\r\n\r\n`),
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(200, 7), Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const file = assertOk(await call(app, 'POST', '/api/admin/attachments/upload', { token: people.eastClerk.token, payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }));
    const t = people.salesClerk.token;
    const listed = assertOk(await call(app, 'GET', '/api/admin/attachments?page_size=100', { token: t })).list as { id: number }[];
    assert.ok(!listed.some((a) => a.id === file.id));
    assertError(await call(app, 'GET', `/api/admin/attachments/${file.id}`, { token: t }), 404, 30003);
    assertError(await call(app, 'GET', `/api/admin/attachments/${file.id}/download`, { token: t }), 404, 30003);
    assertError(await call(app, 'DELETE', `/api/admin/attachments/${file.id}`, { token: t }), 404, 30003);
    assert.equal(assertOk(await call(app, 'GET', `/api/admin/attachments/${file.id}`, { token: people.salesLead.token })).id, file.id);
  });

  test('notifications reach the administrators of the sender’s scope only', async () => {
    const t = people.salesClerk.token;
    const sent = assertOk(await call(app, 'POST', '/api/admin/notifications', { token: t, body: { title: 'Team meeting', content: 'At ten.', all: true } }));
    assert.equal(sent.recipients, 2);
    const got = await db().query<{ admin_id: number }>('SELECT admin_id FROM admin.notification_recipients WHERE notification_id = $1 ORDER BY admin_id', [sent.id]);
    assert.deepEqual(got.map((r) => Number(r.admin_id)), sorted([...sales()]));
    assertError(await call(app, 'POST', '/api/admin/notifications', { token: t, body: { title: 'Hi', content: 'East?', admin_ids: [people.eastClerk.id] } }), 400, 30001);
  });

  test('an export task of an administrator outside the scope does not exist for the caller', async () => {
    const task = assertOk(await call(app, 'POST', '/api/admin/orders/export', { token: people.eastClerk.token, body: {} }));
    assertError(await call(app, 'GET', `/api/admin/exports/${task.id}`, { token: people.salesClerk.token }), 404, 30003);
    assertError(await call(app, 'GET', `/api/admin/orders/export/status/${task.id}`, { token: people.salesClerk.token }), 404, 30003);
    assert.equal(assertOk(await call(app, 'GET', `/api/admin/exports/${task.id}`, { token: people.salesLead.token })).id, task.id);
  });
});

describe('data scopes: roles, union and moves', () => {
  test('a role carries its scope; unknown departments are refused; a scoped administrator cannot hand out more', async () => {
    const role = assertOk(await call(app, 'GET', `/api/admin/roles/${people.auditor.roleId}`, { token: root }));
    assert.deepEqual({ scope: role.data_scope, departments: role.department_ids }, { scope: 'custom', departments: sorted([dept.support, dept.east]) });
    assertError(await call(app, 'PUT', `/api/admin/roles/${people.auditor.roleId}`, { token: root, body: { department_ids: [987654] } }), 400, 30001);
    assertError(await call(app, 'PUT', `/api/admin/roles/${people.loner.roleId}`, { token: root, body: { data_scope: 'everything' } }), 400, 30001);
    const t = people.salesLead.token;
    const wider = await call(app, 'PUT', `/api/admin/roles/${people.loner.roleId}`, { token: t, body: { data_scope: 'all' } });
    assertError(wider, 403, 20003);
    assert.match(wider.body.message, /\(asked: all data\)$/);
    const widerZh = await call(app, 'PUT', `/api/admin/roles/${people.loner.roleId}`, { token: t, body: { data_scope: 'all' }, headers: { 'accept-language': 'zh-CN' } });
    assert.match(widerZh.body.message, /（请求的范围：全部数据）$/);
    assertError(await call(app, 'PUT', `/api/admin/roles/${people.loner.roleId}`, { token: t, body: { data_scope: 'custom', department_ids: [dept.support] } }), 403, 20003);
    assertOk(await call(app, 'PUT', `/api/admin/roles/${people.loner.roleId}`, { token: t, body: { data_scope: 'custom', department_ids: [dept.east] } }));
    const loner = assertOk(await call(app, 'GET', '/api/admin/orders?page_size=100', { token: people.loner.token }));
    assert.deepEqual(ids(loner.list), sorted([...of('loner', 'eastClerk'), ...(await imported())]));
    const [after] = await db().query<{ data_scope: string }>('SELECT data_scope FROM admin.roles WHERE id = $1', [people.loner.roleId]);
    assert.equal(after?.data_scope, 'custom');
  });

  test('two roles give the union of their scopes', async () => {
    const second = assertOk(await call(app, 'POST', '/api/admin/roles', { token: root, body: { name: 'Support desk', slug: 'support_desk', data_scope: 'custom', department_ids: [dept.support] } }));
    const own = await db().query<{ role_id: number }>('SELECT role_id FROM admin.admin_roles WHERE admin_id = $1', [people.eastClerk.id]);
    assertOk(await call(app, 'PUT', `/api/admin/admins/${people.eastClerk.id}`, { token: root, body: { role_ids: [...own.map((r) => Number(r.role_id)), second.id] } }));
    const list = assertOk(await call(app, 'GET', '/api/admin/orders?page_size=100', { token: people.eastClerk.token }));
    assert.deepEqual(ids(list.list), sorted([...of('eastClerk', 'supportAgent', 'loner'), ...(await imported())]));
  });

  test('a department moved under another changes `department_and_below` at the next request', async () => {
    const before = assertOk(await call(app, 'GET', '/api/admin/orders?page_size=100', { token: people.salesLead.token }));
    assert.ok(of('eastClerk').every((id) => ids(before.list).includes(id)));
    assertOk(await call(app, 'PUT', `/api/admin/departments/${dept.east}`, { token: root, body: { parent_id: dept.support } }));
    const moved = assertOk(await call(app, 'GET', '/api/admin/orders?page_size=100', { token: people.salesLead.token }));
    assert.deepEqual(ids(moved.list), of('salesClerk', 'salesLead'));
    assertError(await call(app, 'GET', `/api/admin/orders/${ordersBy.get('eastClerk')![0]}`, { token: people.salesLead.token }), 404, 30003);
  });
});
