// A signing secret generated once into DATA_DIR when JWT_SECRET is not configured, so tokens
// survive restarts of a development instance. Production requires JWT_SECRET (see config).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';

export function resolveJwtSecret(configured: string | undefined, dataDir: string, logger: Logger): string {
  if (configured) return configured;
  const file = path.join(dataDir, 'secrets', 'jwt-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const secret = randomBytes(48).toString('base64url');
  try {
    writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
  } catch {
    return readFileSync(file, 'utf8').trim(); // another instance wrote it first
  }
  logger.warn({ file }, 'JWT_SECRET is not set: generated one into the data directory (set JWT_SECRET in production)');
  return secret;
}
