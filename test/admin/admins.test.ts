// Administrator management: list (filters, order, paging, roles and department per record),
// create, read, update, delete, password reset and authenticator unbinding by another
// administrator; protected administrators, self-protection, privilege escalation, sessions.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { newTotpSecret, totpCode, TOTP_PERIOD } from '../../src/platform/auth/totp.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { call, login, seedAdmin, signedInAdmin, type Reply } from '../helpers/http.ts';
import { assertError, assertOk } from '../helpers/assert.ts';

const DISPLAY_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const UNKNOWN_ID = 987_654_321;
const BASE = '/api/admin/admins';

let app: TestApp;
let superToken: string;
let superId: number;
let superRoleId: number;

before(async () => {
  app = await startApp();
  superToken = await login(app);
  const info = await call(app, 'GET', '/api/admin/info', { token: superToken });
  superId = info.body.data.id as number;
  superRoleId = info.body.data.roles[0].id as number;
});
after(() => app?.close());

let seq = 0;
const uniq = (prefix: string) => `${prefix}${++seq}_${Date.now().toString(36)}`;

const get = (token: string, url: string) => call(app, 'GET', url, { token });
const post = (token: string, url: string, body: unknown) => call(app, 'POST', url, { token, body });
const put = (token: string, url: string, body: unknown) => call(app, 'PUT', url, { token, body });
const del = (token: string, url: string) => call(app, 'DELETE', url, { token });
const info = (token: string) => get(token, '/api/admin/info');

async function createRole(name: string, permissionSlugs: string[] = []): Promise<number> {
  const db = app.platform.db;
  const [role] = await db.query<{ id: number }>('INSERT INTO admin.roles (name, slug) VALUES ($1, $2) RETURNING id', [name, name.toLowerCase()]);
  if (permissionSlugs.length) {
    await db.query(
      'INSERT INTO admin.role_permissions (role_id, permission_id) SELECT $1, id FROM admin.permissions WHERE slug = ANY($2::text[])',
      [role!.id, permissionSlugs],
    );
  }
  return Number(role!.id);
}

async function createDepartment(name: string): Promise<number> {
  const [d] = await app.platform.db.query<{ id: number }>('INSERT INTO admin.departments (name, parent_id) VALUES ($1, 1) RETURNING id', [name]);
  return Number(d!.id);
}

async function adminRow(id: number) {
  const [row] = await app.platform.db.query<Record<string, unknown>>('SELECT * FROM admin.admins WHERE id = $1', [id]);
  return row;
}

async function countByUsername(username: string): Promise<number> {
  const [row] = await app.platform.db.query<{ n: number | string }>('SELECT count(*) AS n FROM admin.admins WHERE lower(username) = lower($1)', [username]);
  return Number(row!.n);
}

async function create(body: Record<string, unknown>, token = superToken): Promise<any> {
  return assertOk(await post(token, BASE, body));
}

function assertRecord(r: any) {
  assert.deepEqual(
    Object.keys(r).sort(),
    ['avatar', 'created_at', 'data_scope', 'department', 'department_id', 'email', 'id', 'is_2fa_bound', 'last_login_at', 'locked_until', 'nickname', 'phone', 'roles', 'status', 'updated_at', 'username'],
  );
  assert.match(r.created_at, DISPLAY_TIME);
  assert.match(r.updated_at, DISPLAY_TIME);
  if (r.last_login_at !== null) assert.match(r.last_login_at, DISPLAY_TIME);
}

describe('POST /admins', () => {
  test('creates an administrator and returns the record, without secrets', async () => {
    const roleId = await createRole(uniq('Editor'), ['admin.list']);
    const username = uniq('alice');
    const res = await post(superToken, BASE, {
      username, password: 'Alice-pass-1', nickname: 'Alice', email: 'alice@example.com', phone: '+1 555-0100',
      avatar: 'https://example.com/a.png', department_id: 1, role_ids: [roleId],
    });
    const r = assertOk(res);
    assertRecord(r);
    assert.equal(r.username, username);
    assert.equal(r.nickname, 'Alice');
    assert.equal(r.email, 'alice@example.com');
    assert.equal(r.phone, '+1 555-0100');
    assert.equal(r.avatar, 'https://example.com/a.png');
    assert.equal(r.department_id, 1);
    assert.deepEqual(r.department, { id: 1, name: 'Head Office' });
    assert.equal(r.roles.length, 1);
    assert.equal(r.roles[0].id, roleId);
    assert.equal(r.status, 1, 'status defaults to 1');
    assert.equal(r.is_2fa_bound, false);
    assert.equal(r.last_login_at, null);
    assert.doesNotMatch(JSON.stringify(res.body), /password|hash|totp|secret/i);

    const token = await login(app, username, 'Alice-pass-1');
    assertOk(await get(token, BASE));
  });

  test('minimal body: no department, no roles; status can be 0', async () => {
    const r = await create({ username: uniq('min'), password: 'Minimal-pass-1', status: 0 });
    assert.equal(r.department_id, null);
    assert.equal(r.department, null);
    assert.deepEqual(r.roles, []);
    assert.equal(r.status, 0);
    assert.equal(r.nickname, '');
    assert.equal(r.email, '');
  });

  test('the username is unique regardless of case: 400 30002', async () => {
    const username = uniq('Bob');
    await create({ username, password: 'Bob-pass-123' });
    assertError(await post(superToken, BASE, { username: username.toUpperCase(), password: 'Bob-pass-123' }), 400, 30002);
    assertError(await post(superToken, BASE, { username: 'ADMIN', password: 'Bob-pass-123' }), 400, 30002);
    assert.equal(await countByUsername(username), 1);
  });

  test('bad input is 400 30001 and nothing is created', async () => {
    const username = uniq('bad');
    const cases: Record<string, unknown>[] = [
      { password: 'Valid-pass-1' },
      { username, password: 'short' },
      { username, password: 'x'.repeat(129) },
      { username: 'ab', password: 'Valid-pass-1' },
      { username: 'a'.repeat(65), password: 'Valid-pass-1' },
      { username: 'has space', password: 'Valid-pass-1' },
      { username: 'émile', password: 'Valid-pass-1' },
      { username, password: 'Valid-pass-1', email: 'not-an-email' },
      { username, password: 'Valid-pass-1', department_id: UNKNOWN_ID },
      { username, password: 'Valid-pass-1', department_id: '1' },
      { username, password: 'Valid-pass-1', role_ids: [UNKNOWN_ID] },
      { username, password: 'Valid-pass-1', role_ids: [1, 1] },
      { username, password: 'Valid-pass-1', status: 2 },
      { username, password: 'Valid-pass-1', status: 'yes' },
      { username, password: 'Valid-pass-1', nickname: 'n'.repeat(65) },
    ];
    for (const body of cases) assertError(await post(superToken, BASE, body), 400, 30001);
    assert.equal(await countByUsername(username), 0);
    assert.equal(await countByUsername('ab'), 0);
  });

  test('privilege-escalation fields are refused by name (400 30001), nothing created', async () => {
    const username = uniq('esc');
    for (const extra of [{ is_super: true }, { permissions: ['admin.delete'] }, { roles: [{ id: superRoleId }] }, { id: 1 }, { password_hash: 'x' }, { totp_secret: 'x' }]) {
      const res = await post(superToken, BASE, { username, password: 'Valid-pass-1', ...extra });
      assertError(res, 400, 30001);
      assert.match(res.body.message, new RegExp(Object.keys(extra)[0]!));
    }
    assert.equal(await countByUsername(username), 0);
  });

  test('a non-super creator cannot grant the super role nor a role carrying permissions they lack (403 20003)', async () => {
    const creator = await signedInAdmin(app, { permissions: ['admin.create', 'admin.list'] });
    const username = uniq('grant');
    assertError(await post(creator.token, BASE, { username, password: 'Valid-pass-1', role_ids: [superRoleId] }), 403, 20003);
    const strong = await createRole(uniq('Strong'), ['admin.delete']);
    assertError(await post(creator.token, BASE, { username, password: 'Valid-pass-1', role_ids: [strong] }), 403, 20003);
    assert.equal(await countByUsername(username), 0);
    const weak = await createRole(uniq('Weak'), ['admin.list']);
    const r = await create({ username, password: 'Valid-pass-1', role_ids: [weak] }, creator.token);
    assert.deepEqual(r.roles.map((x: any) => x.id), [weak]);
  });

  test("needs 'admin.create': 403 20001 without it", async () => {
    const a = await signedInAdmin(app, { permissions: ['admin.list'] });
    const username = uniq('np');
    assertError(await post(a.token, BASE, { username, password: 'Valid-pass-1' }), 403, 20001);
    assert.equal(await countByUsername(username), 0);
  });
});

describe('GET /admins', () => {
  const tag = `lst${Date.now().toString(36)}`;
  let roleA: number;
  let deptB: number;
  const ids: Record<string, number> = {};

  before(async () => {
    roleA = await createRole(`RoleA_${tag}`);
    const roleB = await createRole(`RoleB_${tag}`);
    deptB = await createDepartment(`Dept_${tag}`);
    ids.one = (await create({ username: `${tag}_one`, password: 'Valid-pass-1', nickname: 'Zed Keeper', role_ids: [roleA, roleB] })).id;
    ids.two = (await create({ username: `${tag}_two`, password: 'Valid-pass-1', nickname: 'Amy Porter', department_id: deptB, status: 0 })).id;
    ids.three = (await create({ username: `${tag}_three`, password: 'Valid-pass-1', nickname: 'Max Keeper', department_id: deptB, role_ids: [roleA] })).id;
    await login(app, `${tag}_three`, 'Valid-pass-1');
  });

  const list = async (query: string) => assertOk(await get(superToken, `${BASE}?${query}`));
  const names = (data: any) => data.list.map((r: any) => r.username);

  test('lists records with department, roles and last_login_at; defaults page 1, page_size 10', async () => {
    const data = await list(`username=${tag}`);
    assert.equal(data.page, 1);
    assert.equal(data.page_size, 10);
    assert.equal(data.total, 3);
    for (const r of data.list) assertRecord(r);
    assert.deepEqual(names(data), [`${tag}_three`, `${tag}_two`, `${tag}_one`], 'default order id:desc');
    const one = data.list.find((r: any) => r.id === ids.one);
    assert.deepEqual(one.roles.map((r: any) => r.name).sort(), [`RoleA_${tag}`, `RoleB_${tag}`]);
    for (const role of one.roles) assert.deepEqual(Object.keys(role).sort(), ['id', 'name', 'slug']);
    const two = data.list.find((r: any) => r.id === ids.two);
    assert.deepEqual(two.department, { id: deptB, name: `Dept_${tag}` });
    assert.deepEqual(two.roles, []);
    const three = data.list.find((r: any) => r.id === ids.three);
    assert.match(three.last_login_at, DISPLAY_TIME);
    assert.equal(one.last_login_at, null);
    assert.doesNotMatch(JSON.stringify(data), /password|hash|secret/i);
  });

  test('the seeded role and department are named in the reader’s language, in the list, the detail and an update’s reply', async () => {
    const seededName = (r: Reply) => [r.body.data.roles.map((x: any) => x.name), r.body.data.department?.name];
    const zh = { 'accept-language': 'zh-CN' };
    const listed = (await call(app, 'GET', `${BASE}?username=admin&page_size=100`, { token: superToken, headers: zh })).body.data.list.find((r: any) => r.id === superId);
    assert.deepEqual([listed.roles.map((x: any) => x.name), listed.department?.name], [['超级管理员'], '总部']);
    assert.deepEqual(seededName(await call(app, 'GET', `${BASE}/${superId}`, { token: superToken, headers: zh })), [['超级管理员'], '总部']);
    assert.deepEqual(seededName(await call(app, 'GET', `${BASE}/${superId}`, { token: superToken })), [['Super Administrator'], 'Head Office']);
    const current = (await call(app, 'GET', `${BASE}/${superId}`, { token: superToken })).body.data;
    const updated = await call(app, 'PUT', `${BASE}/${superId}`, { token: superToken, headers: zh, body: { nickname: current.nickname } });
    assert.equal(updated.status, 200);
    assert.deepEqual(seededName(updated), [['超级管理员'], '总部']);
  });

  test('filters: fuzzy username and nickname, status, role_id, department_id', async () => {
    assert.deepEqual(names(await list(`username=${tag}_T`)), [`${tag}_three`, `${tag}_two`], 'case-insensitive fuzzy');
    assert.deepEqual(names(await list(`username=${tag}&nickname=keeper`)), [`${tag}_three`, `${tag}_one`]);
    assert.deepEqual(names(await list(`username=${tag}&status=0`)), [`${tag}_two`]);
    assert.deepEqual(names(await list(`username=${tag}&status=1`)), [`${tag}_three`, `${tag}_one`]);
    assert.deepEqual(names(await list(`role_id=${roleA}`)), [`${tag}_three`, `${tag}_one`]);
    assert.equal((await list(`role_id=${roleA}`)).total, 2, 'one row per administrator, whatever its number of roles');
    assert.deepEqual(names(await list(`department_id=${deptB}`)), [`${tag}_three`, `${tag}_two`]);
    assert.deepEqual(names(await list(`department_id=${deptB}&role_id=${roleA}`)), [`${tag}_three`]);
    assert.equal((await list('username=%25_nobody_')).total, 0, 'LIKE wildcards match themselves');
  });

  test('start_time/end_time bound created_at', async () => {
    const now = Date.now();
    const fmt = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
    assert.equal((await list(`username=${tag}&start_time=${encodeURIComponent(fmt(now - 3600_000))}`)).total, 3);
    assert.equal((await list(`username=${tag}&start_time=${encodeURIComponent(fmt(now + 3600_000))}`)).total, 0);
    assert.equal((await list(`username=${tag}&end_time=${encodeURIComponent(fmt(now - 3600_000))}`)).total, 0);
    assert.equal((await list(`username=${tag}&start_time=${encodeURIComponent(fmt(now - 3600_000))}&end_time=${encodeURIComponent(fmt(now + 3600_000))}`)).total, 3);
    assertError(await get(superToken, `${BASE}?start_time=${encodeURIComponent(fmt(now))}&end_time=${encodeURIComponent(fmt(now - 3600_000))}`), 400, 30001);
    assertError(await get(superToken, `${BASE}?start_time=2026-02-30%2000:00:00`), 400, 30001);
    assertError(await get(superToken, `${BASE}?start_time=yesterday`), 400, 30001);
  });

  test('order_by over the allow-list; anything else is 400 30001', async () => {
    assert.deepEqual(names(await list(`username=${tag}&order_by=username:asc`)), [`${tag}_one`, `${tag}_three`, `${tag}_two`]);
    assert.deepEqual(names(await list(`username=${tag}&order_by=username:desc`)), [`${tag}_two`, `${tag}_three`, `${tag}_one`]);
    assert.deepEqual(names(await list(`username=${tag}&order_by=id:asc`)), [`${tag}_one`, `${tag}_two`, `${tag}_three`]);
    assert.deepEqual(names(await list(`username=${tag}&order_by=status:asc`)), [`${tag}_two`, `${tag}_one`, `${tag}_three`]);
    assert.equal(names(await list(`username=${tag}&order_by=last_login_at:desc`))[0], `${tag}_three`);
    assert.equal(names(await list(`username=${tag}&order_by=created_at:asc`)).length, 3);
    for (const bad of ['password_hash:asc', 'id', 'id:up', 'username:asc;drop', 'nickname:asc']) {
      assertError(await get(superToken, `${BASE}?order_by=${encodeURIComponent(bad)}`), 400, 30001);
    }
  });

  test('paging', async () => {
    const p1 = await list(`username=${tag}&page_size=2&order_by=id:asc`);
    const p2 = await list(`username=${tag}&page_size=2&page=2&order_by=id:asc`);
    assert.equal(p1.total, 3);
    assert.deepEqual([...names(p1), ...names(p2)], [`${tag}_one`, `${tag}_two`, `${tag}_three`]);
    assert.deepEqual((await list(`username=${tag}&page=9`)).list, []);
    for (const q of ['page_size=101', 'page_size=0', 'page=0', 'status=2', 'role_id=x', 'department_id=0']) {
      assertError(await get(superToken, `${BASE}?${q}`), 400, 30001);
    }
  });
});

describe('GET /admins/{id}', () => {
  test('returns the record with department and roles; unknown is 404 30003; bad id 400', async () => {
    const r = assertOk(await get(superToken, `${BASE}/${superId}`));
    assertRecord(r);
    assert.equal(r.username, 'admin');
    assert.deepEqual(r.roles.map((x: any) => x.slug), ['super_admin']);
    assert.match(r.last_login_at, DISPLAY_TIME);
    assertError(await get(superToken, `${BASE}/${UNKNOWN_ID}`), 404, 30003);
    assertError(await get(superToken, `${BASE}/abc`), 400, 30001);
    assertError(await get(superToken, `${BASE}/0`), 400, 30001);
  });
});

describe('PUT /admins/{id}', () => {
  test('updates the fields sent and replaces the roles atomically', async () => {
    const r1 = await createRole(uniq('R1'));
    const r2 = await createRole(uniq('R2'));
    const dept = await createDepartment(uniq('D'));
    const a = await create({ username: uniq('upd'), password: 'Valid-pass-1', nickname: 'Old', email: 'old@example.com', role_ids: [r1] });
    const r = assertOk(await put(superToken, `${BASE}/${a.id}`, { nickname: 'New', phone: '123', department_id: dept, role_ids: [r2] }));
    assert.equal(r.nickname, 'New');
    assert.equal(r.phone, '123');
    assert.equal(r.email, 'old@example.com', 'fields not sent are unchanged');
    assert.deepEqual(r.department, { id: dept, name: r.department.name });
    assert.deepEqual(r.roles.map((x: any) => x.id), [r2]);
    const cleared = assertOk(await put(superToken, `${BASE}/${a.id}`, { email: '', department_id: null, role_ids: [] }));
    assert.equal(cleared.email, '');
    assert.equal(cleared.department, null);
    assert.deepEqual(cleared.roles, []);
    assert.deepEqual(assertOk(await get(superToken, `${BASE}/${a.id}`)), cleared);
    assertError(await put(superToken, `${BASE}/${UNKNOWN_ID}`, { nickname: 'x' }), 404, 30003);
  });

  test('status accepts "1"/"0" and 1/0; disabling refuses the live token at once (401 10004)', async () => {
    const { token, ...a } = await signedInAdmin(app);
    assertOk(await info(token));
    assert.equal(assertOk(await put(superToken, `${BASE}/${a.id}`, { status: '0' })).status, 0);
    assertError(await info(token), 401, 10004);
    assertError(await call(app, 'POST', '/api/admin/login', { body: { username: a.username, password: a.password } }), 403, 10002);
    assert.equal(assertOk(await put(superToken, `${BASE}/${a.id}`, { status: 1 })).status, 1);
    const again = await login(app, a.username, a.password);
    assert.equal(assertOk(await put(superToken, `${BASE}/${a.id}`, { status: 0 })).status, 0);
    assertError(await info(again), 401, 10004);
    assert.equal(assertOk(await put(superToken, `${BASE}/${a.id}`, { status: '1' })).status, 1);
  });

  test('a password change sets the password and ends the sessions', async () => {
    const { token, ...a } = await signedInAdmin(app);
    assertOk(await put(superToken, `${BASE}/${a.id}`, { password: 'Brand-new-pass-1' }));
    assertError(await info(token), 401, 10004);
    assertError(await call(app, 'POST', '/api/admin/login', { body: { username: a.username, password: a.password } }), 401, 10001);
    await login(app, a.username, 'Brand-new-pass-1');
  });

  test('role changes apply on the next request', async () => {
    const lister = await createRole(uniq('Lister'), ['admin.list']);
    const a = await create({ username: uniq('rc'), password: 'Valid-pass-1', role_ids: [lister] });
    const token = await login(app, a.username, 'Valid-pass-1');
    assertOk(await get(token, BASE));
    assertOk(await put(superToken, `${BASE}/${a.id}`, { role_ids: [] }));
    assertError(await get(token, BASE), 403, 20001);
    assertOk(await put(superToken, `${BASE}/${a.id}`, { role_ids: [lister] }));
    assertOk(await get(token, BASE));
  });

  test('protected administrators cannot be disabled, nor have their roles changed by others (403 20003)', async () => {
    const editor = await signedInAdmin(app, { permissions: ['admin.update', 'admin.list'] });
    const other = await createRole(uniq('Other'));
    assertError(await put(editor.token, `${BASE}/${superId}`, { status: 0 }), 403, 20003);
    assertError(await put(editor.token, `${BASE}/${superId}`, { role_ids: [] }), 403, 20003);
    assertError(await put(editor.token, `${BASE}/${superId}`, { role_ids: [superRoleId, other] }), 403, 20003);
    assertError(await put(editor.token, `${BASE}/${superId}`, { password: 'Taken-over-1' }), 403, 20003);
    // Another super administrator cannot either (disable / roles).
    const second = await create({ username: uniq('super2'), password: 'Valid-pass-1', role_ids: [superRoleId] });
    const secondToken = await login(app, second.username, 'Valid-pass-1');
    assertError(await put(secondToken, `${BASE}/${superId}`, { status: '0' }), 403, 20003);
    assertError(await put(secondToken, `${BASE}/${superId}`, { role_ids: [] }), 403, 20003);
    // Nobody disables themself.
    assertError(await put(superToken, `${BASE}/${superId}`, { status: 0 }), 403, 20003);
    const row = await adminRow(superId);
    assert.equal(Number(row!.status), 1);
    assert.deepEqual(assertOk(await get(superToken, `${BASE}/${superId}`)).roles.map((r: any) => r.id), [superRoleId]);
    assertOk(await info(superToken));
    // Harmless edits of a protected administrator are allowed, as is re-sending the same roles.
    assert.equal(assertOk(await put(editor.token, `${BASE}/${superId}`, { nickname: 'Chief', role_ids: [superRoleId], status: 1 })).nickname, 'Chief');
  });

  test('a non-super editor cannot grant the super role or stronger roles, even to themself (403 20003)', async () => {
    const editor = await signedInAdmin(app, { permissions: ['admin.update'] });
    const strongName = uniq('Strong');
    const strong = await createRole(strongName, ['admin.delete']);
    assertError(await put(editor.token, `${BASE}/${editor.id}`, { role_ids: [editor.roleId, superRoleId] }), 403, 20003);
    const stronger = await put(editor.token, `${BASE}/${editor.id}`, { role_ids: [editor.roleId, strong] });
    assertError(stronger, 403, 20003);
    assert.ok(stronger.body.message.includes(`role "${strongName}" grants admin.delete, which the caller does not hold`), stronger.body.message);
    assertError(await get(editor.token, BASE), 403, 20001);
    const [n] = await app.platform.db.query<{ n: number | string }>('SELECT count(*) AS n FROM admin.admin_roles WHERE admin_id = $1', [editor.id]);
    assert.equal(Number(n!.n), 1);
  });

  test('a non-super editor cannot hand on, through a role, a menu they do not see (403 20003)', async () => {
    const editor = await signedInAdmin(app, { permissions: ['admin.update', 'admin.list'], menus: ['admin'] });
    const target = await seedAdmin(app);
    const withMenu = async (slug: string, name = uniq('Menus')) => {
      const id = await createRole(name, ['admin.list']);
      await app.platform.db.query('INSERT INTO admin.role_menus (role_id, menu_id) SELECT $1, id FROM admin.menus WHERE slug = $2', [id, slug]);
      return id;
    };
    const unseenName = uniq('Menus');
    const unseen = await withMenu('order', unseenName);
    const res = await put(editor.token, `${BASE}/${target.id}`, { role_ids: [unseen] });
    assertError(res, 403, 20003);
    assert.ok(res.body.message.includes(`role "${unseenName}" grants the menu order, which the caller does not see`), res.body.message);
    // A menu they see (or the directory above it) is fine.
    assertOk(await put(editor.token, `${BASE}/${target.id}`, { role_ids: [await withMenu('admin'), await withMenu('system')] }));
  });

  test('unknown fields and bad values are 400 30001, and nothing changes', async () => {
    const a = await create({ username: uniq('strict'), password: 'Valid-pass-1', nickname: 'Same' });
    const before = await adminRow(a.id);
    for (const body of [
      { is_super: true }, { permissions: ['admin.delete'] }, { roles: [superRoleId] }, { username: 'renamed' },
      { nickname: 'Changed', is_super: true }, { status: 2 }, { status: 'on' }, { email: 'nope' }, { password: 'short' },
      { department_id: UNKNOWN_ID }, { role_ids: [UNKNOWN_ID] }, { role_ids: 'all' }, { nickname: 5 },
    ]) {
      assertError(await put(superToken, `${BASE}/${a.id}`, body), 400, 30001);
    }
    assert.deepEqual(await adminRow(a.id), before);
    assert.deepEqual(assertOk(await get(superToken, `${BASE}/${a.id}`)).roles, []);
  });

  test("needs 'admin.update': 403 20001 without it", async () => {
    const a = await signedInAdmin(app, { permissions: ['admin.list'] });
    const target = await seedAdmin(app);
    assertError(await put(a.token, `${BASE}/${target.id}`, { nickname: 'x' }), 403, 20001);
    assertError(await put(a.token, `${BASE}/${target.id}`, { status: 0 }), 403, 20001);
  });
});

describe('DELETE /admins/{id}', () => {
  test('deletes an administrator and ends their sessions at once', async () => {
    const { token, ...a } = await signedInAdmin(app);
    assertOk(await info(token));
    assert.equal(assertOk(await del(superToken, `${BASE}/${a.id}`)), null);
    assertError(await info(token), 401, 10004);
    assertError(await get(superToken, `${BASE}/${a.id}`), 404, 30003);
    assertError(await del(superToken, `${BASE}/${a.id}`), 404, 30003);
  });

  test('nobody deletes themself; protected administrators cannot be deleted (403 20003)', async () => {
    const deleter = await signedInAdmin(app, { permissions: ['admin.delete'] });
    assertError(await del(deleter.token, `${BASE}/${deleter.id}`), 403, 20003);
    assertError(await del(deleter.token, `${BASE}/${superId}`), 403, 20003);
    assertError(await del(superToken, `${BASE}/${superId}`), 403, 20003);
    assertOk(await info(deleter.token));
    assertOk(await info(superToken));
    assert.ok(await adminRow(superId));
  });

  test("needs 'admin.delete': 403 20001 without it", async () => {
    const a = await signedInAdmin(app, { permissions: ['admin.list', 'admin.update'] });
    const target = await seedAdmin(app);
    assertError(await del(a.token, `${BASE}/${target.id}`), 403, 20001);
    assert.ok(await adminRow(target.id));
  });
});

describe('PUT /admins/{id}/reset-password', () => {
  test('sets the password and ends every session of the account', async () => {
    const { token: t1, ...a } = await signedInAdmin(app);
    const t2 = await login(app, a.username, a.password);
    assert.equal(assertOk(await put(superToken, `${BASE}/${a.id}/reset-password`, { password: 'Reset-pass-123' })), null);
    assertError(await info(t1), 401, 10004);
    assertError(await info(t2), 401, 10004);
    assertError(await call(app, 'POST', '/api/admin/login', { body: { username: a.username, password: a.password } }), 401, 10001);
    await login(app, a.username, 'Reset-pass-123');
  });

  test('validation, unknown id, permission, protected target', async () => {
    const a = await seedAdmin(app);
    const hash = (await adminRow(a.id))!.password_hash;
    for (const body of [{}, { password: 'short' }, { password: 'Valid-pass-1', extra: 1 }, { password: 12345678 }]) {
      assertError(await put(superToken, `${BASE}/${a.id}/reset-password`, body), 400, 30001);
    }
    assert.equal((await adminRow(a.id))!.password_hash, hash);
    assertError(await put(superToken, `${BASE}/${UNKNOWN_ID}/reset-password`, { password: 'Valid-pass-1' }), 404, 30003);
    const lister = await signedInAdmin(app, { permissions: ['admin.list', 'admin.update'] });
    assertError(await put(lister.token, `${BASE}/${a.id}/reset-password`, { password: 'Valid-pass-1' }), 403, 20001);
    const resetter = await signedInAdmin(app, { permissions: ['admin.reset_password'] });
    assertError(await put(resetter.token, `${BASE}/${superId}/reset-password`, { password: 'Taken-over-1' }), 403, 20003);
    assertOk(await info(superToken));
    assert.equal((await adminRow(a.id))!.password_hash, hash);
  });
});

describe('POST /admins/{id}/unbind-google-auth', () => {
  /** A code of the step after the current one: valid (±1 step) and newer than any used now. */
  const nextCode = (secret: string) => totpCode(secret, Date.now() + TOTP_PERIOD * 1000);
  function wrongCode(secret: string): string {
    const near = new Set<string>();
    for (let d = -3; d <= 3; d++) near.add(totpCode(secret, Date.now() + d * TOTP_PERIOD * 1000));
    for (let n = 0; ; n++) if (!near.has(String(n).padStart(6, '0'))) return String(n).padStart(6, '0');
  }
  async function bindDirectly(id: number): Promise<string> {
    const secret = newTotpSecret();
    await app.platform.db.query('UPDATE admin.admins SET totp_secret = $1, totp_last_step = NULL WHERE id = $2', [secret, id]);
    return secret;
  }
  const unbind = (token: string, id: number, code: unknown) => post(token, `${BASE}/${id}/unbind-google-auth`, { code });

  test('the caller must have an authenticator bound (403 20003) and send a correct code (400 10010 when wrong or malformed)', async () => {
    const caller = await signedInAdmin(app, { permissions: ['admin.unbind_2fa'] });
    const target = await seedAdmin(app);
    const targetSecret = await bindDirectly(target.id);
    assertError(await unbind(caller.token, target.id, totpCode(targetSecret)), 403, 20003);

    const callerSecret = await bindDirectly(caller.id);
    assertError(await unbind(caller.token, target.id, wrongCode(callerSecret)), 400, 10010);
    assertError(await unbind(caller.token, target.id, 'abcdef'), 400, 10010);
    assertError(await post(caller.token, `${BASE}/${target.id}/unbind-google-auth`, {}), 400, 30001);
    assertError(await unbind(caller.token, UNKNOWN_ID, totpCode(callerSecret)), 404, 30003);
    assert.equal((await adminRow(target.id))!.totp_secret, targetSecret);
  });

  test("success unbinds the target and ends the target's sessions; the code cannot be replayed", async () => {
    const caller = await signedInAdmin(app, { permissions: ['admin.unbind_2fa', 'admin.list'] });
    const callerSecret = await bindDirectly(caller.id);
    const target = await seedAdmin(app);
    const targetSecret = await bindDirectly(target.id);
    const targetToken = await login(app, target.username, target.password, { google_code: totpCode(targetSecret) });
    assert.equal(assertOk(await get(superToken, `${BASE}/${target.id}`)).is_2fa_bound, true);

    const code = totpCode(callerSecret);
    assert.equal(assertOk(await unbind(caller.token, target.id, code)), null);
    assert.equal((await adminRow(target.id))!.totp_secret, null);
    assert.equal(assertOk(await get(superToken, `${BASE}/${target.id}`)).is_2fa_bound, false);
    assertError(await info(targetToken), 401, 10004);
    assertOk(await info(caller.token));
    await login(app, target.username, target.password);

    // The same code again is refused, even for another target.
    const other = await seedAdmin(app);
    await bindDirectly(other.id);
    assertError(await unbind(caller.token, other.id, code), 400, 10010);
    assertOk(await unbind(caller.token, other.id, nextCode(callerSecret)));
    assert.equal((await adminRow(other.id))!.totp_secret, null);
  });

  test("needs 'admin.unbind_2fa' (403 20001); a protected target needs a super caller (403 20003)", async () => {
    const a = await signedInAdmin(app, { permissions: ['admin.list'] });
    const aSecret = await bindDirectly(a.id);
    const target = await seedAdmin(app);
    await bindDirectly(target.id);
    assertError(await unbind(a.token, target.id, totpCode(aSecret)), 403, 20001);

    const b = await signedInAdmin(app, { permissions: ['admin.unbind_2fa'] });
    const bSecret = await bindDirectly(b.id);
    const superSecret = await bindDirectly(superId);
    try {
      assertError(await unbind(b.token, superId, totpCode(bSecret)), 403, 20003);
      assert.equal((await adminRow(superId))!.totp_secret, superSecret);
    } finally {
      await app.platform.db.query('UPDATE admin.admins SET totp_secret = NULL WHERE id = $1', [superId]);
    }
  });
});

describe('one’s own password changes only through PUT /password', () => {
  const hashOf = async (id: number) => (await adminRow(id))!.password_hash;

  test('PUT /admins/{own id} with a password is 403 20003 pointing at PUT /password; other fields of a self-update still work', async () => {
    const editor = await signedInAdmin(app, { permissions: ['admin.update', 'admin.list'] });
    for (const [token, id] of [[superToken, superId], [editor.token, editor.id]] as const) {
      const hash = await hashOf(id);
      const nickname = (await adminRow(id))!.nickname;
      for (const body of [{ password: 'Taken-over-123' }, { nickname: 'Sneaky', password: 'Taken-over-123' }]) {
        const res = await put(token, `${BASE}/${id}`, body);
        assertError(res, 403, 20003);
        assert.match(res.body.message, /PUT \/password/);
      }
      assert.equal(await hashOf(id), hash, 'the password is unchanged');
      assert.equal((await adminRow(id))!.nickname, nickname, 'nothing of the refused request is applied');
      assertOk(await info(token));
      if (id === editor.id) await login(app, editor.username, editor.password);
      const r = assertOk(await put(token, `${BASE}/${id}`, { nickname: 'Self edited', email: 'self@example.com' }));
      assert.equal(r.nickname, 'Self edited');
      assert.equal(r.email, 'self@example.com');
    }
  });

  test('PUT /admins/{own id}/reset-password is 403 20003 pointing at PUT /password; PUT /password with old_password works', async () => {
    const resetter = await signedInAdmin(app, { permissions: ['admin.reset_password'] });
    for (const [token, id] of [[superToken, superId], [resetter.token, resetter.id]] as const) {
      const hash = await hashOf(id);
      const res = await put(token, `${BASE}/${id}/reset-password`, { password: 'Taken-over-123' });
      assertError(res, 403, 20003);
      assert.match(res.body.message, /PUT \/password/);
      assert.equal(await hashOf(id), hash, 'the password is unchanged');
      assertOk(await info(token));
    }
    // The own-password route, which asks for the old password, still changes it.
    assertError(await put(resetter.token, '/api/admin/password', { old_password: 'Wrong-pass-123', password: 'Own-new-pass-1', password_confirmation: 'Own-new-pass-1' }), 400, 30001);
    assertOk(await put(resetter.token, '/api/admin/password', { old_password: resetter.password, password: 'Own-new-pass-1', password_confirmation: 'Own-new-pass-1' }));
    await login(app, resetter.username, 'Own-new-pass-1');
    // Resetting someone else's password is unchanged.
    const other = await seedAdmin(app);
    assertOk(await put(resetter.token, `${BASE}/${other.id}/reset-password`, { password: 'Reset-pass-123' }));
    await login(app, other.username, 'Reset-pass-123');
  });
});

describe('administration cannot be locked out', () => {
  // Its own server: these tests change who holds the super-administrator role.
  let lock: TestApp;
  let rootToken: string;
  let rootId: number;
  let superRole: number;
  let keeper: number;
  before(async () => {
    lock = await startApp();
    rootToken = await login(lock);
    const me = assertOk(await call(lock, 'GET', '/api/admin/info', { token: rootToken }));
    rootId = me.id;
    superRole = me.roles[0].id;
    // A role granting the right to administer administrators, without the super role.
    const [role] = await lock.platform.db.query<{ id: number }>(`INSERT INTO admin.roles (name, slug) VALUES ('Keeper', 'keeper') RETURNING id`);
    keeper = Number(role!.id);
    await lock.platform.db.query(
      `INSERT INTO admin.role_permissions (role_id, permission_id) SELECT $1, id FROM admin.permissions WHERE slug IN ('admin.update', 'admin.list')`,
      [keeper],
    );
  });
  after(() => lock?.close());

  const lput = (token: string, url: string, body: unknown, headers: Record<string, string> = {}) => call(lock, 'PUT', url, { token, body, headers });
  const rolesOf = async (id: number) =>
    (await lock.platform.db.query<{ role_id: number }>('SELECT role_id FROM admin.admin_roles WHERE admin_id = $1 ORDER BY role_id', [id])).map((r) => Number(r.role_id));
  const enabledSupers = async () => {
    const [row] = await lock.platform.db.query<{ n: number | string }>(
      `SELECT count(*) AS n FROM admin.admins a JOIN admin.admin_roles ar ON ar.admin_id = a.id JOIN admin.roles r ON r.id = ar.role_id
        WHERE r.slug = 'super_admin' AND r.status = 1 AND a.status = 1`,
    );
    return Number(row!.n);
  };
  /** A signed-in super administrator who also holds the keeper role. */
  async function superWithKeeper() {
    const a = await seedAdmin(lock);
    await lock.platform.db.query('DELETE FROM admin.admin_roles WHERE admin_id = $1', [a.id]);
    await lock.platform.db.query('INSERT INTO admin.admin_roles (admin_id, role_id) VALUES ($1, $2), ($1, $3)', [a.id, superRole, keeper]);
    return { ...a, token: await login(lock, a.username, a.password) };
  }

  test('the only super administrator cannot drop their own super role (400 40003), even keeping admin.update', async () => {
    assertOk(await lput(rootToken, `${BASE}/${rootId}`, { role_ids: [superRole, keeper] }));
    assert.equal(await enabledSupers(), 1);
    const res = await lput(rootToken, `${BASE}/${rootId}`, { role_ids: [keeper] });
    assertError(res, 400, 40003);
    assert.match(res.body.message, /^Update failed: this would leave no enabled super administrator$/);
    const zh = await lput(rootToken, `${BASE}/${rootId}`, { role_ids: [keeper] }, { 'accept-language': 'zh-CN' });
    assertError(zh, 400, 40003);
    assert.equal(zh.body.message, '更新失败：此操作会使系统没有启用的超级管理员');
    assert.deepEqual(await rolesOf(rootId), [superRole, keeper].sort((a, b) => a - b), 'rolled back');
    assert.ok(assertOk(await call(lock, 'GET', '/api/admin/info', { token: rootToken })).roles.some((r: any) => r.slug === 'super_admin'));
    assert.equal(await enabledSupers(), 1);
  });

  test('a super administrator cannot take away their own right to administer administrators (400 40003); keeping admin.update through another role is allowed', async () => {
    const s = await superWithKeeper();
    assert.equal(await enabledSupers(), 2);
    const res = await lput(s.token, `${BASE}/${s.id}`, { role_ids: [] });
    assertError(res, 400, 40003);
    assert.match(res.body.message, /remove your own permission to administer administrators \(admin\.update\)/);
    assert.deepEqual(await rolesOf(s.id), [superRole, keeper].sort((a, b) => a - b));
    // Another super administrator remains and the keeper role still grants admin.update.
    assert.deepEqual(assertOk(await lput(s.token, `${BASE}/${s.id}`, { role_ids: [keeper] })).roles.map((r: any) => r.id), [keeper]);
    assert.equal(await enabledSupers(), 1);
    assertOk(await call(lock, 'GET', BASE, { token: s.token }));
  });

  test('an administrator holding admin.update cannot remove it from themself by a role change (400 40003)', async () => {
    const editor = await seedAdmin(lock, { permissions: ['admin.update', 'admin.list'] });
    const token = await login(lock, editor.username, editor.password);
    const [weak] = await lock.platform.db.query<{ id: number }>(`INSERT INTO admin.roles (name, slug) VALUES ('Weak', 'weak') RETURNING id`);
    await lock.platform.db.query(`INSERT INTO admin.role_permissions (role_id, permission_id) SELECT $1, id FROM admin.permissions WHERE slug = 'admin.list'`, [weak!.id]);
    const weakId = Number(weak!.id);
    for (const role_ids of [[weakId], []]) {
      const res = await lput(token, `${BASE}/${editor.id}`, { role_ids });
      assertError(res, 400, 40003);
      assert.match(res.body.message, /your own permission to administer administrators \(admin\.update\)/);
      assert.deepEqual(await rolesOf(editor.id), [editor.roleId]);
    }
    assertOk(await lput(token, `${BASE}/${editor.id}`, { nickname: 'Still editing' }));
    // Adding a role, then dropping one while admin.update stays through the other, is allowed.
    assertOk(await lput(token, `${BASE}/${editor.id}`, { role_ids: [editor.roleId, weakId] }));
    assertOk(await lput(token, `${BASE}/${editor.id}`, { role_ids: [editor.roleId] }));
    // Someone else may still take it away.
    assertOk(await lput(rootToken, `${BASE}/${editor.id}`, { role_ids: [weakId] }));
  });

  test('the last two super administrators demoting themselves at the same time: exactly one is refused', async () => {
    const a = await superWithKeeper();
    const b = await superWithKeeper();
    // Only a and b hold the super role now.
    await lock.platform.db.query(`DELETE FROM admin.admin_roles WHERE role_id = $1 AND admin_id NOT IN ($2, $3)`, [superRole, a.id, b.id]);
    assert.equal(await enabledSupers(), 2);
    const replies = await Promise.all([a, b].map((x) => lput(x.token, `${BASE}/${x.id}`, { role_ids: [keeper] })));
    const statuses = replies.map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, 400], JSON.stringify(replies.map((r) => r.body)));
    assertError(replies.find((r) => r.status === 400)!, 400, 40003);
    assert.equal(await enabledSupers(), 1);
  });
});

test('every record shape hides secrets', async () => {
  const res: Reply = await get(superToken, `${BASE}?page_size=100`);
  assertOk(res);
  assert.doesNotMatch(JSON.stringify(res.body), /password|hash|totp|secret/i);
});
