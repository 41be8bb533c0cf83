// The storage of this deployment: the local disk under DATA_DIR/uploads (a shared volume when
// several instances run). An object store would be chosen here.
import path from 'node:path';
import { LocalStorage } from './local.ts';
import type { Storage } from './storage.ts';

export function createStorage(dataDir: string): Storage {
  return new LocalStorage(path.join(dataDir, 'uploads'));
}

export * from './storage.ts';
