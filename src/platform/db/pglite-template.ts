// A migrated, empty embedded database made once at install time (`npm ci` runs
// scripts/pglite-template.ts), from which a new data folder starts: unpacking it takes about a
// second where PGlite's initdb and the migrations take several. Kept under node_modules/.cache,
// named after the PGlite version that made it (a data folder only opens with the version that
// wrote it). Missing or unreadable: a new folder is initialised as before. Migrations newer
// than the template are applied at start-up as usual.
import { openAsBlob, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../../..');
const pgliteVersion = (JSON.parse(readFileSync(path.join(root, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')) as { version: string }).version;

export const INSTALLED_TEMPLATE = path.join(root, 'node_modules', '.cache', 'fieldops', `pglite-${pgliteVersion}.tar.gz`);

/** The installed template, read from its file only as it is unpacked. */
export async function installedTemplate(): Promise<Blob | undefined> {
  try {
    return await openAsBlob(INSTALLED_TEMPLATE);
  } catch {
    return undefined;
  }
}
