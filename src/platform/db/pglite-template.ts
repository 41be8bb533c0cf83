// A migrated, empty embedded database made once at install time (`npm ci` runs
// scripts/pglite-template.ts), from which a new data folder starts: unpacking it takes about a
// second where PGlite's initdb and the migrations take several. Kept under node_modules/.cache,
// named after the PGlite version that made it (a data folder only opens with the version that
// wrote it). Missing or unreadable: a new folder is initialised as before. Migrations newer
// than the template are applied at start-up as usual.
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../../..');
const pgliteVersion = (JSON.parse(readFileSync(path.join(root, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')) as { version: string }).version;

export const INSTALLED_TEMPLATE = path.join(root, 'node_modules', '.cache', 'fieldops', `pglite-${pgliteVersion}.tar.gz`);

export function readInstalledTemplate(): Blob | undefined {
  try {
    return new Blob([readFileSync(INSTALLED_TEMPLATE)]);
  } catch {
    return undefined;
  }
}
