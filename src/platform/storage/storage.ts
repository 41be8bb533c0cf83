// File storage behind a small interface, with two drivers: the local disk (local.ts) and
// S3-compatible object storage (s3.ts); index.ts chooses by STORAGE_DRIVER. Objects are named
// by keys that the application generates (never from client input): lower-case
// `segment/segment/...` of [a-z0-9._-], each segment starting with a letter or digit, so no
// key can be absolute, contain `..` or reach outside the store. Writes are atomic: bytes
// stream into a pending object (size-limited, hashed on the way) that is then committed under
// its key in one step, or discarded. A pending object may be written for an owner (a name the
// caller can later check, e.g. a merge claim), so that a sweep can remove it as soon as its owner
// is gone rather than only when it is old. A store that cannot be used (unreachable, refusing
// us, too slow) fails calls with StorageUnavailableError, a ServiceUnavailable: a 503, never a
// 500 and never a hang.
import type { Readable } from 'node:stream';
import { ServiceUnavailable } from '../availability.ts';

export interface WriteOptions {
  /** More bytes than this fails the write with StorageLimitError; nothing is kept. */
  maxBytes?: number;
  /** Sees every chunk as it is written (content checks that must see the whole stream). */
  onChunk?: (chunk: Buffer) => void;
  /** Who the pending object is written for (see PENDING_OWNER); pendingOwners() and discardPending() find it by this. */
  owner?: string;
  /** Aborts the write (it fails with an AbortError; nothing is kept). */
  signal?: AbortSignal;
}

/** Bytes written but not yet visible under a key. */
export interface PendingObject {
  readonly size: number;
  /** SHA-256 of the bytes, lower-case hex. */
  readonly sha256: string;
  /** Makes the bytes visible under `key` atomically (replacing what was there). */
  commit(key: string): Promise<void>;
  /** Drops the bytes; safe to call more than once, and after commit (then it does nothing). */
  discard(): Promise<void>;
}

export interface ObjectInfo {
  key: string;
  size: number;
  modifiedAt: Date;
}

/** An inclusive byte range. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface Storage {
  /** Streams `source` into a pending object. */
  write(source: Readable | AsyncIterable<Uint8Array>, opts?: WriteOptions): Promise<PendingObject>;
  /** A stream of the object (or of `range`); StorageNotFoundError when there is none. */
  read(key: string, range?: ByteRange): Promise<Readable>;
  stat(key: string): Promise<ObjectInfo | null>;
  /** Removes one object; a missing one is not an error. */
  delete(key: string): Promise<void>;
  /** Removes every object whose key starts with `prefix/`. */
  deletePrefix(prefix: string): Promise<void>;
  /** The names directly under `prefix/` (objects or deeper prefixes) with their modification time. */
  list(prefix: string): Promise<{ name: string; modifiedAt: Date }[]>;
  /** Removes pending objects untouched since `before` (left by crashed writers); returns how many. */
  sweepPending(before: Date): Promise<number>;
  /** The owners (WriteOptions.owner) of the pending objects there are now, each once. */
  pendingOwners(): Promise<string[]>;
  /** Removes the pending objects written for `owner` (even while being written); returns how many. */
  discardPending(owner: string): Promise<number>;
  /** Whether a remote store is usable now (false during an outage, as its requests are refused); absent for the local disk. */
  readonly available?: boolean;
  /** Readiness of a remote store: false during an outage, else whether it answers a short probe (cached briefly). Absent for the local disk. */
  check?(): Promise<boolean>;
  /** Releases the store's connections and timers. Absent when there are none. */
  close?(): Promise<void>;
  /**
   * A URL at which a client fetches the object straight from the store for `ttlSeconds`, with
   * the response headers given (a download's file name). Present only when the store is
   * reachable by clients (S3 with S3_PUBLIC_ENDPOINT); the caller checks access first.
   */
  readonly presign?: (key: string, ttlSeconds: number, response?: PresignedResponse) => Promise<string>;
}

/**
 * Seconds a download's presigned URL lives: enough for the client to follow the redirect (and
 * resume a large download soon after), short enough that a URL passed on soon stops working.
 */
export const DOWNLOAD_URL_SECONDS = 60;

/** Response headers a presigned URL makes the store answer with. */
export interface PresignedResponse {
  contentDisposition?: string;
  contentType?: string;
}

/** The form of a pending object's owner: lower-case letters, digits and dashes. */
export const PENDING_OWNER = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** Throws unless `owner` is a well-formed pending-object owner. */
export function assertOwner(owner: string): void {
  if (!PENDING_OWNER.test(owner)) throw new Error(`invalid pending owner ${JSON.stringify(owner)}`);
}

export class StorageLimitError extends Error {
  override name = 'StorageLimitError';
  readonly maxBytes: number;
  constructor(maxBytes: number) {
    super(`more than ${maxBytes} bytes`);
    this.maxBytes = maxBytes;
  }
}

export class StorageNotFoundError extends Error {
  override name = 'StorageNotFoundError';
}

/** The store cannot be used now (unreachable, not answering in time, refusing our credentials); the services answer 503. */
export class StorageUnavailableError extends ServiceUnavailable {
  override name = 'StorageUnavailableError';
  constructor(reason: string, options?: { cause?: unknown }) {
    super('object storage', reason);
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}

const SEGMENT = /^[a-z0-9][a-z0-9._-]{0,127}$/;

/** Throws unless `key` is a well-formed storage key. */
export function assertKey(key: string): void {
  const segments = key.split('/');
  if (key.length > 512 || segments.length > 16 || !segments.every((s) => SEGMENT.test(s))) {
    throw new Error(`invalid storage key ${JSON.stringify(key)}`);
  }
}
