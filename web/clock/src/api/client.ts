// The one way the app talks to the server: a typed client generated from the time-clock
// service's OpenAPI document (schema.gen.ts), which adds the token and the language to every
// request, turns every failure into an ApiError (no answer at all: status 0, `offline`), ends the
// session on a 401, and refreshes the token before it expires.
import createClient from 'openapi-fetch';
import i18n from '../i18n/index.ts';
import { apiErrorOf, ApiError, networkError } from './errors.ts';
import type { paths } from './schema.gen.ts';
import { getSession, onSessionChange, sessionOf, setSession } from './session.ts';

export const api = createClient<paths>({ baseUrl: typeof location === 'undefined' ? 'http://localhost' : location.origin });

api.use({
  onRequest({ request }) {
    const session = getSession();
    if (session && !request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${session.token}`);
    request.headers.set('accept-language', i18n.language);
    return request;
  },
  async onResponse({ response, request }) {
    if (response.status === 401 && getSession() && !new URL(request.url).pathname.endsWith('/auth/login')) {
      const body = (await response.clone().json().catch(() => null)) as { code?: string } | null;
      setSession(null, body?.code === 'TOKEN_EXPIRED' ? 'expired' : 'revoked');
    }
    return response;
  },
});

interface Result<D> {
  data?: D;
  error?: unknown;
  response: Response;
}

async function settle<D>(pending: Promise<Result<D>>): Promise<{ data: D; response: Response }> {
  let result: Result<D>;
  try {
    result = await pending;
  } catch (err) {
    throw err instanceof ApiError ? err : networkError(err);
  }
  const { data, error, response } = result;
  if (!response.ok || error !== undefined) throw apiErrorOf(response.status, error ?? null, response.headers.get('retry-after'));
  return { data: data as D, response };
}

/** The body of a successful answer; any failure as an ApiError. */
export async function call<D>(pending: Promise<Result<D>>): Promise<D> {
  return (await settle(pending)).data;
}

/** One page of a list whose total the server gives in `X-Total-Count` (clock history). */
export async function callPage<D>(pending: Promise<Result<D>>): Promise<{ items: D; total: number }> {
  const { data, response } = await settle(pending);
  return { items: data, total: Number(response.headers.get('x-total-count') ?? 0) };
}

// The token is refreshed when 80 % of its life has passed (and again on wake, when a timer was late).
let timer: ReturnType<typeof setTimeout> | undefined;
function schedule(): void {
  clearTimeout(timer);
  const s = getSession();
  if (!s) return;
  const due = Math.max(5_000, s.issuedAt + (s.expiresAt - s.issuedAt) * 0.8 - Date.now());
  timer = setTimeout(() => void refresh(), Math.min(due, 2 ** 31 - 1));
}
async function refresh(): Promise<void> {
  const s = getSession();
  if (!s) return;
  try {
    const { token } = await call(api.POST('/api/auth/refresh'));
    const next = sessionOf(token, s.fullName);
    if (next) setSession(next);
  } catch (err) {
    // Offline or rate limited: try again in a minute while the token is still valid.
    if (err instanceof ApiError && (err.offline || err.status === 429 || err.status >= 500) && s.expiresAt > Date.now() + 60_000) timer = setTimeout(() => void refresh(), 60_000);
  }
}
if (typeof window !== 'undefined') {
  onSessionChange(schedule);
  schedule();
}
