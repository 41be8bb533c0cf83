// What the console's screens share beyond the kit (web/shared), for this service alone: the query
// client, how the time clock's refusals read in the manager's language, the kit's words, the
// console settings (map tiles), the sites, the export queue's tasks and time formatting.
import { QueryClient, useMutation, useQuery } from '@tanstack/react-query';
import dayjs from 'dayjs';
import type { TFunction } from 'i18next';
import { useEffect } from 'react';
import { describeErrors } from '../../../shared/feedback.ts';
import { api, call } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';
import i18n, { addStrings } from '../i18n/index.ts';
import { kitStrings } from './strings.ts';

/** A translation function of any namespace, with options. */
export type Tr = TFunction<string, undefined>;

addStrings('kit', kitStrings);

// A refusal in words: rate limits and unavailability, a unique value already used (the field
// says which), the codes the console explains; the server's message otherwise.
describeErrors((err) => {
  if (err.status === 429) return i18n.t('manager:error.limited', { seconds: err.retryAfter ?? 60 });
  if (err.status === 503) return i18n.t('common:error.unavailable');
  // A correction that would break the alternation of punches: the punch it conflicts with, in local time.
  if (err.code === 'CORRECTION_BREAKS_ORDER' && i18n.exists('corrections:refusal.breaksOrder')) {
    const { conflictingEventType: type, conflictingAt: at } = err.details;
    return typeof at === 'string' && (type === 'clock_in' || type === 'clock_out')
      ? i18n.t('corrections:refusal.breaksOrder', { type: i18n.t(`corrections:type.${type}`), at: dayjs(at).format('YYYY-MM-DD HH:mm') })
      : i18n.t('corrections:refusal.breaksOrderFirst');
  }
  const taken = `manager:conflict.${String(err.details.field)}`;
  if (err.code === 'CONFLICT' && typeof err.details.field === 'string' && i18n.exists(taken)) return i18n.t(taken);
  const known = `manager:code.${err.code}`;
  return i18n.exists(known) && i18n.t(known) !== '' ? i18n.t(known) : undefined;
});

export const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: (n, err) => n < 2 && err instanceof ApiError && (err.offline || err.status >= 500), staleTime: 2_000 } },
});
// The server answers in the language of the request (the default site's seeded name is translated
// until it is renamed): a switch of language fetches what is shown again.
i18n.on('languageChanged', () => void queryClient.invalidateQueries());

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

/**
 * An export on the export queue: `begin(format)` queues it, its task is followed until it ends,
 * and its file is downloaded once completed (as `fileName(format)`); `again` downloads it again.
 */
export function useExportTask<F extends string>(queue: (format: F) => Promise<{ id: number }>, fileName: (format: string) => string) {
  const start = useMutation({ mutationFn: queue });
  const taskId = start.data?.id;
  const task = useQuery({
    queryKey: ['export', taskId],
    queryFn: () => call(api.GET('/api/managers/exports/{id}', { params: { path: { id: taskId! } } })),
    enabled: taskId !== undefined,
    refetchInterval: (q) => (q.state.data && !['pending', 'processing'].includes(q.state.data.status) ? false : 700),
  });
  const download = useMutation({
    mutationFn: async (id: number) => {
      const blob = await call(api.GET('/api/managers/exports/{id}/download', { params: { path: { id } }, parseAs: 'blob' }));
      const a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = fileName(task.data?.format ?? 'csv');
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
    },
  });
  const ready = task.data?.status === 'completed' ? task.data.id : undefined;
  const { mutate: again } = download;
  useEffect(() => {
    if (ready !== undefined) again(ready);
  }, [ready, again]);
  const working = start.isPending || (taskId !== undefined && (!task.data || ['pending', 'processing'].includes(task.data.status)));
  const failure = start.error ?? task.error ?? download.error ?? (task.data?.status === 'failed' ? new Error(task.data.error ?? '') : null);
  return { begin: start.mutate, ready, again, working, failure, downloadFailed: download.isError };
}
