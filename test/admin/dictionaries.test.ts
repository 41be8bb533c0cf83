// Dictionaries: types (parent_id 0) and their items, the seeded defaults, the list filters
// (type_code above all), validation, code uniqueness, the delete rule and permissions.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.ts';
import { call, login, signedInAdmin, type Reply } from '../helpers/http.ts';
import { assertError, assertOk } from '../helpers/assert.ts';

const DISPLAY_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const UNKNOWN_ID = 987_654_321;
const BASE = '/api/admin/dictionaries';
const FIELDS = ['code', 'created_at', 'description', 'description_i18n', 'id', 'name', 'name_i18n', 'parent_id', 'sort', 'status', 'updated_at', 'value'];

interface Dict {
  id: number;
  parent_id: number;
  name: string;
  code: string;
  value: string;
  description: string;
  status: number;
  sort: number;
  created_at: string;
  updated_at: string;
}

let app: TestApp;
let token: string;
let seq = 0;

before(async () => {
  app = await startApp();
  token = await login(app);
});
after(() => app?.close());

const list = (query = '', t = token): Promise<Reply> => call(app, 'GET', `${BASE}${query}`, { token: t });
const getOne = (id: number | string, t = token): Promise<Reply> => call(app, 'GET', `${BASE}/${id}`, { token: t });
const create = (body: unknown, t = token): Promise<Reply> => call(app, 'POST', BASE, { token: t, body });
const update = (id: number | string, body: unknown, t = token): Promise<Reply> => call(app, 'PUT', `${BASE}/${id}`, { token: t, body });
const remove = (id: number | string, t = token): Promise<Reply> => call(app, 'DELETE', `${BASE}/${id}`, { token: t });

/** A code no other test uses. */
const uniq = (prefix: string) => `${prefix}_${(seq += 1)}_${Date.now().toString(36)}`;

async function newType(extra: Record<string, unknown> = {}): Promise<Dict> {
  const res = await create({ name: 'Type', code: uniq('type'), ...extra });
  return assertOk(res) as Dict;
}

async function newItem(parentId: number, extra: Record<string, unknown> = {}): Promise<Dict> {
  const res = await create({ parent_id: parentId, name: 'Item', code: uniq('item'), ...extra });
  return assertOk(res) as Dict;
}

/** Every row as text, to show that a refused request changed nothing. */
const snapshot = () =>
  app.platform.db.query(
    `SELECT id::text, parent_id::text, name, code, value, description, status::text, sort::text, created_at::text, updated_at::text
     FROM admin.dictionaries ORDER BY id`,
  );

function assertRecord(d: Dict): void {
  assert.deepEqual(Object.keys(d).sort(), FIELDS, JSON.stringify(d));
  assert.ok(Number.isInteger(d.id) && d.id > 0);
  assert.ok(Number.isInteger(d.parent_id) && d.parent_id >= 0);
  assert.match(d.created_at, DISPLAY_TIME);
  assert.match(d.updated_at, DISPLAY_TIME);
}

describe('seeded dictionaries', () => {
  test('a fresh install has the default types and items, in English', async () => {
    const types = assertOk(await list('?parent_id=0&order_by=sort:asc&page_size=100'));
    const codes = (types.list as Dict[]).map((t) => t.code);
    for (const c of ['order_status', 'payment_status', 'admin_status', 'menu_type']) assert.ok(codes.includes(c), c);

    const items = async (code: string) => {
      const data = assertOk(await list(`?type_code=${code}&order_by=sort:asc&page_size=100`));
      assert.equal(data.total, data.list.length);
      return (data.list as Dict[]).map((d) => [d.code, d.name, d.value]);
    };
    assert.deepEqual(await items('order_status'), [['pending', 'Pending', 'pending'], ['paid', 'Paid', 'paid'], ['cancelled', 'Cancelled', 'cancelled']]);
    assert.deepEqual(await items('payment_status'), [
      ['pending', 'Pending', 'pending'], ['paid', 'Paid', 'paid'], ['failed', 'Failed', 'failed'], ['cancelled', 'Cancelled', 'cancelled'],
    ]);
    assert.deepEqual(await items('admin_status'), [['enabled', 'Enabled', '1'], ['disabled', 'Disabled', '0']]);
    assert.deepEqual(await items('menu_type'), [['directory', 'Directory', '1'], ['menu', 'Menu', '2'], ['button', 'Button', '3']]);
  });

  test('the permission catalogue has the dictionary slugs, linked to the Dictionaries menu', async () => {
    const rows = await app.platform.db.query<{ slug: string; menu: string | null }>(
      `SELECT p.slug, m.slug AS menu FROM admin.permissions p LEFT JOIN admin.menus m ON m.id = p.menu_id
       WHERE p.slug LIKE 'dictionary.%' ORDER BY p.slug`,
    );
    assert.deepEqual(rows.map((r) => [r.slug, r.menu]), [
      ['dictionary.create', 'dictionary'], ['dictionary.delete', 'dictionary'], ['dictionary.list', 'dictionary'], ['dictionary.update', 'dictionary'],
    ]);
  });
});

describe('POST /dictionaries', () => {
  test('creates a type with defaults, then items under it', async () => {
    const code = uniq('colour');
    const type = assertOk(await create({ name: 'Colour', code })) as Dict;
    assertRecord(type);
    assert.deepEqual(
      { parent_id: type.parent_id, name: type.name, code: type.code, value: type.value, description: type.description, status: type.status, sort: type.sort },
      { parent_id: 0, name: 'Colour', code, value: '', description: '', status: 1, sort: 0 },
    );
    const now = Date.now();
    assert.ok(Math.abs(Date.parse(type.created_at.replace(' ', 'T') + 'Z') - now) < 60_000, type.created_at);

    const item = assertOk(await create({ parent_id: type.id, name: 'Red', code: 'red', value: '#f00', description: 'warm', status: 0, sort: 5 })) as Dict;
    assertRecord(item);
    assert.deepEqual(
      { parent_id: item.parent_id, name: item.name, code: item.code, value: item.value, description: item.description, status: item.status, sort: item.sort },
      { parent_id: type.id, name: 'Red', code: 'red', value: '#f00', description: 'warm', status: 0, sort: 5 },
    );
    assert.deepEqual(assertOk(await getOne(item.id)), item);
  });

  test('the parent must be an existing type: unknown id or an item is 400 30001, nothing created', async () => {
    const type = await newType();
    const item = await newItem(type.id, { name: 'Crimson' });
    const before = await snapshot();
    const unknown = await create({ parent_id: UNKNOWN_ID, name: 'Orphan', code: uniq('orphan') });
    assertError(unknown, 400, 30001);
    assert.match(unknown.body.message, /parent_id/);
    const nested = await create({ parent_id: item.id, name: 'Nested', code: uniq('nested') });
    assertError(nested, 400, 30001);
    assert.ok(nested.body.message.includes('the parent "Crimson" (parent_id) is an item, not a dictionary type: items cannot nest'), nested.body.message);
    assert.deepEqual(await snapshot(), before);
  });

  test('a duplicate code is 400 30002, ignoring case; the same code in another type is fine', async () => {
    const before = await snapshot();
    const dupType = await create({ name: 'Again', code: 'ORDER_STATUS' });
    assertError(dupType, 400, 30002);
    assert.match(dupType.body.message, /ORDER_STATUS/);
    assert.deepEqual(await snapshot(), before);

    const a = await newType({ name: 'Sizes', name_i18n: { 'zh-CN': '尺码' } });
    const b = await newType();
    await newItem(a.id, { code: 'shared' });
    const dupItem = await create({ parent_id: a.id, name: 'Again', code: 'Shared' });
    assertError(dupItem, 400, 30002);
    assert.ok(dupItem.body.message.includes('code "Shared" already exists in dictionary type "Sizes"'), dupItem.body.message);
    const dupItemZh = await call(app, 'POST', BASE, { token, body: { parent_id: a.id, name: 'Again', code: 'Shared' }, headers: { 'accept-language': 'zh-CN' } });
    assert.ok(dupItemZh.body.message.includes('字典类型 "尺码" 中已存在编码 "Shared"'), dupItemZh.body.message);
    await newItem(b.id, { code: 'shared' });
    // An item may use a type's code: codes are unique among types and within one type.
    await newItem(b.id, { code: a.code });
    const items = assertOk(await list(`?parent_id=${a.id}`));
    assert.equal(items.total, 1);
  });

  test('invalid bodies are 400 30001 and create nothing', async () => {
    const type = await newType();
    const before = await snapshot();
    const good = { name: 'Fine', code: uniq('fine') };
    const bad: unknown[] = [
      {},
      { name: 'No code' },
      { code: uniq('noname') },
      { ...good, name: '' },
      { ...good, name: '   ' },
      { ...good, name: 'x'.repeat(65) },
      { ...good, name: 'nul\u0000' },
      { ...good, code: '' },
      { ...good, code: 'has space' },
      { ...good, code: '_leading' },
      { ...good, code: 'c'.repeat(65) },
      { ...good, value: 'v'.repeat(256) },
      { ...good, description: 'd'.repeat(256) },
      { ...good, status: 2 },
      { ...good, status: -1 },
      { ...good, status: '1' },
      { ...good, status: true },
      { ...good, sort: -1 },
      { ...good, sort: 1.5 },
      { ...good, sort: '3' },
      { ...good, parent_id: -1 },
      { ...good, parent_id: String(type.id) },
      { ...good, parent_id: null },
      { ...good, name: ['a'] },
      { ...good, code: [good.code] },
      { ...good, parent_id: [type.id] },
      { ...good, status: [1] },
      { ...good, extra: 1 },
      { ...good, id: 5 },
      [good],
    ];
    for (const body of bad) assertError(await create(body), 400, 30001);
    for (const payload of ['"text"', '42', 'null']) {
      assertError(await call(app, 'POST', BASE, { token, payload, headers: { 'content-type': 'application/json' } }), 400, 30001);
    }
    assert.deepEqual(await snapshot(), before);
    // Malformed JSON is 30004.
    const malformed = await call(app, 'POST', BASE, { token, payload: '{"name":', headers: { 'content-type': 'application/json' } });
    assertError(malformed, 400, 30004);
    assert.deepEqual(await snapshot(), before);
    // The limits themselves are accepted.
    assertOk(await create({ name: 'n'.repeat(64), code: `c${'0'.repeat(50)}${seq}`, value: 'v'.repeat(255), description: 'd'.repeat(255), sort: 1_000_000 }));
  });
});

describe('GET /dictionaries', () => {
  test('pages with defaults 1 and 10, newest first by default', async () => {
    const data = assertOk(await list());
    assert.equal(data.page, 1);
    assert.equal(data.page_size, 10);
    assert.ok(data.total >= 16);
    assert.equal(data.list.length, 10);
    const ids = (data.list as Dict[]).map((d) => d.id);
    assert.deepEqual(ids, [...ids].sort((x, y) => y - x));
    for (const d of data.list as Dict[]) assertRecord(d);

    const type = await newType();
    const created = [];
    for (let i = 0; i < 5; i++) created.push((await newItem(type.id)).id);
    const p1 = assertOk(await list(`?parent_id=${type.id}&page_size=2`));
    const p3 = assertOk(await list(`?parent_id=${type.id}&page_size=2&page=3`));
    const p4 = assertOk(await list(`?parent_id=${type.id}&page_size=2&page=4`));
    assert.equal(p1.total, 5);
    assert.deepEqual((p1.list as Dict[]).map((d) => d.id), [created[4], created[3]]);
    assert.deepEqual((p3.list as Dict[]).map((d) => d.id), [created[0]]);
    assert.equal(p3.page, 3);
    assert.deepEqual(p4.list, []);
    assert.equal(p4.total, 5);
  });

  test('type_code returns that type’s items (ignoring case); unknown code is an empty list', async () => {
    const type = await newType({ code: uniq('Fruit') });
    const other = await newType();
    const apple = await newItem(type.id, { code: 'apple', sort: 2 });
    const pear = await newItem(type.id, { code: 'pear', sort: 1 });
    await newItem(other.id, { code: 'apple' });

    const data = assertOk(await list(`?type_code=${type.code.toUpperCase()}&order_by=sort:asc`));
    assert.equal(data.total, 2);
    assert.deepEqual((data.list as Dict[]).map((d) => d.id), [pear.id, apple.id]);

    const none = assertOk(await list(`?type_code=${uniq('nothing')}`));
    assert.deepEqual([none.total, none.list], [0, []]);
    // An item's code is not a type code.
    const notType = assertOk(await list('?type_code=pending'));
    assert.equal(notType.total, 0);
    // Combined with other filters (AND).
    const both = assertOk(await list(`?type_code=${type.code}&code=PEA`));
    assert.deepEqual((both.list as Dict[]).map((d) => d.id), [pear.id]);
    const conflicting = assertOk(await list(`?type_code=${type.code}&parent_id=${other.id}`));
    assert.equal(conflicting.total, 0);
  });

  test('filters: parent_id, fuzzy name and code, status', async () => {
    const type = await newType();
    const tag = uniq('Tag');
    const a = await newItem(type.id, { name: `Alpha ${tag}`, code: `${tag}_a`, status: 1 });
    const b = await newItem(type.id, { name: `Beta ${tag}`, code: `${tag}_b`, status: 0 });
    const ids = (r: Reply) => (assertOk(r).list as Dict[]).map((d) => d.id).sort((x, y) => x - y);

    assert.deepEqual(ids(await list(`?parent_id=${type.id}`)), [a.id, b.id]);
    assert.deepEqual(ids(await list(`?name=${encodeURIComponent(`alpha ${tag.toLowerCase()}`)}`)), [a.id]);
    assert.deepEqual(ids(await list(`?name=${tag}`)), [a.id, b.id]);
    assert.deepEqual(ids(await list(`?code=${tag.toUpperCase()}_B`)), [b.id]);
    assert.deepEqual(ids(await list(`?parent_id=${type.id}&status=0`)), [b.id]);
    assert.deepEqual(ids(await list(`?parent_id=${type.id}&status=1`)), [a.id]);
    // LIKE wildcards in the input match themselves.
    assert.deepEqual(ids(await list(`?parent_id=${type.id}&name=%25`)), []);
    assert.deepEqual(ids(await list(`?parent_id=${type.id}&code=_`)), [a.id, b.id]);
    assert.deepEqual(ids(await list(`?parent_id=${type.id}&code=${tag}%25`)), []);
    // parent_id=0: only types.
    const types = assertOk(await list('?parent_id=0&page_size=100')).list as Dict[];
    assert.ok(types.every((d) => d.parent_id === 0));
    assert.ok(types.some((d) => d.id === type.id));
  });

  test('order_by over the allow-list', async () => {
    const type = await newType();
    const x = await newItem(type.id, { code: 'b_code', sort: 3 });
    const y = await newItem(type.id, { code: 'a_code', sort: 3 });
    const z = await newItem(type.id, { code: 'c_code', sort: 1 });
    const order = async (o: string) => (assertOk(await list(`?parent_id=${type.id}&order_by=${o}`)).list as Dict[]).map((d) => d.id);
    assert.deepEqual(await order('id:asc'), [x.id, y.id, z.id]);
    assert.deepEqual(await order('id:desc'), [z.id, y.id, x.id]);
    assert.deepEqual(await order('sort:asc'), [z.id, x.id, y.id]);
    assert.deepEqual(await order('sort:desc'), [y.id, x.id, z.id]);
    assert.deepEqual(await order('code:asc'), [y.id, x.id, z.id]);
    assert.deepEqual(await order('code:desc'), [z.id, x.id, y.id]);
    assert.deepEqual(await order('created_at:asc'), [x.id, y.id, z.id]);
    assert.deepEqual(await order('created_at:desc'), [z.id, y.id, x.id]);
  });

  test('bad queries are 400 30001', async () => {
    const bad = [
      '?page_size=0', '?page_size=101', '?page=0', '?page=abc', '?page_size=1.5',
      '?order_by=name:asc', '?order_by=id', '?order_by=id:up', '?order_by=value:desc', '?order_by=id:asc&order_by=id:desc',
      '?status=2', '?status=-1', '?status=abc', '?status=1&status=0',
      '?parent_id=-1', '?parent_id=abc', '?parent_id=1&parent_id=2',
      '?type_code=has%20space', '?type_code=', '?type_code=a&type_code=b',
      `?name=${'n'.repeat(65)}`, '?name=%00', '?name=a&name=b',
    ];
    for (const q of bad) assertError(await list(q), 400, 30001);
    assertOk(await list('?page_size=100&page=1&status=1&order_by=sort:asc'));
  });
});

describe('GET /dictionaries/{id}', () => {
  test('returns one record; unknown is 404 30003; a non-integer id is 400 30001', async () => {
    const type = await newType({ description: 'one' });
    const got = assertOk(await getOne(type.id)) as Dict;
    assert.deepEqual(got, type);
    assertError(await getOne(UNKNOWN_ID), 404, 30003);
    for (const id of ['abc', '1.5', '0', '-3', '1e3x', '99999999999999999999']) assertError(await getOne(id), 400, 30001);
  });
});

describe('PUT /dictionaries/{id}', () => {
  test('changes only the fields sent', async () => {
    const type = await newType();
    const item = await newItem(type.id, { value: 'v1', description: 'keep me', sort: 4 });
    const changed = assertOk(await update(item.id, { name: 'Renamed', value: 'v2', status: 0 })) as Dict;
    assertRecord(changed);
    assert.deepEqual(
      { ...changed, updated_at: item.updated_at },
      { ...item, name: 'Renamed', name_i18n: { 'en-US': 'Renamed', 'zh-CN': null }, value: 'v2', status: 0 },
    );
    assert.ok(changed.updated_at >= item.updated_at);
    assert.deepEqual(assertOk(await getOne(item.id)), changed);
    // Same code again is not a duplicate of itself; a change of case is allowed.
    assertOk(await update(item.id, { code: item.code.toUpperCase() }));
  });

  test('a duplicate code is 400 30002 and changes nothing', async () => {
    const type = await newType();
    const a = await newItem(type.id, { code: 'first' });
    const b = await newItem(type.id, { code: 'second' });
    const before = await snapshot();
    assertError(await update(b.id, { code: 'FIRST' }), 400, 30002);
    assertError(await update(type.id, { code: 'order_status' }), 400, 30002);
    // Moving an item into a type that already has its code.
    const other = await newType();
    const c = await newItem(other.id, { code: 'first' });
    const before2 = await snapshot();
    const moved = await update(c.id, { parent_id: type.id });
    assertError(moved, 400, 30002);
    assert.match(moved.body.message, /first/);
    assert.deepEqual(await snapshot(), before2);
    assert.equal(before.length + 2, before2.length);
    assert.equal((assertOk(await getOne(a.id)) as Dict).code, 'first');
  });

  test('parent rules: move to another type, no nesting, no self parent, a type with items stays a type', async () => {
    const t1 = await newType({ name: 'Colours' });
    const t2 = await newType();
    const item = await newItem(t1.id);
    const other = await newItem(t1.id);
    const before = await snapshot();
    for (const parent of [other.id, item.id, UNKNOWN_ID]) assertError(await update(item.id, { parent_id: parent }), 400, 30001);
    assertError(await update(t1.id, { parent_id: t1.id }), 400, 30001);
    const typeWithItems = await update(t1.id, { parent_id: t2.id });
    assertError(typeWithItems, 400, 30001);
    assert.ok(typeWithItems.body.message.includes('dictionary type "Colours" has 2 items'), typeWithItems.body.message);
    assert.deepEqual(await snapshot(), before);

    assert.equal((assertOk(await update(item.id, { parent_id: t2.id })) as Dict).parent_id, t2.id);
    assert.equal(assertOk(await list(`?parent_id=${t2.id}`)).total, 1);
    // An item can become a type, and a type without items an item.
    assert.equal((assertOk(await update(other.id, { parent_id: 0 })) as Dict).parent_id, 0);
    assert.equal((assertOk(await update(other.id, { parent_id: t2.id })) as Dict).parent_id, t2.id);
    // Its parent unchanged is no move (an item sending its own parent_id).
    assertOk(await update(other.id, { parent_id: t2.id, sort: 9 }));
  });

  test('bad input is 400 30001; unknown id is 404 30003; nothing changes', async () => {
    const type = await newType();
    const before = await snapshot();
    const bad: unknown[] = [
      {}, { name: '' }, { name: ' ' }, { code: 'a b' }, { status: 3 }, { status: '0' }, { sort: -5 }, { parent_id: -1 },
      { name: ['x'] }, { status: [0] }, { value: 1 }, { description: null }, { unknown: 1 }, { id: type.id + 1 },
      { created_at: '2020-01-01 00:00:00' },
    ];
    for (const body of bad) assertError(await update(type.id, body), 400, 30001);
    for (const id of ['abc', '0', '2.5']) assertError(await update(id, { name: 'x' }), 400, 30001);
    assertError(await update(UNKNOWN_ID, { name: 'x' }), 404, 30003);
    assert.deepEqual(await snapshot(), before);
  });
});

describe('DELETE /dictionaries/{id}', () => {
  test('deletes items; a type with items is refused with 400 40002 until they are gone', async () => {
    const type = await newType();
    const a = await newItem(type.id);
    const b = await newItem(type.id);
    const before = await snapshot();
    const refused = await remove(type.id);
    assertError(refused, 400, 40002);
    assert.match(refused.body.message, new RegExp(`${type.code}.*2 item`));
    assert.deepEqual(await snapshot(), before);

    const res = await remove(a.id);
    assert.equal(assertOk(res), null);
    assertError(await getOne(a.id), 404, 30003);
    assertError(await remove(a.id), 404, 30003);
    assertError(await remove(type.id), 400, 40002);
    assertOk(await remove(b.id));
    assertOk(await remove(type.id));
    assertError(await getOne(type.id), 404, 30003);
    assert.equal(assertOk(await list(`?parent_id=${type.id}`)).total, 0);
    // The code is free again.
    assertOk(await create({ name: 'Reborn', code: type.code }));
  });

  test('seeded types with items cannot be deleted either', async () => {
    const types = assertOk(await list('?parent_id=0&code=order_status')).list as Dict[];
    const orderStatus = types.find((t) => t.code === 'order_status')!;
    assertError(await remove(orderStatus.id), 400, 40002);
  });

  test('a non-integer id is 400 30001; unknown is 404 30003', async () => {
    const before = await snapshot();
    for (const id of ['abc', '0', '-1', '1.5']) assertError(await remove(id), 400, 30001);
    assertError(await remove(UNKNOWN_ID), 404, 30003);
    assert.deepEqual(await snapshot(), before);
  });
});

describe('permissions', () => {
  test('dictionary.list reads only; each write needs its own slug (403 20001, nothing changed)', async () => {
    const type = await newType();
    const item = await newItem(type.id);
    const { token: reader } = await signedInAdmin(app, { permissions: ['dictionary.list'] });
    assertOk(await list('', reader));
    assertOk(await getOne(item.id, reader));
    const before = await snapshot();
    assertError(await create({ name: 'No', code: uniq('no') }, reader), 403, 20001);
    assertError(await update(item.id, { name: 'No' }, reader), 403, 20001);
    assertError(await remove(item.id, reader), 403, 20001);
    assert.deepEqual(await snapshot(), before);

    const { token: creator } = await signedInAdmin(app, { permissions: ['dictionary.create'] });
    assertOk(await create({ parent_id: type.id, name: 'Yes', code: uniq('yes') }, creator));
    assertError(await list('', creator), 403, 20001);
    const { token: updater } = await signedInAdmin(app, { permissions: ['dictionary.update'] });
    assertOk(await update(item.id, { name: 'Changed' }, updater));
    assertError(await remove(item.id, updater), 403, 20001);
    const { token: deleter } = await signedInAdmin(app, { permissions: ['dictionary.delete'] });
    assertOk(await remove(item.id, deleter));
  });

  test('the permission check comes before validation', async () => {
    const { token: reader } = await signedInAdmin(app, { permissions: ['dictionary.list'] });
    assertError(await create({ bogus: true }, reader), 403, 20001);
  });
});

describe('concurrency', () => {
  test('the same code sent at once: exactly one is created, the others are 30002', async () => {
    const code = uniq('race');
    const replies = await Promise.all(Array.from({ length: 6 }, () => create({ name: 'Race', code })));
    const created = replies.filter((r) => r.status === 200);
    assert.equal(created.length, 1, JSON.stringify(replies.map((r) => r.body)));
    for (const r of replies) if (r.status !== 200) assertError(r, 400, 30002);
    assert.equal(assertOk(await list(`?parent_id=0&code=${code}`)).total, 1);
  });

  test('deleting a type while items are added under it never leaves an orphan item', async () => {
    for (let round = 0; round < 5; round++) {
      const type = await newType();
      const replies = await Promise.all([
        ...Array.from({ length: 3 }, () => create({ parent_id: type.id, name: 'Racer', code: uniq('racer') })),
        remove(type.id),
        ...Array.from({ length: 3 }, () => create({ parent_id: type.id, name: 'Racer', code: uniq('racer') })),
      ]);
      const deleted = replies[3]!;
      const added = replies.filter((r, i) => i !== 3 && r.status === 200).length;
      for (const [i, r] of replies.entries()) {
        if (i !== 3 && r.status !== 200) assertError(r, 400, 30001);
      }
      const [row] = await app.platform.db.query<{ n: number }>('SELECT count(*)::int AS n FROM admin.dictionaries WHERE parent_id = $1', [type.id]);
      if (deleted.status === 200) {
        assert.equal(row!.n, 0);
        assert.equal(added, 0);
        assertError(await getOne(type.id), 404, 30003);
      } else {
        assertError(deleted, 400, 40002);
        assert.equal(row!.n, added);
        assert.ok(added > 0);
      }
    }
  });
});

describe('names and descriptions in both languages', () => {
  const zh = (method: 'GET' | 'PUT', url: string, body?: unknown) =>
    call(app, method, `${BASE}${url}`, { token, headers: { 'accept-language': 'zh-CN' }, ...(body !== undefined ? { body } : {}) });

  test('the seeded types and items read in the reader’s language, with both values for the edit form', async () => {
    const types = (await zh('GET', '?parent_id=0&page_size=100')).body.data.list;
    const orderStatus = types.find((t: any) => t.code === 'order_status');
    assert.deepEqual([orderStatus.name, orderStatus.description], ['订单状态', '订单的状态']);
    assert.deepEqual(orderStatus.name_i18n, { 'en-US': 'Order status', 'zh-CN': '订单状态' });
    assert.ok(types.filter((t: any) => ['order_status', 'payment_status', 'admin_status', 'menu_type'].includes(t.code)).every((t: any) => t.name_i18n['zh-CN']));
    const items = (await zh('GET', '?type_code=order_status')).body.data.list;
    assert.deepEqual(items.map((i: any) => i.name).sort(), ['已取消', '已支付', '待支付'].sort());
    const en = assertOk(await list('?type_code=order_status')).list;
    assert.deepEqual(en.map((i: any) => i.name).sort(), ['Cancelled', 'Paid', 'Pending']);
    const found = (await zh('GET', `?parent_id=0&name=${encodeURIComponent('订单')}`)).body.data.list;
    assert.deepEqual(found.map((t: any) => t.code), ['order_status']);
  });

  test('a type is created and edited per language', async () => {
    const made = await newType({ name: 'Shift', name_i18n: { 'zh-CN': '班次' }, description: 'Work shifts', description_i18n: { 'zh-CN': '工作班次' } });
    const edited = (await zh('PUT', `/${made.id}`, { description: '排班' })).body.data;
    assert.deepEqual([edited.name, edited.description, edited.description_i18n], ['班次', '排班', { 'en-US': 'Work shifts', 'zh-CN': '排班' }]);
    assert.equal(assertOk(await getOne(made.id)).description, 'Work shifts');
    assertError(await update(made.id, { name_i18n: { 'zh-CN': '  ' } }), 400, 30001);
  });
});
