// `npm ci` / `npm install` (prepare): makes the migrated template a new embedded database starts
// from (src/platform/db/pglite-template.ts), so that the first `npm start` takes about a second
// for its database instead of several. A failure only costs that speed-up: it is reported, and
// the install goes on.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { INSTALLED_TEMPLATE } from '../src/platform/db/pglite-template.ts';
import { migratedTemplate } from '../src/server.ts';

try {
  const started = performance.now();
  const dump = await migratedTemplate();
  mkdirSync(path.dirname(INSTALLED_TEMPLATE), { recursive: true });
  const partial = `${INSTALLED_TEMPLATE}.${process.pid}`;
  writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
  renameSync(partial, INSTALLED_TEMPLATE);
  console.log(`embedded database template: ${path.relative(process.cwd(), INSTALLED_TEMPLATE)} (${Math.round(performance.now() - started)} ms)`);
} catch (err) {
  console.warn(`embedded database template not made (new data folders will be initialised at first start): ${(err as Error).message}`);
}
