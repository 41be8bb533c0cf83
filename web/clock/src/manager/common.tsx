// What the console's screens share: the query client, failed-query and action feedback in the
// manager's language (the server's field errors next to their fields), list filters in the URL,
// the console settings (map tiles), and time formatting.
import { QueryClient, useQuery } from '@tanstack/react-query';
import { App, Button, Result } from 'antd';
import dayjs from 'dayjs';
import { useCallback, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { api, call } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';
import type { TFunction } from 'i18next';

/** A translation function of any namespace. */
export type Tr = TFunction<string, undefined>;

export const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: (n, err) => n < 2 && err instanceof ApiError && (err.offline || err.status >= 500), staleTime: 2_000 } },
});

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
