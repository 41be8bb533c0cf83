// The writer of the S3 driver (s3.ts): the bytes of a write metered (counted, limited, hashed),
// cut into the parts of its multipart upload, and the pending object it leaves. Parts are of
// one size (R2 wants every part but the last of the same size), and one part uploads while the
// next fills, so a write holds about two parts of memory whatever the object's size. A part's
// buffer is detached once the part is stored: the SDK keeps the last request of each pooled
// socket, body included, until its next one.
import { createHash } from 'node:crypto';
import { Transform, Writable } from 'node:stream';
import type { CompletedPart } from '@aws-sdk/client-s3';
import type { S3Storage } from './s3.ts';
import { StorageLimitError, type PendingObject } from './storage.ts';

/** S3 takes at most this many parts in an upload. */
export const MAX_PARTS = 10_000;

/**
 * Cuts the bytes written into parts of `size` and uploads each: one at a time, while the next
 * one fills. Bytes are copied into the part as they come (no list of chunks to join), so a
 * write holds at most two parts; a part's buffer is its own (never the pool's: it is released
 * by detaching it) and not zeroed, so the pages of a small write's part that are never
 * written cost nothing.
 */
export class PartSink extends Writable {
  readonly parts: CompletedPart[] = [];
  private readonly size: number;
  private readonly upload: (number: number, body: Buffer, signal: AbortSignal) => Promise<CompletedPart>;
  private readonly stop = new AbortController();
  private part: Buffer | undefined;
  private filled = 0;
  private next = 1;
  private inFlight: Promise<void> = Promise.resolve();

  constructor(size: number, upload: (number: number, body: Buffer, signal: AbortSignal) => Promise<CompletedPart>) {
    super();
    this.size = size;
    this.upload = upload;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    if (this.filled + chunk.length < this.size) {
      this.part ??= Buffer.allocUnsafeSlow(this.size);
      this.filled += chunk.copy(this.part, this.filled);
      callback();
      return;
    }
    this.fill(chunk).then(() => callback(), callback);
  }

  override _final(callback: (err?: Error | null) => void): void {
    // The last part; or the only one, even empty: an upload is completed with at least one.
    const last = this.filled > 0 || this.next === 1 ? (this.part ?? Buffer.alloc(0)).subarray(0, this.filled) : undefined;
    this.part = undefined;
    this.inFlight
      .then(() => (last ? this.send(last) : undefined))
      .then(() => this.inFlight)
      .then(() => callback(), callback);
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    this.stop.abort(err ?? new Error('write stopped'));
    callback(err);
  }

  /** Copies `chunk` in, sending each part it completes (after the one in flight). */
  private async fill(chunk: Buffer): Promise<void> {
    for (let offset = 0; offset < chunk.length;) {
      this.part ??= Buffer.allocUnsafeSlow(this.size);
      const n = chunk.copy(this.part, this.filled, offset);
      this.filled += n;
      offset += n;
      if (this.filled === this.size) {
        const body = this.part;
        this.part = undefined;
        this.filled = 0;
        await this.inFlight;
        this.send(body);
      }
    }
  }

  private send(body: Buffer): void {
    const number = this.next++;
    if (number > MAX_PARTS) throw new StorageLimitError(this.size * MAX_PARTS);
    this.inFlight = this.upload(number, body, this.stop.signal).then((part) => {
      this.parts.push(part);
      // Stored: the part's memory goes now. The SDK keeps the last request of each pooled
      // socket, body included, until the socket's next request, which held parts long after.
      (body.buffer as ArrayBuffer).transfer(0);
    });
    // A failed part fails the write at once, not at the next part.
    this.inFlight.catch((err: unknown) => this.destroy(err as Error));
  }
}

/** Counts, limits to `maxBytes` and hashes the bytes that pass, showing each chunk to `onChunk`. */
export class Meter extends Transform {
  size = 0;
  private readonly hash = createHash('sha256');
  private readonly maxBytes: number | undefined;
  private readonly onChunk: ((chunk: Buffer) => void) | undefined;

  constructor(maxBytes: number | undefined, onChunk: ((chunk: Buffer) => void) | undefined) {
    super();
    this.maxBytes = maxBytes;
    this.onChunk = onChunk;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: (err?: Error | null, data?: Buffer) => void): void {
    this.size += chunk.length;
    if (this.maxBytes !== undefined && this.size > this.maxBytes) {
      callback(new StorageLimitError(this.maxBytes));
      return;
    }
    this.hash.update(chunk);
    try {
      this.onChunk?.(chunk);
    } catch (err) {
      callback(err as Error);
      return;
    }
    callback(null, chunk);
  }

  /** SHA-256 of the bytes, lower-case hex, once they have all passed. */
  sha256(): string {
    return this.hash.digest('hex');
  }
}

export class S3Pending implements PendingObject {
  readonly size: number;
  readonly sha256: string;
  private readonly storage: S3Storage;
  private readonly key: string;
  private settled = false;

  constructor(storage: S3Storage, key: string, size: number, sha256: string) {
    this.storage = storage;
    this.key = key;
    this.size = size;
    this.sha256 = sha256;
  }

  async commit(key: string): Promise<void> {
    if (this.settled) throw new Error('pending object already committed or discarded');
    await this.storage.place(this.key, key, this.size);
    this.settled = true;
  }

  async discard(): Promise<void> {
    if (this.settled) return;
    this.settled = true;
    await this.storage.drop(this.key);
  }
}
