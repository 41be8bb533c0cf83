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

/** How long one app may take to start before startApp gives up (a slow cold start on a loaded
 * machine takes seconds, not minutes). Below the runner's --test-timeout (package.json), so that
 * a start that hangs fails its hook with this message, and is closed if it ever completes.
 * TEST_STARTUP_LIMIT_MS sets another. */
export const STARTUP_LIMIT_MS = Number(process.env.TEST_STARTUP_LIMIT_MS) || 90_000;

interface Closable {
  close(): Promise<unknown>;
}

/** `starting`, or an error after STARTUP_LIMIT_MS; a start that completes after that is closed. */
async function startedWithin<T extends Closable>(what: string, starting: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not start within ${STARTUP_LIMIT_MS} ms`)), STARTUP_LIMIT_MS);
  });
  try {
    return await Promise.race([starting, limit]);
  } catch (err) {
    starting.then((late) => late.close()).catch(() => {});
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Closes each of `items` in turn (missing ones, from a `before` that failed half-way, are
 * skipped), every one even when another fails; then throws what failed. Siblings go before the
 * instance that owns the database: list them first.
 */
export async function closeAll(...items: (Closable | null | undefined)[]): Promise<void> {
  const errors: unknown[] = [];
  for (const item of items) {
    try {
      await item?.close();
    } catch (err) {
      errors.push(err);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, `${errors.length} closes failed`);
}

/**
 * Runs `starts` at once. If one fails, those that did start are closed before its error is
 * rethrown, so that no server is left running (and keeping the test process alive) unowned.
 */
export async function startAll<T extends Closable>(starts: readonly (() => Promise<T>)[]): Promise<T[]> {
  const results = await Promise.allSettled(starts.map((start) => start()));
  const started: T[] = [];
  const errors: unknown[] = [];
  for (const r of results) {
    if (r.status === 'fulfilled') started.push(r.value);
    else errors.push(r.reason);
  }
  if (errors.length === 0) return started;
  await closeAll(...started.reverse()).catch(() => {});
  throw errors.length === 1 ? errors[0] : new AggregateError(errors, `${errors.length} of ${starts.length} starts failed`);
}

/** One app per entry of `overrides`, started at once; if one fails, the others are closed (startAll). */
export function startApps<const T extends readonly Record<string, string>[]>(
  overrides: T,
  opts: ServerOptions = {},
): Promise<{ -readonly [K in keyof T]: TestApp }> {
  return startAll(overrides.map((o) => () => startApp(o, opts))) as Promise<{ -readonly [K in keyof T]: TestApp }>;
}

/** An app and a sibling on its database; if the sibling fails to start, the app is closed. */
export async function startWithSibling(overrides: Record<string, string> = {}, siblingOverrides: Record<string, string> = {}): Promise<[TestApp, TestApp]> {
  const one = await startApp(overrides);
  try {
    return [one, await one.sibling(siblingOverrides)];
  } catch (err) {
    await one.close().catch(() => {});
    throw err;
  }
}

/**
 * The services a test file's apps run unless it says (SERVICES): the one its folder tests
 * (test/admin/, test/timeclock/), both elsewhere. A start is then about half as costly: the
 * other service's routes, schemas and migrations are not built. Each test file runs in a process
 * of its own (node --test), whose argv[1] is the file.
 */
export function servicesOfTestFile(file = process.argv[1] ?? ''): string {
  const folder = path.relative(path.resolve(import.meta.dirname, '..'), file).split(path.sep)[0];
  return folder === 'admin' ? 'admin' : folder === 'timeclock' ? 'timeclock' : 'admin,timeclock';
}

/**
 * The S3 store of the run when TEST_STORAGE=s3 (test/global-setup.ts), with a prefix of this
 * server's own: its files are its alone, as under its own DATA_DIR (siblings copy the prefix
 * with the rest of the environment, and so share the files).
 */
function storageEnv(): Record<string, string> {
  const s3 = process.env.TEST_S3_ENV;
  return s3 ? { ...(JSON.parse(s3) as Record<string, string>), S3_PREFIX: `t${randomBytes(6).toString('hex')}` } : {};
}

/** The environment of a test server: quiet, fast limits out of the way, `overrides` last. */
export function testEnv(dataDir: string, overrides: Record<string, string> = {}): Record<string, string> {
  return {
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
    // Tests punch in and out back to back; those of the duplicate-punch window set it themselves.
    CLOCK_MIN_INTERVAL_SECONDS: '0',
    SHUTDOWN_DRAIN_MS: '0',
    SERVICES: servicesOfTestFile(),
    ...storageEnv(),
    ...overrides,
  };
}

export function startApp(overrides: Record<string, string> = {}, opts: ServerOptions = {}): Promise<TestApp> {
  return startedWithin('test app', startAppNow(overrides, opts));
}

async function startAppNow(overrides: Record<string, string>, opts: ServerOptions): Promise<TestApp> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'fieldops-app-'));
  const cleanups: (() => Promise<void>)[] = [async () => rmSync(dataDir, { recursive: true, force: true })];
  const cleanUp = async () => {
    for (const c of cleanups.reverse()) await c();
  };
  const env = testEnv(dataDir, overrides);
  let server: Server;
  try {
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
    // A failed build closes what it had opened itself (buildServer); its directory and database go here.
    server = await buildServer(loadConfig(env), {
      ...opts,
      ...(onPostgres ? {} : { inMemoryDatabase: true, ...(template ? { pgliteTemplate: template } : {}) }),
    });
  } catch (err) {
    await cleanUp().catch(() => {});
    throw err;
  }
  const close = server.close.bind(server);
  return {
    ...server,
    env,
    async close() {
      try {
        await close();
      } finally {
        await cleanUp();
      }
    },
    async sibling(more = {}) {
      if (!onPostgres) throw new Error('siblings need a shared PostgreSQL (TEST_DATABASE_URL)');
      const siblingDir = mkdtempSync(path.join(tmpdir(), 'fieldops-app-'));
      const removeDir = () => rmSync(siblingDir, { recursive: true, force: true });
      const sharedEnv = { ...env, DATA_DIR: siblingDir, ...more };
      const starting = buildServer(loadConfig(sharedEnv)).then(
        (s): TestApp => ({
          ...s,
          env: sharedEnv,
          async close() {
            try {
              await s.close();
            } finally {
              removeDir();
            }
          },
          sibling: () => Promise.reject(new Error('nested sibling')),
        }),
        (err: unknown) => {
          removeDir();
          throw err;
        },
      );
      return startedWithin('sibling app', starting);
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
