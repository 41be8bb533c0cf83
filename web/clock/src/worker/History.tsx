// The worker's own punches, newest first, grouped by day: time, in or out, the site and the code
// used; forced clock-outs and punches sent late are marked.
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, call } from '../api/client.ts';
import { useAuth } from '../auth/auth.tsx';
import { refusalText } from '../auth/SignIn.tsx';
import { day, time } from './format.ts';

type Item = Awaited<ReturnType<typeof load>>[number];
const load = (userId: number) => call(api.GET('/api/worker/clock-history/{userId}', { params: { path: { userId }, query: { page: 1, limit: 100 } } }));

export default function History() {
  const { t } = useTranslation('worker');
  const { t: tc } = useTranslation();
  const { session } = useAuth();
  const [items, setItems] = useState<Item[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    load(session!.userId).then((r) => live && setItems(r), (err: unknown) => live && setError(refusalText(err, tc)));
    return () => {
      live = false;
    };
  }, [session, tc]);

  const days = new Map<string, Item[]>();
  for (const e of items ?? []) {
    const d = day(e.timestamp);
    days.set(d, [...(days.get(d) ?? []), e]);
  }

  return (
    <section className="history">
      <h2>{t('history.title')}</h2>
      {error && <p className="refusal" role="alert">{t('loadFailed', { reason: error })}</p>}
      {!items && !error && <p className="loading" role="status">…</p>}
      {items?.length === 0 && <p className="note">{t('history.empty')}</p>}
      {[...days].map(([d, events]) => (
        <section key={d} className="day">
          <h3>{d}</h3>
          <ul>
            {events.map((e) => (
              <li key={e.id} className={e.event_type === 'clock_in' ? 'in' : 'out'}>
                <span className="time">{time(e.timestamp)}</span>
                <span className="what">
                  <strong>{t(e.event_type === 'clock_in' ? 'state.in' : 'state.out')}</strong>
                  <span className="muted">
                    {e.forced ? t('history.forced') : [e.siteName, e.qrCodeUsedName].filter(Boolean).join(' · ')}
                    {e.late && ` · ${t('history.late')}`}
                  </span>
                </span>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </section>
  );
}
