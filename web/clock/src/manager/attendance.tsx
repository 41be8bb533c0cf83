// The Exceptions inbox's other lists: the automatic clock-outs of forgotten sessions to review
// (each marked reviewed, or its time corrected through the correction dialog of Timesheets), the
// sessions still open past the work rules' long-session limit (each given its missing clock-out
// through the same dialog), and the compliance report of a period (days that broke a working-time rule: short rest, over the
// daily maximum, a missing break) with its export as a file (a task on the server, downloaded once
// ready). Each list is paged by the server, its choices and page kept in the tab (the list kit).
import { Alert, Button, DatePicker, Segmented, Space, Tag, Typography } from 'antd';
import dayjs from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ListView, type Column } from '../../../shared/antd/ListView.tsx';
import { useChange } from '../../../shared/antd/useChange.ts';
import { messageOf } from '../../../shared/feedback.ts';
import { listQuery, type PageOf } from '../../../shared/list/params.ts';
import { useList } from '../../../shared/list/useList.ts';
import { api, call, limitQuery, type ListQuery } from '../api/client.ts';
import { hm } from '../worker/hours.ts';
import { useExportTask } from './common.tsx';
import { CorrectionForm, punchTime } from './corrections.tsx';

const PAGE_SIZE = 20;
const DATE = 'YYYY-MM-DD';

type AutoQuery = ListQuery<'/api/managers/auto-clock-outs'>;
// Those to review unless `reviewed` is chosen.
const autoQuery = listQuery(['auto-clock-outs'], ({ reviewed, ...query }: AutoQuery) =>
  call(api.GET('/api/managers/auto-clock-outs', { params: { query: limitQuery<'/api/managers/auto-clock-outs'>({ ...query, reviewed: reviewed ?? false }) } }))
    .then((r) => ({ list: r.autoClockOuts, total: r.totalCount })));
type Auto = PageOf<typeof autoQuery>['list'][number];

/** Automatic clock-outs: those to review (default) or reviewed; Review, or Correct the time. */
export function AutoClockOuts() {
  const { t } = useTranslation('corrections');
  const list = useList(autoQuery, PAGE_SIZE, { local: {} });
  const reviewed = list.filters.reviewed === 'true';
  const { change } = useChange(['auto-clock-outs'], ['corrections'], ['timesheet'], ['timesheets']);
  const [correcting, setCorrecting] = useState<Auto | null>(null);
  const review = (a: Auto) => void change(() => call(api.POST('/api/managers/auto-clock-outs/{id}/review', { params: { path: { id: a.id } } })), t('auto.reviewedToast'));
  const columns: Column<Auto, AutoQuery>[] = [
    { title: t('col.worker'), key: 'worker', render: (_: unknown, a: Auto) => <span><span className="cx-name">{a.fullName}</span> <Typography.Text type="secondary">{a.username}</Typography.Text></span> },
    {
      title: t('auto.session'), key: 'session',
      render: (_: unknown, a: Auto) => (
        <span className="cx-what">
          {a.sessionStart ? t('auto.closed', { start: punchTime(a.sessionStart), at: punchTime(a.at) }) : t('auto.closedAt', { at: punchTime(a.at) })}
          {a.siteName && <Typography.Text type="secondary"> · {a.siteName}</Typography.Text>}
          {a.voided && <Tag className="ts-session-flag">{t('auto.voided')}</Tag>}
        </span>
      ),
    },
    { title: t('auto.basis'), key: 'basis', render: (_: unknown, a: Auto) => t(`auto.basis_${a.basis}`) },
    {
      title: '', key: 'actions',
      render: (_: unknown, a: Auto) => (
        <Space size={0} wrap className="cx-actions">
          {a.reviewedAt
            ? <Typography.Text type="secondary">{t('auto.reviewedBy', { name: a.reviewedBy?.username ?? '', time: punchTime(a.reviewedAt) })}</Typography.Text>
            : <Button type="link" aria-label={t('auto.reviewNamed', { name: a.fullName, at: punchTime(a.at) })} onClick={() => review(a)}>{t('auto.review')}</Button>}
          {!a.voided && (
            <Button type="link" aria-label={t('auto.correctNamed', { name: a.fullName, at: punchTime(a.at) })} onClick={() => setCorrecting(a)}>{t('auto.correct')}</Button>
          )}
        </Space>
      ),
    },
  ];
  return (
    <section className="cx-auto">
      <Typography.Paragraph type="secondary">{t('auto.intro')}</Typography.Paragraph>
      <Segmented aria-label={t('auto.show')} value={reviewed ? 'yes' : 'no'} className="mgr-filters"
        options={[{ value: 'no', label: t('auto.toReview') }, { value: 'yes', label: t('auto.reviewed') }]}
        onChange={(v) => list.setFilters({ reviewed: v === 'yes' ? 'true' : undefined })} />
      <ListView list={list} columns={columns} cards label={t('auto.title')} empty={t('auto.empty')} emptyFiltered={t('auto.emptyReviewed')} />
      {correcting && (
        <CorrectionForm userId={correcting.userId} name={correcting.fullName} action="moveOut"
          session={{ start: correcting.sessionStart ?? correcting.at, end: correcting.at, startEventId: null, endEventId: correcting.id }}
          onClose={() => setCorrecting(null)} />
      )}
    </section>
  );
}

// Under ['corrections'], which the correction dialog refreshes (with the inbox's counts) once saved.
const openQuery = listQuery(['corrections', 'open-sessions'], (query: ListQuery<'/api/managers/open-sessions'>) =>
  call(api.GET('/api/managers/open-sessions', { params: { query: limitQuery<'/api/managers/open-sessions'>(query) } }))
    .then((r) => ({ list: r.openSessions, total: r.totalCount, longSessionMinutes: r.longSessionMinutes })));
type Open = PageOf<typeof openQuery>['list'][number];

/** The sessions open too long, oldest first; Add the missing clock-out. */
export function OpenSessions() {
  const { t } = useTranslation('corrections');
  const list = useList(openQuery, PAGE_SIZE, { local: {} });
  const [adding, setAdding] = useState<Open | null>(null);
  const seen = (o: Open) => {
    if (!o.lastPositionAt) return <Typography.Text type="secondary">{t('open.never')}</Typography.Text>;
    const where = o.withinGeofence === null ? 'unknown' : o.withinGeofence ? 'inside' : 'outside';
    return t(`open.seen_${where}`, { time: punchTime(o.lastPositionAt) });
  };
  const columns: Column<Open, ListQuery<'/api/managers/open-sessions'>>[] = [
    { title: t('col.worker'), key: 'worker', render: (_: unknown, o: Open) => <span><span className="cx-name">{o.fullName}</span> <Typography.Text type="secondary">{o.username}</Typography.Text></span> },
    {
      title: t('open.session'), key: 'session',
      render: (_: unknown, o: Open) => (
        <span className="cx-what">
          {t('open.since', { start: punchTime(o.since), duration: hm(o.minutesOpen * 60) })}
          {o.site && <Typography.Text type="secondary"> · {o.site.name}</Typography.Text>}
        </span>
      ),
    },
    { title: t('open.seen'), key: 'seen', render: (_: unknown, o: Open) => seen(o) },
    {
      title: '', key: 'actions',
      render: (_: unknown, o: Open) => (
        <Space size={0} wrap className="cx-actions">
          <Button type="link" aria-label={t('open.addOutNamed', { name: o.fullName, start: punchTime(o.since) })} onClick={() => setAdding(o)}>{t('correct.addOut')}</Button>
        </Space>
      ),
    },
  ];
  return (
    <section className="cx-open">
      <Typography.Paragraph type="secondary">{t('open.intro', { limit: hm((list.query.data?.longSessionMinutes ?? 0) * 60) })}</Typography.Paragraph>
      <ListView list={list} columns={columns} cards label={t('open.title')} empty={t('open.empty')} table={{ rowKey: 'userId' }} />
      {adding && (
        <CorrectionForm userId={adding.userId} name={adding.fullName} action="addOut"
          session={{ start: adding.since, end: null, startEventId: adding.clockInEventId, endEventId: null }}
          onClose={() => setAdding(null)} />
      )}
    </section>
  );
}

type ComplianceQuery = ListQuery<'/api/managers/compliance'>;
const complianceQuery = listQuery(['compliance'], (query: ComplianceQuery) =>
  call(api.GET('/api/managers/compliance', { params: { query: limitQuery<'/api/managers/compliance'>(query) } }))
    .then((r) => ({ list: r.violations, total: r.totalCount })));
type Violation = PageOf<typeof complianceQuery>['list'][number];

/** The compliance report of a period (last month by default) and its export. */
export function Compliance() {
  const { t } = useTranslation('corrections');
  const [first] = useState(() => ({ from: dayjs().subtract(1, 'month').startOf('month').format(DATE), to: dayjs().format(DATE) }));
  const list = useList(complianceQuery, PAGE_SIZE, { local: first });
  const { from = first.from, to = first.to } = list.filters;
  const detail = (v: Violation) => v.rule === 'short_rest'
    ? t('compliance.short_rest_detail', { rest: v.restBeforeSeconds === null ? '—' : hm(v.restBeforeSeconds) })
    : v.rule === 'over_daily_max'
      ? t('compliance.over_daily_max_detail', { paid: hm(v.paidSeconds) })
      : t('compliance.missing_break_detail', { taken: hm(v.breakSeconds), required: hm(v.requiredBreakSeconds) });
  const columns: Column<Violation, ComplianceQuery>[] = [
    { title: t('col.worker'), key: 'worker', render: (_: unknown, v: Violation) => <span><span className="cx-name">{v.fullName}</span> <Typography.Text type="secondary">{v.username}</Typography.Text></span> },
    { title: t('compliance.date'), dataIndex: 'date', key: 'date' },
    { title: t('compliance.rule'), key: 'rule', render: (_: unknown, v: Violation) => <Tag color="orange">{t(`compliance.${v.rule}`)}</Tag> },
    { title: t('compliance.detail'), key: 'detail', render: (_: unknown, v: Violation) => detail(v) },
  ];
  return (
    <section className="cx-compliance">
      <Typography.Paragraph type="secondary">{t('compliance.intro')}</Typography.Paragraph>
      <Space wrap className="mgr-filters">
        <DatePicker.RangePicker aria-label={t('compliance.period')} value={[dayjs(from), dayjs(to)]} allowClear={false}
          onChange={(r) => r?.[0] && r[1] && list.setFilters({ from: r[0].format(DATE), to: r[1].format(DATE) })} />
        <ComplianceExport from={from} to={to} />
      </Space>
      {/* The period is always chosen: an empty report says so whatever it is. */}
      <ListView list={list} columns={columns} cards label={t('compliance.title')} empty={t('compliance.empty')} emptyFiltered={t('compliance.empty')}
        table={{ rowKey: (v) => `${v.userId}:${v.date}:${v.rule}` }} />
    </section>
  );
}

function ComplianceExport({ from, to }: { from: string; to: string }) {
  const { t } = useTranslation('corrections');
  const { begin, working, failure } = useExportTask((format: 'csv' | 'xlsx') => call(api.POST('/api/managers/compliance/export', { body: { from, to, format } })),
    (format) => `compliance-${from}-${to}.${format}`);
  return (
    <Space wrap>
      <Button onClick={() => begin('csv')} disabled={working}>{t('compliance.csv')}</Button>
      <Button onClick={() => begin('xlsx')} disabled={working}>{t('compliance.xlsx')}</Button>
      <span aria-live="polite">
        {working && <Typography.Text type="secondary">{t('compliance.working')}</Typography.Text>}
        {failure && <Alert type="error" showIcon role="alert" message={t('compliance.failed', { reason: messageOf(failure, t) })} />}
      </span>
    </Space>
  );
}
