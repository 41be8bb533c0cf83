// Uploads: single and chunked uploads read back byte-identical (SHA-256), content and size
// checks, ownership, path-traversal attempts (nothing written outside the upload area), merges
// that race (one file), merges whose instance died (taken over by lease), the public image URL,
// ranges, and the sweep of abandoned uploads. What is stored is looked at through the storage
// itself, so that the file runs on either driver (TEST_STORAGE=s3: test/global-setup.ts).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { assemblyOwner, MERGE_LEASE_MS, type MergeTiming } from '../../src/admin/features/attachments/attachments.chunks.ts';
import { AttachmentsService } from '../../src/admin/features/attachments/attachments.service.ts';
import type { ByteRange, Storage } from '../../src/platform/storage/index.ts';
import { onPostgres, startApp, within, type TestApp } from '../helpers/app.ts';
import { assertError, assertOk } from '../helpers/assert.ts';
import { call, login, signedInAdmin } from '../helpers/http.ts';
import { bytes, chunkParts, form, newChunkId, pdf, png, postForm, sha256, split, type Chunk, type Part } from '../helpers/uploads.ts';

const LIMITS = {
  UPLOAD_MAX_IMAGE_BYTES: '4096',
  UPLOAD_MAX_DOCUMENT_BYTES: '65536',
  UPLOAD_MAX_VIDEO_BYTES: '65536',
  UPLOAD_CHUNK_MAX_BYTES: '4096',
  UPLOAD_MAX_CHUNKS: '64',
};

let app: TestApp;
let superToken: string;

before(async () => {
  app = await startApp({ ...LIMITS, UPLOAD_PUBLIC_IMAGES: 'true' });
  superToken = await login(app);
});
after(() => app?.close());

const docx = () => Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), randomBytes(100), Buffer.from('[Content_Types].xml'), randomBytes(50), Buffer.from('word/document.xml'), randomBytes(100)]);

const post = (url: string, token: string, parts: Part[], on: TestApp = app) => postForm(on, url, token, parts);
const upload = (token: string, type: string, filename: string, data: Buffer) =>
  post('/attachments/upload', token, [{ name: 'type', value: type }, { name: 'file', filename, data }]);
const sendChunk = (token: string, c: Chunk, on: TestApp = app) => post('/attachments/chunk', token, chunkParts(c), on);
const merge = (token: string, body: object, on: TestApp = app) => call(on, 'POST', '/api/admin/attachments/merge', { token, body });

async function download(url: string, token?: string, headers: Record<string, string> = {}) {
  return app.app.inject({ method: 'GET', url, headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } });
}

/** Every file under `dir` of the local disk, relative to it. */
function tree(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => statSync(path.join(dir, f)).isFile()).sort();
}

/** The keys of every object stored under `prefix` (default: the stored files and the chunks), sorted. */
async function storedKeys(prefix?: string): Promise<string[]> {
  if (prefix === undefined) return [...await storedKeys('files'), ...await storedKeys('chunks')];
  const keys: string[] = [];
  for (const { name } of await app.platform.storage.list(prefix)) {
    const key = `${prefix}/${name}`;
    const below = await storedKeys(key);
    if (below.length > 0) keys.push(...below);
    else if (await app.platform.storage.stat(key)) keys.push(key);
  }
  return keys.sort();
}
const storedFile = (storedName: string) => `files/${storedName.slice(0, 2)}/${storedName}`;
/**
 * How many pending objects (writes never committed nor discarded) were left: the sweep with a
 * cutoff ahead of now removes every one and counts them, so 0 says none was left and changes nothing.
 */
const pendingLeft = () => app.platform.storage.sweepPending(new Date(Date.now() + 3_600_000));
const newToken = () => randomBytes(16).toString('hex');
const sessionOf = async (chunkId: string) =>
  (await app.platform.db.query<{ status: string; merge_token: string | null; owner_id: number }>(
    'SELECT status, merge_token, owner_id FROM admin.upload_sessions WHERE chunk_id = $1',
    [chunkId],
  ))[0]!;
/** Claims an upload as a merge on another instance would: status 'merging', its token, its lease renewed `ago` ago. */
const claimAs = (chunkId: string, token: string, ago: string) =>
  app.platform.db.query(`UPDATE admin.upload_sessions SET status = 'merging', merge_token = $2, updated_at = now() - $3::interval WHERE chunk_id = $1`, [chunkId, token, ago]);
/** A partial assembly file, as a merge holding `token` leaves it while writing (or after crashing). */
async function partialAssembly(token: string, data: Buffer) {
  await app.platform.storage.write(Readable.from([data]), { owner: assemblyOwner(token) });
}
const serviceOf = (storage = app.platform.storage, timing?: Partial<MergeTiming>) => {
  const { platform } = app;
  return new AttachmentsService({ db: platform.db, storage, config: platform.config, logger: platform.logger, ...(timing ? { timing } : {}) });
};

describe('POST /attachments/upload', () => {
  test('stores the file under a generated name and serves it back byte-identical', async () => {
    const data = png(3000);
    const created = assertOk(await upload(superToken, 'image', 'photo.PNG', data));
    assert.equal(created.type, 'image');
    assert.equal(created.original_name, 'photo.PNG');
    assert.equal(created.extension, 'png');
    assert.equal(created.size, data.length);
    assert.equal(created.content_type, 'image/png');
    assert.equal(created.sha256, sha256(data));
    assert.match(created.stored_name, /^[0-9a-f]{32}\.png$/);
    assert.equal(created.url, `/api/admin/attachments/${created.id}/download`);
    assert.equal(created.public_url, `/api/admin/attachments/public/${created.stored_name}`);
    assert.match(created.created_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);

    const res = await download(created.url, superToken);
    assert.equal(res.statusCode, 200);
    assert.equal(sha256(res.rawPayload), sha256(data));
    assert.equal(res.headers['content-type'], 'image/png');
    assert.equal(res.headers['content-length'], String(data.length));
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['content-disposition'], `inline; filename="photo.PNG"; filename*=UTF-8''photo.PNG`);
    assert.ok((await storedKeys()).includes(storedFile(created.stored_name)));
    assert.equal(await pendingLeft(), 0);

    assert.deepEqual(assertOk(await call(app, 'GET', `/api/admin/attachments/${created.id}`, { token: superToken })), created);
  });

  test('the type field may follow the file; names are data only, with a safe Content-Disposition', async () => {
    const data = Buffer.from('name,city\r\n"Zoë",Zürich\r\n');
    const name = '报告 "q1";\\x.csv'.replace('\\', '_');
    const created = assertOk(await post('/attachments/upload', superToken, [{ name: 'file', filename: name, data, type: 'text/html' }, { name: 'type', value: 'document' }]));
    assert.equal(created.original_name, name);
    assert.equal(created.content_type, 'text/csv; charset=utf-8');
    const res = await download(created.url, superToken);
    assert.equal(sha256(res.rawPayload), sha256(data));
    assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
    const disposition = String(res.headers['content-disposition']);
    assert.match(disposition, /^attachment; filename="[\x20-\x7e]+"; filename\*=UTF-8''[A-Za-z0-9%._~!-]+$/);
    assert.equal(disposition, `attachment; filename="__ _q1___x.csv"; filename*=UTF-8''${encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`);
    assert.equal(decodeURIComponent(disposition.split("UTF-8''")[1]!), name);
  });

  test('accepts each type’s formats', async () => {
    for (const [type, name, data] of [
      ['document', 'a.pdf', pdf(500)],
      ['document', 'a.docx', docx()],
      ['document', 'notes.txt', Buffer.from('\uFEFFplain text, ünïcode\n')],
      ['document', 'old.doc', bytes([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], 300)],
      ['image', 'a.jpeg', bytes([0xff, 0xd8, 0xff, 0xe0], 300)],
      ['image', 'a.gif', bytes('GIF89a', 300)],
      ['image', 'a.webp', Buffer.concat([Buffer.from('RIFF'), Buffer.from([0, 1, 0, 0]), Buffer.from('WEBPVP8 '), randomBytes(100)])],
      ['video', 'clip.mp4', Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), randomBytes(500)])],
      ['video', 'clip.webm', Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x84]), Buffer.from('webm'), randomBytes(500)])],
    ] as const) {
      const created = assertOk(await upload(superToken, type, name, data));
      assert.equal(created.type, type, name);
      assert.equal(created.sha256, sha256(data), name);
    }
  });

  test('refuses extensions, types and contents that do not agree (40005), keeping nothing', async () => {
    const before = await storedKeys('files');
    for (const [type, name, data] of [
      ['image', 'photo.exe', png()], // a PNG renamed .exe
      ['image', 'evil.png', Buffer.from('<script>alert(1)</script>')], // a script renamed .png
      ['image', 'pic.svg', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')],
      ['document', 'page.html', Buffer.from('<html></html>')],
      ['image', 'report.pdf', pdf(300)], // a document sent as an image
      ['document', 'photo.png', png()],
      ['document', 'fake.pdf', png()],
      ['document', 'bin.txt', Buffer.from([0x68, 0x69, 0x00, 0x21])], // NUL byte
      ['document', 'latin1.csv', Buffer.from([0x63, 0x61, 0x66, 0xe9])], // not UTF-8
      ['document', 'archive.docx', bytes('PK\x03\x04', 300)], // a zip without Office parts
      ['document', 'sheet.xlsx', docx()], // a Word package named .xlsx
      ['video', 'pic.mp4', Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypheic'), randomBytes(100)])],
      ['image', 'empty.png', Buffer.alloc(0)],
      ['image', 'noext', png()],
    ] as const) {
      assertError(await upload(superToken, type, name, data), 400, 40005);
    }
    assert.deepEqual(await storedKeys('files'), before);
    assert.equal(await pendingLeft(), 0);
  });

  test('a file over its type’s limit is 413 30005 and nothing is kept', async () => {
    const before = await storedKeys();
    const res = await upload(superToken, 'image', 'big.png', png(4097));
    assertError(res, 413, 30005);
    assert.match(res.body.message, /4096/);
    assertOk(await upload(superToken, 'image', 'fits.png', png(4096)));
    // A document may be larger than an image.
    assertOk(await upload(superToken, 'document', 'big.pdf', pdf(20_000)));
    assertError(await upload(superToken, 'document', 'huge.pdf', pdf(65_537)), 413, 30005);
    assert.equal((await storedKeys()).length, before.length + 2);
    assert.equal(await pendingLeft(), 0);
  });

  test('malformed requests: not multipart 415, missing or unknown fields 400', async () => {
    assertError(await call(app, 'POST', '/api/admin/attachments/upload', { token: superToken, body: { type: 'image' } }), 415, 30006);
    assertError(await post('/attachments/upload', superToken, [{ name: 'type', value: 'image' }]), 400, 30001);
    assertError(await post('/attachments/upload', superToken, [{ name: 'file', filename: 'a.png', data: png() }]), 400, 30001);
    assertError(await upload(superToken, 'picture', 'a.png', png()), 400, 30001);
    assertError(await upload(superToken, 'constructor', 'a.png', png()), 400, 30001);
    assertError(await post('/attachments/upload', superToken, [{ name: 'constructor', value: 'x' }, { name: 'type', value: 'image' }, { name: 'file', filename: 'a.png', data: png() }]), 400, 30001);
    assertError(await post('/attachments/upload', superToken, [{ name: 'type', value: 'image' }, { name: 'file', filename: 'a.png', data: png() }, { name: 'extra', value: '1' }]), 400, 30001);
    assertError(await post('/attachments/upload', superToken, [{ name: 'type', value: 'image' }, { name: 'upload', filename: 'a.png', data: png() }]), 400, 30001);
    assertError(await post('/attachments/upload', superToken, [{ name: 'type', value: 'image' }, { name: 'type', value: 'image' }, { name: 'file', filename: 'a.png', data: png() }]), 400, 30001);
    assertError(await post('/attachments/upload', superToken, [{ name: 'type', value: 'image' }, { name: 'file', filename: 'a.png', data: png() }, { name: 'file', filename: 'b.png', data: png() }]), 400, 30001);
    const broken = form([{ name: 'type', value: 'image' }, { name: 'file', filename: 'a.png', data: png() }]);
    const truncated = broken.payload.subarray(0, broken.payload.length - 30);
    assertError(await call(app, 'POST', '/api/admin/attachments/upload', { token: superToken, payload: truncated, headers: { 'content-type': broken.contentType } }), 400, 30004);
    assert.equal(await pendingLeft(), 0);
  });

  test('the permissions are in the catalogue, under the Files menu; the routes are documented', async () => {
    const rows = await app.platform.db.query<{ slug: string; menu: string }>(
      `SELECT p.slug, m.slug AS menu FROM admin.permissions p JOIN admin.menus m ON m.id = p.menu_id WHERE p.slug LIKE 'attachment.%' ORDER BY p.slug`,
    );
    assert.deepEqual(rows.map((r) => [r.slug, r.menu]), [['attachment.delete', 'attachment'], ['attachment.upload', 'attachment'], ['attachment.view', 'attachment']]);
    const doc = (await call(app, 'GET', '/api/admin/docs/openapi.json')).body;
    const schema = doc.paths['/api/admin/attachments/chunk'].post.requestBody.content['multipart/form-data'].schema;
    assert.deepEqual(Object.keys(schema.properties).sort(), ['chunk_id', 'chunk_index', 'file', 'filename', 'total_chunks']);
    for (const p of ['/api/admin/attachments/upload', '/api/admin/attachments/merge', '/api/admin/attachments/chunk/{chunk_id}', '/api/admin/attachments/{id}/download', '/api/admin/attachments/public/{stored_name}']) {
      assert.ok(doc.paths[p], p);
    }
  });

  test('needs attachment.upload', async () => {
    const a = await signedInAdmin(app, { permissions: ['attachment.view'] });
    assertError(await upload(a.token, 'image', 'a.png', png()), 403, 20001);
  });
});

describe('reading attachments', () => {
  test('its uploader and attachment.view holders read it; others get 403', async () => {
    const uploader = await signedInAdmin(app, { permissions: ['attachment.upload'] });
    const viewer = await signedInAdmin(app, { permissions: ['attachment.view'] });
    const other = await signedInAdmin(app, { permissions: ['attachment.upload'] });
    const data = pdf(700);
    const created = assertOk(await upload(uploader.token, 'document', 'mine.pdf', data));
    assert.equal(created.uploaded_by, uploader.id);
    assert.equal(created.public_url, null);
    for (const token of [uploader.token, viewer.token, superToken]) {
      assertOk(await call(app, 'GET', `/api/admin/attachments/${created.id}`, { token }));
      const res = await download(created.url, token);
      assert.equal(res.statusCode, 200);
      assert.equal(sha256(res.rawPayload), sha256(data));
    }
    assertError(await call(app, 'GET', `/api/admin/attachments/${created.id}`, { token: other.token }), 403, 20001);
    assertError(await call(app, 'GET', created.url, { token: other.token }), 403, 20001);
    assertError(await call(app, 'GET', '/api/admin/attachments/999999999', { token: superToken }), 404, 30003);
    assertError(await call(app, 'GET', '/api/admin/attachments/abc', { token: superToken }), 400, 30001);

    const list = assertOk(await call(app, 'GET', `/api/admin/attachments?uploaded_by=${uploader.id}&type=document`, { token: viewer.token }));
    assert.equal(list.total, 1);
    assert.equal(list.list[0].id, created.id);
    assertError(await call(app, 'GET', '/api/admin/attachments', { token: uploader.token }), 403, 20001);
    assertError(await call(app, 'GET', '/api/admin/attachments?order_by=original_name:asc', { token: viewer.token }), 400, 30001);
  });

  test('records name their uploader (uploader_name); null once that administrator is deleted', async () => {
    const uploader = await signedInAdmin(app, { permissions: ['attachment.upload'] });
    const nick = `Nick ${uploader.username}`;
    const created = assertOk(await upload(uploader.token, 'document', 'named.pdf', pdf(300)));
    assert.equal(created.uploader_name, nick);
    const chunk_id = newChunkId();
    assertOk(await sendChunk(uploader.token, { chunk_id, index: 0, total: 1, filename: 'merged.pdf', data: pdf(200) }));
    const merged = assertOk(await merge(uploader.token, { chunk_id, filename: 'merged.pdf', total_chunks: 1 }));
    assert.equal(merged.uploader_name, nick);
    const listed = async () => assertOk(await call(app, 'GET', `/api/admin/attachments?uploaded_by=${uploader.id}&order_by=created_at:asc`, { token: superToken }));
    assert.deepEqual((await listed()).list.map((a: { id: number; uploader_name: string | null }) => [a.id, a.uploader_name]), [[created.id, nick], [merged.id, nick]]);
    assert.equal(assertOk(await call(app, 'GET', `/api/admin/attachments/${created.id}`, { token: superToken })).uploader_name, nick);
    await app.platform.db.query(`UPDATE admin.admins SET nickname = '' WHERE id = $1`, [uploader.id]);
    assert.equal(assertOk(await call(app, 'GET', `/api/admin/attachments/${created.id}`, { token: superToken })).uploader_name, uploader.username);

    assertOk(await call(app, 'DELETE', `/api/admin/admins/${uploader.id}`, { token: superToken }));
    const after = await listed();
    assert.equal(after.total, 2);
    assert.deepEqual(after.list.map((a: { uploaded_by: number; uploader_name: string | null }) => [a.uploaded_by, a.uploader_name]), [[uploader.id, null], [uploader.id, null]]);
    assert.equal(assertOk(await call(app, 'GET', `/api/admin/attachments/${created.id}`, { token: superToken })).uploader_name, null);
  });

  test('ranges and ETags', async () => {
    const data = pdf(2000);
    const created = assertOk(await upload(superToken, 'document', 'r.pdf', data));
    const part = await download(created.url, superToken, { range: 'bytes=100-199' });
    assert.equal(part.statusCode, 206);
    assert.equal(part.headers['content-range'], `bytes 100-199/${data.length}`);
    assert.deepEqual(part.rawPayload, data.subarray(100, 200));
    const tail = await download(created.url, superToken, { range: 'bytes=-10' });
    assert.deepEqual(tail.rawPayload, data.subarray(data.length - 10));
    const whole = await download(created.url, superToken, { range: 'bytes=5000-' });
    assert.equal(whole.statusCode, 200);
    assert.equal(whole.rawPayload.length, data.length);
    assert.equal(whole.headers.etag, `"${sha256(data)}"`);
    const cached = await download(created.url, superToken, { 'if-none-match': `"${sha256(data)}"` });
    assert.equal(cached.statusCode, 304);
    assert.equal(cached.rawPayload.length, 0);
    const head = await app.app.inject({ method: 'HEAD', url: created.url, headers: { authorization: `Bearer ${superToken}` } });
    assert.equal(head.statusCode, 200);
    assert.equal(head.headers['content-length'], String(data.length));
    assert.equal(head.rawPayload.length, 0);
  });

  test('images are served without a token at their public URL when enabled; nothing else is', async () => {
    const image = assertOk(await upload(superToken, 'image', 'pub.png', png(800)));
    const res = await download(image.public_url);
    assert.equal(res.statusCode, 200);
    assert.equal(sha256(res.rawPayload), image.sha256);
    assert.match(String(res.headers['cache-control']), /^public/);
    const doc = assertOk(await upload(superToken, 'document', 'private.pdf', pdf(300)));
    assertError(await call(app, 'GET', `/api/admin/attachments/public/${doc.stored_name}`), 404, 30003);
    assertError(await call(app, 'GET', `/api/admin/attachments/public/${'0'.repeat(32)}.png`), 404, 30003);
    assertError(await call(app, 'GET', '/api/admin/attachments/public/..%2F..%2Fsecrets'), 400, 30001);

    const closed = await startApp(LIMITS);
    try {
      const token = await login(closed);
      const { payload, contentType } = form([{ name: 'type', value: 'image' }, { name: 'file', filename: 'p.png', data: png() }]);
      const created = assertOk(await call(closed, 'POST', '/api/admin/attachments/upload', { token, payload, headers: { 'content-type': contentType } }));
      assert.equal(created.public_url, null);
      assertError(await call(closed, 'GET', `/api/admin/attachments/public/${created.stored_name}`), 404, 30003);
    } finally {
      await closed.close();
    }
  });
});

describe('chunked uploads', () => {
  test('shuffled chunks with a duplicate and a missing one: status, 400 naming it, then a byte-identical merge', async () => {
    const data = pdf(4096 * 4 + 123);
    const pieces = split(data, 4096);
    const total = pieces.length;
    const chunk_id = newChunkId();
    const filename = 'Quarterly report.pdf';
    const order = [3, 0, 4, 1]; // 2 is missing
    for (const index of order) {
      const r = assertOk(await sendChunk(superToken, { chunk_id, index, total, filename, data: pieces[index]! }));
      assert.equal(r.duplicate, false);
      assert.equal(r.sha256, sha256(pieces[index]!));
    }
    const dup = assertOk(await sendChunk(superToken, { chunk_id, index: 0, total, filename, data: pieces[0]! }));
    assert.equal(dup.duplicate, true);
    assert.equal(dup.received_count, 4);
    assert.equal(dup.complete, false);

    const state = assertOk(await call(app, 'GET', `/api/admin/attachments/chunk/${chunk_id}`, { token: superToken }));
    assert.deepEqual(state.received, [0, 1, 3, 4]);
    assert.deepEqual(state.missing, [2]);
    assert.equal(state.status, 'open');
    assert.equal(state.total_chunks, total);
    assert.equal(state.received_bytes, data.length - pieces[2]!.length);

    const refused = await merge(superToken, { chunk_id, filename, total_chunks: total });
    assertError(refused, 400, 40005);
    assert.match(refused.body.message, /missing chunks: 2$/);

    const last = assertOk(await sendChunk(superToken, { chunk_id, index: 2, total, filename, data: pieces[2]! }));
    assert.equal(last.complete, true);
    const created = assertOk(await merge(superToken, { chunk_id, filename, total_chunks: total }));
    assert.equal(created.original_name, filename);
    assert.equal(created.size, data.length);
    assert.equal(created.sha256, sha256(data));
    assert.equal(created.type, 'document');
    const res = await download(created.url, superToken);
    assert.equal(sha256(res.rawPayload), sha256(data));

    // The chunks are gone; merging again answers the same attachment; the upload is closed.
    const [session] = await app.platform.db.query<{ id: number; storage_dir: string }>('SELECT id, storage_dir FROM admin.upload_sessions WHERE chunk_id = $1', [chunk_id]);
    assert.deepEqual(await storedKeys(`chunks/${session!.storage_dir}`), []);
    const [left] = await app.platform.db.query<{ n: number }>('SELECT count(*)::int AS n FROM admin.upload_chunks WHERE session_id = $1', [session!.id]);
    assert.equal(left!.n, 0);
    assert.equal(assertOk(await merge(superToken, { chunk_id, filename, total_chunks: total })).id, created.id);
    const done = assertOk(await call(app, 'GET', `/api/admin/attachments/chunk/${chunk_id}`, { token: superToken }));
    assert.equal(done.status, 'merged');
    assert.equal(done.attachment_id, created.id);
    assertError(await sendChunk(superToken, { chunk_id, index: 0, total, filename, data: pieces[0]! }), 400, 40005);
    // The operation log: the merges wrote their rows, the chunks none of their own (issue 31).
    const merges = await within(5000, async () => {
      const rows = await app.platform.db.query<{ n: number }>("SELECT count(*)::int AS n FROM admin.operation_logs WHERE route LIKE '%/attachments/merge'");
      return rows[0]!.n >= 3 ? rows[0]!.n : undefined;
    });
    assert.ok(merges, 'the merges are in the operation log');
    const chunkRows = await app.platform.db.query<{ n: number }>("SELECT count(*)::int AS n FROM admin.operation_logs WHERE route LIKE '%/attachments/chunk%'");
    assert.equal(chunkRows[0]!.n, 0);
  });

  test('a chunk re-sent with other content is refused; filename and total_chunks must stay the same', async () => {
    const chunk_id = newChunkId();
    const c = { chunk_id, index: 0, total: 2, filename: 'a.pdf', data: pdf(100) };
    assertOk(await sendChunk(superToken, c));
    assertError(await sendChunk(superToken, { ...c, data: pdf(100) }), 400, 40005);
    assertError(await sendChunk(superToken, { ...c, index: 1, total: 3 }), 400, 30001);
    assertError(await sendChunk(superToken, { ...c, index: 1, filename: 'b.pdf' }), 400, 30001);
    assertError(await merge(superToken, { chunk_id, filename: 'b.pdf', total_chunks: 2 }), 400, 30001);
    assertError(await merge(superToken, { chunk_id, filename: 'a.pdf', total_chunks: 2, type: 'document' }), 400, 30001);
    assertError(await merge(superToken, { chunk_id: newChunkId(), filename: 'a.pdf', total_chunks: 2 }), 404, 30003);
    assertError(await call(app, 'GET', `/api/admin/attachments/chunk/${newChunkId()}`, { token: superToken }), 404, 30003);
  });

  test('limits: chunk size 413, total size 413, chunk counts and indexes 400, empty chunk 400', async () => {
    assertError(await sendChunk(superToken, { chunk_id: newChunkId(), index: 0, total: 2, filename: 'a.pdf', data: pdf(4097) }), 413, 30005);
    assertError(await sendChunk(superToken, { chunk_id: newChunkId(), index: 0, total: 65, filename: 'a.pdf', data: pdf(10) }), 400, 30001);
    assertError(await sendChunk(superToken, { chunk_id: newChunkId(), index: 2, total: 2, filename: 'a.pdf', data: pdf(10) }), 400, 30001);
    assertError(await sendChunk(superToken, { chunk_id: newChunkId(), index: 0, total: 2, filename: 'a.pdf', data: Buffer.alloc(0) }), 400, 30001);
    for (const [index, total] of [['-1', '2'], ['1.5', '2'], ['0', '0'], ['x', '2'], ['0', '1e3']]) {
      const parts = chunkParts({ chunk_id: newChunkId(), index: 0, total: 2, filename: 'a.pdf', data: pdf(10) });
      (parts[1] as { value: string }).value = index!;
      (parts[2] as { value: string }).value = total!;
      assertError(await post('/attachments/chunk', superToken, parts), 400, 30001);
    }
    // Images are limited to 4096 bytes in all: the second chunk would pass it.
    const chunk_id = newChunkId();
    assertOk(await sendChunk(superToken, { chunk_id, index: 0, total: 2, filename: 'a.png', data: png(3000) }));
    assertError(await sendChunk(superToken, { chunk_id, index: 1, total: 2, filename: 'a.png', data: randomBytes(2000) }), 413, 30005);
    assertError(await sendChunk(superToken, { chunk_id: newChunkId(), index: 0, total: 2, filename: 'a.exe', data: pdf(10) }), 400, 40005);
    assert.equal(await pendingLeft(), 0);
  });

  test('refused content at merge removes the upload', async () => {
    const chunk_id = newChunkId();
    const data = Buffer.from('#!/bin/sh\nrm -rf /\n'.repeat(10));
    const [a, b] = split(data, 100);
    assertOk(await sendChunk(superToken, { chunk_id, index: 1, total: 2, filename: 'run.png', data: b! }));
    assertOk(await sendChunk(superToken, { chunk_id, index: 0, total: 2, filename: 'run.png', data: a! }));
    const res = await merge(superToken, { chunk_id, filename: 'run.png', total_chunks: 2 });
    assertError(res, 400, 40005);
    assert.match(res.body.message, /does not match/);
    assertError(await call(app, 'GET', `/api/admin/attachments/chunk/${chunk_id}`, { token: superToken }), 404, 30003);
  });

  test('an upload belongs to its uploader: another administrator gets 403', async () => {
    const owner = await signedInAdmin(app, { permissions: ['attachment.upload'] });
    const other = await signedInAdmin(app, { permissions: ['attachment.upload'] });
    const chunk_id = newChunkId();
    const c = { chunk_id, index: 0, total: 2, filename: 'o.pdf', data: pdf(200) };
    assertOk(await sendChunk(owner.token, c));
    assertError(await sendChunk(other.token, { ...c, index: 1, data: randomBytes(50) }), 403, 20001);
    assertError(await call(app, 'GET', `/api/admin/attachments/chunk/${chunk_id}`, { token: other.token }), 403, 20001);
    assertError(await merge(other.token, { chunk_id, filename: 'o.pdf', total_chunks: 2 }), 403, 20001);
    assertOk(await sendChunk(owner.token, { ...c, index: 1, data: randomBytes(50) }));
    assertError(await merge(other.token, { chunk_id, filename: 'o.pdf', total_chunks: 2 }), 403, 20001);
    assert.equal(assertOk(await merge(owner.token, { chunk_id, filename: 'o.pdf', total_chunks: 2 })).uploaded_by, owner.id);
    const viewer = await signedInAdmin(app, { permissions: ['attachment.view'] });
    assertError(await sendChunk(viewer.token, { ...c, chunk_id: newChunkId() }), 403, 20001);
  });

  test('path traversal in chunk_id and filename is refused and nothing is written outside the upload area', async () => {
    const dataDir = app.env.DATA_DIR!;
    const outside = () => [...tree(dataDir).filter((f) => !f.startsWith(`uploads${path.sep}`)), ...readdirSync(path.dirname(dataDir)).filter((f) => /b1evil/.test(f))];
    const before = outside();
    const badIds = ['../../b1evil', '..', '../b1evil_chunk', 'a/b/b1evil', 'b1evil\\..\\x', '/etc/b1evil', 'b1evil\0abcdef', '%2e%2e%2fb1evil', 'x'.repeat(65), 'short', 'b1evil chunk', 'b1evil.chunk'];
    for (const chunk_id of badIds) {
      assertError(await sendChunk(superToken, { chunk_id, index: 0, total: 1, filename: 'ok.pdf', data: pdf(50) }), 400, 30001);
      assertError(await merge(superToken, { chunk_id, filename: 'ok.pdf', total_chunks: 1 }), 400, 30001);
    }
    const badNames = ['../../b1evil.pdf', '../b1evil.pdf', 'dir/b1evil.pdf', 'dir\\b1evil.pdf', '/tmp/b1evil.pdf', 'C:\\b1evil.pdf', 'b1evil\0.pdf', '..', '.', `${'é'.repeat(126)}.pdf`, 'b1evil\u202Efdp.exe', ' b1evil.pdf', 'b1evil\n.pdf'];
    for (const filename of badNames) {
      const chunk_id = newChunkId();
      const res = await sendChunk(superToken, { chunk_id, index: 0, total: 1, filename, data: pdf(50) });
      assert.ok(res.status === 400 && [30001, 40005].includes(res.body.code), `${JSON.stringify(filename)}: ${JSON.stringify(res.body)}`);
      const m = await merge(superToken, { chunk_id, filename, total_chunks: 1 });
      assert.ok(m.status === 400 && [30001, 40005].includes(m.body.code), `${JSON.stringify(filename)}: ${JSON.stringify(m.body)}`);
    }
    // (A bare `..` or `%2e%2e` segment is resolved by the URL parser before routing: it names another route.)
    for (const p of ['..%2F..%2Fb1evil', '%2e%2e%2f%2e%2e%2fb1evil', 'a%2Fb1evil_chunk', '%00b1evilchunk', '..%5Cb1evil_chunk']) {
      assertError(await call(app, 'GET', `/api/admin/attachments/chunk/${p}`, { token: superToken }), 400, 30001);
    }
    // A file part named with a path is only data: stored under a generated name.
    const traversal = assertOk(await upload(superToken, 'document', '../../b1evil.pdf', pdf(100)));
    assert.match(traversal.stored_name, /^[0-9a-f]{32}\.pdf$/);
    assert.equal(traversal.original_name, 'b1evil.pdf');

    assert.deepEqual(outside(), before);
    // In the storage, only generated names.
    for (const key of await storedKeys()) assert.match(key, /^(files\/[0-9a-f]{2}\/[0-9a-f]{32}\.[a-z0-9]+|chunks\/[0-9a-f]{32}\/\d{6})$/, key);
    const [sessions] = await app.platform.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM admin.upload_sessions WHERE chunk_id LIKE '%b1evil%' OR filename LIKE '%b1evil%'`);
    assert.equal(sessions!.n, 0);
  });

  test('a chunk damaged in storage is named at merge and can be sent again; a stalled merge is taken over', async () => {
    const data = pdf(4096 * 2 + 10);
    const pieces = split(data, 4096);
    const chunk_id = newChunkId();
    for (const [index, p] of pieces.entries()) assertOk(await sendChunk(superToken, { chunk_id, index, total: pieces.length, filename: 'd.pdf', data: p }));
    const [session] = await app.platform.db.query<{ storage_dir: string }>('SELECT storage_dir FROM admin.upload_sessions WHERE chunk_id = $1', [chunk_id]);
    await (await app.platform.storage.write(Readable.from([randomBytes(4096)]))).commit(`chunks/${session!.storage_dir}/000001`);
    const res = await merge(superToken, { chunk_id, filename: 'd.pdf', total_chunks: pieces.length });
    assertError(res, 400, 40005);
    assert.match(res.body.message, /chunk 1 /);
    const state = assertOk(await call(app, 'GET', `/api/admin/attachments/chunk/${chunk_id}`, { token: superToken }));
    assert.equal(state.status, 'open');
    assert.deepEqual(state.missing, [1]);
    assert.equal(assertOk(await sendChunk(superToken, { chunk_id, index: 1, total: pieces.length, filename: 'd.pdf', data: pieces[1]! })).duplicate, false);

    // A merge claimed by an instance that stopped (its lease long expired) is taken over.
    await app.platform.db.query(`UPDATE admin.upload_sessions SET status = 'merging', merge_token = 'gone', updated_at = now() - interval '2 minutes' WHERE chunk_id = $1`, [chunk_id]);
    const created = assertOk(await merge(superToken, { chunk_id, filename: 'd.pdf', total_chunks: pieces.length }));
    assert.equal(created.sha256, sha256(data));
    assert.equal(sha256((await download(created.url, superToken)).rawPayload), sha256(data));
  });

  test('a merge whose instance crashed is taken over as soon as its lease expires; its partial file is removed', async () => {
    const data = pdf(4096 * 3 + 100);
    const pieces = split(data, 4096);
    const chunk_id = newChunkId();
    for (const [index, p] of pieces.entries()) assertOk(await sendChunk(superToken, { chunk_id, index, total: pieces.length, filename: 'crash.pdf', data: p }));
    // As a crashed merge leaves it: a half-written file, and its claim, last renewed just before
    // the crash (2 s of lease left: made last, so that the time the store takes to list its files
    // does not count).
    const dead = newToken();
    await partialAssembly(dead, data.subarray(0, 5000));
    assert.deepEqual(await app.platform.storage.pendingOwners(), [assemblyOwner(dead)]);
    const filesBefore = (await storedKeys('files')).length;
    await claimAs(chunk_id, dead, `${(MERGE_LEASE_MS - 2_000) / 1000} seconds`);

    const started = Date.now();
    const created = assertOk(await merge(superToken, { chunk_id, filename: 'crash.pdf', total_chunks: pieces.length }));
    const elapsed = Date.now() - started;
    // Taken over once the lease expired: not before (the claim was live for ~2 s more), and not after a fixed 30 s wait.
    assert.ok(elapsed >= 1_000 && elapsed < 10_000, `taken over after ${elapsed} ms`);
    assert.equal(created.sha256, sha256(data));
    assert.equal(sha256((await download(created.url, superToken)).rawPayload), sha256(data));
    assert.equal(await pendingLeft(), 0);
    assert.equal((await storedKeys('files')).length, filesBefore + 1);
    const session = await sessionOf(chunk_id);
    assert.equal(session.status, 'merged');
    assert.equal(session.merge_token, null);
  });

  test('a live merge renews its lease: a concurrent merge waits for it, the sweep leaves its file alone', async () => {
    const data = pdf(4096 * 3);
    const pieces = split(data, 4096);
    const chunk_id = newChunkId();
    for (const [index, p] of pieces.entries()) assertOk(await sendChunk(superToken, { chunk_id, index, total: pieces.length, filename: 'slow.pdf', data: p }));
    // A short lease, and a storage whose chunks take 0.8 s each to open: the merge outlives its lease twice over.
    const timing = { leaseMs: 1_000, renewMs: 200, pollMs: 100 };
    const storage = app.platform.storage;
    const slowStorage: Storage = Object.assign(Object.create(storage) as Storage, {
      async read(key: string, range?: ByteRange) {
        if (key.startsWith('chunks/')) await sleep(800);
        return storage.read(key, range);
      },
    });
    const slow = serviceOf(slowStorage, timing);
    const other = serviceOf(undefined, timing);
    const { owner_id } = await sessionOf(chunk_id);
    const body = { chunk_id, filename: 'slow.pdf', total_chunks: pieces.length };
    const first = slow.merge(Number(owner_id), body);
    while ((await sessionOf(chunk_id)).status !== 'merging') await sleep(20);
    const token = (await sessionOf(chunk_id)).merge_token!;
    const second = other.merge(Number(owner_id), body);
    let seen = 0;
    for (let i = 0; i < 3; i++) {
      await sleep(500);
      const writing = (await app.platform.storage.pendingOwners()).includes(assemblyOwner(token));
      const swept = await other.sweep();
      assert.equal(swept.assemblies, 0);
      if (writing) seen += 1;
    }
    assert.ok(seen > 0, 'the merge was writing during the sweeps');
    const [a, b] = await Promise.all([first, second]);
    assert.equal(a.id, b.id);
    assert.equal(a.sha256, sha256(data));
    const [n] = await app.platform.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM admin.attachments WHERE sha256 = $1`, [sha256(data)]);
    assert.equal(n!.n, 1);
    assert.equal(await pendingLeft(), 0);
  });

  test('concurrent merges of one upload produce one file', async () => {
    const data = pdf(4096 * 3);
    const pieces = split(data, 4096);
    const chunk_id = newChunkId();
    await Promise.all(pieces.map((p, index) => sendChunk(superToken, { chunk_id, index, total: pieces.length, filename: 'race.pdf', data: p })));
    const filesBefore = (await storedKeys('files')).length;
    const results = await Promise.all([1, 2, 3, 4].map(() => merge(superToken, { chunk_id, filename: 'race.pdf', total_chunks: pieces.length })));
    const ids = new Set(results.map((r) => assertOk(r).id));
    assert.equal(ids.size, 1);
    const [n] = await app.platform.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM admin.attachments WHERE sha256 = $1`, [sha256(data)]);
    assert.equal(n!.n, 1);
    assert.equal((await storedKeys('files')).length, filesBefore + 1);
    assert.equal(await pendingLeft(), 0);
  });

  test('two instances sharing the database and the storage: chunks to either, concurrent merges, one file', { skip: !onPostgres && 'needs PostgreSQL (TEST_DATABASE_URL)' }, async () => {
    const other = await app.sibling({ DATA_DIR: app.env.DATA_DIR! });
    try {
      const data = pdf(4096 * 4);
      const pieces = split(data, 4096);
      const chunk_id = newChunkId();
      await Promise.all(pieces.map((p, index) => sendChunk(superToken, { chunk_id, index, total: pieces.length, filename: 'two.pdf', data: p }, index % 2 ? other : app)));
      const state = assertOk(await call(other, 'GET', `/api/admin/attachments/chunk/${chunk_id}`, { token: superToken }));
      assert.deepEqual(state.missing, []);
      const results = await Promise.all([app, other, app, other].map((on) => merge(superToken, { chunk_id, filename: 'two.pdf', total_chunks: pieces.length }, on)));
      const ids = new Set(results.map((r) => assertOk(r).id));
      assert.equal(ids.size, 1);
      const [n] = await app.platform.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM admin.attachments WHERE sha256 = $1`, [sha256(data)]);
      assert.equal(n!.n, 1);
      const res = await other.app.inject({ method: 'GET', url: results[0]!.body.data.url, headers: { authorization: `Bearer ${superToken}` } });
      assert.equal(sha256(res.rawPayload), sha256(data));
    } finally {
      await other.close();
    }
  });
});

describe('sweep of abandoned uploads', () => {
  test('removes uploads idle past UPLOAD_CHUNK_TTL_HOURS, orphan chunk directories and stale pending files', async () => {
    const { platform } = app;
    const storage = platform.storage;
    // An object store's objects cannot be dated back: this sweep keeps what is younger than 3 s,
    // and the orphan and the stale pending object are made 4.5 s before it (the store's times may
    // be whole seconds).
    const ttlSeconds = 3;
    const orphan = `chunks/${randomBytes(16).toString('hex')}`;
    await (await storage.write(Readable.from(['x']))).commit(`${orphan}/000000`);
    await storage.write(Readable.from(['partial'])); // never committed nor discarded, as an interrupted write leaves it
    await sleep((ttlSeconds + 1.5) * 1000);

    const old = { chunk_id: newChunkId(), index: 0, total: 2, filename: 'old.pdf', data: pdf(100) };
    const fresh = { ...old, chunk_id: newChunkId(), filename: 'fresh.pdf' };
    assertOk(await sendChunk(superToken, old));
    assertOk(await sendChunk(superToken, fresh));
    const dirOf = async (chunkId: string) =>
      (await app.platform.db.query<{ storage_dir: string }>('SELECT storage_dir FROM admin.upload_sessions WHERE chunk_id = $1', [chunkId]))[0]?.storage_dir;
    const oldDir = (await dirOf(old.chunk_id))!;
    const freshDir = (await dirOf(fresh.chunk_id))!;
    await app.platform.db.query(`UPDATE admin.upload_sessions SET updated_at = now() - interval '25 hours' WHERE chunk_id = $1`, [old.chunk_id]);

    const config = { ...platform.config, UPLOAD_CHUNK_TTL_HOURS: ttlSeconds / 3600 };
    const service = new AttachmentsService({ db: platform.db, storage, config, logger: platform.logger });
    const swept = await service.sweep();
    assert.ok(swept.sessions >= 1 && swept.orphans >= 1 && swept.pending >= 1, JSON.stringify(swept));
    assert.equal(await pendingLeft(), 0);
    assert.equal(await dirOf(old.chunk_id), undefined);
    assert.deepEqual(await storedKeys(`chunks/${oldDir}`), []);
    assert.deepEqual(await storedKeys(orphan), []);
    assert.equal(await dirOf(fresh.chunk_id), freshDir);
    assert.deepEqual(await storedKeys(`chunks/${freshDir}`), [`chunks/${freshDir}/000000`]);
    assertError(await call(app, 'GET', `/api/admin/attachments/chunk/${old.chunk_id}`, { token: superToken }), 404, 30003);
    assertOk(await call(app, 'GET', `/api/admin/attachments/chunk/${fresh.chunk_id}`, { token: superToken }));
  });

  test('removes a partial merge file at once when its claim is gone or expired, never one of a live merge', async () => {
    const upload = async (filename: string) => {
      const c = { chunk_id: newChunkId(), index: 0, total: 2, filename, data: pdf(100) };
      assertOk(await sendChunk(superToken, c));
      return c.chunk_id;
    };
    const crashed = await upload('crashed.pdf');
    const running = await upload('running.pdf');
    const [expired, live, gone] = [newToken(), newToken(), newToken()];
    await claimAs(crashed, expired, `${MERGE_LEASE_MS / 1000 + 5} seconds`);
    await claimAs(running, live, '0 seconds');
    // `gone`: a merge whose claim is no longer in the database (taken over, or its upload removed).
    for (const t of [expired, live, gone]) await partialAssembly(t, pdf(3000));
    const storage = app.platform.storage;

    const swept = await serviceOf(storage).sweep();
    assert.equal(swept.assemblies, 2);
    assert.deepEqual(await storage.pendingOwners(), [assemblyOwner(live)]);
    // The expired claim is revoked (its merge, were it still running, could not record anything), and a new merge can claim the upload.
    const revoked = await sessionOf(crashed);
    assert.equal(revoked.status, 'open');
    assert.equal(revoked.merge_token, null);
    const still = await sessionOf(running);
    assert.equal(still.status, 'merging');
    assert.equal(still.merge_token, live);

    await storage.discardPending(assemblyOwner(live));
    assert.equal(await pendingLeft(), 0);
  });
});

describe('DELETE /attachments/{id}', () => {
  const remove = (id: number, token: string) => call(app, 'DELETE', `/api/admin/attachments/${id}`, { token });

  test('needs attachment.delete; deletes the record and its file, then its addresses are 404', async () => {
    const uploader = await signedInAdmin(app, { permissions: ['attachment.upload'] });
    const deleter = await signedInAdmin(app, { permissions: ['attachment.delete'] });
    const created = assertOk(await upload(uploader.token, 'image', 'gone.png', png(500)));
    assertError(await remove(created.id, uploader.token), 403, 20001);
    assert.ok(await app.platform.storage.stat(storedFile(created.stored_name)));
    assert.deepEqual(assertOk(await remove(created.id, deleter.token)), { id: created.id, stored_name: created.stored_name });
    assert.equal(await app.platform.storage.stat(storedFile(created.stored_name)), null, 'the stored file is removed');
    assertError(await call(app, 'GET', created.url, { token: superToken }), 404, 30003);
    assertError(await call(app, 'GET', `/api/admin/attachments/${created.id}`, { token: superToken }), 404, 30003);
    assert.equal((await download(created.public_url)).statusCode, 404);
    assertError(await remove(created.id, deleter.token), 404, 30003);
    assertError(await remove(999999999, deleter.token), 404, 30003);
    assertError(await call(app, 'DELETE', '/api/admin/attachments/abc', { token: deleter.token }), 400, 30001);
  });

  test('a file still used as an avatar or by a payment method is refused (400 40002, both languages) and kept', async () => {
    const created = assertOk(await upload(superToken, 'image', 'used.png', png(500)));
    const holder = await signedInAdmin(app);
    await app.platform.db.query(`UPDATE admin.admins SET avatar = $2 WHERE id = $1`, [holder.id, `https://console.example${created.url}`]);
    const [method] = await app.platform.db.query<{ id: number }>(
      `INSERT INTO admin.payment_methods (name, code, type, config, is_active, sort) VALUES ('Icon pay', $1, 'online', $2::jsonb, true, 0) RETURNING id`,
      [`icon_${randomBytes(4).toString('hex')}`, JSON.stringify({ icon: created.public_url })],
    );
    const refused = await remove(created.id, superToken);
    assertError(refused, 400, 40002);
    assert.match(refused.body.message, /attachment "used\.png" is still used \(1 administrator avatars, 1 payment methods\)/);
    const zh = await call(app, 'DELETE', `/api/admin/attachments/${created.id}`, { token: superToken, headers: { 'accept-language': 'zh-CN' } });
    assertError(zh, 400, 40002);
    assert.match(zh.body.message, /附件 "used\.png" 仍在使用中/);
    assert.ok(await app.platform.storage.stat(storedFile(created.stored_name)));
    assert.equal((await download(created.url, superToken)).statusCode, 200);

    await app.platform.db.query(`UPDATE admin.admins SET avatar = '' WHERE id = $1`, [holder.id]);
    assertError(await remove(created.id, superToken), 400, 40002);
    await app.platform.db.query(`DELETE FROM admin.payment_methods WHERE id = $1`, [method!.id]);
    assertOk(await remove(created.id, superToken));
    assert.equal((await download(created.url, superToken)).statusCode, 404);
  });
});
