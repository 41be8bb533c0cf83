// A list screen's state and data: its filters, sort and page from the URL (params.ts), typed from
// the path's query parameters, and its page through TanStack Query (the previous page stays shown
// while the next one loads; loading, error and refetch come from the query, not from flags). And a
// screen's tab in the URL.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useCallback, useMemo, useState } from 'react';
import { useSearchParams } from 'react-router';
import { filterText, PAGE_SIZES, readListParams, writeListParams, type FilterValues, type ListParams, type ListResource, type OrderOf, type Untyped } from './params.ts';

/**
 * Where a list keeps its state: in the URL (a screen's list), or, with `local` (its first filters),
 * in the component (a list inside a drawer or a tab, whose state a link does not carry).
 */
export interface ListOptions<Q> {
  local?: FilterValues<Q>;
  /** Asks for the page again this often (ms) while the list is shown. */
  refetchInterval?: number;
}

/** A list's filters, sort and page, read from and written to the URL (or the component, `local`). */
export function useListParams<Q = Untyped>(defaultPageSize = 10, { local }: ListOptions<Q> = {}) {
  const url = useSearchParams();
  const memory = useState(() => writeListParams<Q>({ page: 1, pageSize: defaultPageSize, orderBy: undefined, filters: filterText<Q>(local ?? {}) }, defaultPageSize));
  const [search, setSearch] = local ? memory : url;
  const params = useMemo(() => readListParams<Q>(search, defaultPageSize), [search, defaultPageSize]);
  const update = useCallback((next: Partial<ListParams<Q>>) => {
    setSearch(writeListParams<Q>({ ...params, ...next }, defaultPageSize));
  }, [params, setSearch, defaultPageSize]);
  const setPage = (page: number, pageSize: number) => update({ page: pageSize === params.pageSize ? page : 1, pageSize });
  // The same function until the URL changes, so that a filter form built on it is not rendered again when rows arrive.
  const setFilters = useCallback((filters: FilterValues<Q>) => update({ filters: filterText<Q>(filters), page: 1 }), [update]);
  return {
    params,
    filters: params.filters,
    /** Whether any filter is set (an empty list then says that nothing matches them). */
    filtered: Object.keys(params.filters).length > 0,
    /**
     * The paging of an antd Table showing `total` rows, bound to the URL. `capped`: the server's
     * count stopped at `total` (more rows match), with the words the pager shows and the rows of
     * this page: the next page stays reachable until a page comes back short.
     */
    pagination: (total: number, capped?: { words: string; rows: number }) => ({
      current: params.page, pageSize: params.pageSize, showSizeChanger: true, pageSizeOptions: PAGE_SIZES, onChange: setPage,
      total: capped ? cappedTotal(total, params.page, params.pageSize, capped.rows) : total,
      ...(capped ? { showTotal: () => capped.words } : {}),
    }),
    /** New filters (these and no others) start again at page 1. */
    setFilters,
    /** These filters changed, the others and the page kept: a choice beside the rows (a detail opened, an export's options). */
    changeFilters: (values: FilterValues<Q>) => update({ filters: filterText<Q>({ ...params.filters, ...values }) }),
    setPage,
    setOrderBy: (orderBy: OrderOf<Q> | undefined) => update({ orderBy, page: 1 }),
  };
}

/** The rows a pager counts for a capped total: those read so far, and one page more unless this one came back short. */
function cappedTotal(total: number, page: number, pageSize: number, rows: number): number {
  const read = (page - 1) * pageSize + rows;
  return rows < pageSize ? read : Math.max(total, read + 1);
}

/** The list's URL state and its page, fetched by `resource`. */
export function useList<Q, T>(resource: ListResource<Q, T>, defaultPageSize = 10, options: ListOptions<Q> = {}) {
  const state = useListParams<Q>(defaultPageSize, options);
  const query = useQuery({ ...resource(state.params), placeholderData: keepPreviousData, refetchInterval: options.refetchInterval });
  return { ...state, query };
}

export type ListState<Q, T> = ReturnType<typeof useList<Q, T>>;

/**
 * The tab of a screen in the URL's search parameter `param` (shareable, kept on reload): one of
 * `keys`, the first when the parameter is missing or unknown. Choosing the first removes it; the
 * other parameters (a list's filters) stay as they are.
 */
export function useUrlTab<K extends string>(keys: readonly [K, ...K[]], param = 'tab'): [K, (next: K) => void] {
  const [search, setSearch] = useSearchParams();
  const asked = search.get(param);
  const tab = keys.find((k) => k === asked) ?? keys[0];
  const choose = useCallback((next: K) => {
    setSearch((current) => {
      const out = new URLSearchParams(current);
      if (next === keys[0]) out.delete(param);
      else out.set(param, next);
      return out;
    }, { replace: true });
  }, [keys, param, setSearch]);
  return [tab, choose];
}

