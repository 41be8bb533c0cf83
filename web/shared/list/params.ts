// A list's filters, page, page size and sort live in the URL's search parameters, so that a reload
// or a shared link shows the same view. Their names and the sort's values are typed from the
// OpenAPI path's GET query parameters (QueryOf), so a renamed filter breaks the type-check. Pure
// functions (tested without a browser) and the list's query (cache key and request).
import { queryOptions, type QueryClient } from '@tanstack/react-query';

/** The query parameters of a path's GET. */
export type QueryOf<Paths, P extends keyof Paths> = Paths[P] extends { get: { parameters: { query?: infer Q } } } ? NonNullable<Q> : never;

type Paging = 'page' | 'page_size' | 'order_by';
/** A list's filters: its query parameters but paging and sort. */
export type FiltersOf<Q> = Omit<Q, Paging>;
/** `field:asc|desc`, as the path declares them. */
export type OrderOf<Q> = string extends keyof Q ? string : Q extends { order_by?: infer O } ? Extract<O, string> : never;
/** The fields a list sorts by. */
export type SortField<Q> = OrderOf<Q> extends `${infer F}:${string}` ? F : never;
/** The names of a list's filters, typed; their values as the URL has them (text). */
export type FilterText<Q> = string extends keyof Q ? Record<string, string> : { [K in keyof FiltersOf<Q> & string]?: string };
/** A list whose query is not typed (its filters are any text). */
export type Untyped = Record<string, string | number>;
/** Filter values to set (typed names; a number is written as text, nothing or '' removes it). */
export type FilterValues<Q> = { [K in keyof FiltersOf<Q> & string]?: string | number | null };

export interface ListParams<Q = Untyped> {
  page: number;
  pageSize: number;
  /** `field:asc|desc`, when chosen. */
  orderBy: OrderOf<Q> | undefined;
  /** Every other search parameter, as text. */
  filters: FilterText<Q>;
}

const RESERVED = new Set(['page', 'page_size', 'order_by']);
export const PAGE_SIZES = [10, 20, 50, 100];

export function readListParams<Q = Untyped>(search: URLSearchParams, defaultPageSize = 10): ListParams<Q> {
  const page = Number(search.get('page'));
  const pageSize = Number(search.get('page_size'));
  const filters: Record<string, string> = {};
  for (const [k, v] of search) if (!RESERVED.has(k) && v !== '') filters[k] = v;
  return {
    page: Number.isInteger(page) && page >= 1 ? page : 1,
    pageSize: PAGE_SIZES.includes(pageSize) ? pageSize : defaultPageSize,
    orderBy: (search.get('order_by') ?? undefined) as OrderOf<Q> | undefined,
    filters: filters as FilterText<Q>,
  };
}

/** The search parameters of `params` (defaults left out, empty filters dropped). */
export function writeListParams<Q = Untyped>(params: ListParams<NoInfer<Q>>, defaultPageSize = 10): URLSearchParams {
  const out = new URLSearchParams();
  for (const [k, v] of Object.entries<string | undefined>(params.filters)) if (v !== '' && v !== undefined) out.set(k, v);
  if (params.orderBy) out.set('order_by', params.orderBy);
  if (params.page !== 1) out.set('page', String(params.page));
  if (params.pageSize !== defaultPageSize) out.set('page_size', String(params.pageSize));
  return out;
}

/** Filter values as the URL keeps them: text, without the empty ones. */
export function filterText<Q>(values: FilterValues<Q>): FilterText<Q> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries<string | number | null | undefined>(values)) {
    const text = v === null || v === undefined ? '' : String(v).trim();
    if (text !== '') out[k] = text;
  }
  return out as FilterText<Q>;
}

/**
 * The query string a list endpoint takes: filters, `page`, `page_size`, `order_by`. The filters'
 * names are the path's (typed); their values go as the URL has them (a query string is text), and
 * the server's own defaults stand for what is left out.
 */
export function toQuery<Q = Untyped>(params: ListParams<NoInfer<Q>>): NoInfer<Q> {
  return { ...params.filters, page: params.page, page_size: params.pageSize, ...(params.orderBy ? { order_by: params.orderBy } : {}) } as Q;
}

/**
 * How long a page of a list just read is shown without asking again: the request started with a
 * navigation is not repeated when the screen mounts a moment later. Every change a screen makes
 * refreshes its list explicitly.
 */
const LIST_FRESH_MS = 5_000;

/**
 * A list's query (cache key and request) for the given list parameters, and `prefetch`, which
 * starts it for a URL's search parameters (a console defines it next to the screen, in its
 * `query.ts`, which the screen registry imports too, so that the request starts with the
 * navigation). `key` is what a change invalidates.
 */
export function listQuery<Q, T>(key: readonly string[], fetch: (query: Q) => Promise<T>) {
  const options = (params: ListParams<Q>) => queryOptions({ queryKey: [...key, params], queryFn: () => fetch(toQuery<Q>(params)), staleTime: LIST_FRESH_MS });
  const prefetch = (client: QueryClient, search: URLSearchParams) => client.prefetchQuery(options(readListParams<Q>(search)));
  return Object.assign(options, { prefetch, key });
}

export type ListResource<Q, T> = ReturnType<typeof listQuery<Q, T>>;

/** The JSON body a path's method takes. */
export type BodyOf<Paths, P extends keyof Paths, M extends 'post' | 'put' | 'patch'> =
  Paths[P] extends { [m in M]: { requestBody?: { content: { 'application/json': infer B } } } } ? B : never;

/** The filters alone as a query (a list that takes no paging, such as a tree): as the URL has them. */
export function filterQuery<Q>(filters: FilterText<Q>): FiltersOf<Q> {
  return filters as unknown as FiltersOf<Q>;
}

/** What a list's request answers (a page: `list`, `total`, …). */
export type PageOf<R> = R extends ListResource<infer _Q, infer T> ? T : never;

/** The filters of a list that a body takes too (an export's), by the body's typed names, as the URL has them (text). */
export function filtersFor<B>(filters: Record<string, string | undefined>, keys: readonly (keyof B & string)[]): B {
  return Object.fromEntries(keys.filter((k) => filters[k] !== undefined).map((k) => [k, filters[k]])) as B;
}

/** The query a list's request takes (its path's). */
export type QueryOfList<R> = R extends ListResource<infer Q, infer _T> ? Q : never;
