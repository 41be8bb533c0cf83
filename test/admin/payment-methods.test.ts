// Payment methods: CRUD, code unique ignoring case, config stored as JSON with its secrets
// masked in every reply and in the operation log, the masked round trip, list filters,
// the delete rule (payment records keep their method) and permissions.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.ts';
import { assertError, assertOk } from '../helpers/assert.ts';
import { call, login, signedInAdmin, type Reply } from '../helpers/http.ts';
import { maskConfig, unmaskConfig } from '../../src/admin/features/payment-methods/payment-methods.secrets.ts';

const BASE = '/api/admin/payment-methods';
const DISPLAY_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const FIELDS = ['code', 'config', 'created_at', 'description', 'id', 'is_active', 'name', 'sort', 'type', 'updated_at'];
const MASK = '******';

interface Method { id: number; name: string; code: string; type: string; config: Record<string, unknown>; is_active: boolean; sort: number; description: string; created_at: string; updated_at: string }

let app: TestApp;
let token: string;
let seq = 0;

before(async () => {
  app = await startApp();
  token = await login(app);
});
after(() => app?.close());

const db = () => app.platform.db;
const list = (query = '', t = token): Promise<Reply> => call(app, 'GET', `${BASE}${query}`, { token: t });
const getOne = (id: number | string, t = token): Promise<Reply> => call(app, 'GET', `${BASE}/${id}`, { token: t });
const create = (body: unknown, t = token): Promise<Reply> => call(app, 'POST', BASE, { token: t, body });
const update = (id: number | string, body: unknown, t = token): Promise<Reply> => call(app, 'PUT', `${BASE}/${id}`, { token: t, body });
const remove = (id: number | string, t = token): Promise<Reply> => call(app, 'DELETE', `${BASE}/${id}`, { token: t });
const uniq = (prefix: string) => `${prefix}_${(seq += 1)}_${Date.now().toString(36)}`;

/** A config with secrets under many spellings, next to plain settings. */
const secretConfig = () => ({
  app_id: 'wx-app-123',
  api_key: 'ak-SECRET-1',
  appSecret: 'as-SECRET-2',
  'merchant-private-key': '-----BEGIN PRIVATE KEY----- SECRET-3',
  api_v3_key: 'v3-SECRET-4',
  token: 'tk-SECRET-5',
  gateway: { url: 'https://pay.example.com', password: 'pw-SECRET-6', timeout_ms: 3000 },
  accounts: [{ name: 'main', client_secret: 'cs-SECRET-7' }],
  sandbox: true,
});

async function newMethod(extra: Record<string, unknown> = {}): Promise<Method> {
  return assertOk(await create({ name: 'Method', code: uniq('m'), type: 'online', config: { app_id: 'x' }, ...extra })) as Method;
}

const storedConfig = async (id: number) => (await db().query<{ config: Record<string, unknown> }>('SELECT config FROM admin.payment_methods WHERE id = $1', [id]))[0]!.config;

function assertNoSecret(value: unknown): void {
  assert.doesNotMatch(JSON.stringify(value), /SECRET/, JSON.stringify(value));
}

describe('create, read, update, delete', () => {
  test('create stores every field; defaults; the reply is the record', async () => {
    const code = uniq('alipay');
    const m = assertOk(await create({ name: 'Alipay', code, type: 'wallet', config: { app_id: 'a1', region: 'cn', retries: 3 }, sort: 4, description: 'QR payments' })) as Method;
    assert.deepEqual(Object.keys(m).sort(), FIELDS);
    assert.deepEqual(
      { name: m.name, code: m.code, type: m.type, config: m.config, is_active: m.is_active, sort: m.sort, description: m.description },
      { name: 'Alipay', code, type: 'wallet', config: { app_id: 'a1', region: 'cn', retries: 3 }, is_active: true, sort: 4, description: 'QR payments' },
    );
    assert.match(m.created_at, DISPLAY_TIME);
    assert.deepEqual(await storedConfig(m.id), { app_id: 'a1', region: 'cn', retries: 3 });
    assert.deepEqual(assertOk(await getOne(m.id)), m);
    const d = await newMethod();
    assert.deepEqual({ is_active: d.is_active, sort: d.sort, description: d.description }, { is_active: true, sort: 0, description: '' });
  });

  test('code is unique ignoring case: 400 30002', async () => {
    const m = await newMethod();
    assertError(await create({ name: 'Again', code: m.code.toUpperCase(), type: 'online', config: {} }), 400, 30002);
    const other = await newMethod();
    assertError(await update(other.id, { name: 'x', code: m.code.toUpperCase() }), 400, 30002);
    assert.equal(assertOk(await getOne(other.id)).code, other.code);
  });

  test('bodies are validated strictly', async () => {
    const base = { name: 'N', code: uniq('v'), type: 'online', config: {} };
    const bad: [string, unknown][] = [
      ['no name', { ...base, name: undefined }],
      ['blank name', { ...base, name: '  ' }],
      ['no code', { ...base, code: undefined }],
      ['bad code', { ...base, code: 'has space' }],
      ['no type', { ...base, type: undefined }],
      ['no config', { ...base, config: undefined }],
      ['config not an object', { ...base, config: 'x' }],
      ['config a list', { ...base, config: [1] }],
      ['is_active as text', { ...base, is_active: 'true' }],
      ['negative sort', { ...base, sort: -1 }],
      ['unknown field', { ...base, fee: 1 }],
    ];
    for (const [label, body] of bad) {
      const res = await create(JSON.parse(JSON.stringify(body)));
      assert.equal(res.status, 400, label);
      assertError(res, 400, 30001);
    }
    const m = await newMethod();
    assertError(await update(m.id, { sort: 3 }), 400, 30001);
    assertError(await update(m.id, { name: 'x', id: 5 }), 400, 30001);
  });

  test('update: name required, other fields change only when sent', async () => {
    const m = await newMethod({ sort: 2, description: 'keep me', config: { app_id: 'old' } });
    const u = assertOk(await update(m.id, { name: 'Renamed' })) as Method;
    assert.deepEqual({ ...u, updated_at: m.updated_at }, { ...m, name: 'Renamed' });
    const v = assertOk(await update(m.id, { name: 'Renamed', is_active: false, sort: 9, config: { app_id: 'new' }, type: 'card', description: '' })) as Method;
    assert.deepEqual({ is_active: v.is_active, sort: v.sort, config: v.config, type: v.type, description: v.description, code: v.code }, { is_active: false, sort: 9, config: { app_id: 'new' }, type: 'card', description: '', code: m.code });
    assertError(await update(987654321, { name: 'x' }), 404, 30003);
  });

  test('delete; a method with payment records is kept (40002)', async () => {
    const m = await newMethod();
    assert.equal(assertOk(await remove(m.id)), null);
    assertError(await getOne(m.id), 404, 30003);
    assertError(await remove(m.id), 404, 30003);

    const used = await newMethod();
    await db().query(
      `INSERT INTO admin.payments (payment_no, order_no, user_id, payment_method_id, amount, status, paid_at) VALUES ($1, 'N1', 1, $2, 1, 'paid', now())`,
      [uniq('P'), used.id],
    );
    const res = await remove(used.id);
    assertError(res, 400, 40002);
    assert.ok(res.body.message.includes(`payment method "${used.name}" has payment records`), res.body.message);
    assert.match(res.body.message, /deactivate/);
    assertOk(await getOne(used.id));
  });
});

describe('secrets in config', () => {
  test('masked in create, get, list and update replies; stored as sent', async () => {
    const code = uniq('wechat');
    const created = assertOk(await create({ name: 'WeChat Pay', code, type: 'wallet', config: secretConfig() })) as Method;
    assertNoSecret(created);
    assert.deepEqual(created.config, {
      app_id: 'wx-app-123',
      api_key: MASK,
      appSecret: MASK,
      'merchant-private-key': MASK,
      api_v3_key: MASK,
      token: MASK,
      gateway: { url: 'https://pay.example.com', password: MASK, timeout_ms: 3000 },
      accounts: [{ name: 'main', client_secret: MASK }],
      sandbox: true,
    });
    assert.deepEqual(await storedConfig(created.id), secretConfig());
    assertNoSecret(assertOk(await getOne(created.id)));
    assertNoSecret(assertOk(await list(`?code=${code}`)));
    assert.equal(assertOk(await list(`?code=${code}`)).total, 1);
    assertNoSecret(assertOk(await update(created.id, { name: 'WeChat', config: secretConfig() })));
  });

  test('the mask sent back keeps the stored secret; a new value replaces it', async () => {
    const m = assertOk(await create({ name: 'Card', code: uniq('card'), type: 'card', config: secretConfig() })) as Method;
    const edited = { ...m.config, app_id: 'wx-app-456', token: 'tk-NEW' };
    assertOk(await update(m.id, { name: 'Card', config: edited }));
    assert.deepEqual(await storedConfig(m.id), { ...secretConfig(), app_id: 'wx-app-456', token: 'tk-NEW' });
    // A mask where nothing is stored cannot be saved.
    assertError(await update(m.id, { name: 'Card', config: { new_secret: MASK } }), 400, 30001);
    assertError(await create({ name: 'X', code: uniq('x'), type: 'online', config: { api_key: MASK } }), 400, 30001);
  });

  test('never in the operation log, not even on a refused request', async () => {
    const code = uniq('logged');
    assertOk(await create({ name: 'Logged', code, type: 'wallet', config: secretConfig() }));
    assertError(await create({ name: 'Logged', code, type: 'wallet', config: secretConfig() }), 400, 30002);
    assertError(await create({ name: 'Logged', code: uniq('bad'), type: 'wallet', config: secretConfig(), unknown: 1 }), 400, 30001);
    let rows: { params: unknown }[] = [];
    for (let i = 0; i < 80 && rows.length < 3; i++) {
      await new Promise((r) => setTimeout(r, 25));
      rows = await db().query(`SELECT params FROM admin.operation_logs WHERE module = 'payment-method' AND action = 'create' AND params->'body'->>'name' = 'Logged'`);
    }
    assert.equal(rows.length, 3);
    for (const r of rows) {
      assertNoSecret(r.params);
      assert.equal(JSON.stringify(r.params).includes('wx-app-123'), true, 'plain settings are kept');
    }
  });
  test('a deeply nested config (3,000 levels) does not break the masking: no 500, its secrets masked', async () => {
    // Lists in lists, built from the inside out, with a secret at the bottom and one on the way.
    let deep: unknown = { api_key: 'deep-SECRET-1', leaf: true };
    for (let i = 0; i < 3000; i++) deep = i === 1500 ? [deep, { token: 'mid-SECRET-2' }] : [deep];
    const created = await create({ name: 'Deep', code: uniq('deep'), type: 'online', config: { nested: deep } });
    assert.notEqual(created.status, 500, JSON.stringify(created.body).slice(0, 300));
    if (created.status === 200) {
      const m = created.body.data as Method;
      assertNoSecret(created.body);
      assertNoSecret(assertOk(await getOne(m.id)));
      // The masked reply sent back keeps the stored secrets.
      const updated = await update(m.id, { name: 'Deep', config: m.config });
      assert.equal(updated.status, 200, JSON.stringify(updated.body).slice(0, 300));
      assertNoSecret(updated.body);
      const stored = JSON.stringify(await storedConfig(m.id));
      assert.ok(stored.includes('deep-SECRET-1') && stored.includes('mid-SECRET-2'));
    } else {
      // Refused as too deep by the platform's body limit: a clear 400.
      assert.equal(created.status, 400, JSON.stringify(created.body).slice(0, 300));
    }
  });

  test('masking is iterative: 100,000 levels mask and unmask without a stack overflow', () => {
    let deep: unknown = { secret: 's', plain: 'p' };
    for (let i = 0; i < 100_000; i++) deep = i % 2 ? { n: deep } : [deep];
    // Walked in a loop: assert.deepEqual would itself recurse this deep.
    const bottomOf = (v: unknown) => {
      let depth = 0;
      while (typeof v === 'object' && v !== null && !('secret' in v)) {
        v = Array.isArray(v) ? v[0] : (v as { n: unknown }).n;
        depth++;
      }
      return { depth, v };
    };
    const masked = maskConfig(deep);
    assert.deepEqual(bottomOf(masked), { depth: 100_000, v: { secret: MASK, plain: 'p' } });
    assert.deepEqual(bottomOf(unmaskConfig(masked, deep)), { depth: 100_000, v: { secret: 's', plain: 'p' } });
  });
});

describe('GET /payment-methods', () => {
  test('filters name (fuzzy), code (exact, any case), type, is_active; order_by', async () => {
    const tag = uniq('flt');
    const a = await newMethod({ name: `Zeta ${tag}`, code: `${tag}_a`, type: 'wallet', sort: 3 });
    const b = await newMethod({ name: `Alpha ${tag}`, code: `${tag}_b`, type: 'card', sort: 1, is_active: false });
    const c = await newMethod({ name: `Mid ${tag}`, code: `${tag}_c`, type: 'wallet', sort: 2 });
    const ids = async (q: string) => (assertOk(await list(q)).list as Method[]).map((m) => m.id);
    assert.deepEqual(await ids(`?name=${tag.toUpperCase()}`), [c.id, b.id, a.id]);
    assert.deepEqual(await ids(`?code=${tag.toUpperCase()}_A`), [a.id]);
    assert.deepEqual(await ids(`?code=${tag}`), [], 'code is exact');
    assert.deepEqual(await ids(`?name=${tag}&type=wallet`), [c.id, a.id]);
    assert.deepEqual(await ids(`?name=${tag}&is_active=0`), [b.id]);
    assert.deepEqual(await ids(`?name=${tag}&is_active=1`), [c.id, a.id]);
    assert.deepEqual(await ids(`?name=${tag}&is_active=true&order_by=sort:asc`), [c.id, a.id]);
    assert.deepEqual(await ids(`?name=${tag}&order_by=name:asc`), [b.id, c.id, a.id]);
    const page = assertOk(await list(`?name=${tag}&page=2&page_size=2&order_by=id:asc`));
    assert.deepEqual({ total: page.total, ids: page.list.map((m: Method) => m.id) }, { total: 3, ids: [c.id] });
    for (const q of ['?is_active=yes', '?order_by=config:asc', '?page_size=0']) assertError(await list(q), 400, 30001);
  });
});

describe('permissions', () => {
  test('each route needs its permission', async () => {
    const m = await newMethod();
    const { token: reader } = await signedInAdmin(app, { permissions: ['payment-method.list', 'payment-method.view'] });
    assertOk(await list('', reader));
    assertOk(await getOne(m.id, reader));
    assertError(await create({ name: 'N', code: uniq('n'), type: 't', config: {} }, reader), 403, 20001);
    assertError(await update(m.id, { name: 'N' }, reader), 403, 20001);
    assertError(await remove(m.id, reader), 403, 20001);
  });
});
