// What the console's screens share: the query client, failed-query and action feedback in the
// manager's language (the server's field errors next to their fields), list filters in the URL,
// the console settings (map tiles), time formatting, and the phone-width layout: `useNarrow()`
// and `DataList`, a table that becomes a list of cards at phone width.
import { QueryClient, useQuery } from '@tanstack/react-query';
import { App, Button, Empty, Grid, Pagination, Result, Spin, Table, type TableProps } from 'antd';
import type { ColumnType } from 'antd/es/table';
import dayjs from 'dayjs';
import { useCallback, useMemo, useState, type Key, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { api, call } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';
import i18n from '../i18n/index.ts';
import type { TFunction } from 'i18next';

/** A translation function of any namespace. */
export type Tr = TFunction<string, undefined>;

export const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: (n, err) => n < 2 && err instanceof ApiError && (err.offline || err.status >= 500), staleTime: 2_000 } },
});
// The server answers in the language of the request (the default site's seeded name is translated
// until it is renamed): a switch of language fetches what is shown again.
i18n.on('languageChanged', () => void queryClient.invalidateQueries());

/** A refusal or failure in words, in the manager's language (the server's message otherwise). */
export function messageOf(err: unknown, t: Tr): string {
  if (err instanceof ApiError) {
    if (err.offline) return t('common:error.network');
    if (err.status === 429) return t('manager:error.limited', { seconds: err.retryAfter ?? 60 });
    if (err.status === 503) return t('common:error.unavailable');
    // A unique value already used (a username, a tag name): the field says which.
    if (err.code === 'CONFLICT' && typeof err.details.field === 'string') {
      const taken = t(`manager:conflict.${err.details.field}`, { defaultValue: '' });
      if (taken) return taken;
    }
    const known = t(`manager:code.${err.code}`, { defaultValue: '' });
    return known || err.message;
  }
  return err instanceof Error ? err.message : String(err);
}

export function QueryError({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { t } = useTranslation();
  return (
    <Result
      status="error"
      title={t('manager:state.error')}
      subTitle={messageOf(error, t)}
      extra={onRetry ? <Button onClick={onRetry}>{t('common:action.retry')}</Button> : undefined}
    />
  );
}

/** `run(action)`: shows the outcome of an action as a message; resolves true when it succeeded. */
export function useAction() {
  const { message } = App.useApp();
  const { t } = useTranslation();
  return useCallback(async (action: () => Promise<unknown>, success = t('manager:state.done')): Promise<boolean> => {
    try {
      await action();
      void message.success(success);
      return true;
    } catch (err) {
      void message.error(messageOf(err, t));
      return false;
    }
  }, [message, t]);
}

/** The server's validation error put next to the form field it names, when the form has it. */
export function fieldErrors(err: unknown, fields: readonly string[], t: Tr): { name: string; errors: string[] }[] {
  if (!(err instanceof ApiError)) return [];
  const field = typeof err.details.field === 'string' ? err.details.field.replace(/^\/?body\/?/, '').split(/[./]/)[0] ?? '' : '';
  return field && fields.includes(field) ? [{ name: field, errors: [messageOf(err, t)] }] : [];
}

/** Filters of a list screen in the URL's search parameters (shareable, kept on reload). */
export function useUrlFilters() {
  const [search, setSearch] = useSearchParams();
  const filters = useMemo(() => Object.fromEntries([...search].filter(([, v]) => v !== '')), [search]);
  const set = useCallback((next: Record<string, string | number | undefined | null>) => {
    const out = new URLSearchParams();
    for (const [k, v] of Object.entries({ ...filters, ...next })) if (v !== undefined && v !== null && v !== '') out.set(k, String(v));
    setSearch(out);
  }, [filters, setSearch]);
  const page = Math.max(1, Number(filters.page) || 1);
  return { filters, set, page };
}

/** A time of today as HH:mm, of another day with its date. */
export const sinceTime = (iso: string) => (dayjs(iso).isSame(dayjs(), 'day') ? dayjs(iso).format('HH:mm') : dayjs(iso).format('YYYY-MM-DD HH:mm'));

export const fmt = (iso: string | null | undefined) => (iso ? dayjs(iso).format('YYYY-MM-DD HH:mm:ss') : '—');

export function useConsoleSettings() {
  return useQuery({
    queryKey: ['console-settings'],
    queryFn: () => call(api.GET('/api/managers/console-settings')),
    staleTime: Infinity,
  });
}

export function useSites() {
  return useQuery({ queryKey: ['sites'], queryFn: () => call(api.GET('/api/managers/sites')) });
}

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
  const { t } = useTranslation('manager');
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
                    <summary>{t('action.details')}</summary>
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
