// Files as the attachments API takes them: contents with the signature of their type, multipart
// bodies written by hand (so that tests control every byte), and the chunked upload's requests.
import { createHash, randomBytes } from 'node:crypto';
import type { TestApp } from './app.ts';
import { call, type Reply } from './http.ts';

export const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
/** `size` bytes: `head`, then random ones. */
export const bytes = (head: string | number[], size: number) => {
  const h = typeof head === 'string' ? Buffer.from(head, 'latin1') : Buffer.from(head);
  return Buffer.concat([h, randomBytes(size - h.length)]);
};
const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
export const png = (size = 1000) => bytes(PNG, size);
export const pdf = (size: number) => bytes('%PDF-1.7\n', size);
export const split = (data: Buffer, size: number) => Array.from({ length: Math.ceil(data.length / size) }, (_, i) => data.subarray(i * size, (i + 1) * size));
export const newChunkId = () => `up_${randomBytes(8).toString('hex')}`;

export type Part = { name: string; value: string } | { name: string; filename: string; data: Buffer; type?: string };

/** A multipart/form-data body. */
export function form(parts: Part[]): { payload: Buffer; contentType: string } {
  const boundary = `----test${randomBytes(8).toString('hex')}`;
  const out: Buffer[] = [];
  for (const p of parts) {
    out.push(Buffer.from(`--${boundary}\r\n`));
    if ('value' in p) {
      out.push(Buffer.from(`Content-Disposition: form-data; name="${p.name}"\r\n\r\n${p.value}\r\n`));
    } else {
      out.push(Buffer.from(`Content-Disposition: form-data; name="${p.name}"; filename="${p.filename.replace(/[\\"]/g, (c) => `\\${c}`)}"\r\nContent-Type: ${p.type ?? 'application/octet-stream'}\r\n\r\n`));
      out.push(p.data, Buffer.from('\r\n'));
    }
  }
  out.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(out), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** POST of `parts` to the admin API's `url` (under /api/admin). */
export function postForm(on: TestApp, url: string, token: string, parts: Part[], headers: Record<string, string> = {}): Promise<Reply> {
  const { payload, contentType } = form(parts);
  return call(on, 'POST', `/api/admin${url}`, { token, payload, headers: { ...headers, 'content-type': contentType } });
}

export interface Chunk {
  chunk_id: string;
  index: number;
  total: number;
  filename: string;
  data: Buffer;
}

export function chunkParts(c: Chunk): Part[] {
  return [
    { name: 'chunk_id', value: c.chunk_id },
    { name: 'chunk_index', value: String(c.index) },
    { name: 'total_chunks', value: String(c.total) },
    { name: 'filename', value: c.filename },
    { name: 'file', filename: 'blob', data: c.data },
  ];
}
