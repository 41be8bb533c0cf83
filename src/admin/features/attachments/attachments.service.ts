// Attachments: single uploads, reads and deletion; chunked uploads (receive, status, merge)
// and the sweep of abandoned chunk sets are in attachments.chunks.ts.
//
// Files are stored under generated keys (files/<2 hex>/<32 hex>.<ext>; chunks under
// chunks/<32 hex>/<index>), never under a name taken from the request.
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { and, asc, eq, getTableColumns, ilike, sql, type SQL } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Static } from 'typebox';
import type { Config } from '../../../platform/config.ts';
import type { Database, Executor, Orm } from '../../../platform/db/database.ts';
import { contains } from '../../../platform/db/like.ts';
import { pagedList } from '../../../platform/db/list.ts';
import { p } from '../../../platform/db/statements.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { DOWNLOAD_URL_SECONDS, StorageNotFoundError, type ByteRange, type PendingObject, type Storage } from '../../../platform/storage/index.ts';
import { admins, attachments, paymentMethods, type AttachmentRow, type AttachmentType } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import { ownedInScope, ownerScopeCondition, ownerScopeFilter, scopeValues, type DataScope } from '../../kernel/data-scope.ts';
import type { AttachmentOrderField, AttachmentQuery, ChunkFields, MergeBody } from './attachments.schema.ts';
import type { FilePlan, ReceivedFile } from './attachments.multipart.ts';
import { ChunkedUploads, failed, invalid, type ChunkResult, type MergeTiming, type UploadState } from './attachments.chunks.ts';
import { ContentProbe, EXTENSIONS, fileNameProblem, formatOf, type FileFormat } from './attachments.types.ts';
import { msg } from '../../../platform/i18n.ts';

/** An attachment as read: its row and its uploader's name (null when that administrator was deleted). */
export type AttachmentView = AttachmentRow & { uploaderName: string | null };

/**
 * The columns of a read: the attachment's, and its uploader's nickname (the username when the
 * nickname is empty) through a LEFT JOIN of admin.admins, every column qualified by Drizzle.
 */
const VIEW_COLUMNS = {
  ...getTableColumns(attachments),
  uploaderName: sql<string | null>`coalesce(nullif(${admins.nickname}, ''), ${admins.username})`,
};

const attachmentsList = (orm: Orm) =>
  pagedList(orm, {
    name: 'attachments',
    rows: (orm) => orm.select(VIEW_COLUMNS).from(attachments).leftJoin(admins, eq(admins.id, attachments.uploadedBy)).$dynamic(),
    table: attachments,
    filters: {
      type: (x) => eq(attachments.type, x),
      uploaded_by: (x) => eq(attachments.uploadedBy, x),
      original_name: { param: contains, where: (x) => ilike(attachments.originalName, x) },
      // The caller's data scope: the uploader (their department now).
      scope: ownerScopeFilter(attachments.uploadedBy),
    },
    sort: { id: attachments.id, created_at: attachments.createdAt, size: attachments.size } satisfies Record<AttachmentOrderField, unknown>,
    id: attachments.id,
  });

/** The reads of GET routes that never change, built once (placeholders `id` with scopeValues, `stored_name`). */
const readStatements = (orm: Orm) => ({
  byId: orm.select(VIEW_COLUMNS).from(attachments).leftJoin(admins, eq(admins.id, attachments.uploadedBy))
    .where(and(eq(attachments.id, p('id')), ownerScopeCondition(attachments.uploadedBy))).prepare('attachment'),
  byStoredName: orm.select().from(attachments).where(eq(attachments.storedName, p('stored_name'))).prepare('attachment_by_stored_name'),
});

interface StoredName {
  storedName: string;
  key: string;
}

function newStoredName(extension: string): StoredName {
  const storedName = `${randomBytes(16).toString('hex')}.${extension}`;
  return { storedName, key: `files/${storedName.slice(0, 2)}/${storedName}` };
}

export class AttachmentsService {
  private readonly db: Database;
  /** Where uploads are written (the multipart parser of the routes writes there too). */
  readonly storage: Storage;
  private readonly config: Config;
  private readonly logger: Logger;
  /** Chunked uploads, their merges and the sweep of abandoned ones. */
  private readonly chunks: ChunkedUploads;
  private readonly reads: ReturnType<typeof readStatements>;
  private readonly attachmentsList: ReturnType<typeof attachmentsList>;

  constructor(deps: { db: Database; storage: Storage; config: Config; logger: Logger; timing?: Partial<MergeTiming> }) {
    this.db = deps.db;
    this.storage = deps.storage;
    this.config = deps.config;
    this.logger = deps.logger;
    this.reads = readStatements(this.db.orm);
    this.attachmentsList = attachmentsList(this.db.orm);
    this.chunks = new ChunkedUploads({ ...deps, files: this });
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
    if (problem) throw invalid(msg('admin.attachments.badFileName', { field, problem }), field);
    const format = formatOf(fileName);
    if (!format) {
      const accepted = Object.values(EXTENSIONS).flat().join(', ');
      throw failed(msg('admin.attachments.extensionNotAccepted', { accepted }));
    }
    return format;
  }

  /** How the file part of a single upload is received: the limit of its extension's type, and a content probe. */
  planUpload(fileName: string, fields: Readonly<Record<string, string>>): FilePlan {
    const format = this.formatFor(fileName, 'file');
    this.checkType(format, fields.type);
    const limit = this.limitOf(format.type);
    return { maxBytes: limit, limitDetail: msg('admin.attachments.fileTooLarge', { type: format.type, limit }), probe: new ContentProbe(format.extension) };
  }

  planChunk(): FilePlan {
    const limit = this.config.UPLOAD_CHUNK_MAX_BYTES;
    return { maxBytes: limit, limitDetail: msg('admin.attachments.chunkLimitedBytes', { limit }) };
  }

  private checkType(format: FileFormat, type: string | undefined) {
    if (type !== undefined && type !== format.type && Object.hasOwn(EXTENSIONS, type)) {
      throw failed(msg('admin.attachments.fileNotType', { extension: format.extension, type, value: EXTENSIONS[type as AttachmentType].join(', ') }));
    }
  }

  // ---- single upload ----

  async saveUpload(uploaderId: number, type: AttachmentType, file: ReceivedFile): Promise<AttachmentRow> {
    try {
      const format = this.formatFor(file.fileName, 'file');
      this.checkType(format, type);
      const problem = file.probe ? file.probe.problem() : msg('admin.attachments.contentNotChecked');
      if (problem) throw failed(problem);
      const { pending } = file;
      return await this.commitAndRecord(pending, format.extension, (stored) =>
        this.insertAttachment(this.db, uploaderId, format, file.fileName, pending, stored));
    } finally {
      await file.pending.discard();
    }
  }

  /**
   * Commits a checked file under a new generated name and records it with `write`; the file is
   * removed again when the row cannot be written (`write` answering null: the merge lost its claim).
   */
  async commitAndRecord(
    pending: PendingObject,
    extension: string,
    write: (stored: StoredName) => Promise<AttachmentRow | null>,
  ): Promise<AttachmentRow> {
    const stored = newStoredName(extension);
    await pending.commit(stored.key);
    try {
      const row = await write(stored);
      if (!row) throw failed(msg('admin.attachments.mergeTakenOver'));
      return row;
    } catch (err) {
      await this.storage.delete(stored.key).catch((e: unknown) => this.logger.error({ err: e }, 'removing an unrecorded upload failed'));
      throw err;
    }
  }

  async insertAttachment(
    exec: Executor,
    uploaderId: number,
    format: FileFormat,
    originalName: string,
    pending: { size: number; sha256: string },
    stored: StoredName,
  ): Promise<AttachmentRow> {
    const [row] = await exec.orm.insert(attachments).values({
      type: format.type,
      originalName,
      storedName: stored.storedName,
      storageKey: stored.key,
      extension: format.extension,
      contentType: format.contentType,
      size: pending.size,
      sha256: pending.sha256,
      uploadedBy: uploaderId,
    }).returning();
    return row!;
  }

  // ---- reading ----

  /** An attachment of the caller's data scope (outside it, as one that does not exist). */
  async find(id: number, scope: DataScope): Promise<AttachmentView | undefined> {
    const [row] = await this.reads.byId.execute({ id, ...scopeValues(scope) });
    return row;
  }

  async get(id: number, scope: DataScope): Promise<AttachmentView> {
    const row = await this.find(id, scope);
    if (!row) throw new AppError(E.DATA_NOT_FOUND, { detail: msg('admin.attachments.noAttachment', { id }) });
    return row;
  }

  async findByStoredName(storedName: string): Promise<AttachmentRow | undefined> {
    const [row] = await this.reads.byStoredName.execute({ stored_name: storedName });
    return row;
  }

  async list(q: Static<typeof AttachmentQuery>, scope: DataScope): Promise<{ rows: AttachmentView[]; total: number }> {
    return this.attachmentsList.page({ ...q, scope }, q);
  }

  /**
   * A short-lived URL at which the client fetches the attachment from the store itself, when the
   * store issues them (S3 with S3_PUBLIC_ENDPOINT); the caller has checked access.
   */
  async presigned(row: AttachmentRow, contentDisposition: string): Promise<string | undefined> {
    return this.storage.presign?.(row.storageKey, DOWNLOAD_URL_SECONDS, { contentDisposition, contentType: row.contentType });
  }

  /** The stored bytes of an attachment (or a range of them). */
  async open(row: AttachmentRow, range?: ByteRange): Promise<Readable> {
    try {
      return await this.storage.read(row.storageKey, range);
    } catch (err) {
      if (err instanceof StorageNotFoundError) {
        this.logger.error({ attachment: row.id }, 'the file of an attachment is missing from storage');
        throw new AppError(E.DATA_NOT_FOUND, { detail: msg('admin.attachments.fileAttachmentMissing', { id: row.id }) });
      }
      throw err;
    }
  }

  // ---- deletion ----

  /**
   * Deletes an attachment and then its stored file. Refused (400 40002) while a record still
   * points at the file by one of its addresses (`…/attachments/<id>/download` or
   * `…/attachments/public/<stored_name>`): an administrator's avatar, or a payment method's
   * configuration (an icon). The check and the deletion are one transaction under the row's lock.
   */
  async remove(id: number, scope: DataScope): Promise<AttachmentRow> {
    const row = await this.db.transaction(async (tx) => {
      const [found] = await tx.orm.select().from(attachments).where(and(eq(attachments.id, id), ownedInScope(scope, attachments.uploadedBy))).for('update');
      if (!found) throw new AppError(E.DATA_NOT_FOUND, { detail: msg('admin.attachments.noAttachment', { id }) });
      const uses = (text: SQL) => sql`(strpos(${text}, ${`/attachments/${id}/download`}) > 0 OR strpos(${text}, ${`/attachments/public/${found.storedName}`}) > 0)`;
      const avatars = await tx.orm.select({ id: admins.id }).from(admins).where(uses(sql`${admins.avatar}`)).orderBy(asc(admins.id));
      const methods = await tx.orm.select({ id: paymentMethods.id }).from(paymentMethods).where(uses(sql`${paymentMethods.config}::text`)).orderBy(asc(paymentMethods.id));
      if (avatars.length + methods.length > 0) {
        throw new AppError(E.DELETE_FAILED, {
          detail: msg('admin.attachments.attachmentInUse', { name: found.originalName, avatars: avatars.length, methods: methods.length }),
          details: { field: 'id', admin_ids: avatars.map((a) => a.id), payment_method_ids: methods.map((m) => m.id) },
        });
      }
      await tx.orm.delete(attachments).where(eq(attachments.id, id));
      return found;
    });
    // After the commit: a failed removal leaves an unreferenced file, never a record without its file.
    await this.storage.delete(row.storageKey).catch((err: unknown) => this.logger.error({ err, attachment: id }, 'removing a deleted attachment’s file failed'));
    return row;
  }

  // ---- chunked upload (attachments.chunks.ts) ----

  receiveChunk(ownerId: number, fields: ChunkFields, file: ReceivedFile): Promise<ChunkResult> {
    return this.chunks.receiveChunk(ownerId, fields, file);
  }

  state(ownerId: number, chunkId: string): Promise<UploadState> {
    return this.chunks.state(ownerId, chunkId);
  }

  merge(ownerId: number, body: Static<typeof MergeBody>): Promise<AttachmentRow> {
    return this.chunks.merge(ownerId, body);
  }

  sweep(): ReturnType<ChunkedUploads['sweep']> {
    return this.chunks.sweep();
  }

  /** Sweeps now and every 10 minutes until stop(). */
  start(): void {
    this.chunks.start();
  }

  stop(): Promise<void> {
    return this.chunks.stop();
  }
}
