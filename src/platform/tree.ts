// Trees stored as rows with a parent id (menus, departments).
import type { Executor } from './db/database.ts';

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
