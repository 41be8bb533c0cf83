// The one transaction API: its query builder and its raw statements run on the same connection,
// commit and roll back together, and the builder's nested transactions are savepoints.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { integer, pgSchema, text } from 'drizzle-orm/pg-core';
import { startApp, type TestApp } from '../helpers/app.ts';

const SCHEMA = 'transaction_test';
const items = pgSchema(SCHEMA).table('items', { id: integer('id').primaryKey(), label: text('label').notNull() });

describe('Database.transaction', () => {
  let app: TestApp;
  const labels = async () =>
    (await app.platform.db.query<{ label: string }>(`SELECT label FROM ${SCHEMA}.items ORDER BY id`)).map((r) => r.label);

  before(async () => {
    app = await startApp();
    await app.platform.db.transaction((tx) => tx.script(`CREATE SCHEMA ${SCHEMA}; CREATE TABLE ${SCHEMA}.items (id int PRIMARY KEY, label text NOT NULL);`));
  });
  after(async () => {
    await app.platform.db.transaction((tx) => tx.script(`DROP SCHEMA ${SCHEMA} CASCADE`));
    await app.close();
  });

  test('the builder and raw statements see each other and commit together', async () => {
    const seen = await app.platform.db.transaction(async (tx) => {
      await tx.orm.insert(items).values({ id: 1, label: 'built' });
      await tx.query(`INSERT INTO ${SCHEMA}.items (id, label) VALUES ($1, $2)`, [2, 'raw']);
      const raw = await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${SCHEMA}.items`);
      const built = await tx.orm.select({ n: sql<number>`count(*)::int` }).from(items);
      return [raw[0]!.n, built[0]!.n];
    });
    assert.deepEqual(seen, [2, 2]);
    assert.deepEqual(await labels(), ['built', 'raw']);
  });

  test('a failure rolls back both', async () => {
    await assert.rejects(app.platform.db.transaction(async (tx) => {
      await tx.orm.insert(items).values({ id: 3, label: 'lost' });
      await tx.query(`INSERT INTO ${SCHEMA}.items (id, label) VALUES ($1, $2)`, [4, 'lost too']);
      throw new Error('stop');
    }), /stop/);
    assert.deepEqual(await labels(), ['built', 'raw']);
  });

  test('a nested builder transaction is a savepoint', async () => {
    await app.platform.db.transaction(async (tx) => {
      await tx.orm.insert(items).values({ id: 5, label: 'kept' });
      await assert.rejects(tx.orm.transaction(async (inner) => {
        await inner.insert(items).values({ id: 6, label: 'undone' });
        await inner.transaction(async (deeper) => {
          await deeper.insert(items).values({ id: 7, label: 'undone too' });
        });
        throw new Error('inner');
      }), /inner/);
      await tx.orm.transaction(async (inner) => {
        await inner.insert(items).values({ id: 8, label: 'nested' });
      });
    });
    assert.deepEqual(await labels(), ['built', 'raw', 'kept', 'nested']);
  });
});
