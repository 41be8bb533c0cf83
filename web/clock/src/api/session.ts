// The signed-in session of this browser: the token, who it is for (user id, role, name) and when
// it expires (from the token's own payload), kept in localStorage; and why the last one ended,
// for the sign-in page.

export type Role = 'worker' | 'manager';

export interface Session {
  token: string;
  userId: number;
  role: Role;
  fullName: string;
  /** Epoch milliseconds. */
  issuedAt: number;
  /** Epoch milliseconds. */
  expiresAt: number;
}

export type EndReason = 'expired' | 'revoked' | 'signed-out';

const KEY = 'fieldops.clock.session';
const REASON_KEY = 'fieldops.clock.ended';

type Listener = (session: Session | null) => void;
const listeners = new Set<Listener>();

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

function read(): Session | null {
  try {
    const raw = localStorage.getItem(KEY);
    const s = raw ? (JSON.parse(raw) as Session) : null;
    return s && typeof s.token === 'string' && typeof s.expiresAt === 'number' && s.expiresAt > Date.now() ? s : null;
  } catch {
    return null;
  }
}

let current: Session | null = typeof localStorage === 'undefined' ? null : read();

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

export const endReason = (): EndReason | null => localStorage.getItem(REASON_KEY) as EndReason | null;

export function onSessionChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

if (typeof window !== 'undefined') {
  window.addEventListener('storage', (e) => {
    if (e.key !== KEY) return;
    current = read();
    for (const l of listeners) l(current);
  });
}
