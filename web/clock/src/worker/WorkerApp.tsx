// The worker app (phone first). Placeholder until the clock screen lands.
import { useTranslation } from 'react-i18next';
import { useAuth } from '../auth/auth.tsx';

export default function WorkerApp() {
  const { t } = useTranslation();
  const { session, signOut } = useAuth();
  return (
    <main className="worker">
      <header className="bar"><h1>{t('app.title')}</h1><button type="button" className="link" onClick={signOut}>{t('action.signOut')}</button></header>
      <p>{session?.fullName}</p>
    </main>
  );
}
