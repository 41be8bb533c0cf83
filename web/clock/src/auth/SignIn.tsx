// Sign-in for workers and managers: username and password; the device identifier goes with it.
// Every refusal in words: wrong credentials, a disabled account, another phone bound (a manager
// must reset the binding), too many attempts, an account locked by failed sign-ins (the server's
// message, in the app's language, says how long and that a manager can unlock it), no network. A worker lands on the clock screen, a
// manager on the console, unless `?next=` names a page of theirs in this app (where a signed-out
// visit was sent from).
import { useState, type FormEvent } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { deviceId } from '../api/device.ts';
import { ApiError } from '../api/errors.ts';
import { endReason } from '../api/session.ts';
import { LanguageButton } from '../components/LanguageButton.tsx';
import { useAuth } from './auth.tsx';
import { landing } from './landing.ts';

export function refusalText(err: unknown, t: TFunction): string {
  if (!(err instanceof ApiError)) return t('error.unknown', { code: String(err) });
  if (err.offline) return t('error.network');
  switch (err.code) {
    case 'INVALID_CREDENTIALS': return t('signIn.invalid');
    case 'ACCOUNT_DISABLED': return t('signIn.disabled');
    case 'DEVICE_NOT_AUTHORIZED': return t('signIn.deviceBound');
    case 'RATE_LIMITED': return t('signIn.limited', { seconds: err.retryAfter ?? 60 });
    case 'ACCOUNT_LOCKED': return err.message;
    case 'SERVICE_UNAVAILABLE': return t('error.unavailable');
    default: return err.status === 429 ? t('signIn.limited', { seconds: err.retryAfter ?? 60 }) : err.message || t('error.unknown', { code: err.code });
  }
}

export default function SignIn() {
  const { t } = useTranslation();
  const { session, signIn } = useAuth();
  const navigate = useNavigate();
  const next = useSearchParams()[0].get('next');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const reason = endReason();

  if (session) return <Navigate to={landing(next, session.role)} replace />;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!username.trim() || !password) return setError(t('signIn.required'));
    setBusy(true);
    setError(null);
    try {
      const s = await signIn(username.trim(), password);
      void navigate(landing(next, s.role), { replace: true });
    } catch (err) {
      setError(refusalText(err, t));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="signin">
      <header className="signin-head">
        <h1>{t('app.title')}</h1>
        <LanguageButton />
      </header>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <h2>{t('signIn.title')}</h2>
        {reason && !error && <p className="note" role="status">{t(`session.${reason}`)}</p>}
        <label>
          {t('signIn.username')}
          <input name="username" autoComplete="username" autoCapitalize="none" value={username} onChange={(e) => setUsername(e.target.value)} required />
        </label>
        <label>
          {t('signIn.password')}
          <input name="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} required />
        </label>
        {error && <p className="refusal" role="alert">{error}</p>}
        <button type="submit" className="primary big" disabled={busy}>{t('action.signIn')}</button>
        <p className="device">{t('signIn.device', { id: deviceId() })}</p>
      </form>
    </main>
  );
}
