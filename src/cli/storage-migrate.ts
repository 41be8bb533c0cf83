// `npm run storage:migrate`: copies the files of the local storage (DATA_DIR/uploads) into the
// S3 bucket the configuration names (STORAGE_DRIVER=s3 and the S3_* variables), under the same
// keys, so that the server finds them there once it runs with that configuration.
//
// Idempotent and resumable: an object already in the bucket with the file's size is skipped
// (objects appear whole or not at all, so a size that matches is a copy that finished), and
// the partial upload an interrupted run leaves (its pending object, owned by `storage-migrate`)
// is discarded when the next run starts. Files are copied through the storage driver, four at
// a time, streamed. Writes in progress (`.pending/`) are not copied, nor are files whose names
// cannot be storage keys (listed in the summary). Export files are in the storage too
// (`exports/<schema>/`), so they are copied with the rest and still download after the switch.
// Standard output shows a progress bar on a terminal, a line every PROGRESS_EVERY files
// otherwise, then a summary; logs go to standard error. The local files are left in place.
// Exit status: 0 done, 1 files not copied because of errors (run it again), 2 usage or
// configuration.
import { createReadStream, existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { loadConfig, type Config } from '../platform/config.ts';
import { loggerOptions } from '../platform/logger.ts';
import { exitOnStartupError } from '../platform/startup.ts';
import { assertKey, createStorage, StorageUnavailableError, type Storage } from '../platform/storage/index.ts';

const USAGE = `usage: npm run storage:migrate
  copies DATA_DIR/uploads into the bucket of STORAGE_DRIVER=s3 (S3_BUCKET, S3_ENDPOINT, ...);
  run it again to resume or to copy what was added since`;
/** The owner of the pending objects of this command's writes. */
const OWNER = 'storage-migrate';
const CONCURRENCY = 4;
const PROGRESS_EVERY = 100;
const BAR_WIDTH = 30;
const INVALID_SHOWN = 10;

interface LocalFile {
  file: string;
  /** Its path under the uploads folder with `/` separators: the key, if it is a valid one. */
  key: string;
  size: number;
}

interface Tally {
  files: number;
  bytes: number;
  copied: number;
  copiedBytes: number;
  skipped: number;
  failed: number;
  invalid: string[];
}

/** The files under `root` in a stable order (sorted by name), leaving out `root/.pending`. */
async function* walk(root: string, dir = root): AsyncGenerator<LocalFile> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const file = path.join(dir, entry.name);
    if (dir === root && entry.name === '.pending') continue;
    if (entry.isDirectory()) yield* walk(root, file);
    else if (entry.isFile()) yield { file, key: path.relative(root, file).split(path.sep).join('/'), size: (await stat(file)).size };
  }
}

function isKey(key: string): boolean {
  try {
    assertKey(key);
    return true;
  } catch {
    return false;
  }
}

/** Logs on standard error, so that standard output carries only the progress and the summary. */
let log: pino.Logger | undefined;
const logger = (config: Config) => (log ??= pino(loggerOptions(config.LOG_LEVEL), pino.destination(2)));

const mib = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MiB`;

/** Progress on standard output: a bar redrawn in place on a terminal, a line every PROGRESS_EVERY files elsewhere. */
function progress(total: { files: number; bytes: number }, tally: Tally) {
  const tty = process.stdout.isTTY === true;
  let drawnAt = 0;
  return {
    update() {
      const done = tally.copied + tally.skipped + tally.failed;
      if (tty) {
        const now = Date.now();
        if (now - drawnAt < 100 && done < total.files) return;
        drawnAt = now;
        const share = total.files === 0 ? 1 : done / total.files;
        const filled = Math.round(share * BAR_WIDTH);
        process.stdout.write(`\r[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${Math.floor(share * 100)}%  ${done} of ${total.files} files  ${mib(tally.copiedBytes)} copied `);
      } else if (done % PROGRESS_EVERY === 0) {
        process.stdout.write(`${done} of ${total.files} files (${tally.copied} copied, ${tally.skipped} already there, ${tally.failed} failed)\n`);
      }
    },
    end() {
      if (tty) process.stdout.write('\n');
    },
  };
}

/** Copies one file unless the bucket has it already. */
async function copy(storage: Storage, f: LocalFile, tally: Tally): Promise<void> {
  const there = await storage.stat(f.key);
  if (there?.size === f.size) {
    tally.skipped += 1;
    return;
  }
  const pending = await storage.write(createReadStream(f.file), { owner: OWNER });
  try {
    await pending.commit(f.key);
  } finally {
    await pending.discard();
  }
  tally.copied += 1;
  tally.copiedBytes += pending.size;
}

async function migrate(storage: Storage, root: string, logger: pino.Logger): Promise<Tally> {
  const tally: Tally = { files: 0, bytes: 0, copied: 0, copiedBytes: 0, skipped: 0, failed: 0, invalid: [] };
  const total = { files: 0, bytes: 0 };
  for await (const f of walk(root)) {
    if (!isKey(f.key)) continue;
    total.files += 1;
    total.bytes += f.size;
  }
  process.stdout.write(`copying ${total.files} files (${mib(total.bytes)}) from ${root}\n`);
  // What an interrupted run left half-written.
  const leftovers = await storage.discardPending(OWNER);
  if (leftovers > 0) logger.info({ leftovers }, 'removed the partial upload of an interrupted run');
  const shown = progress(total, tally);
  const running = new Set<Promise<void>>();
  let unavailable: StorageUnavailableError | undefined;
  for await (const f of walk(root)) {
    if (!isKey(f.key)) {
      tally.invalid.push(f.key);
      continue;
    }
    if (unavailable) break;
    const task = copy(storage, f, tally)
      .catch((err: unknown) => {
        tally.failed += 1;
        if (err instanceof StorageUnavailableError) unavailable ??= err;
        else logger.error({ err, file: f.file }, 'copying a file failed');
      })
      .finally(() => {
        running.delete(task);
        shown.update();
      });
    running.add(task);
    if (running.size >= CONCURRENCY) await Promise.race(running);
  }
  await Promise.all(running);
  shown.end();
  if (unavailable) logger.error({ err: unavailable }, 'the object store became unavailable: run the command again to resume');
  tally.files = total.files;
  tally.bytes = total.bytes;
  return tally;
}

let help: boolean | undefined;
try {
  help = parseArgs({ options: { help: { type: 'boolean', short: 'h' } } }).values.help;
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
  process.exit(2);
}
if (help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

let config: Config;
let storage: Storage;
try {
  config = loadConfig();
  if (config.STORAGE_DRIVER !== 's3') {
    process.stderr.write(`STORAGE_DRIVER is ${config.STORAGE_DRIVER}: set STORAGE_DRIVER=s3 and the S3_* variables of the bucket to copy DATA_DIR/uploads into\n${USAGE}\n`);
    process.exit(2);
  }
  storage = await createStorage(config, logger(config));
} catch (err) {
  exitOnStartupError(err);
}
const root = path.join(config.dataDir, 'uploads');
try {
  const t = existsSync(root) ? await migrate(storage, root, logger(config)) : undefined;
  if (!t) {
    process.stdout.write(`nothing to copy: there is no ${root}\n`);
  } else {
    const invalid = t.invalid.length === 0 ? ''
      : `; ${t.invalid.length} not copied, their names cannot be storage keys: ${t.invalid.slice(0, INVALID_SHOWN).join(', ')}${t.invalid.length > INVALID_SHOWN ? ', ...' : ''}`;
    process.stdout.write(`done: ${t.copied} copied (${mib(t.copiedBytes)}), ${t.skipped} already in the bucket, ${t.failed} failed, of ${t.files} files${invalid}\n`);
    process.exitCode = t.failed > 0 ? 1 : 0;
  }
} finally {
  await storage.close?.();
}
