// Builds the real server for a test on a fresh database: a copy of the migrated PGlite
// template, or, when TEST_DATABASE_URL is set (CI's second pass), a new PostgreSQL database
// created for the test and dropped afterwards, with Redis (TEST_REDIS_URL) under a key
// prefix of its own. Instances can share one database to act as a cluster.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { loadConfig } from '../../src/platform/config.ts';
import { buildServer, type Server, type ServerOptions } from '../../src/server.ts';

export const ADMIN_PASSWORD = 'Admin-pass-123';
export const MANAGER_PASSWORD = 'Manager-pass-123';
export const JWT_SECRET = 'test-secret-that-is-long-enough-0123456789';

export const onPostgres = !!process.env.TEST_DATABASE_URL;
export const withRedis = !!process.env.TEST_REDIS_URL;

export interface TestApp extends Server {
  env: Record<string, string>;
  /** Another instance on the same database (and Redis, when configured). */
  sibling(overrides?: Record<string, string>): Promise<TestApp>;
}

let template: Blob | undefined;

export async function createDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = new URL(process.env.TEST_DATABASE_URL!);
  const name = `t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(base.toString(), { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const a = postgres(base.toString(), { max: 1, onnotice: () => {} });
      await a.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}

export async function startApp(overrides: Record<string, string> = {}, opts: ServerOptions = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'fieldops-app-'));
  const cleanups: (() => Promise<void>)[] = [async () => rmSync(dataDir, { recursive: true, force: true })];
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    JWT_SECRET,
    ADMIN_PASSWORD,
    MANAGER_PASSWORD,
    CAPTCHA_ENABLED: 'false',
    LOG_LEVEL: 'silent',
    AUTH_RATE_LIMIT: '100000',
    TIMECLOCK_RATE_LIMIT_AUTH: '100000',
    TIMECLOCK_RATE_LIMIT_CLOCK: '100000',
    TIMECLOCK_RATE_LIMIT_LOCATION: '100000',
    TIMECLOCK_RATE_LIMIT_GENERAL: '100000',
    SHUTDOWN_DRAIN_MS: '0',
    ...overrides,
  };
  if (onPostgres && !env.DATABASE_URL) {
    const db = await createDatabase();
    env.DATABASE_URL = db.url;
    cleanups.push(db.drop);
  }
  // An explicit REDIS_URL override (even '') opts out of the shared test Redis.
  if (withRedis && !('REDIS_URL' in overrides)) {
    env.REDIS_URL = process.env.TEST_REDIS_URL!;
    env.REDIS_KEY_PREFIX = `t${randomBytes(5).toString('hex')}:`;
  }
  if (!onPostgres && !template && process.env.PGLITE_TEMPLATE) {
    template = new Blob([readFileSync(process.env.PGLITE_TEMPLATE)]);
  }
  const server = await buildServer(loadConfig(env), {
    ...opts,
    ...(onPostgres ? {} : { inMemoryDatabase: true, ...(template ? { pgliteTemplate: template } : {}) }),
  });
  const close = server.close.bind(server);
  return {
    ...server,
    env,
    async close() {
      await close();
      for (const c of cleanups.reverse()) await c();
    },
    async sibling(more = {}) {
      if (!onPostgres) throw new Error('siblings need a shared PostgreSQL (TEST_DATABASE_URL)');
      const sharedEnv = { ...env, DATA_DIR: mkdtempSync(path.join(tmpdir(), 'fieldops-app-')), ...more };
      const s = await buildServer(loadConfig(sharedEnv));
      return { ...s, env: sharedEnv, sibling: () => Promise.reject(new Error('nested sibling')) };
    },
  };
}

/** The ways several instances share state: Redis pub/sub, or PostgreSQL LISTEN/NOTIFY without Redis. */
export const CLUSTER_MODES = [
  { mode: 'redis', label: 'PostgreSQL and Redis', overrides: {} as Record<string, string> },
  { mode: 'postgres-notify', label: 'PostgreSQL without Redis', overrides: { REDIS_URL: '' } as Record<string, string> },
] as const;

/** Why a cluster mode cannot run here, or false. */
export function clusterSkip(mode: (typeof CLUSTER_MODES)[number]['mode']): string | false {
  if (!onPostgres) return 'needs PostgreSQL (TEST_DATABASE_URL)';
  if (mode === 'redis' && !withRedis) return 'needs Redis (TEST_REDIS_URL)';
  return false;
}

/** Polls `probe` every 25 ms until it returns a value; that value and the time taken, or null after `limitMs`. */
export async function within<T>(limitMs: number, probe: () => Promise<T | undefined>): Promise<{ value: T; ms: number } | null> {
  const start = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined) return { value, ms: Date.now() - start };
    if (Date.now() - start > limitMs) return null;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
