// The session as React state: who is signed in (worker or manager), sign-in and sign-out (which
// also clears the refresh cookie, so that a reload no longer signs in), and the new token a change
// of one's own password answers.
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { api, call, signOut } from '../api/client.ts';
import { deviceId } from '../api/device.ts';
import { getSession, onSessionChange, sessionOf, setSession, type Session } from '../api/session.ts';
import { ApiError } from '../api/errors.ts';
import i18n from '../i18n/index.ts';

interface Auth {
  session: Session | null;
  signIn: (username: string, password: string) => Promise<Session>;
  signOut: () => void;
  /** The own password changed: the server's new, ordinary token replaces the session's. */
  passwordChanged: (token: string) => void;
}

const AuthContext = createContext<Auth | null>(null);

export function AuthProvider({ children }: { children: ReactNode }) {
  const [session, setState] = useState<Session | null>(getSession());
  useEffect(() => onSessionChange(setState), []);
  // The account's name comes in the language of the request (the first manager's seeded name is
  // translated until renamed): read again when the language changes, quietly when offline.
  useEffect(() => {
    const reread = () => {
      if (!getSession()?.token) return;
      void call(api.GET('/api/me')).then((me) => {
        const now = getSession();
        if (now && now.userId === me.userId && now.fullName !== me.fullName) setSession({ ...now, fullName: me.fullName });
      }, () => undefined);
    };
    i18n.on('languageChanged', reread);
    return () => i18n.off('languageChanged', reread);
  }, []);
  const signIn = async (username: string, password: string) => {
    const reply = await call(api.POST('/api/auth/login', { body: { username, password, deviceUuid: deviceId() } }));
    const next = sessionOf(reply.token, reply.fullName, reply.mustChangePassword);
    if (!next) throw new ApiError(500, 'TOKEN_INVALID', 'the server sent a token this app cannot read');
    setSession(next);
    return next;
  };
  const passwordChanged = (token: string) => {
    const now = getSession();
    const next = now && sessionOf(token, now.fullName);
    if (next) setSession(next);
  };
  return <AuthContext.Provider value={{ session, signIn, signOut: () => void signOut(), passwordChanged }}>{children}</AuthContext.Provider>;
}

export function useAuth(): Auth {
  const auth = useContext(AuthContext);
  if (!auth) throw new Error('useAuth outside AuthProvider');
  return auth;
}
