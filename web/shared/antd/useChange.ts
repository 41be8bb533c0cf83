// The changes a list screen makes to its rows without a form (delete, enable, mark read, kick
// out): each runs through TanStack Query's useMutation, its outcome is said in a toast (useAction's:
// the success, or the refusal in the reader's language), and the lists it touches are refreshed
// whether it succeeded or not (a refusal can mean that the row changed meanwhile).
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useAction } from './feedback.tsx';

/** `change(request, done)` resolves true when it succeeded; `refresh()` refreshes the lists alone. */
export function useChange(...invalidates: readonly QueryKey[]) {
  const run = useAction();
  const client = useQueryClient();
  const { mutateAsync } = useMutation({ mutationFn: (request: () => Promise<unknown>) => request() });
  const refresh = () => {
    for (const queryKey of invalidates) void client.invalidateQueries({ queryKey });
  };
  const change = async (request: () => Promise<unknown>, done?: string) => {
    const ok = await run(() => mutateAsync(request), done);
    refresh();
    return ok;
  };
  return { change, refresh };
}
