// Attachments: single uploads, chunked uploads (receive, status, merge) and the sweep of
// abandoned chunk sets.
//
// Files are stored under generated keys (files/<2 hex>/<32 hex>.<ext>; chunks under
// chunks/<32 hex>/<index>), never under a name taken from the request. The state of a chunked
// upload is in the database (admin.upload_sessions, admin.upload_chunks) so that every instance
// sees the same one; the chunk files are in the shared storage. A chunk is recorded under a row
// lock of its session, so a re-sent chunk is recognised whatever the concurrency. A merge
// claims its session (status 'merging', a token, and a lease: updated_at, renewed while it
// assembles) in a short transaction, assembles outside it into a pending file owned by its
// token, and records the attachment only if it still holds the claim: concurrent merges of one
// upload produce one file, and the others wait for it and answer the same attachment. A claim
// whose lease expired (crashed instance) is taken over by the next merge, which removes the
// dead merge's partial file; the sweep removes a partial file as soon as its claim is gone or
// expired (revoking an expired claim first, so that no live merge records a removed file).
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { Config } from '../../../platform/config.ts';
import type { Database, RawExec } from '../../../platform/db/database.ts';
import { escapeLike } from '../../../platform/db/like.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { offsetOf, parseOrderBy } from '../../../platform/http/schemas.ts';
import { StorageLimitError, StorageNotFoundError, type ByteRange, type PendingObject, type Storage } from '../../../platform/storage/index.ts';
import { E } from '../../errors.ts';
import type { AttachmentOrderField, ChunkFields } from './attachments.schema.ts';
import type { FilePlan, ReceivedFile } from './attachments.multipart.ts';
import { ContentProbe, EXTENSIONS, fileNameProblem, formatOf, type AttachmentType, type FileFormat } from './attachments.types.ts';

export interface AttachmentRow {
  id: number;
  type: AttachmentType;
  original_name: string;
  stored_name: string;
  storage_key: string;
  extension: string;
  content_type: string;
  size: number;
  sha256: string;
  uploaded_by: number;
  created_at: Date;
}

interface SessionRow {
  id: number;
  chunk_id: string;
  owner_id: number;
  filename: string;
  total_chunks: number;
  storage_dir: string;
  status: 'open' | 'merging' | 'merged';
  merge_token: string | null;
  attachment_id: number | null;
  updated_at: Date;
  /** Computed in queries: the merge's lease (updated_at + lease) has expired. */
  stale?: boolean;
}

interface ChunkRow {
  chunk_index: number;
  size: number;
  sha256: string;
}

export interface ChunkResult {
  chunk_id: string;
  chunk_index: number;
  total_chunks: number;
  size: number;
  sha256: string;
  duplicate: boolean;
  received_count: number;
  complete: boolean;
}

export interface UploadState {
  chunk_id: string;
  filename: string;
  total_chunks: number;
  status: SessionRow['status'];
  received: number[];
  missing: number[];
  received_bytes: number;
  attachment_id: number | null;
  updated_at: Date;
}

export interface AttachmentListQuery {
  page: number;
  page_size: number;
  type?: AttachmentType | undefined;
  uploaded_by?: number | undefined;
  original_name?: string | undefined;
  order_by: string;
}

/**
 * A merge claim lasts this long after its last renewal (updated_at, by the database's clock);
 * past it, the claiming instance is taken for dead: another merge takes the claim over and the
 * sweep removes the partial file.
 */
export const MERGE_LEASE_MS = 10_000;
/** How often a running merge renews its lease (several renewals per lease, so one slow one does not lose it). */
export const MERGE_RENEW_MS = 2_500;
/** How often a merge waiting for a concurrent one looks again (so it notices an expired lease promptly). */
export const MERGE_POLL_MS = 250;
/** How long a merge waits for a live concurrent merge of the same upload before answering 40005. */
const MERGE_WAIT_MS = 30_000;
const SWEEP_EVERY_MS = 10 * 60_000;
const SWEEP_BATCH = 500;
const MISSING_SHOWN = 20;

export interface MergeTiming {
  leaseMs: number;
  renewMs: number;
  pollMs: number;
}

/** True in SQL when a merge claim's lease has expired (`leaseMs` is a number, never client input). */
const leaseExpired = (leaseMs: number) => `updated_at < now() - make_interval(secs => ${Number(leaseMs) / 1000})`;
const sessionColumns = (leaseMs: number) =>
  `id, chunk_id, owner_id, filename, total_chunks, storage_dir, status, merge_token, attachment_id, updated_at,
  (status = 'merging' AND ${leaseExpired(leaseMs)}) AS stale`;

/** The owner of a merge's pending (assembly) file in the storage: the merge's claim token. */
export const assemblyOwner = (token: string) => `merge-${token}`;
const ASSEMBLY_OWNER = /^merge-([0-9a-f]{32})$/;
const TOKEN = /^[0-9a-f]{32}$/;

const invalid = (detail: string, field: string) => new AppError(E.VALIDATION, { detail, details: { field } });
const failed = (detail: string) => new AppError(E.UPLOAD_FAILED, { detail });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const chunkDir = (storageDir: string) => `chunks/${storageDir}`;
const chunkKey = (storageDir: string, index: number) => `${chunkDir(storageDir)}/${String(index).padStart(6, '0')}`;

interface StoredName {
  storedName: string;
  key: string;
}

function newStoredName(extension: string): StoredName {
  const storedName = `${randomBytes(16).toString('hex')}.${extension}`;
  return { storedName, key: `files/${storedName.slice(0, 2)}/${storedName}` };
}

function describeMissing(missing: number[]): string {
  const shown = missing.slice(0, MISSING_SHOWN).join(', ');
  return missing.length > MISSING_SHOWN ? `${shown} and ${missing.length - MISSING_SHOWN} more` : shown;
}

// Rows come from raw queries: bigint and timestamptz arrive as numbers or strings depending on the driver.
const toDate = (v: unknown) => (v instanceof Date ? v : new Date(String(v)));

function attachmentOf(r: AttachmentRow): AttachmentRow {
  return { ...r, id: Number(r.id), size: Number(r.size), uploaded_by: Number(r.uploaded_by), created_at: toDate(r.created_at) };
}

function sessionOf(r: SessionRow | undefined): SessionRow | undefined {
  return r && {
    ...r,
    id: Number(r.id),
    owner_id: Number(r.owner_id),
    attachment_id: r.attachment_id === null ? null : Number(r.attachment_id),
    updated_at: toDate(r.updated_at),
  };
}

class ChunkDamaged extends Error {
  readonly index: number;
  constructor(index: number) {
    super(`chunk ${index} is missing or damaged in storage`);
    this.index = index;
  }
}

export class AttachmentService {
  private readonly db: Database;
  private readonly storage: Storage;
  private readonly config: Config;
  private readonly logger: Logger;
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<unknown> | undefined;
  private readonly timing: MergeTiming;
  private readonly sessionColumns: string;

  constructor(deps: { db: Database; storage: Storage; config: Config; logger: Logger; timing?: Partial<MergeTiming> }) {
    this.db = deps.db;
    this.storage = deps.storage;
    this.config = deps.config;
    this.logger = deps.logger;
    this.timing = { leaseMs: MERGE_LEASE_MS, renewMs: MERGE_RENEW_MS, pollMs: MERGE_POLL_MS, ...deps.timing };
    this.sessionColumns = sessionColumns(this.timing.leaseMs);
  }

  limitOf(type: AttachmentType): number {
    const c = this.config;
    return type === 'image' ? c.UPLOAD_MAX_IMAGE_BYTES : type === 'document' ? c.UPLOAD_MAX_DOCUMENT_BYTES : c.UPLOAD_MAX_VIDEO_BYTES;
  }

  /** The largest single-upload file any type allows. */
  get uploadCeiling(): number {
    return Math.max(this.limitOf('image'), this.limitOf('document'), this.limitOf('video'));
  }

  /**
   * The format of a client file name (`field`: the file part, or the `filename` field); 30001
   * when the name is unusable, 40005 when its extension is not accepted.
   */
  formatFor(fileName: string, field: 'file' | 'filename'): FileFormat {
    const problem = fileNameProblem(fileName);
    if (problem) throw invalid(`${field === 'file' ? 'the file name' : field} ${problem}`, field);
    const format = formatOf(fileName);
    if (!format) {
      const accepted = Object.values(EXTENSIONS).flat().join(', ');
      throw failed(`files of this kind are not accepted (accepted extensions: ${accepted})`);
    }
    return format;
  }

  /** How the file part of a single upload is received: the limit of its extension's type, and a content probe. */
  planUpload(fileName: string, fields: Readonly<Record<string, string>>): FilePlan {
    const format = this.formatFor(fileName, 'file');
    this.checkType(format, fields.type);
    const limit = this.limitOf(format.type);
    return { maxBytes: limit, limitDetail: `${format.type} files are limited to ${limit} bytes`, probe: new ContentProbe(format.extension) };
  }

  planChunk(): FilePlan {
    const limit = this.config.UPLOAD_CHUNK_MAX_BYTES;
    return { maxBytes: limit, limitDetail: `a chunk is limited to ${limit} bytes` };
  }

  private checkType(format: FileFormat, type: string | undefined) {
    if (type !== undefined && type !== format.type && Object.hasOwn(EXTENSIONS, type)) {
      throw failed(`a .${format.extension} file is not of type ${type} (${type}: ${EXTENSIONS[type as AttachmentType].join(', ')})`);
    }
  }

  // ---- single upload ----

  async saveUpload(uploaderId: number, type: AttachmentType, file: ReceivedFile): Promise<AttachmentRow> {
    try {
      const format = this.formatFor(file.fileName, 'file');
      this.checkType(format, type);
      const problem = file.probe ? file.probe.problem() : 'the content was not checked';
      if (problem) throw failed(problem);
      const { pending } = file;
      return await this.commitAndRecord(pending, format.extension, (stored) =>
        this.insertAttachment(this.db.query, uploaderId, format, file.fileName, pending, stored));
    } finally {
      await file.pending.discard();
    }
  }

  /**
   * Commits a checked file under a new generated name and records it with `write`; the file is
   * removed again when the row cannot be written (`write` answering null: the merge lost its claim).
   */
  private async commitAndRecord(
    pending: PendingObject,
    extension: string,
    write: (stored: StoredName) => Promise<AttachmentRow | null>,
  ): Promise<AttachmentRow> {
    const stored = newStoredName(extension);
    await pending.commit(stored.key);
    try {
      const row = await write(stored);
      if (!row) throw failed('this merge was taken over by another request after it stalled; ask again');
      return row;
    } catch (err) {
      await this.storage.delete(stored.key).catch((e: unknown) => this.logger.error({ err: e }, 'removing an unrecorded upload failed'));
      throw err;
    }
  }

  private async insertAttachment(
    exec: RawExec,
    uploaderId: number,
    format: FileFormat,
    originalName: string,
    pending: { size: number; sha256: string },
    stored: StoredName,
  ): Promise<AttachmentRow> {
    const [row] = await exec<AttachmentRow>(
      `INSERT INTO admin.attachments (type, original_name, stored_name, storage_key, extension, content_type, size, sha256, uploaded_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`,
      [format.type, originalName, stored.storedName, stored.key, format.extension, format.contentType, pending.size, pending.sha256, uploaderId],
    );
    return attachmentOf(row!);
  }

  // ---- chunked upload ----

  async receiveChunk(ownerId: number, fields: ChunkFields, file: ReceivedFile): Promise<ChunkResult> {
    try {
      return await this.storeChunk(ownerId, fields, file);
    } finally {
      await file.pending.discard();
    }
  }

  private async storeChunk(ownerId: number, fields: ChunkFields, file: ReceivedFile): Promise<ChunkResult> {
    const index = Number(fields.chunk_index);
    const total = Number(fields.total_chunks);
    if (total > this.config.UPLOAD_MAX_CHUNKS) throw invalid(`total_chunks must be at most ${this.config.UPLOAD_MAX_CHUNKS}`, 'total_chunks');
    if (index >= total) throw invalid('chunk_index must be below total_chunks', 'chunk_index');
    const format = this.formatFor(fields.filename, 'filename');
    const { pending } = file;
    if (pending.size === 0) throw invalid('the chunk is empty', 'file');
    const limit = this.limitOf(format.type);

    return this.db.transactionRaw(async (tx) => {
      await tx.query(
        `INSERT INTO admin.upload_sessions (chunk_id, owner_id, filename, total_chunks, storage_dir)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (chunk_id) DO NOTHING`,
        [fields.chunk_id, ownerId, fields.filename, total, randomBytes(16).toString('hex')],
      );
      const session = await this.lockSession(tx.query, fields.chunk_id, ownerId);
      if (session.status === 'merged') throw failed(`upload ${session.chunk_id} is already merged (attachment ${session.attachment_id ?? 'deleted'})`);
      if (session.status === 'merging') throw failed(`upload ${session.chunk_id} is being merged`);
      this.checkSameUpload(session, fields.filename, total);

      const [existing] = await tx.query<ChunkRow>(
        'SELECT chunk_index, size, sha256 FROM admin.upload_chunks WHERE session_id = $1 AND chunk_index = $2',
        [session.id, index],
      );
      if (existing && existing.sha256 !== pending.sha256) {
        throw failed(`chunk ${index} was already received with different content; start a new upload (another chunk_id) to change it`);
      }
      if (!existing) {
        const [sum] = await tx.query<{ bytes: number }>('SELECT coalesce(sum(size), 0)::bigint AS bytes FROM admin.upload_chunks WHERE session_id = $1', [session.id]);
        if (Number(sum!.bytes) + pending.size > limit) {
          throw new AppError(E.BODY_TOO_LARGE, { detail: `${format.type} files are limited to ${limit} bytes` });
        }
        await pending.commit(chunkKey(session.storage_dir, index));
        await tx.query('INSERT INTO admin.upload_chunks (session_id, chunk_index, size, sha256) VALUES ($1, $2, $3, $4)', [
          session.id, index, pending.size, pending.sha256,
        ]);
      }
      await tx.query('UPDATE admin.upload_sessions SET updated_at = now() WHERE id = $1', [session.id]);
      const [count] = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM admin.upload_chunks WHERE session_id = $1', [session.id]);
      return {
        chunk_id: session.chunk_id,
        chunk_index: index,
        total_chunks: total,
        size: pending.size,
        sha256: pending.sha256,
        duplicate: !!existing,
        received_count: count!.n,
        complete: count!.n === total,
      };
    });
  }

  /** The session of `chunkId`, locked; 404 when there is none, 403 when it is someone else's. */
  private async lockSession(exec: RawExec, chunkId: string, ownerId: number): Promise<SessionRow> {
    const [session] = await exec<SessionRow>(`SELECT ${this.sessionColumns} FROM admin.upload_sessions WHERE chunk_id = $1 FOR UPDATE`, [chunkId]);
    return this.owned(sessionOf(session), chunkId, ownerId);
  }

  private owned(session: SessionRow | undefined, chunkId: string, ownerId: number): SessionRow {
    if (!session) throw new AppError(E.DATA_NOT_FOUND, { detail: `no upload with chunk_id ${chunkId}` });
    if (session.owner_id !== ownerId) throw new AppError(E.NO_PERMISSION, { detail: `upload ${chunkId} belongs to another administrator` });
    return session;
  }

  private checkSameUpload(session: SessionRow, filename: string, total: number) {
    if (total !== session.total_chunks) throw invalid(`total_chunks differs from this upload's (${session.total_chunks})`, 'total_chunks');
    if (filename !== session.filename) throw invalid('filename differs from this upload\'s', 'filename');
  }

  async state(ownerId: number, chunkId: string): Promise<UploadState> {
    const [session] = await this.db.query<SessionRow>(`SELECT ${this.sessionColumns} FROM admin.upload_sessions WHERE chunk_id = $1`, [chunkId]);
    const s = this.owned(sessionOf(session), chunkId, ownerId);
    const chunks = await this.db.query<ChunkRow>('SELECT chunk_index, size FROM admin.upload_chunks WHERE session_id = $1 ORDER BY chunk_index', [s.id]);
    const received = chunks.map((c) => c.chunk_index);
    const held = new Set(received);
    const missing: number[] = [];
    if (s.status !== 'merged') for (let i = 0; i < s.total_chunks; i++) if (!held.has(i)) missing.push(i);
    return {
      chunk_id: s.chunk_id,
      filename: s.filename,
      total_chunks: s.total_chunks,
      status: s.status,
      received,
      missing,
      received_bytes: chunks.reduce((n, c) => n + Number(c.size), 0),
      attachment_id: s.attachment_id,
      updated_at: s.updated_at,
    };
  }

  async merge(ownerId: number, body: { chunk_id: string; filename: string; total_chunks: number }): Promise<AttachmentRow> {
    const deadline = Date.now() + MERGE_WAIT_MS;
    const format = this.formatFor(body.filename, 'filename');
    for (;;) {
      const step = await this.db.transactionRaw(async (tx) => {
        const session = await this.lockSession(tx.query, body.chunk_id, ownerId);
        this.checkSameUpload(session, body.filename, body.total_chunks);
        if (session.status === 'merged') return { kind: 'merged' as const, attachmentId: session.attachment_id };
        if (session.status === 'merging' && !session.stale) return { kind: 'busy' as const };
        // An expired claim: its merge is taken for dead, and its partial file is removed below.
        const previous = session.status === 'merging' ? session.merge_token : null;
        const chunks = await tx.query<ChunkRow>(
          'SELECT chunk_index, size, sha256 FROM admin.upload_chunks WHERE session_id = $1 ORDER BY chunk_index',
          [session.id],
        );
        const held = new Set(chunks.map((c) => c.chunk_index));
        const missing: number[] = [];
        for (let i = 0; i < session.total_chunks; i++) if (!held.has(i)) missing.push(i);
        if (missing.length > 0) throw failed(`missing chunks: ${describeMissing(missing)}`);
        const limit = this.limitOf(format.type);
        if (chunks.reduce((n, c) => n + Number(c.size), 0) > limit) {
          throw new AppError(E.BODY_TOO_LARGE, { detail: `${format.type} files are limited to ${limit} bytes` });
        }
        const token = randomBytes(16).toString('hex');
        await tx.query(`UPDATE admin.upload_sessions SET status = 'merging', merge_token = $2, updated_at = now() WHERE id = $1`, [session.id, token]);
        return { kind: 'claimed' as const, session, chunks, token, previous };
      });
      if (step.kind === 'claimed') {
        if (step.previous !== null) {
          this.logger.warn({ chunk_id: body.chunk_id }, 'took over a merge whose lease expired');
          await this.discardAssembly(step.previous);
        }
        return this.assemble(ownerId, format, step.session, step.chunks, step.token);
      }
      if (step.kind === 'merged') {
        const row = step.attachmentId === null ? undefined : await this.find(step.attachmentId);
        if (!row) throw new AppError(E.DATA_NOT_FOUND, { detail: `the attachment of upload ${body.chunk_id} was deleted` });
        return row;
      }
      if (Date.now() > deadline) throw failed(`a merge of upload ${body.chunk_id} is still running; ask again later`);
      await sleep(this.timing.pollMs);
    }
  }

  /** Removes the partial file of the merge that held `token` (best effort: the sweep retries). */
  private async discardAssembly(token: string | null) {
    if (token === null || !TOKEN.test(token)) return;
    await this.storage.discardPending(assemblyOwner(token))
      .catch((err: unknown) => this.logger.warn({ err }, 'removing the partial file of a dead merge failed'));
  }

  private async assemble(ownerId: number, format: FileFormat, session: SessionRow, chunks: ChunkRow[], token: string): Promise<AttachmentRow> {
    const probe = new ContentProbe(format.extension);
    // The lease is renewed while the claim is ours; when it is not any more (taken over after a
    // stall, or revoked by the sweep), the assembly stops: its file is removed or is being removed.
    const lost = new AbortController();
    let done = false;
    const renew = setInterval(() => {
      this.db.query('UPDATE admin.upload_sessions SET updated_at = now() WHERE id = $1 AND merge_token = $2 RETURNING id', [session.id, token])
        .then((rows) => {
          if (rows.length === 0 && !done) lost.abort(failed('this merge lost its claim after it stalled; ask again'));
        })
        .catch((err: unknown) => this.logger.warn({ err }, 'renewing a merge lease failed'));
    }, this.timing.renewMs);
    renew.unref();
    let pending: PendingObject | undefined;
    try {
      pending = await this.storage.write(Readable.from(this.chunkBytes(session.storage_dir, chunks)), {
        maxBytes: this.limitOf(format.type),
        onChunk: (chunk) => probe.update(chunk),
        owner: assemblyOwner(token),
        signal: lost.signal,
      });
      const problem = probe.problem();
      if (problem) {
        await this.removeUpload(session, token);
        throw failed(`${problem}; the upload was removed`);
      }
      const merged = pending;
      const row = await this.commitAndRecord(merged, format.extension, (stored) =>
        this.db.transactionRaw(async (tx) => {
          // Recorded only while this merge still holds its claim.
          const [current] = await tx.query<{ merge_token: string | null }>(
            'SELECT merge_token FROM admin.upload_sessions WHERE id = $1 FOR UPDATE',
            [session.id],
          );
          if (current?.merge_token !== token) return null;
          const attachment = await this.insertAttachment(tx.query, ownerId, format, session.filename, merged, stored);
          await tx.query(
            `UPDATE admin.upload_sessions SET status = 'merged', merge_token = NULL, attachment_id = $2, updated_at = now() WHERE id = $1`,
            [session.id, attachment.id],
          );
          await tx.query('DELETE FROM admin.upload_chunks WHERE session_id = $1', [session.id]);
          return attachment;
        }));
      done = true;
      await this.storage.deletePrefix(chunkDir(session.storage_dir)).catch((err: unknown) => this.logger.warn({ err }, 'removing merged chunks failed'));
      return row;
    } catch (err) {
      done = true;
      await pending?.discard();
      const reset = await this.db.query(
        `UPDATE admin.upload_sessions SET status = 'open', merge_token = NULL WHERE id = $1 AND merge_token = $2 RETURNING id`,
        [session.id, token],
      );
      // Whatever failed (an aborted write, a partial file removed under it), the claim was lost first.
      if (reset.length === 0 && !(err instanceof AppError)) throw failed('this merge lost its claim after it stalled; ask again');
      if (err instanceof ChunkDamaged) {
        await this.db.query('DELETE FROM admin.upload_chunks WHERE session_id = $1 AND chunk_index = $2', [session.id, err.index]);
        throw failed(`chunk ${err.index} was lost; send it again`);
      }
      if (err instanceof StorageLimitError) throw new AppError(E.BODY_TOO_LARGE);
      throw err;
    } finally {
      done = true;
      clearInterval(renew);
    }
  }

  /** The bytes of the chunks in order, each checked against its recorded size and hash. */
  private async *chunkBytes(storageDir: string, chunks: ChunkRow[]): AsyncGenerator<Buffer> {
    for (const c of chunks) {
      let stream: Readable;
      try {
        stream = await this.storage.read(chunkKey(storageDir, c.chunk_index));
      } catch (err) {
        if (err instanceof StorageNotFoundError) throw new ChunkDamaged(c.chunk_index);
        throw err;
      }
      const hash = createHash('sha256');
      let size = 0;
      for await (const b of stream as AsyncIterable<Buffer>) {
        hash.update(b);
        size += b.length;
        yield b;
      }
      if (size !== Number(c.size) || hash.digest('hex') !== c.sha256) throw new ChunkDamaged(c.chunk_index);
    }
  }

  /** Drops an upload whose content was refused (its chunks cannot change). */
  private async removeUpload(session: SessionRow, token: string) {
    const gone = await this.db.query('DELETE FROM admin.upload_sessions WHERE id = $1 AND merge_token = $2 RETURNING id', [session.id, token]);
    if (gone.length > 0) await this.storage.deletePrefix(chunkDir(session.storage_dir));
  }

  // ---- reading ----

  async find(id: number): Promise<AttachmentRow | undefined> {
    const [row] = await this.db.query<AttachmentRow>('SELECT * FROM admin.attachments WHERE id = $1', [id]);
    return row && attachmentOf(row);
  }

  async get(id: number): Promise<AttachmentRow> {
    const row = await this.find(id);
    if (!row) throw new AppError(E.DATA_NOT_FOUND, { detail: `no attachment ${id}` });
    return row;
  }

  async findByStoredName(storedName: string): Promise<AttachmentRow | undefined> {
    const [row] = await this.db.query<AttachmentRow>('SELECT * FROM admin.attachments WHERE stored_name = $1', [storedName]);
    return row && attachmentOf(row);
  }

  async list(q: AttachmentListQuery): Promise<{ rows: AttachmentRow[]; total: number }> {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (clause: (p: string) => string, value: unknown) => {
      params.push(value);
      where.push(clause(`$${params.length}`));
    };
    if (q.type !== undefined) add((p) => `type = ${p}`, q.type);
    if (q.uploaded_by !== undefined) add((p) => `uploaded_by = ${p}`, q.uploaded_by);
    if (q.original_name !== undefined) add((p) => `original_name ILIKE ${p}`, `%${escapeLike(q.original_name)}%`);
    const filter = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
    const { field, direction } = parseOrderBy<AttachmentOrderField>(q.order_by);
    const order = field === 'id' ? `id ${direction}` : `${field} ${direction}, id ${direction}`;
    const [rows, [count]] = await Promise.all([
      this.db.query<AttachmentRow>(
        `SELECT * FROM admin.attachments ${filter} ORDER BY ${order} LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
        [...params, q.page_size, offsetOf(q)],
      ),
      this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM admin.attachments ${filter}`, params),
    ]);
    return { rows: rows.map(attachmentOf), total: count!.n };
  }

  /** The stored bytes of an attachment (or a range of them). */
  async open(row: AttachmentRow, range?: ByteRange): Promise<Readable> {
    try {
      return await this.storage.read(row.storage_key, range);
    } catch (err) {
      if (err instanceof StorageNotFoundError) {
        this.logger.error({ attachment: row.id }, 'the file of an attachment is missing from storage');
        throw new AppError(E.DATA_NOT_FOUND, { detail: `the file of attachment ${row.id} is missing` });
      }
      throw err;
    }
  }

  // ---- sweep ----

  /**
   * Removes chunked uploads idle for UPLOAD_CHUNK_TTL_HOURS (and their chunks), chunk
   * directories no upload owns, partial merge files whose claim is gone or expired (at once),
   * and other pending files left by interrupted writes (after UPLOAD_CHUNK_TTL_HOURS). Safe on
   * several instances at once: sessions are claimed with SKIP LOCKED and every removal is idempotent.
   */
  async sweep(): Promise<{ sessions: number; orphans: number; assemblies: number; pending: number }> {
    const hours = this.config.UPLOAD_CHUNK_TTL_HOURS;
    let sessions = 0;
    for (;;) {
      const rows = await this.db.query<{ storage_dir: string }>(
        `DELETE FROM admin.upload_sessions WHERE id IN (
           SELECT id FROM admin.upload_sessions WHERE updated_at < now() - make_interval(hours => $1)
           ORDER BY updated_at LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED)
         RETURNING storage_dir`,
        [hours],
      );
      for (const r of rows) await this.storage.deletePrefix(chunkDir(r.storage_dir));
      sessions += rows.length;
      if (rows.length < SWEEP_BATCH) break;
    }
    const cutoff = new Date(Date.now() - hours * 3_600_000);
    const old = (await this.storage.list('chunks')).filter((d) => d.modifiedAt < cutoff && /^[0-9a-f]{32}$/.test(d.name)).map((d) => d.name);
    let orphans = 0;
    if (old.length > 0) {
      const owned = new Set(
        (await this.db.query<{ storage_dir: string }>('SELECT storage_dir FROM admin.upload_sessions WHERE storage_dir = ANY($1::text[])', [old]))
          .map((r) => r.storage_dir),
      );
      for (const dir of old.filter((d) => !owned.has(d))) {
        await this.storage.deletePrefix(chunkDir(dir));
        orphans += 1;
      }
    }
    const assemblies = await this.sweepAssemblies();
    const pending = await this.storage.sweepPending(cutoff);
    return { sessions, orphans, assemblies, pending };
  }

  /**
   * Removes the partial files of merges that no longer hold their claim. A merge's file appears
   * only after its claim is in the database, and a token once gone never comes back, so a file
   * whose token is not (or no longer) there has no writer that could still record it. An
   * expired claim is revoked first (its merge, if it still runs, then stops and records nothing).
   */
  private async sweepAssemblies(): Promise<number> {
    const tokens: string[] = [];
    for (const owner of await this.storage.pendingOwners()) {
      const token = ASSEMBLY_OWNER.exec(owner)?.[1];
      if (token !== undefined) tokens.push(token);
    }
    if (tokens.length === 0) return 0;
    const revoked = await this.db.query(
      `UPDATE admin.upload_sessions SET status = 'open', merge_token = NULL
       WHERE merge_token = ANY($1::text[]) AND status = 'merging' AND ${leaseExpired(this.timing.leaseMs)} RETURNING id`,
      [tokens],
    );
    if (revoked.length > 0) this.logger.warn({ merges: revoked.length }, 'revoked merge claims whose lease expired');
    const live = new Set(
      (await this.db.query<{ merge_token: string }>('SELECT merge_token FROM admin.upload_sessions WHERE merge_token = ANY($1::text[])', [tokens]))
        .map((r) => r.merge_token),
    );
    let removed = 0;
    for (const token of tokens.filter((t) => !live.has(t))) removed += await this.storage.discardPending(assemblyOwner(token));
    return removed;
  }

  /** Sweeps now and every 10 minutes until stop(). */
  start(): void {
    const run = () => {
      this.sweeping ??= this.sweep()
        .then((n) => {
          if (n.sessions + n.orphans + n.assemblies + n.pending > 0) this.logger.info(n, 'abandoned uploads removed');
        })
        .catch((err: unknown) => this.logger.error({ err }, 'upload sweep failed'))
        .finally(() => {
          this.sweeping = undefined;
        });
    };
    run();
    this.timer = setInterval(run, SWEEP_EVERY_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.sweeping;
  }
}
