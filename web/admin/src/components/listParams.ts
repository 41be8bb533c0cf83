// A list's filters, page, page size and sort live in the URL's search parameters, so that a
// reload or a shared link shows the same view. Pure functions (tested without a browser) and
// the hook that binds them to the router.
import { queryOptions, type QueryClient } from '@tanstack/react-query';
import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router';

export interface ListParams {
  page: number;
  pageSize: number;
  /** `field:asc|desc`, when chosen. */
  orderBy: string | undefined;
  /** Every other search parameter, as text. */
  filters: Record<string, string>;
}

const RESERVED = new Set(['page', 'page_size', 'order_by']);
export const PAGE_SIZES = [10, 20, 50, 100];

export function readListParams(search: URLSearchParams, defaultPageSize = 10): ListParams {
  const page = Number(search.get('page'));
  const pageSize = Number(search.get('page_size'));
  const filters: Record<string, string> = {};
  for (const [k, v] of search) if (!RESERVED.has(k) && v !== '') filters[k] = v;
  return {
    page: Number.isInteger(page) && page >= 1 ? page : 1,
    pageSize: PAGE_SIZES.includes(pageSize) ? pageSize : defaultPageSize,
    orderBy: search.get('order_by') ?? undefined,
    filters,
  };
}

/** The search parameters of `params` (defaults left out, empty filters dropped). */
export function writeListParams(params: ListParams, defaultPageSize = 10): URLSearchParams {
  const out = new URLSearchParams();
  for (const [k, v] of Object.entries(params.filters)) if (v !== '' && v !== undefined) out.set(k, v);
  if (params.orderBy) out.set('order_by', params.orderBy);
  if (params.page !== 1) out.set('page', String(params.page));
  if (params.pageSize !== defaultPageSize) out.set('page_size', String(params.pageSize));
  return out;
}

/** The query string a list endpoint takes: filters, `page`, `page_size`, `order_by`. */
export function toQuery(params: ListParams): Record<string, string | number> {
  return { ...params.filters, page: params.page, page_size: params.pageSize, ...(params.orderBy ? { order_by: params.orderBy } : {}) };
}

/**
 * How long a page of a list just read is shown without asking again: the request started with a
 * navigation is not repeated when the screen mounts a moment later. Every change a screen makes
 * refreshes its list explicitly.
 */
const LIST_FRESH_MS = 5_000;

/**
 * A list screen's query (cache key and request) for the given list parameters, and `prefetch`,
 * which starts it for a URL's search parameters. Defined next to the screen in its `query.ts`,
 * which the screen registry imports too, so that the request starts with the navigation, before
 * the screen's code is loaded.
 */
export function listQuery<T>(key: readonly string[], fetch: (query: Record<string, string | number>) => Promise<T>) {
  const options = (params: ListParams) => queryOptions({ queryKey: [...key, params], queryFn: () => fetch(toQuery(params)), staleTime: LIST_FRESH_MS });
  const prefetch = (client: QueryClient, search: URLSearchParams) => client.prefetchQuery(options(readListParams(search)));
  return Object.assign(options, { prefetch });
}

export function useListParams(defaultPageSize = 10) {
  const [search, setSearch] = useSearchParams();
  const params = useMemo(() => readListParams(search, defaultPageSize), [search, defaultPageSize]);
  const update = useCallback((next: Partial<ListParams>) => {
    setSearch(writeListParams({ ...params, ...next }, defaultPageSize));
  }, [params, setSearch, defaultPageSize]);
  const setPage = (page: number, pageSize: number) => update({ page: pageSize === params.pageSize ? page : 1, pageSize });
  return {
    params,
    /** Whether any filter is set (an empty list then says that nothing matches them). */
    filtered: Object.keys(params.filters).length > 0,
    /** The paging of an antd Table showing `total` rows, bound to the URL. */
    pagination: (total: number) => ({ current: params.page, pageSize: params.pageSize, total, showSizeChanger: true, pageSizeOptions: PAGE_SIZES, onChange: setPage }),
    /** New filters start again at page 1. */
    setFilters: (filters: Record<string, string | undefined>) =>
      update({ filters: Object.fromEntries(Object.entries(filters).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== '')), page: 1 }),
    setPage,
    setOrderBy: (orderBy: string | undefined) => update({ orderBy, page: 1 }),
  };
}
