// The punch queue's storage on the phone: one IndexedDB object store keyed by clientEventId, so
// that waiting punches survive a reload, a closed tab and a phone restart. Falls back to memory
// when IndexedDB cannot be opened (some private modes): the punch is still sent while the tab
// stays open.
import { memoryStore, type Punch, type PunchStore } from './queue.ts';

const DB = 'fieldops-clock';
const STORE = 'punches';

function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error ?? new Error('IndexedDB request failed'));
  });
}

function open(): Promise<IDBDatabase> {
  const r = indexedDB.open(DB, 1);
  r.onupgradeneeded = () => {
    if (!r.result.objectStoreNames.contains(STORE)) r.result.createObjectStore(STORE, { keyPath: 'clientEventId' });
  };
  return request(r);
}

export function idbStore(): PunchStore {
  let db: Promise<IDBDatabase | null> | null = null;
  const fallback = memoryStore();
  const get = () => (db ??= typeof indexedDB === 'undefined' ? Promise.resolve(null) : open().catch(() => null));
  const tx = async <T>(mode: IDBTransactionMode, f: (s: IDBObjectStore) => IDBRequest<T>): Promise<T | undefined> => {
    const d = await get();
    if (!d) return undefined;
    const t = d.transaction(STORE, mode);
    // A write counts once its transaction is committed (durable), not when its request succeeds.
    const done = new Promise<void>((resolve, reject) => {
      t.oncomplete = () => resolve();
      t.onerror = () => reject(t.error ?? new Error('IndexedDB transaction failed'));
      t.onabort = () => reject(t.error ?? new Error('IndexedDB transaction aborted'));
    });
    const result = await request(f(t.objectStore(STORE)));
    await done;
    return result;
  };
  return {
    async all() {
      return (await get()) ? ((await tx('readonly', (s) => s.getAll())) as Punch[]) : fallback.all();
    },
    async put(p) {
      if (await get()) await tx('readwrite', (s) => s.put(p));
      else await fallback.put(p);
    },
    async delete(id) {
      if (await get()) await tx('readwrite', (s) => s.delete(id));
      else await fallback.delete(id);
    },
  };
}
