// Today's and this week's paid hours on the clock screen, from the worker's timesheet kept on the
// phone (./hours.ts); a session running now keeps counting, minute by minute.
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, call } from '../api/client.ts';
import { useCached } from './cached.ts';
import { addDays, HOURS_DAYS, hm, localDay, todayAndWeek } from './hours.ts';

/** The signed-in worker's timesheet of the last HOURS_DAYS days (the route answers for the caller only). */
export function loadHours() {
  const today = new Date();
  return call(api.GET('/api/worker/timesheet', { params: { query: { from: localDay(addDays(today, 1 - HOURS_DAYS)), to: localDay(today) } } }));
}

export function MyHours({ userId, reload }: { userId: number; reload: number }) {
  const { t } = useTranslation('worker');
  const { data } = useCached('hours', userId, loadHours, reload);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);
  if (!data) return null;
  const figures = todayAndWeek(data, localDay(new Date(now)), now);
  return (
    <p className="my-hours" data-testid="my-hours">
      <span>{t('hours.today')} <strong>{hm(figures.today)}</strong></span>
      <span>{t('hours.week')} <strong>{hm(figures.week)}</strong></span>
    </p>
  );
}
