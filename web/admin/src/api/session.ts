// The signed-in session of this tab: the token and when it expires, in memory only, never in
// localStorage or sessionStorage (a script that gets into the page finds no token that outlives
// it). A reload gets the session back from POST /api/admin/refresh-token with the HttpOnly refresh
// cookie the server set at sign-in, which the page's script cannot read (see restore in
// auth.tsx). The server keeps one token per session, so a refresh in one tab replaces the token of
// every tab: tabs tell each other a new token or the end of the session over a BroadcastChannel,
// and refresh one at a time (withRefreshLock). Kept in localStorage: only that this browser has a
// session to restore (no secret), and why the last one ended, for the sign-in page.

export interface Session {
  token: string;
  /** ISO 8601 UTC. */
  expiresAt: string;
}

export type EndReason = 'expired' | 'revoked' | 'signed-out' | 'invalid';

/** The reason a 401's business code gives for the end of a session (none: not an end). */
export function endReasonOf(code: number | undefined): EndReason | undefined {
  return code === 10003 ? 'expired' : code === 10004 ? 'revoked' : code === 10007 ? 'invalid' : undefined;
}

/** Set while this browser holds a session to restore (a flag, no token). */
const SIGNED_IN_KEY = 'fieldops.admin.signed-in';
const REASON_KEY = 'fieldops.admin.ended';
/** Where earlier versions kept the token: removed on start. */
const LEGACY_KEY = 'fieldops.admin.session';

type Listener = (session: Session | null) => void;
const listeners = new Set<Listener>();

type Message = { type: 'session'; session: Session } | { type: 'end'; reason: EndReason | null };

const hasWindow = typeof window !== 'undefined';
const channel = hasWindow && typeof BroadcastChannel !== 'undefined' ? new BroadcastChannel('fieldops.admin.session') : null;

let current: Session | null = null;
if (hasWindow) localStorage.removeItem(LEGACY_KEY);

export const getSession = (): Session | null => current;

function apply(session: Session | null): void {
  current = session;
  for (const l of listeners) l(session);
}

export function setSession(session: Session | null, reason?: EndReason): void {
  if (session) {
    localStorage.setItem(SIGNED_IN_KEY, '1');
    localStorage.removeItem(REASON_KEY);
  } else {
    localStorage.removeItem(SIGNED_IN_KEY);
    if (reason) localStorage.setItem(REASON_KEY, reason);
  }
  apply(session);
  channel?.postMessage((session ? { type: 'session', session } : { type: 'end', reason: reason ?? null }) satisfies Message);
}

/** Whether this browser signed in and has not signed out since: then a reload tries the refresh cookie. */
export const mayRestore = (): boolean => localStorage.getItem(SIGNED_IN_KEY) === '1' && localStorage.getItem(REASON_KEY) === null;

/** Why the last session ended, until the next sign-in (a reload of the sign-in page still says it). */
export function endReason(): EndReason | null {
  return localStorage.getItem(REASON_KEY) as EndReason | null;
}

export function onSessionChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

// Another tab signed in, refreshed the token, or signed out.
channel?.addEventListener('message', (e: MessageEvent<Message>) => {
  const m = e.data;
  if (m.type === 'session') apply(m.session);
  else if (current) apply(null);
});

/**
 * Runs `task` while no other tab of this console refreshes the token (Web Locks, where the
 * browser has them: secure contexts), so that two tabs never rotate the same session at once.
 */
export function withRefreshLock<T>(task: () => Promise<T>): Promise<T> {
  const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
  return locks ? locks.request('fieldops.admin.refresh', task) : task();
}

/** When to refresh: a minute before expiry, or, with less than 5 minutes left, after 80 % of them. */
export function refreshDelay(session: Session, now = Date.now()): number {
  const left = new Date(session.expiresAt).getTime() - now;
  return left > 300_000 ? left - 60_000 : Math.max(0, left * 0.8);
}
