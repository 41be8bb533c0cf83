import { inArray } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Orm } from './database.ts';

/** Ids among `wanted` that have no row in `column`'s table (run it inside the caller's transaction). */
export async function missingIds(orm: Orm, column: AnyPgColumn, wanted: number[]): Promise<number[]> {
  if (wanted.length === 0) return [];
  const found = await orm.select({ id: column }).from(column.table).where(inArray(column, wanted));
  const have = new Set(found.map((r) => Number(r.id)));
  return wanted.filter((id) => !have.has(id));
}
