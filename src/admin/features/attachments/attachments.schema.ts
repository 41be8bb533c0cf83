import { Type, type Static } from 'typebox';
import { OrderByQuery, PagingQuery } from '../../../platform/http/schemas.ts';
import { Body, Envelope, ListEnvelope } from '../../http.ts';
import { ATTACHMENT_TYPES } from '../../db/schema.ts';
import { EXTENSIONS } from './attachments.types.ts';

export const CHUNK_ID_PATTERN = '^[A-Za-z0-9_-]{8,64}$';
/** Generated: 32 hex digits and the extension. */
export const STORED_NAME_PATTERN = '^[0-9a-f]{32}\\.[a-z0-9]{2,5}$';

const AttachmentTypeSchema = Type.Union([Type.Literal('image'), Type.Literal('document'), Type.Literal('video')], {
  description: ATTACHMENT_TYPES.map((t) => `\`${t}\`: ${EXTENSIONS[t].join(', ')}`).join('; '),
});

const FilePart = (description: string) => Type.String({ format: 'binary', description });
const ChunkId = Type.String({ pattern: CHUNK_ID_PATTERN, description: 'the client’s name for this upload: 8–64 of A-Z a-z 0-9 _ -' });
const FileName = Type.String({
  minLength: 1,
  maxLength: 255,
  description: 'name of the whole file, with one of the accepted extensions (which decides its type); a base name of at most 255 UTF-8 bytes without slashes, backslashes or control characters',
});

/** Multipart fields of POST /attachments/upload (parsed before validation; text fields are strings). */
export const UploadBody = Body({
  file: FilePart('the file; its name’s extension must be one of the type’s, and its content must match'),
  type: AttachmentTypeSchema,
});

export const ChunkBody = Body({
  file: FilePart('the bytes of this chunk (at most UPLOAD_CHUNK_MAX_BYTES)'),
  chunk_id: ChunkId,
  chunk_index: Type.String({ pattern: '^(0|[1-9][0-9]{0,5})$', description: '0-based index of this chunk, below total_chunks' }),
  total_chunks: Type.String({ pattern: '^[1-9][0-9]{0,5}$', description: 'number of chunks of the file (1..UPLOAD_MAX_CHUNKS)' }),
  filename: FileName,
});
export type ChunkFields = Static<typeof ChunkBody>;

export const MergeBody = Body({
  chunk_id: ChunkId,
  filename: FileName,
  total_chunks: Type.Integer({ minimum: 1, maximum: 100_000, description: 'as given with the chunks' }),
});

export const ChunkIdParam = Type.Object({ chunk_id: ChunkId });
export const StoredNameParam = Type.Object({ stored_name: Type.String({ pattern: STORED_NAME_PATTERN }) });

export const AttachmentRecord = Type.Object({
  id: Type.Integer(),
  type: AttachmentTypeSchema,
  original_name: Type.String({ description: 'the client’s file name, kept as data only' }),
  stored_name: Type.String({ description: 'the generated name the file is stored under' }),
  extension: Type.String(),
  size: Type.Integer({ description: 'bytes' }),
  content_type: Type.String({ description: 'from the extension, checked against the content' }),
  sha256: Type.String({ description: 'SHA-256 of the content, hex' }),
  uploaded_by: Type.Integer({ description: 'id of the administrator who uploaded it' }),
  uploader_name: Type.Union([Type.String(), Type.Null()], {
    description: 'that administrator’s nickname (the username when the nickname is empty); null when the administrator was deleted',
  }),
  created_at: Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }),
  url: Type.String({ description: 'serves the file (bearer token of its uploader or of a holder of attachment.view)' }),
  public_url: Type.Union([Type.String(), Type.Null()], { description: 'images only, when UPLOAD_PUBLIC_IMAGES=true: serves the file without a token' }),
});
export const AttachmentReply = Envelope(AttachmentRecord);
export const AttachmentList = ListEnvelope(AttachmentRecord);
export const AttachmentDeletedReply = Envelope(Type.Object({ id: Type.Integer(), stored_name: Type.String() }));

export const ATTACHMENT_ORDER_FIELDS = ['id', 'created_at', 'size'] as const;
export type AttachmentOrderField = (typeof ATTACHMENT_ORDER_FIELDS)[number];

export const AttachmentQuery = Type.Object({
  ...PagingQuery,
  type: Type.Optional(AttachmentTypeSchema),
  uploaded_by: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
  original_name: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'fuzzy, case-insensitive' })),
  order_by: OrderByQuery(ATTACHMENT_ORDER_FIELDS, 'id:desc'),
});

export const ChunkReceipt = Envelope(Type.Object({
  chunk_id: Type.String(),
  chunk_index: Type.Integer(),
  total_chunks: Type.Integer(),
  size: Type.Integer({ description: 'bytes of this chunk' }),
  sha256: Type.String({ description: 'SHA-256 of this chunk, hex' }),
  duplicate: Type.Boolean({ description: 'true when this chunk had been received already with the same content' }),
  received_count: Type.Integer({ description: 'chunks of this upload held by the server' }),
  complete: Type.Boolean({ description: 'every chunk is held: the upload can be merged' }),
}));

export const UploadStatus = Envelope(Type.Object({
  chunk_id: Type.String(),
  filename: Type.String(),
  total_chunks: Type.Integer(),
  status: Type.String({ enum: ['open', 'merging', 'merged'], description: 'open: receiving chunks; merging: a merge is running; merged: see attachment_id' }),
  received: Type.Array(Type.Integer(), { description: 'indexes held by the server, ascending (empty once merged)' }),
  missing: Type.Array(Type.Integer(), { description: 'indexes still to send, ascending (empty once merged)' }),
  received_bytes: Type.Integer(),
  attachment_id: Type.Union([Type.Integer(), Type.Null()]),
  updated_at: Type.String({ description: 'last activity, YYYY-MM-DD HH:mm:ss; the upload is removed UPLOAD_CHUNK_TTL_HOURS after it' }),
}));
