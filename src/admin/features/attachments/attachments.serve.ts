// Sending a stored attachment: safe headers (the content type of its checked extension,
// nosniff, a sandboxing CSP, RFC 6266 Content-Disposition with an RFC 5987 UTF-8 name and an
// ASCII fallback), an ETag from its SHA-256 (304 on If-None-Match), and single byte ranges
// (206) so that videos can be played and downloads resumed.
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ByteRange } from '../../../platform/storage/index.ts';
import type { AttachmentRow } from '../../db/schema.ts';
import type { AttachmentsService } from './attachments.service.ts';

/** `attachment` or `inline` with `filename` (ASCII, unsafe characters replaced) and `filename*` (UTF-8, percent-encoded). */
export function contentDisposition(kind: 'attachment' | 'inline', name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%;]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/**
 * The one range of a `Range: bytes=...` header that can be served, or undefined (no header,
 * several ranges, another unit or an unsatisfiable range: the whole file is sent, which
 * RFC 9110 allows).
 */
export function parseRange(header: string | undefined, size: number): ByteRange | undefined {
  const m = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '') || size === 0) return undefined;
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return undefined;
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (!Number.isSafeInteger(start) || start > end || start >= size) return undefined;
  return { start, end };
}

export async function sendAttachment(
  service: AttachmentsService,
  request: FastifyRequest,
  reply: FastifyReply,
  row: AttachmentRow,
  cacheControl: string,
): Promise<FastifyReply> {
  const { size } = row;
  const etag = `"${row.sha256}"`;
  reply
    .header('ETag', etag)
    .header('Cache-Control', cacheControl)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Content-Security-Policy', "default-src 'none'; sandbox")
    .header('Accept-Ranges', 'bytes');
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch && (ifNoneMatch.trim() === '*' || ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === etag))) {
    return reply.status(304).send();
  }
  const ifRange = request.headers['if-range'];
  const range = ifRange === undefined || ifRange === etag ? parseRange(request.headers.range, size) : undefined;
  const body = await service.open(row, range);
  reply
    .header('Content-Type', row.contentType)
    .header('Content-Disposition', contentDisposition(row.type === 'image' ? 'inline' : 'attachment', row.originalName));
  if (range) {
    reply.status(206).header('Content-Range', `bytes ${range.start}-${range.end}/${size}`).header('Content-Length', String(range.end - range.start + 1));
  } else {
    reply.header('Content-Length', String(size));
  }
  if (request.method === 'HEAD') {
    // Fastify's HEAD route drains a stream body and keeps Content-Length: give it an empty one, not the file.
    body.destroy();
    return reply.send(Readable.from([]));
  }
  return reply.send(body);
}
