// The worker app (phone first): the clock screen, the worker's history, their correction requests
// and security status, with a bottom navigation in thumb reach. No Ant Design here: plain elements
// styled by styles.css, so that the chunk stays small (the code that reads QR codes from pixels,
// and the corrections' screens, load only when needed). At its opening, decisions on the worker's
// requests, reminders to clock out and automatic clock-outs not read yet are shown in words (./Corrections.tsx, loaded only when there are some).
import { lazy, Suspense, useEffect, useState } from 'react';
import { NavLink, Route, Routes } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, call } from '../api/client.ts';
import { useAuth } from '../auth/auth.tsx';
import { LanguageButton } from '../components/LanguageButton.tsx';
import { addStrings } from '../i18n/index.ts';
import { forgetCached } from './cached.ts';
import ClockScreen from './ClockScreen.tsx';
import History from './History.tsx';
import Security from './Security.tsx';
import { strings } from './strings.ts';
import type { Notification } from './Corrections.tsx';

addStrings('worker', strings);

const Requests = lazy(() => import('./Corrections.tsx'));
const Decisions = lazy(() => import('./Corrections.tsx').then((m) => ({ default: m.Decisions })));

/** The notifications shown at the opening: decisions, reminders to clock out, automatic clock-outs. */
const SHOWN: readonly Notification['kind'][] = ['correction_decided', 'clock_reminder', 'auto_clock_out'];

/**
 * The worker's unread decisions on corrections, reminders and automatic clock-outs (none when they cannot be read now: again at the
 * next opening).
 */
function useUnreadDecisions(userId: number | undefined): Notification[] {
  const [decided, setDecided] = useState<Notification[]>([]);
  useEffect(() => {
    if (userId === undefined) return;
    let live = true;
    call(api.GET('/api/notifications', { params: { query: { unread: true, page: 1, limit: 20 } } })).then(
      (r) => {
        const mine = r.notifications.filter((n) => SHOWN.includes(n.kind));
        if (live) setDecided(mine);
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [userId]);
  return decided;
}

export default function WorkerApp() {
  const { t } = useTranslation('worker');
  const { t: tc } = useTranslation();
  const { session, signOut } = useAuth();
  const decided = useUnreadDecisions(session?.userId);
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
        {decided.length > 0 && <Suspense fallback={null}><Decisions notifications={decided} /></Suspense>}
        <Routes>
          <Route index element={<ClockScreen />} />
          <Route path="history" element={<History />} />
          <Route path="requests" element={<Suspense fallback={<p className="loading" role="status">…</p>}><Requests /></Suspense>} />
          <Route path="security" element={<Security />} />
          <Route path="*" element={<ClockScreen />} />
        </Routes>
      </main>
      <nav className="bottom-nav" aria-label={t('nav.label')}>
        <NavLink to="/" end>{t('nav.clock')}</NavLink>
        <NavLink to="/history">{t('nav.history')}</NavLink>
        <NavLink to="/requests">{t('nav.requests')}</NavLink>
        <NavLink to="/security">{t('nav.security')}</NavLink>
      </nav>
    </div>
  );
}
