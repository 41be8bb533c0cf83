// The embedded database's memory (issue 27): PostgreSQL's buffer cache lives in PGlite's
// WebAssembly memory, which never shrinks, so its size is the process's. 16 MB by default
// (PostgreSQL's own 128 MB took the server past 700 MB resident), PGLITE_SHARED_BUFFERS_MB to change it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { onPostgres, startApp } from '../helpers/app.ts';

describe('embedded database memory', { skip: onPostgres && 'embedded PGlite only' }, () => {
  const sharedBuffers = async (overrides: Record<string, string> = {}) => {
    const app = await startApp(overrides);
    try {
      const [row] = await app.platform.db.query<{ shared_buffers: string }>('SHOW shared_buffers');
      return row!.shared_buffers;
    } finally {
      await app.close();
    }
  };

  test('the buffer cache is 16 MB by default', async () => {
    assert.equal(await sharedBuffers(), '16MB');
  });

  test('PGLITE_SHARED_BUFFERS_MB sets it', async () => {
    assert.equal(await sharedBuffers({ PGLITE_SHARED_BUFFERS_MB: '32' }), '32MB');
  });
});
