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
