// Location sharing while clocked in: the position is sent every minute (source `background`)
// while the app is open and the worker is clocked in, never when clocked out; the worker can also
// send it now (source `manual`). A failed send (no network) is simply skipped: the next minute
// sends a fresh position. While the clock screen follows the position (`followed`), its latest fix
// is sent: asking for another one would wait for the phone's next fix.
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, call } from '../api/client.ts';
import { time } from './format.ts';
import { currentPosition, type Position } from './geo.ts';

const EVERY_MS = 60_000;

export function Tracking({ userId, clockedIn, followed }: { userId: number; clockedIn: boolean; followed: Position | null }) {
  const { t } = useTranslation('worker');
  const [last, setLast] = useState<string | null>(null);
  const here = useRef(followed);
  here.current = followed;

  const share = useCallback(async (source: 'background' | 'manual') => {
    try {
      const p = here.current ?? (await currentPosition());
      await call(api.POST('/api/location/update', {
        body: { userId, latitude: p.latitude, longitude: p.longitude, timestamp: p.at, source, ...(p.accuracy === null ? {} : { accuracy: p.accuracy }) },
      }));
      setLast(new Date().toISOString());
    } catch {
      // Offline or no position: the next round tries again.
    }
  }, [userId]);

  useEffect(() => {
    if (!clockedIn) return;
    void share('background');
    const timer = setInterval(() => void share('background'), EVERY_MS);
    return () => clearInterval(timer);
  }, [clockedIn, share]);

  return (
    <section className={`tracking ${clockedIn ? 'on' : 'off'}`} data-testid="tracking">
      <p>
        <span className="dot" aria-hidden="true" />
        {t(clockedIn ? 'tracking.on' : 'tracking.off')}
        {clockedIn && last && <span className="muted"> {t('tracking.last', { time: time(last) })}</span>}
      </p>
      {clockedIn && <button type="button" className="secondary" onClick={() => void share('manual')}>{t('tracking.send')}</button>}
    </section>
  );
}
