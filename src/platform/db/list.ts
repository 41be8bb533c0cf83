// The paged-list kit: a paged list is declared once, as data, instead of being assembled by
// hand in each method, and a detail by id is one declared statement. A list is its rows (a table
// or a join), its filters (each a key and the condition on the placeholder named after it), its
// sortable columns and its id; the kit derives the shape from the filters present and the sort,
// and keeps the page and count statements of each shape, named prepared statements
// (./statements.ts). Given a transaction's ORM, it builds the statement on that connection.
// A list may count in its own way (`count`: a join, or further counts beside the total), or count
// at most `countLimit` rows (a table that grows without bound), and a list shown without pages
// reads its first rows (`first`) or all of them (`all`).
// Model list: `BlacklistsService` in src/admin/features/blacklists/blacklists.service.ts.
import { and, asc, count, gte, lt, lte, sql, type AnyColumn, type Placeholder, type SQL } from 'drizzle-orm';
import type { PgSelect, PgTable } from 'drizzle-orm/pg-core';
import { offsetOf } from '../http/schemas.ts';
import { PLAN_PER_CALL, type Orm } from './database.ts';
import { sortBy } from './order.ts';
import { p, Params, Statements } from './statements.ts';

/**
 * One filter: the condition on the placeholder named after its key (`where`), with what the
 * placeholder holds (`param`, the value itself by default); or, when the value decides the
 * text rather than a parameter (a boolean choosing IS NULL or IS NOT NULL), `inline`. A value
 * that is undefined, null or '' (or whose `param` is) leaves the filter out. A condition on
 * several values (a data scope: departments and an owner) names them with `params`, each a
 * placeholder `<key>.<name>` in its `condition`; `params` answering undefined leaves the filter out. A condition
 * with a subquery builds it on the `orm` it is given.
 */
export type Filter<V = never> =
  | ((x: Placeholder, orm: Orm) => SQL | undefined)
  | { param: (v: V) => unknown; where: (x: Placeholder, orm: Orm) => SQL | undefined }
  | { params: (v: V) => Record<string, unknown> | undefined; condition: (x: (name: string) => Placeholder, orm: Orm) => SQL | undefined }
  | { inline: (v: V) => SQL | undefined };

type Filters = Record<string, Filter<never>>;

/** The values a list's filters read, by key. */
export type FilterValues<F extends Filters> = {
  [K in keyof F]?: (F[K] extends { param: (v: infer V) => unknown } ? V
    : F[K] extends { params: (v: infer V) => unknown } ? V
      : F[K] extends { inline: (v: infer V) => unknown } ? V : unknown) | undefined | null;
};

const iso = (at: Date) => at.toISOString();
/**
 * Filters on a time column: at or after, at or before, before. The value is a Date, sent as its
 * ISO text (a placeholder is not encoded by its column).
 */
export const atOrAfter = (column: AnyColumn) => ({ param: iso, where: (x: Placeholder) => gte(column, x) });
export const atOrBefore = (column: AnyColumn) => ({ param: iso, where: (x: Placeholder) => lte(column, x) });
export const before = (column: AnyColumn) => ({ param: iso, where: (x: Placeholder) => lt(column, x) });

/** A count statement as built: its row holds the total as `n`, and any further counts. */
export interface Counting<C extends { n: number }> {
  prepare(name: string): { execute(values?: Record<string, unknown>): Promise<C[]> };
}

export interface ListSpec<T extends PgSelect, F extends Filters, O extends string, C extends { n: number } = { n: number }> {
  /** Prefix of the statements' names (`<name>_page`, `<name>_count`). */
  name: string;
  /** The rows: a select over the table or the join, made dynamic (`.$dynamic()`). */
  rows: (orm: Orm) => T;
  /** What the count runs over: `count(*)` of `table` with every filter, unless `count` says otherwise. */
  table: PgTable;
  /**
   * The count statement, when it is not that one (a join some filter needs; counts beside the
   * total, which `page` returns beside `total`): built on `orm`, where `where(...keys)` is the
   * condition of the filters named (of every filter and `always` when none is named). It
   * selects the total as `n`.
   */
  count?: (orm: Orm, where: (...keys: (keyof F & string)[]) => SQL | undefined) => Counting<C>;
  /**
   * Counts at most this many matching rows (its count reads at most this many index entries, so
   * a page costs the same however large the table grows); beyond it, `page` answers this number
   * as `total` and `capped: true`. Not with `count`. The page and count statements are then
   * planned for their values at every call (PLAN_PER_CALL): a plan made once for any values
   * (a time range of any width) read every row of the range on a large table.
   */
  countLimit?: number;
  filters: F;
  /** A condition every row of the list meets, whatever the filters. */
  always?: SQL;
  /** The sortable columns by `order_by` field, the id that breaks ties, the nullable ones. */
  sort: Record<O, AnyColumn>;
  id: AnyColumn;
  nullsLast?: readonly NoInfer<O>[];
  /** The order of `all` and `first` (a list shown without pages): default the id's. */
  order?: SQL[];
}

export interface PageQuery {
  page: number;
  page_size: number;
  order_by: string;
}

type Prepared<T extends PgSelect> = ReturnType<T['prepare']>;

type Rows<T extends PgSelect> = Awaited<ReturnType<Prepared<T>['execute']>>;

/** A declared paged list: `page(values, query)` answers its rows and total. */
export class PagedList<T extends PgSelect, F extends Filters, O extends string, C extends { n: number } = { n: number }> {
  private readonly statements = new Statements<{ page: Prepared<T>; total: ReturnType<Counting<C>['prepare']> }>();
  private readonly wholes = new Statements<Prepared<T>>();
  private readonly orm: Orm;
  private readonly spec: ListSpec<T, F, O, C>;

  constructor(orm: Orm, spec: ListSpec<T, F, O, C>) {
    this.orm = orm;
    this.spec = spec;
  }

  /** The parameters and shape of the filters present in `values`. */
  params(values: FilterValues<F>): Params {
    const params = new Params();
    for (const [key, filter] of Object.entries(this.spec.filters)) {
      const value = values[key];
      if (value === undefined || value === null || value === '') continue;
      if (typeof filter === 'function') params.set(key, value);
      else if ('param' in filter) params.set(key, filter.param(value as never));
      else if ('params' in filter) {
        const named = filter.params(value as never);
        if (named) params.group(key, named);
      } else params.shape(`${key}:${String(value)}`);
    }
    return params;
  }

  /** Whether any filter is present in `values`. */
  filtered(values: FilterValues<F>): boolean {
    return this.params(values).key !== '';
  }

  /** The WHERE clause of `values`' filters, on the placeholders `params(values)` fills. */
  where(values: FilterValues<F>, params: Params, orm: Orm = this.orm): SQL | undefined {
    return and(this.spec.always, ...Object.keys(this.spec.filters).map((key) => this.condition(key, values, params, orm)));
  }

  /** The condition of filter `key`, or undefined when `values` leave it out. */
  private condition(key: string, values: FilterValues<F>, params: Params, orm: Orm): SQL | undefined {
    const filter = this.spec.filters[key]!;
    if (typeof filter === 'function') return params.has(key) ? filter(p(key), orm) : undefined;
    if ('param' in filter) return params.has(key) ? filter.where(p(key), orm) : undefined;
    if ('params' in filter) return params.hasGroup(key) ? filter.condition((name) => p(`${key}.${name}`), orm) : undefined;
    const value = values[key];
    return value === undefined || value === null || value === '' ? undefined : filter.inline(value as never);
  }

  /**
   * One page of the filtered rows in `q`'s order, the total (`capped` when the list's
   * `countLimit` stopped it), and the further counts of the list's `count`; on `orm` (a
   * transaction's) when given.
   */
  async page(values: FilterValues<F>, q: PageQuery, orm: Orm = this.orm): Promise<{ rows: Rows<T>; total: number; capped: boolean } & Omit<C, 'n'>> {
    const params = this.params(values).shape(q.order_by).set('limit', q.page_size).set('offset', offsetOf(q));
    const build = () => this.build(orm, values, params, q.order_by);
    const { page, total } = orm === this.orm ? this.statements.get(params.key, build) : build();
    const [rows, [counted]] = await Promise.all([page.execute(params.values), total.execute(params.values)]);
    const { n, ...counts } = counted ?? ({ n: 0 } as C);
    const limit = this.spec.countLimit;
    const capped = limit !== undefined && n > limit;
    return { rows: rows as Rows<T>, total: capped ? limit : n, capped, ...counts };
  }

  /** Every filtered row, without page or count, in the list's `order` (short lists shown whole). */
  all(values: FilterValues<F>, orm: Orm = this.orm): Promise<Rows<T>> {
    return this.ordered(values, undefined, orm);
  }

  /**
   * The first `limit` filtered rows in the list's `order`, in one statement without a count (a
   * list that shows its total selects it beside each row, as `count(*) OVER ()`).
   */
  first(values: FilterValues<F>, limit: number, orm: Orm = this.orm): Promise<Rows<T>> {
    return this.ordered(values, limit, orm);
  }

  private async ordered(values: FilterValues<F>, limit: number | undefined, orm: Orm): Promise<Rows<T>> {
    const params = this.params(values).shape(limit === undefined ? 'all' : 'first').set('limit', limit);
    const build = () => {
      const rows = this.spec.rows(orm).where(this.where(values, params, orm)).orderBy(...(this.spec.order ?? [asc(this.spec.id)]));
      return (limit === undefined ? rows : rows.limit(p('limit'))).prepare(`${this.spec.name}_${limit === undefined ? 'all' : 'first'}`) as Prepared<T>;
    };
    const statement = orm === this.orm ? this.wholes.get(params.key, build) : build();
    return (await statement.execute(params.values)) as Rows<T>;
  }

  private build(orm: Orm, values: FilterValues<F>, params: Params, orderBy: string) {
    const { spec } = this;
    const filter = spec.countLimit === undefined ? this.where(values, params, orm) : and(PLAN_PER_CALL, this.where(values, params, orm));
    const where = (...keys: string[]) => (keys.length === 0 ? filter : and(...keys.map((key) => this.condition(key, values, params, orm))));
    const counting: Counting<C> = spec.count
      ? spec.count(orm, where)
      : spec.countLimit !== undefined
        ? (orm.select({ n: count() }).from(orm.select({ one: sql`1` }).from(spec.table).where(filter).limit(spec.countLimit + 1).as('matching')) as unknown as Counting<C>)
        : (orm.select({ n: count() }).from(spec.table).where(filter) as unknown as Counting<C>);
    return {
      page: spec
        .rows(orm)
        .where(filter)
        .orderBy(...sortBy<O>(orderBy, spec.sort, spec.id, spec.nullsLast))
        .limit(p('limit'))
        .offset(p('offset'))
        .prepare(`${spec.name}_page`) as Prepared<T>,
      total: counting.prepare(`${spec.name}_count`),
    };
  }
}

export function pagedList<T extends PgSelect, F extends Filters, O extends string, C extends { n: number } = { n: number }>(
  orm: Orm,
  spec: ListSpec<T, F, O, C>,
): PagedList<T, F, O, C> {
  return new PagedList(orm, spec);
}

/**
 * One declared statement (a detail by id: placeholder `id`), built once on the database's ORM
 * and kept; `on(orm)` gives it on a transaction's connection instead.
 */
export class Declared<S> {
  private readonly kept: S;
  private readonly orm: Orm;
  private readonly build: (orm: Orm) => S;

  constructor(orm: Orm, build: (orm: Orm) => S) {
    this.orm = orm;
    this.build = build;
    this.kept = build(orm);
  }

  on(orm: Orm = this.orm): S {
    return orm === this.orm ? this.kept : this.build(orm);
  }
}

export const declared = <S>(orm: Orm, build: (orm: Orm) => S) => new Declared(orm, build);
