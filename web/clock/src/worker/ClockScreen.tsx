// The clock screen: the worker's state (clocked in since …, or clocked out; the site), the camera's
// viewfinder, the punches waiting on the phone, and one big button. While the screen is in view the
// camera reads the site's QR code and the position is followed, so that a tap only sends: with a
// code read in the last FRESH_MS and a position, the punch is queued (IndexedDB) and sent at once;
// otherwise the tap waits for them (its time is the tap's). Without an answer the punch waits and
// is sent when the network returns. Every refusal in words.
// The camera and the position stop when the page is hidden, when the worker leaves the screen and
// after IDLE_MS without a tap; they start with the screen only when the browser allows both without
// asking, otherwise on the worker's tap (which may show the browser's questions).
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../api/errors.ts';
import { uuid } from '../api/device.ts';
import { useAuth } from '../auth/auth.tsx';
import { when } from './format.ts';
import { hm } from './hours.ts';
import { GeoError, watchPosition, type Position } from './geo.ts';
import { fetchLatest, queue, remember, rememberedLatest, type ClockReply, type Latest } from './punches.ts';
import { effectiveState, nextAction, qrValueOf, type EventType, type FlushResult, type Punch } from './queue.ts';
import { Scanner } from './Scanner.tsx';
import { punchRefusal } from './strings.ts';
import { MyHours } from './MyHours.tsx';
import { Tracking } from './Tracking.tsx';

const RETRY_MS = 20_000;
/** How long a code read stays usable: long enough to lower the phone and tap, too short to replay an old reading. */
const FRESH_MS = 30_000;
/** Without a tap for this long, the camera and the position stop (the phone's battery). */
const IDLE_MS = 60_000;
/**
 * After a punch the button shows its confirmation this long and takes no tap; the code read before
 * the punch is forgotten and readings during the confirmation are ignored, so the opposite punch
 * needs the code read again afterwards (a double tap, or a second tap on a button that has just
 * changed under the thumb, records one punch).
 */
export const CONFIRM_MS = 5_000;

interface Notice {
  id: string;
  kind: 'ok' | 'refusal' | 'waiting';
  text: string;
}

/** The punch just made, shown on the button until CONFIRM_MS after `until - CONFIRM_MS`. */
interface Confirmed {
  eventType: EventType;
  queued: boolean;
}

interface Tap {
  eventType: EventType;
  capturedAt: string;
}

/** Whether the camera and the position can start without the browser asking the worker. */
async function allowedWithoutAsking(): Promise<boolean> {
  try {
    const states = await Promise.all((['camera', 'geolocation'] as const).map((name) => navigator.permissions.query({ name })));
    return states.every((s) => s.state === 'granted');
  } catch {
    // No permissions API, or one that does not know the camera: ask on the first tap.
    return false;
  }
}

export default function ClockScreen() {
  const { t } = useTranslation('worker');
  const { session } = useAuth();
  const userId = session!.userId;
  const [latest, setLatest] = useState<Latest | null>(() => rememberedLatest(userId));
  const [waiting, setWaiting] = useState<Punch[]>([]);
  const [notices, setNotices] = useState<Notice[]>([]);
  // A tap waiting for a code read or a position.
  const [tap, setTap] = useState<Tap | null>(null);
  const [wanted, setWanted] = useState(false);
  const [visible, setVisible] = useState(() => document.visibilityState === 'visible');
  const live = wanted && visible;
  const [position, setPosition] = useState<Position | null>(null);
  const [geoFailure, setGeoFailure] = useState<GeoError | null>(null);
  // The code's text while fresh (the time of its last reading is in `read`).
  const [code, setCode] = useState<string | null>(null);
  const read = useRef<{ text: string; at: number } | null>(null);
  const stale = useRef<ReturnType<typeof setTimeout>>(undefined);
  const idle = useRef<ReturnType<typeof setTimeout>>(undefined);
  const [busy, setBusy] = useState(false);
  const [confirmed, setConfirmed] = useState<Confirmed | null>(null);
  const confirming = useRef(false);
  const confirmTimer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(confirmTimer.current), []);

  const explain = useCallback((err: unknown) => {
    if (err instanceof GeoError) return t(`geo.${err.reason}`);
    return punchRefusal(err, t, when);
  }, [t]);

  const refresh = useCallback(() => fetchLatest(userId).then(setLatest, () => undefined), [userId]);
  // A new value reloads the worker's hours (after punches were answered).
  const [hoursVersion, setHoursVersion] = useState(0);

  /** Turns a flush's outcomes into notices (`own`: the punch just made, which `send` reports itself). */
  const report = useCallback((result: FlushResult<ClockReply>, own?: string) => {
    const added: Notice[] = [];
    for (const o of result.outcomes) {
      const p = o.punch;
      if (o.kind === 'sent') {
        if (p.clientEventId === own) continue;
        added.push({ id: p.clientEventId, kind: 'ok', text: t(`queue.sent_${p.eventType}`, { time: when(p.capturedAt) }) });
      } else {
        const reason = explain(o.error);
        added.push({ id: p.clientEventId, kind: 'refusal', text: p.clientEventId === own ? reason : t(`queue.refused_${p.eventType}`, { time: when(p.capturedAt), reason }) });
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
      setHoursVersion((v) => v + 1);
      void refresh();
    }
  }, [explain, latest?.siteName, refresh, t, userId]);

  const flush = useCallback(() => queue.flush(userId).then((r) => report(r), () => undefined), [report, userId]);

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

  useEffect(() => {
    let mounted = true;
    void allowedWithoutAsking().then((yes) => mounted && yes && setWanted(true));
    const seen = () => setVisible(document.visibilityState === 'visible');
    document.addEventListener('visibilitychange', seen);
    return () => {
      mounted = false;
      document.removeEventListener('visibilitychange', seen);
    };
  }, []);

  /** A tap: the camera stays on IDLE_MS more. */
  const touch = useCallback(() => {
    clearTimeout(idle.current);
    idle.current = setTimeout(() => setWanted(false), IDLE_MS);
  }, []);

  const forget = useCallback(() => {
    clearTimeout(stale.current);
    read.current = null;
    setCode(null);
  }, []);

  const onCode = useCallback((text: string) => {
    // A reading while the button shows the last punch's confirmation is not a fresh one.
    if (confirming.current) return;
    read.current = { text, at: Date.now() };
    setCode(text);
    clearTimeout(stale.current);
    stale.current = setTimeout(forget, FRESH_MS);
  }, [forget]);

  // While live: the position followed, the idle timer running. When it stops, what was seen goes.
  useEffect(() => {
    if (!live) return;
    touch();
    const stop = watchPosition((p) => {
      setPosition(p);
      setGeoFailure(null);
    }, setGeoFailure);
    return () => {
      stop();
      clearTimeout(idle.current);
      setPosition(null);
      setGeoFailure(null);
      setTap(null);
      forget();
    };
  }, [forget, live, touch]);

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

  /** The button shows the punch just made for CONFIRM_MS; then the code must be read again. */
  const confirm = (c: Confirmed) => {
    confirming.current = true;
    forget();
    setConfirmed(c);
    clearTimeout(confirmTimer.current);
    confirmTimer.current = setTimeout(() => {
      confirming.current = false;
      forget();
      setConfirmed(null);
    }, CONFIRM_MS);
  };

  const send = async (tap: Tap, text: string, position: Position) => {
    // A reading is used once: the next punch needs the code read again, after the confirmation
    // (a double tap cannot clock in and out).
    confirming.current = true;
    forget();
    setTap(null);
    setBusy(true);
    let done: Confirmed | null = null;
    try {
      const clientEventId = uuid();
      const punch = {
        clientEventId, userId, eventType: tap.eventType, qrCodeValue: qrValueOf(text), latitude: position.latitude, longitude: position.longitude,
        accuracy: position.accuracy, capturedAt: tap.capturedAt, siteName: latest?.siteName ?? null,
      };
      const result = await queue.submit(punch);
      const outcome = result.outcomes.find((o) => o.punch.clientEventId === clientEventId);
      report(result, clientEventId);
      if (outcome?.kind === 'sent') {
        done = { eventType: punch.eventType, queued: false };
        setNotices((n) => [{ id: clientEventId, kind: 'ok' as const, text: t(`done.${punch.eventType}`, { time: when(outcome.reply.timestamp) }) }, ...n].slice(0, 4));
        // A day started too soon after the previous one: recorded, and the worker told.
        const warning = outcome.reply.warning;
        if (warning?.code === 'short_rest') {
          const text = t('warning.shortRest', { rest: hm(warning.restMinutes * 60), min: hm(warning.minRestMinutes * 60) });
          setNotices((n) => [{ id: `${clientEventId}:rest`, kind: 'waiting' as const, text }, ...n].slice(0, 4));
        }
      } else if (!outcome) {
        // Kept on the phone: said as a rate limit, a server error or no connection.
        done = { eventType: punch.eventType, queued: true };
        const blocked = result.blockedBy;
        const at = { time: when(punch.capturedAt) };
        const text = !(blocked instanceof ApiError) || blocked.offline ? t(`done.queued_${punch.eventType}`, at)
          : blocked.status === 429 ? punchRefusal(blocked, t, when)
          : blocked.status >= 500 ? t(`done.serverError_${punch.eventType}`, at)
          : t(`done.queued_${punch.eventType}`, at);
        setNotices((n) => [{ id: clientEventId, kind: 'waiting' as const, text }, ...n].slice(0, 4));
      }
    } finally {
      if (done) confirm(done);
      else confirming.current = false;
      setBusy(false);
    }
  };

  const fresh = () => (read.current && Date.now() - read.current.at <= FRESH_MS ? read.current.text : null);

  const press = () => {
    if (busy || confirmed || tap) return;
    touch();
    const now: Tap = { eventType: action, capturedAt: new Date().toISOString() };
    const text = fresh();
    if (live && text && position) return void send(now, text, position);
    setWanted(true);
    setTap(now);
  };

  // A tap that waited: sent as soon as the code is read and the position known.
  useEffect(() => {
    const text = fresh();
    if (tap && !busy && code && text && position) void send(tap, text, position);
  });

  const ready = live && code !== null && position !== null && !confirmed;
  return (
    <section className="clock" onPointerDown={live ? touch : undefined}>
      <div className={`state ${state.state === 'clock_in' ? 'in' : 'out'}`} data-testid="clock-state">
        <p className="state-word">{t(state.state === 'clock_in' ? 'state.in' : 'state.out')}</p>
        {state.since ? <p className="since">{t('state.since', { time: when(state.since) })}</p> : <p className="since">{t('state.never')}</p>}
        {latest?.siteName && !state.queued && <p className="site">{t('state.at', { site: latest.siteName })}</p>}
        {state.queued && <p className="queued">{t('state.queued')}</p>}
        <MyHours userId={userId} reload={hoursVersion} />
      </div>

      <Scanner on={live} read={code !== null} onCode={onCode} onTurnOn={() => setWanted(true)}>
        {live && (
          <p className="position" role="status">
            {position ? t('scan.position', { accuracy: position.accuracy === null ? '?' : Math.round(position.accuracy) }) : t('scan.positionWaiting')}
          </p>
        )}
        {geoFailure && <p className="refusal" role="alert">{explain(geoFailure)}</p>}
      </Scanner>

      {confirmed ? (
        <button type="button" className="primary huge confirmed" disabled data-testid="confirmed">
          <span>{t(`confirmed.${confirmed.queued ? 'queued_' : ''}${confirmed.eventType}`)}</span>
          <span className="sub">{t('confirmed.again')}</span>
        </button>
      ) : (
        <button type="button" className={`primary huge ${action}`} onClick={press} disabled={busy || tap !== null} data-ready={ready || undefined}>
          <span>{t(`action.${action}`)}</span>
          {(busy || tap || ready) && (
            <span className="sub">{busy ? t('scan.sending') : tap ? t(code ? 'scan.positionWaiting' : 'scan.point') : t('scan.ready')}</span>
          )}
        </button>
      )}
      {tap && <button type="button" className="secondary" onClick={() => setTap(null)}>{t('action.cancel')}</button>}

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

      <Tracking userId={userId} clockedIn={state.state === 'clock_in'} followed={position} />
    </section>
  );
}
