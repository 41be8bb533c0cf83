// The storage in an S3-compatible object store (AWS S3, MinIO, Cloudflare R2, ...) through the
// AWS SDK v3, with the local driver's semantics (local.ts is the contract). Every key lives
// under S3_PREFIX in one bucket; so does each pending object, at `.pending/<owner>/<time>-<uuid>`
// (`_` for no owner; a key cannot start with a dot, so pending and committed objects never mix).
//
// A write is a multipart upload to its pending key, begun before the first byte is read: a
// write in progress is then visible to ListMultipartUploads, so pendingOwners() names it and
// discardPending() aborts it (the writer's next part, or its completion, then fails, and
// nothing is kept). A PutObject for small writes would be invisible until it ended, and a
// discarded write could still be committed; lib-storage's Upload chooses PutObject for small
// bodies and buffers four parts. Parts are of 5 MiB, S3's minimum, or maxBytes / 10,000 when
// that is larger (S3 takes at most 10,000 parts); how they fill is in s3-write.ts.
//
// Checksums: only where S3 requires one (DeleteObjects, sent with Content-MD5, which MinIO and
// others demand rather than the SDK's CRC32), as requestChecksumCalculation and
// responseChecksumValidation `WHEN_REQUIRED` say. The SDK's default (`WHEN_SUPPORTED`) adds
// CRC32 checksums that stores honour unevenly: older MinIO, Ceph, OSS and others refuse them or
// their aws-chunked bodies, and a copy of a multipart object can come back with a checksum its
// bytes do not match (moto does that). The bytes' integrity rests on TLS, on ETags, and on the
// SHA-256 the driver computes of every write (PendingObject.sha256), which callers keep and
// check (a chunk's hash, when a merge reads it).
//
// A commit copies the pending object to its key on the server (CopyObject: the object appears
// whole, at once, replacing what was there) and then deletes the pending object. Beyond 5 GiB,
// CopyObject's limit, it is a multipart upload at the key whose parts are UploadPartCopy
// ranges, visible when completed. A crash between the copy and the delete leaves a pending
// object, and one during a copy by parts an unfinished upload: sweepPending() removes both.
//
// discardPending() aborts the owner's uploads and deletes its objects, and the objects at the
// keys of the uploads it aborted too (one may have completed between the listing and the
// abort). sweepPending() deletes pending objects last modified before the cutoff, and aborts
// the multipart uploads anywhere under the prefix (writes and commits of crashed processes)
// whose start and newest part are older: the start is the time in a pending key or the store's
// `Initiated`, whichever is later (moto reports a fixed date in 2010 for every upload). list()
// reads every object under the prefix once, grouped by the next segment of their keys: S3 has
// no folders, so a folder's time is its newest object's.
//
// How requests run (deadlines, outages, errors) is in s3-requests.ts. Memory, as measured: the
// SDK keeps requests, bodies included, reachable after they end: the last request of each
// pooled socket until its next one, and each request for 3 s in the timer that defers a socket
// timeout of 6 s or more. So a part's buffer is detached once stored, and no socket timeout is
// given to the SDK (the deadlines bound requests instead). `Expect: 100-continue` is not sent:
// the SDK sends those requests on a connection of their own, closed after, a new TCP (and TLS)
// handshake per part.
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  S3Client,
  UploadPartCommand,
  UploadPartCopyCommand,
  type CompletedPart,
  type MultipartUpload,
  type _Object,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Logger } from 'pino';
import { ServiceUnavailable } from '../availability.ts';
import { StartupError } from '../startup.ts';
import {
  assertKey,
  assertOwner,
  StorageNotFoundError,
  StorageUnavailableError,
  type ByteRange,
  type ObjectInfo,
  type PendingObject,
  type PresignedResponse,
  type Storage,
  type WriteOptions,
} from './storage.ts';
import { MAX_PARTS, Meter, PartSink, S3Pending } from './s3-write.ts';
import { describe, nameOf, S3Requests, statusOf, transferMs } from './s3-requests.ts';

export interface S3StorageOptions {
  bucket: string;
  region: string;
  /** Unset: AWS S3's endpoint for the region. */
  endpoint?: string;
  /** `https://host/bucket/key` rather than `https://bucket.host/key` (MinIO, most self-hosted stores). */
  forcePathStyle: boolean;
  /** Unset: the SDK's default chain (AWS_* variables, shared files, an instance or container role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Prepended to every key: empty, or ending with `/`. */
  prefix: string;
  /** The store's address as clients reach it: presign() exists only when it is set. */
  publicEndpoint?: string;
  /** DEPENDENCY_TIMEOUT_MS. */
  timeoutMs: number;
  logger: Logger;
  /** Largest object one CopyObject commits (S3: 5 GiB); tests lower it and the next to reach the path of large objects. */
  copyLimitBytes?: number;
  /** Size of the ranges of a commit by parts. */
  copyPartBytes?: number;
}

const MiB = 1024 * 1024;
const PART_BYTES = 5 * MiB;
const COPY_LIMIT_BYTES = 5 * 1024 * MiB;
const COPY_PART_BYTES = 512 * MiB;
/** DeleteObjects takes at most this many keys. */
const DELETE_BATCH = 1_000;
const PENDING = '.pending/';
const NO_OWNER = '_';
/** `<owner>/<start time, base 36>-<uuid>` under PENDING. */
const PENDING_NAME = /^([a-z0-9][a-z0-9-]{0,63}|_)\/([0-9a-z]{1,10})-[0-9a-f-]{36}$/;
/** Presigned URLs live at most this long (SigV4's limit). */
const MAX_PRESIGN_SECONDS = 7 * 86_400;

export class S3Storage implements Storage {
  readonly bucket: string;
  readonly presign?: (key: string, ttlSeconds: number, response?: PresignedResponse) => Promise<string>;
  private readonly client: S3Client;
  private readonly root: string;
  private readonly timeoutMs: number;
  private readonly logger: Logger;
  private readonly copyLimitBytes: number;
  private readonly copyPartBytes: number;
  private readonly requests: S3Requests;

  /** Checks the bucket (StartupError naming it and the endpoint when it cannot be used). */
  static async open(options: S3StorageOptions): Promise<S3Storage> {
    const storage = new S3Storage(options);
    try {
      await storage.client.send(new HeadBucketCommand({ Bucket: storage.bucket }), { abortSignal: AbortSignal.timeout(options.timeoutMs) });
    } catch (err) {
      await storage.close();
      const where = options.endpoint ? `at ${options.endpoint}` : `in AWS S3 (${options.region})`;
      const status = statusOf(err);
      const why = status === 404 ? 'no such bucket'
        : status === 403 ? 'access denied (check S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY and the bucket’s policy)'
        : status === 301 ? 'the bucket is in another region (check S3_REGION)'
        : describe(err);
      throw new StartupError(`cannot use the bucket "${options.bucket}" ${where} (S3_BUCKET, S3_ENDPOINT): ${why}`);
    }
    return storage;
  }

  constructor(options: S3StorageOptions) {
    this.bucket = options.bucket;
    this.root = options.prefix;
    this.timeoutMs = options.timeoutMs;
    this.logger = options.logger;
    this.copyLimitBytes = options.copyLimitBytes ?? COPY_LIMIT_BYTES;
    this.copyPartBytes = options.copyPartBytes ?? COPY_PART_BYTES;
    const common = {
      region: options.region,
      forcePathStyle: options.forcePathStyle,
      ...(options.credentials ? { credentials: options.credentials } : {}),
      // Checksums only where S3 requires one (see the header); stated, so that AWS_* variables
      // cannot change them.
      requestChecksumCalculation: 'WHEN_REQUIRED' as const,
      responseChecksumValidation: 'WHEN_REQUIRED' as const,
    };
    this.client = new S3Client({
      ...common,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      requestHandler: { connectionTimeout: options.timeoutMs },
      expectContinueHeader: false,
    });
    this.requests = new S3Requests(
      () => this.client.send(new HeadBucketCommand({ Bucket: this.bucket }), { abortSignal: AbortSignal.timeout(this.timeoutMs) }),
      options.timeoutMs,
      options.logger,
    );
    if (options.publicEndpoint) {
      // Signing needs no network: this client only computes URLs for the public address.
      const signer = new S3Client({ ...common, endpoint: options.publicEndpoint });
      this.presign = async (key, ttlSeconds, response = {}) => {
        if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > MAX_PRESIGN_SECONDS) {
          throw new Error(`a presigned URL lives 1 to ${MAX_PRESIGN_SECONDS} seconds, not ${ttlSeconds}`);
        }
        const command = new GetObjectCommand({
          Bucket: this.bucket,
          Key: this.objectKey(key),
          ResponseContentDisposition: response.contentDisposition,
          ResponseContentType: response.contentType,
        });
        return getSignedUrl(signer, command, { expiresIn: ttlSeconds });
      };
    }
  }

  async write(source: Readable | AsyncIterable<Uint8Array>, opts: WriteOptions = {}): Promise<PendingObject> {
    const { maxBytes, onChunk, owner, signal } = opts;
    if (owner !== undefined) assertOwner(owner);
    const key = `${this.root}${PENDING}${owner ?? NO_OWNER}/${Date.now().toString(36)}-${randomUUID()}`;
    const partBytes = Math.max(PART_BYTES, maxBytes === undefined ? 0 : Math.ceil(maxBytes / MAX_PARTS));
    let uploadId: string | undefined;
    try {
      ({ UploadId: uploadId } = await this.requests.call(
        (abortSignal) => this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key }), { abortSignal }),
        { caller: signal },
      ));
      if (!uploadId) throw new StorageUnavailableError('the store began an upload without an id');
    } catch (err) {
      // As a failed pipeline would: the source is not read any further.
      if (source instanceof Readable) source.destroy();
      throw err;
    }
    const upload = uploadId;
    const meter = new Meter(maxBytes, onChunk);
    const sink = new PartSink(partBytes, (number, body, partSignal) => this.uploadPart(key, upload, number, body, partSignal));
    try {
      await (signal ? pipeline(source, meter, sink, { signal }) : pipeline(source, meter, sink));
      await this.requests.call(
        (abortSignal) => this.client.send(new CompleteMultipartUploadCommand({
          Bucket: this.bucket, Key: key, UploadId: upload, MultipartUpload: { Parts: sink.parts },
        }), { abortSignal }),
        { deadlineMs: transferMs(meter.size), caller: signal },
      );
    } catch (err) {
      await this.abortUpload(key, upload);
      if (nameOf(err) === 'NoSuchUpload') throw new StorageNotFoundError('the pending object was discarded while being written', { cause: err });
      throw err;
    }
    return new S3Pending(this, key, meter.size, meter.sha256());
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    const Key = this.objectKey(key);
    // The operation lasts until the body has been read: an outage declared meanwhile ends it.
    const request = this.requests.begin(this.timeoutMs, undefined);
    let body: Readable;
    try {
      const out = await this.client.send(new GetObjectCommand({
        Bucket: this.bucket, Key, ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
      }), { abortSignal: request.signal });
      body = out.Body as Readable;
    } catch (err) {
      const unsatisfiable = statusOf(err) === 416;
      if (!unsatisfiable && nameOf(err) !== 'NoSuchKey') throw request.fail(err);
      request.end();
      // Beyond the end: the local driver's empty stream.
      if (unsatisfiable) return Readable.from([]);
      throw new StorageNotFoundError(`no object ${key}`);
    }
    request.answered();
    async function* bytes(): AsyncGenerator<Buffer> {
      try {
        for await (const chunk of body) yield chunk as Buffer;
      } catch (err) {
        throw request.fail(err);
      }
    }
    const stream = Readable.from(bytes(), { objectMode: false });
    // Read to the end, failed, or dropped by the reader (even before its first read): the rest
    // of the body is not wanted, and the request is over.
    stream.once('close', () => {
      body.destroy();
      request.end();
    });
    return stream;
  }

  async stat(key: string): Promise<ObjectInfo | null> {
    const Key = this.objectKey(key);
    try {
      const out = await this.requests.call((abortSignal) => this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key }), { abortSignal }));
      return { key, size: out.ContentLength ?? 0, modifiedAt: out.LastModified ?? new Date(0) };
    } catch (err) {
      if (statusOf(err) === 404 && !(err instanceof ServiceUnavailable)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await this.deleteKeys([this.objectKey(key)]);
  }

  async deletePrefix(prefix: string): Promise<void> {
    for await (const page of this.objectPages(`${this.objectKey(prefix)}/`)) await this.deleteKeys(page.map((o) => o.Key!));
  }

  async list(prefix: string): Promise<{ name: string; modifiedAt: Date }[]> {
    const base = `${this.objectKey(prefix)}/`;
    const newest = new Map<string, Date>();
    for await (const page of this.objectPages(base)) {
      for (const o of page) {
        const name = o.Key!.slice(base.length).split('/')[0]!;
        const at = o.LastModified ?? new Date(0);
        const seen = newest.get(name);
        if (!seen || seen < at) newest.set(name, at);
      }
    }
    return [...newest].map(([name, modifiedAt]) => ({ name, modifiedAt }));
  }

  async sweepPending(before: Date): Promise<number> {
    let removed = 0;
    for await (const page of this.objectPages(`${this.root}${PENDING}`)) {
      const old = page.filter((o) => (o.LastModified ?? new Date(0)) < before).map((o) => o.Key!);
      await this.deleteKeys(old);
      removed += old.length;
    }
    for (const upload of await this.uploads(this.root)) {
      if ((await this.lastTouched(upload)) < before && (await this.abortUpload(upload.Key!, upload.UploadId!))) removed += 1;
    }
    return removed;
  }

  async pendingOwners(): Promise<string[]> {
    const owners = new Set<string>();
    const base = `${this.root}${PENDING}`;
    const add = (key: string | undefined) => {
      const owner = PENDING_NAME.exec(key?.slice(base.length) ?? '')?.[1];
      if (owner !== undefined && owner !== NO_OWNER) owners.add(owner);
    };
    for await (const page of this.objectPages(base)) for (const o of page) add(o.Key);
    for (const u of await this.uploads(base)) add(u.Key);
    return [...owners];
  }

  async discardPending(owner: string): Promise<number> {
    assertOwner(owner);
    const base = `${this.root}${PENDING}${owner}/`;
    const keys = new Set<string>();
    for (const u of await this.uploads(base)) {
      await this.abortUpload(u.Key!, u.UploadId!);
      keys.add(u.Key!);
    }
    for await (const page of this.objectPages(base)) for (const o of page) keys.add(o.Key!);
    await this.deleteKeys([...keys]);
    return keys.size;
  }

  get available(): boolean {
    return this.requests.availability.available;
  }

  check(): Promise<boolean> {
    return this.requests.check();
  }

  async close(): Promise<void> {
    this.requests.availability.stop();
    this.client.destroy();
  }

  /** Makes a pending object visible under `key` (see the header), then removes the pending object. */
  async place(pendingKey: string, key: string, size: number): Promise<void> {
    const target = this.objectKey(key);
    const source = `${this.bucket}/${pendingKey.split('/').map(encodeURIComponent).join('/')}`;
    try {
      if (size <= this.copyLimitBytes) {
        await this.requests.call(
          (abortSignal) => this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: target, CopySource: source }), { abortSignal }),
          { deadlineMs: transferMs(size) },
        );
      } else {
        await this.copyByParts(source, target, size);
      }
    } catch (err) {
      if (nameOf(err) === 'NoSuchKey') throw new StorageNotFoundError('the pending object was discarded', { cause: err });
      throw err;
    }
    await this.deleteKeys([pendingKey]).catch((err: unknown) => this.logger.warn({ err }, 'removing a committed pending object failed; the sweep will'));
  }

  /** Deletes pending objects (a discard: failures are left to the sweep). */
  async drop(pendingKey: string): Promise<void> {
    await this.deleteKeys([pendingKey]).catch((err: unknown) => this.logger.warn({ err }, 'removing a discarded pending object failed; the sweep will'));
  }

  private objectKey(key: string): string {
    assertKey(key);
    return `${this.root}${key}`;
  }

  /** The object at `source` (`bucket/key`, encoded) copied to `target` by ranges, visible at once when complete. */
  private async copyByParts(source: string, target: string, size: number): Promise<void> {
    const { UploadId: uploadId } = await this.requests.call(
      (abortSignal) => this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: target }), { abortSignal }),
    );
    if (!uploadId) throw new StorageUnavailableError('the store began an upload without an id');
    const step = Math.max(this.copyPartBytes, Math.ceil(size / MAX_PARTS));
    try {
      const parts: CompletedPart[] = [];
      for (let start = 0, number = 1; start < size; start += step, number++) {
        const end = Math.min(start + step, size);
        const out = await this.requests.call((abortSignal) => this.client.send(new UploadPartCopyCommand({
          Bucket: this.bucket, Key: target, UploadId: uploadId, PartNumber: number, CopySource: source, CopySourceRange: `bytes=${start}-${end - 1}`,
        }), { abortSignal }), { deadlineMs: transferMs(end - start) });
        parts.push({ PartNumber: number, ETag: out.CopyPartResult?.ETag });
      }
      await this.requests.call((abortSignal) => this.client.send(new CompleteMultipartUploadCommand({
        Bucket: this.bucket, Key: target, UploadId: uploadId, MultipartUpload: { Parts: parts },
      }), { abortSignal }), { deadlineMs: transferMs(size) });
    } catch (err) {
      await this.abortUpload(target, uploadId);
      throw err;
    }
  }

  private async uploadPart(key: string, uploadId: string, number: number, body: Buffer, signal: AbortSignal): Promise<CompletedPart> {
    const out = await this.requests.call(
      (abortSignal) => this.client.send(new UploadPartCommand({
        Bucket: this.bucket, Key: key, UploadId: uploadId, PartNumber: number, Body: body, ContentLength: body.length,
      }), { abortSignal }),
      { deadlineMs: transferMs(body.length), caller: signal },
    );
    return { PartNumber: number, ETag: out.ETag };
  }

  /** Aborts an upload; true when it was there to abort. Failures are left to the sweep. */
  private async abortUpload(key: string, uploadId: string): Promise<boolean> {
    try {
      await this.requests.call((abortSignal) => this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId }), { abortSignal }));
      return true;
    } catch (err) {
      // During an outage the availability has said so once; the sweep aborts it later.
      if (nameOf(err) !== 'NoSuchUpload' && !(err instanceof StorageUnavailableError)) {
        this.logger.warn({ err, key }, 'aborting a multipart upload failed; the sweep will');
      }
      return false;
    }
  }

  /** When an upload last showed life: its start (see the header) or its newest part. */
  private async lastTouched(upload: MultipartUpload): Promise<Date> {
    const stamp = PENDING_NAME.exec(upload.Key!.slice(`${this.root}${PENDING}`.length))?.[2];
    let latest = Math.max(upload.Initiated?.getTime() ?? 0, stamp === undefined ? 0 : parseInt(stamp, 36));
    let marker: string | undefined;
    do {
      const out = await this.requests.call((abortSignal) => this.client.send(new ListPartsCommand({
        Bucket: this.bucket, Key: upload.Key!, UploadId: upload.UploadId!, ...(marker ? { PartNumberMarker: marker } : {}),
      }), { abortSignal })).catch((err: unknown) => {
        if (nameOf(err) === 'NoSuchUpload') return { Parts: [], IsTruncated: false, NextPartNumberMarker: undefined };
        throw err;
      });
      for (const p of out.Parts ?? []) latest = Math.max(latest, p.LastModified?.getTime() ?? 0);
      marker = out.IsTruncated ? out.NextPartNumberMarker : undefined;
    } while (marker);
    return new Date(latest);
  }

  /** The multipart uploads under `prefix` (there are few: writes in progress and their leftovers). */
  private async uploads(prefix: string): Promise<MultipartUpload[]> {
    const all: MultipartUpload[] = [];
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    do {
      const out = await this.requests.call((abortSignal) => this.client.send(new ListMultipartUploadsCommand({
        Bucket: this.bucket, Prefix: prefix, ...(keyMarker ? { KeyMarker: keyMarker, UploadIdMarker: uploadIdMarker } : {}),
      }), { abortSignal }));
      all.push(...(out.Uploads ?? []).filter((u) => u.Key && u.UploadId));
      keyMarker = out.IsTruncated ? out.NextKeyMarker : undefined;
      uploadIdMarker = out.NextUploadIdMarker;
    } while (keyMarker);
    return all;
  }

  /** The objects under `prefix`, a page (up to 1,000) at a time. */
  private async *objectPages(prefix: string): AsyncGenerator<_Object[]> {
    let token: string | undefined;
    do {
      const out = await this.requests.call((abortSignal) => this.client.send(new ListObjectsV2Command({
        Bucket: this.bucket, Prefix: prefix, ...(token ? { ContinuationToken: token } : {}),
      }), { abortSignal }));
      const page = (out.Contents ?? []).filter((o) => o.Key);
      if (page.length > 0) yield page;
      token = out.IsTruncated ? out.NextContinuationToken : undefined;
    } while (token);
  }

  /** Deletes objects, 1,000 a request (a missing one is not an error). */
  private async deleteKeys(keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += DELETE_BATCH) {
      const batch = keys.slice(i, i + DELETE_BATCH);
      const out = await this.requests.call((abortSignal) => this.client.send(new DeleteObjectsCommand({
        Bucket: this.bucket,
        Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
        // Content-MD5, which MinIO and other stores require of this request, not only a CRC32.
        ChecksumAlgorithm: 'MD5',
      }), { abortSignal }));
      const failed = out.Errors ?? [];
      if (failed.length > 0) {
        throw new StorageUnavailableError(`${failed.length} of ${batch.length} objects not deleted: ${failed[0]!.Code ?? 'error'} ${failed[0]!.Message ?? ''}`.trim());
      }
    }
  }
}
