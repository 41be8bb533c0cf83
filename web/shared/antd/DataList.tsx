// A list's rows at phone width as cards: `DataList` takes the props of an antd Table and renders
// the table from \`md\` (768 px) up, and below it a list of cards, one per row. Its styles are
// DataList.css (the class names are the ones the browser tests look for).
import { Empty, Grid, Pagination, Spin, Table, type TableProps } from 'antd';
import type { ColumnType } from 'antd/es/table';
import { useState, type Key, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { QueryError } from './feedback.tsx';
import './DataList.css';

/** Phone width (below Ant Design's `md`, 768 px): navigation in a drawer, lists as cards, one-column forms. */
export function useNarrow(): boolean {
  const screens = Grid.useBreakpoint();
  // Before the first measurement every breakpoint is undefined: decide from the window.
  return screens.md === undefined ? typeof window !== 'undefined' && window.innerWidth < 768 : !screens.md;
}

function cellOf<T>(column: ColumnType<T>, row: T, index: number): ReactNode {
  const value = typeof column.dataIndex === 'string' ? (row as Record<string, unknown>)[column.dataIndex] : undefined;
  return column.render ? (column.render(value, row, index) as ReactNode) : (value as ReactNode) ?? null;
}

/**
 * A list screen's rows: an Ant Design table from `md` up; at phone width a list of cards, one per
 * row, its first column as the card's heading, the other titled columns as label and value, the
 * untitled ones (tags, actions) at the bottom, and the expandable details under a disclosure. The
 * same props as a table, so a screen declares its columns once.
 */
export function DataList<T extends object>(props: TableProps<T> & { 'aria-label'?: string }) {
  const narrow = useNarrow();
  const { t } = useTranslation();
  const [localPage, setLocalPage] = useState(1);
  if (!narrow) return <Table<T> {...props} />;
  const columns = (props.columns ?? []) as ColumnType<T>[];
  const rows = (props.dataSource ?? []) as T[];
  const keyOf = (row: T, i: number): Key =>
    typeof props.rowKey === 'function' ? props.rowKey(row, i) : ((row as Record<string, unknown>)[(props.rowKey as string | undefined) ?? 'key'] as Key) ?? i;
  const pagination = props.pagination === false ? null : props.pagination ?? {};
  const pageSize = pagination?.pageSize ?? 10;
  const current = pagination?.current ?? 1;
  // Client-side paging when the table would page the rows itself (no `total`: all rows are here).
  const local = pagination && pagination.total === undefined;
  const page = local ? localPage : current;
  const shown = local ? rows.slice((page - 1) * pageSize, page * pageSize) : rows;
  const total = pagination?.total ?? rows.length;
  const loading = typeof props.loading === 'object' ? Boolean(props.loading.spinning) : Boolean(props.loading);
  const [head, ...rest] = columns;
  const expand = props.expandable?.expandedRowRender;
  return (
    <Spin spinning={loading}>
      {shown.length === 0 ? (
        <div className="mgr-cards-empty">{(typeof props.locale?.emptyText === 'function' ? props.locale.emptyText() : props.locale?.emptyText) ?? <Empty />}</div>
      ) : (
        <ul className="mgr-cards" aria-label={props['aria-label']}>
          {shown.map((row, i) => {
            const labelled = rest.filter((c) => Boolean(c.title));
            const bare = rest.filter((c) => !c.title);
            return (
              <li key={keyOf(row, i)} className="mgr-card">
                {head && <div className="mgr-card-head">{cellOf(head, row, i)}</div>}
                {labelled.length > 0 && (
                  <dl>
                    {labelled.map((c, j) => (
                      <div key={j}>
                        <dt>{typeof c.title === 'function' ? c.title({}) : c.title}</dt>
                        <dd>{cellOf(c, row, i)}</dd>
                      </div>
                    ))}
                  </dl>
                )}
                {bare.map((c, j) => <div key={j} className="mgr-card-actions">{cellOf(c, row, i)}</div>)}
                {expand && (
                  <details className="mgr-card-details">
                    <summary>{t('kit:action.details')}</summary>
                    {expand(row, i, 0, true)}
                  </details>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {pagination && total > pageSize && (
        <Pagination
          simple
          className="mgr-cards-pages"
          current={page}
          pageSize={pageSize}
          total={total}
          onChange={(p, size) => (local ? setLocalPage(p) : pagination.onChange?.(p, size))}
        />
      )}
    </Spin>
  );
}

/** What QueryDataList reads of a TanStack query. */
interface RowsQuery { isError: boolean; isPending: boolean; data?: unknown; error: unknown; refetch: () => unknown }

/**
 * The rows of a query as a DataList: loading until its first answer, then the rows (kept when a
 * later refetch fails), or, with none to show, the query's error with a retry. `empty` is what an
 * empty list says.
 */
export function QueryDataList<T extends object>({ query, empty, ...props }: Omit<TableProps<T>, 'loading' | 'locale'> & { 'aria-label'?: string; query: RowsQuery; empty: ReactNode }) {
  if (query.isError && query.data === undefined) return <QueryError error={query.error} onRetry={() => void query.refetch()} />;
  return <DataList<T> {...props} loading={query.isPending} locale={{ emptyText: <Empty description={empty} /> }} />;
}
