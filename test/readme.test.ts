// The documentation stays true where a test can tell: docs/CONFIGURATION.md names every setting
// of the schema, and the README stays a newcomer's page (short, with the two commands).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ConfigSchema } from '../src/platform/config.ts';

const read = (file: string) => readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');

test('docs/CONFIGURATION.md documents every configuration variable', () => {
  const doc = read('docs/CONFIGURATION.md');
  const missing = Object.keys(ConfigSchema.properties).filter((key) => !doc.includes(`\`${key}\``));
  assert.deepEqual(missing, []);
});

test('the README is a newcomer page: the two commands, under 250 lines, no line over 400 characters', () => {
  const readme = read('README.md');
  for (const command of ['npm ci', 'npm start', 'npm test']) assert.ok(readme.includes(command), command);
  const lines = readme.split('\n');
  assert.ok(lines.length < 250, `${lines.length} lines`);
  assert.deepEqual(lines.filter((line) => line.length > 400), []);
});

test('every documentation link of the README points at a file that exists', () => {
  const links = [...read('README.md').matchAll(/\]\((docs\/[^)#]+)\)/g)].map((m) => m[1]!);
  assert.ok(links.length > 0);
  for (const link of links) assert.doesNotThrow(() => read(link), link);
});
