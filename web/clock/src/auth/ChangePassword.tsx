// The new-password step of workers and managers: someone else set the account's password (a
// manager creating the worker or giving a new one, an operator) or it expired, so the account's
// token is good only for choosing a new one (the server refuses everything else). Shown in place
// of the app until the change, whose answer is a new, ordinary token; then the app opens where the
// person was going. No Ant Design: it opens on a worker's phone.
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, call } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';
import { LanguageButton } from '../components/LanguageButton.tsx';
import { useAuth } from './auth.tsx';
import { refusalText } from './SignIn.tsx';

type Rules = Awaited<ReturnType<typeof loadRules>>;
const loadRules = () => call(api.GET('/api/me/password-policy'));

export default function ChangePassword() {
  const { t } = useTranslation();
  const { session, signOut, passwordChanged } = useAuth();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirm, setConfirm] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [rules, setRules] = useState<Rules | null>(null);
  useEffect(() => {
    // The rules help; without them (offline) the server's refusal still names the one broken.
    void loadRules().then(setRules, () => undefined);
  }, []);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!current || !next || !confirm) return setError(t('password.required'));
    if (next !== confirm) return setError(t('password.mismatch'));
    if (next === current) return setError(t('password.sameAsCurrent'));
    if (rules && [...next].length < rules.minLength) return setError(t('password.ruleLength', { count: rules.minLength }));
    setBusy(true);
    setError(null);
    try {
      const reply = await call(api.PUT('/api/me/password', { body: { currentPassword: current, newPassword: next } }));
      passwordChanged(reply.token);
    } catch (err) {
      // A wrong current password said in the app's words; a rule the server names, in its own (the request's language).
      const field = err instanceof ApiError ? err.details?.field : undefined;
      setError(err instanceof ApiError && err.code === 'VALIDATION_ERROR' ? (field === 'currentPassword' ? t('password.wrongCurrent') : err.message) : refusalText(err, t));
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
        <h2>{t('password.title')}</h2>
        <p className="note" role="status">{t('password.why', { name: session?.fullName ?? '' })}</p>
        <label>
          {t('password.current')}
          <input name="current-password" type="password" autoComplete="current-password" value={current} onChange={(e) => setCurrent(e.target.value)} required />
        </label>
        <label>
          {t('password.new')}
          <input name="new-password" type="password" autoComplete="new-password" value={next} onChange={(e) => setNext(e.target.value)} required aria-describedby="password-rules" />
        </label>
        {rules && (
          <div id="password-rules" className="rules">
            <p>{t('password.rulesTitle')}</p>
            <ul>
              <li>{t('password.ruleLength', { count: rules.minLength })}</li>
              <li>{t('password.ruleClasses', { count: rules.minClasses })}</li>
              {rules.rejectCommon && <li>{t('password.ruleCommon')}</li>}
              {rules.rejectUsername && <li>{t('password.ruleUsername')}</li>}
              <li>{rules.history > 1 ? t('password.ruleHistory', { count: rules.history }) : t('password.sameAsCurrent')}</li>
            </ul>
          </div>
        )}
        <label>
          {t('password.confirm')}
          <input name="confirm-password" type="password" autoComplete="new-password" value={confirm} onChange={(e) => setConfirm(e.target.value)} required />
        </label>
        {error && <p className="refusal" role="alert">{error}</p>}
        <button type="submit" className="primary big" disabled={busy}>{t('password.submit')}</button>
        <button type="button" className="secondary big" onClick={signOut}>{t('action.signOut')}</button>
      </form>
    </main>
  );
}
