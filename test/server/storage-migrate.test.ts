// `npm run storage:migrate` as an operator runs it: a real child process with the server's
// configuration (STORAGE_DRIVER=s3 and a bucket on the test's own S3 server) copying a data
// folder's uploads. A run killed half-way is resumed by the next (what it had copied skipped,
// its partial upload removed), and a run after a complete one copies nothing.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { S3Storage } from '../../src/platform/storage/s3.ts';
import { s3Skip, startS3, type S3Server } from '../helpers/s3.ts';

const root = path.resolve(import.meta.dirname, '../..');
const FILES = 250;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the command; `onLine` sees each line of standard output and may kill the process. */
function migrate(env: Record<string, string>, onLine?: (line: string, kill: () => void) => void): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['src/cli/storage-migrate.ts'], { cwd: root, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      const before = stdout.length;
      stdout += d.toString();
      for (const line of stdout.slice(stdout.lastIndexOf('\n', before) + 1).split('\n').slice(0, -1)) onLine?.(line, () => child.kill('SIGKILL'));
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

describe('npm run storage:migrate', { skip: s3Skip() }, () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'fieldops-migrate-'));
  const uploads = path.join(dataDir, 'uploads');
  const contents = new Map<string, Buffer>();
  let s3: S3Server;
  let env: Record<string, string>;
  let storage: S3Storage;

  before(async () => {
    s3 = await startS3();
    env = { ...s3.env, DATA_DIR: dataDir, S3_PREFIX: 'migrated', LOG_LEVEL: 'info' };
    for (let i = 0; i < FILES; i++) {
      const key = `files/${String(i % 7).padStart(2, '0')}/${i}.bin`;
      contents.set(key, randomBytes(100 + i));
    }
    contents.set('chunks/0123456789abcdef0123456789abcdef/000000', randomBytes(6 * 1024 * 1024));
    for (const [key, data] of contents) {
      mkdirSync(path.dirname(path.join(uploads, key)), { recursive: true });
      writeFileSync(path.join(uploads, key), data);
    }
    // A write in progress of the local driver, and a name no storage key can have: neither is copied.
    mkdirSync(path.join(uploads, '.pending'), { recursive: true });
    writeFileSync(path.join(uploads, '.pending', 'c0ffee00-0000-4000-8000-000000000000.part'), 'half');
    writeFileSync(path.join(uploads, 'files', 'Bad Name.txt'), 'x');
    storage = await S3Storage.open({
      bucket: s3.bucket, region: 'us-east-1', endpoint: s3.url, forcePathStyle: true,
      credentials: { accessKeyId: 'k', secretAccessKey: 's' }, prefix: 'migrated/', timeoutMs: 3000, logger: pino({ level: 'silent' }),
    });
  });
  after(async () => {
    await storage?.close();
    await s3?.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('refuses to run without STORAGE_DRIVER=s3', async () => {
    const run = await migrate({ DATA_DIR: dataDir });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /STORAGE_DRIVER is local: set STORAGE_DRIVER=s3/);
  });

  test('a run killed half-way is resumed by the next, which copies the rest; a third copies nothing', { timeout: 240_000 }, async () => {
    const total = contents.size;
    const killed = await migrate(env, (line, kill) => {
      if (/^100 of \d+ files/.test(line)) kill();
    });
    assert.equal(killed.signal, 'SIGKILL', killed.stdout + killed.stderr);
    assert.match(killed.stdout, new RegExp(`^copying ${total} files`, 'm'));

    const resumed = await migrate(env);
    assert.equal(resumed.code, 0, resumed.stdout + resumed.stderr);
    const done = /^done: (\d+) copied \([\d.]+ MiB\), (\d+) already in the bucket, 0 failed, of (\d+) files; 1 not copied, their names cannot be storage keys: files\/Bad Name\.txt$/m.exec(resumed.stdout);
    assert.ok(done, resumed.stdout);
    const [copied, skipped, files] = done.slice(1).map(Number) as [number, number, number];
    assert.equal(files, total);
    assert.equal(copied + skipped, total);
    assert.ok(skipped >= 100 && copied > 0, `resumed: ${copied} copied, ${skipped} skipped`);

    for (const [key, data] of contents) {
      assert.equal((await storage.stat(key))?.size, data.length, key);
    }
    const big = 'chunks/0123456789abcdef0123456789abcdef/000000';
    assert.deepEqual(Buffer.concat(await (await storage.read(big)).toArray()), contents.get(big));
    // Nothing half-written is left: the killed run's partial upload was removed.
    assert.deepEqual(await storage.pendingOwners(), []);
    assert.equal(await storage.sweepPending(new Date(Date.now() + 60_000)), 0);

    const again = await migrate(env);
    assert.equal(again.code, 0, again.stdout + again.stderr);
    assert.match(again.stdout, new RegExp(`^done: 0 copied \\(0\\.0 MiB\\), ${total} already in the bucket, 0 failed, of ${total} files`, 'm'));
  });
});
