// The worker's own punches, newest first, grouped by week and day: time, in or out, the site and
// the code used; forced clock-outs and punches sent late are marked. Each clock-out shows the
// session's length, each day and week its paid hours (from the worker's timesheet, ./hours.ts).
// The last ones loaded are kept on the phone and shown without a network, with the time they
// were loaded. A punch a correction voided or replaced is struck through and marked, one a
// correction added is marked; each punch in force has "Correct", which opens the request form
// (./Corrections.tsx, loaded then): the time is wrong, or, after a clock-in left open, the
// forgotten clock-out; and under the title, a whole session forgotten (no punch at all).
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { api, call } from '../api/client.ts';
import { useAuth } from '../auth/auth.tsx';
import { useCached } from './cached.ts';
import { day, time } from './format.ts';
import { Freshness, LoadFailed } from './Freshness.tsx';
import { hm, localDay, weekOf, type TimesheetDay } from './hours.ts';
import { loadHours } from './MyHours.tsx';

const RequestSheet = lazy(() => import('./Corrections.tsx').then((m) => ({ default: m.RequestSheet })));

type Item = Awaited<ReturnType<typeof load>>[number];
const load = (userId: number) => call(api.GET('/api/worker/clock-history/{userId}', { params: { path: { userId }, query: { page: 1, limit: 100 } } }));

interface Day {
  date: string;
  label: string;
  events: Item[];
  hours: TimesheetDay | undefined;
}

export default function History() {
  const { t } = useTranslation('worker');
  const { session } = useAuth();
  const { data: items, asOf, error } = useCached('history', session!.userId, load);
  const { data: hours } = useCached('hours', session!.userId, loadHours);
  // The punch whose correction is asked for, or 'session' for a whole session with no punch.
  const [correcting, setCorrecting] = useState<Item | 'session' | null>(null);
  const [sent, setSent] = useState(false);

  // The clock-ins in force with no clock-out in force after them: a forgotten clock-out can be asked for.
  const open = new Set<number>();
  const inForce = (items ?? []).filter((e) => !e.voided).sort((a, b) => a.timestamp.localeCompare(b.timestamp) || a.id - b.id);
  inForce.forEach((e, i) => {
    if (e.event_type === 'clock_in' && inForce[i + 1]?.event_type !== 'clock_out') open.add(e.id);
  });

  const hoursOf = new Map(hours?.days.map((d) => [d.date, d]) ?? []);
  // The length of each session, by the time of its clock-out.
  const lengths = new Map<string, number>();
  for (const d of hours?.days ?? []) for (const s of d.sessions) if (s.end) lengths.set(s.end, s.workedSeconds);

  // Days newest first, each in its week (weeks as the work rules start them).
  const weeks = new Map<string, Day[]>();
  for (const e of items ?? []) {
    const date = localDay(new Date(e.timestamp));
    const week = hours ? weekOf(date, hours.weekStartsOn) : '';
    const days = weeks.get(week) ?? [];
    if (!weeks.has(week)) weeks.set(week, days);
    let d = days.find((x) => x.date === date);
    if (!d) days.push((d = { date, label: day(e.timestamp), events: [], hours: hoursOf.get(date) }));
    d.events.push(e);
  }
  const weekPaid = (start: string) => hours?.days.filter((d) => weekOf(d.date, hours.weekStartsOn) === start).reduce((n, d) => n + d.paidSeconds, 0) ?? 0;

  return (
    <section className="history">
      <h2>{t('history.title')}</h2>
      {items ? <Freshness asOf={asOf} error={error} /> : error ? <LoadFailed error={error} /> : <p className="loading" role="status">…</p>}
      {sent && (
        <p className="confirm" role="status">
          <span>{t('history.requestSent')} <Link to="/requests">{t('nav.requests')}</Link></span>
        </p>
      )}
      {items?.length === 0 && <p className="note">{t('history.empty')}</p>}
      {items && (
        <button type="button" className="secondary big" onClick={() => { setSent(false); setCorrecting('session'); }}>
          {t('history.addSession')}
        </button>
      )}
      {[...weeks].map(([week, days]) => (
        <section key={week || 'all'} className="week">
          {week && hoursOf.size > 0 && (
            <p className="week-total">
              {t('hours.weekOf', { date: day(`${week}T12:00:00`) })} <strong>{hm(weekPaid(week))}</strong>
            </p>
          )}
          {days.map((d) => (
            <section key={d.date} className="day">
              <h3>
                {d.label}
                {d.hours && <span className="day-total">{t('hours.paid', { time: hm(d.hours.paidSeconds) })}</span>}
              </h3>
              <ul>
                {d.events.map((e) => (
                  <li key={e.id} className={`${e.event_type === 'clock_in' ? 'in' : 'out'}${e.voided ? ' voided' : ''}`}>
                    <span className="time">{time(e.timestamp)}</span>
                    <span className="what">
                      <strong>{t(e.event_type === 'clock_in' ? 'state.in' : 'state.out')}</strong>
                      <span className="muted">
                        {e.forced ? t('history.forced') : e.origin === 'punch' ? [e.siteName, e.qrCodeUsedName].filter(Boolean).join(' · ') : e.siteName}
                        {e.late && ` · ${t('history.late')}`}
                      </span>
                      {(e.voided || e.origin !== 'punch') && (
                        <span className={`mark ${e.voided ? 'voided' : e.origin}`}>{t(e.voided ? 'history.voided' : `history.origin_${e.origin}`)}</span>
                      )}
                    </span>
                    {!e.voided && (
                      <span className="side">
                        {lengths.has(e.timestamp) && <span className="length">{hm(lengths.get(e.timestamp)!)}</span>}
                        <button type="button" className="link correct" aria-label={t(`history.correctNamed_${e.event_type}`, { time: time(e.timestamp), day: d.label })}
                          onClick={() => { setSent(false); setCorrecting(e); }}>
                          {t('history.correct')}
                        </button>
                      </span>
                    )}
                  </li>
                ))}
              </ul>
            </section>
          ))}
        </section>
      ))}
      {correcting && (
        <Suspense fallback={null}>
          <RequestSheet
            punch={correcting === 'session' ? null : { id: correcting.id, eventType: correcting.event_type, at: correcting.timestamp, siteName: correcting.siteName }}
            open={correcting !== 'session' && open.has(correcting.id)}
            onClose={() => setCorrecting(null)}
            onSent={() => { setCorrecting(null); setSent(true); }}
          />
        </Suspense>
      )}
    </section>
  );
}
