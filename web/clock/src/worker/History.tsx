// The worker's own punches, newest first, grouped by day: time, in or out, the site and the code
// used; forced clock-outs and punches sent late are marked. The last ones loaded are kept on the
// phone and shown without a network, with the time they were loaded.
import { useTranslation } from 'react-i18next';
import { api, call } from '../api/client.ts';
import { useAuth } from '../auth/auth.tsx';
import { useCached } from './cached.ts';
import { day, time } from './format.ts';
import { Freshness, LoadFailed } from './Freshness.tsx';

type Item = Awaited<ReturnType<typeof load>>[number];
const load = (userId: number) => call(api.GET('/api/worker/clock-history/{userId}', { params: { path: { userId }, query: { page: 1, limit: 100 } } }));

export default function History() {
  const { t } = useTranslation('worker');
  const { session } = useAuth();
  const { data: items, asOf, error } = useCached('history', session!.userId, load);

  const days = new Map<string, Item[]>();
  for (const e of items ?? []) {
    const d = day(e.timestamp);
    days.set(d, [...(days.get(d) ?? []), e]);
  }

  return (
    <section className="history">
      <h2>{t('history.title')}</h2>
      {items ? <Freshness asOf={asOf} error={error} /> : error ? <LoadFailed error={error} /> : <p className="loading" role="status">…</p>}
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
