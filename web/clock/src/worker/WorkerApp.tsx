// The worker app (phone first): the clock screen, the worker's history and security status, with a
// bottom navigation in thumb reach. No Ant Design here: plain elements styled by styles.css, so
// that the chunk stays small (the code that reads QR codes from pixels loads only when needed).
import { NavLink, Route, Routes } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useAuth } from '../auth/auth.tsx';
import { LanguageButton } from '../components/LanguageButton.tsx';
import { addStrings } from '../i18n/index.ts';
import { forgetCached } from './cached.ts';
import ClockScreen from './ClockScreen.tsx';
import History from './History.tsx';
import Security from './Security.tsx';
import { strings } from './strings.ts';

addStrings('worker', strings);

export default function WorkerApp() {
  const { t } = useTranslation('worker');
  const { t: tc } = useTranslation();
  const { session, signOut } = useAuth();
  return (
    <div className="worker">
      <header className="bar">
        <div>
          <h1>{tc('app.title')}</h1>
          <p className="who">{session?.fullName}</p>
        </div>
        <div className="bar-actions">
          <LanguageButton />
          <button type="button" className="link" onClick={() => { forgetCached(); signOut(); }}>{tc('action.signOut')}</button>
        </div>
      </header>
      <main>
        <Routes>
          <Route index element={<ClockScreen />} />
          <Route path="history" element={<History />} />
          <Route path="security" element={<Security />} />
          <Route path="*" element={<ClockScreen />} />
        </Routes>
      </main>
      <nav className="bottom-nav" aria-label={t('nav.label')}>
        <NavLink to="/" end>{t('nav.clock')}</NavLink>
        <NavLink to="/history">{t('nav.history')}</NavLink>
        <NavLink to="/security">{t('nav.security')}</NavLink>
      </nav>
    </div>
  );
}
