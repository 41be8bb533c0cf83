// Who is signed in: the session (token, in memory) and the profile from /info (permissions, menu
// tree). On start, a browser that signed in and has not signed out since gets its session back
// from the refresh cookie (restoring: nothing is decided until the answer). The token is
// refreshed a minute before it expires, by one tab at a time; a refresh or any request answered
// 401 "expired/revoked/invalid" ends the session, and every screen then goes to the sign-in page,
// which says why. Sign-out ends the session on the server and clears the cookie. A restricted
// session reads no profile: one good only for a new password (the sign-in's `must_change_password`,
// or a 403 10012 from /info once the password expired) shows the change form first; one good only
// for binding an authenticator (`must_bind_authenticator`, or a 403 10011) the binding step; the
// end of each step goes on with the same session.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { api, unwrap } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';
import { endReasonOf, getSession, mayRestore, onSessionChange, refreshDelay, setSession, store, withRefreshLock, type EndReason, type Session } from '../api/session.ts';

export type Profile = Awaited<ReturnType<typeof loadProfile>>;
export type MenuNode = Profile['menus'][number];

const loadProfile = () => unwrap(api.GET('/api/admin/info'));

interface Auth {
  session: Session | null;
  /** The refresh cookie is being tried (a reload): neither signed in nor out yet. */
  restoring: boolean;
  profile: Profile | undefined;
  /** Whether the signed-in administrator holds `slug` (the server still decides). */
  can: (slug: string) => boolean;
  signIn: (token: TokenReply) => void;
  signOut: (reason?: EndReason) => Promise<void>;
  /** A role requires an authenticator and none is bound: only the binding step can be shown. */
  bindingRequired: boolean;
  /** The authenticator is bound: the same session now opens the app. */
  finishBinding: () => void;
  /** Someone else set the password, or it expired: only the change form can be shown. */
  passwordRequired: boolean;
  /** The password is changed: the same session goes on (to the binding step, when a role requires an authenticator). */
  finishPasswordChange: () => void;
}

interface TokenReply {
  token: string;
  expires_at: string;
  must_bind_authenticator?: boolean;
  must_change_password?: boolean;
}

/** A session good only for binding an authenticator, on any other route (/info). */
export const AUTHENTICATOR_BINDING_REQUIRED = 10011;
/** A session good only for choosing a new password, on any other route (/info). */
export const PASSWORD_CHANGE_REQUIRED = 10012;

const AuthContext = createContext<Auth | null>(null);

const asSession = (t: TokenReply): Session => ({
  token: t.token,
  expiresAt: t.expires_at,
  ...(t.must_bind_authenticator ? { bindOnly: true } : {}),
  ...(t.must_change_password ? { changePassword: true } : {}),
});

/** A new token for `from` (the current token; none: the refresh cookie), unless another tab refreshed meanwhile. */
function refreshSession(from: Session | null): Promise<void> {
  return withRefreshLock(async () => {
    if (getSession()?.token !== from?.token) return;
    try {
      setSession(asSession(await unwrap(api.POST('/api/admin/refresh-token'))));
    } catch (err) {
      // Another tab may have refreshed (and told us) while this answer was on its way.
      if (getSession()?.token !== from?.token) return;
      // A reload whose refresh cookie is refused says why (kicked out, expired) on the sign-in page.
      if (from || (err instanceof ApiError && err.status === 401)) setSession(null, from ? 'expired' : endReasonOf(err instanceof ApiError ? err.code : undefined));
      else throw err;
    }
  });
}

// One restoration per page load (StrictMode runs effects twice): the session of another open tab
// (a refresh would rotate the token under that tab's requests), else the refresh cookie.
let restoration: Promise<void> | null = null;
const restore = () => (restoration ??= mayRestore() && !getSession()
  ? store.fromPeers(2000).then((peer) => (peer ? undefined : refreshSession(null))).catch(() => {})
  : Promise.resolve());

export function AuthProvider({ children }: { children: ReactNode }) {
  const [session, setState] = useState<Session | null>(getSession());
  const [restoring, setRestoring] = useState(() => !getSession() && mayRestore());
  const queryClient = useQueryClient();
  useEffect(() => onSessionChange((s) => {
    setState(s);
    if (!s) queryClient.clear();
  }), [queryClient]);
  useEffect(() => {
    void restore().then(() => setRestoring(false));
  }, []);

  const profile = useQuery({
    queryKey: ['profile', session?.token], queryFn: loadProfile, enabled: session !== null && !session.bindOnly && !session.changePassword, staleTime: 60_000,
  });
  const refusedWith = (code: number) => profile.error instanceof ApiError && profile.error.code === code;
  const passwordRequired = session?.changePassword === true || refusedWith(PASSWORD_CHANGE_REQUIRED);
  const bindingRequired = session?.bindOnly === true || refusedWith(AUTHENTICATOR_BINDING_REQUIRED);

  // Refresh a minute before expiry (a refreshed token replaces the old one in every tab).
  useEffect(() => {
    if (!session) return;
    const timer = setTimeout(() => void refreshSession(session).catch(() => setSession(null, 'expired')), refreshDelay(session));
    return () => clearTimeout(timer);
  }, [session]);

  const signIn = useCallback((t: TokenReply) => setSession(asSession(t)), []);
  const finishBinding = useCallback(() => {
    const current = getSession();
    if (current) setSession({ token: current.token, expiresAt: current.expiresAt });
    void queryClient.invalidateQueries({ queryKey: ['profile'] });
  }, [queryClient]);
  const finishPasswordChange = useCallback(() => {
    const current = getSession();
    if (current) setSession({ token: current.token, expiresAt: current.expiresAt, ...(current.bindOnly ? { bindOnly: true } : {}) });
    void queryClient.invalidateQueries({ queryKey: ['profile'] });
  }, [queryClient]);
  const signOut = useCallback(async (reason: EndReason = 'signed-out') => {
    await unwrap(api.POST('/api/admin/logout')).catch(() => {});
    setSession(null, reason);
  }, []);
  const permissions = useMemo(() => new Set(profile.data?.permissions ?? []), [profile.data]);
  const value = useMemo<Auth>(() => ({
    session,
    restoring,
    profile: profile.data,
    can: (slug) => permissions.has(slug),
    signIn,
    signOut,
    bindingRequired,
    finishBinding,
    passwordRequired,
    finishPasswordChange,
  }), [session, restoring, profile.data, permissions, signIn, signOut, bindingRequired, finishBinding, passwordRequired, finishPasswordChange]);
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): Auth {
  const auth = useContext(AuthContext);
  if (!auth) throw new Error('useAuth outside AuthProvider');
  return auth;
}
