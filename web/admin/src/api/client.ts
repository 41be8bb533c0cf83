// The one way the console talks to the server: a typed client generated from the server's
// OpenAPI document (schema.gen.ts), which adds the token (held in memory, session.ts), the
// language and a trace id to every request, turns every failure into an ApiError, and ends the
// session on a 401 that says so.
import createClient from 'openapi-fetch';
import i18n from '../i18n/index.ts';
import { apiErrorOf, ApiError, networkError, type Envelope } from './errors.ts';
import type { paths } from './schema.gen.ts';
import { endReasonOf, getSession, setSession } from './session.ts';

export const api = createClient<paths>({ baseUrl: typeof location === 'undefined' ? 'http://localhost' : location.origin });

const traceId = () => crypto.randomUUID().replaceAll('-', '');

api.use({
  onRequest({ request }) {
    const session = getSession();
    if (session && !request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${session.token}`);
    request.headers.set('accept-language', i18n.language);
    request.headers.set('x-trace-id', traceId());
    return request;
  },
  async onResponse({ request, response }) {
    // Only when the token sent is still this tab's (another tab may have refreshed it meanwhile).
    const session = getSession();
    if (response.status === 401 && session && request.headers.get('authorization') === `Bearer ${session.token}`) {
      const body = (await response.clone().json().catch(() => null)) as Partial<Envelope<null>> | null;
      const reason = endReasonOf(body?.code);
      if (reason) setSession(null, reason);
    }
    return response;
  },
});

interface Result<D> {
  data?: D;
  error?: unknown;
  response: Response;
}

/** What a reply envelope carries in `data` (null for replies without any). */
type DataOf<E> = E extends { data: infer T } ? T : null;

/** The `data` of a successful envelope; any failure as an ApiError. */
export async function unwrap<E extends object>(pending: Promise<Result<E>>): Promise<DataOf<E>> {
  let result: Result<E>;
  try {
    result = await pending;
  } catch (err) {
    throw err instanceof ApiError ? err : networkError(err);
  }
  const { data, error, response } = result;
  if (!response.ok || error !== undefined || data === undefined) throw apiErrorOf(response.status, error ?? null, response.headers.get('x-trace-id'));
  return ((data as { data?: unknown }).data ?? null) as DataOf<E>;
}

/** A file from an authenticated download endpoint, saved by the browser under its own name. */
export async function download(path: string, fallbackName: string): Promise<void> {
  const session = getSession();
  let response: Response;
  try {
    response = await fetch(path, { headers: { ...(session ? { authorization: `Bearer ${session.token}` } : {}), 'accept-language': i18n.language } });
  } catch (err) {
    throw networkError(err);
  }
  if (!response.ok) throw apiErrorOf(response.status, await response.json().catch(() => null), response.headers.get('x-trace-id'));
  const name = /filename\*=UTF-8''([^;]+)/.exec(response.headers.get('content-disposition') ?? '')?.[1];
  const url = URL.createObjectURL(await response.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name ? decodeURIComponent(name) : fallbackName;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
