// The signed-in session of this tab (the kit's store, web/shared/session.ts): the token and when
// it expires. A reload gets the session back from POST /api/admin/refresh-token with the refresh
// cookie (see restore in auth.tsx). The server keeps one token per session, so a refresh in one
// tab replaces the token of every tab, and tabs refresh one at a time (withRefreshLock). Kept in
// localStorage: only that this browser has a session to restore (a flag).
import { sessionStore } from '../../../shared/session.ts';

export interface Session {
  token: string;
  /** ISO 8601 UTC. */
  expiresAt: string;
  /**
   * The session is good only for binding an authenticator (a role of the account requires one):
   * the console shows the binding step until it is bound (auth/BindAuthenticator.tsx).
   */
  bindOnly?: boolean;
  /**
   * The session is good only for choosing a new password (someone else set it, or it expired):
   * the console shows the change form first (auth/ChangePasswordStep.tsx).
   */
  changePassword?: boolean;
}

export type EndReason = 'expired' | 'revoked' | 'signed-out' | 'invalid';

/** The reason a 401's business code gives for the end of a session (none: not an end). */
export function endReasonOf(code: unknown): EndReason | undefined {
  return code === 10003 ? 'expired' : code === 10004 ? 'revoked' : code === 10007 ? 'invalid' : undefined;
}

export const store = sessionStore<Session, EndReason>({ prefix: 'fieldops.admin', kept: { key: 'signed-in', of: () => '1' } });
export const { getSession, setSession, endReason, onSessionChange } = store;

/** Whether this browser signed in and has not signed out since: then a reload tries the refresh cookie. */
export const mayRestore = (): boolean => store.kept() === '1' && endReason() === null;

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
