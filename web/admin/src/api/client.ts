// The one way the console talks to the server: the kit's fetch wrapper (web/shared/api/client.ts)
// over the types generated from the server's OpenAPI document (schema.gen.ts), reading the
// console's envelope (errors.ts) and ending the session on a 401 that says so.
import { apiClient, type Result } from '../../../shared/api/client.ts';
import type { BodyOf, QueryOf } from '../../../shared/list/params.ts';
import { apiErrorOf, networkError } from './errors.ts';
import type { paths } from './schema.gen.ts';
import { endReasonOf, store, withRefreshLock, type EndReason } from './session.ts';

const client = apiClient<paths, EndReason>({
  session: store,
  errorOf: (status, body, headers) => apiErrorOf(status, body, headers.get('x-trace-id')),
  networkError,
  endOf401: (body) => endReasonOf((body as { code?: unknown } | null)?.code),
  // A tab refreshing the token holds the refresh lock and tells the others before it lets go;
  // the message may take a moment more to arrive.
  settled: () => withRefreshLock(async () => {}).then(() => new Promise((resolve) => setTimeout(resolve, 100))),
});

export const { api, download } = client;

/** The query a list path takes (its GET's query parameters). */
export type ListQuery<P extends keyof paths> = QueryOf<paths, P>;
/** The JSON body a path's method takes. */
export type Body<P extends keyof paths, M extends 'post' | 'put' | 'patch'> = BodyOf<paths, P, M>;

/** What a reply envelope carries in `data` (null for replies without any). */
type DataOf<E> = E extends { data: infer T } ? T : null;

/** The `data` of a successful envelope; any failure as an ApiError. */
export async function unwrap<E extends object>(pending: Promise<Result<E>>): Promise<DataOf<E>> {
  const { data, response } = await client.settle(pending);
  if (data === undefined) throw apiErrorOf(response.status, null, response.headers.get('x-trace-id'));
  return ((data as { data?: unknown }).data ?? null) as DataOf<E>;
}
