// Roles: listing, creation, detail, update (atomic replacement of the permission and menu
// sets), deletion, the super-administrator role's protections, and grants that change on the
// holders' very next request (on every instance).
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { closeAll, onPostgres, startApp, startWithSibling, type TestApp } from '../helpers/app.ts';
import { call, login, seedAdmin, signedInAdmin, type Reply } from '../helpers/http.ts';
import { assertError, assertOk } from '../helpers/assert.ts';

const DISPLAY_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const UNKNOWN_ID = 987_654_321;
const ROLE_FIELDS = ['created_at', 'data_scope', 'department_ids', 'description', 'description_i18n', 'id', 'is_system', 'menu_ids', 'name', 'name_i18n', 'permission_ids', 'require_authenticator', 'slug', 'sort', 'status', 'updated_at'];

let app: TestApp;
let superToken: string;
let tag = 0;
const unique = (prefix: string) => `${prefix}_${Date.now().toString(36)}_${++tag}`;

before(async () => {
  app = await startApp();
  superToken = await login(app);
});
after(() => app?.close());

const req = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown, token = superToken): Promise<Reply> =>
  call(app, method, `/api/admin${url}`, { token, ...(body !== undefined ? { body } : {}) });

async function permissionIds(...slugs: string[]): Promise<number[]> {
  const rows = await app.platform.db.query<{ id: number; slug: string }>('SELECT id, slug FROM admin.permissions WHERE slug = ANY($1::text[])', [slugs]);
  assert.equal(rows.length, slugs.length, `permissions ${slugs.join(', ')} exist`);
  return slugs.map((s) => Number(rows.find((r) => r.slug === s)!.id));
}

async function menuIds(...slugs: string[]): Promise<number[]> {
  const rows = await app.platform.db.query<{ id: number; slug: string }>('SELECT id, slug FROM admin.menus WHERE slug = ANY($1::text[])', [slugs]);
  assert.equal(rows.length, slugs.length);
  return slugs.map((s) => Number(rows.find((r) => r.slug === s)!.id));
}

async function roleCount(): Promise<number> {
  const [row] = await app.platform.db.query<{ n: number }>('SELECT count(*)::int AS n FROM admin.roles');
  return row!.n;
}

async function createRole(body: Record<string, unknown> = {}) {
  const res = await req('POST', '/roles', { name: 'Some role', slug: unique('role'), ...body });
  return assertOk(res);
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

describe('POST /roles', () => {
  test('creates a role with its permissions and menus', async () => {
    const perms = await permissionIds('role.list', 'permission.list');
    const menus = await menuIds('system', 'role');
    const slug = unique('editor');
    const before = Date.now();
    const data = await createRole({ name: 'Editor', slug, description: 'edits things', permission_ids: perms, menu_ids: menus, status: 1, sort: 5 });
    assert.deepEqual(Object.keys(data).sort(), ROLE_FIELDS);
    assert.ok(Number.isInteger(data.id) && data.id > 1);
    assert.equal(data.name, 'Editor');
    assert.equal(data.slug, slug);
    assert.equal(data.description, 'edits things');
    assert.equal(data.status, 1);
    assert.equal(data.sort, 5);
    assert.equal(data.is_system, false);
    assert.deepEqual(data.permission_ids, sorted(perms));
    assert.deepEqual(data.menu_ids, sorted(menus));
    assert.match(data.created_at, DISPLAY_TIME);
    assert.match(data.updated_at, DISPLAY_TIME);
    assert.ok(Math.abs(Date.parse(data.created_at.replace(' ', 'T') + 'Z') - before) < 60_000);

    const got = assertOk(await req('GET', `/roles/${data.id}`));
    assert.deepEqual(got, data);
  });

  test('defaults: enabled, sort 0, empty description and sets', async () => {
    const slug = unique('plain');
    const data = await createRole({ name: 'Plain', slug });
    assert.equal(data.status, 1);
    assert.equal(data.sort, 0);
    assert.equal(data.description, '');
    assert.deepEqual(data.permission_ids, []);
    assert.deepEqual(data.menu_ids, []);
  });

  test('a duplicate slug is 400 30002 and creates nothing', async () => {
    const slug = unique('dup');
    await createRole({ slug });
    const n = await roleCount();
    assertError(await req('POST', '/roles', { name: 'Again', slug }), 400, 30002);
    assertError(await req('POST', '/roles', { name: 'Another super', slug: 'super_admin' }), 400, 30002);
    assert.equal(await roleCount(), n);
  });

  test('unknown permission or menu ids are 400 30001 naming them, and nothing is created', async () => {
    const [known] = await permissionIds('role.list');
    const n = await roleCount();
    const res = await req('POST', '/roles', { name: 'Bad', slug: unique('bad'), permission_ids: [known, UNKNOWN_ID, UNKNOWN_ID + 1] });
    assertError(res, 400, 30001);
    assert.match(res.body.message, new RegExp(`permission_ids.*${UNKNOWN_ID}, ${UNKNOWN_ID + 1}`));
    assert.doesNotMatch(res.body.message, new RegExp(`\\b${known}\\b,`));
    const menus = await req('POST', '/roles', { name: 'Bad', slug: unique('bad'), menu_ids: [UNKNOWN_ID] });
    assertError(menus, 400, 30001);
    assert.match(menus.body.message, new RegExp(`menu_ids.*${UNKNOWN_ID}`));
    assert.equal(await roleCount(), n);
  });

  test('refuses bad bodies with 400 30001 and creates nothing', async () => {
    const n = await roleCount();
    const slug = unique('x');
    for (const body of [
      {},
      { name: 'No slug' },
      { slug },
      { name: '', slug },
      { name: '   ', slug },
      { name: ['Array'], slug },
      { name: 'x', slug: ['array'] },
      { name: 'x', slug: 'Upper_Case' },
      { name: 'x', slug: 'has space' },
      { name: 'x', slug: 'a'.repeat(65) },
      { name: 'x', slug, status: 2 },
      { name: 'x', slug, status: '1' },
      { name: 'x', slug, status: [1] },
      { name: 'x', slug, sort: 1.5 },
      { name: 'x', slug, sort: '3' },
      { name: 'x', slug, permission_ids: 5 },
      { name: 'x', slug, permission_ids: ['5'] },
      { name: 'x', slug, permission_ids: [0] },
      { name: 'x', slug, permission_ids: [1, 1] },
      { name: 'x', slug, menu_ids: [1.5] },
      { name: 'x', slug, menu_ids: null },
      { name: 'x', slug, description: 'd'.repeat(256) },
      { name: 'x', slug, is_system: true },
      { name: 'x', slug, unknown_field: 1 },
    ]) {
      assertError(await req('POST', '/roles', body), 400, 30001);
    }
    assertError(await call(app, 'POST', '/api/admin/roles', { token: superToken, payload: '{"name":', headers: { 'content-type': 'application/json' } }), 400, 30004);
    assert.equal(await roleCount(), n);
  });
});

describe('GET /roles', () => {
  test('lists roles with paging defaults, newest first, with their sets', async () => {
    const created = await createRole({ permission_ids: await permissionIds('role.list') });
    const res = assertOk(await req('GET', '/roles'));
    assert.equal(res.page, 1);
    assert.equal(res.page_size, 10);
    assert.equal(res.total, await roleCount());
    assert.ok(res.list.length <= 10);
    const ids = res.list.map((r: any) => r.id);
    assert.deepEqual(ids, [...ids].sort((a: number, b: number) => b - a), 'id:desc by default');
    const mine = res.list.find((r: any) => r.id === created.id);
    assert.deepEqual(mine, created);
    for (const r of res.list) assert.deepEqual(Object.keys(r).sort(), ROLE_FIELDS);
  });

  test('the super-administrator role is listed as a system role', async () => {
    const res = assertOk(await req('GET', '/roles?name=Super%20Admin&page_size=100'));
    const superRole = res.list.find((r: any) => r.slug === 'super_admin');
    assert.ok(superRole);
    assert.equal(superRole.is_system, true);
  });

  test('pages, filters by fuzzy name and status, and orders', async () => {
    const word = unique('Zebra');
    const a = await createRole({ name: `${word} alpha`, sort: 3 });
    const b = await createRole({ name: `${word} beta`, sort: 1, status: 0 });
    const c = await createRole({ name: `xx ${word.toLowerCase()} gamma`, sort: 2 });

    const all = assertOk(await req('GET', `/roles?name=${word.toUpperCase()}&page_size=100`));
    assert.equal(all.total, 3);
    assert.deepEqual(all.list.map((r: any) => r.id), [c.id, b.id, a.id]);

    const enabled = assertOk(await req('GET', `/roles?name=${word}&status=1`));
    assert.deepEqual(enabled.list.map((r: any) => r.id), [c.id, a.id]);
    const disabled = assertOk(await req('GET', `/roles?name=${word}&status=0`));
    assert.deepEqual(disabled.list.map((r: any) => r.id), [b.id]);

    const bySort = assertOk(await req('GET', `/roles?name=${word}&order_by=sort:asc`));
    assert.deepEqual(bySort.list.map((r: any) => r.id), [b.id, c.id, a.id]);
    const byName = assertOk(await req('GET', `/roles?name=${word}&order_by=name:desc`));
    assert.deepEqual(byName.list.map((r: any) => r.id), [c.id, b.id, a.id]);

    const page1 = assertOk(await req('GET', `/roles?name=${word}&page_size=2&order_by=id:asc`));
    const page2 = assertOk(await req('GET', `/roles?name=${word}&page_size=2&page=2&order_by=id:asc`));
    assert.equal(page1.total, 3);
    assert.equal(page2.total, 3);
    assert.deepEqual([...page1.list, ...page2.list].map((r: any) => r.id), [a.id, b.id, c.id]);

    // LIKE wildcards in the filter match themselves.
    assert.equal(assertOk(await req('GET', '/roles?name=%25%25_')).total, 0);
  });

  test('refuses bad queries with 400 30001', async () => {
    for (const q of ['page_size=0', 'page_size=101', 'page=0', 'page=x', 'order_by=password:asc', 'order_by=id', 'order_by=id:up', 'status=2', 'status=x', 'status=-1']) {
      assertError(await req('GET', `/roles?${q}`), 400, 30001);
    }
    assertOk(await req('GET', '/roles?page_size=100&order_by=updated_at:asc'));
  });
});

describe('GET /roles/{id}', () => {
  test('an unknown id is 404 30003; a malformed one is 400 30001', async () => {
    assertError(await req('GET', `/roles/${UNKNOWN_ID}`), 404, 30003);
    for (const id of ['abc', '1.5', '0', '-1']) assertError(await req('GET', `/roles/${id}`), 400, 30001);
  });
});

describe('PUT /roles/{id}', () => {
  test('updates the given fields and leaves the others', async () => {
    const role = await createRole({ name: 'Before', description: 'kept', sort: 4, permission_ids: await permissionIds('role.list') });
    const slug = unique('after');
    const res = assertOk(await req('PUT', `/roles/${role.id}`, { name: 'After', slug }));
    assert.equal(res.name, 'After');
    assert.equal(res.slug, slug);
    assert.equal(res.description, 'kept');
    assert.equal(res.sort, 4);
    assert.deepEqual(res.permission_ids, role.permission_ids);
    assert.deepEqual(assertOk(await req('GET', `/roles/${role.id}`)), res);

    const other = assertOk(await req('PUT', `/roles/${role.id}`, { description: '', sort: -2, status: 0 }));
    assert.equal(other.name, 'After');
    assert.equal(other.description, '');
    assert.equal(other.sort, -2);
    assert.equal(other.status, 0);
  });

  test('permission_ids and menu_ids replace the sets; an empty array clears', async () => {
    const role = await createRole({ permission_ids: await permissionIds('role.list', 'role.create'), menu_ids: await menuIds('system') });
    const next = await permissionIds('permission.list', 'role.create');
    const res = assertOk(await req('PUT', `/roles/${role.id}`, { permission_ids: next }));
    assert.deepEqual(res.permission_ids, sorted(next));
    assert.deepEqual(res.menu_ids, role.menu_ids, 'menus untouched when absent');
    const cleared = assertOk(await req('PUT', `/roles/${role.id}`, { menu_ids: [] }));
    assert.deepEqual(cleared.menu_ids, []);
    assert.deepEqual(cleared.permission_ids, sorted(next));
    const rows = await app.platform.db.query<{ permission_id: number }>('SELECT permission_id FROM admin.role_permissions WHERE role_id = $1 ORDER BY 1', [role.id]);
    assert.deepEqual(rows.map((r) => Number(r.permission_id)), sorted(next));
  });

  test('a failing update (one unknown id) changes nothing: name and both sets stay', async () => {
    const perms = await permissionIds('role.list', 'permission.list');
    const menus = await menuIds('role');
    const role = await createRole({ name: 'Intact', permission_ids: perms, menu_ids: menus });
    const [other] = await permissionIds('role.update');
    const [otherMenu] = await menuIds('permission');
    const res = await req('PUT', `/roles/${role.id}`, { name: 'Changed', menu_ids: [otherMenu], permission_ids: [other, UNKNOWN_ID] });
    assertError(res, 400, 30001);
    assert.match(res.body.message, new RegExp(String(UNKNOWN_ID)));
    assert.deepEqual(assertOk(await req('GET', `/roles/${role.id}`)), role);

    assertError(await req('PUT', `/roles/${role.id}`, { permission_ids: [other], menu_ids: [UNKNOWN_ID] }), 400, 30001);
    assert.deepEqual(assertOk(await req('GET', `/roles/${role.id}`)), role);
  });

  test('a duplicate slug is 400 30002 and changes nothing (the sets written before it are undone)', async () => {
    const a = await createRole();
    const b = await createRole({ permission_ids: await permissionIds('role.list'), menu_ids: await menuIds('role') });
    assertError(await req('PUT', `/roles/${b.id}`, { slug: a.slug, name: 'Renamed' }), 400, 30002);
    assertError(await req('PUT', `/roles/${b.id}`, { slug: a.slug, permission_ids: await permissionIds('role.delete'), menu_ids: [] }), 400, 30002);
    assertError(await req('PUT', `/roles/${b.id}`, { slug: 'super_admin' }), 400, 30002);
    assert.deepEqual(assertOk(await req('GET', `/roles/${b.id}`)), b);
  });

  test('an unknown id is 404 30003', async () => {
    assertError(await req('PUT', `/roles/${UNKNOWN_ID}`, { name: 'x' }), 404, 30003);
  });

  test('refuses bad bodies with 400 30001 and changes nothing', async () => {
    const role = await createRole({ permission_ids: await permissionIds('role.list') });
    for (const body of [
      { name: '' },
      { name: 5 },
      { slug: 'Bad Slug' },
      { status: 3 },
      { status: '0' },
      { sort: 'x' },
      { permission_ids: 'all' },
      { permission_ids: [[1]] },
      { permission_ids: [-1] },
      { menu_ids: { a: 1 } },
      { name: ['a', 'b'] },
      { id: 99 },
      { name: 'ok', created_at: '2020-01-01 00:00:00' },
    ]) {
      assertError(await req('PUT', `/roles/${role.id}`, body), 400, 30001);
    }
    assertError(await req('PUT', '/roles/abc', { name: 'x' }), 400, 30001);
    assert.deepEqual(assertOk(await req('GET', `/roles/${role.id}`)), role);
  });
});

describe('DELETE /roles/{id}', () => {
  test('deletes a role nobody holds, with its permission and menu links', async () => {
    const role = await createRole({ permission_ids: await permissionIds('role.list'), menu_ids: await menuIds('role') });
    const res = assertOk(await req('DELETE', `/roles/${role.id}`));
    assert.deepEqual(res, { id: role.id });
    assertError(await req('GET', `/roles/${role.id}`), 404, 30003);
    assertError(await req('DELETE', `/roles/${role.id}`), 404, 30003);
    const links = await app.platform.db.query<{ n: number }>(
      'SELECT (SELECT count(*) FROM admin.role_permissions WHERE role_id = $1) + (SELECT count(*) FROM admin.role_menus WHERE role_id = $1) AS n',
      [role.id],
    );
    assert.equal(Number(links[0]!.n), 0);
  });

  test('is refused with 400 40002 while administrators hold the role', async () => {
    const holder = await seedAdmin(app, { permissions: ['role.list'] });
    const res = await req('DELETE', `/roles/${holder.roleId}`);
    assertError(res, 400, 40002);
    assert.match(res.body.message, /held by 1 administrator/);
    assertOk(await req('GET', `/roles/${holder.roleId}`));
    const token = await login(app, holder.username, holder.password);
    assertOk(await req('GET', '/roles', undefined, token));

    await app.platform.db.query('DELETE FROM admin.admin_roles WHERE role_id = $1', [holder.roleId]);
    assertOk(await req('DELETE', `/roles/${holder.roleId}`));
  });

  test('an unknown id is 404 30003; a malformed one 400 30001', async () => {
    assertError(await req('DELETE', `/roles/${UNKNOWN_ID}`), 404, 30003);
    assertError(await req('DELETE', '/roles/1e3x'), 400, 30001);
  });
});

describe('the super-administrator role', () => {
  const superRole = async () => {
    const [row] = await app.platform.db.query<{ id: number }>("SELECT id FROM admin.roles WHERE slug = 'super_admin'");
    return Number(row!.id);
  };

  test('cannot be deleted, disabled or have its slug changed (403 20003)', async () => {
    const id = await superRole();
    const before = assertOk(await req('GET', `/roles/${id}`));
    assert.equal(before.is_system, true);
    assertError(await req('DELETE', `/roles/${id}`), 403, 20003);
    assertError(await req('PUT', `/roles/${id}`, { status: 0 }), 403, 20003);
    assertError(await req('PUT', `/roles/${id}`, { slug: 'root' }), 403, 20003);
    assertError(await req('PUT', `/roles/${id}`, { slug: 'root', name: 'Root' }), 403, 20003);
    assert.deepEqual(assertOk(await req('GET', `/roles/${id}`)), before);
    assertOk(await req('GET', '/roles', undefined, superToken));
  });

  test('is not editable at all: renaming, describing, emptying or re-sorting it is refused (403 20003) in both languages', async () => {
    const id = await superRole();
    const before = assertOk(await req('GET', `/roles/${id}`));
    const bodies = [
      { name: 'Root administrators' }, { description: '' }, { permission_ids: [] }, { menu_ids: [] }, { sort: 9 },
      { name: 'Super Administrator', slug: 'super_admin', status: 1 },
    ];
    for (const body of bodies) {
      const res = await req('PUT', `/roles/${id}`, body);
      assertError(res, 403, 20003);
      assert.match(res.body.message, /the system role super_admin cannot be changed/);
    }
    const zh = await call(app, 'PUT', `/api/admin/roles/${id}`, { token: superToken, body: { name: 'x' }, headers: { 'accept-language': 'zh-CN' } });
    assertError(zh, 403, 20003);
    assert.match(zh.body.message, /系统角色 super_admin 不能修改/);
    // Not even by someone holding role.update who is not a super administrator.
    const { token } = await signedInAdmin(app, { permissions: ['role.update', 'role.list'] });
    assertError(await req('PUT', `/roles/${id}`, { name: 'Mine now', permission_ids: [] }, token), 403, 20003);
    assert.deepEqual(assertOk(await req('GET', `/roles/${id}`)), before);
  });
});

describe('nobody grants what they do not hold (except a super administrator)', () => {
  const allPermissionIds = async () => (await app.platform.db.query<{ id: number }>('SELECT id FROM admin.permissions')).map((r) => Number(r.id));

  test('an administrator holding role.update cannot give their own role every permission (403 20003), in both languages', async () => {
    const { token, ...editor } = await signedInAdmin(app, { permissions: ['role.update', 'role.list'] });
    const before = assertOk(await req('GET', `/roles/${editor.roleId}`));
    const res = await req('PUT', `/roles/${editor.roleId}`, { permission_ids: await allPermissionIds() }, token);
    assertError(res, 403, 20003);
    assert.match(res.body.message, /you can grant only permissions you hold yourself; you do not hold .*admin\.create/);
    assert.doesNotMatch(res.body.message, /role\.update|role\.list/, 'what they hold is not named');
    const zh = await call(app, 'PUT', `/api/admin/roles/${editor.roleId}`, {
      token, body: { permission_ids: await permissionIds('role.update', 'admin.delete') }, headers: { 'accept-language': 'zh-CN' },
    });
    assertError(zh, 403, 20003);
    assert.match(zh.body.message, /只能授予你自己拥有的权限；你没有 admin\.delete/);
    assert.deepEqual(assertOk(await req('GET', `/roles/${editor.roleId}`)), before);
    assert.deepEqual(assertOk(await req('GET', '/info', undefined, token)).permissions, ['role.list', 'role.update']);
    // Nor another role, nor a new one.
    const other = await createRole();
    assertError(await req('PUT', `/roles/${other.id}`, { permission_ids: await permissionIds('admin.delete') }, token), 403, 20003);
    const { token: creator } = await signedInAdmin(app, { permissions: ['role.create', 'role.list'] });
    const n = await roleCount();
    assertError(await req('POST', '/roles', { name: 'Escalate', slug: unique('esc'), permission_ids: await permissionIds('admin.delete') }, creator), 403, 20003);
    assert.equal(await roleCount(), n);
  });

  test('what they hold can be granted; what a role grants already may stay; anything may be removed', async () => {
    const { token } = await signedInAdmin(app, { permissions: ['role.update', 'role.create', 'role.list', 'order.list'] });
    const created = assertOk(await req('POST', '/roles', { name: 'Clerks', slug: unique('clerk'), permission_ids: await permissionIds('order.list') }, token));
    assert.deepEqual(created.permission_ids, await permissionIds('order.list'));
    // A role that grants admin.delete already (set by a super administrator) keeps it through an edit.
    const other = await createRole({ permission_ids: await permissionIds('admin.delete') });
    const kept = assertOk(await req('PUT', `/roles/${other.id}`, { name: 'Kept', permission_ids: await permissionIds('admin.delete', 'order.list') }, token));
    assert.deepEqual(sorted(kept.permission_ids), sorted(await permissionIds('admin.delete', 'order.list')));
    assert.deepEqual(assertOk(await req('PUT', `/roles/${other.id}`, { permission_ids: [] }, token)).permission_ids, []);
    // Once removed, it cannot come back through this caller.
    assertError(await req('PUT', `/roles/${other.id}`, { permission_ids: await permissionIds('admin.delete') }, token), 403, 20003);
  });

  test('menus: only those the caller sees (their menus and the directories above them) can be granted', async () => {
    const { token, ...editor } = await signedInAdmin(app, { permissions: ['role.update', 'role.list', 'role.create'], menus: ['role'] });
    const target = await createRole();
    const res = await req('PUT', `/roles/${target.id}`, { menu_ids: await menuIds('admin') }, token);
    assertError(res, 403, 20003);
    assert.match(res.body.message, /you can grant only menus you see yourself; you do not see admin/);
    assertError(await req('POST', '/roles', { name: 'M', slug: unique('m'), menu_ids: await menuIds('dashboard') }, token), 403, 20003);
    assertError(await req('PUT', `/roles/${editor.roleId}`, { menu_ids: await menuIds('role', 'admin') }, token), 403, 20003);
    const granted = assertOk(await req('PUT', `/roles/${target.id}`, { menu_ids: await menuIds('system', 'role') }, token));
    assert.deepEqual(sorted(granted.menu_ids), sorted(await menuIds('system', 'role')));
  });

  test('a super administrator grants anything', async () => {
    const target = await createRole();
    const all = await allPermissionIds();
    assert.equal(assertOk(await req('PUT', `/roles/${target.id}`, { permission_ids: all })).permission_ids.length, all.length);
  });
});

describe('administration cannot be lost through a role change', () => {
  const permsOf = async (roleId: number) => assertOk(await req('GET', `/roles/${roleId}`)).permission_ids as number[];

  test('a change to the caller’s own role that would take their admin.update away is refused (400 40003) and rolled back', async () => {
    const { token, ...editor } = await signedInAdmin(app, { permissions: ['role.update', 'role.list', 'admin.update'] });
    const before = await permsOf(editor.roleId);
    for (const body of [{ permission_ids: await permissionIds('role.update', 'role.list') }, { status: 0 }, { permission_ids: [], name: 'Emptied' }]) {
      const res = await req('PUT', `/roles/${editor.roleId}`, body, token);
      assertError(res, 400, 40003);
      assert.match(res.body.message, /^Update failed: this would remove your own permission to administer administrators \(admin\.update\)$/);
    }
    const role = assertOk(await req('GET', `/roles/${editor.roleId}`));
    assert.deepEqual(role.permission_ids, before, 'the set is unchanged');
    assert.equal(role.status, 1);
    assert.notEqual(role.name, 'Emptied');
    assert.ok(assertOk(await req('GET', '/info', undefined, token)).permissions.includes('admin.update'));
    // A harmless change of the same role goes through.
    assert.equal(assertOk(await req('PUT', `/roles/${editor.roleId}`, { name: 'Editors' }, token)).name, 'Editors');

    // With admin.update also granted through a second role, the first may lose it.
    const [second] = await app.platform.db.query<{ id: number }>(`INSERT INTO admin.roles (name, slug) VALUES ('Second', $1) RETURNING id`, [unique('second')]);
    await app.platform.db.query(`INSERT INTO admin.role_permissions (role_id, permission_id) SELECT $1, id FROM admin.permissions WHERE slug = 'admin.update'`, [second!.id]);
    await app.platform.db.query('INSERT INTO admin.admin_roles (admin_id, role_id) VALUES ($1, $2)', [editor.id, second!.id]);
    assertOk(await req('PUT', `/roles/${editor.roleId}`, { permission_ids: await permissionIds('role.update', 'role.list') }, token));
    // Someone else may take it from them.
    assertOk(await req('PUT', `/roles/${second!.id}`, { status: 0 }));
  });

  test('a caller without admin.update has nothing to lose: their own role can change', async () => {
    const { token, ...editor } = await signedInAdmin(app, { permissions: ['role.update', 'role.list'] });
    assertOk(await req('PUT', `/roles/${editor.roleId}`, { permission_ids: await permissionIds('role.update') }, token));
    assertOk(await req('PUT', `/roles/${editor.roleId}`, { status: 0 }, token));
  });

});

describe('grants follow role changes on the next request', () => {
  test('a permission removed from a role is refused on the very next request', async () => {
    const { token, ...admin } = await signedInAdmin(app, { permissions: ['role.list', 'permission.list'] });
    assertOk(await req('GET', '/roles', undefined, token));
    assertOk(await req('GET', '/permissions', undefined, token));

    assertOk(await req('PUT', `/roles/${admin.roleId}`, { permission_ids: await permissionIds('permission.list') }));
    assertError(await req('GET', '/roles', undefined, token), 403, 20001);
    assertOk(await req('GET', '/permissions', undefined, token));

    assertOk(await req('PUT', `/roles/${admin.roleId}`, { permission_ids: await permissionIds('role.list') }));
    assertOk(await req('GET', '/roles', undefined, token));
    assertError(await req('GET', '/permissions', undefined, token), 403, 20001);
  });

  test('a disabled role grants nothing on the next request; enabling restores it', async () => {
    const { token, ...admin } = await signedInAdmin(app, { permissions: ['role.list'], menus: ['role'] });
    assertOk(await req('GET', '/roles', undefined, token));
    const info = assertOk(await req('GET', '/info', undefined, token));
    assert.deepEqual(info.permissions, ['role.list']);

    assertOk(await req('PUT', `/roles/${admin.roleId}`, { status: 0 }));
    assertError(await req('GET', '/roles', undefined, token), 403, 20001);
    const after = assertOk(await req('GET', '/info', undefined, token));
    assert.deepEqual(after.permissions, []);
    assert.deepEqual(after.menus, []);

    assertOk(await req('PUT', `/roles/${admin.roleId}`, { status: 1 }));
    assertOk(await req('GET', '/roles', undefined, token));
  });

  test('a menu change shows in /info on the next request', async () => {
    const { token, ...admin } = await signedInAdmin(app, { menus: ['role'] });
    const slugsOf = (nodes: any[]): string[] => nodes.flatMap((n) => [n.slug, ...slugsOf(n.children)]);
    assert.deepEqual(slugsOf(assertOk(await req('GET', '/info', undefined, token)).menus), ['system', 'role']);
    assertOk(await req('PUT', `/roles/${admin.roleId}`, { menu_ids: await menuIds('dashboard') }));
    assert.deepEqual(slugsOf(assertOk(await req('GET', '/info', undefined, token)).menus), ['dashboard']);
  });

  test('granting a permission applies on the next request', async () => {
    const { token, ...admin } = await signedInAdmin(app, { permissions: [] });
    assertError(await req('GET', '/roles', undefined, token), 403, 20001);
    assertOk(await req('PUT', `/roles/${admin.roleId}`, { permission_ids: await permissionIds('role.list') }));
    assertOk(await req('GET', '/roles', undefined, token));
  });
});

describe('permissions of the roles module', () => {
  test('an administrator without role.* permissions is refused every endpoint (403 20001) and nothing changes', async () => {
    const { token, ...worker } = await signedInAdmin(app, { permissions: ['online.list', 'permission.list'] });
    const target = await createRole();
    const n = await roleCount();
    assertError(await req('GET', '/roles', undefined, token), 403, 20001);
    assertError(await req('GET', `/roles/${target.id}`, undefined, token), 403, 20001);
    assertError(await req('POST', '/roles', { name: 'x', slug: unique('w') }, token), 403, 20001);
    assertError(await req('PUT', `/roles/${target.id}`, { name: 'hijacked' }, token), 403, 20001);
    assertError(await req('PUT', `/roles/${worker.roleId}`, { permission_ids: await permissionIds('role.update') }, token), 403, 20001);
    assertError(await req('DELETE', `/roles/${target.id}`, undefined, token), 403, 20001);
    assert.equal(await roleCount(), n);
    assert.deepEqual(assertOk(await req('GET', `/roles/${target.id}`)), target);
  });

  test('each action needs its own slug', async () => {
    const { token } = await signedInAdmin(app, { permissions: ['role.list'] });
    const target = await createRole();
    assertOk(await req('GET', `/roles/${target.id}`, undefined, token));
    assertError(await req('POST', '/roles', { name: 'x', slug: unique('w') }, token), 403, 20001);
    assertError(await req('PUT', `/roles/${target.id}`, { name: 'x' }, token), 403, 20001);
    assertError(await req('DELETE', `/roles/${target.id}`, undefined, token), 403, 20001);

    const { token: t2 } = await signedInAdmin(app, { permissions: ['role.create', 'role.update', 'role.delete'] });
    const made = assertOk(await req('POST', '/roles', { name: 'made', slug: unique('m') }, t2));
    assertOk(await req('PUT', `/roles/${made.id}`, { name: 'changed' }, t2));
    assertOk(await req('DELETE', `/roles/${made.id}`, undefined, t2));
    assertError(await req('GET', '/roles', undefined, t2), 403, 20001);
  });

  test('the catalogue holds the role.* permissions, generated from the routes', async () => {
    const rows = await app.platform.db.query<{ slug: string; is_system: boolean; menu: string }>(
      "SELECT p.slug, p.is_system, m.slug AS menu FROM admin.permissions p LEFT JOIN admin.menus m ON m.id = p.menu_id WHERE p.slug LIKE 'role.%' ORDER BY p.slug",
    );
    assert.deepEqual(rows.map((r) => [r.slug, r.is_system, r.menu]), [
      ['role.create', true, 'role'], ['role.delete', true, 'role'], ['role.list', true, 'role'], ['role.update', true, 'role'],
    ]);
  });
});

describe('two instances sharing PostgreSQL', { skip: !onPostgres && 'needs PostgreSQL (TEST_DATABASE_URL)' }, () => {
  test('a role change on one instance applies on the other at once, before its session cache expires', async () => {
    const [one, two] = await startWithSibling({ SESSION_CACHE_MS: '1000' });
    try {
      const admin = await seedAdmin(one, { permissions: ['role.list'] });
      const token = await login(two, admin.username, admin.password);
      const operator = await login(one);
      // This request loads and caches the session on instance two: without a pushed
      // invalidation, two would keep granting role.list until t0 + SESSION_CACHE_MS.
      const t0 = Date.now();
      assert.equal((await call(two, 'GET', '/api/admin/roles', { token })).status, 200);
      assertOk(await call(one, 'PUT', `/api/admin/roles/${admin.roleId}`, { token: operator, body: { permission_ids: [] } }));
      let refused = false;
      while (!refused && Date.now() - t0 < 900) {
        refused = (await call(two, 'GET', '/api/admin/roles', { token })).status === 403;
        if (!refused) await sleep(20);
      }
      assert.ok(refused, 'refused on the other instance before its cache expired');
    } finally {
      await closeAll(two, one);
    }
  });
});

describe('names and descriptions in both languages', () => {
  const zh = (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) =>
    call(app, method, `/api/admin${url}`, { token: superToken, headers: { 'accept-language': 'zh-CN' }, ...(body !== undefined ? { body } : {}) });

  test('the seeded super-administrator role reads in the reader’s language, with both values for the edit form', async () => {
    const en = assertOk(await req('GET', '/roles/1'));
    assert.deepEqual([en.name, en.description], ['Super Administrator', 'Passes every permission check']);
    const cn = (await zh('GET', '/roles/1')).body.data;
    assert.deepEqual([cn.name, cn.description], ['超级管理员', '通过所有权限检查']);
    assert.deepEqual(cn.name_i18n, { 'en-US': 'Super Administrator', 'zh-CN': '超级管理员' });
    assert.deepEqual(cn.description_i18n, { 'en-US': 'Passes every permission check', 'zh-CN': '通过所有权限检查' });
    const listed = (await zh('GET', `/roles?page_size=100&name=${encodeURIComponent('超级')}`)).body.data.list;
    assert.deepEqual(listed.map((r: any) => r.slug), ['super_admin']);
  });

  test('a role is created and edited per language', async () => {
    const slug = unique('bilingual');
    const made = assertOk(await req('POST', '/roles', { name: 'Clerks', name_i18n: { 'zh-CN': '文员' }, slug, description: 'Order desk', description_i18n: { 'zh-CN': '订单柜台' } }));
    assert.deepEqual(made.name_i18n, { 'en-US': 'Clerks', 'zh-CN': '文员' });
    const edited = (await zh('PUT', `/roles/${made.id}`, { name: '店员' })).body.data;
    assert.deepEqual([edited.name, edited.name_i18n], ['店员', { 'en-US': 'Clerks', 'zh-CN': '店员' }]);
    assert.equal(assertOk(await req('GET', `/roles/${made.id}`)).name, 'Clerks');
    assertError(await req('PUT', `/roles/${made.id}`, { name_i18n: { 'zh-CN': '' } }), 400, 30001);
  });
});
