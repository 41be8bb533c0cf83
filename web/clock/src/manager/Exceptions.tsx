// Exceptions: the correction requests of workers (waiting for a decision by default; the status,
// kind and worker filters and the page in the URL, through the list kit), each approved with one
// click or rejected with an optional note. A request's evidence opens beside the list: the punches
// before and after, the reason, the trail on a small map against the site's fence (positions
// inside and outside the fence in their colours, the point the trail suggests ringed), the
// suggested time in words with what it rests on, the punches and refused scans of the window, the
// device, and the history of the punch. Refusals are the server's, in words. Beside the requests,
// the automatic clock-outs to review, the sessions open too long and the compliance report of a
// period (./attendance.tsx), the tab chosen kept in the URL (`?tab=auto`, `?tab=open`,
// `?tab=compliance`).
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Drawer, Form, Input, Space, Tabs, Tag, Typography } from 'antd';
import dayjs from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNarrow } from '../../../shared/antd/DataList.tsx';
import { QueryError } from '../../../shared/antd/feedback.tsx';
import { FormModal } from '../../../shared/antd/FormModal.tsx';
import { ListView, type Column } from '../../../shared/antd/ListView.tsx';
import { useChange } from '../../../shared/antd/useChange.ts';
import { useSave } from '../../../shared/antd/useSave.ts';
import { listQuery } from '../../../shared/list/params.ts';
import { useList, useUrlTab } from '../../../shared/list/useList.ts';
import { api, call, limitQuery, type ListQuery } from '../api/client.ts';
import { AutoClockOuts, Compliance, OpenSessions } from './attendance.tsx';
import { useConsoleSettings } from './common.tsx';
import { BeforeAfter, CorrectionSteps, PunchHistory, punchTime, StatusTag, whatOf, type Correction } from './corrections.tsx';
import { FenceMap, type Fence, type Marker, type TrailPoint } from './FenceMap.tsx';

type Query = ListQuery<'/api/managers/corrections'>;
const STATUSES = ['pending', 'approved', 'rejected', 'cancelled', 'all'] as const;
const KINDS = ['add', 'move', 'void'] as const;
/** What a change of a request makes stale: the inbox, the timesheets it corrects, the punch histories. */
const TOUCHED = [['corrections'], ['timesheet'], ['timesheets'], ['punch-history']] as const;

export const correctionsQuery = listQuery(['corrections'], (query: Query) =>
  call(api.GET('/api/managers/corrections', { params: { query: limitQuery<'/api/managers/corrections'>(query) } }))
    .then((r) => ({ list: r.corrections, total: r.totalCount })));

const detailOf = (id: number) => call(api.GET('/api/managers/corrections/{id}', { params: { path: { id } } }));
type Detail = Awaited<ReturnType<typeof detailOf>>;

/** Approve with one click, or reject (with a note), a pending request; `note` goes with either. */
function useDecide() {
  const { t } = useTranslation('corrections');
  const { change } = useChange(...TOUCHED);
  const approve = (c: Correction, note?: string) =>
    change(() => call(api.POST('/api/managers/corrections/{id}/approve', { params: { path: { id: c.id } }, body: note?.trim() ? { note: note.trim() } : {} })), t('action.approved'));
  const reject = (c: Correction, note?: string) =>
    change(() => call(api.POST('/api/managers/corrections/{id}/reject', { params: { path: { id: c.id } }, body: note?.trim() ? { note: note.trim() } : {} })), t('action.rejected'));
  return { approve, reject };
}

/**
 * Workers for the worker filter: those the search finds, and the one chosen (`chosenId`, from the
 * URL), named from the rows (`known`) or else read by id, so that the filter never shows a number.
 */
function useWorkerOptions(search: string, chosenId: number | undefined, known: string | undefined) {
  const found = useQuery({
    queryKey: ['workers', 'pick', search],
    queryFn: () => call(api.GET('/api/managers/workers', { params: { query: { page: 1, limit: 20, ...(search ? { search } : {}) } } })),
    placeholderData: keepPreviousData,
  });
  const options = (found.data?.workers ?? []).map((w) => ({ value: w.id, label: `${w.full_name} (${w.username})` }));
  const missing = chosenId !== undefined && !options.some((o) => o.value === chosenId);
  const chosen = useQuery({
    queryKey: ['worker', chosenId],
    queryFn: () => call(api.GET('/api/managers/workers/{id}', { params: { path: { id: chosenId! } } })),
    enabled: missing && known === undefined && !found.isFetching,
  });
  const name = known ?? (chosen.data && `${chosen.data.full_name} (${chosen.data.username})`);
  if (missing && name) options.unshift({ value: chosenId, label: name });
  return { options, loading: found.isFetching || chosen.isFetching };
}

const TABS = ['requests', 'auto', 'open', 'compliance'] as const;

/**
 * The inbox: the requests, the automatic clock-outs to review, the sessions open too long and the
 * compliance report, the tab chosen kept in the URL (`?tab=auto`). At phone width the tabs' labels
 * are short and close together, so that all four stay in view at 390 px (none behind the tab bar's
 * overflow menu).
 */
export default function Exceptions() {
  const { t } = useTranslation('corrections');
  const narrow = useNarrow();
  const [tab, setTab] = useUrlTab(TABS);
  const summary = useQuery({ queryKey: ['corrections', 'summary'], queryFn: () => call(api.GET('/api/managers/exceptions/summary')) });
  const autos = summary.data?.autoClockOutsToReview ?? 0;
  const open = summary.data?.longOpenSessions ?? 0;
  const label = (key: (typeof TABS)[number], count = 0) => {
    const words = t(`tab.${key}${narrow ? 'Short' : ''}`);
    return count > 0 ? t('tab.count', { words, count }) : words;
  };
  return (
    <Card>
      <Tabs activeKey={tab} onChange={(k) => setTab(k as (typeof TABS)[number])} destroyOnHidden tabBarGutter={narrow ? 12 : undefined} items={[
        { key: 'requests', label: label('requests'), children: <Requests /> },
        { key: 'auto', label: label('auto', autos), children: <AutoClockOuts /> },
        { key: 'open', label: label('open', open), children: <OpenSessions /> },
        { key: 'compliance', label: label('compliance'), children: <Compliance /> },
      ]} />
    </Card>
  );
}

/** The correction requests: the list (its filters and page in the URL), the evidence of one, a rejection. */
function Requests() {
  const { t } = useTranslation('corrections');
  const list = useList(correctionsQuery, 20);
  const { approve } = useDecide();
  const [opened, setOpened] = useState<number | null>(null);
  const [rejecting, setRejecting] = useState<Correction | null>(null);
  const [search, setSearch] = useState('');
  const rows = list.query.data?.list ?? [];
  const chosenId = Number(list.filters.userId) || undefined;
  const chosen = rows.find((r) => r.userId === chosenId);
  const workers = useWorkerOptions(search, chosenId, chosen && `${chosen.fullName} (${chosen.username})`);

  const columns: Column<Correction, Query>[] = [
    {
      title: t('col.worker'), key: 'worker', first: true,
      filter: { kind: 'select', key: 'userId', options: workers.options, loading: workers.loading, onSearch: setSearch, placeholder: t('filter.workerHint'), width: 220, order: 1 },
      render: (_: unknown, c) => (
        <Button type="link" className="cx-worker" onClick={() => list.setFilters({ ...list.filters, userId: c.userId })}>
          <span className="cx-name">{c.fullName}</span> <Typography.Text type="secondary">{c.username}</Typography.Text>
        </Button>
      ),
    },
    {
      title: t('col.what'), key: 'what',
      filter: { kind: 'select', key: 'kind', label: t('col.kind'), options: KINDS.map((k) => ({ value: k, label: t(`kind.${k}`) })), placeholder: t('filter.anyKind'), width: 160, order: 2 },
      render: (_: unknown, c) => <span className="cx-what">{whatOf(c, t)}</span>,
    },
    { title: t('col.reason'), dataIndex: 'reason', key: 'reason', render: (v: string) => <Typography.Paragraph className="cx-reason" ellipsis={{ rows: 3, expandable: true }}>{v}</Typography.Paragraph> },
    { title: t('col.requested'), dataIndex: 'requestedAt', key: 'requested', render: (v: string) => punchTime(v) },
    {
      title: t('col.status'), dataIndex: 'status', key: 'status',
      filter: {
        kind: 'select', key: 'status', options: STATUSES.map((s) => ({ value: s, label: t(`status.${s}`) })), placeholder: t('filter.pendingDefault'), width: 200, order: 0,
      },
      render: (_: unknown, c) => <Space direction="vertical" size={2}><StatusTag status={c.status} /><CorrectionSteps c={c} /></Space>,
    },
    {
      title: '', key: 'actions',
      render: (_: unknown, c) => {
        const what = whatOf(c, t);
        return (
          <Space size={0} wrap className="cx-actions">
            {c.status === 'pending' && (
              <>
                <Button type="link" aria-label={t('action.approveNamed', { what })} onClick={() => void approve(c)}>{t('action.approve')}</Button>
                <Button type="link" danger aria-label={t('action.rejectNamed', { what })} onClick={() => setRejecting(c)}>{t('action.reject')}</Button>
              </>
            )}
            <Button type="link" aria-label={t('action.evidenceNamed', { what })} onClick={() => setOpened(c.id)}>{t('action.evidence')}</Button>
          </Space>
        );
      },
    },
  ];

  return (
    <>
      <ListView list={list} columns={columns} name="exceptions" cards empty={t('empty')} />
      {opened !== null && <Evidence id={opened} onClose={() => setOpened(null)} onReject={setRejecting} />}
      {rejecting && <RejectForm correction={rejecting} onClose={() => setRejecting(null)} />}
    </>
  );
}

/** Reject one request, with an optional note to the worker. */
function RejectForm({ correction, onClose }: { correction: Correction; onClose: () => void }) {
  const { t } = useTranslation('corrections');
  const [form] = Form.useForm<{ note?: string }>();
  const { submit, isPending } = useSave(form, {
    save: (v: { note?: string }) => {
      const note = v.note?.trim();
      return call(api.POST('/api/managers/corrections/{id}/reject', { params: { path: { id: correction.id } }, body: note ? { note } : {} }));
    },
    success: t('action.rejected'),
    fallback: 'note',
    invalidates: TOUCHED,
    onSaved: onClose,
  });
  return (
    <FormModal form={form} name="reject-correction" title={t('reject.title', { name: correction.fullName })} okText={t('action.reject')} pending={isPending} onClose={onClose} onFinish={submit}
      intro={<Typography.Paragraph><strong>{whatOf(correction, t)}</strong><br /><Typography.Text type="secondary">{t('reject.help')}</Typography.Text></Typography.Paragraph>}>
      <Form.Item name="note" label={t('note')} rules={[{ max: 500 }]}>
        <Input.TextArea rows={3} maxLength={500} showCount />
      </Form.Item>
    </FormModal>
  );
}

const minutesBetween = (a: string, b: string) => Math.round(Math.abs(dayjs(a).diff(dayjs(b), 'second')) / 60);

/** A request with its evidence, and its decision (a note, Approve, Reject) while it waits for one. */
function Evidence({ id, onClose, onReject }: { id: number; onClose: () => void; onReject: (c: Correction) => void }) {
  const { t } = useTranslation('corrections');
  const narrow = useNarrow();
  const detail = useQuery({ queryKey: ['corrections', 'detail', id], queryFn: () => detailOf(id) });
  const [history, setHistory] = useState<number | null>(null);
  const [note, setNote] = useState('');
  const { approve } = useDecide();
  const d = detail.data;
  const punchId = d ? d.eventId ?? d.after[0]?.eventId ?? null : null;
  // While it waits, the decision stays in view below the evidence (the drawer's footer).
  const decide = d?.status === 'pending' && (
    <section className="cx-decide" aria-label={t('detail.decision')}>
      <Input.TextArea aria-label={t('note')} placeholder={t('note')} autoSize={{ minRows: 1, maxRows: 3 }} maxLength={500} value={note} onChange={(e) => setNote(e.target.value)} />
      <Space wrap>
        <Button type="primary" onClick={() => void approve(d, note).then((ok) => ok && onClose())}>{t('action.approve')}</Button>
        <Button danger onClick={() => onReject(d)}>{t('action.reject')}</Button>
      </Space>
    </section>
  );
  return (
    <Drawer open onClose={onClose} width={narrow ? '100%' : 760} destroyOnHidden className="cx-detail"
      title={d ? t('detail.title', { name: d.fullName }) : '…'} footer={decide || undefined}>
      {detail.isError ? <QueryError error={detail.error} onRetry={() => void detail.refetch()} /> : !d ? <p role="status">…</p> : (
        <>
          <Space wrap size={4}><StatusTag status={d.status} /><Tag>{t(`kind.${d.kind}`)}</Tag></Space>
          <Typography.Title level={4} className="cx-title">{whatOf(d, t)}</Typography.Title>
          <BeforeAfter c={d} />
          {punchId !== null && <Button type="link" className="cx-link" onClick={() => setHistory(punchId)}>{t('detail.history')}</Button>}
          <section className="cx-section">
            <Typography.Text strong>{t('detail.reason')}</Typography.Text>
            <blockquote className="cx-quote">{d.reason}</blockquote>
            <CorrectionSteps c={d} />
          </section>
          <EvidenceView d={d} onHistory={setHistory} />
        </>
      )}
      {history !== null && <PunchHistory eventId={history} onClose={() => setHistory(null)} />}
    </Drawer>
  );
}

function EvidenceView({ d, onHistory }: { d: Detail; onHistory: (eventId: number) => void }) {
  const { t } = useTranslation('corrections');
  const { t: tm } = useTranslation('manager');
  const settings = useConsoleSettings();
  const e = d.evidence;
  const requested = d.after[0]?.at ?? d.before[0]?.at;
  const stateOf = (inside: boolean | null) => (inside === null ? 'unknown' as const : inside ? 'inside' as const : 'outside' as const);
  const trail: TrailPoint[] = e.positions.map((p) => ({ latitude: p.latitude, longitude: p.longitude, label: dayjs(p.at).format('HH:mm'), state: stateOf(p.insideFence) }));
  const at = e.suggestedAt ? e.positions.find((p) => p.at === e.suggestedAt) : undefined;
  const markers: Marker[] = at && e.suggestedAt
    ? [{ latitude: at.latitude, longitude: at.longitude, accuracy: null, state: 'inside', stale: false, shape: 'ring', label: t('detail.suggestedMark', { time: dayjs(e.suggestedAt).format('HH:mm') }) }]
    : [];
  const versus = e.suggestedAt && requested
    ? (() => {
      const minutes = minutesBetween(requested, e.suggestedAt);
      const key = minutes === 0 ? 'versus_same' : dayjs(requested).isBefore(e.suggestedAt) ? 'versus_earlier' : 'versus_later';
      return t(`detail.${key}`, { time: punchTime(requested), minutes });
    })()
    : null;
  return (
    <section className="cx-section cx-evidence">
      <Typography.Title level={5}>{t('detail.evidence', { from: punchTime(e.from), to: punchTime(e.to) })}</Typography.Title>
      <div className="cx-suggestion" data-testid="suggestion">
        {e.suggestedAt && e.suggestedBasis ? (
          <Alert type="info" showIcon
            message={<strong>{t('detail.suggested', { time: punchTime(e.suggestedAt) })}</strong>}
            description={<>{t(`detail.basis.${e.suggestedBasis}`)}{versus && <><br />{versus}</>}</>} />
        ) : <Alert type="warning" showIcon message={t('detail.noSuggestion')} />}
      </div>
      <Typography.Paragraph type="secondary" className="cx-site">
        {!e.site ? t('detail.noSite') : e.site.fence ? t('detail.site', { site: e.site.name }) : t('detail.noFence', { site: e.site.name })}
      </Typography.Paragraph>
      {trail.length > 0 && (
        <>
          <FenceMap className="evidence-map" fence={(e.site?.fence ?? null) as Fence | null} trail={trail} markers={markers}
            tileUrl={settings.data?.mapTileUrl ?? null} attribution={settings.data?.mapAttribution} label={t('detail.map')} />
          <p className="mgr-legend">
            <span><span className="dot inside" />{t('detail.legendInside')}</span>{'  '}
            <span><span className="dot outside" />{t('detail.legendOutside')}</span>{'  '}
            {markers.length > 0 && <span><span className="dot ring" />{t('detail.legendSuggested')}</span>}
          </p>
        </>
      )}
      <details className="cx-positions">
        <summary>{t('detail.positions', { count: e.positions.length })}</summary>
        {e.positions.length === 0 ? <Typography.Text type="secondary">{t('detail.noPositions')}</Typography.Text> : (
          <ol className="cx-list">
            {e.positions.map((p, i) => (
              <li key={i} className={`cx-pos ${stateOf(p.insideFence)}${p.at === e.suggestedAt ? ' cx-suggested' : ''}`}>
                <span className="cx-time">{dayjs(p.at).format('HH:mm:ss')}</span> {t(`detail.${stateOf(p.insideFence)}`)}
                <Typography.Text type="secondary">
                  {p.accuracy !== null && <> · {t('detail.accuracy', { metres: Math.round(p.accuracy) })}</>} · {t(`detail.source.${p.source}`)}
                </Typography.Text>
              </li>
            ))}
          </ol>
        )}
      </details>
      <Typography.Title level={5}>{t('detail.punches')}</Typography.Title>
      {e.punches.length === 0 ? <Typography.Text type="secondary">{t('detail.noPunches')}</Typography.Text> : (
        <ul className="cx-list">
          {e.punches.map((p) => (
            <li key={p.id} className={p.voided ? 'cx-voided' : undefined}>
              <span className={p.voided ? 'cx-old' : undefined}><strong>{t(`type.${p.eventType}`)}</strong> {punchTime(p.at)}</span>
              <Typography.Text type="secondary">
                {p.siteName && <> · {p.siteName}</>} · {p.qrCodeName ? t('detail.code', { name: p.qrCodeName }) : t(`detail.origin.${p.origin}`)}
              </Typography.Text>
              {p.voided && <Tag className="cx-tag">{t('detail.voided')}</Tag>}
              <Button type="link" size="small" onClick={() => onHistory(p.id)}>{t('detail.history')}</Button>
            </li>
          ))}
        </ul>
      )}
      <Typography.Title level={5}>{t('detail.refused')}</Typography.Title>
      {e.refusedScans.length === 0 ? <Typography.Text type="secondary">{t('detail.noRefused')}</Typography.Text> : (
        <ul className="cx-list">
          {e.refusedScans.map((r, i) => (
            <li key={i}><span className="cx-time">{punchTime(r.at)}</span> {tm(`alerts.types.${r.alertType}`, { defaultValue: r.alertType })}</li>
          ))}
        </ul>
      )}
      <Typography.Title level={5}>{t('detail.device')}</Typography.Title>
      {e.device ? (
        <p className="cx-device">
          <Typography.Text code>{e.device.deviceUuid}</Typography.Text>
          <br />
          <Typography.Text type="secondary">{t('detail.deviceSeen', { registered: punchTime(e.device.registeredAt), seen: punchTime(e.device.lastSeen) })}</Typography.Text>
        </p>
      ) : <Typography.Text type="secondary">{t('detail.noDevice')}</Typography.Text>}
    </section>
  );
}
