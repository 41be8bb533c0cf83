// Corrections of punches in the manager console, for the screens that show or make them (the
// Exceptions inbox, Timesheets): a correction in words, its status and its steps (asked, decided,
// the note), the history of a punch (its versions and every correction of them), and the form that
// corrects a session directly (move its clock-in or clock-out, add the missing clock-out, void it)
// with a required reason. A correction the server refuses is said in the dialog, in words.
import { useQuery } from '@tanstack/react-query';
import { Alert, DatePicker, Form, Input, Modal, Space, Tag, Typography } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useTranslation } from 'react-i18next';
import { FormModal } from '../../../shared/antd/FormModal.tsx';
import { QueryError } from '../../../shared/antd/feedback.tsx';
import { useSave } from '../../../shared/antd/useSave.ts';
import { messageOf } from '../../../shared/feedback.ts';
import { api, call } from '../api/client.ts';
import type { paths } from '../api/schema.gen.ts';
import { addStrings } from '../i18n/index.ts';
import type { Tr } from './common.tsx';
import { correctionStrings } from './correctionStrings.ts';

addStrings('corrections', correctionStrings);

export type Correction = paths['/api/managers/corrections']['get']['responses'][200]['content']['application/json']['corrections'][number];
type Punch = Correction['before'][number];
type Status = Correction['status'];

export const STATUS_COLOR: Record<Status, string> = { pending: 'gold', approved: 'green', rejected: 'red', cancelled: 'default' };

/** A punch's time for a manager: its date and minute in the browser's zone. */
export const punchTime = (iso: string) => dayjs(iso).format('YYYY-MM-DD HH:mm');
/** The second time of a pair: its minute alone when on the same day as `first`. */
const thenTime = (first: string, iso: string) => (dayjs(first).isSame(dayjs(iso), 'day') ? dayjs(iso).format('HH:mm') : punchTime(iso));

/** What a correction does, in words (`t` of the `corrections` namespace). */
export function whatOf(c: Pick<Correction, 'kind' | 'before' | 'after'>, t: Tr): string {
  const type = (p: Punch) => t(`type.${p.eventType}`);
  const [before, after] = [c.before[0], c.after[0]];
  if (c.kind === 'add' && c.after.length === 2) return t('what.addSession', { from: punchTime(c.after[0]!.at), to: thenTime(c.after[0]!.at, c.after[1]!.at) });
  if (c.kind === 'add' && after) return t('what.add', { type: type(after), time: punchTime(after.at) });
  if (c.kind === 'move' && before && after) {
    if (after.at === before.at) return t('what.moveSite', { type: type(before), from: punchTime(before.at), site: after.siteName ?? '—' });
    return t('what.move', { type: type(before), from: punchTime(before.at), to: thenTime(before.at, after.at) });
  }
  if (c.kind === 'void' && c.before.length === 2) return t('what.voidSession', { from: punchTime(c.before[0]!.at), to: thenTime(c.before[0]!.at, c.before[1]!.at) });
  return before ? t('what.void', { type: type(before), time: punchTime(before.at) }) : c.kind;
}

export function StatusTag({ status }: { status: Status }) {
  const { t } = useTranslation('corrections');
  return <Tag color={STATUS_COLOR[status]}>{t(`status.${status}`)}</Tag>;
}

/** Who asked (or made it) and when, who decided and when, and the note to the worker. */
export function CorrectionSteps({ c }: { c: Correction }) {
  const { t } = useTranslation('corrections');
  const name = (p: Correction['requestedBy']) => p?.fullName || p?.username || t('step.someone');
  const byWorker = c.requestedBy?.id === c.userId;
  return (
    <Space direction="vertical" size={0} className="cx-steps">
      <Typography.Text type="secondary">{t(byWorker ? 'step.asked' : 'step.made', { name: name(c.requestedBy), time: punchTime(c.requestedAt) })}</Typography.Text>
      {c.decidedAt && (c.status !== 'approved' || byWorker) && (
        <Typography.Text type="secondary">{t(`step.${c.status}`, { name: name(c.decidedBy), time: punchTime(c.decidedAt) })}</Typography.Text>
      )}
      {c.decisionNote && <Typography.Text><q>{c.decisionNote}</q></Typography.Text>}
    </Space>
  );
}

/** The punches before and after a correction, side by side (one under the other at phone width). */
export function BeforeAfter({ c }: { c: Pick<Correction, 'before' | 'after'> }) {
  const { t } = useTranslation('corrections');
  const list = (punches: Punch[], none: string, className: string) => (punches.length === 0
    ? <Typography.Text type="secondary">{none}</Typography.Text>
    : (
      <ul className={className}>
        {punches.map((p, i) => (
          <li key={i}>
            <strong>{t(`type.${p.eventType}`)}</strong> {punchTime(p.at)}
            {p.siteName && <Typography.Text type="secondary"> · {p.siteName}</Typography.Text>}
          </li>
        ))}
      </ul>
    ));
  return (
    <div className="cx-before-after">
      <section aria-label={t('detail.before')}>
        <Typography.Text strong className="cx-label">{t('detail.before')}</Typography.Text>
        {list(c.before, t('detail.nothingBefore'), 'cx-punches cx-old')}
      </section>
      <span className="cx-arrow" aria-hidden>→</span>
      <section aria-label={t('detail.after')}>
        <Typography.Text strong className="cx-label">{t('detail.after')}</Typography.Text>
        {list(c.after, t('detail.nothingAfter'), 'cx-punches')}
      </section>
    </div>
  );
}

/** The history of a punch: the punch, its versions (moves), and every correction of them. */
export function PunchHistory({ eventId, onClose }: { eventId: number; onClose: () => void }) {
  const { t } = useTranslation('corrections');
  const history = useQuery({
    queryKey: ['punch-history', eventId],
    queryFn: () => call(api.GET('/api/managers/punches/{id}/history', { params: { path: { id: eventId } } })),
  });
  const h = history.data;
  return (
    <Modal open onCancel={onClose} footer={null} destroyOnHidden width={640}
      title={h ? t('history.title', { type: t(`type.${h.punch.eventType}`), time: punchTime(h.punch.at) }) : t('detail.history')}>
      {history.isError ? <QueryError error={history.error} onRetry={() => void history.refetch()} /> : !h ? <p role="status">…</p> : (
        <div className="cx-history">
          <Typography.Title level={5}>{t('history.punch')}</Typography.Title>
          <p>
            <strong>{t(`type.${h.punch.eventType}`)}</strong> {punchTime(h.punch.at)}
            {h.punch.siteName && <> · {h.punch.siteName}</>} · {t(`detail.origin.${h.punch.origin}`)}
            <br />
            <Typography.Text type="secondary">{t('history.recorded', { time: punchTime(h.punch.recordedAt) })}</Typography.Text>
            {h.punch.voidedAt && <><br /><Typography.Text type="danger">{t('history.voidedAt', { time: punchTime(h.punch.voidedAt) })}</Typography.Text></>}
          </p>
          {h.chain.length > 1 && (
            <>
              <Typography.Title level={5}>{t('history.chain')}</Typography.Title>
              <ol className="cx-punches">
                {h.chain.map((p) => (
                  <li key={p.eventId} className={p.voided ? 'cx-voided' : undefined}>
                    <span className={p.voided ? 'cx-old' : undefined}>{t(`type.${p.eventType}`)} {punchTime(p.at)}</span>{' '}
                    {p.voided ? <Tag>{t('detail.voided')}</Tag> : <Tag color="green">{t('history.current')}</Tag>}
                  </li>
                ))}
              </ol>
            </>
          )}
          <Typography.Title level={5}>{t('history.corrections')}</Typography.Title>
          {h.corrections.length === 0 ? <Typography.Text type="secondary">{t('history.noCorrections')}</Typography.Text> : (
            <ul className="cx-history-list">
              {h.corrections.map((c) => (
                <li key={c.id}>
                  <Space wrap size={4}><strong>{whatOf(c, t)}</strong><StatusTag status={c.status} /></Space>
                  <div><q>{c.reason}</q></div>
                  <CorrectionSteps c={c} />
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </Modal>
  );
}

/** A timesheet session, as a correction needs it. */
export interface SessionRef {
  start: string;
  end: string | null;
  startEventId: number | null;
  endEventId: number | null;
}
export type SessionAction = 'moveIn' | 'moveOut' | 'addOut' | 'voidSession';
type CorrectionBody = NonNullable<paths['/api/managers/corrections']['post']['requestBody']>['content']['application/json'];
interface Values { at?: Dayjs; reason: string }

/** The body of a manager's correction of a session's punches. */
function bodyOf(userId: number, s: SessionRef, action: SessionAction, v: Values): CorrectionBody {
  const reason = v.reason.trim();
  const at = v.at?.toISOString();
  switch (action) {
    case 'moveIn': return { userId, kind: 'move', eventId: s.startEventId!, at, reason };
    case 'moveOut': return { userId, kind: 'move', eventId: s.endEventId!, at, reason };
    case 'addOut': return { userId, kind: 'add', eventType: 'clock_out', at, reason };
    case 'voidSession': return { userId, kind: 'void', eventId: s.startEventId!, ...(s.endEventId ? { pairEventId: s.endEventId } : {}), reason };
  }
}

/** Corrects one session of a worker's timesheet directly (applied at once), with a required reason. */
export function CorrectionForm({ userId, name, session, action, onClose }: { userId: number; name: string; session: SessionRef; action: SessionAction; onClose: () => void }) {
  const { t } = useTranslation('corrections');
  const [form] = Form.useForm<Values>();
  const { submit, isPending, mutation } = useSave(form, {
    save: (v: Values) => call(api.POST('/api/managers/corrections', { body: bodyOf(userId, session, action, v) })),
    success: t('correct.done'),
    fallback: 'reason',
    // The timesheets (the worker's days and the list's totals), the inbox and its automatic
    // clock-outs (a corrected one is marked so).
    invalidates: [['timesheet', userId], ['timesheets'], ['corrections'], ['punch-history'], ['auto-clock-outs']],
    onSaved: onClose,
  });
  const sessionTime = `${punchTime(session.start)}–${session.end ? thenTime(session.start, session.end) : '…'}`;
  const title = {
    moveIn: t('correct.titleMoveIn', { name, time: punchTime(session.start) }),
    moveOut: t('correct.titleMoveOut', { name, time: session.end ? punchTime(session.end) : '' }),
    addOut: t('correct.titleAddOut', { name, time: punchTime(session.start) }),
    voidSession: t('correct.titleVoid', { name, time: sessionTime }),
  }[action];
  const initial = action === 'moveIn' ? dayjs(session.start) : action === 'moveOut' && session.end ? dayjs(session.end) : undefined;
  return (
    <FormModal<Values> form={form} name="correction" title={title} okText={t('correct.ok')} pending={isPending} onClose={onClose} onFinish={submit}
      initialValues={{ at: initial, reason: '' }}
      intro={(
        <>
          {action === 'voidSession' && <Typography.Paragraph type="secondary">{t('correct.voidHelp')}</Typography.Paragraph>}
          {mutation.error && <Alert type="error" showIcon role="alert" className="mgr-notice" message={messageOf(mutation.error, t)} />}
        </>
      )}
    >
      {action !== 'voidSession' && (
        <Form.Item name="at" label={t(action === 'addOut' ? 'correct.addAt' : 'correct.at')} rules={[{ required: true, message: t('correct.atRule') }]}>
          <DatePicker showTime={{ format: 'HH:mm' }} format="YYYY-MM-DD HH:mm" style={{ width: '100%' }} disabledDate={(d) => d.isAfter(dayjs(), 'day')} />
        </Form.Item>
      )}
      <Form.Item name="reason" label={t('correct.reason')} extra={t('correct.reasonHelp')} rules={[{ required: true, whitespace: true, message: t('correct.reasonRule') }, { max: 500 }]}>
        <Input.TextArea rows={3} maxLength={500} showCount />
      </Form.Item>
    </FormModal>
  );
}
