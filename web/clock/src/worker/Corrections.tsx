// The worker's corrections of their punches, in their own chunk (loaded when the worker opens the
// request form, the list of requests, or has decisions to read, never with the clock screen):
// - RequestSheet: from the history, a request for one punch: the time is wrong (a move), or, after
//   a clock-in left open, the clock-out that was forgotten (an add); or a whole session with no
//   punch at all (an add of a clock-in and its clock-out), with the reason in words;
// - Requests: the worker's requests, newest first, with their state, the manager's note, and
//   Withdraw for those still waiting (kept on the phone like the history, shown offline);
// - Decisions: at the app's opening, the decisions not read yet in words, then marked read.
// Every refusal in words: the server's, or ours for those whose details say more.
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { api, call } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';
import type { paths } from '../api/schema.gen.ts';
import { useAuth } from '../auth/auth.tsx';
import { addStrings } from '../i18n/index.ts';
import { useCached } from './cached.ts';
import { time, when } from './format.ts';
import { Freshness, LoadFailed } from './Freshness.tsx';
import { localDay } from './hours.ts';
import { requestStrings } from './requestStrings.ts';

addStrings('requests', requestStrings);

type Correction = paths['/api/worker/corrections']['get']['responses'][200]['content']['application/json']['corrections'][number];
type Body = NonNullable<paths['/api/worker/corrections']['post']['requestBody']>['content']['application/json'];
export type Notification = paths['/api/notifications']['get']['responses'][200]['content']['application/json']['notifications'][number];

/** A punch of the history, as a request needs it. */
export interface PunchRef {
  id: number;
  eventType: 'clock_in' | 'clock_out';
  at: string;
  siteName: string | null;
}

const pad = (n: number) => String(n).padStart(2, '0');
/** A time as a `datetime-local` input shows it (the phone's zone, to the minute). */
const inputTime = (d: Date) => `${localDay(d)}T${pad(d.getHours())}:${pad(d.getMinutes())}`;

/** The second time of a pair: its time alone when on the same day as `first`. */
const then = (first: string, iso: string) => (localDay(new Date(first)) === localDay(new Date(iso)) ? time(iso) : when(iso));

/** What a correction does, in the worker's words. */
export function whatOf(c: Pick<Correction, 'kind' | 'before' | 'after'>, t: TFunction): string {
  const [before, after] = [c.before[0], c.after[0]];
  if (c.kind === 'add' && c.after.length === 2) return t('what.add_session', { from: when(c.after[0]!.at), to: then(c.after[0]!.at, c.after[1]!.at) });
  if (c.kind === 'add' && after) return t(`what.add_${after.eventType}`, { time: when(after.at) });
  if (c.kind === 'move' && before && after) return t(`what.move_${before.eventType}`, { from: when(before.at), to: then(before.at, after.at) });
  if (c.kind === 'void' && c.before.length === 2) return t('what.void_session', { from: when(c.before[0]!.at), to: then(c.before[0]!.at, c.before[1]!.at) });
  if (c.kind === 'void' && before) return t(`what.void_${before.eventType}`, { time: when(before.at) });
  return t('what.other');
}

/** Why a request (or its withdrawal) was refused, in the worker's words. */
export function requestRefusal(err: unknown, t: TFunction): string {
  if (!(err instanceof ApiError)) return t('refusal.other', { message: err instanceof Error ? err.message : String(err) });
  if (err.offline) return t('common:error.network');
  const d = err.details;
  switch (err.code) {
    case 'CORRECTION_BREAKS_ORDER':
      return typeof d.conflictingAt === 'string' && (d.conflictingEventType === 'clock_in' || d.conflictingEventType === 'clock_out')
        ? t('refusal.breaksOrder', { type: t(`refusal.type_${d.conflictingEventType}`), time: when(d.conflictingAt) })
        : t('refusal.breaksOrderFirst');
    case 'CONFLICT': return t('refusal.pending');
    case 'PUNCH_ALREADY_CORRECTED': return t('refusal.corrected');
    case 'CORRECTION_ALREADY_DECIDED': return t('refusal.decided');
    case 'RATE_LIMITED': return t('common:signIn.limited', { seconds: err.retryAfter ?? 60 });
    default: return t('refusal.other', { message: err.message || err.code });
  }
}

type Kind = 'add' | 'move' | 'session';

/**
 * The request form, over the screen: for one punch (`punch`), its time is wrong (a move) or, when
 * `open` (a clock-in with no clock-out after it), the forgotten clock-out (an add, the first choice
 * then); and, from a punch or alone (`punch` null), a whole session with no punch at all (an add of
 * a clock-in and its clock-out: a start and an end).
 */
export function RequestSheet({ punch, open, onClose, onSent }: { punch: PunchRef | null; open: boolean; onClose: () => void; onSent: () => void }) {
  const { t } = useTranslation('requests');
  const kinds: Kind[] = !punch ? ['session'] : open ? ['add', 'move', 'session'] : ['move', 'session'];
  const [kind, setKind] = useState<Kind>(kinds[0]!);
  const initial = punch ? inputTime(new Date(punch.at)) : '';
  const [at, setAt] = useState(kind === 'move' ? initial : '');
  const [endAt, setEndAt] = useState('');
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const choose = (k: Kind) => {
    setKind(k);
    setAt(k === 'move' ? initial : '');
    setEndAt('');
    setProblem(null);
  };
  /** The request's body, or the problem with what is filled in, in words. */
  const bodyOf = (): Body | string => {
    const why = reason.trim();
    if (kind === 'session') {
      if (!at || !endAt) return t('sheet.bothRequired');
      const [start, end] = [new Date(at), new Date(endAt)];
      if (end.getTime() > Date.now()) return t('sheet.future');
      if (end <= start) return t('sheet.endBeforeStart');
      if (!why) return t('sheet.required');
      return { kind: 'add', eventType: 'clock_in', at: start.toISOString(), endAt: end.toISOString(), reason: why };
    }
    if (!at) return t('sheet.timeRequired');
    const time = new Date(at);
    if (time.getTime() > Date.now()) return t('sheet.future');
    if (kind === 'move' && at === initial) return t('sheet.sameTime');
    if (!why) return t('sheet.required');
    return kind === 'add'
      ? { kind: 'add', eventType: 'clock_out', at: time.toISOString(), reason: why }
      : { kind: 'move', eventId: punch!.id, at: time.toISOString(), reason: why };
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const body = bodyOf();
    if (typeof body === 'string') return setProblem(body);
    setBusy(true);
    setProblem(null);
    try {
      await call(api.POST('/api/worker/corrections', { body }));
      onSent();
    } catch (err) {
      setProblem(requestRefusal(err, t));
    } finally {
      setBusy(false);
    }
  };
  useEffect(() => {
    const escape = (e: KeyboardEvent) => e.key === 'Escape' && onClose();
    window.addEventListener('keydown', escape);
    return () => window.removeEventListener('keydown', escape);
  }, [onClose]);
  const now = inputTime(new Date());
  return (
    <div className="sheet-backdrop" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <form className="sheet" role="dialog" aria-modal="true" aria-labelledby="request-title" onSubmit={(e) => void submit(e)} noValidate>
        <h2 id="request-title">{t('sheet.title')}</h2>
        {punch
          ? <p className="muted">{t(`sheet.punch_${punch.eventType}`, { time: when(punch.at) })}{punch.siteName && ` · ${punch.siteName}`}</p>
          : <p className="muted">{t('sheet.sessionIntro')}</p>}
        {kinds.length > 1 && (
          <fieldset className="choices">
            <legend>{t('sheet.kind')}</legend>
            {kinds.map((k) => (
              <label key={k} className={kind === k ? 'chosen' : undefined}>
                <input type="radio" name="kind" value={k} checked={kind === k} onChange={() => choose(k)} /> {t(`sheet.${k}`)}
              </label>
            ))}
          </fieldset>
        )}
        <label>
          {t(kind === 'add' ? 'sheet.addAt' : kind === 'session' ? 'sheet.startAt' : 'sheet.moveAt')}
          <input type="datetime-local" value={at} max={now} required onChange={(e) => { setAt(e.target.value); setProblem(null); }} />
        </label>
        {kind === 'session' && (
          <label>
            {t('sheet.endAt')}
            <input type="datetime-local" value={endAt} min={at || undefined} max={now} required onChange={(e) => { setEndAt(e.target.value); setProblem(null); }} />
          </label>
        )}
        <label>
          {t('sheet.reason')}
          <textarea value={reason} maxLength={500} rows={3} required placeholder={t(kind === 'session' ? 'sheet.sessionHint' : 'sheet.reasonHint')} onChange={(e) => setReason(e.target.value)} />
        </label>
        <p className="muted small">{t('sheet.how')}</p>
        {problem && <p className="refusal" role="alert">{problem}</p>}
        <button type="submit" className="primary big" disabled={busy}>{busy ? t('sheet.sending') : t('sheet.send')}</button>
        <button type="button" className="secondary big" onClick={onClose}>{t('sheet.cancel')}</button>
      </form>
    </div>
  );
}

const loadRequests = (_userId: number) =>
  call(api.GET('/api/worker/corrections', { params: { query: { status: 'all', page: 1, limit: 50 } } })).then((r) => r.corrections);

/** The worker's requests and the corrections their manager made, with Withdraw while one waits. */
export default function Requests() {
  const { t } = useTranslation('requests');
  const { session } = useAuth();
  const userId = session!.userId;
  const [version, setVersion] = useState(0);
  const { data: items, asOf, error } = useCached('requests', userId, loadRequests, version);
  const [notice, setNotice] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState<number | null>(null);
  const withdraw = async (c: Correction) => {
    setBusy(c.id);
    try {
      await call(api.POST('/api/worker/corrections/{id}/cancel', { params: { path: { id: c.id } } }));
      setNotice({ ok: true, text: t('list.cancelled') });
    } catch (err) {
      setNotice({ ok: false, text: requestRefusal(err, t) });
    } finally {
      setBusy(null);
      setVersion((v) => v + 1);
    }
  };
  return (
    <section className="requests">
      <h2>{t('list.title')}</h2>
      {items ? <Freshness asOf={asOf} error={error} /> : error ? <LoadFailed error={error} /> : <p className="loading" role="status">…</p>}
      {notice && <p className={notice.ok ? 'confirm' : 'refusal'} role={notice.ok ? 'status' : 'alert'}>{notice.text}</p>}
      {items?.length === 0 && <p className="note">{t('list.empty')}</p>}
      <ul className="request-list">
        {items?.map((c) => {
          const what = whatOf(c, t);
          const byManager = c.requestedBy?.id !== c.userId;
          return (
            <li key={c.id} className={`request ${c.status}`} data-testid="request">
              <p className="request-what"><strong>{what}</strong></p>
              <p className={`request-status ${c.status}`}>{byManager ? t('list.byManager', { name: c.requestedBy?.fullName || t('list.manager') }) : t(`status.${c.status}`)}</p>
              <p className="muted">{t('list.reason', { reason: c.reason })}</p>
              <p className="muted">
                {t('list.asked', { time: when(c.requestedAt) })}
                {c.decidedAt && !byManager && ` · ${t(c.status === 'cancelled' ? 'list.withdrawn' : 'list.decided', { time: when(c.decidedAt) })}`}
              </p>
              {c.decisionNote && <p className="request-note">{t('list.note', { name: c.decidedBy?.fullName || t('list.manager'), note: c.decisionNote })}</p>}
              {c.status === 'pending' && (
                <button type="button" className="secondary" disabled={busy === c.id} aria-label={t('list.cancelNamed', { what })} onClick={() => void withdraw(c)}>
                  {t('list.cancel')}
                </button>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

/**
 * The decisions on the worker's requests not read yet (and the corrections a manager made), the
 * reminders to clock out and the sessions closed automatically, in words, with the manager's note; marked read once shown. Each can be dismissed.
 */
export function Decisions({ notifications }: { notifications: Notification[] }) {
  const { t } = useTranslation('requests');
  const [shown, setShown] = useState<{ id: number; text: string; note: string | null; tone: 'confirm' | 'refusal' | 'note' }[] | null>(null);
  useEffect(() => {
    let live = true;
    const ids = notifications.map((n) => n.id);
    void Promise.all(notifications.map(async (n) => {
      // A reminder to clock out, or a session the server closed: said from the notification alone.
      if (n.kind === 'clock_reminder') {
        const reason = n.data.reason === 'site_closed' ? 'site_closed' : 'left_fence';
        const start = typeof n.data.sessionStart === 'string' ? when(n.data.sessionStart) : '';
        return { id: n.id, text: t(`decision.reminder_${reason}`, { start }), note: null, tone: 'note' as const };
      }
      if (n.kind === 'auto_clock_out') {
        const basis = n.data.basis === 'left_fence' ? 'left_fence' : 'limit';
        const closed = typeof n.data.closedAt === 'string' ? when(n.data.closedAt) : '';
        return { id: n.id, text: t(`decision.auto_${basis}`, { closed }), note: null, tone: 'note' as const };
      }
      const status = n.data.status === 'rejected' ? 'rejected' : 'approved';
      const note = typeof n.data.note === 'string' && n.data.note ? n.data.note : null;
      try {
        const c = await call(api.GET('/api/worker/corrections/{id}', { params: { path: { id: Number(n.data.correctionId) } } }));
        const text = c.requestedBy?.id !== c.userId
          ? t('decision.made', { what: whatOf(c, t), reason: c.reason })
          : t(`decision.${status}`, { what: whatOf(c, t) });
        return { id: n.id, text, note, tone: status === 'approved' ? 'confirm' as const : 'refusal' as const };
      } catch {
        return { id: n.id, text: t(`decision.unknown_${status}`), note, tone: status === 'approved' ? 'confirm' as const : 'refusal' as const };
      }
    })).then((all) => {
      if (!live) return;
      setShown(all);
      // Shown: read. (Without a network they are shown again at the next opening.)
      void call(api.POST('/api/notifications/read', { body: { ids } })).catch(() => undefined);
    });
    return () => {
      live = false;
    };
  }, [notifications, t]);
  if (!shown?.length) return null;
  return (
    <div className="notices decisions" aria-live="polite" data-testid="decisions">
      {shown.map((d) => (
        <p key={d.id} className={d.tone} role="status">
          <span>
            {d.text}
            {d.note && <><br /><span className="decision-note">{t('decision.note', { note: d.note })}</span></>}
          </span>
          <button type="button" className="link dismiss" onClick={() => setShown((all) => all?.filter((x) => x.id !== d.id) ?? null)}>{t('decision.dismiss')}</button>
        </p>
      ))}
    </div>
  );
}
