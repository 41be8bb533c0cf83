// The signed-in session of this browser: the token and when it expires, kept in localStorage
// (shared by the tabs, which hear each other's changes), and why it ended, for the sign-in page.

export interface Session {
  token: string;
  /** ISO 8601 UTC. */
  expiresAt: string;
}

export type EndReason = 'expired' | 'revoked' | 'signed-out' | 'invalid';

const KEY = 'fieldops.admin.session';
const REASON_KEY = 'fieldops.admin.ended';

type Listener = (session: Session | null) => void;
const listeners = new Set<Listener>();

function read(): Session | null {
  try {
    const raw = localStorage.getItem(KEY);
    const s = raw ? (JSON.parse(raw) as Session) : null;
    return s && typeof s.token === 'string' && typeof s.expiresAt === 'string' ? s : null;
  } catch {
    return null;
  }
}

let current: Session | null = read();

export const getSession = (): Session | null => current;

export function setSession(session: Session | null, reason?: EndReason): void {
  current = session;
  if (session) {
    localStorage.setItem(KEY, JSON.stringify(session));
    localStorage.removeItem(REASON_KEY);
  } else {
    localStorage.removeItem(KEY);
    if (reason) localStorage.setItem(REASON_KEY, reason);
  }
  for (const l of listeners) l(session);
}

/** Why the last session ended, until the next sign-in (a reload of the sign-in page still says it). */
export function endReason(): EndReason | null {
  return localStorage.getItem(REASON_KEY) as EndReason | null;
}

export function onSessionChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

// Another tab signed in or out.
if (typeof window !== 'undefined') {
  window.addEventListener('storage', (e) => {
    if (e.key !== KEY) return;
    current = read();
    for (const l of listeners) l(current);
  });
}

/** When to refresh: a minute before expiry, or, with less than 5 minutes left, after 80 % of them. */
export function refreshDelay(session: Session, now = Date.now()): number {
  const left = new Date(session.expiresAt).getTime() - now;
  return left > 300_000 ? left - 60_000 : Math.max(0, left * 0.8);
}
