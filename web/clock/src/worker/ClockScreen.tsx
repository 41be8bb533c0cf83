// The clock screen: the worker's state (clocked in since …, or clocked out; the site), the punches
// waiting on the phone, and one big button. A tap notes the time, starts finding the position and
// opens the scanner; once the site's QR code is read the punch is queued (IndexedDB) and sent at
// once; without an answer it waits and is sent when the network returns. Every refusal in words.
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../api/errors.ts';
import { uuid } from '../api/device.ts';
import { useAuth } from '../auth/auth.tsx';
import { when } from './format.ts';
import { currentPosition, GeoError, type Position } from './geo.ts';
import { fetchLatest, queue, remember, rememberedLatest, type ClockReply, type Latest } from './punches.ts';
import { effectiveState, nextAction, qrValueOf, type EventType, type FlushResult, type Punch } from './queue.ts';
import { prepareDecoder } from './scan.ts';
import { Scanner } from './Scanner.tsx';
import { punchRefusal } from './strings.ts';
import { Tracking } from './Tracking.tsx';

const RETRY_MS = 20_000;

interface Notice {
  id: string;
  kind: 'ok' | 'refusal' | 'waiting';
  text: string;
}

interface Tap {
  eventType: EventType;
  capturedAt: string;
  position: Promise<Position>;
}

export default function ClockScreen() {
  const { t } = useTranslation('worker');
  const { session } = useAuth();
  const userId = session!.userId;
  const [latest, setLatest] = useState<Latest | null>(() => rememberedLatest(userId));
  const [waiting, setWaiting] = useState<Punch[]>([]);
  const [notices, setNotices] = useState<Notice[]>([]);
  const [tap, setTap] = useState<Tap | null>(null);
  const [accuracy, setAccuracy] = useState<number | null | undefined>(undefined);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const mine = useRef<string | null>(null);

  const explain = useCallback((err: unknown) => {
    if (err instanceof GeoError) return t(`geo.${err.reason}`);
    return punchRefusal(err, t, when);
  }, [t]);

  const refresh = useCallback(() => fetchLatest(userId).then(setLatest, () => undefined), [userId]);

  /** Turns a flush's outcomes into notices (the punch just made is reported by `punch`). */
  const report = useCallback((result: FlushResult<ClockReply>) => {
    const added: Notice[] = [];
    for (const o of result.outcomes) {
      const p = o.punch;
      if (o.kind === 'sent') {
        if (p.clientEventId === mine.current) continue;
        added.push({ id: p.clientEventId, kind: 'ok', text: t(`queue.sent_${p.eventType}`, { time: when(p.capturedAt) }) });
      } else {
        const reason = explain(o.error);
        added.push({ id: p.clientEventId, kind: 'refusal', text: p.clientEventId === mine.current ? reason : t(`queue.refused_${p.eventType}`, { time: when(p.capturedAt), reason }) });
      }
    }
    if (added.length) setNotices((n) => [...added, ...n.filter((x) => !added.some((a) => a.id === x.id))].slice(0, 4));
    if (result.outcomes.length) {
      const sent = result.outcomes.filter((o) => o.kind === 'sent').at(-1);
      if (sent && sent.kind === 'sent') {
        const l = { eventType: sent.punch.eventType, at: sent.reply.timestamp, siteName: latest?.siteName ?? null };
        remember(userId, l);
        setLatest(l);
      }
      void refresh();
    }
  }, [explain, latest?.siteName, refresh, t, userId]);

  const flush = useCallback(() => queue.flush(userId).then(report, () => undefined), [report, userId]);

  useEffect(() => {
    let live = true;
    const unsubscribe = queue.subscribe((all) => live && setWaiting(all.filter((p) => p.userId === userId)));
    void queue.waiting(userId).then((w) => live && setWaiting(w));
    void refresh();
    return () => {
      live = false;
      unsubscribe();
    };
  }, [refresh, userId]);

  // The QR decoder is fetched once the screen is interactive (not before: it is not needed to
  // show the state), so that a tap does not wait for it.
  useEffect(() => {
    if ('requestIdleCallback' in window) window.requestIdleCallback(() => prepareDecoder());
    else setTimeout(prepareDecoder, 1000);
  }, []);

  // Send what waits: at start, when the network returns, and every RETRY_MS while something waits.
  const hasWaiting = waiting.length > 0;
  useEffect(() => {
    void flush();
    const online = () => void flush();
    window.addEventListener('online', online);
    const timer = hasWaiting ? setInterval(() => void flush(), RETRY_MS) : undefined;
    return () => {
      window.removeEventListener('online', online);
      clearInterval(timer);
    };
  }, [flush, hasWaiting]);

  const state = effectiveState(latest ? { eventType: latest.eventType, at: latest.at } : null, waiting);
  const action = nextAction(state.state);

  const start = () => {
    const position = currentPosition();
    position.then((p) => setAccuracy(p.accuracy), (err: unknown) => setProblem(explain(err)));
    position.catch(() => undefined);
    setAccuracy(undefined);
    setProblem(null);
    setTap({ eventType: action, capturedAt: new Date().toISOString(), position });
  };

  const onCode = async (text: string) => {
    if (!tap) return;
    setBusy(true);
    try {
      let position: Position;
      try {
        position = await tap.position;
      } catch (err) {
        setProblem(explain(err));
        return;
      }
      const clientEventId = uuid();
      mine.current = clientEventId;
      const punch = await queue.add({
        clientEventId, userId, eventType: tap.eventType, qrCodeValue: qrValueOf(text), latitude: position.latitude, longitude: position.longitude,
        accuracy: position.accuracy, capturedAt: tap.capturedAt, siteName: latest?.siteName ?? null,
      });
      const result = await queue.flush(userId);
      const outcome = result.outcomes.find((o) => o.punch.clientEventId === clientEventId);
      report(result);
      if (outcome?.kind === 'sent') {
        setNotices((n) => [{ id: clientEventId, kind: 'ok' as const, text: t(`done.${punch.eventType}`, { time: when(outcome.reply.timestamp) }) }, ...n].slice(0, 4));
      } else if (!outcome) {
        const blocked = result.blockedBy;
        const text = blocked instanceof ApiError && blocked.status === 429
          ? punchRefusal(blocked, t, when)
          : t(`done.queued_${punch.eventType}`, { time: when(punch.capturedAt) });
        setNotices((n) => [{ id: clientEventId, kind: 'waiting' as const, text }, ...n].slice(0, 4));
      }
      setTap(null);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="clock">
      <div className={`state ${state.state === 'clock_in' ? 'in' : 'out'}`} data-testid="clock-state">
        <p className="state-word">{t(state.state === 'clock_in' ? 'state.in' : 'state.out')}</p>
        {state.since ? <p className="since">{t('state.since', { time: when(state.since) })}</p> : <p className="since">{t('state.never')}</p>}
        {latest?.siteName && !state.queued && <p className="site">{t('state.at', { site: latest.siteName })}</p>}
        {state.queued && <p className="queued">{t('state.queued')}</p>}
      </div>

      <button type="button" className={`primary huge ${action}`} onClick={start} disabled={tap !== null}>
        {t(`action.${action}`)}
      </button>

      <div className="notices" aria-live="polite">
        {notices.map((n) => (
          <p key={n.id} className={n.kind === 'refusal' ? 'refusal' : n.kind === 'ok' ? 'confirm' : 'note'} role={n.kind === 'refusal' ? 'alert' : 'status'}>
            {n.text}
            <button type="button" className="link dismiss" onClick={() => setNotices((all) => all.filter((x) => x.id !== n.id))}>{t('action.dismiss')}</button>
          </p>
        ))}
      </div>

      {waiting.length > 0 && (
        <section className="waiting" aria-labelledby="waiting-title">
          <h2 id="waiting-title">{t('queue.title')}</h2>
          <ul>
            {waiting.map((p) => <li key={p.clientEventId}>{t(`queue.item_${p.eventType}`, { time: when(p.capturedAt) })}</li>)}
          </ul>
          <p className="muted">{t('queue.why')}</p>
          <button type="button" className="secondary" onClick={() => void flush()}>{t('action.retryNow')}</button>
        </section>
      )}

      <Tracking userId={userId} clockedIn={state.state === 'clock_in'} />

      {tap && (
        <Scanner
          eventType={tap.eventType}
          accuracy={accuracy}
          problem={problem}
          busy={busy}
          onCode={(text) => void onCode(text)}
          onCancel={() => setTap(null)}
        />
      )}
    </section>
  );
}
