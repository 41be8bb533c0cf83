// The storage on a local (or shared, mounted) disk: objects are files under `root`, pending
// objects are files in `root/.pending/` (same file system, so a commit is one rename), named
// `<uuid>.part`, or `<owner>.<uuid>.part` when written for an owner. Every path is built from a
// checked key and verified to stay under the root.
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  assertKey,
  assertOwner,
  StorageLimitError,
  StorageNotFoundError,
  type ByteRange,
  type ObjectInfo,
  type PendingObject,
  type Storage,
  type WriteOptions,
} from './storage.ts';

const PENDING_DIR = '.pending';
/** A pending file's name: `<uuid>.part` or `<owner>.<uuid>.part`. */
const PENDING_NAME = /^(?:([a-z0-9][a-z0-9-]{0,63})\.)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.part$/;

export class LocalStorage implements Storage {
  readonly root: string;
  private readonly pendingDir: string;

  constructor(root: string) {
    this.root = path.resolve(root);
    this.pendingDir = path.join(this.root, PENDING_DIR);
    mkdirSync(this.pendingDir, { recursive: true });
  }

  /** The file of a key; throws on a malformed key or one that would leave the root. */
  pathOf(key: string): string {
    assertKey(key);
    const full = path.resolve(this.root, key);
    if (!full.startsWith(this.root + path.sep)) throw new Error(`storage key ${JSON.stringify(key)} leaves the store`);
    return full;
  }

  async write(source: Readable | AsyncIterable<Uint8Array>, opts: WriteOptions = {}): Promise<PendingObject> {
    const { maxBytes, onChunk, owner, signal } = opts;
    if (owner !== undefined) assertOwner(owner);
    const file = path.join(this.pendingDir, `${owner === undefined ? '' : `${owner}.`}${randomUUID()}.part`);
    const hash = createHash('sha256');
    let size = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        size += chunk.length;
        if (maxBytes !== undefined && size > maxBytes) {
          callback(new StorageLimitError(maxBytes));
          return;
        }
        hash.update(chunk);
        try {
          onChunk?.(chunk);
        } catch (err) {
          callback(err as Error);
          return;
        }
        callback(null, chunk);
      },
    });
    try {
      // `flush`: the data is on disk before the file is closed, so a commit never exposes a torn file.
      const sink = createWriteStream(file, { flags: 'wx', flush: true });
      await (signal ? pipeline(source, meter, sink, { signal }) : pipeline(source, meter, sink));
    } catch (err) {
      await rm(file, { force: true });
      throw err;
    }
    return new LocalPending(this, file, size, hash.digest('hex'));
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    let handle;
    try {
      handle = await open(this.pathOf(key), 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new StorageNotFoundError(`no object ${key}`);
      throw err;
    }
    return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
  }

  async stat(key: string): Promise<ObjectInfo | null> {
    try {
      const s = await stat(this.pathOf(key));
      return s.isFile() ? { key, size: s.size, modifiedAt: s.mtime } : null;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async deletePrefix(prefix: string): Promise<void> {
    await rm(this.pathOf(prefix), { recursive: true, force: true });
  }

  async list(prefix: string): Promise<{ name: string; modifiedAt: Date }[]> {
    const dir = this.pathOf(prefix);
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (err) {
      // Nothing there, or an object: nothing is under it (as in an object store).
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return [];
      throw err;
    }
    const out: { name: string; modifiedAt: Date }[] = [];
    for (const name of names) {
      const s = await stat(path.join(dir, name)).catch(() => null);
      if (s) out.push({ name, modifiedAt: s.mtime });
    }
    return out;
  }

  async sweepPending(before: Date): Promise<number> {
    let removed = 0;
    for (const name of await readdir(this.pendingDir).catch(() => [] as string[])) {
      const file = path.join(this.pendingDir, name);
      const s = await stat(file).catch(() => null);
      if (s && s.mtime < before) {
        await rm(file, { force: true });
        removed += 1;
      }
    }
    return removed;
  }

  async pendingOwners(): Promise<string[]> {
    const owners = new Set<string>();
    for (const name of await readdir(this.pendingDir).catch(() => [] as string[])) {
      const owner = PENDING_NAME.exec(name)?.[1];
      if (owner !== undefined) owners.add(owner);
    }
    return [...owners];
  }

  async discardPending(owner: string): Promise<number> {
    assertOwner(owner);
    let removed = 0;
    for (const name of await readdir(this.pendingDir).catch(() => [] as string[])) {
      if (PENDING_NAME.exec(name)?.[1] === owner) {
        await rm(path.join(this.pendingDir, name), { force: true });
        removed += 1;
      }
    }
    return removed;
  }

  /** Moves a pending file under `key`. */
  async place(file: string, key: string): Promise<void> {
    const target = this.pathOf(key);
    await mkdir(path.dirname(target), { recursive: true });
    await rename(file, target);
  }
}

class LocalPending implements PendingObject {
  readonly size: number;
  readonly sha256: string;
  private readonly storage: LocalStorage;
  private readonly file: string;
  private settled = false;

  constructor(storage: LocalStorage, file: string, size: number, sha256: string) {
    this.storage = storage;
    this.file = file;
    this.size = size;
    this.sha256 = sha256;
  }

  async commit(key: string): Promise<void> {
    if (this.settled) throw new Error('pending object already committed or discarded');
    await this.storage.place(this.file, key);
    this.settled = true;
  }

  async discard(): Promise<void> {
    if (this.settled) return;
    this.settled = true;
    await rm(this.file, { force: true });
  }
}

