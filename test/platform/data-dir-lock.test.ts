// The embedded database's folder is held by one process at a time (data-dir-lock.ts).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { lockDataDir } from '../../src/platform/db/data-dir-lock.ts';
import { StartupError } from '../../src/platform/startup.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'fieldops-lock-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('a held folder is refused, naming the process; released, it can be taken again', () => {
  const file = path.join(dir, 'held.pid');
  const release = lockDataDir(file, 'the folder');
  assert.equal(readFileSync(file, 'utf8'), `${process.pid}\n`);
  assert.throws(() => lockDataDir(file, 'the folder'), (err) => err instanceof StartupError && /already open in this process/.test(err.message));
  release();
  assert.equal(existsSync(file), false);
  lockDataDir(file, 'the folder')();
});

test('a file of a live process is refused; one left by a process that ended is taken over', () => {
  const live = path.join(dir, 'live.pid');
  writeFileSync(live, `${process.ppid}\n`); // the test runner: alive
  assert.throws(() => lockDataDir(live, 'the folder'), (err) => err instanceof StartupError && new RegExp(`in use by process ${process.ppid}`).test(err.message));
  assert.equal(readFileSync(live, 'utf8'), `${process.ppid}\n`);

  const stale = path.join(dir, 'stale.pid');
  const ended = spawnSync(process.execPath, ['-e', '']).pid;
  writeFileSync(stale, `${ended}\n`);
  const release = lockDataDir(stale, 'the folder');
  assert.equal(readFileSync(stale, 'utf8'), `${process.pid}\n`);
  release();
});
