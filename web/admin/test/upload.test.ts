// Chunked uploads without a browser: the plan of a file's chunks, the type from the extension,
// and the record that lets the same file, picked again after a reload, continue from the
// chunks the server is missing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  bytesDone, CHUNK_SIZE_KEY, chunkBytesFrom, chunksToSend, DEFAULT_CHUNK_BYTES, findPending, forgetPending, loadPending, MAX_CHUNKS,
  newChunkId, PENDING_KEY, PENDING_TTL_MS, percent, planChunks, savePending, startPending, typeOf, type KeyValueStore,
} from '../src/screens/attachments/upload.ts';

function memory(): KeyValueStore & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return { data, getItem: (k) => data.get(k) ?? null, setItem: (k, v) => void data.set(k, v), removeItem: (k) => void data.delete(k) };
}

test('a file is cut into chunks of the chosen size, the last one shorter', () => {
  const { chunks, chunkBytes } = planChunks(10 * 1024 + 5, 1024);
  assert.equal(chunkBytes, 1024);
  assert.equal(chunks.length, 11);
  assert.deepEqual(chunks[0], { index: 0, start: 0, end: 1024 });
  assert.deepEqual(chunks.at(-1), { index: 10, start: 10240, end: 10245 });
  assert.equal(chunks.reduce((s, c) => s + c.end - c.start, 0), 10 * 1024 + 5);
  // Exact multiple: no empty trailing chunk. Empty file: one empty chunk.
  assert.equal(planChunks(4096, 1024).chunks.length, 4);
  assert.deepEqual(planChunks(0, 1024).chunks, [{ index: 0, start: 0, end: 0 }]);
  // Never more chunks than the server accepts: the size grows instead.
  const huge = planChunks(MAX_CHUNKS * 1024 * 3, 1024);
  assert.equal(huge.chunks.length, MAX_CHUNKS);
  assert.throws(() => planChunks(-1, 1024), RangeError);
  assert.throws(() => planChunks(10, 0), RangeError);
});

test('the chunk size comes from the setting when it is sensible', () => {
  const store = memory();
  assert.equal(chunkBytesFrom(store), DEFAULT_CHUNK_BYTES);
  store.setItem(CHUNK_SIZE_KEY, String(64 * 1024));
  assert.equal(chunkBytesFrom(store), 64 * 1024);
  for (const bad of ['12', 'abc', String(64 * 1024 * 1024), '2048.5']) {
    store.setItem(CHUNK_SIZE_KEY, bad);
    assert.equal(chunkBytesFrom(store), DEFAULT_CHUNK_BYTES, bad);
  }
});

test('the extension decides the type, as on the server', () => {
  assert.equal(typeOf('photo.JPG'), 'image');
  assert.equal(typeOf('report.final.pdf'), 'document');
  assert.equal(typeOf('clip.webm'), 'video');
  assert.equal(typeOf('page.html'), null);
  assert.equal(typeOf('drawing.svg'), null);
  assert.equal(typeOf('README'), null);
});

test('chunk ids match the server’s pattern', () => {
  const id = newChunkId();
  assert.match(id, /^[A-Za-z0-9_-]{8,64}$/);
  assert.notEqual(newChunkId(), id);
});

test('an unfinished upload is remembered and found again for the same file only', () => {
  const store = memory();
  const file = { name: 'big.txt', size: 640 * 1024, lastModified: 1_700_000_000_000 };
  const up = startPending(file, 64 * 1024, 1000, 'abcdef0123456789');
  assert.equal(up.totalChunks, 10);
  savePending(store, up, 1000);
  assert.deepEqual(findPending(store, { ...file }, 2000), up);
  assert.equal(findPending(store, { ...file, lastModified: 1 }, 2000), undefined, 'a changed file starts over');
  assert.equal(findPending(store, { ...file, size: 1 }, 2000), undefined);
  // The same file started again replaces its record.
  const again = startPending(file, 64 * 1024, 3000, 'zzzzzzzz0000');
  savePending(store, again, 3000);
  assert.deepEqual(loadPending(store, 3000), [again]);
  forgetPending(store, again.chunkId, 3000);
  assert.equal(store.data.has(PENDING_KEY), false);
});

test('expired or malformed records are ignored', () => {
  const store = memory();
  const up = startPending({ name: 'a.pdf', size: 10, lastModified: 1 }, 1024, 0, 'abcdefgh');
  store.setItem(PENDING_KEY, JSON.stringify([up, { chunkId: 'x' }, null, { ...up, chunkId: 'bad id!' }]));
  assert.deepEqual(loadPending(store, 10), [up]);
  assert.deepEqual(loadPending(store, PENDING_TTL_MS + 1), []);
  store.setItem(PENDING_KEY, '{not json');
  assert.deepEqual(loadPending(store), []);
});

test('resuming sends only the missing chunks, and progress starts from what the server holds', () => {
  const up = startPending({ name: 'big.txt', size: 640 * 1024 + 100, lastModified: 5 }, 64 * 1024, 0, 'resume-me-1');
  assert.equal(up.totalChunks, 11);
  const missing = [5, 6, 7, 8, 9, 10, 99];
  const send = chunksToSend(up, missing);
  assert.deepEqual(send.map((c) => c.index), [5, 6, 7, 8, 9, 10]);
  assert.equal(send.at(-1)!.end, 640 * 1024 + 100);
  assert.equal(bytesDone(up, missing), 5 * 64 * 1024);
  assert.equal(bytesDone(up, []), up.size);
  assert.equal(percent(bytesDone(up, missing), up.size), 49);
  assert.equal(percent(up.size - 1, up.size), 99);
  assert.equal(percent(up.size, up.size), 100);
  assert.equal(percent(0, 0), 100);
});
