// A new embedded data folder is unpacked from the template as a stream (issue 27: PGlite's own
// loader left about 45 MB of the allocator's heap resident). The archives here are made by GNU
// tar; the last test opens a real data folder unpacked from the migrated template.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, mkdtempSync, openAsBlob, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import pino from 'pino';
import { openDatabase } from '../../src/platform/db/database.ts';
import { installedTemplate } from '../../src/platform/db/pglite-template.ts';
import { extractTarGz } from '../../src/platform/db/untar.ts';
import { migratedTemplate } from '../../src/server.ts';
import { onPostgres } from '../helpers/app.ts';

const work = mkdtempSync(path.join(tmpdir(), 'fieldops-untar-'));
after(() => rmSync(work, { recursive: true, force: true }));
let n = 0;
const fresh = () => path.join(work, String(++n));

/** The files under `dir`, relative, with their bytes. */
function filesOf(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) out.set(path.relative(dir, path.join(entry.parentPath, entry.name)), readFileSync(path.join(entry.parentPath, entry.name)));
  }
  return out;
}

describe('extractTarGz', () => {
  test('unpacks folders and files byte for byte, whatever their sizes against the 512-byte blocks', async () => {
    const source = fresh();
    mkdirSync(path.join(source, 'base', '1'), { recursive: true });
    mkdirSync(path.join(source, 'empty'));
    writeFileSync(path.join(source, 'PG_VERSION'), '17\n');
    writeFileSync(path.join(source, 'base', '1', 'zero'), '');
    writeFileSync(path.join(source, 'base', '1', 'block'), randomBytes(512));
    writeFileSync(path.join(source, 'base', '1', 'large'), randomBytes(3 * 65536 + 77));
    writeFileSync(path.join(source, `${'n'.repeat(90)}.a-name-over-a-hundred-characters`), 'x');
    // GNU tar names a long path in an entry of its own; pax in an extended header.
    for (const format of ['gnu', 'pax']) {
      const archive = path.join(work, `ok-${format}.tar.gz`);
      execFileSync('tar', ['-czf', archive, `--format=${format}`, '-C', source, '.']);
      const target = fresh();
      await extractTarGz(createReadStream(archive), target);
      assert.deepEqual(filesOf(target), filesOf(source), format);
      assert.ok(existsSync(path.join(target, 'empty')), format);
    }
  });

  test('refuses an entry that would leave the folder, and writes nothing outside it', async () => {
    const source = fresh();
    mkdirSync(path.join(source, 'src'), { recursive: true });
    writeFileSync(path.join(source, 'src', 'a'), 'escaped');
    const archive = path.join(work, 'evil.tar.gz');
    execFileSync('tar', ['-czf', archive, '-P', '--transform', 's,^src,../src,', 'src/a'], { cwd: source });
    const target = path.join(fresh(), 'inside');
    await assert.rejects(extractTarGz(createReadStream(archive), target), /leaves the folder/);
    assert.equal(existsSync(path.join(target, '..', 'src', 'a')), false);
  });

  test('refuses a link', async () => {
    const source = fresh();
    mkdirSync(source);
    symlinkSync('/etc/passwd', path.join(source, 'link'));
    const archive = path.join(work, 'link.tar.gz');
    execFileSync('tar', ['-czf', archive, '-C', source, 'link']);
    await assert.rejects(extractTarGz(createReadStream(archive), fresh()), /not unpacked/);
  });

  test('refuses an archive cut short', async () => {
    const source = fresh();
    mkdirSync(source);
    writeFileSync(path.join(source, 'data'), randomBytes(200_000));
    const archive = path.join(work, 'cut.tar');
    execFileSync('tar', ['-cf', archive, '-C', source, 'data']);
    const cut = path.join(work, 'cut.tar.gz');
    execFileSync('sh', ['-c', `head -c 100000 ${archive} | gzip > ${cut}`]);
    await assert.rejects(extractTarGz(createReadStream(cut), fresh()), /ends before/);
  });
});

describe('a new embedded data folder from the template', { skip: onPostgres && 'embedded PGlite only' }, () => {
  test('is unpacked into place, opens with the migrated schema, and opens again as it is', async () => {
    const template = process.env.PGLITE_TEMPLATE ? await openAsBlob(process.env.PGLITE_TEMPLATE) : (await installedTemplate()) ?? (await migratedTemplate());
    const dataDir = fresh();
    const open = () => openDatabase({ dataDir, poolMax: 1, logger: pino({ level: 'silent' }), pgliteTemplate: template });
    const first = await open();
    try {
      await first.query("INSERT INTO admin.dictionaries (name, code, value) VALUES ('untar', 'untar', 'v')");
    } finally {
      await first.close();
    }
    assert.ok(existsSync(path.join(dataDir, 'pglite', 'PG_VERSION')));
    assert.equal(existsSync(path.join(dataDir, 'pglite.unpacking')), false);
    const second = await open();
    try {
      const rows = await second.query<{ value: string }>("SELECT value FROM admin.dictionaries WHERE code = 'untar'");
      assert.deepEqual(rows.map((r) => r.value), ['v']);
    } finally {
      await second.close();
    }
  });
});
