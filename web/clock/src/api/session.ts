// The signed-in session of this app: who it is for (user id, role, name) and the token with its
// times (from the token's own payload). The token lives in memory only, never in localStorage or
// sessionStorage; a reloaded or reopened app gets one from POST /api/auth/refresh with the HttpOnly
// refresh cookie the server set at sign-in (client.ts, ensureToken), which the page's script
// cannot read. Who is signed in (no secret) is remembered on the phone, so that the worker app
// opens without a network, shows its waiting punches and keeps new ones: the token comes when the
// network does, and the punches are sent then. Also remembered: why the last session ended, for
// the sign-in page. Tabs tell each other a sign-in or sign-out over a BroadcastChannel (the kit's
// store, web/shared/session.ts).
import { sessionStore } from '../../../shared/session.ts';

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
  /**
   * Someone else set the password (a manager, an operator), or it expired: the token is good only
   * for choosing a new one, which the app asks for before anything else (auth/ChangePassword.tsx).
   */
  mustChangePassword?: boolean;
}

export type EndReason = 'expired' | 'revoked' | 'signed-out';

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

/** A session from a token the server issued (and whether it is good only for a new password). */
export function sessionOf(token: string, fullName: string, mustChangePassword = false): Session | null {
  const p = tokenPayload(token);
  return p
    ? { token, userId: p.userId, role: p.role, fullName, issuedAt: p.iat * 1000, expiresAt: p.exp * 1000, ...(mustChangePassword ? { mustChangePassword: true } : {}) }
    : null;
}

/** The remembered account, without a token yet. */
function remembered(raw: string): Session | null {
  try {
    const a = JSON.parse(raw) as Partial<Session> | null;
    if (!a || typeof a.userId !== 'number' || (a.role !== 'worker' && a.role !== 'manager') || typeof a.fullName !== 'string') return null;
    return { token: null, userId: a.userId, role: a.role, fullName: a.fullName, issuedAt: 0, expiresAt: 0 };
  } catch {
    return null;
  }
}

export const store = sessionStore<Session, EndReason>({
  prefix: 'fieldops.clock',
  // Who is signed in on this phone: `{ userId, role, fullName }`, no token.
  kept: { key: 'account', of: (s) => JSON.stringify({ userId: s.userId, role: s.role, fullName: s.fullName }) },
  restore: remembered,
  // Another tab's token is as good as ours (the time clock keeps every unexpired token valid).
  adopt: (current, incoming) => !current || current.userId !== incoming.userId || !current.token || incoming.expiresAt > current.expiresAt,
});
export const { getSession, setSession, endReason, onSessionChange } = store;
