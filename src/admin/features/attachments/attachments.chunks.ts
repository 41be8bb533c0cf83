// Chunked uploads: receiving chunks, an upload's status, the merge, and the sweep of abandoned
// uploads (attachments.service.ts records the merged file as an attachment).
//
// The state of a chunked upload is in the database (admin.upload_sessions, admin.upload_chunks)
// so that every instance sees the same one; the chunk files are in the shared storage. A chunk
// is recorded under a row lock of its session, so a re-sent chunk is recognised whatever the
// concurrency. A merge claims its session as a durable job of platform/jobs/leases.ts (status
// 'merging', a token as holder, and a lease: updated_at, renewed while it assembles) in a short
// transaction, assembles outside it into a pending file owned by its token, and records the
// attachment only if it still holds the claim: concurrent merges of one upload produce one file,
// and the others wait for it and answer the same attachment. A claim whose lease expired
// (crashed instance) is taken over by the next merge, which removes the dead merge's partial
// file; the sweep removes a partial file as soon as its claim is gone or expired (revoking an
// expired claim first, so that no live merge records a removed file).
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { and, asc, count, eq, getTableColumns, inArray, sql, type SQL } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Static } from 'typebox';
import type { Config } from '../../../platform/config.ts';
import type { Database, Executor } from '../../../platform/db/database.ts';
import { p } from '../../../platform/db/statements.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { msg, type Msg } from '../../../platform/i18n.ts';
import { LeaseTable } from '../../../platform/jobs/leases.ts';
import { Periodic } from '../../../platform/jobs/periodic.ts';
import { StorageLimitError, StorageNotFoundError, type PendingObject, type Storage } from '../../../platform/storage/index.ts';
import { uploadChunks, uploadSessions, type AttachmentRow } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import type { ChunkFields, MergeBody } from './attachments.schema.ts';
import { ownRows } from '../../kernel/data-scope.ts';
import type { ReceivedFile } from './attachments.multipart.ts';
import type { AttachmentsService } from './attachments.service.ts';
import { ContentProbe, type FileFormat } from './attachments.types.ts';

type SessionRow = typeof uploadSessions.$inferSelect & {
  /** Computed in queries: the merge's lease (updated_at + lease) has expired. */
  stale: boolean;
};

type ChunkRow = Pick<typeof uploadChunks.$inferSelect, 'chunkIndex' | 'size' | 'sha256'>;
const CHUNK_COLUMNS = { chunkIndex: uploadChunks.chunkIndex, size: uploadChunks.size, sha256: uploadChunks.sha256 };

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

/** True in SQL when a merge claim's lease has expired. */
const sessionColumns = (merges: LeaseTable) => ({
  ...getTableColumns(uploadSessions),
  stale: sql<boolean>`(${uploadSessions.status} = 'merging' AND ${sql.raw(merges.expired())})`,
});

/** The owner of a merge's pending (assembly) file in the storage: the merge's claim token. */
export const assemblyOwner = (token: string) => `merge-${token}`;
const ASSEMBLY_OWNER = /^merge-([0-9a-f]{32})$/;
const TOKEN = /^[0-9a-f]{32}$/;

export const invalid = (detail: Msg, field: string) => new AppError(E.VALIDATION, { detail, details: { field } });
export const failed = (detail: Msg) => new AppError(E.UPLOAD_FAILED, { detail });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const chunkDir = (storageDir: string) => `chunks/${storageDir}`;
const chunkKey = (storageDir: string, index: number) => `${chunkDir(storageDir)}/${String(index).padStart(6, '0')}`;

function describeMissing(missing: number[]): string {
  const shown = missing.slice(0, MISSING_SHOWN).join(', ');
  return missing.length > MISSING_SHOWN ? `${shown} and ${missing.length - MISSING_SHOWN} more` : shown;
}

class ChunkDamaged extends Error {
  readonly index: number;
  constructor(index: number) {
    super(`chunk ${index} is missing or damaged in storage`);
    this.index = index;
  }
}

/** What chunked uploads use of the attachments: the file rules, and how a merged file is recorded and read. */
type Files = Pick<AttachmentsService, 'formatFor' | 'limitOf' | 'commitAndRecord' | 'insertAttachment' | 'find'>;

export class ChunkedUploads {
  private readonly db: Database;
  private readonly storage: Storage;
  private readonly config: Config;
  private readonly logger: Logger;
  private readonly files: Files;
  private readonly sweeper: Periodic;
  private readonly timing: MergeTiming;
  /** Upload sessions as merge jobs: an open upload waits for its merge, whose claim is leased. */
  private readonly merges: LeaseTable;
  private readonly sessionColumns: ReturnType<typeof sessionColumns>;
  private readonly reads;

  constructor(deps: { db: Database; storage: Storage; config: Config; logger: Logger; files: Files; timing?: Partial<MergeTiming> }) {
    this.db = deps.db;
    this.storage = deps.storage;
    this.config = deps.config;
    this.logger = deps.logger;
    this.files = deps.files;
    this.timing = { leaseMs: MERGE_LEASE_MS, renewMs: MERGE_RENEW_MS, pollMs: MERGE_POLL_MS, ...deps.timing };
    this.merges = new LeaseTable({
      table: 'admin.upload_sessions', waiting: 'open', running: 'merging', holder: 'merge_token', lease: { renewed: 'updated_at' }, leaseMs: this.timing.leaseMs,
    });
    this.sessionColumns = sessionColumns(this.merges);
    this.reads = {
      session: this.db.orm.select(this.sessionColumns).from(uploadSessions).where(eq(uploadSessions.chunkId, p('chunk_id'))).prepare('upload_session'),
      chunks: this.db.orm.select(CHUNK_COLUMNS).from(uploadChunks).where(eq(uploadChunks.sessionId, p('session_id'))).orderBy(asc(uploadChunks.chunkIndex))
        .prepare('upload_chunks'),
    };
    this.sweeper = new Periodic({
      everyMs: SWEEP_EVERY_MS,
      logger: this.logger,
      failure: 'upload sweep failed',
      task: async () => {
        const n = await this.sweep();
        if (n.sessions + n.orphans + n.assemblies + n.pending > 0) this.logger.info(n, 'abandoned uploads removed');
      },
    });
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
    if (total > this.config.UPLOAD_MAX_CHUNKS) throw invalid(msg('admin.attachments.tooManyChunks', { UPLOAD_MAX_CHUNKS: this.config.UPLOAD_MAX_CHUNKS }), 'total_chunks');
    if (index >= total) throw invalid(msg('admin.attachments.chunkIndexOutOfRange'), 'chunk_index');
    const format = this.files.formatFor(fields.filename, 'filename');
    const { pending } = file;
    if (pending.size === 0) throw invalid(msg('admin.attachments.chunkEmpty'), 'file');
    const limit = this.files.limitOf(format.type);

    return this.db.transaction(async (tx) => {
      await tx.orm.insert(uploadSessions).values({
        chunkId: fields.chunk_id,
        ownerId,
        filename: fields.filename,
        totalChunks: total,
        storageDir: randomBytes(16).toString('hex'),
      }).onConflictDoNothing({ target: uploadSessions.chunkId });
      const session = await this.lockSession(tx, fields.chunk_id, ownerId);
      if (session.status === 'merged') throw failed(msg('admin.attachments.uploadAlreadyMerged', { chunkId: session.chunkId, attachmentId: session.attachmentId ?? 'deleted' }));
      if (session.status === 'merging') throw failed(msg('admin.attachments.uploadBeingMerged', { chunkId: session.chunkId }));
      this.checkSameUpload(session, fields.filename, total);

      const [existing] = await tx.orm.select(CHUNK_COLUMNS).from(uploadChunks)
        .where(and(eq(uploadChunks.sessionId, session.id), eq(uploadChunks.chunkIndex, index)));
      if (existing && existing.sha256 !== pending.sha256) {
        throw failed(msg('admin.attachments.chunkConflict', { index }));
      }
      if (!existing) {
        const [sum] = await tx.orm.select({ bytes: sql<number>`coalesce(sum(${uploadChunks.size}), 0)`.mapWith(Number) }).from(uploadChunks)
          .where(eq(uploadChunks.sessionId, session.id));
        if (sum!.bytes + pending.size > limit) {
          throw new AppError(E.BODY_TOO_LARGE, { detail: msg('admin.attachments.fileTooLarge', { type: format.type, limit }) });
        }
        await pending.commit(chunkKey(session.storageDir, index));
        await tx.orm.insert(uploadChunks).values({ sessionId: session.id, chunkIndex: index, size: pending.size, sha256: pending.sha256 });
      }
      await tx.orm.update(uploadSessions).set({ updatedAt: sql`now()` }).where(eq(uploadSessions.id, session.id));
      const [counted] = await tx.orm.select({ n: count() }).from(uploadChunks).where(eq(uploadChunks.sessionId, session.id));
      return {
        chunk_id: session.chunkId,
        chunk_index: index,
        total_chunks: total,
        size: pending.size,
        sha256: pending.sha256,
        duplicate: !!existing,
        received_count: counted!.n,
        complete: counted!.n === total,
      };
    });
  }

  /** The session of `chunkId`, locked; 404 when there is none, 403 when it is someone else's. */
  private async lockSession(tx: Executor, chunkId: string, ownerId: number): Promise<SessionRow> {
    const [session] = await tx.orm.select(this.sessionColumns).from(uploadSessions).where(eq(uploadSessions.chunkId, chunkId)).for('update');
    return this.owned(session, chunkId, ownerId);
  }

  private owned(session: SessionRow | undefined, chunkId: string, ownerId: number): SessionRow {
    if (!session) throw new AppError(E.DATA_NOT_FOUND, { detail: msg('admin.attachments.uploadNotFound', { chunkId }) });
    if (session.ownerId !== ownerId) throw new AppError(E.NO_PERMISSION, { detail: msg('admin.attachments.uploadOfAnother', { chunkId }) });
    return session;
  }

  private checkSameUpload(session: SessionRow, filename: string, total: number) {
    if (total !== session.totalChunks) throw invalid(msg('admin.attachments.totalChunksMismatch', { totalChunks: session.totalChunks }), 'total_chunks');
    if (filename !== session.filename) throw invalid(msg('admin.attachments.filenameMismatch'), 'filename');
  }

  async state(ownerId: number, chunkId: string): Promise<UploadState> {
    const [session] = await this.reads.session.execute({ chunk_id: chunkId });
    const s = this.owned(session, chunkId, ownerId);
    const chunks = await this.reads.chunks.execute({ session_id: s.id });
    const received = chunks.map((c) => c.chunkIndex);
    const held = new Set(received);
    const missing: number[] = [];
    if (s.status !== 'merged') for (let i = 0; i < s.totalChunks; i++) if (!held.has(i)) missing.push(i);
    return {
      chunk_id: s.chunkId,
      filename: s.filename,
      total_chunks: s.totalChunks,
      status: s.status,
      received,
      missing,
      received_bytes: chunks.reduce((n, c) => n + c.size, 0),
      attachment_id: s.attachmentId,
      updated_at: s.updatedAt,
    };
  }

  private chunksOf(tx: Executor, sessionId: number): Promise<ChunkRow[]> {
    return tx.orm.select(CHUNK_COLUMNS).from(uploadChunks).where(eq(uploadChunks.sessionId, sessionId)).orderBy(asc(uploadChunks.chunkIndex));
  }

  async merge(ownerId: number, body: Static<typeof MergeBody>): Promise<AttachmentRow> {
    const deadline = Date.now() + MERGE_WAIT_MS;
    const format = this.files.formatFor(body.filename, 'filename');
    for (;;) {
      const step = await this.db.transaction(async (tx) => {
        const session = await this.lockSession(tx, body.chunk_id, ownerId);
        this.checkSameUpload(session, body.filename, body.total_chunks);
        if (session.status === 'merged') return { kind: 'merged' as const, attachmentId: session.attachmentId };
        if (session.status === 'merging' && !session.stale) return { kind: 'busy' as const };
        // An expired claim: its merge is taken for dead, and its partial file is removed below.
        const previous = session.status === 'merging' ? session.mergeToken : null;
        const chunks = await this.chunksOf(tx, session.id);
        const held = new Set(chunks.map((c) => c.chunkIndex));
        const missing: number[] = [];
        for (let i = 0; i < session.totalChunks; i++) if (!held.has(i)) missing.push(i);
        if (missing.length > 0) throw failed(msg('admin.attachments.missingChunks', { value: describeMissing(missing) }));
        const limit = this.files.limitOf(format.type);
        if (chunks.reduce((n, c) => n + c.size, 0) > limit) {
          throw new AppError(E.BODY_TOO_LARGE, { detail: msg('admin.attachments.fileTooLarge', { type: format.type, limit }) });
        }
        const token = randomBytes(16).toString('hex');
        // Always taken: the session is locked, and open or under an expired claim.
        await this.merges.take(tx.query, session.id, token);
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
        const row = step.attachmentId === null ? undefined : await this.files.find(step.attachmentId, ownRows(ownerId));
        if (!row) throw new AppError(E.DATA_NOT_FOUND, { detail: msg('admin.attachments.mergedAttachmentDeleted', { chunk_id: body.chunk_id }) });
        return row;
      }
      if (Date.now() > deadline) throw failed(msg('admin.attachments.mergeRunning', { chunk_id: body.chunk_id }));
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
    const stopRenewing = this.merges.keepAlive(this.db.query, session.id, token, {
      everyMs: this.timing.renewMs,
      onLost: () => lost.abort(failed(msg('admin.attachments.mergeClaimLost'))),
      onError: (err) => this.logger.warn({ err }, 'renewing a merge lease failed'),
    });
    let pending: PendingObject | undefined;
    try {
      pending = await this.storage.write(Readable.from(this.chunkBytes(session.storageDir, chunks)), {
        maxBytes: this.files.limitOf(format.type),
        onChunk: (chunk) => probe.update(chunk),
        owner: assemblyOwner(token),
        signal: lost.signal,
      });
      const problem = probe.problem();
      if (problem) {
        await this.removeUpload(session, token);
        throw failed(msg('admin.attachments.uploadWasRemoved', { problem }));
      }
      const merged = pending;
      const row = await this.files.commitAndRecord(merged, format.extension, (stored) =>
        this.db.transaction(async (tx) => {
          // Recorded only while this merge still holds its claim.
          if (!(await this.merges.holds(tx.query, session.id, token))) return null;
          const attachment = await this.files.insertAttachment(tx, ownerId, format, session.filename, merged, stored);
          await this.merges.settle(tx.query, session.id, token, 'merged', () => ({ attachment_id: sql`${attachment.id}`, updated_at: sql`now()` }));
          await tx.orm.delete(uploadChunks).where(eq(uploadChunks.sessionId, session.id));
          return attachment;
        }));
      stopRenewing();
      await this.storage.deletePrefix(chunkDir(session.storageDir)).catch((err: unknown) => this.logger.warn({ err }, 'removing merged chunks failed'));
      return row;
    } catch (err) {
      stopRenewing();
      await pending?.discard();
      const reset = await this.merges.release(this.db.query, session.id, token);
      // Whatever failed (an aborted write, a partial file removed under it), the claim was lost first.
      if (!reset && !(err instanceof AppError)) throw failed(msg('admin.attachments.mergeClaimLost'));
      if (err instanceof ChunkDamaged) {
        await this.db.orm.delete(uploadChunks).where(and(eq(uploadChunks.sessionId, session.id), eq(uploadChunks.chunkIndex, err.index)));
        throw failed(msg('admin.attachments.chunkLost', { index: err.index }));
      }
      if (err instanceof StorageLimitError) throw new AppError(E.BODY_TOO_LARGE);
      throw err;
    } finally {
      stopRenewing();
    }
  }

  /** The session row while the merge holding `token` still holds its claim. */
  private claimOf(session: SessionRow, token: string): SQL | undefined {
    return and(eq(uploadSessions.id, session.id), eq(uploadSessions.mergeToken, token));
  }

  /** The bytes of the chunks in order, each checked against its recorded size and hash. */
  private async *chunkBytes(storageDir: string, chunks: ChunkRow[]): AsyncGenerator<Buffer> {
    for (const c of chunks) {
      let stream: Readable;
      try {
        stream = await this.storage.read(chunkKey(storageDir, c.chunkIndex));
      } catch (err) {
        if (err instanceof StorageNotFoundError) throw new ChunkDamaged(c.chunkIndex);
        throw err;
      }
      const hash = createHash('sha256');
      let size = 0;
      for await (const b of stream as AsyncIterable<Buffer>) {
        hash.update(b);
        size += b.length;
        yield b;
      }
      if (size !== c.size || hash.digest('hex') !== c.sha256) throw new ChunkDamaged(c.chunkIndex);
    }
  }

  /** Drops an upload whose content was refused (its chunks cannot change). */
  private async removeUpload(session: SessionRow, token: string) {
    const gone = await this.db.orm.delete(uploadSessions).where(this.claimOf(session, token)).returning({ id: uploadSessions.id });
    if (gone.length > 0) await this.storage.deletePrefix(chunkDir(session.storageDir));
  }


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
      const rows = await this.merges.retire<{ storage_dir: string }>(this.db.query, {
        where: sql`job.updated_at < now() - make_interval(secs => ${hours * 3600})`,
        order: 'job.updated_at',
        limit: SWEEP_BATCH,
        returning: 'storage_dir',
      });
      for (const r of rows) await this.storage.deletePrefix(chunkDir(r.storage_dir));
      sessions += rows.length;
      if (rows.length < SWEEP_BATCH) break;
    }
    const cutoff = new Date(Date.now() - hours * 3_600_000);
    const old = (await this.storage.list('chunks')).filter((d) => d.modifiedAt < cutoff && /^[0-9a-f]{32}$/.test(d.name)).map((d) => d.name);
    let orphans = 0;
    if (old.length > 0) {
      const owned = new Set(
        (await this.db.orm.select({ storageDir: uploadSessions.storageDir }).from(uploadSessions).where(inArray(uploadSessions.storageDir, old)))
          .map((r) => r.storageDir),
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
    const revoked = await this.merges.recover(this.db.query, { where: sql`job.merge_token = ANY(${sql.param(tokens)}::text[])` });
    if (revoked.length > 0) this.logger.warn({ merges: revoked.length }, 'revoked merge claims whose lease expired');
    const live = new Set(
      (await this.db.orm.select({ mergeToken: uploadSessions.mergeToken }).from(uploadSessions).where(inArray(uploadSessions.mergeToken, tokens)))
        .map((r) => r.mergeToken),
    );
    let removed = 0;
    for (const token of tokens.filter((t) => !live.has(t))) removed += await this.storage.discardPending(assemblyOwner(token));
    return removed;
  }

  /** Sweeps now and every 10 minutes until stop(). */
  start(): void {
    this.sweeper.start();
  }

  stop(): Promise<void> {
    return this.sweeper.stop();
  }
}
