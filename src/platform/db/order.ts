import { asc, desc, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import { parseOrderBy } from '../http/schemas.ts';

/**
 * The ORDER BY of a paged list for an allow-listed `order_by` (`field:asc|desc`, see
 * `OrderByQuery`): the field's column, then `id` in the same direction, so that pages never
 * overlap. The fields named in `nullsLast` (nullable columns) put their nulls last both ways.
 */
export function sortBy<F extends string>(orderBy: string, columns: Record<F, AnyColumn>, id: AnyColumn, nullsLast: readonly F[] = []): SQL[] {
  const { field, direction } = parseOrderBy<F>(orderBy);
  const column = columns[field];
  const dir = direction === 'asc' ? asc : desc;
  const first = nullsLast.includes(field) ? sql`${column} ${sql.raw(direction === 'asc' ? 'ASC' : 'DESC')} NULLS LAST` : dir(column);
  return column === id ? [first] : [first, dir(id)];
}
