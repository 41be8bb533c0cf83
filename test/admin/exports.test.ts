// Export tasks of the admin service: POST /admins/export queues a task, the worker writes
// the CSV, GET /exports/{id} reports it and GET /exports/{id}/download serves it until it
// expires; only the creator and holders of export.manage see a task. Two instances on two data
// folders sharing one bucket serve each other's exports.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { closeAll, onPostgres, startApp, startWithSibling, type TestApp } from '../helpers/app.ts';
import { assertError, assertOk } from '../helpers/assert.ts';
import { call, login, seedAdmin, signedInAdmin } from '../helpers/http.ts';
import { s3Skip, startS3, type S3Server } from '../helpers/s3.ts';

let app: TestApp;
let superToken: string;

before(async () => {
  app = await startApp();
  superToken = await login(app);
});
after(() => app?.close());

async function waitFor(token: string, id: number, until = (d: any) => d.status === 'completed' || d.status === 'failed'): Promise<any> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const data = assertOk(await call(app, 'GET', `/api/admin/exports/${id}`, { token }));
    if (until(data)) return data;
    if (Date.now() > deadline) throw new Error(`export ${id} still ${data.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Parses the simple CSV our exports write (quoted cells may hold commas, quotes, newlines). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { cell += '"'; i++; } else if (c === '"') quoted = false; else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { row.push(cell); cell = ''; }
    else if (c === '\r' && text[i + 1] === '\n') { row.push(cell); rows.push(row); row = []; cell = ''; i++; }
    else cell += c;
  }
  if (cell !== '' || row.length > 0) { row.push(cell); rows.push(row); }
  return rows;
}

describe('POST /admins/export', () => {
  test('queues a task that completes; the download is the filtered CSV without secrets', async () => {
    const tag = `exp${Date.now().toString(36)}`;
    const seeded: { id: number; username: string }[] = [];
    for (let i = 0; i < 3; i++) seeded.push(await seedAdmin(app, { username: `${tag}_${i}` }));
    await app.platform.db.query(`UPDATE admin.admins SET nickname = '=HYPERLINK("x")', email = 'a,b@example.com' WHERE id = $1`, [seeded[0]!.id]);
    const other = await seedAdmin(app, { username: `zz${Date.now().toString(36)}` });

    const created = assertOk(await call(app, 'POST', '/api/admin/admins/export', { token: superToken, body: { username: tag, status: '1', order_by: 'id:desc' } }));
    assert.equal(typeof created.id, 'number');
    assert.ok(['pending', 'processing', 'completed'].includes(created.status));
    assert.equal(created.download_url, null);

    const done = await waitFor(superToken, created.id);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(done.rows_written, 3);
    assert.equal(done.kind, 'admins');
    assert.equal(done.error, null);
    assert.match(done.expires_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    assert.equal(done.download_url, `/api/admin/exports/${created.id}/download`);

    const res = await app.app.inject({ method: 'GET', url: done.download_url, headers: { authorization: `Bearer ${superToken}` } });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/csv/);
    assert.equal(res.headers['content-disposition'], `attachment; filename="admins-export-${created.id}.csv"`);
    assert.ok(res.body.startsWith('\uFEFF'));
    const rows = parseCsv(res.body.slice(1));
    assert.deepEqual(rows[0], ['id', 'username', 'nickname', 'email', 'phone', 'department', 'roles', 'status', 'is_2fa_bound', 'last_login_at', 'created_at']);
    assert.deepEqual(rows.slice(1).map((r) => Number(r[0])), seeded.map((s) => s.id).reverse());
    const first = rows.find((r) => Number(r[0]) === seeded[0]!.id)!;
    assert.equal(first[1], `${tag}_0`);
    assert.equal(first[2], `'=HYPERLINK("x")`);
    assert.equal(first[3], 'a,b@example.com');
    assert.equal(first[6], `Role ${tag}_0`);
    assert.equal(first[7], '1');
    assert.equal(first[8], '0');
    assert.ok(!res.body.includes(other.username));
    assert.doesNotMatch(res.body, /\$argon2|password|totp/i);
  });

  test('an empty or absent body exports everyone', async () => {
    assertOk(await call(app, 'POST', '/api/admin/admins/export', { token: superToken }));
    const created = assertOk(await call(app, 'POST', '/api/admin/admins/export', { token: superToken, body: {} }));
    const done = await waitFor(superToken, created.id);
    assert.equal(done.status, 'completed');
    const [n] = await app.platform.db.query<{ n: number }>('SELECT count(*)::int AS n FROM admin.admins');
    assert.equal(done.rows_written, n!.n);
  });

  test('bad body fields are 400 30001', async () => {
    for (const body of [
      { status: 1 }, { status: '2' }, { is_2fa_bound: 'yes' }, { role_id: 'abc' }, { start_time: '2026-13-01 00:00:00' },
      { start_time: '2026-02-01 00:00:00', end_time: '2026-01-01 00:00:00' }, { order_by: 'password:asc' }, { unknown: 'x' },
    ]) {
      assertError(await call(app, 'POST', '/api/admin/admins/export', { token: superToken, body }), 400, 30001);
    }
  });

  test('needs admin.export', async () => {
    const a = await signedInAdmin(app, { permissions: ['admin.list'] });
    assertError(await call(app, 'POST', '/api/admin/admins/export', { token: a.token, body: {} }), 403, 20001);
  });
});

describe('GET /exports/{id}', () => {
  test('the creator and export.manage holders see a task; others get 403; unknown ids 404', async () => {
    const owner = await signedInAdmin(app, { permissions: ['admin.export'] });
    const created = assertOk(await call(app, 'POST', '/api/admin/admins/export', { token: owner.token, body: { username: owner.username } }));
    const done = await waitFor(owner.token, created.id);
    assert.equal(done.rows_written, 1);
    const dl = await call(app, 'GET', done.download_url, { token: owner.token });
    assert.equal(dl.status, 200);

    const stranger = await signedInAdmin(app, { permissions: ['admin.export', 'admin.list'] });
    assertError(await call(app, 'GET', `/api/admin/exports/${created.id}`, { token: stranger.token }), 403, 20001);
    assertError(await call(app, 'GET', `/api/admin/exports/${created.id}/download`, { token: stranger.token }), 403, 20001);

    const manager = await signedInAdmin(app, { permissions: ['export.manage'] });
    assert.equal(assertOk(await call(app, 'GET', `/api/admin/exports/${created.id}`, { token: manager.token })).id, created.id);
    assert.equal((await call(app, 'GET', `/api/admin/exports/${created.id}/download`, { token: manager.token })).status, 200);

    assertError(await call(app, 'GET', '/api/admin/exports/987654321', { token: superToken }), 404, 30003);
    assertError(await call(app, 'GET', '/api/admin/exports/987654321/download', { token: superToken }), 404, 30003);
  });

  test('an expired task cannot be downloaded and reads as expired', async () => {
    const created = assertOk(await call(app, 'POST', '/api/admin/admins/export', { token: superToken, body: {} }));
    const done = await waitFor(superToken, created.id);
    assert.equal(done.status, 'completed');
    await app.platform.db.query(`UPDATE admin.export_tasks SET expires_at = now() - interval '1 second' WHERE id = $1`, [created.id]);
    assertError(await call(app, 'GET', `/api/admin/exports/${created.id}/download`, { token: superToken }), 404, 30003);
    const status = assertOk(await call(app, 'GET', `/api/admin/exports/${created.id}`, { token: superToken }));
    assert.equal(status.status, 'expired');
    assert.equal(status.download_url, null);
  });
});

describe('two instances on two data folders, one bucket', { skip: (!onPostgres && 'needs PostgreSQL (TEST_DATABASE_URL)') || s3Skip() }, () => {
  let s3: S3Server | undefined;
  let one: TestApp | undefined;
  let two: TestApp | undefined;
  before(async () => {
    s3 = await startS3();
    [one, two] = await startWithSibling({ ...s3.env, S3_PREFIX: 'shared-exports' });
  });
  after(async () => {
    await closeAll(one, two);
    await s3?.destroy();
  });

  test('an export made on one instance downloads from the other, byte-identical; neither data folder holds it', async () => {
    const token = await login(one!);
    const created = assertOk(await call(one!, 'POST', '/api/admin/admins/export', { token, body: { username: 'admin' } }));
    const deadline = Date.now() + 15_000;
    let task = created;
    while (task.status !== 'completed') {
      assert.ok(Date.now() < deadline && task.status !== 'failed', `export ${task.id} is ${task.status}: ${task.error}`);
      await new Promise((r) => setTimeout(r, 50));
      task = assertOk(await call(two!, 'GET', `/api/admin/exports/${created.id}`, { token }));
    }
    const downloads = [];
    for (const instance of [two!, one!]) {
      const res = await instance.app.inject({ url: task.download_url, headers: { authorization: `Bearer ${token}` } });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['content-disposition'], `attachment; filename="admins-export-${created.id}.csv"`);
      assert.equal(res.headers['content-length'], String(res.rawPayload.length));
      downloads.push(res.rawPayload);
    }
    assert.deepEqual(downloads[0], downloads[1]);
    assert.match(downloads[0]!.toString('utf8'), /^\uFEFF.*\r\n.*admin/s);
    for (const instance of [one!, two!]) {
      const dir = instance.env.DATA_DIR!;
      const files = existsSync(dir) ? readdirSync(dir, { recursive: true, encoding: 'utf8' }) : [];
      assert.deepEqual(files.filter((f) => f.split(path.sep).includes('exports')), [], `nothing of the export under ${dir}`);
    }
  });
});
