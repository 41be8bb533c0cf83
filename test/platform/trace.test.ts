// Database.trace: the statement observer the route benchmark records routes with. Drizzle's
// statements and raw ones, outside and inside transactions, are seen with their text and
// parameters, in the async context of their caller; with no observer, nothing is. On PGlite, or
// on a fresh PostgreSQL database when TEST_DATABASE_URL is set.
import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { integer, pgSchema, text } from 'drizzle-orm/pg-core';
import pino from 'pino';
import { openDatabase, type Database, type TracedStatement } from '../../src/platform/db/database.ts';
import { createDatabase, onPostgres } from '../helpers/app.ts';

const items = pgSchema('trace_test').table('items', { id: integer('id').primaryKey(), label: text('label').notNull() });

describe('Database.trace', () => {
  let db: Database;
  let dir: string;
  let pg: Awaited<ReturnType<typeof createDatabase>> | undefined;
  const seen: TracedStatement[] = [];

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'fieldops-trace-'));
    pg = onPostgres ? await createDatabase() : undefined;
    db = await openDatabase({ url: pg?.url, dataDir: dir, poolMax: 2, logger: pino({ level: 'silent' }), inMemory: true });
    await db.transaction((tx) => tx.script("CREATE SCHEMA trace_test; CREATE TABLE trace_test.items (id int PRIMARY KEY, label text NOT NULL); INSERT INTO trace_test.items VALUES (1, 'one')"));
  });
  after(async () => {
    await db?.close();
    await pg?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a Drizzle select and a raw query are observed with their text and parameters', async () => {
    seen.length = 0;
    db.trace = (s) => seen.push(s);
    try {
      const built = await db.orm.select({ label: items.label }).from(items).where(eq(items.id, 1));
      const raw = await db.query<{ n: number }>('SELECT $1::int + 1 AS n', [41]);
      assert.deepEqual([built[0]?.label, raw[0]?.n], ['one', 42]);
    } finally {
      db.trace = undefined;
    }
    assert.equal(seen.length, 2);
    assert.match(seen[0]!.text, /^select "label" from "trace_test"\."items" where "trace_test"\."items"\."id" = \$1$/);
    assert.deepEqual(seen[0]!.params, [1]);
    assert.deepEqual({ text: seen[1]!.text, params: seen[1]!.params }, { text: 'SELECT $1::int + 1 AS n', params: [41] });
    for (const s of seen) assert.ok(s.end >= s.start && s.start > 0);
    assert.ok(seen[1]!.start >= seen[0]!.end, 'in the order they ran');
  });

  test('statements inside a transaction are observed, in their caller’s async context', async () => {
    seen.length = 0;
    const store = new AsyncLocalStorage<string>();
    const contexts: (string | undefined)[] = [];
    db.trace = (s) => {
      seen.push(s);
      contexts.push(store.getStore());
    };
    try {
      await store.run('caller', () => db.transaction(async (tx) => {
        await tx.query('SELECT label FROM trace_test.items WHERE id = $1', [1]);
        await tx.orm.select().from(items);
      }));
    } finally {
      db.trace = undefined;
    }
    assert.deepEqual(seen.map((s) => s.text.slice(0, 12)), ['SELECT label', 'select "id",']);
    assert.deepEqual(contexts, ['caller', 'caller']);
  });

  test('nothing is observed when trace is unset', async () => {
    seen.length = 0;
    let calls = 0;
    db.trace = () => (calls += 1);
    db.trace = undefined;
    await db.orm.select().from(items);
    await db.query('SELECT 1');
    await db.transaction((tx) => tx.query('SELECT 2'));
    assert.equal(calls, 0);
    assert.equal(seen.length, 0);
  });
});
