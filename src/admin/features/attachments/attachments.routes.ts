// Uploads (issue 5): single uploads, chunked uploads (chunk, status, merge), and serving the
// files. Upload routes need `attachment.upload`; a file is served to its uploader and to
// holders of `attachment.view` (which also lists every attachment); images are also served
// without a token at an unguessable public URL when UPLOAD_PUBLIC_IMAGES=true.
// Multipart parsing is registered here only (encapsulated): see attachments.multipart.ts.
import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Readable } from 'node:stream';
import { Type } from 'typebox';
import { AppError } from '../../../platform/http/errors.ts';
import { formatDisplay } from '../../../platform/time.ts';
import type { FeatureOptions } from '../../context.ts';
import { audited } from '../../kernel/audit.ts';
import { everyRow } from '../../kernel/data-scope.ts';
import { E } from '../../errors.ts';
import type { Principal } from '../../kernel/guard.ts';
import { ErrorEnvelope, IdParam, ok, okList } from '../../http.ts';
import { multipartBody } from './attachments.multipart.ts';
import {
  AttachmentList,
  AttachmentQuery,
  AttachmentReply,
  ChunkBody,
  AttachmentDeletedReply,
  ChunkIdParam,
  ChunkReceipt,
  MergeBody,
  StoredNameParam,
  UploadBody,
  UploadStatus,
} from './attachments.schema.ts';
import { contentDisposition, sendAttachment } from './attachments.serve.ts';
import { renderAttachment } from './attachments.view.ts';
import type { AttachmentView } from './attachments.service.ts';
import { msg } from '../../../platform/i18n.ts';

const tags = ['Attachments'];
const ATTACHMENT_VIEW = 'attachment.view';
const FileBody = Type.Unsafe<Readable>({ type: 'string', format: 'binary', description: 'the file, with its content type' });
const uploadErrors = { 404: ErrorEnvelope, 413: ErrorEnvelope, 415: ErrorEnvelope };
const fileErrors = { 404: ErrorEnvelope };

export const attachmentsRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const { config } = ctx.platform;
  const tz = config.DISPLAY_TIMEZONE;
  const prefix = app.prefix;
  const service = ctx.attachments;
  const { storage } = service;

  await app.register(multipart, { throwFileSizeLimit: false });
  app.decorateRequest('receivedFile', null);
  // A received file that the handler did not keep (validation failed, an error) is dropped.
  app.addHook('onResponse', async (request) => {
    await request.receivedFile?.pending.discard();
  });
  app.addHook('onReady', async () => service.start());
  app.addHook('onClose', async () => service.stop());

  const record = (r: AttachmentView) => renderAttachment(r, { tz, prefix, publicImages: config.UPLOAD_PUBLIC_IMAGES });
  const audit = audited('attachment', async (id) => record(await service.get(id, everyRow)));

  const visible = async (caller: Principal, id: number) => {
    const row = await service.get(id, caller.scope);
    if (row.uploadedBy !== caller.adminId && !caller.isSuper && !caller.permissions.has(ATTACHMENT_VIEW)) {
      throw new AppError(E.NO_PERMISSION, { detail: msg('admin.attachments.uploadedByAnother', { id }) });
    }
    return row;
  };

  app.post('/attachments/upload', {
    config: { permission: 'attachment.upload', audit },
    schema: {
      tags,
      summary: 'Upload a file',
      description: [
        'multipart/form-data with a `file` part and a `type` field (`image`, `document` or `video`), in either order.',
        'The file name’s extension must be one of the type’s; the content must match it (signature; text must be UTF-8 without NUL bytes; docx/xlsx/pptx must be Office Open XML packages).',
        'Refused types or content: 400 40005. Larger than the type’s limit (UPLOAD_MAX_IMAGE_BYTES, UPLOAD_MAX_DOCUMENT_BYTES, UPLOAD_MAX_VIDEO_BYTES): 413 30005, nothing is kept.',
        'Not multipart: 415 30006. The file is stored under a generated name; the client’s name is kept as `original_name` only.',
      ].join(' '),
      consumes: ['multipart/form-data'],
      body: UploadBody,
      response: { 200: AttachmentReply, ...uploadErrors },
    },
    preValidation: multipartBody({ storage, ceiling: service.uploadCeiling, plan: (name, fields) => service.planUpload(name, fields) }),
  }, async (request) => {
    const row = await service.saveUpload(request.admin!.adminId, request.body.type, request.receivedFile!);
    // Read back with its uploader's name, as the list and the detail answer it.
    return ok(request, record(await service.get(row.id, request.admin!.scope)));
  });

  app.post('/attachments/chunk', {
    config: { permission: 'attachment.upload' },
    schema: {
      tags,
      summary: 'Upload one chunk of a file',
      description: [
        'multipart/form-data: `file` (the chunk’s bytes, at most UPLOAD_CHUNK_MAX_BYTES), `chunk_id`, `chunk_index` (0-based), `total_chunks`, `filename` (the whole file’s name; its extension decides the type).',
        'The first chunk of a `chunk_id` opens the upload for the caller; another administrator using that `chunk_id` gets 403.',
        'Chunks may come in any order; sending a chunk again with the same content is accepted (`duplicate: true`); with different content it is refused (400 40005) — start a new `chunk_id` instead.',
        'Every chunk must repeat the same `filename` and `total_chunks`. When the chunks held would exceed the type’s size limit: 413.',
        'An upload left without a new chunk for UPLOAD_CHUNK_TTL_HOURS is removed.',
      ].join(' '),
      consumes: ['multipart/form-data'],
      body: ChunkBody,
      response: { 200: ChunkReceipt, ...uploadErrors },
    },
    preValidation: multipartBody({ storage, ceiling: config.UPLOAD_CHUNK_MAX_BYTES, plan: () => service.planChunk() }),
  }, async (request) => ok(request, await service.receiveChunk(request.admin!.adminId, request.body, request.receivedFile!)));

  app.get('/attachments/chunk/:chunk_id', {
    config: { permission: 'attachment.upload' },
    schema: {
      tags,
      summary: 'Which chunks of an upload the server holds',
      description: 'For resuming an interrupted upload: send the `missing` indexes, then merge. Only the upload’s owner may ask (403); an unknown or expired `chunk_id` is 404 30003.',
      params: ChunkIdParam,
      response: { 200: UploadStatus, 404: ErrorEnvelope },
    },
  }, async (request) => {
    const s = await service.state(request.admin!.adminId, request.params.chunk_id);
    return ok(request, { ...s, updated_at: formatDisplay(s.updated_at, tz)! });
  });

  app.post('/attachments/merge', {
    config: { permission: 'attachment.upload', audit },
    schema: {
      tags,
      summary: 'Assemble an uploaded file from its chunks',
      description: [
        '`filename` and `total_chunks` must be those given with the chunks. Every chunk must be held, otherwise 400 40005 naming the missing indexes.',
        'The chunks are assembled in order by streaming, each checked against the size and SHA-256 recorded when it arrived (a damaged one is dropped and named: send it again); the content is checked as for a single upload (refused content removes the upload), the attachment recorded, and the chunks removed.',
        'Merging again, or concurrently (from any instance), answers the same attachment: one file is produced.',
      ].join(' '),
      body: MergeBody,
      response: { 200: AttachmentReply, ...uploadErrors },
    },
  }, async (request) => ok(request, record(await service.get((await service.merge(request.admin!.adminId, request.body)).id, request.admin!.scope))));

  app.get('/attachments', {
    config: { permission: ATTACHMENT_VIEW },
    schema: {
      tags,
      summary: 'List attachments',
      description: 'Every attachment, paged; `original_name` is fuzzy. Holders of `attachment.view` may also read and download any attachment.',
      querystring: AttachmentQuery,
      response: { 200: AttachmentList },
    },
  }, async (request) => {
    const { rows, total } = await service.list(request.query, request.admin!.scope);
    return okList(request, rows.map(record), request.query, total);
  });

  app.get('/attachments/:id', {
    config: { auth: 'self' },
    schema: {
      tags,
      summary: 'One attachment’s record',
      description: `Its uploader and holders of \`${ATTACHMENT_VIEW}\` may read it (otherwise 403 20001).`,
      params: IdParam,
      response: { 200: AttachmentReply, ...fileErrors },
    },
  }, async (request) => ok(request, record(await visible(request.admin!, request.params.id))));

  app.get('/attachments/:id/download', {
    config: { auth: 'self' },
    schema: {
      tags,
      summary: 'Download an attachment',
      description: [
        `Its uploader and holders of \`${ATTACHMENT_VIEW}\` may download it (otherwise 403 20001).`,
        'Sent with the content type of its extension, `X-Content-Type-Options: nosniff`, a sandboxing Content-Security-Policy and `Content-Disposition` (`inline` for images, `attachment` otherwise) carrying the original name (RFC 6266 / RFC 5987).',
        'Supports `Range: bytes=a-b` (206), `ETag` (the SHA-256) with `If-None-Match` (304).',
        'When the server stores files in S3 with `S3_PUBLIC_ENDPOINT` set, the answer is instead a 302 to a presigned URL of the store, valid for a minute, issued after the same access check;',
        'the store then answers with the same Content-Type and Content-Disposition, and with ranges.',
      ].join(' '),
      params: IdParam,
      response: { 200: FileBody, 206: FileBody, ...fileErrors },
    },
  }, async (request, reply) => {
    const row = await visible(request.admin!, request.params.id);
    const url = await service.presigned(row, contentDisposition(row.type === 'image' ? 'inline' : 'attachment', row.originalName));
    if (url) return reply.header('Cache-Control', 'no-store').redirect(url, 302);
    return sendAttachment(service, request, reply, row, 'private, no-cache');
  });

  app.delete('/attachments/:id', {
    config: { permission: 'attachment.delete', audit },
    schema: {
      tags,
      summary: 'Delete an attachment and its file',
      description: [
        'Removes the record and the stored file; its addresses then answer 404.',
        'Refused with 400 40002 while a record still uses the file by its `url` or `public_url`',
        '(an administrator’s avatar, a payment method’s configuration): `details.admin_ids`, `details.payment_method_ids` name them.',
      ].join(' '),
      params: IdParam,
      response: { 200: AttachmentDeletedReply, 400: ErrorEnvelope, ...fileErrors },
    },
  }, async (request) => {
    const row = await service.remove(request.params.id, request.admin!.scope);
    return ok(request, { id: row.id, stored_name: row.storedName });
  });

  app.get('/attachments/public/:stored_name', {
    config: { auth: 'public' },
    schema: {
      tags,
      summary: 'An image attachment, without a token',
      description: [
        'Only when UPLOAD_PUBLIC_IMAGES=true, and only images: anything else is 404. The address is the `public_url` of the attachment (its unguessable stored name).',
        'Always sent by the server, with S3 storage too (no presigned redirect): the answer is cacheable for a day, which a presigned URL, new at every request, would defeat.',
      ].join(' '),
      params: StoredNameParam,
      response: { 200: FileBody, 206: FileBody, 400: ErrorEnvelope, 404: ErrorEnvelope },
    },
  }, async (request, reply) => {
    const row = config.UPLOAD_PUBLIC_IMAGES ? await service.findByStoredName(request.params.stored_name) : undefined;
    if (!row || row.type !== 'image') throw new AppError(E.DATA_NOT_FOUND, { detail: msg('admin.attachments.publicImageNotFound') });
    return sendAttachment(service, request, reply, row, 'public, max-age=86400');
  });
};
