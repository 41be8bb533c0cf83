// The one fetch wrapper of both clients, over a typed openapi-fetch client generated from the
// service's OpenAPI document: every request carries the session's token, the language (so the
// server answers in it) and a trace id; every failure becomes an ApiError (the client says how to
// read its service's envelope); a 401 that refuses the token this tab holds ends the session,
// and a read refused with a token another tab has replaced meanwhile is sent again with the new one.
import i18n from 'i18next';
import createClient from 'openapi-fetch';
import { ApiError } from './errors.ts';

export interface ClientOptions<R> {
  /** The session of this tab (web/shared/session.ts). */
  session: { getSession: () => { token: string | null } | null; setSession: (session: null, reason?: R) => void };
  /** The error of an answer that is not a success, from its status, its parsed body and its headers. */
  errorOf: (status: number, body: unknown, headers: Headers) => ApiError;
  /** The error of a request that got no answer. */
  networkError: (cause: unknown) => ApiError;
  /** Why a 401 to the current token ends the session (undefined: it does not). */
  endOf401: (body: unknown) => R | undefined;
  /** Runs before a request without an Authorization header (the time clock gets its token first). */
  beforeRequest?: (path: string) => Promise<void>;
  /**
   * Resolves once no other tab is replacing the token (the console's refresh, which rotates it):
   * a 401 that would end the session is judged after it, since the new token may be on its way.
   */
  settled?: () => Promise<void>;
}

export interface Result<D> {
  data?: D;
  error?: unknown;
  response: Response;
}

const traceId = () => crypto.randomUUID().replaceAll('-', '');

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- openapi-fetch's own constraint on `paths`
export function apiClient<Paths extends {}, R>(options: ClientOptions<R>) {
  const api = createClient<Paths>({ baseUrl: typeof location === 'undefined' ? 'http://localhost' : location.origin });
  const { session } = options;

  // A copy of each read (a request without a body) to send again after the 401 below. Not of a
  // write: copying a body turns it into a stream (the browser's tools then show no body), and a
  // refused write is the user's to send again.
  const copies = new WeakMap<Request, Request>();

  api.use({
    async onRequest({ request }) {
      if (!request.headers.has('authorization')) await options.beforeRequest?.(new URL(request.url).pathname);
      const token = session.getSession()?.token;
      if (token && !request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${token}`);
      request.headers.set('accept-language', i18n.language);
      request.headers.set('x-trace-id', traceId());
      if (request.body === null) copies.set(request, request.clone());
      return request;
    },
    async onResponse({ request, response }) {
      const sent = request.headers.get('authorization');
      if (response.status !== 401 || !sent) return response;
      const bearer = () => {
        const token = session.getSession()?.token;
        return token ? `Bearer ${token}` : null;
      };
      if (sent === bearer()) {
        const reason = options.endOf401(await response.clone().json().catch(() => null));
        if (reason === undefined) return response;
        await options.settled?.();
        if (sent === bearer()) {
          session.setSession(null, reason);
          return response;
        }
      }
      // Another tab replaced the token while this request was on its way: once more with the new one.
      const now = bearer();
      const copy = copies.get(request);
      if (!now || !copy) return response;
      copy.headers.set('authorization', now);
      return fetch(copy);
    },
  });

  /** The body of a successful answer and the answer; any failure as an ApiError. */
  async function settle<D>(pending: Promise<Result<D>>): Promise<{ data: D | undefined; response: Response }> {
    let result: Result<D>;
    try {
      result = await pending;
    } catch (err) {
      throw err instanceof ApiError ? err : options.networkError(err);
    }
    const { data, error, response } = result;
    if (!response.ok || error !== undefined) throw options.errorOf(response.status, error ?? null, response.headers);
    return { data, response };
  }

  /** A file from an authenticated download endpoint, saved by the browser under its own name. */
  async function download(path: string, fallbackName: string): Promise<void> {
    const token = session.getSession()?.token;
    let response: Response;
    try {
      response = await fetch(path, { headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'accept-language': i18n.language } });
    } catch (err) {
      throw options.networkError(err);
    }
    if (!response.ok) throw options.errorOf(response.status, await response.json().catch(() => null), response.headers);
    const name = /filename\*=UTF-8''([^;]+)/.exec(response.headers.get('content-disposition') ?? '')?.[1];
    const url = URL.createObjectURL(await response.blob());
    const a = document.createElement('a');
    a.href = url;
    a.download = name ? decodeURIComponent(name) : fallbackName;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }

  return { api, settle, download };
}
