// What may be uploaded: per-type allow-lists of extensions, each with the content signature
// the bytes must show (a PNG renamed .exe, or a script renamed .png, is refused), and the file
// name rules. The content type recorded and served is the one of the extension, never the
// client's claim. SVG and HTML are not accepted at all (they can carry scripts).
import { TextDecoder } from 'node:util';
import type { AttachmentType } from '../../db/schema.ts';
import { msg, type Msg } from '../../../platform/i18n.ts';

interface Format {
  type: AttachmentType;
  contentType: string;
  /** The first bytes must pass this check. */
  signature?: (head: Buffer) => boolean;
  /** Text: valid UTF-8 without NUL bytes, checked over the whole file. */
  text?: boolean;
  /** Byte strings that must each appear somewhere in the file (OOXML part names). */
  markers?: readonly string[];
}

const at = (head: Buffer, offset: number, bytes: string | number[]) => {
  const want = typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : Buffer.from(bytes);
  return head.length >= offset + want.length && head.subarray(offset, offset + want.length).equals(want);
};

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];
const OLE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
const ZIP = 'PK\x03\x04';
const EBML = [0x1a, 0x45, 0xdf, 0xa3];
/** ISO-BMFF brands of still images (HEIF, AVIF) and camera raw files: not videos. */
const IMAGE_BRANDS = new Set(['avif', 'avis', 'heic', 'heix', 'heim', 'heis', 'mif1', 'msf1', 'crx ']);
/** Top-level atoms a QuickTime file without an ftyp box may start with. */
const QT_ATOMS = ['moov', 'mdat', 'wide', 'free', 'skip', 'pnot'];

const isoVideo = (head: Buffer) => at(head, 4, 'ftyp') && head.length >= 12 && !IMAGE_BRANDS.has(head.toString('latin1', 8, 12));

const FORMATS: Record<string, Format> = {
  png: { type: 'image', contentType: 'image/png', signature: (h) => at(h, 0, PNG) },
  jpg: { type: 'image', contentType: 'image/jpeg', signature: (h) => at(h, 0, JPEG) },
  jpeg: { type: 'image', contentType: 'image/jpeg', signature: (h) => at(h, 0, JPEG) },
  gif: { type: 'image', contentType: 'image/gif', signature: (h) => at(h, 0, 'GIF87a') || at(h, 0, 'GIF89a') },
  webp: { type: 'image', contentType: 'image/webp', signature: (h) => at(h, 0, 'RIFF') && at(h, 8, 'WEBP') },
  pdf: { type: 'document', contentType: 'application/pdf', signature: (h) => at(h, 0, '%PDF-') },
  docx: {
    type: 'document',
    contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    signature: (h) => at(h, 0, ZIP),
    markers: ['[Content_Types].xml', 'word/'],
  },
  xlsx: {
    type: 'document',
    contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    signature: (h) => at(h, 0, ZIP),
    markers: ['[Content_Types].xml', 'xl/'],
  },
  pptx: {
    type: 'document',
    contentType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    signature: (h) => at(h, 0, ZIP),
    markers: ['[Content_Types].xml', 'ppt/'],
  },
  doc: { type: 'document', contentType: 'application/msword', signature: (h) => at(h, 0, OLE) },
  xls: { type: 'document', contentType: 'application/vnd.ms-excel', signature: (h) => at(h, 0, OLE) },
  txt: { type: 'document', contentType: 'text/plain; charset=utf-8', text: true },
  csv: { type: 'document', contentType: 'text/csv; charset=utf-8', text: true },
  mp4: { type: 'video', contentType: 'video/mp4', signature: isoVideo },
  mov: { type: 'video', contentType: 'video/quicktime', signature: (h) => isoVideo(h) || QT_ATOMS.some((a) => at(h, 4, a)) },
  // EBML header whose DocType is webm (Matroska files say matroska).
  webm: { type: 'video', contentType: 'video/webm', signature: (h) => at(h, 0, EBML) && h.subarray(0, 64).includes('webm') },
};

export const EXTENSIONS: Record<AttachmentType, string[]> = {
  image: Object.keys(FORMATS).filter((e) => FORMATS[e]!.type === 'image'),
  document: Object.keys(FORMATS).filter((e) => FORMATS[e]!.type === 'document'),
  video: Object.keys(FORMATS).filter((e) => FORMATS[e]!.type === 'video'),
};

export interface FileFormat {
  extension: string;
  type: AttachmentType;
  contentType: string;
}

/** The format a file name's extension names (case-insensitive), or undefined when it is not accepted. */
export function formatOf(fileName: string): FileFormat | undefined {
  const dot = fileName.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const extension = fileName.slice(dot + 1).toLowerCase();
  const format = Object.hasOwn(FORMATS, extension) ? FORMATS[extension] : undefined;
  return format && { extension, type: format.type, contentType: format.contentType };
}

// Control characters, and the bidirectional controls that can make "photo‮gnp.exe" read as a .png.
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f/\\\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

/** Why a client file name is refused (it is only data, but it must stay a plain base name), or null. */
export function fileNameProblem(name: string): Msg | null {
  if (name.length === 0) return msg('admin.attachments.nameEmpty');
  if (Buffer.byteLength(name, 'utf8') > 255) return msg('admin.attachments.nameTooLong');
  if (name === '.' || name === '..') return msg('admin.attachments.notFileName');
  if (FORBIDDEN.test(name)) return msg('admin.attachments.nameForbiddenCharacters');
  if (name.trim() !== name) return msg('admin.attachments.nameWhiteSpace');
  return null;
}

const HEAD_BYTES = 64;

/**
 * Watches the bytes of a file as they stream past (no buffering beyond a few bytes) and
 * says at the end whether they are what the extension claims.
 */
export class ContentProbe {
  private readonly format: Format;
  private head = Buffer.alloc(0);
  private size = 0;
  private textProblem: Msg | null = null;
  private readonly decoder: TextDecoder | undefined;
  private readonly missing: Set<string>;
  private tail = Buffer.alloc(0);
  private readonly overlap: number;

  constructor(extension: string) {
    const format = FORMATS[extension];
    if (!format) throw new Error(`no format for .${extension}`);
    this.format = format;
    this.decoder = format.text ? new TextDecoder('utf-8', { fatal: true }) : undefined;
    this.missing = new Set(format.markers ?? []);
    this.overlap = Math.max(0, ...[...this.missing].map((m) => m.length - 1));
  }

  update(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.head.length < HEAD_BYTES) this.head = Buffer.concat([this.head, chunk.subarray(0, HEAD_BYTES - this.head.length)]);
    if (this.decoder && !this.textProblem) {
      if (chunk.includes(0)) this.textProblem = msg('admin.attachments.contentNul');
      else {
        try {
          this.decoder.decode(chunk, { stream: true });
        } catch {
          this.textProblem = msg('admin.attachments.contentNotUtf8');
        }
      }
    }
    if (this.missing.size > 0) {
      const window = this.tail.length > 0 ? Buffer.concat([this.tail, chunk]) : chunk;
      for (const m of this.missing) if (window.includes(m, 0, 'latin1')) this.missing.delete(m);
      this.tail = Buffer.from(window.subarray(Math.max(0, window.length - this.overlap)));
    }
  }

  /** null when the content agrees with the extension, else why not. */
  problem(): Msg | null {
    if (this.size === 0) return msg('admin.attachments.fileEmpty');
    if (this.decoder && !this.textProblem) {
      try {
        this.decoder.decode();
      } catch {
        this.textProblem = msg('admin.attachments.contentNotUtf8');
      }
    }
    if (this.textProblem) return this.textProblem;
    if (this.format.signature && !this.format.signature(this.head)) return msg('admin.attachments.contentNotExtension');
    if (this.missing.size > 0) return msg('admin.attachments.contentNotExtension');
    return null;
  }
}
