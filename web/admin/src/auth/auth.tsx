// Who is signed in: the session (token) and the profile from /info (permissions, menu tree).
// The token is refreshed a minute before it expires; a refresh or any request answered 401
// "expired/revoked/invalid" ends the session, and every screen then goes to the sign-in page,
// which says why.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { api, unwrap } from '../api/client.ts';
import { getSession, onSessionChange, refreshDelay, setSession, type EndReason, type Session } from '../api/session.ts';

export type Profile = Awaited<ReturnType<typeof loadProfile>>;
export type MenuNode = Profile['menus'][number];

const loadProfile = () => unwrap(api.GET('/api/admin/info'));

interface Auth {
  session: Session | null;
  profile: Profile | undefined;
  /** Whether the signed-in administrator holds `slug` (the server still decides). */
  can: (slug: string) => boolean;
  signIn: (token: { token: string; expires_at: string }) => void;
  signOut: (reason?: EndReason) => Promise<void>;
}

const AuthContext = createContext<Auth | null>(null);

export function AuthProvider({ children }: { children: ReactNode }) {
  const [session, setState] = useState<Session | null>(getSession());
  const queryClient = useQueryClient();
  useEffect(() => onSessionChange((s) => {
    setState(s);
    if (!s) queryClient.clear();
  }), [queryClient]);

  const profile = useQuery({ queryKey: ['profile', session?.token], queryFn: loadProfile, enabled: session !== null, staleTime: 60_000 });

  // Refresh a minute before expiry (a refreshed token replaces the old one in every tab).
  useEffect(() => {
    if (!session) return;
    const timer = setTimeout(() => {
      unwrap(api.POST('/api/admin/refresh-token'))
        .then((t) => setSession({ token: t.token, expiresAt: t.expires_at }))
        .catch(() => setSession(null, 'expired'));
    }, refreshDelay(session));
    return () => clearTimeout(timer);
  }, [session]);

  const signIn = useCallback((t: { token: string; expires_at: string }) => setSession({ token: t.token, expiresAt: t.expires_at }), []);
  const signOut = useCallback(async (reason: EndReason = 'signed-out') => {
    await unwrap(api.POST('/api/admin/logout')).catch(() => {});
    setSession(null, reason);
  }, []);
  const permissions = useMemo(() => new Set(profile.data?.permissions ?? []), [profile.data]);
  const value = useMemo<Auth>(() => ({
    session,
    profile: profile.data,
    can: (slug) => permissions.has(slug),
    signIn,
    signOut,
  }), [session, profile.data, permissions, signIn, signOut]);
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): Auth {
  const auth = useContext(AuthContext);
  if (!auth) throw new Error('useAuth outside AuthProvider');
  return auth;
}
