// The README's configuration table stays complete: every setting of the schema is in it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ConfigSchema } from '../src/platform/config.ts';

test('the README documents every configuration variable', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const missing = Object.keys(ConfigSchema.properties).filter((key) => !readme.includes(`\`${key}\``));
  assert.deepEqual(missing, []);
});
