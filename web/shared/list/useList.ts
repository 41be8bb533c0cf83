// A list screen's state and data: its filters, sort and page from the URL (params.ts), typed from
// the path's query parameters, and its page through TanStack Query (the previous page stays shown
// while the next one loads; loading, error and refetch come from the query, not from flags).
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { filterText, PAGE_SIZES, readListParams, writeListParams, type FilterValues, type ListParams, type ListResource, type OrderOf, type Untyped } from './params.ts';

/** A list's filters, sort and page, read from and written to the URL. */
export function useListParams<Q = Untyped>(defaultPageSize = 10) {
  const [search, setSearch] = useSearchParams();
  const params = useMemo(() => readListParams<Q>(search, defaultPageSize), [search, defaultPageSize]);
  const update = useCallback((next: Partial<ListParams<Q>>) => {
    setSearch(writeListParams<Q>({ ...params, ...next }, defaultPageSize));
  }, [params, setSearch, defaultPageSize]);
  const setPage = (page: number, pageSize: number) => update({ page: pageSize === params.pageSize ? page : 1, pageSize });
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
    setFilters: (filters: FilterValues<Q>) => update({ filters: filterText<Q>(filters), page: 1 }),
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
export function useList<Q, T>(resource: ListResource<Q, T>, defaultPageSize = 10) {
  const state = useListParams<Q>(defaultPageSize);
  const query = useQuery({ ...resource(state.params), placeholderData: keepPreviousData });
  return { ...state, query };
}

export type ListState<Q, T> = ReturnType<typeof useList<Q, T>>;
