// Sending files with upload progress: XMLHttpRequest (fetch reports no upload progress) with
// the session's bearer token, and the chunked upload runner (pause, resume, resume after a
// reload from the server's list of missing chunks). The planning itself is in upload.ts.
import { api, unwrap } from '../../api/client.ts';
import { apiErrorOf, ApiError, networkError, type Envelope } from '../../api/errors.ts';
import { getSession, setSession } from '../../api/session.ts';
import i18n from '../../i18n/index.ts';
import { bytesDone, chunksToSend, forgetPending, savePending, startPending, findPending, type KeyValueStore, type PendingUpload } from './upload.ts';

export class Aborted extends Error {
  override name = 'Aborted';
}

/** POSTs multipart `form` to `path`; `onProgress(sentBytes)`; `signal` aborts it (rejects with Aborted). */
export function postForm<T>(path: string, form: FormData, onProgress?: (sent: number) => void, signal?: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal?.aborted) {
      reject(new Aborted());
      return;
    }
    const xhr = new XMLHttpRequest();
    xhr.open('POST', path);
    const session = getSession();
    if (session) xhr.setRequestHeader('authorization', `Bearer ${session.token}`);
    xhr.setRequestHeader('accept-language', i18n.language);
    xhr.setRequestHeader('x-trace-id', crypto.randomUUID().replaceAll('-', ''));
    xhr.responseType = 'json';
    if (onProgress) xhr.upload.onprogress = (e) => onProgress(e.loaded);
    const onAbort = () => xhr.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    xhr.onabort = () => reject(new Aborted());
    xhr.onerror = () => reject(networkError(new Error('network error')));
    xhr.onload = () => {
      signal?.removeEventListener('abort', onAbort);
      const body = xhr.response as Envelope<T> | null;
      if (xhr.status >= 200 && xhr.status < 300 && body && typeof body === 'object') {
        resolve(body.data);
        return;
      }
      const err = apiErrorOf(xhr.status, body, xhr.getResponseHeader('x-trace-id'));
      if (err.sessionEnded && getSession()) setSession(null, err.code === 10003 ? 'expired' : err.code === 10004 ? 'revoked' : 'invalid');
      reject(err);
    };
    xhr.send(form);
  });
}

export interface Progress {
  /** Bytes the server holds (finished chunks) plus the bytes of the chunk in flight. */
  sent: number;
  total: number;
}

export type Attachment = Awaited<ReturnType<typeof mergeUpload>>;

const mergeUpload = (u: PendingUpload) =>
  unwrap(api.POST('/api/admin/attachments/merge', { body: { chunk_id: u.chunkId, filename: u.name, total_chunks: u.totalChunks } }));

/**
 * One chunked upload of `file`: continues the remembered upload of the same file when the
 * server still holds it, else starts a new one (remembered in `store` until merged).
 */
export class ChunkedUpload {
  readonly file: File;
  upload: PendingUpload | undefined;
  /** True when it continued an upload started earlier (another page load). */
  resumed = false;
  private controller: AbortController | null = null;
  private readonly store: KeyValueStore;
  private readonly chunkBytes: number;
  private readonly onProgress: (p: Progress) => void;
  constructor(file: File, store: KeyValueStore, chunkBytes: number, onProgress: (p: Progress) => void) {
    this.file = file;
    this.store = store;
    this.chunkBytes = chunkBytes;
    this.onProgress = onProgress;
  }

  /** Sends what is missing, then merges. Rejects with Aborted when paused. */
  async run(): Promise<Attachment> {
    const controller = new AbortController();
    this.controller = controller;
    let upload = this.upload ?? findPending(this.store, this.file);
    let missing: number[];
    if (upload) {
      try {
        const state = await unwrap(api.GET('/api/admin/attachments/chunk/{chunk_id}', { params: { path: { chunk_id: upload.chunkId } } }));
        if (state.status === 'merged' && state.attachment_id !== null) missing = [];
        else missing = state.missing;
        if (!this.upload) this.resumed = missing.length < upload.totalChunks;
      } catch (err) {
        // Gone (expired, swept) or not ours: start again.
        if (!(err instanceof ApiError) || (err.status !== 404 && err.status !== 403)) throw err;
        forgetPending(this.store, upload.chunkId);
        upload = undefined;
        missing = [];
      }
    } else missing = [];
    if (!upload) {
      upload = startPending(this.file, this.chunkBytes);
      savePending(this.store, upload);
      missing = Array.from({ length: upload.totalChunks }, (_, i) => i);
    }
    this.upload = upload;
    let done = bytesDone(upload, missing);
    this.onProgress({ sent: done, total: upload.size });
    for (const chunk of chunksToSend(upload, missing)) {
      if (controller.signal.aborted) throw new Aborted();
      const form = new FormData();
      form.append('chunk_id', upload.chunkId);
      form.append('chunk_index', String(chunk.index));
      form.append('total_chunks', String(upload.totalChunks));
      form.append('filename', upload.name);
      form.append('file', this.file.slice(chunk.start, chunk.end), upload.name);
      const base = done;
      const size = chunk.end - chunk.start;
      await postForm('/api/admin/attachments/chunk', form, (n) => this.onProgress({ sent: base + Math.min(n, size), total: upload.size }), controller.signal);
      done += size;
      this.onProgress({ sent: done, total: upload.size });
    }
    if (controller.signal.aborted) throw new Aborted();
    const attachment = await mergeUpload(upload);
    forgetPending(this.store, upload.chunkId);
    return attachment;
  }

  pause(): void {
    this.controller?.abort();
  }
}
