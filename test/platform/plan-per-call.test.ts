// Statements with parameters run as named prepared statements (planned once for any values after
// five runs); one marked PLAN_PER_CALL runs unnamed, planned for its values at every call. What
// the session has prepared is PostgreSQL's own view, pg_prepared_statements: on PostgreSQL in a
// transaction (one connection of the pool), on PGlite outside one (its single connection, where
// statements are prepared).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { onPostgres, startApp, type TestApp } from '../helpers/app.ts';
import { PLAN_PER_CALL_MARK, type Executor } from '../../src/platform/db/database.ts';

let app: TestApp;
before(async () => {
  app = await startApp();
});
after(() => app?.close());

test('a statement marked PLAN_PER_CALL is not kept as a named prepared statement; an unmarked one is', async () => {
  const tag = `t${Date.now()}`;
  const plain = `SELECT $1::int AS n, '${tag}-plain' AS tag`;
  const marked = `SELECT $1::int AS n, '${tag}-marked' AS tag WHERE ${PLAN_PER_CALL_MARK} true`;
  const check = async (db: Executor) => {
    for (let i = 0; i < 3; i++) {
      assert.deepEqual(await db.query(plain, [i]), [{ n: i, tag: `${tag}-plain` }]);
      assert.deepEqual(await db.query(marked, [i]), [{ n: i, tag: `${tag}-marked` }]);
    }
    const kept = (await db.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements')).map((r) => r.statement);
    assert.ok(kept.includes(plain), 'the unmarked statement is prepared');
    assert.ok(!kept.some((s) => s.includes(`${tag}-marked`)), 'the marked one is not');
  };
  if (onPostgres) await app.platform.db.transaction((tx) => check(tx));
  else await check(app.platform.db);
});
