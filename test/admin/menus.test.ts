// Menus: the tree (shape, order, filters), create/read/update/delete, the tree rules (parent
// exists, no cycles, buttons have no children, no delete with children), unique slugs,
// permissions, input validation, and a status change seen by GET /info.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.ts';
import { call, login, seedAdmin, signedInAdmin, type Reply } from '../helpers/http.ts';
import { assertError, assertOk } from '../helpers/assert.ts';
import type { MenuNode } from '../../src/admin/kernel/rbac.ts';

const DISPLAY_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const UNKNOWN_ID = 987_654_321;
const NODE_KEYS = ['children', 'component', 'icon', 'id', 'parent_id', 'path', 'slug', 'sort', 'status', 'title', 'title_i18n', 'type'];
const RECORD_KEYS = [...NODE_KEYS, 'created_at', 'updated_at'].sort();

let app: TestApp;
let token: string;

before(async () => {
  app = await startApp();
  token = await login(app);
});
after(() => app?.close());

let seq = 0;
const uniq = (p: string) => `${p}-${++seq}-${Date.now().toString(36)}`;

const tree = (query = '', t = token) => call(app, 'GET', `/api/admin/menus${query}`, { token: t });
const getMenu = (id: number | string, t = token) => call(app, 'GET', `/api/admin/menus/${id}`, { token: t });
const postMenu = (body: unknown, t = token) => call(app, 'POST', '/api/admin/menus', { token: t, body });
const putMenu = (id: number | string, body: unknown, t = token) => call(app, 'PUT', `/api/admin/menus/${id}`, { token: t, body });
const deleteMenu = (id: number | string, t = token) => call(app, 'DELETE', `/api/admin/menus/${id}`, { token: t });

/** Creates a menu through the API and returns its record. */
async function create(fields: Record<string, unknown> = {}): Promise<MenuNode & { created_at: string; updated_at: string }> {
  const res = await postMenu({ title: 'Menu', slug: uniq('m'), type: 2, ...fields });
  return assertOk(res);
}

async function menuCount(): Promise<number> {
  const [row] = await app.platform.db.query<{ n: number }>('SELECT count(*)::int AS n FROM admin.menus');
  return Number(row!.n);
}

/** Every row of admin.menus as text, to prove that a refused request changed nothing. */
async function snapshot(): Promise<string> {
  return JSON.stringify(await app.platform.db.query('SELECT * FROM admin.menus ORDER BY id'));
}

function flatten(nodes: MenuNode[]): MenuNode[] {
  return nodes.flatMap((n) => [n, ...flatten(n.children)]);
}

function find(nodes: MenuNode[], slug: string): MenuNode | undefined {
  return flatten(nodes).find((n) => n.slug === slug);
}

function assertNodeShape(n: MenuNode) {
  assert.deepEqual(Object.keys(n).sort(), NODE_KEYS, JSON.stringify(n));
  for (const child of n.children) {
    assert.equal(child.parent_id, n.id);
    assertNodeShape(child);
  }
}

describe('GET /menus', () => {
  test('returns the whole seeded tree, nested and ordered by sort, in data.list', async () => {
    const res = await tree();
    const data = assertOk(res);
    assert.deepEqual(Object.keys(data).sort(), ['list', 'total']);
    const list = data.list as MenuNode[];
    assert.deepEqual(list.map((m) => m.slug), ['dashboard', 'system', 'trade', 'log', 'monitor', 'attachment', 'notification']);
    for (const root of list) {
      assert.equal(root.parent_id, 0);
      assertNodeShape(root);
    }
    const system = list.find((m) => m.slug === 'system')!;
    assert.deepEqual(system.children.map((m) => m.slug), ['admin', 'role', 'menu', 'permission', 'department', 'dictionary', 'blacklist', 'password-policy']);
    assert.deepEqual(system.children[0], {
      id: 3, parent_id: 2, title: 'Administrators', title_i18n: { 'en-US': 'Administrators', 'zh-CN': '管理员' }, slug: 'admin', icon: 'user', path: '/system/admins',
      component: 'system/admin/index', type: 2, status: 1, sort: 1, children: [],
    });
    assert.equal(data.total, await menuCount());
    assert.equal(flatten(list).length, data.total);
  });

  test('siblings are ordered by sort, then id', async () => {
    const parent = await create({ type: 1, title: 'Order test' });
    const b = await create({ parent_id: parent.id, sort: 2 });
    const a = await create({ parent_id: parent.id, sort: 1 });
    const c = await create({ parent_id: parent.id, sort: 2 });
    const found = find(assertOk(await tree()).list, parent.slug)!;
    assert.deepEqual(found.children.map((m) => m.id), [a.id, b.id, c.id]);
  });

  test('filters by fuzzy title and by status, keeping the ancestors of matches', async () => {
    const dir = await create({ type: 1, title: 'Filter root' });
    const mid = await create({ type: 1, parent_id: dir.id, title: 'Filter middle', status: 0 });
    const leaf = await create({ parent_id: mid.id, title: 'Needle 100% leaf' });
    await create({ parent_id: dir.id, title: 'Other leaf' });

    const byTitle = assertOk(await tree(`?title=${encodeURIComponent('NEEDLE 100%')}`));
    assert.equal(byTitle.total, 3);
    assert.deepEqual(byTitle.list.map((m: MenuNode) => m.id), [dir.id]);
    assert.deepEqual(byTitle.list[0].children.map((m: MenuNode) => m.id), [mid.id]);
    assert.deepEqual(byTitle.list[0].children[0].children.map((m: MenuNode) => m.id), [leaf.id]);
    assert.deepEqual(byTitle.list[0].children[0].children[0].children, []);

    // `%` and `_` match themselves only.
    assert.equal(assertOk(await tree('?title=%25%25')).total, 0);
    assert.deepEqual(assertOk(await tree('?title=no-such-menu-title')), { list: [], total: 0 });

    // Disabled menus, with their enabled ancestor.
    const disabled = assertOk(await tree('?status=0'));
    assert.deepEqual(flatten(disabled.list).map((m) => m.id), [dir.id, mid.id]);

    // Both filters together: enabled menus titled like "leaf", with their (disabled) ancestors.
    const both = assertOk(await tree('?status=1&title=leaf'));
    const ids = flatten(both.list).map((m) => m.id);
    assert.ok(ids.includes(leaf.id) && ids.includes(mid.id) && ids.includes(dir.id), JSON.stringify(both));
    assert.ok(!ids.includes(3), 'unrelated menus are left out');

    assertError(await tree('?status=2'), 400, 30001);
    assertError(await tree('?status=x'), 400, 30001);
  });

  test("'menu.list' is enough to read the tree and a menu", async () => {
    const { token: rt } = await signedInAdmin(app, { permissions: ['menu.list'] });
    assertOk(await tree('', rt));
    assertOk(await getMenu(1, rt));
  });
});

describe('POST /menus', () => {
  test('creates a menu with defaults and returns the record', async () => {
    const slug = uniq('created');
    const res = await postMenu({ title: 'Created', slug, type: 1 });
    const rec = assertOk(res);
    assert.deepEqual(Object.keys(rec).sort(), RECORD_KEYS);
    assert.ok(Number.isInteger(rec.id) && rec.id > 22);
    assert.deepEqual(
      { ...rec, id: 0, created_at: '', updated_at: '' },
      { id: 0, parent_id: 0, title: 'Created', title_i18n: { 'en-US': 'Created', 'zh-CN': null }, slug, icon: '', path: '', component: '', type: 1, status: 1, sort: 0, children: [], created_at: '', updated_at: '' },
    );
    assert.match(rec.created_at, DISPLAY_TIME);
    assert.match(rec.updated_at, DISPLAY_TIME);
    assert.ok(Math.abs(Date.parse(rec.created_at.replace(' ', 'T') + 'Z') - Date.now()) < 60_000);

    const child = assertOk(await postMenu({
      parent_id: rec.id, title: 'Child', slug: uniq('child'), icon: 'star', path: '/x/child', component: 'x/child/index', type: 2, status: 0, sort: 7,
    }));
    assert.equal(child.parent_id, rec.id);
    assert.deepEqual([child.icon, child.path, child.component, child.type, child.status, child.sort], ['star', '/x/child', 'x/child/index', 2, 0, 7]);

    const button = assertOk(await postMenu({ parent_id: child.id, title: 'Add', slug: uniq('btn'), type: 3 }));
    assert.equal(button.type, 3);

    const found = find(assertOk(await tree()).list, slug)!;
    assert.deepEqual(found.children.map((m) => m.id), [child.id]);
    assert.deepEqual(found.children[0]!.children.map((m) => m.id), [button.id]);
  });

  test('a duplicate slug is 400 30002 and nothing is created', async () => {
    const first = await create();
    const before = await menuCount();
    assertError(await postMenu({ title: 'Again', slug: first.slug, type: 2 }), 400, 30002);
    assertError(await postMenu({ title: 'Seeded', slug: 'dashboard', type: 2 }), 400, 30002);
    assert.equal(await menuCount(), before);
  });

  test('an unknown parent is 400 30001', async () => {
    const before = await snapshot();
    const res = await postMenu({ parent_id: UNKNOWN_ID, title: 'Orphan', slug: uniq('orphan'), type: 2 });
    assertError(res, 400, 30001);
    assert.match(res.body.message, /parent_id .* does not exist/);
    assert.equal(await snapshot(), before);
  });

  test('a button cannot be a parent: 400 30001, naming it', async () => {
    const button = await create({ type: 3, title: 'Export button' });
    const before = await snapshot();
    const res = await postMenu({ parent_id: button.id, title: 'Under a button', slug: uniq('under'), type: 3 });
    assertError(res, 400, 30001);
    assert.ok(res.body.message.includes('the parent "Export button" (parent_id) is a button'), res.body.message);
    assert.equal(await snapshot(), before);
  });

  test('refuses bad input with 400 30001 and creates nothing', async () => {
    const before = await snapshot();
    const ok = { title: 'Valid', slug: uniq('valid'), type: 2 };
    const bad: unknown[] = [
      {},
      { ...ok, title: undefined },
      { ...ok, slug: undefined },
      { ...ok, type: undefined },
      { ...ok, type: 4 },
      { ...ok, type: 0 },
      { ...ok, type: '2' },
      { ...ok, type: 2.5 },
      { ...ok, status: 2 },
      { ...ok, status: -1 },
      { ...ok, status: '1' },
      { ...ok, title: '' },
      { ...ok, title: '   ' },
      { ...ok, title: 'x'.repeat(65) },
      { ...ok, title: ['Valid'] },
      { ...ok, slug: ['a'] },
      { ...ok, slug: 'has space' },
      { ...ok, slug: '' },
      { ...ok, icon: 5 },
      { ...ok, path: 'p'.repeat(256) },
      { ...ok, parent_id: -1 },
      { ...ok, parent_id: '0' },
      { ...ok, parent_id: [0] },
      { ...ok, parent_id: null },
      { ...ok, sort: '1' },
      { ...ok, sort: 2 ** 31 },
      { ...ok, unknown_field: 1 },
      { ...ok, children: [] },
      [ok],
    ];
    for (const body of bad) {
      assertError(await postMenu(body), 400, 30001);
    }
    assert.equal(await snapshot(), before);
  });

  test("needs 'menu.create': 403 20001 without it", async () => {
    const { token: t } = await signedInAdmin(app, { permissions: ['menu.list', 'menu.update', 'menu.delete'] });
    const before = await menuCount();
    assertError(await postMenu({ title: 'No', slug: uniq('no'), type: 2 }, t), 403, 20001);
    assert.equal(await menuCount(), before);

    const { token: wt } = await signedInAdmin(app, { permissions: ['menu.create'] });
    assertOk(await postMenu({ title: 'Yes', slug: uniq('yes'), type: 2 }, wt));
  });
});

describe('GET /menus/{id}', () => {
  test('returns the menu with its timestamps and its subtree', async () => {
    const dir = await create({ type: 1, title: 'Read dir', icon: 'tree' });
    const child = await create({ parent_id: dir.id, title: 'Read child' });
    const button = await create({ parent_id: child.id, title: 'Read button', type: 3 });
    const rec = assertOk(await getMenu(dir.id));
    assert.deepEqual(Object.keys(rec).sort(), RECORD_KEYS);
    assert.equal(rec.created_at, dir.created_at);
    assert.equal(rec.icon, 'tree');
    assert.deepEqual(rec.children.map((m: MenuNode) => m.id), [child.id]);
    assertNodeShape(rec.children[0]);
    assert.deepEqual(rec.children[0].children.map((m: MenuNode) => m.id), [button.id]);

    const seeded = assertOk(await getMenu(2));
    assert.equal(seeded.slug, 'system');
    assert.equal(seeded.children.length >= 7, true);
  });

  test('an unknown id is 404 30003; a bad id is 400 30001', async () => {
    assertError(await getMenu(UNKNOWN_ID), 404, 30003);
    for (const id of ['abc', '1.5', '0', '-1', '99999999999999999999']) assertError(await getMenu(id), 400, 30001);
  });
});

describe('PUT /menus/{id}', () => {
  test('changes only the fields sent and refreshes updated_at', async () => {
    const menu = await create({ title: 'Before', icon: 'a', path: '/before', sort: 3 });
    await new Promise((r) => setTimeout(r, 1100));
    const res = await putMenu(menu.id, { title: 'After', component: 'after/index' });
    const rec = assertOk(res);
    assert.deepEqual(Object.keys(rec).sort(), RECORD_KEYS);
    assert.deepEqual(
      { ...rec, updated_at: '' },
      { ...menu, title: 'After', title_i18n: { 'en-US': 'After', 'zh-CN': null }, component: 'after/index', updated_at: '' },
    );
    assert.ok(rec.updated_at > menu.updated_at, `${rec.updated_at} > ${menu.updated_at}`);
    assert.deepEqual(assertOk(await getMenu(menu.id)), rec);

    const all = assertOk(await putMenu(menu.id, {
      title: 'All', slug: uniq('all'), icon: 'i', path: '/all', component: 'c', type: 1, status: 0, sort: -5, parent_id: 2,
    }));
    assert.deepEqual([all.title, all.icon, all.path, all.component, all.type, all.status, all.sort, all.parent_id], ['All', 'i', '/all', 'c', 1, 0, -5, 2]);
  });

  test('moves a subtree under another parent and back to the root', async () => {
    const a = await create({ type: 1 });
    const b = await create({ type: 1 });
    const child = await create({ parent_id: a.id });
    const moved = assertOk(await putMenu(a.id, { parent_id: b.id }));
    assert.equal(moved.parent_id, b.id);
    assert.deepEqual(moved.children.map((m: MenuNode) => m.id), [child.id]);
    const bTree = find(assertOk(await tree()).list, b.slug)!;
    assert.deepEqual(bTree.children.map((m) => m.id), [a.id]);
    assert.deepEqual(bTree.children[0]!.children.map((m) => m.id), [child.id]);
    assert.equal(assertOk(await putMenu(a.id, { parent_id: 0 })).parent_id, 0);
    // Sending the current parent is allowed.
    assertOk(await putMenu(child.id, { parent_id: a.id }));
  });

  test('refuses a cycle: the menu itself or one of its descendants as parent (400 30001)', async () => {
    const top = await create({ type: 1 });
    const mid = await create({ type: 1, parent_id: top.id });
    const low = await create({ type: 2, parent_id: mid.id });
    const before = await snapshot();

    const self = await putMenu(top.id, { parent_id: top.id });
    assertError(self, 400, 30001);
    assert.match(self.body.message, /own parent/);
    for (const target of [mid.id, low.id]) {
      const res = await putMenu(top.id, { parent_id: target, title: 'Should not change' });
      assertError(res, 400, 30001);
      assert.match(res.body.message, /descendant.*cycle/);
    }
    assertError(await putMenu(mid.id, { parent_id: low.id }), 400, 30001);
    assert.equal(await snapshot(), before);

    // A move sideways, into a sibling branch, is fine.
    const side = await create({ type: 1, parent_id: top.id });
    assertOk(await putMenu(low.id, { parent_id: side.id }));
  });

  test('two concurrent crossing moves cannot make a cycle: one of them is refused', async () => {
    const a = await create({ type: 1 });
    const b = await create({ type: 1 });
    const results = await Promise.all([putMenu(a.id, { parent_id: b.id }), putMenu(b.id, { parent_id: a.id })]);
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 400], JSON.stringify(results.map((r) => r.body)));
    const rows = await app.platform.db.query<{ id: number; parent_id: number }>(
      'SELECT id, parent_id FROM admin.menus WHERE id = ANY($1::bigint[])', [[a.id, b.id]],
    );
    assert.equal(rows.filter((r) => Number(r.parent_id) === 0).length, 1, JSON.stringify(rows));
  });

  test('buttons: a parent must not be a button, and a menu with children cannot become one', async () => {
    const button = await create({ type: 3 });
    const menu = await create();
    const parent = await create({ type: 1, title: 'Reports' });
    await create({ parent_id: parent.id, type: 3 });
    const before = await snapshot();

    assertError(await putMenu(menu.id, { parent_id: button.id }), 400, 30001);
    const res = await putMenu(parent.id, { type: 3 });
    assertError(res, 400, 30001);
    assert.ok(res.body.message.includes('menu "Reports" has children'), res.body.message);
    assert.equal(await snapshot(), before);

    // Without children, any menu can become a button.
    assert.equal(assertOk(await putMenu(menu.id, { type: 3 })).type, 3);
  });

  test('an unknown parent is 400 30001; an unknown id is 404 30003; a duplicate slug is 400 30002', async () => {
    const menu = await create();
    const other = await create();
    const before = await snapshot();
    assertError(await putMenu(menu.id, { parent_id: UNKNOWN_ID }), 400, 30001);
    assertError(await putMenu(UNKNOWN_ID, { title: 'Ghost' }), 404, 30003);
    assertError(await putMenu(menu.id, { slug: other.slug }), 400, 30002);
    assertError(await putMenu(menu.id, { slug: 'system', title: 'Clash' }), 400, 30002);
    assert.equal(await snapshot(), before);
    // Its own slug is not a duplicate.
    assertOk(await putMenu(menu.id, { slug: menu.slug }));
  });

  test('refuses bad input with 400 30001 and changes nothing', async () => {
    const menu = await create();
    const before = await snapshot();
    const bad: unknown[] = [
      {},
      { type: 4 },
      { status: 2 },
      { title: '' },
      { title: ['x'] },
      { slug: { a: 1 } },
      { sort: [1] },
      { parent_id: '2' },
      { id: 5 },
      { created_at: '2020-01-01 00:00:00' },
      { title: 'Fine', extra: true },
      [{ title: 'x' }],
    ];
    for (const body of bad) assertError(await putMenu(menu.id, body), 400, 30001);
    for (const raw of ['null', '"title"', '7']) {
      const res = await call(app, 'PUT', `/api/admin/menus/${menu.id}`, { token, payload: raw, headers: { 'content-type': 'application/json' } });
      assertError(res, 400, 30001);
    }
    for (const id of ['abc', '1.5', '0']) assertError(await putMenu(id, { title: 'x' }), 400, 30001);
    assert.equal(await snapshot(), before);
  });

  test("needs 'menu.update': 403 20001 without it", async () => {
    const menu = await create();
    const { token: t } = await signedInAdmin(app, { permissions: ['menu.list', 'menu.create', 'menu.delete'] });
    const before = await snapshot();
    assertError(await putMenu(menu.id, { title: 'Nope' }, t), 403, 20001);
    assert.equal(await snapshot(), before);
  });
});

describe('DELETE /menus/{id}', () => {
  test('deletes a leaf; its role links go and its permissions stay, unlinked', async () => {
    const menu = await create();
    const admin = await seedAdmin(app, { menus: [menu.slug] });
    const db = app.platform.db;
    const [perm] = await db.query<{ id: number }>(
      `INSERT INTO admin.permissions (name, slug, menu_id) VALUES ('Linked', $1, $2) RETURNING id`,
      [uniq('perm.linked'), menu.id],
    );
    const links = () => db.query('SELECT 1 FROM admin.role_menus WHERE role_id = $1', [admin.roleId]);
    assert.equal((await links()).length, 1);

    const res = await deleteMenu(menu.id);
    assert.equal(assertOk(res), null);
    assertError(await getMenu(menu.id), 404, 30003);
    assert.equal(find(assertOk(await tree()).list, menu.slug), undefined);
    assert.equal((await links()).length, 0);
    const [after] = await db.query<{ menu_id: number | null }>('SELECT menu_id FROM admin.permissions WHERE id = $1', [perm!.id]);
    assert.equal(after!.menu_id, null);

    // Deleted twice: the second is 404.
    assertError(await deleteMenu(menu.id), 404, 30003);
  });

  test('a menu that still has children is refused with 400 40002, naming it in the reader’s language', async () => {
    const parent = await create({ type: 1, title: 'Archive', title_i18n: { 'zh-CN': '归档' } });
    const child = await create({ parent_id: parent.id });
    const before = await snapshot();
    const res = await deleteMenu(parent.id);
    assertError(res, 400, 40002);
    assert.ok(res.body.message.includes('menu "Archive" still has children'), res.body.message);
    const zh = await call(app, 'DELETE', `/api/admin/menus/${parent.id}`, { token, headers: { 'accept-language': 'zh-CN' } });
    assert.ok(zh.body.message.includes('菜单 "归档" 仍有子菜单'), zh.body.message);
    assertError(await deleteMenu(2), 400, 40002);
    assert.equal(await snapshot(), before);

    // Children first, then the parent.
    assertOk(await deleteMenu(child.id));
    assertOk(await deleteMenu(parent.id));
  });

  test('an unknown id is 404 30003; a bad id is 400 30001', async () => {
    assertError(await deleteMenu(UNKNOWN_ID), 404, 30003);
    for (const id of ['abc', '1.5', '0', '-2']) assertError(await deleteMenu(id), 400, 30001);
  });

  test("needs 'menu.delete': 403 20001 without it", async () => {
    const menu = await create();
    const { token: t } = await signedInAdmin(app, { permissions: ['menu.list', 'menu.create', 'menu.update'] });
    assertError(await deleteMenu(menu.id, t), 403, 20001);
    assertOk(await getMenu(menu.id));
  });
});

describe('GET /info follows menu changes', () => {
  test('a disabled menu disappears from /info at the next request, and comes back when enabled', async () => {
    const dir = await create({ type: 1, title: 'Info dir' });
    const page = await create({ parent_id: dir.id, title: 'Info page' });
    const { token: t } = await signedInAdmin(app, { menus: [page.slug] });
    const menusOf = async (): Promise<MenuNode[]> => assertOk(await call(app, 'GET', '/api/admin/info', { token: t })).menus;

    let menus = await menusOf();
    assert.deepEqual(menus.map((m) => m.slug), [dir.slug]);
    assert.deepEqual(menus[0]!.children.map((m) => m.slug), [page.slug]);

    assertOk(await putMenu(page.id, { status: 0 }));
    assert.deepEqual(await menusOf(), []);

    assertOk(await putMenu(page.id, { status: 1 }));
    menus = await menusOf();
    assert.deepEqual(flatten(menus).map((m) => m.slug), [dir.slug, page.slug]);

    // Renamed: /info shows the new title at once.
    assertOk(await putMenu(page.id, { title: 'Renamed page' }));
    assert.equal(find(await menusOf(), page.slug)!.title, 'Renamed page');

    // Deleted: gone from /info.
    assertOk(await deleteMenu(page.id));
    assert.deepEqual(await menusOf(), []);
  });
});

describe('OpenAPI', () => {
  test('documents the menu routes', async () => {
    const res: Reply = await call(app, 'GET', '/api/admin/docs/openapi.json');
    assert.equal(res.status, 200);
    const paths = res.body.paths as Record<string, Record<string, unknown>>;
    assert.deepEqual(Object.keys(paths['/api/admin/menus']!).sort(), ['get', 'post']);
    assert.deepEqual(Object.keys(paths['/api/admin/menus/{id}']!).sort(), ['delete', 'get', 'put']);
  });
});

test('/info hides the enabled children of a disabled directory', async () => {
  const token = await login(app);
  await app.platform.db.query(`UPDATE admin.menus SET status = 0 WHERE slug = 'monitor'`);
  try {
    const res = await call(app, 'GET', '/api/admin/info', { token });
    const slugs: string[] = [];
    const walk = (nodes: { slug: string; children: any[] }[]) => nodes.forEach((n) => (slugs.push(n.slug), walk(n.children)));
    walk(res.body.data.menus);
    assert.ok(slugs.includes('dashboard'));
    assert.ok(!slugs.includes('monitor') && !slugs.includes('online') && !slugs.includes('monitor-system'), slugs.join(','));
  } finally {
    await app.platform.db.query(`UPDATE admin.menus SET status = 1 WHERE slug = 'monitor'`);
  }
});

describe('titles in both languages', () => {
  const zh = { 'accept-language': 'zh-CN' };
  const flat = (nodes: MenuNode[]): MenuNode[] => nodes.flatMap((n) => [n, ...flat(n.children)]);

  test('the seeded menus have a Chinese title: the tree, one menu and GET /info answer in the reader’s language', async () => {
    const en = flat(assertOk(await tree()).list);
    const cn = flat((await call(app, 'GET', '/api/admin/menus', { token, headers: zh })).body.data.list);
    const dashboard = (list: MenuNode[]) => list.find((m) => m.slug === 'dashboard')!;
    assert.equal(dashboard(en).title, 'Dashboard');
    assert.equal(dashboard(cn).title, '仪表盘');
    assert.deepEqual(dashboard(cn).title_i18n, { 'en-US': 'Dashboard', 'zh-CN': '仪表盘' });
    assert.deepEqual(dashboard(en).title_i18n, dashboard(cn).title_i18n);
    assert.equal(cn.find((m) => m.slug === 'payment-method')!.title, '支付方式');
    assert.ok(cn.filter((m) => m.id <= 22).every((m) => m.title_i18n['zh-CN'] !== null), 'every seeded menu is translated');
    const one = (await call(app, 'GET', `/api/admin/menus/${dashboard(en).id}`, { token, headers: zh })).body.data;
    assert.equal(one.title, '仪表盘');
    const info = (await call(app, 'GET', '/api/admin/info', { token, headers: zh })).body.data;
    assert.equal(flat(info.menus).find((m) => m.slug === 'system')!.title, '系统管理');
    assert.deepEqual(flat(info.menus).find((m) => m.slug === 'system')!.title_i18n, { 'en-US': 'System', 'zh-CN': '系统管理' });
    // The fuzzy filter looks at every language.
    const hits = flat((await call(app, 'GET', `/api/admin/menus?title=${encodeURIComponent('仪表')}`, { token, headers: zh })).body.data.list);
    assert.deepEqual(hits.map((m) => m.slug), ['dashboard']);
  });

  test('administrators edit each language: `title` in their own language, or `title_i18n` for several', async () => {
    const made = await create({ title: 'Reports', title_i18n: { 'zh-CN': '报表' } });
    assert.deepEqual(made.title_i18n, { 'en-US': 'Reports', 'zh-CN': '报表' });
    const read = async (lang: string) => (await call(app, 'GET', `/api/admin/menus/${made.id}`, { token, headers: { 'accept-language': lang } })).body.data;

    // An English writer edits the English title; the Chinese one stays.
    assertOk(await putMenu(made.id, { title: 'Report list' }));
    assert.deepEqual([(await read('en-US')).title, (await read('zh-CN')).title], ['Report list', '报表']);
    // A Chinese writer edits what they see: the Chinese title.
    const put = await call(app, 'PUT', `/api/admin/menus/${made.id}`, { token, headers: zh, body: { title: '报表列表' } });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal(put.body.data.title, '报表列表');
    assert.deepEqual(put.body.data.title_i18n, { 'en-US': 'Report list', 'zh-CN': '报表列表' });
    // Both at once; null removes a translation, which then shows the default title.
    assertOk(await putMenu(made.id, { title_i18n: { 'en-US': 'Statements', 'zh-CN': '报告' } }));
    assert.deepEqual((await read('zh-CN')).title_i18n, { 'en-US': 'Statements', 'zh-CN': '报告' });
    assertOk(await putMenu(made.id, { title_i18n: { 'zh-CN': null } }));
    assert.equal((await read('zh-CN')).title, 'Statements');
    // With no translation, a Chinese writer edits the one title everybody sees.
    await call(app, 'PUT', `/api/admin/menus/${made.id}`, { token, headers: zh, body: { title: '对账单' } });
    assert.deepEqual([(await read('en-US')).title, (await read('zh-CN')).title_i18n], ['对账单', { 'en-US': '对账单', 'zh-CN': null }]);
  });

  test('bad translations are refused with 400 30001 and change nothing', async () => {
    const made = await create({ title: 'Kept' });
    for (const title_i18n of [{ 'fr-FR': 'Gardé' }, { 'zh-CN': ' ' }, { 'en-US': null }, { 'zh-CN': 'x'.repeat(65) }, 'Kept']) {
      assertError(await putMenu(made.id, { title_i18n }), 400, 30001);
    }
    assertError(await postMenu({ title: 'New', slug: uniq('m'), type: 2, title_i18n: { 'zh-CN': '' } }), 400, 30001);
    assert.deepEqual(assertOk(await getMenu(made.id)).title_i18n, { 'en-US': 'Kept', 'zh-CN': null });
  });
});
