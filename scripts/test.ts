// `npm test`: Node's test runner over every test file (or the files named after `--`), four at
// a time. The browser files (test/browser: each drives Chromium against a server of its own,
// minutes of CPU each) are spread through the list, the longest first, instead of running side
// by side as the alphabet put them: at most two Chromiums run at once (test/helpers/browser.ts),
// and the other slots run the API files meanwhile. `node --test` sorts the files it is given,
// so the runner is started through its API, which keeps this order.
import { globSync, statSync } from 'node:fs';
import path from 'node:path';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';

const root = path.resolve(import.meta.dirname, '..');
const named = process.argv.slice(2);
const all = named.length > 0 ? named : globSync(['test/**/*.test.ts', 'web/*/test/**/*.test.ts'], { cwd: root }).sort();
const isBrowser = (file: string) => file.split(path.sep).includes('browser');
// A file's size stands for its length: the longest browser files start first.
const browsers = all.filter(isBrowser).sort((a, b) => statSync(path.join(root, b)).size - statSync(path.join(root, a)).size);
const others = all.filter((file) => !isBrowser(file));
const every = browsers.length > 0 ? Math.max(1, Math.floor(others.length / browsers.length)) : 0;
const files: string[] = [];
for (let i = 0; i < others.length || browsers.length > 0; i++) {
  if (browsers.length > 0 && (i < 2 || (i - 2) % every === 0)) files.push(browsers.shift()!);
  if (i < others.length) files.push(others[i]!);
}

// globalSetupPath: the API's name of --test-global-setup (Node 24; not in @types/node's RunOptions yet).
const options: NonNullable<Parameters<typeof run>[0]> & { globalSetupPath: string } = {
  files: files.map((file) => path.resolve(root, file)),
  cwd: root,
  concurrency: 4,
  timeout: 300_000,
  globalSetupPath: path.join(root, 'test/global-setup.ts'),
  execArgv: ['--liftoff-only'],
};
run(options)
  .on('test:summary', (summary) => {
    if (!summary.success) process.exitCode = 1;
  })
  .compose(spec)
  .pipe(process.stdout);
