// Runs once before the test files (node --test-global-setup). Builds the web clients when their
// build is missing or older than their sources (once, here: browser test files run side by side
// and would each start the same build into the same folder). On PGlite, builds a migrated
// database and dumps it, so that each test app starts from a copy in ~0.3 s instead of
// creating and migrating a database (3-5 s). With TEST_STORAGE=s3, starts one S3-compatible
// server (test/helpers/s3.ts) for the whole run: every test app then keeps its files in its
// bucket, under a prefix of its own (test/helpers/app.ts), so that the whole suite runs on the
// S3 driver (CI's PostgreSQL pass does; the PGlite pass runs it on the local disk). Makes the
// folder of the browser slots (test/helpers/browser.ts: at most two Chromiums at once).
import { writeFileSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { migratedTemplate } from '../src/server.ts';
import { ensureConsoleBuilt } from './helpers/browser.ts';
import { s3Skip, startS3, type S3Server } from './helpers/s3.ts';

let dir: string | undefined;
let locks: string | undefined;
let s3: S3Server | undefined;

export async function globalSetup() {
  ensureConsoleBuilt();
  locks = mkdtempSync(path.join(tmpdir(), 'fieldops-browsers-'));
  process.env.TEST_BROWSER_LOCKS = locks;
  await startStorage();
  if (process.env.TEST_DATABASE_URL) return;
  dir = mkdtempSync(path.join(tmpdir(), 'fieldops-test-'));
  const dump = await migratedTemplate();
  const file = path.join(dir, 'template.tar.gz');
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  process.env.PGLITE_TEMPLATE = file;
}

/** The store of TEST_STORAGE=s3, named to the test files' processes by TEST_S3_ENV. */
async function startStorage() {
  const driver = process.env.TEST_STORAGE ?? 'local';
  if (driver === 'local') return;
  if (driver !== 's3') throw new Error(`TEST_STORAGE=${driver}: local or s3`);
  const missing = s3Skip();
  if (missing) throw new Error(`TEST_STORAGE=s3 ${missing}`);
  s3 = await startS3();
  process.env.TEST_S3_ENV = JSON.stringify(s3.env);
}

export async function globalTeardown() {
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (locks) rmSync(locks, { recursive: true, force: true });
  await s3?.destroy();
}
