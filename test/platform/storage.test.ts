// The local-disk storage: keys cannot leave the store, writes are size-limited and atomic
// (nothing visible before commit, nothing left after a failure), reads by range.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { after, before, test } from 'node:test';
import { LocalStorage } from '../../src/platform/storage/local.ts';
import { StorageLimitError, StorageNotFoundError } from '../../src/platform/storage/storage.ts';

let dir: string;
let storage: LocalStorage;
const pending = () => readdirSync(path.join(storage.root, '.pending'));

before(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'storage-test-'));
  storage = new LocalStorage(path.join(dir, 'uploads'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('keys are checked: nothing absolute, no dot segments, no separators of another kind', async () => {
  for (const key of ['../x', 'a/../../x', '/etc/passwd', '.pending/x', 'a//b', 'a/', '', 'A/b', 'a\\b', 'a/.hidden', 'a\0b', 'a/b c', '..']) {
    assert.throws(() => storage.pathOf(key), /invalid storage key/, key);
    await assert.rejects(storage.read(key), /invalid storage key/, key);
    await assert.rejects(storage.delete(key), /invalid storage key/, key);
  }
  assert.equal(storage.pathOf('files/ab/cd.png'), path.join(storage.root, 'files', 'ab', 'cd.png'));
});

test('a write is hashed, invisible until committed, then readable whole or by range', async () => {
  const data = randomBytes(10_000);
  const seen: number[] = [];
  const p = await storage.write(Readable.from([data.subarray(0, 4000), data.subarray(4000)]), { maxBytes: 10_000, onChunk: (c) => seen.push(c.length) });
  assert.equal(p.size, data.length);
  assert.equal(p.sha256, createHash('sha256').update(data).digest('hex'));
  assert.equal(seen.reduce((a, b) => a + b, 0), data.length);
  assert.equal(await storage.stat('files/x/one.bin'), null);
  assert.equal(pending().length, 1);
  await p.commit('files/x/one.bin');
  await p.discard(); // after commit: nothing to do
  assert.deepEqual(pending(), []);
  assert.equal((await storage.stat('files/x/one.bin'))?.size, data.length);
  const chunks: Buffer[] = [];
  for await (const c of await storage.read('files/x/one.bin', { start: 10, end: 19 })) chunks.push(c as Buffer);
  assert.deepEqual(Buffer.concat(chunks), data.subarray(10, 20));
  await assert.rejects(storage.read('files/x/none.bin'), StorageNotFoundError);
});

test('a write over maxBytes fails and leaves nothing; discard drops a pending write', async () => {
  await assert.rejects(storage.write(Readable.from([randomBytes(600), randomBytes(600)]), { maxBytes: 1000 }), StorageLimitError);
  assert.deepEqual(pending(), []);
  const p = await storage.write(Readable.from([Buffer.from('hello')]));
  await p.discard();
  assert.deepEqual(pending(), []);
  await assert.rejects(p.commit('files/x/late.txt'), /already/);
  assert.equal(await storage.stat('files/x/late.txt'), null);
});

test('commit replaces atomically; deletePrefix, list and sweepPending', async () => {
  for (const body of ['first', 'second']) {
    const p = await storage.write(Readable.from([Buffer.from(body)]));
    await p.commit('chunks/abc/000000');
  }
  assert.equal(await text(await storage.read('chunks/abc/000000')), 'second');
  assert.deepEqual((await storage.list('chunks')).map((e) => e.name), ['abc']);
  assert.deepEqual(await storage.list('nothing-here'), []);
  await storage.deletePrefix('chunks/abc');
  assert.equal(existsSync(path.join(storage.root, 'chunks', 'abc')), false);

  const old = path.join(storage.root, '.pending', 'old.part');
  writeFileSync(old, 'x');
  const longAgo = new Date(Date.now() - 3_600_000);
  utimesSync(old, longAgo, longAgo);
  const fresh = path.join(storage.root, '.pending', 'fresh.part');
  writeFileSync(fresh, 'x');
  assert.equal(await storage.sweepPending(new Date(Date.now() - 60_000)), 1);
  assert.deepEqual(pending(), ['fresh.part']);
});

test('a write for an owner: pendingOwners names it, discardPending removes it; an aborted write leaves nothing', async () => {
  const before = pending(); // 'fresh.part' from the test above: no owner
  for (const owner of ['', 'a.b', '../x', 'A', '-x', 'a/b']) {
    await assert.rejects(storage.write(Readable.from([Buffer.from('x')]), { owner }), /invalid pending owner/, owner);
    await assert.rejects(storage.discardPending(owner), /invalid pending owner/, owner);
  }
  assert.deepEqual(pending(), before);
  const mine = await storage.write(Readable.from([Buffer.from('mine')]), { owner: 'merge-aa' });
  await storage.write(Readable.from([Buffer.from('other')]), { owner: 'merge-bb' });
  const plain = await storage.write(Readable.from([Buffer.from('plain')]));
  assert.deepEqual((await storage.pendingOwners()).sort(), ['merge-aa', 'merge-bb']);
  assert.equal(await storage.discardPending('merge-bb'), 1);
  assert.equal(await storage.discardPending('merge-bb'), 0);
  assert.deepEqual(await storage.pendingOwners(), ['merge-aa']);
  await mine.commit('files/x/mine.txt');
  await plain.discard();
  assert.deepEqual(await storage.pendingOwners(), []);
  assert.deepEqual(pending(), before);

  // Aborted mid-write (a merge that lost its claim): rejected, nothing left.
  const stop = new AbortController();
  async function* slowly() {
    yield Buffer.from('first');
    stop.abort();
    await new Promise((resolve) => setTimeout(resolve, 50));
    yield Buffer.from('second');
  }
  await assert.rejects(storage.write(slowly(), { owner: 'merge-cc', signal: stop.signal }), { name: 'AbortError' });
  assert.deepEqual(pending(), before);
});
