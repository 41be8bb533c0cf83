// `npm run bench -- <name>`: runs bench/<name>.ts.
import { readdirSync } from 'node:fs';

const names = readdirSync(import.meta.dirname)
  .filter((f) => f.endsWith('.ts') && !['run.ts', 'lib.ts', 'load-client.ts'].includes(f))
  .map((f) => f.slice(0, -3));
const name = process.argv[2];
if (!name || !names.includes(name)) {
  process.stderr.write(`usage: npm run bench -- <${names.join('|')}>\n`);
  process.exit(2);
}
await import(`./${name}.ts`);
// A benchmark is a script: once it has printed its figures, stop even if an HTTP client keeps a socket.
process.exit(0);
