// The manager console (desktop first). Placeholder until its screens land.
import { useTranslation } from 'react-i18next';
import { useAuth } from '../auth/auth.tsx';

export default function ManagerApp() {
  const { t } = useTranslation();
  const { session, signOut } = useAuth();
  return (
    <main className="manager">
      <header className="bar"><h1>{t('app.manager')}</h1><button type="button" className="link" onClick={signOut}>{t('action.signOut')}</button></header>
      <p>{session?.fullName}</p>
    </main>
  );
}
