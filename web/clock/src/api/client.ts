// The one way the app talks to the server: a typed client generated from the time-clock
// service's OpenAPI document (schema.gen.ts), which adds the token and the language to every
// request, turns every failure into an ApiError (no answer at all: status 0, `offline`), ends the
// session on a 401, and refreshes the token before it expires. The token is in memory only
// (session.ts): an app that opens without one (a reload, a phone that reopens the app, possibly
// offline) gets it from the refresh cookie before its first request (ensureToken), at start and
// whenever the network comes back, so that punches kept while offline are sent once it does.
import { apiClient, type Result } from '../../../shared/api/client.ts';
import type { BodyOf, QueryOf } from '../../../shared/list/params.ts';
import { keepFresh } from '../../../shared/session.ts';
import i18n from '../i18n/index.ts';
import { apiErrorOf, ApiError, networkError } from './errors.ts';
import type { paths } from './schema.gen.ts';
import { endReason, getSession, sessionOf, setSession, store, type EndReason, type Session } from './session.ts';

const REFRESH_PATH = '/api/auth/refresh' as const;

const endOf = (body: unknown): EndReason => ((body as { code?: string } | null)?.code === 'TOKEN_EXPIRED' ? 'expired' : 'revoked');

/** The refusal of any route but the password's to an account that must choose a new password first. */
export const PASSWORD_CHANGE_REQUIRED = 'PASSWORD_CHANGE_REQUIRED';

const client = apiClient<paths, EndReason>({
  session: store,
  errorOf: (status, body, headers) => {
    const err = apiErrorOf(status, body, headers.get('retry-after'));
    // The password expired while signed in: the app asks for a new one before anything else.
    const s = getSession();
    if (err.code === PASSWORD_CHANGE_REQUIRED && s && !s.mustChangePassword) setSession({ ...s, mustChangePassword: true });
    return err;
  },
  networkError,
  // Only a refusal of this app's current token ends the session (a request sent without one,
  // before the refresh cookie could be tried, says nothing about the session).
  endOf401: endOf,
  beforeRequest: async (path) => {
    if (!path.startsWith('/api/auth/')) await ensureToken();
  },
});

export const { api } = client;

/** The JSON body a path's method takes. */
export type Body<P extends keyof paths, M extends 'post' | 'put' | 'patch'> = BodyOf<paths, P, M>;

/**
 * The query of a time-clock list path as the list kit keeps it (web/shared/list): its page size
 * as `page_size`, which the path takes as `limit` (listQuery sends it so).
 */
export type ListQuery<P extends keyof paths> = Omit<QueryOf<paths, P>, 'limit'> & { page_size?: number };

/** The query a time-clock list path takes, from the kit's: `page_size` sent as `limit`; the path's defaults for what is left out. */
export function limitQuery<P extends keyof paths>({ page_size, ...query }: ListQuery<P>): QueryOf<paths, P> {
  return { ...query, ...(page_size ? { limit: page_size } : {}) } as QueryOf<paths, P>;
}

/**
 * A token for the remembered account when the app has none (nothing to do otherwise): one
 * refresh with the cookie at a time. Refused (401): the session is over (signed out, disabled,
 * password changed elsewhere, cookie expired) and the app goes to the sign-in page. No network:
 * the app stays as it is and tries again with the next request or when the network is back.
 */
let restoring: Promise<void> | null = null;
export function ensureToken(): Promise<void> {
  const s = getSession();
  if (!s || s.token) return Promise.resolve();
  restoring ??= restoreWith(s).finally(() => {
    restoring = null;
  });
  return restoring;
}
async function restoreWith(s: Session): Promise<void> {
  let response: Response;
  try {
    // No Authorization header: the server reads the refresh cookie (sent to this path only).
    response = await fetch(REFRESH_PATH, { method: 'POST', credentials: 'same-origin', headers: { 'accept-language': i18n.language } });
  } catch {
    return;
  }
  if (getSession() !== s) return;
  if (response.ok) {
    const { token, mustChangePassword } = (await response.json()) as { token: string; mustChangePassword?: boolean };
    const next = sessionOf(token, s.fullName, mustChangePassword);
    if (next && next.userId === s.userId) return setSession(next);
    return setSession(null, 'revoked');
  }
  if (response.status === 401) setSession(null, endOf(await response.json().catch(() => null)));
}

async function settle<D>(pending: Promise<Result<D>>): Promise<{ data: D; response: Response }> {
  const { data, response } = await client.settle(pending);
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

// The token is refreshed when 80 % of its life has passed (and again on wake, when a timer was
// late); offline or rate limited, again a minute later while the token is still valid.
const refreshDelay = (s: Session) => (s.token ? Math.max(5_000, s.issuedAt + (s.expiresAt - s.issuedAt) * 0.8 - Date.now()) : null);
async function refresh(s: Session): Promise<number | void> {
  try {
    const { token, mustChangePassword } = await call(api.POST(REFRESH_PATH));
    const next = sessionOf(token, s.fullName, mustChangePassword);
    if (next) setSession(next);
  } catch (err) {
    if (err instanceof ApiError && (err.offline || err.status === 429 || err.status >= 500) && s.expiresAt > Date.now() + 60_000) return 60_000;
  }
}

/**
 * Signs out: forgets the session here and in the other tabs at once, and asks the server to clear
 * the refresh cookie (without a network, again at the next start: the remembered account is gone
 * meanwhile, so the cookie is never used).
 */
export async function signOut(): Promise<void> {
  setSession(null, 'signed-out');
  await clearCookie();
}
const CLEARED_KEY = 'fieldops.clock.cookie-cleared';
async function clearCookie(): Promise<void> {
  localStorage.removeItem(CLEARED_KEY);
  await call(api.POST('/api/auth/logout')).then(() => localStorage.setItem(CLEARED_KEY, '1'), () => undefined);
}

if (typeof window !== 'undefined') {
  keepFresh(store, refreshDelay, refresh);
  // An app opened without a token gets one now, or when the network comes back.
  void ensureToken();
  // A sign-out whose cookie could not be cleared then (no network).
  if (!getSession() && endReason() === 'signed-out' && localStorage.getItem(CLEARED_KEY) === null) void clearCookie();
  window.addEventListener('online', () => void ensureToken());
}
