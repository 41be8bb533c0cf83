// Reads a multipart/form-data request before validation: the one file part streams into a
// pending storage object (size-limited, hashed, optionally probed), the text fields become
// `request.body` (all strings), and the route's strict body schema then validates them like
// any JSON body. Fields may come before or after the file: the file's size limit and content
// checks depend only on its own name (its extension), so nothing waits for later fields.
import type {} from '@fastify/multipart';
import type { FastifyReply, FastifyRequest, preValidationAsyncHookHandler } from 'fastify';
import { AppError } from '../../../platform/http/errors.ts';
import { StorageLimitError, type PendingObject, type Storage } from '../../../platform/storage/index.ts';
import { E } from '../../errors.ts';
import { multipartParserError } from '../../multipart.ts';
import type { ContentProbe } from './attachments.types.ts';
import { msg, type Msg } from '../../../platform/i18n.ts';

export interface ReceivedFile {
  /** The client's name of the file part (base name; only data). */
  fileName: string;
  pending: PendingObject;
  probe: ContentProbe | undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The file part of a multipart upload, once received. */
    receivedFile: ReceivedFile | null;
  }
}

export interface FilePlan {
  maxBytes: number;
  /** What the 413 says. */
  limitDetail: Msg;
  probe?: ContentProbe;
}

export interface MultipartOptions {
  storage: Storage;
  /** The largest file any plan can allow (the parser's own ceiling). */
  ceiling: number;
  /** Decides, from the file part's name and the fields seen so far, how to receive it; throws to refuse it unread. */
  plan: (fileName: string, fields: Readonly<Record<string, string>>) => FilePlan;
}

const FILE_FIELD = 'file';

const invalid = (detail: Msg) => new AppError(E.VALIDATION, { detail });

/** Our error for a failure of the multipart parser, including a file over its limit. */
function mapParserError(err: unknown): unknown {
  if (err instanceof StorageLimitError) return new AppError(E.BODY_TOO_LARGE);
  const code = (err as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return new AppError(E.BODY_TOO_LARGE);
  if (code === 'FST_MP_PREMATURE_CLOSE') return new AppError(E.INVALID_FORMAT, { detail: msg('admin.attachments.bodyEndedEarly') });
  return multipartParserError(err, (c) => (c === 'FST_FILES_LIMIT' ? msg('admin.attachments.oneFilePart') : msg('admin.attachments.tooManyFields')));
}

export function multipartBody(opts: MultipartOptions): preValidationAsyncHookHandler {
  return async function readMultipart(request: FastifyRequest, reply: FastifyReply) {
    if (!request.isMultipart()) {
      throw new AppError(E.UNSUPPORTED_MEDIA_TYPE, { detail: msg('admin.attachments.multipartRequired') });
    }
    const fields: Record<string, string> = {};
    let planned: FilePlan | undefined;
    try {
      const parts = request.parts({
        limits: { fileSize: opts.ceiling + 1, files: 1, fields: 10, parts: 12, fieldSize: 1024, fieldNameSize: 64, headerPairs: 20 },
      });
      for await (const part of parts) {
        const name = part.fieldname;
        if (Object.hasOwn(fields, name) || (name === FILE_FIELD && request.receivedFile)) throw invalid(msg('admin.attachments.fieldRepeated', { name }));
        if (part.type === 'field') {
          if (name === FILE_FIELD) throw invalid(msg('admin.attachments.filePartWithoutFilename'));
          if (part.fieldnameTruncated || part.valueTruncated) throw invalid(msg('admin.attachments.bodyTooLong', { name }));
          fields[name] = String(part.value);
          continue;
        }
        if (name !== FILE_FIELD) throw invalid(msg('admin.attachments.unknownField', { name }));
        planned = opts.plan(part.filename, fields);
        const { probe } = planned;
        const pending = await opts.storage.write(part.file, {
          maxBytes: planned.maxBytes,
          ...(probe ? { onChunk: (chunk: Buffer) => probe.update(chunk) } : {}),
        });
        request.receivedFile = { fileName: part.filename, pending, probe };
      }
    } catch (err) {
      await request.receivedFile?.pending.discard();
      request.receivedFile = null;
      // The rest of the body was not read: end the connection with this response.
      if (!request.raw.complete) reply.header('Connection', 'close');
      if (err instanceof StorageLimitError && planned) throw new AppError(E.BODY_TOO_LARGE, { detail: planned.limitDetail });
      throw mapParserError(err);
    }
    request.body = request.receivedFile ? { ...fields, file: request.receivedFile.fileName } : fields;
  };
}
