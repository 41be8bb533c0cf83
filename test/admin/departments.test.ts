// Departments: the tree (shape, order, filters), create/read/update/delete, the tree rules
// (parent exists, no cycles, no delete with children or members), email validation,
// permissions and input validation.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.ts';
import { call, login, seedAdmin, signedInAdmin, type Reply } from '../helpers/http.ts';
import { assertError, assertOk } from '../helpers/assert.ts';
import type { DepartmentNode } from '../../src/admin/features/departments/departments.schema.ts';

const DISPLAY_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const UNKNOWN_ID = 987_654_321;
const KEYS = ['children', 'created_at', 'email', 'id', 'leader', 'name', 'name_i18n', 'parent_id', 'phone', 'sort', 'status', 'updated_at'];

type Dept = DepartmentNode;

let app: TestApp;
let token: string;

before(async () => {
  app = await startApp();
  token = await login(app);
});
after(() => app?.close());

let seq = 0;
const uniq = (p: string) => `${p} ${++seq}-${Date.now().toString(36)}`;

const tree = (query = '', t = token) => call(app, 'GET', `/api/admin/departments${query}`, { token: t });
const getDept = (id: number | string, t = token) => call(app, 'GET', `/api/admin/departments/${id}`, { token: t });
const postDept = (body: unknown, t = token) => call(app, 'POST', '/api/admin/departments', { token: t, body });
const putDept = (id: number | string, body: unknown, t = token) => call(app, 'PUT', `/api/admin/departments/${id}`, { token: t, body });
const deleteDept = (id: number | string, t = token) => call(app, 'DELETE', `/api/admin/departments/${id}`, { token: t });

async function create(fields: Record<string, unknown> = {}): Promise<Dept> {
  return assertOk(await postDept({ name: uniq('Dept'), ...fields }));
}

async function snapshot(): Promise<string> {
  return JSON.stringify(await app.platform.db.query('SELECT * FROM admin.departments ORDER BY id'));
}

function flatten(nodes: Dept[]): Dept[] {
  return nodes.flatMap((n) => [n, ...flatten(n.children)]);
}

function assertShape(n: Dept) {
  assert.deepEqual(Object.keys(n).sort(), KEYS, JSON.stringify(n));
  assert.match(n.created_at, DISPLAY_TIME);
  assert.match(n.updated_at, DISPLAY_TIME);
  for (const child of n.children) {
    assert.equal(child.parent_id, n.id);
    assertShape(child);
  }
}

/** Puts an administrator (seeded through the helper) into a department. */
async function member(departmentId: number) {
  const admin = await seedAdmin(app);
  await app.platform.db.query('UPDATE admin.admins SET department_id = $1 WHERE id = $2', [departmentId, admin.id]);
  return admin;
}

describe('GET /departments', () => {
  test('the seeded tree is the head office, in data.list', async () => {
    const data = assertOk(await tree());
    assert.deepEqual(Object.keys(data).sort(), ['list', 'total']);
    assert.equal(data.list.length, 1);
    const [head] = data.list as Dept[];
    assertShape(head!);
    assert.deepEqual({ ...head, created_at: '', updated_at: '' }, {
      id: 1, parent_id: 0, name: 'Head Office', name_i18n: { 'en-US': 'Head Office', 'zh-CN': '总部' }, leader: '', phone: '', email: '', status: 1, sort: 0, created_at: '', updated_at: '', children: [],
    });
    assert.equal(data.total, 1);
  });

  test('nests departments under their parents, siblings by sort then id', async () => {
    const b = await create({ parent_id: 1, sort: 2 });
    const a = await create({ parent_id: 1, sort: 1 });
    const c = await create({ parent_id: 1, sort: 2 });
    const team = await create({ parent_id: a.id });
    const root2 = await create({ sort: 5 });

    const data = assertOk(await tree());
    const list = data.list as Dept[];
    for (const n of list) assertShape(n);
    assert.deepEqual(list.map((d) => d.id), [1, root2.id]);
    assert.deepEqual(list[0]!.children.map((d) => d.id), [a.id, b.id, c.id]);
    assert.deepEqual(list[0]!.children[0]!.children.map((d) => d.id), [team.id]);
    const [row] = await app.platform.db.query<{ n: number }>('SELECT count(*)::int AS n FROM admin.departments');
    assert.equal(data.total, Number(row!.n));
    assert.equal(flatten(list).length, data.total);
  });

  test('filters by fuzzy name and status, keeping the ancestors of matches', async () => {
    const region = await create({ name: uniq('Region'), status: 0 });
    const office = await create({ name: uniq('Harbour_office'), parent_id: region.id });
    await create({ name: uniq('Unrelated'), parent_id: region.id });

    const byName = assertOk(await tree('?name=HARBOUR_'));
    assert.deepEqual(byName.list.map((d: Dept) => d.id), [region.id]);
    assert.deepEqual(byName.list[0].children.map((d: Dept) => d.id), [office.id]);
    assert.equal(byName.total, 2);
    // `_` matches itself only.
    assert.equal(assertOk(await tree('?name=Harbour%25')).total, 0);

    const disabled = assertOk(await tree('?status=0'));
    assert.deepEqual(flatten(disabled.list).map((d) => d.id), [region.id]);
    const enabledInDisabled = assertOk(await tree(`?status=1&name=${encodeURIComponent(office.name)}`));
    assert.deepEqual(flatten(enabledInDisabled.list).map((d) => d.id), [region.id, office.id]);

    assertError(await tree('?status=2'), 400, 30001);
  });

  test("'department.list' is enough to read the tree and a department", async () => {
    const { token: rt } = await signedInAdmin(app, { permissions: ['department.list'] });
    assertOk(await tree('', rt));
    assertOk(await getDept(1, rt));
  });
});

describe('POST /departments', () => {
  test('creates a department with defaults, and with every field', async () => {
    const name = uniq('Sales');
    const rec = assertOk(await postDept({ name }));
    assertShape(rec);
    assert.deepEqual({ ...rec, id: 0, created_at: '', updated_at: '' }, {
      id: 0, parent_id: 0, name, name_i18n: { 'en-US': name, 'zh-CN': null }, leader: '', phone: '', email: '', status: 1, sort: 0, created_at: '', updated_at: '', children: [],
    });
    assert.ok(Math.abs(Date.parse(rec.created_at.replace(' ', 'T') + 'Z') - Date.now()) < 60_000);

    const full = assertOk(await postDept({
      name: uniq('Support'), parent_id: rec.id, leader: 'Ada', phone: '+44 20 7946 0000', email: 'support@example.com', status: 0, sort: 9,
    }));
    assert.deepEqual(
      [full.parent_id, full.leader, full.phone, full.email, full.status, full.sort],
      [rec.id, 'Ada', '+44 20 7946 0000', 'support@example.com', 0, 9],
    );
    assert.deepEqual(assertOk(await getDept(rec.id)).children.map((d: Dept) => d.id), [full.id]);
  });

  test('the email must be an email address or empty', async () => {
    const before = await snapshot();
    for (const email of ['not-an-email', 'a@', '@example.com', 'a b@example.com', `${'x'.repeat(120)}@example.com`]) {
      const res = await postDept({ name: uniq('Bad mail'), email });
      assertError(res, 400, 30001);
      assert.match(res.body.message, /email/);
    }
    assert.equal(await snapshot(), before);
    assert.equal(assertOk(await postDept({ name: uniq('No mail'), email: '' })).email, '');
    assert.equal(assertOk(await postDept({ name: uniq('Mail'), email: 'team.lead+ops@example.co.uk' })).email, 'team.lead+ops@example.co.uk');
  });

  test('an unknown parent is 400 30001 and nothing is created', async () => {
    const before = await snapshot();
    const res = await postDept({ name: uniq('Orphan'), parent_id: UNKNOWN_ID });
    assertError(res, 400, 30001);
    assert.match(res.body.message, /parent_id .* does not exist/);
    assert.equal(await snapshot(), before);
  });

  test('refuses bad input with 400 30001 and creates nothing', async () => {
    const before = await snapshot();
    const ok = { name: uniq('Valid') };
    const bad: unknown[] = [
      {},
      { ...ok, name: '' },
      { ...ok, name: '  ' },
      { ...ok, name: 'n'.repeat(65) },
      { ...ok, name: ['Sales'] },
      { ...ok, name: 5 },
      { ...ok, status: 2 },
      { ...ok, status: '1' },
      { ...ok, status: [1] },
      { ...ok, parent_id: -1 },
      { ...ok, parent_id: '1' },
      { ...ok, parent_id: 1.5 },
      { ...ok, sort: '3' },
      { ...ok, leader: ['Ada'] },
      { ...ok, phone: 'p'.repeat(33) },
      { ...ok, email: ['a@example.com'] },
      { ...ok, email: null },
      { ...ok, unknown_field: 'x' },
      { ...ok, children: [] },
      [ok],
    ];
    for (const body of bad) assertError(await postDept(body), 400, 30001);
    assert.equal(await snapshot(), before);
  });

  test("needs 'department.create': 403 20001 without it", async () => {
    const { token: t } = await signedInAdmin(app, { permissions: ['department.list', 'department.update', 'department.delete'] });
    const before = await snapshot();
    assertError(await postDept({ name: uniq('No') }, t), 403, 20001);
    assert.equal(await snapshot(), before);
    const writer = await seedAdmin(app, { permissions: ['department.create'] });
    assertOk(await postDept({ name: uniq('Yes') }, await login(app, writer.username, writer.password)));
  });
});

describe('phone', () => {
  test('a phone that is not a phone number is a clear 400 in both languages, on create and update; real ones pass', async () => {
    for (const phone of ['not a phone', '1', 'call me maybe', '+1 (555) 0100 ext 12abc', '1234567890123456789012']) {
      const en = await call(app, 'POST', '/api/admin/departments', { token, body: { name: uniq('Phone'), phone } });
      assertError(en, 400, 30001);
      assert.match(en.body.message, /phone must be a phone number/);
      const zh = await call(app, 'POST', '/api/admin/departments', { token, body: { name: uniq('Phone'), phone }, headers: { 'accept-language': 'zh-CN' } });
      assertError(zh, 400, 30001);
      assert.match(zh.body.message, /电话必须是电话号码/);
    }
    const ok = await call(app, 'POST', '/api/admin/departments', { token, body: { name: uniq('Phone'), phone: '+86 (10) 6552-9988' } });
    const dept = assertOk(ok);
    for (const phone of ['020 7946 0000', '+1 555.010.0199 ext 12', '']) {
      assertOk(await call(app, 'PUT', `/api/admin/departments/${dept.id}`, { token, body: { phone } }));
    }
    assertError(await call(app, 'PUT', `/api/admin/departments/${dept.id}`, { token, body: { phone: 'not a phone' } }), 400, 30001);
    const after = assertOk(await call(app, 'GET', `/api/admin/departments/${dept.id}`, { token }));
    assert.equal(after.phone, '', 'the refused update changed nothing');
  });
});

describe('GET /departments/{id}', () => {
  test('returns the department with its subtree', async () => {
    const top = await create({ leader: 'Grace' });
    const child = await create({ parent_id: top.id });
    const grandchild = await create({ parent_id: child.id });
    const rec = assertOk(await getDept(top.id));
    assertShape(rec);
    assert.equal(rec.leader, 'Grace');
    assert.equal(rec.created_at, top.created_at);
    assert.deepEqual(rec.children.map((d: Dept) => d.id), [child.id]);
    assert.deepEqual(rec.children[0].children.map((d: Dept) => d.id), [grandchild.id]);
  });

  test('an unknown id is 404 30003; a bad id is 400 30001', async () => {
    assertError(await getDept(UNKNOWN_ID), 404, 30003);
    for (const id of ['abc', '1.5', '0', '-1']) assertError(await getDept(id), 400, 30001);
  });
});

describe('PUT /departments/{id}', () => {
  test('changes only the fields sent and refreshes updated_at', async () => {
    const dept = await create({ leader: 'Old', phone: '123', sort: 4 });
    await new Promise((r) => setTimeout(r, 1100));
    const rec = assertOk(await putDept(dept.id, { leader: 'New', email: 'new@example.com' }));
    assertShape(rec);
    assert.deepEqual({ ...rec, updated_at: '' }, { ...dept, leader: 'New', email: 'new@example.com', updated_at: '' });
    assert.ok(rec.updated_at > dept.updated_at);
    assert.deepEqual(assertOk(await getDept(dept.id)), rec);

    const all = assertOk(await putDept(dept.id, { name: 'Renamed', parent_id: 1, leader: '', phone: '', email: '', status: 0, sort: -1 }));
    assert.deepEqual([all.name, all.parent_id, all.leader, all.phone, all.email, all.status, all.sort], ['Renamed', 1, '', '', '', 0, -1]);
  });

  test('moves a subtree to another parent and to the root', async () => {
    const a = await create();
    const b = await create();
    const child = await create({ parent_id: a.id });
    const moved = assertOk(await putDept(a.id, { parent_id: b.id }));
    assert.equal(moved.parent_id, b.id);
    assert.deepEqual(moved.children.map((d: Dept) => d.id), [child.id]);
    const bTree = assertOk(await getDept(b.id));
    assert.deepEqual(bTree.children.map((d: Dept) => d.id), [a.id]);
    assert.equal(assertOk(await putDept(a.id, { parent_id: 0 })).parent_id, 0);
    assertOk(await putDept(child.id, { parent_id: a.id }));
  });

  test('refuses a cycle: the department itself or one of its descendants as parent (400 30001)', async () => {
    const top = await create();
    const mid = await create({ parent_id: top.id });
    const low = await create({ parent_id: mid.id });
    const before = await snapshot();

    const self = await putDept(top.id, { parent_id: top.id });
    assertError(self, 400, 30001);
    assert.match(self.body.message, /own parent/);
    for (const target of [mid.id, low.id]) {
      const res = await putDept(top.id, { parent_id: target, name: 'Should not change' });
      assertError(res, 400, 30001);
      assert.match(res.body.message, /descendant.*cycle/);
    }
    assertError(await putDept(mid.id, { parent_id: low.id }), 400, 30001);
    // The head office under one of its own descendants.
    const under = await create({ parent_id: 1 });
    assertError(await putDept(1, { parent_id: under.id }), 400, 30001);
    await app.platform.db.query('DELETE FROM admin.departments WHERE id = $1', [under.id]);
    assert.equal(await snapshot(), before);
  });

  test('two concurrent crossing moves cannot make a cycle: one of them is refused', async () => {
    const a = await create();
    const b = await create();
    const results = await Promise.all([putDept(a.id, { parent_id: b.id }), putDept(b.id, { parent_id: a.id })]);
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 400], JSON.stringify(results.map((r) => r.body)));
    const rows = await app.platform.db.query<{ id: number; parent_id: number }>(
      'SELECT id, parent_id FROM admin.departments WHERE id = ANY($1::bigint[])', [[a.id, b.id]],
    );
    assert.equal(rows.filter((r) => Number(r.parent_id) === 0).length, 1, JSON.stringify(rows));
  });

  test('a child added while its parent is deleted: never an orphan', async () => {
    const parent = await create();
    const [created, deleted] = await Promise.all([postDept({ name: uniq('Racing child'), parent_id: parent.id }), deleteDept(parent.id)]);
    const outcomes = [created.status, deleted.status];
    // Either the child came first (and the delete is refused), or the delete did (and the child is refused).
    assert.ok(JSON.stringify(outcomes) === '[200,400]' || JSON.stringify(outcomes) === '[400,200]', JSON.stringify([created.body, deleted.body]));
    const [orphans] = await app.platform.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM admin.departments d WHERE d.parent_id <> 0 AND NOT EXISTS (SELECT 1 FROM admin.departments p WHERE p.id = d.parent_id)',
    );
    assert.equal(Number(orphans!.n), 0);
  });

  test('an unknown parent is 400 30001; an unknown id is 404 30003', async () => {
    const dept = await create();
    const before = await snapshot();
    assertError(await putDept(dept.id, { parent_id: UNKNOWN_ID }), 400, 30001);
    assertError(await putDept(UNKNOWN_ID, { name: 'Ghost' }), 404, 30003);
    assert.equal(await snapshot(), before);
  });

  test('refuses bad input with 400 30001 and changes nothing', async () => {
    const dept = await create();
    const before = await snapshot();
    const bad: unknown[] = [
      {},
      { status: 2 },
      { name: '' },
      { name: ['x'] },
      { email: 'nope' },
      { email: ['a@example.com'] },
      { parent_id: '1' },
      { sort: [1] },
      { id: 3 },
      { name: 'Fine', extra: true },
      [{ name: 'x' }],
    ];
    for (const body of bad) assertError(await putDept(dept.id, body), 400, 30001);
    for (const id of ['abc', '1.5', '0']) assertError(await putDept(id, { name: 'x' }), 400, 30001);
    assert.equal(await snapshot(), before);
  });

  test("needs 'department.update': 403 20001 without it", async () => {
    const dept = await create();
    const { token: t } = await signedInAdmin(app, { permissions: ['department.list', 'department.create', 'department.delete'] });
    const before = await snapshot();
    assertError(await putDept(dept.id, { name: 'Nope' }, t), 403, 20001);
    assert.equal(await snapshot(), before);
  });
});

describe('DELETE /departments/{id}', () => {
  test('deletes an empty leaf', async () => {
    const dept = await create();
    assert.equal(assertOk(await deleteDept(dept.id)), null);
    assertError(await getDept(dept.id), 404, 30003);
    assert.ok(!flatten(assertOk(await tree()).list).some((d) => d.id === dept.id));
    assertError(await deleteDept(dept.id), 404, 30003);
  });

  test('a department with child departments is refused with 400 40002, naming it in the reader’s language', async () => {
    const parent = await create({ name_i18n: { 'zh-CN': '待删上级部门' } });
    const child = await create({ parent_id: parent.id });
    const before = await snapshot();
    const res = await deleteDept(parent.id);
    assertError(res, 400, 40002);
    assert.ok(res.body.message.includes(`department "${parent.name}" still has child departments`), res.body.message);
    const zh = await call(app, 'DELETE', `/api/admin/departments/${parent.id}`, { token, headers: { 'accept-language': 'zh-CN' } });
    assertError(zh, 400, 40002);
    assert.ok(zh.body.message.includes('部门 "待删上级部门" 仍有下级部门'), zh.body.message);
    assert.equal(await snapshot(), before);
    assertOk(await deleteDept(child.id));
    assertOk(await deleteDept(parent.id));
  });

  test('a department with administrators is refused with 400 40002 until they move', async () => {
    const dept = await create();
    const admin = await member(dept.id);
    const before = await snapshot();
    const res = await deleteDept(dept.id);
    assertError(res, 400, 40002);
    assert.ok(res.body.message.includes(`department "${dept.name}" still has 1 administrator(s)`), res.body.message);
    assert.equal(await snapshot(), before);

    // The head office holds the bootstrap administrator.
    assertError(await deleteDept(1), 400, 40002);

    await app.platform.db.query('UPDATE admin.admins SET department_id = 1 WHERE id = $1', [admin.id]);
    assertOk(await deleteDept(dept.id));
    assertError(await getDept(dept.id), 404, 30003);
  });

  test('an unknown id is 404 30003; a bad id is 400 30001', async () => {
    assertError(await deleteDept(UNKNOWN_ID), 404, 30003);
    for (const id of ['abc', '1.5', '0']) assertError(await deleteDept(id), 400, 30001);
  });

  test("needs 'department.delete': 403 20001 without it", async () => {
    const dept = await create();
    const { token: t } = await signedInAdmin(app, { permissions: ['department.list', 'department.create', 'department.update'] });
    assertError(await deleteDept(dept.id, t), 403, 20001);
    assertOk(await getDept(dept.id));
  });
});

describe('GET /info shows the department', () => {
  test("a renamed department shows in the member's profile", async () => {
    const dept = await create({ name: uniq('Profile dept') });
    const admin = await member(dept.id);
    const t = await login(app, admin.username, admin.password);
    assertOk(await putDept(dept.id, { name: 'Profile renamed' }));
    const info = assertOk(await call(app, 'GET', '/api/admin/info', { token: t }));
    assert.deepEqual(info.department, { id: dept.id, name: 'Profile renamed' });
  });
});

describe('OpenAPI', () => {
  test('documents the department routes and the recursive DepartmentNode schema', async () => {
    const res: Reply = await call(app, 'GET', '/api/admin/docs/openapi.json');
    assert.equal(res.status, 200);
    const paths = res.body.paths as Record<string, Record<string, unknown>>;
    assert.deepEqual(Object.keys(paths['/api/admin/departments']!).sort(), ['get', 'post']);
    assert.deepEqual(Object.keys(paths['/api/admin/departments/{id}']!).sort(), ['delete', 'get', 'put']);
    assert.match(JSON.stringify(res.body.components?.schemas ?? {}), /"leader"/);
  });
});

describe('names in both languages', () => {
  const zh = { 'accept-language': 'zh-CN' };

  test('the seeded head office reads in the reader’s language: the tree, one department and a member’s GET /info', async () => {
    const cn = (await call(app, 'GET', '/api/admin/departments/1', { token, headers: zh })).body.data;
    assert.deepEqual([cn.name, cn.name_i18n], ['总部', { 'en-US': 'Head Office', 'zh-CN': '总部' }]);
    assert.equal(assertOk(await getDept(1)).name, 'Head Office');
    const found = (await call(app, 'GET', `/api/admin/departments?name=${encodeURIComponent('总部')}`, { token, headers: zh })).body.data.list;
    assert.deepEqual(found.map((d: any) => d.id), [1]);
    const info = (await call(app, 'GET', '/api/admin/info', { token, headers: zh })).body.data;
    assert.deepEqual(info.department, { id: 1, name: '总部' });
    assert.deepEqual(info.roles.map((r: any) => r.name), ['超级管理员']);
  });

  test('a department is created and renamed per language', async () => {
    const made = assertOk(await postDept({ name: uniq('Warehouse'), name_i18n: { 'zh-CN': '仓库' } }));
    const renamed = (await call(app, 'PUT', `/api/admin/departments/${made.id}`, { token, headers: zh, body: { name: '北仓' } })).body.data;
    assert.deepEqual([renamed.name, renamed.name_i18n], ['北仓', { 'en-US': made.name, 'zh-CN': '北仓' }]);
    assert.equal(assertOk(await getDept(made.id)).name, made.name);
    assertError(await putDept(made.id, { name_i18n: { 'de-DE': 'Lager' } }), 400, 30001);
  });
});
