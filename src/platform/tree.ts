// Trees stored as rows with a parent id (menus, departments).
import type { Database, Executor, Transaction } from './db/database.ts';
import { InvalidInput } from './http/errors.ts';
import { msg, type Msg } from './i18n.ts';

/** Nests rows under their parents; rows whose parent is absent (or 0) become roots. Keeps order. */
export function buildTree<T extends { id: number; parent_id: number; children: T[] }>(rows: T[]): T[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const roots: T[] = [];
  for (const row of rows) {
    const parent = row.parent_id ? byId.get(row.parent_id) : undefined;
    (parent ? parent.children : roots).push(row);
  }
  return roots;
}

/**
 * The rows among `rows` named in `ids` together with their ancestors, in `rows`' order, so that
 * a filtered tree stays connected. Ids not among `rows` are skipped.
 */
export function withAncestors<T extends { id: number; parentId: number }>(rows: T[], ids: Iterable<number>): T[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const keep = new Set<number>();
  for (const id of ids) {
    for (let r = byId.get(id); r && !keep.has(r.id); r = byId.get(r.parentId)) keep.add(r.id);
  }
  return rows.filter((r) => keep.has(r.id));
}

/**
 * Whether `candidate` lies in the subtree under `ancestor` in `table` (a fixed
 * `schema.table` name, never input, with `id` and `parent_id` columns), read on `tx`.
 */
export async function isInSubtree(tx: Executor, table: string, candidate: number, ancestor: number): Promise<boolean> {
  // Raw: a recursive CTE, which the query builder cannot express.
  const rows = await tx.query(
    `WITH RECURSIVE up AS (
       SELECT id, parent_id FROM ${table} WHERE id = $1
       UNION
       SELECT t.id, t.parent_id FROM ${table} t JOIN up ON t.id = up.parent_id
     )
     SELECT 1 AS hit FROM up WHERE id = $2 LIMIT 1`,
    [candidate, ancestor],
  );
  return rows.length > 0;
}

/**
 * One transaction holding the lock of the tree stored in `table` (a fixed `schema.table` name):
 * changes to one tree's shape run one at a time, so that two concurrent moves cannot make a
 * cycle and a child cannot be added under a row being deleted.
 */
export function treeTransaction<T>(db: Database, table: string, fn: (tx: Transaction) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    // Raw: an advisory lock.
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`${table}.tree`]);
    return fn(tx);
  });
}

/**
 * Checks moving row `id` of the tree in `table` under `parentId`, inside the tree's transaction
 * (400 on `parent_id`): not under itself, then `checkParent` (the parent exists and may hold
 * children), then not under one of its own descendants, which would make a cycle. `noun`
 * names the rows in the messages.
 */
export async function checkMove(
  tx: Executor,
  o: { table: string; noun: Msg; id: number; parentId: number; checkParent: () => Promise<void> },
): Promise<void> {
  if (o.parentId === o.id) throw new InvalidInput(msg('platform.tree.cannotOwnParent', { noun: o.noun, id: o.id }), 'parent_id');
  await o.checkParent();
  if (await isInSubtree(tx, o.table, o.parentId, o.id)) {
    throw new InvalidInput(msg('platform.tree.parentIdDescendantMoving', { parentId: o.parentId, noun: o.noun, id: o.id }), 'parent_id');
  }
}
