// Start-up failures say what is wrong in one line, and never print credentials.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../src/platform/config.ts';
import { createPlatform } from '../../src/platform/platform.ts';
import { describeStartupError, StartupError } from '../../src/platform/startup.ts';

const silent = pino({ level: 'silent' });

test('an unreachable Redis is a StartupError naming REDIS_URL without its password', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'fieldops-start-'));
  try {
    const config = loadConfig({ DATA_DIR: dir, REDIS_URL: 'redis://user:s3cret-pw@127.0.0.1:1', LOG_LEVEL: 'silent' });
    const err = await createPlatform(config, { logger: silent, inMemoryDatabase: true }).then(() => null, (e: unknown) => e);
    assert.ok(err instanceof StartupError, String(err));
    const line = describeStartupError(err);
    assert.match(line, /Redis at 127\.0\.0\.1:1 \(REDIS_URL\)/);
    assert.doesNotMatch(line, /s3cret/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an unreachable PostgreSQL is described in one line, without the connection string', async () => {
  const config = loadConfig({ DATABASE_URL: 'postgres://user:s3cret-pw@127.0.0.1:1/x', LOG_LEVEL: 'silent' });
  const err = await createPlatform(config, { logger: silent }).then(() => null, (e: unknown) => e);
  const line = describeStartupError(err);
  assert.match(line, /cannot reach 127\.0\.0\.1:1 \(ECONNREFUSED\)/);
  assert.doesNotMatch(line, /s3cret|\n/);
});

test('configuration errors are printed as they are; unexpected errors keep their stack', () => {
  let configError: unknown;
  try {
    loadConfig({ PORT: 'abc' });
  } catch (err) {
    configError = err;
  }
  assert.match(describeStartupError(configError), /^Invalid configuration:\n {2}PORT="abc"/);
  assert.match(describeStartupError(new TypeError('boom')), /TypeError: boom\n\s+at /);
});
