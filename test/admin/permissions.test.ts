// Permissions: the catalogue generated from the route table (system permissions) and custom
// permissions: listing, creation, update, deletion, system-permission protections, and
// disabled permissions refused on the holders' very next request.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.ts';
import { call, login, signedInAdmin, type Reply } from '../helpers/http.ts';
import { assertError, assertOk } from '../helpers/assert.ts';
import { hasActionLabel } from '../../src/admin/kernel/action-labels.ts';

const DISPLAY_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const UNKNOWN_ID = 987_654_321;
const FIELDS = ['created_at', 'id', 'is_system', 'label', 'menu_id', 'menu_title', 'method', 'name', 'path', 'slug', 'status', 'updated_at'];

let app: TestApp;
let superToken: string;
let tag = 0;
const uniqueSlug = (module = 'custom') => `${module}.action-${Date.now().toString(36)}-${++tag}`;

before(async () => {
  app = await startApp();
  superToken = await login(app);
});
after(() => app?.close());

const req = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown, token = superToken): Promise<Reply> =>
  call(app, method, `/api/admin${url}`, { token, ...(body !== undefined ? { body } : {}) });

async function permissionBySlug(slug: string) {
  const res = assertOk(await req('GET', `/permissions?slug=${encodeURIComponent(slug)}&page_size=100`));
  const found = res.list.find((p: any) => p.slug === slug);
  assert.ok(found, `permission ${slug} listed`);
  return found;
}

async function menuId(slug: string): Promise<number> {
  const [row] = await app.platform.db.query<{ id: number }>('SELECT id FROM admin.menus WHERE slug = $1', [slug]);
  return Number(row!.id);
}

async function permissionCount(): Promise<number> {
  const [row] = await app.platform.db.query<{ n: number }>('SELECT count(*)::int AS n FROM admin.permissions');
  return row!.n;
}

async function createPermission(body: Record<string, unknown> = {}) {
  return assertOk(await req('POST', '/permissions', { name: 'Custom permission', slug: uniqueSlug(), ...body }));
}

describe('the generated catalogue', () => {
  test('holds every role.* and permission.* slug as system permissions linked to their menus', async () => {
    const roleMenu = await menuId('role');
    const permissionMenu = await menuId('permission');
    const expected: [string, string, string, number, string][] = [
      ['role.list', 'GET', '/api/admin/roles', roleMenu, 'Roles'],
      ['role.create', 'POST', '/api/admin/roles', roleMenu, 'Roles'],
      ['role.update', 'PUT', '/api/admin/roles/:id', roleMenu, 'Roles'],
      ['role.delete', 'DELETE', '/api/admin/roles/:id', roleMenu, 'Roles'],
      ['permission.list', 'GET', '/api/admin/permissions', permissionMenu, 'Permissions'],
      ['permission.create', 'POST', '/api/admin/permissions', permissionMenu, 'Permissions'],
      ['permission.update', 'PUT', '/api/admin/permissions/:id', permissionMenu, 'Permissions'],
      ['permission.delete', 'DELETE', '/api/admin/permissions/:id', permissionMenu, 'Permissions'],
    ];
    for (const [slug, method, path, menu, menuTitle] of expected) {
      const p = await permissionBySlug(slug);
      assert.deepEqual(Object.keys(p).sort(), FIELDS);
      assert.deepEqual([p.method, p.path, p.menu_id, p.menu_title, p.status, p.is_system], [method, path, menu, menuTitle, 1, true], slug);
      assert.ok(p.name.length > 0);
      assert.match(p.created_at, DISPLAY_TIME);
      assert.match(p.updated_at, DISPLAY_TIME);
    }
  });
});

describe('labels in the reader’s language', () => {
  const all = async (language: string) => {
    const rows: any[] = [];
    for (let page = 1; ; page++) {
      const res = await call(app, 'GET', `/api/admin/permissions?page=${page}&page_size=100`, { token: superToken, headers: { 'accept-language': language } });
      assert.equal(res.status, 200);
      rows.push(...res.body.data.list);
      if (rows.length >= res.body.data.total) return rows;
    }
  };

  test('every permission the routes declare has a name in both languages', async () => {
    const en = (await all('en-US')).filter((p) => p.is_system);
    const zh = (await all('zh-CN')).filter((p) => p.is_system);
    assert.ok(en.length >= 50, `${en.length} system permissions`);
    for (const p of en) {
      assert.ok(hasActionLabel(p.slug), `the catalogue names ${p.slug}`);
      assert.notEqual(p.label, p.slug);
      assert.doesNotMatch(p.label, /[\u4e00-\u9fff]/, `${p.slug}: ${p.label}`);
    }
    for (const p of zh) assert.match(p.label, /[\u4e00-\u9fff]/, `${p.slug}: ${p.label} is Chinese`);
    const view = (rows: any[]) => rows.find((p) => p.slug === 'attachment.view');
    // Once "List attachments", which hid that it also opens everyone's files.
    assert.equal(view(en).name, 'List attachments');
    assert.equal(view(en).label, 'View and download everyone\'s files');
    assert.equal(view(zh).label, '查看和下载所有人的文件');
  });

  test('an edited name is shown as edited; a custom permission shows its name', async () => {
    const p = await permissionBySlug('dictionary.list');
    const original = p.name;
    assertOk(await req('PUT', `/permissions/${p.id}`, { name: 'Read the lookup lists' }));
    const zh = await call(app, 'GET', `/api/admin/permissions/${p.id}`, { token: superToken, headers: { 'accept-language': 'zh-CN' } });
    assert.equal(zh.body.data.label, 'Read the lookup lists');
    assertOk(await req('PUT', `/permissions/${p.id}`, { name: original }));
    const back = await call(app, 'GET', `/api/admin/permissions/${p.id}`, { token: superToken, headers: { 'accept-language': 'zh-CN' } });
    assert.equal(back.body.data.label, '查看字典');
    const custom = await createPermission({ name: 'Approve refunds' });
    assert.equal(custom.label, 'Approve refunds');
  });
});

describe('GET /permissions', () => {
  test('pages with defaults, newest first', async () => {
    const res = assertOk(await req('GET', '/permissions'));
    assert.equal(res.page, 1);
    assert.equal(res.page_size, 10);
    assert.equal(res.total, await permissionCount());
    assert.equal(res.list.length, Math.min(10, res.total));
    const ids = res.list.map((p: any) => p.id);
    assert.deepEqual(ids, [...ids].sort((a: number, b: number) => b - a));

    const p1 = assertOk(await req('GET', '/permissions?page_size=3&order_by=id:asc'));
    const p2 = assertOk(await req('GET', '/permissions?page_size=3&page=2&order_by=id:asc'));
    assert.equal(p1.list.length, 3);
    assert.ok(p2.list[0].id > p1.list[2].id);
  });

  test('filters by fuzzy name and slug, method, status and menu, and orders', async () => {
    const word = `Quokka${Date.now().toString(36)}`;
    const menu = await menuId('order');
    const a = await createPermission({ name: `${word} one`, slug: uniqueSlug('quokka'), method: 'GET', path: '/x', menu_id: menu });
    const b = await createPermission({ name: `${word} two`, slug: uniqueSlug('quokka'), method: 'POST', status: 0 });
    const c = await createPermission({ name: `the ${word.toLowerCase()} three`, slug: uniqueSlug('other'), method: 'GET', menu_id: menu });

    const byName = assertOk(await req('GET', `/permissions?name=${word.toUpperCase()}&page_size=100`));
    assert.deepEqual(byName.list.map((p: any) => p.id), [c.id, b.id, a.id]);
    assert.equal(byName.total, 3);
    const bySlug = assertOk(await req('GET', `/permissions?slug=QUOKKA.ACTION&name=${word}`));
    assert.deepEqual(bySlug.list.map((p: any) => p.id), [b.id, a.id]);
    const byMethod = assertOk(await req('GET', `/permissions?name=${word}&method=GET`));
    assert.deepEqual(byMethod.list.map((p: any) => p.id), [c.id, a.id]);
    const byStatus = assertOk(await req('GET', `/permissions?name=${word}&status=0`));
    assert.deepEqual(byStatus.list.map((p: any) => p.id), [b.id]);
    const byMenu = assertOk(await req('GET', `/permissions?name=${word}&menu_id=${menu}`));
    assert.deepEqual(byMenu.list.map((p: any) => p.id), [c.id, a.id]);
    const ordered = assertOk(await req('GET', `/permissions?name=${word}&order_by=name:asc`));
    assert.deepEqual(ordered.list.map((p: any) => p.id), [a.id, b.id, c.id]);
    const bySlugOrder = assertOk(await req('GET', `/permissions?name=${word}&order_by=slug:desc`));
    assert.deepEqual(bySlugOrder.list.map((p: any) => p.id), [a, b, c].sort((x, y) => (x.slug < y.slug ? 1 : -1)).map((p) => p.id));

    // Wildcards match themselves.
    assert.equal(assertOk(await req('GET', '/permissions?slug=%25_')).total, 0);
  });

  test('refuses bad queries with 400 30001', async () => {
    for (const q of ['page_size=0', 'page_size=101', 'page=0', 'order_by=secret:asc', 'order_by=id:sideways', 'status=2', 'status=on', 'method=PATCH', 'method=get', 'menu_id=abc', 'menu_id=0']) {
      assertError(await req('GET', `/permissions?${q}`), 400, 30001);
    }
  });
});

describe('POST /permissions', () => {
  test('creates a custom permission', async () => {
    const menu = await menuId('order');
    const slug = uniqueSlug('order');
    const data = await createPermission({ name: 'Export orders button', slug, method: 'POST', path: '/api/admin/orders/export', menu_id: menu, status: 0 });
    assert.deepEqual(Object.keys(data).sort(), FIELDS);
    assert.deepEqual(
      [data.name, data.slug, data.method, data.path, data.menu_id, data.menu_title, data.status, data.is_system],
      ['Export orders button', slug, 'POST', '/api/admin/orders/export', menu, 'Orders', 0, false],
    );
    assert.deepEqual(assertOk(await req('GET', `/permissions/${data.id}`)), data);
    // The menu is named in the reader's language, in the list and the detail alike.
    const zh = { token: superToken, headers: { 'accept-language': 'zh-CN' } };
    assert.equal((await call(app, 'GET', `/api/admin/permissions/${data.id}`, zh)).body.data.menu_title, '订单');
    const listed = (await call(app, 'GET', `/api/admin/permissions?slug=${encodeURIComponent(slug)}`, zh)).body.data.list;
    assert.deepEqual(listed.map((p: any) => [p.id, p.menu_title]), [[data.id, '订单']]);
  });

  test('defaults: no method, path or menu, enabled', async () => {
    const data = await createPermission();
    assert.deepEqual([data.method, data.path, data.menu_id, data.menu_title, data.status, data.is_system], ['', '', null, null, 1, false]);
  });

  test('a duplicate slug is 400 30002 (system slugs included) and creates nothing', async () => {
    const existing = await createPermission();
    const n = await permissionCount();
    assertError(await req('POST', '/permissions', { name: 'again', slug: existing.slug }), 400, 30002);
    assertError(await req('POST', '/permissions', { name: 'again', slug: 'role.list' }), 400, 30002);
    assert.equal(await permissionCount(), n);
  });

  test('an unknown menu_id is 400 30001 naming it', async () => {
    const n = await permissionCount();
    const res = await req('POST', '/permissions', { name: 'x', slug: uniqueSlug(), menu_id: UNKNOWN_ID });
    assertError(res, 400, 30001);
    assert.match(res.body.message, new RegExp(`menu_id.*${UNKNOWN_ID}`));
    assert.equal(await permissionCount(), n);
  });

  test('refuses bad bodies with 400 30001 and creates nothing', async () => {
    const n = await permissionCount();
    const slug = uniqueSlug();
    for (const body of [
      {},
      { name: 'x' },
      { slug },
      { name: '', slug },
      { name: ['x'], slug },
      { name: 'x', slug: 'nodot' },
      { name: 'x', slug: 'Upper.Case' },
      { name: 'x', slug: [slug] },
      { name: 'x', slug, method: 'PATCH' },
      { name: 'x', slug, method: 'get' },
      { name: 'x', slug, method: ['GET'] },
      { name: 'x', slug, path: 'no-leading-slash' },
      { name: 'x', slug, path: '/' + 'p'.repeat(255) },
      { name: 'x', slug, menu_id: '3' },
      { name: 'x', slug, menu_id: [3] },
      { name: 'x', slug, menu_id: 0 },
      { name: 'x', slug, status: 2 },
      { name: 'x', slug, status: true },
      { name: 'x', slug, is_system: true },
      { name: 'x', slug, extra: 'field' },
    ]) {
      assertError(await req('POST', '/permissions', body), 400, 30001);
    }
    assert.equal(await permissionCount(), n);
  });
});

describe('GET /permissions/{id}', () => {
  test('unknown is 404 30003; malformed is 400 30001', async () => {
    assertError(await req('GET', `/permissions/${UNKNOWN_ID}`), 404, 30003);
    for (const id of ['x', '2.5', '0', '-4']) assertError(await req('GET', `/permissions/${id}`), 400, 30001);
  });
});

describe('PUT /permissions/{id}', () => {
  test('updates every field of a custom permission, only those given', async () => {
    const p = await createPermission({ method: 'GET', path: '/a', menu_id: await menuId('order') });
    const slug = uniqueSlug('payment');
    const menu = await menuId('payment');
    const res = assertOk(await req('PUT', `/permissions/${p.id}`, { name: 'Renamed', slug, method: 'DELETE', path: '/b', menu_id: menu }));
    assert.deepEqual([res.name, res.slug, res.method, res.path, res.menu_id, res.status], ['Renamed', slug, 'DELETE', '/b', menu, 1]);
    const cleared = assertOk(await req('PUT', `/permissions/${p.id}`, { menu_id: null, method: '', path: '', status: 0 }));
    assert.deepEqual([cleared.name, cleared.slug, cleared.method, cleared.path, cleared.menu_id, cleared.status], ['Renamed', slug, '', '', null, 0]);
    assert.deepEqual(assertOk(await req('GET', `/permissions/${p.id}`)), cleared);
  });

  test('a duplicate slug is 400 30002; an unknown menu 400 30001; an unknown id 404 30003; nothing changes', async () => {
    const a = await createPermission();
    const b = await createPermission();
    assertError(await req('PUT', `/permissions/${b.id}`, { slug: a.slug, name: 'changed' }), 400, 30002);
    assertError(await req('PUT', `/permissions/${b.id}`, { slug: 'role.list' }), 400, 30002);
    assertError(await req('PUT', `/permissions/${b.id}`, { name: 'changed', menu_id: UNKNOWN_ID }), 400, 30001);
    assert.deepEqual(assertOk(await req('GET', `/permissions/${b.id}`)), b);
    assertError(await req('PUT', `/permissions/${UNKNOWN_ID}`, { name: 'x' }), 404, 30003);
  });

  test('refuses bad bodies with 400 30001 and changes nothing', async () => {
    const p = await createPermission();
    for (const body of [{ name: '' }, { name: 3 }, { slug: 'bad' }, { method: 'HEAD' }, { status: '1' }, { menu_id: 'x' }, { is_system: true }, { id: 5 }, { name: ['a'] }]) {
      assertError(await req('PUT', `/permissions/${p.id}`, body), 400, 30001);
    }
    assertError(await req('PUT', '/permissions/abc', { name: 'x' }), 400, 30001);
    assert.deepEqual(assertOk(await req('GET', `/permissions/${p.id}`)), p);
  });

  test('a system permission can be renamed and moved, not re-slugged or re-routed (403 20003)', async () => {
    const p = await permissionBySlug('permission.delete');
    assertError(await req('PUT', `/permissions/${p.id}`, { slug: 'permission.remove' }), 403, 20003);
    assertError(await req('PUT', `/permissions/${p.id}`, { method: 'POST' }), 403, 20003);
    assertError(await req('PUT', `/permissions/${p.id}`, { path: '/elsewhere' }), 403, 20003);
    assertError(await req('PUT', `/permissions/${p.id}`, { name: 'Renamed', path: '/elsewhere' }), 403, 20003);
    assert.deepEqual(assertOk(await req('GET', `/permissions/${p.id}`)), p);

    // The same values are accepted alongside a rename (a form sending the whole record).
    const renamed = assertOk(await req('PUT', `/permissions/${p.id}`, { name: 'Remove permissions', slug: p.slug, method: p.method, path: p.path }));
    assert.equal(renamed.name, 'Remove permissions');
    assert.deepEqual([renamed.slug, renamed.method, renamed.path, renamed.is_system], [p.slug, p.method, p.path, true]);
    const moved = assertOk(await req('PUT', `/permissions/${p.id}`, { menu_id: await menuId('system') }));
    assert.equal(moved.menu_id, await menuId('system'));
    assertOk(await req('PUT', `/permissions/${p.id}`, { name: p.name, menu_id: p.menu_id }));
  });

  test('disabling a permission refuses it to its holders on their very next request; enabling restores it', async () => {
    const p = await permissionBySlug('role.list');
    const { token } = await signedInAdmin(app, { permissions: ['role.list', 'permission.list'] });
    assertOk(await req('GET', '/roles', undefined, token));
    try {
      const res = assertOk(await req('PUT', `/permissions/${p.id}`, { status: 0 }));
      assert.equal(res.status, 0);
      assertError(await req('GET', '/roles', undefined, token), 403, 20001);
      assertOk(await req('GET', '/permissions', undefined, token));
      assert.deepEqual(assertOk(await req('GET', '/info', undefined, token)).permissions, ['permission.list']);
      // The super administrator passes every check regardless.
      assertOk(await req('GET', '/roles'));
    } finally {
      assertOk(await req('PUT', `/permissions/${p.id}`, { status: 1 }));
    }
    assertOk(await req('GET', '/roles', undefined, token));
  });
});

describe('administration cannot be lost through a permission change', () => {
  test('disabling admin.update is refused (400 40003) to a caller who administers administrators through it; a super administrator may', async () => {
    const p = await permissionBySlug('admin.update');
    const { token, ...editor } = await signedInAdmin(app, { permissions: ['permission.update', 'admin.update'] });
    const res = await req('PUT', `/permissions/${p.id}`, { status: 0 }, token);
    assertError(res, 400, 40003);
    assert.match(res.body.message, /^Update failed: this would remove your own permission to administer administrators \(admin\.update\)$/);
    const zh = await call(app, 'PUT', `/api/admin/permissions/${p.id}`, { token, body: { status: 0, name: 'Renamed' }, headers: { 'accept-language': 'zh-CN' } });
    assertError(zh, 400, 40003);
    assert.match(zh.body.message, /^更新失败.*admin\.update/);
    assert.deepEqual(assertOk(await req('GET', `/permissions/${p.id}`)), p, 'rolled back: still enabled, name unchanged');
    assert.ok(assertOk(await req('GET', '/info', undefined, token)).permissions.includes('admin.update'));
    // A change that keeps it (a new name) goes through.
    assert.equal(assertOk(await req('PUT', `/permissions/${p.id}`, { name: 'Update administrators' }, token)).name, 'Update administrators');
    // The super administrator does not depend on it.
    try {
      assert.equal(assertOk(await req('PUT', `/permissions/${p.id}`, { status: 0 })).status, 0);
      assertError(await req('PUT', `/admins/${editor.id}`, { nickname: 'x' }, token), 403, 20001);
    } finally {
      assertOk(await req('PUT', `/permissions/${p.id}`, { status: 1, name: p.name }));
    }
    assertOk(await req('PUT', `/admins/${editor.id}`, { nickname: 'x' }, token));
  });

  test('a caller who does not hold admin.update may disable it', async () => {
    const p = await permissionBySlug('admin.update');
    const { token } = await signedInAdmin(app, { permissions: ['permission.update'] });
    try {
      assert.equal(assertOk(await req('PUT', `/permissions/${p.id}`, { status: 0 }, token)).status, 0);
    } finally {
      assertOk(await req('PUT', `/permissions/${p.id}`, { status: 1 }));
    }
  });
});

describe('DELETE /permissions/{id}', () => {
  test('deletes a custom permission and removes it from the roles holding it', async () => {
    const p = await createPermission();
    const { token, ...holder } = await signedInAdmin(app, { permissions: [p.slug, 'role.list'] });
    assert.deepEqual(assertOk(await req('GET', '/info', undefined, token)).permissions, [p.slug, 'role.list'].sort());
    const before = assertOk(await req('GET', `/roles/${holder.roleId}`));
    assert.ok(before.permission_ids.includes(p.id));

    assert.deepEqual(assertOk(await req('DELETE', `/permissions/${p.id}`)), { id: p.id });
    assertError(await req('GET', `/permissions/${p.id}`), 404, 30003);
    assertError(await req('DELETE', `/permissions/${p.id}`), 404, 30003);
    const afterRole = assertOk(await req('GET', `/roles/${holder.roleId}`));
    assert.ok(!afterRole.permission_ids.includes(p.id));
    assert.deepEqual(assertOk(await req('GET', '/info', undefined, token)).permissions, ['role.list']);
    assertOk(await req('GET', '/roles', undefined, token));
  });

  test('a system permission cannot be deleted (403 20003)', async () => {
    const p = await permissionBySlug('role.delete');
    assertError(await req('DELETE', `/permissions/${p.id}`), 403, 20003);
    assert.deepEqual(assertOk(await req('GET', `/permissions/${p.id}`)), p);
  });

  test('unknown is 404 30003; malformed is 400 30001', async () => {
    assertError(await req('DELETE', `/permissions/${UNKNOWN_ID}`), 404, 30003);
    assertError(await req('DELETE', '/permissions/one'), 400, 30001);
  });
});

describe('permissions of the permissions module', () => {
  test('an administrator without permission.* permissions is refused every endpoint (403 20001) and nothing changes', async () => {
    const { token } = await signedInAdmin(app, { permissions: ['online.list', 'role.list'] });
    const target = await createPermission();
    const n = await permissionCount();
    assertError(await req('GET', '/permissions', undefined, token), 403, 20001);
    assertError(await req('GET', `/permissions/${target.id}`, undefined, token), 403, 20001);
    assertError(await req('POST', '/permissions', { name: 'x', slug: uniqueSlug() }, token), 403, 20001);
    assertError(await req('PUT', `/permissions/${target.id}`, { name: 'hijacked' }, token), 403, 20001);
    assertError(await req('DELETE', `/permissions/${target.id}`, undefined, token), 403, 20001);
    assert.equal(await permissionCount(), n);
    assert.deepEqual(assertOk(await req('GET', `/permissions/${target.id}`)), target);
  });

  test('each action needs its own slug', async () => {
    const { token } = await signedInAdmin(app, { permissions: ['permission.list'] });
    const target = await createPermission();
    assertOk(await req('GET', `/permissions/${target.id}`, undefined, token));
    assertError(await req('POST', '/permissions', { name: 'x', slug: uniqueSlug() }, token), 403, 20001);
    assertError(await req('PUT', `/permissions/${target.id}`, { name: 'x' }, token), 403, 20001);
    assertError(await req('DELETE', `/permissions/${target.id}`, undefined, token), 403, 20001);

    const { token: t2 } = await signedInAdmin(app, { permissions: ['permission.create', 'permission.update', 'permission.delete'] });
    const made = assertOk(await req('POST', '/permissions', { name: 'made', slug: uniqueSlug() }, t2));
    assertOk(await req('PUT', `/permissions/${made.id}`, { name: 'changed' }, t2));
    assertOk(await req('DELETE', `/permissions/${made.id}`, undefined, t2));
    assertError(await req('GET', '/permissions', undefined, t2), 403, 20001);
  });
});
