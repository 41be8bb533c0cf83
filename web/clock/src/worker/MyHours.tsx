// Today's and this week's paid hours on the clock screen, from the worker's timesheet kept on the
// phone (./hours.ts); a session running now keeps counting, minute by minute. Within 15 minutes of
// the work rules' daily maximum of paid time, or over it, a warning says so.
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, call } from '../api/client.ts';
import { useCached } from './cached.ts';
import { addDays, HOURS_DAYS, hm, localDay, todayAndWeek } from './hours.ts';

const NEAR_MAX_SECONDS = 15 * 60;

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
  // Near (within NEAR_MAX_SECONDS) or over the work rules' daily maximum of paid time: said.
  const max = data.maxDailyMinutes == null ? null : data.maxDailyMinutes * 60;
  const near = max !== null && figures.today >= max - NEAR_MAX_SECONDS;
  return (
    <>
      <p className="my-hours" data-testid="my-hours">
        <span>{t('hours.today')} <strong>{hm(figures.today)}</strong></span>
        <span>{t('hours.week')} <strong>{hm(figures.week)}</strong></span>
      </p>
      {near && (
        <p className="max-warning" role="status" data-testid="daily-max">
          {t(figures.today > max ? 'hours.overMax' : 'hours.nearMax', { max: hm(max), left: hm(Math.max(0, max - figures.today)) })}
        </p>
      )}
    </>
  );
}
