// Planning and resuming chunked uploads, without a browser: how a file is cut into chunks,
// which type its extension makes it, and the record of an unfinished upload kept in
// localStorage so that, after a reload, picking the same file again continues it (only the
// chunks the server says are missing are sent) instead of starting over.

export type AttachmentType = 'image' | 'document' | 'video';

/** The server's allow-lists (docs/API.md, "Uploads"): the extension decides the type. */
export const EXTENSIONS: Record<AttachmentType, readonly string[]> = {
  image: ['png', 'jpg', 'jpeg', 'gif', 'webp'],
  document: ['pdf', 'docx', 'xlsx', 'pptx', 'doc', 'xls', 'txt', 'csv'],
  video: ['mp4', 'mov', 'webm'],
};

export const ACCEPT = Object.values(EXTENSIONS).flat().map((e) => `.${e}`).join(',');

export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot + 1).toLowerCase();
}

/** The attachment type of a file name, or null when its extension is not accepted. */
export function typeOf(name: string): AttachmentType | null {
  const ext = extensionOf(name);
  for (const [type, exts] of Object.entries(EXTENSIONS) as [AttachmentType, readonly string[]][]) if (exts.includes(ext)) return type;
  return null;
}

/** The server's default UPLOAD_CHUNK_MAX_BYTES is 10 MiB: 5 MiB chunks stay well below it. */
export const DEFAULT_CHUNK_BYTES = 5 * 1024 * 1024;
/** Files above this size are sent in chunks (pausable, resumable) rather than in one request. */
export const CHUNKED_ABOVE_BYTES = 20 * 1024 * 1024;
export const MIN_CHUNK_BYTES = 1024;
export const MAX_CHUNK_BYTES = 10 * 1024 * 1024;
/** The server's default UPLOAD_MAX_CHUNKS. */
export const MAX_CHUNKS = 10_000;

/** localStorage key of the chunk size setting (bytes), for small chunks in tests or slow links. */
export const CHUNK_SIZE_KEY = 'fieldops.admin.upload.chunkBytes';
/** localStorage key of the unfinished uploads. */
export const PENDING_KEY = 'fieldops.admin.upload.pending';

export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** The chunk size: the stored setting when it is a sensible number, else the default. */
export function chunkBytesFrom(store: Pick<KeyValueStore, 'getItem'>): number {
  const n = Number(store.getItem(CHUNK_SIZE_KEY));
  return Number.isInteger(n) && n >= MIN_CHUNK_BYTES && n <= MAX_CHUNK_BYTES ? n : DEFAULT_CHUNK_BYTES;
}

export interface Chunk {
  index: number;
  start: number;
  /** Exclusive. */
  end: number;
}

/** The chunks of a file of `size` bytes; grown when more than MAX_CHUNKS would be needed. An empty file is one empty chunk. */
export function planChunks(size: number, chunkBytes: number): { chunkBytes: number; chunks: Chunk[] } {
  if (!Number.isFinite(size) || size < 0) throw new RangeError('size must be a non-negative number');
  if (!Number.isInteger(chunkBytes) || chunkBytes < 1) throw new RangeError('chunkBytes must be a positive integer');
  let bytes = chunkBytes;
  if (Math.ceil(size / bytes) > MAX_CHUNKS) bytes = Math.ceil(size / MAX_CHUNKS);
  const total = Math.max(1, Math.ceil(size / bytes));
  const chunks = Array.from({ length: total }, (_, index) => ({ index, start: index * bytes, end: Math.min(size, (index + 1) * bytes) }));
  return { chunkBytes: bytes, chunks };
}

/** A chunk_id for the server: 8–64 of A-Za-z0-9_- (here 32 hex digits). */
export function newChunkId(random: () => string = () => crypto.randomUUID()): string {
  return random().replaceAll('-', '').slice(0, 32);
}
export const CHUNK_ID = /^[A-Za-z0-9_-]{8,64}$/;

/** What identifies a file picked again after a reload (its content is not read). */
export interface FileIdentity {
  name: string;
  size: number;
  lastModified: number;
}

/** An unfinished chunked upload, as remembered in localStorage. */
export interface PendingUpload extends FileIdentity {
  chunkId: string;
  totalChunks: number;
  chunkBytes: number;
  /** When it was started, ms since the epoch (old records are forgotten). */
  startedAt: number;
}

/** The server removes an upload this long after its last chunk (UPLOAD_CHUNK_TTL_HOURS default). */
export const PENDING_TTL_MS = 24 * 3600 * 1000;

function valid(p: unknown): p is PendingUpload {
  if (!p || typeof p !== 'object') return false;
  const r = p as Record<string, unknown>;
  return typeof r.chunkId === 'string' && CHUNK_ID.test(r.chunkId) && typeof r.name === 'string'
    && Number.isInteger(r.size) && typeof r.lastModified === 'number' && Number.isInteger(r.totalChunks) && (r.totalChunks as number) >= 1
    && Number.isInteger(r.chunkBytes) && (r.chunkBytes as number) >= 1 && typeof r.startedAt === 'number';
}

/** The unfinished uploads remembered, without malformed or expired records. */
export function loadPending(store: KeyValueStore, now = Date.now()): PendingUpload[] {
  try {
    const raw = JSON.parse(store.getItem(PENDING_KEY) ?? '[]') as unknown;
    return Array.isArray(raw) ? raw.filter(valid).filter((p) => now - p.startedAt < PENDING_TTL_MS) : [];
  } catch {
    return [];
  }
}

function write(store: KeyValueStore, list: PendingUpload[]): void {
  if (list.length === 0) store.removeItem(PENDING_KEY);
  else store.setItem(PENDING_KEY, JSON.stringify(list));
}

export const sameFile = (a: FileIdentity, b: FileIdentity): boolean => a.name === b.name && a.size === b.size && a.lastModified === b.lastModified;

/** Remembers an upload (replacing any earlier record of the same file). */
export function savePending(store: KeyValueStore, upload: PendingUpload, now = Date.now()): void {
  write(store, [...loadPending(store, now).filter((p) => p.chunkId !== upload.chunkId && !sameFile(p, upload)), upload]);
}

export function forgetPending(store: KeyValueStore, chunkId: string, now = Date.now()): void {
  write(store, loadPending(store, now).filter((p) => p.chunkId !== chunkId));
}

/** The remembered upload of this very file, if any. */
export function findPending(store: KeyValueStore, file: FileIdentity, now = Date.now()): PendingUpload | undefined {
  return loadPending(store, now).find((p) => sameFile(p, file));
}

/** A new record for `file`, planned with `chunkBytes`. */
export function startPending(file: FileIdentity, chunkBytes: number, now = Date.now(), chunkId = newChunkId()): PendingUpload {
  const plan = planChunks(file.size, chunkBytes);
  return { name: file.name, size: file.size, lastModified: file.lastModified, chunkId, totalChunks: plan.chunks.length, chunkBytes: plan.chunkBytes, startedAt: now };
}

/** The chunks of a remembered upload still to send, from the server's `missing` list (unknown indexes ignored). */
export function chunksToSend(upload: PendingUpload, missing: readonly number[]): Chunk[] {
  const { chunks } = planChunks(upload.size, upload.chunkBytes);
  if (chunks.length !== upload.totalChunks) throw new RangeError('the remembered plan does not match the file');
  const wanted = new Set(missing);
  return chunks.filter((c) => wanted.has(c.index));
}

/** Bytes the server holds, from the chunks it does not miss. */
export function bytesDone(upload: PendingUpload, missing: readonly number[]): number {
  const { chunks } = planChunks(upload.size, upload.chunkBytes);
  const gone = new Set(missing);
  return chunks.filter((c) => !gone.has(c.index)).reduce((sum, c) => sum + (c.end - c.start), 0);
}

/** Whole percent, 0..100 (100 only when done). */
export function percent(done: number, total: number): number {
  if (total <= 0) return done >= total ? 100 : 0;
  const p = Math.floor((done / total) * 100);
  return done >= total ? 100 : Math.min(99, Math.max(0, p));
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u += 1;
  }
  return `${v >= 100 ? v.toFixed(0) : v.toFixed(1)} ${units[u]}`;
}
