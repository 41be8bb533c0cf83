// The storage of this deployment, chosen by STORAGE_DRIVER: the local disk under
// DATA_DIR/uploads (several instances need a shared volume), or an S3-compatible bucket (any
// number of hosts). The S3 driver and the AWS SDK are loaded only when chosen, and the bucket is
// checked before the server starts.
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { LocalStorage } from './local.ts';
import type { Storage } from './storage.ts';

export async function createStorage(config: Config, logger: Logger): Promise<Storage> {
  if (config.STORAGE_DRIVER === 'local') return new LocalStorage(path.join(config.dataDir, 'uploads'));
  const { S3Storage } = await import('./s3.ts');
  return S3Storage.open({
    bucket: config.S3_BUCKET!,
    region: config.S3_REGION,
    endpoint: config.S3_ENDPOINT,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
    credentials: config.S3_ACCESS_KEY_ID && config.S3_SECRET_ACCESS_KEY
      ? { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY }
      : undefined,
    prefix: config.s3Prefix,
    publicEndpoint: config.S3_PUBLIC_ENDPOINT,
    timeoutMs: config.DEPENDENCY_TIMEOUT_MS,
    logger,
  });
}

export * from './storage.ts';
