// The signed-in session of this app: who it is for (user id, role, name) and the token with its
// times (from the token's own payload). The token lives in memory only, never in localStorage or
// sessionStorage; a reloaded or reopened app gets one from POST /api/auth/refresh with the HttpOnly
// refresh cookie the server set at sign-in (client.ts, ensureToken), which the page's script
// cannot read. Who is signed in (no secret) is remembered on the phone, so that the worker app
// opens without a network, shows its waiting punches and keeps new ones: the token comes when the
// network does, and the punches are sent then. Also remembered: why the last session ended, for
// the sign-in page. Tabs tell each other a sign-in or sign-out over a BroadcastChannel.

export type Role = 'worker' | 'manager';

export interface Session {
  /** Null until the refresh cookie has given one (an app reopened, possibly offline). */
  token: string | null;
  userId: number;
  role: Role;
  fullName: string;
  /** Epoch milliseconds (0 without a token). */
  issuedAt: number;
  /** Epoch milliseconds (0 without a token). */
  expiresAt: number;
}

export type EndReason = 'expired' | 'revoked' | 'signed-out';

/** Who is signed in on this phone: `{ userId, role, fullName }`, no token. */
const ACCOUNT_KEY = 'fieldops.clock.account';
const REASON_KEY = 'fieldops.clock.ended';
/** Where earlier versions kept the token: removed on start. */
const LEGACY_KEY = 'fieldops.clock.session';

type Listener = (session: Session | null) => void;
const listeners = new Set<Listener>();

type Message = { type: 'session'; session: Session } | { type: 'end' };

/** The payload of a JWT (not verified: the server does that), or null when it is not one. */
export function tokenPayload(token: string): { userId: number; role: Role; iat: number; exp: number } | null {
  try {
    const part = token.split('.')[1] ?? '';
    const json = atob(part.replaceAll('-', '+').replaceAll('_', '/').padEnd(Math.ceil(part.length / 4) * 4, '='));
    const p = JSON.parse(json) as { userId?: unknown; role?: unknown; iat?: unknown; exp?: unknown };
    if (typeof p.userId !== 'number' || (p.role !== 'worker' && p.role !== 'manager') || typeof p.exp !== 'number') return null;
    return { userId: p.userId, role: p.role, iat: typeof p.iat === 'number' ? p.iat : Math.floor(Date.now() / 1000), exp: p.exp };
  } catch {
    return null;
  }
}

/** A session from a token the server issued. */
export function sessionOf(token: string, fullName: string): Session | null {
  const p = tokenPayload(token);
  return p ? { token, userId: p.userId, role: p.role, fullName, issuedAt: p.iat * 1000, expiresAt: p.exp * 1000 } : null;
}

/** The remembered account, without a token yet. */
function remembered(): Session | null {
  try {
    const raw = localStorage.getItem(ACCOUNT_KEY);
    const a = raw ? (JSON.parse(raw) as Partial<Session>) : null;
    if (!a || typeof a.userId !== 'number' || (a.role !== 'worker' && a.role !== 'manager') || typeof a.fullName !== 'string') return null;
    return { token: null, userId: a.userId, role: a.role, fullName: a.fullName, issuedAt: 0, expiresAt: 0 };
  } catch {
    return null;
  }
}

const hasStorage = typeof localStorage !== 'undefined';
if (hasStorage) localStorage.removeItem(LEGACY_KEY);
const channel = typeof BroadcastChannel !== 'undefined' ? new BroadcastChannel('fieldops.clock.session') : null;

let current: Session | null = hasStorage ? remembered() : null;

export const getSession = (): Session | null => current;

function apply(session: Session | null): void {
  current = session;
  for (const l of listeners) l(session);
}

export function setSession(session: Session | null, reason?: EndReason): void {
  if (session) {
    localStorage.setItem(ACCOUNT_KEY, JSON.stringify({ userId: session.userId, role: session.role, fullName: session.fullName }));
    localStorage.removeItem(REASON_KEY);
  } else {
    localStorage.removeItem(ACCOUNT_KEY);
    if (reason) localStorage.setItem(REASON_KEY, reason);
  }
  apply(session);
  channel?.postMessage((session ? { type: 'session', session } : { type: 'end' }) satisfies Message);
}

export const endReason = (): EndReason | null => localStorage.getItem(REASON_KEY) as EndReason | null;

export function onSessionChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

channel?.addEventListener('message', (e: MessageEvent<Message>) => {
  const m = e.data;
  if (m.type === 'session') {
    // Another tab's token is as good as ours (the time clock keeps every unexpired token valid).
    if (!current || current.userId !== m.session.userId || !current.token || m.session.expiresAt > current.expiresAt) apply(m.session);
  } else if (current) {
    apply(null);
  }
});
