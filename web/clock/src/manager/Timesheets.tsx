// Timesheets: the paid hours of every worker for a period (this week, last week, this month, last
// month or custom dates), filtered by worker, tag and site and sorted by name or hours, with the
// flags to check in words. A worker's row opens their days: a bar per day with the sessions and the
// breaks between them, and the day's figures. The payroll export (CSV or XLSX, one row per worker,
// day or session) runs as a task on the server and downloads when it is ready. Everything the
// screen shows is in the URL (period, filters, sort, page, the worker opened). Each session of a
// worker's days can be corrected at once (its clock-in or clock-out moved, the missing clock-out
// added, the session voided), with a reason, and its punches' history shown (./corrections.tsx).
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { DownOutlined } from '@ant-design/icons';
import { Alert, Button, Card, DatePicker, Drawer, Dropdown, Segmented, Select, Space, Tag, Tooltip, Typography } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, call, type ListQuery } from '../api/client.ts';
import type { paths } from '../api/schema.gen.ts';
import { addStrings } from '../i18n/index.ts';
import { dateLabel, dayLabel } from '../worker/format.ts';
import { hm, weekOf } from '../worker/hours.ts';
import { useNarrow } from '../../../shared/antd/DataList.tsx';
import { QueryError } from '../../../shared/antd/feedback.tsx';
import { ListView, type Column } from '../../../shared/antd/ListView.tsx';
import { messageOf } from '../../../shared/feedback.ts';
import { useListParams } from '../../../shared/list/useList.ts';
import { useExportTask, useSites } from './common.tsx';
import { CorrectionForm, PunchHistory, type SessionAction } from './corrections.tsx';
import { ApproveButton, PeriodButtons } from './periods.tsx';
import { hoursStrings } from './hoursStrings.ts';

addStrings('hours', hoursStrings);

type Query = NonNullable<paths['/api/managers/timesheets']['get']['parameters']['query']>;
type Row = Awaited<ReturnType<typeof listTimesheets>>['items'][number];
type Sheet = Awaited<ReturnType<typeof workerSheet>>;
type Day = Sheet['days'][number];
type Flag = Day['flags'][number];
type Session = Day['sessions'][number];
type ExportBody = paths['/api/managers/timesheets/export']['post']['requestBody']['content']['application/json'];
/** What the screen keeps in the URL: the list's query, the period chosen, the worker opened and the export's choices. */
type View = ListQuery<'/api/managers/timesheets'> & { period?: Period; worker?: number; rows?: ExportBody['detail']; days?: ExportBody['periods'] };

const FLAGS: readonly Flag[] = ['open', 'late', 'forced', 'break_deducted', 'long', 'edited', 'auto', 'short_rest', 'over_daily_max', 'missing_break'];
const FLAG_COLOR: Record<Flag, string> = { open: 'blue', late: 'gold', forced: 'volcano', break_deducted: 'purple', long: 'red', edited: 'cyan', auto: 'magenta', short_rest: 'orange', over_daily_max: 'red', missing_break: 'purple' };
const PERIODS = ['thisWeek', 'lastWeek', 'thisMonth', 'lastMonth', 'custom'] as const;
type Period = (typeof PERIODS)[number];
const PAGE_SIZE = 20;
/** What the filter form's Clear leaves: the period, the order and the export's choices. */
const KEPT = ['period', 'from', 'to', 'sort', 'rows', 'days'] as const;
const DATE = 'YYYY-MM-DD';

const listTimesheets = (query: Query) => call(api.GET('/api/managers/timesheets', { params: { query } }));
const workerSheet = (userId: number, from: string, to: string) =>
  call(api.GET('/api/managers/timesheets/{userId}', { params: { path: { userId }, query: { from, to } } }));

/** The dates of a preset period around `today`, weeks starting on ISO weekday `weekStartsOn`. */
export function periodDates(period: Exclude<Period, 'custom'>, today: Dayjs, weekStartsOn: number): [string, string] {
  const weekStart = dayjs(weekOf(today.format(DATE), weekStartsOn));
  switch (period) {
    case 'thisWeek': return [weekStart.format(DATE), weekStart.add(6, 'day').format(DATE)];
    case 'lastWeek': return [weekStart.subtract(7, 'day').format(DATE), weekStart.subtract(1, 'day').format(DATE)];
    case 'thisMonth': return [today.startOf('month').format(DATE), today.endOf('month').format(DATE)];
    case 'lastMonth': {
      const last = today.subtract(1, 'month');
      return [last.startOf('month').format(DATE), last.endOf('month').format(DATE)];
    }
  }
}

function FlagTags({ flags }: { flags: Partial<Record<Flag, number>> | readonly Flag[] }) {
  const { t } = useTranslation('hours');
  const counts: [Flag, number][] = Array.isArray(flags)
    ? (flags as readonly Flag[]).map((f) => [f, 0])
    : FLAGS.map((f): [Flag, number] => [f, (flags as Partial<Record<Flag, number>>)[f] ?? 0]).filter(([, n]) => n > 0);
  if (counts.length === 0) return <Typography.Text type="secondary">{t('none')}</Typography.Text>;
  return (
    <Space size={[4, 4]} wrap>
      {counts.map(([f, n]) => (
        <Tooltip key={f} title={t(`flag.${f}_help`)}>
          <Tag color={FLAG_COLOR[f]} tabIndex={0}>{n > 0 ? `${t(`flag.${f}`)} ${n}` : t(`flag.${f}`)}</Tag>
        </Tooltip>
      ))}
    </Space>
  );
}

/** A day's sessions and the breaks between them on a 24-hour bar (local time of the browser). */
function DayBar({ day }: { day: Day }) {
  const { t } = useTranslation('hours');
  const start = dayjs(day.date).startOf('day');
  const pct = (iso: string | null) => Math.min(100, Math.max(0, (dayjs(iso ?? undefined).diff(start, 'minute') / 1440) * 100));
  const text = day.sessions.map((s) => `${dayjs(s.start).format('HH:mm')}–${s.end ? dayjs(s.end).format('HH:mm') : t('running')}`).join(', ');
  return (
    <div className="ts-bar" role="img" aria-label={t('bar.label', { date: dayLabel(day.date), text: text || t('noSessions') })}>
      {day.sessions.map((s, i) => {
        const left = pct(s.start);
        const right = s.end ? pct(s.end) : pct(null);
        return <span key={i} className={`ts-session${s.end ? '' : ' ts-open'}`} style={{ left: `${left}%`, width: `${Math.max(0.5, right - left)}%` }} />;
      })}
    </div>
  );
}

/** A session's corrections and its punches' histories, in a menu (one button a session, phone-sized). */
function SessionActions({ s, onCorrect, onHistory }: { s: Session; onCorrect: (action: SessionAction) => void; onHistory: (eventId: number) => void }) {
  const { t } = useTranslation('corrections');
  if (s.startEventId === null) return null;
  const items = [
    { key: 'moveIn', label: t('correct.moveIn') },
    s.endEventId !== null ? { key: 'moveOut', label: t('correct.moveOut') } : { key: 'addOut', label: t('correct.addOut') },
    { key: 'voidSession', label: t('correct.voidSession'), danger: true },
    { type: 'divider' as const },
    { key: `history:${s.startEventId}`, label: t('correct.historyIn') },
    ...(s.endEventId !== null ? [{ key: `history:${s.endEventId}`, label: t('correct.historyOut') }] : []),
  ];
  const time = `${dayjs(s.start).format('HH:mm')}–${s.end ? dayjs(s.end).format('HH:mm') : '…'}`;
  return (
    <Dropdown trigger={['click']} menu={{
      items,
      onClick: ({ key }) => (key.startsWith('history:') ? onHistory(Number(key.slice('history:'.length))) : onCorrect(key as SessionAction)),
    }}>
      <Button size="small" type="link" className="ts-correct" aria-label={t('correct.buttonNamed', { time })}>{t('correct.button')} <DownOutlined /></Button>
    </Dropdown>
  );
}

function WorkerDays({ userId, from, to, onClose }: { userId: number; from: string; to: string; onClose: () => void }) {
  const { t } = useTranslation('hours');
  const narrow = useNarrow();
  const sheet = useQuery({ queryKey: ['timesheet', userId, from, to], queryFn: () => workerSheet(userId, from, to) });
  const [correcting, setCorrecting] = useState<{ s: Session; action: SessionAction } | null>(null);
  const [history, setHistory] = useState<number | null>(null);
  const weeks = new Map<string, Day[]>();
  for (const d of sheet.data?.days ?? []) {
    const w = weekOf(d.date, sheet.data!.weekStartsOn);
    weeks.set(w, [...(weeks.get(w) ?? []), d]);
  }
  return (
    <Drawer open onClose={onClose} width={narrow ? '100%' : 720} destroyOnHidden
      title={sheet.data ? t('detailTitle', { name: sheet.data.fullName, from: dateLabel(from), to: dateLabel(to) }) : '…'}>
      {sheet.isError ? <QueryError error={sheet.error} onRetry={() => void sheet.refetch()} /> : sheet.data && (
        <>
          <Totals totals={sheet.data.totals} label={t('total')} />
          <ApproveButton userId={userId} from={from} to={to} approved={sheet.data.days.every((d) => d.approved)} />
          {[...weeks].map(([week, days]) => (
            <section key={week} className="ts-week">
              <Typography.Title level={4}>{t('week', { date: dateLabel(week) })}</Typography.Title>
              <ul className="ts-days">
                {days.map((d) => (
                  <li key={d.date} className={d.sessions.length ? '' : 'ts-empty'}>
                    <div className="ts-day-head">
                      <strong>{dayLabel(d.date)}</strong>
                      <DayMarks day={d} />
                      <span className="ts-figure">{d.sessions.length ? `${t('col.paid')} ${hm(d.paidSeconds)}` : t('noSessions')}</span>
                    </div>
                    {d.sessions.length > 0 && (
                      <>
                        <DayBar day={d} />
                        <div className="ts-day-figures">
                          <span>{t('col.worked')} {hm(d.workedSeconds)}</span>
                          <span>{t('col.break')} {hm(d.breakSeconds)}</span>
                          <span>{t('col.regular')} {hm(d.regularSeconds)}</span>
                          <span>{t('col.overtime')} {hm(d.overtimeSeconds)}</span>
                        </div>
                        <ul className="ts-sessions">
                          {d.sessions.map((s, i) => (
                            <li key={i}>
                              {dayjs(s.start).format('HH:mm')}–{s.end ? dayjs(s.end).format('HH:mm') : t('running')} · {hm(s.workedSeconds)}
                              {s.siteName && <Typography.Text type="secondary"> · {s.siteName}</Typography.Text>}
                              {s.flags.includes('edited') && <Tag color={FLAG_COLOR.edited} className="ts-session-flag">{t('flag.edited')}</Tag>}
                              <SessionActions s={s} onCorrect={(action) => setCorrecting({ s, action })} onHistory={setHistory} />
                            </li>
                          ))}
                        </ul>
                        {d.flags.length > 0 && (
                          <div className="ts-flags">
                            <FlagTags flags={d.flags} />
                            <ul>{d.flags.map((f) => <li key={f}>{t(`flag.${f}_help`)}</li>)}</ul>
                          </div>
                        )}
                      </>
                    )}
                  </li>
                ))}
              </ul>
            </section>
          ))}
        </>
      )}
      {correcting && sheet.data && (
        <CorrectionForm userId={userId} name={sheet.data.fullName} session={correcting.s} action={correcting.action} onClose={() => setCorrecting(null)} />
      )}
      {history !== null && <PunchHistory eventId={history} onClose={() => setHistory(null)} />}
    </Drawer>
  );
}

/** A day's approved and locked marks. */
function DayMarks({ day }: { day: Day }) {
  const { t } = useTranslation('hours');
  return (
    <>
      {day.locked && <Tooltip title={t('mark.locked_help')}><Tag color="geekblue" tabIndex={0} className="ts-mark">{t('mark.locked')}</Tag></Tooltip>}
      {day.approved && <Tooltip title={t('mark.approved_help')}><Tag color="green" tabIndex={0} className="ts-mark">{t('mark.approved')}</Tag></Tooltip>}
    </>
  );
}

function Totals({ totals, label }: { totals: Sheet['totals']; label: string }) {
  const { t } = useTranslation('hours');
  return (
    <dl className="ts-totals" aria-label={label}>
      {(['paid', 'regular', 'overtime', 'break', 'worked'] as const).map((k) => (
        <div key={k}><dt>{t(`col.${k}`)}</dt><dd>{hm(totals[`${k}Seconds`])}</dd></div>
      ))}
    </dl>
  );
}

/** Queues the payroll export, follows the task, and downloads the file once it is ready. */
function ExportButtons({ body }: { body: Omit<ExportBody, 'format' | 'detail' | 'periods'> }) {
  const { t } = useTranslation('hours');
  const { t: tm } = useTranslation('manager');
  const { filters, changeFilters } = useListParams<View>(PAGE_SIZE);
  const detail = (['workers', 'days', 'sessions'] as const).find((d) => d === filters.rows) ?? 'workers';
  const periods = (['all', 'approved', 'locked'] as const).find((d) => d === filters.days) ?? 'all';
  const { begin, ready, again, working, failure, downloadFailed } = useExportTask(
    (format: ExportBody['format']) => call(api.POST('/api/managers/timesheets/export', { body: { ...body, format, detail, periods } })),
    (format) => `payroll-${body.from}-${body.to}.${format}`,
  );
  return (
    <div className="ts-export">
      <Space wrap>
        <Typography.Text strong>{t('export.title')}</Typography.Text>
        <Select aria-label={t('export.detail')} value={detail} style={{ minWidth: 170 }} onChange={(v) => changeFilters({ rows: v === 'workers' ? undefined : v })}
          options={(['workers', 'days', 'sessions'] as const).map((d) => ({ value: d, label: t(`export.${d}`) }))} />
        <Select aria-label={t('export.periods')} value={periods} style={{ minWidth: 170 }} onChange={(v) => changeFilters({ days: v === 'all' ? undefined : v })}
          options={(['all', 'approved', 'locked'] as const).map((d) => ({ value: d, label: t(`export.${d}`) }))} />
        <Button onClick={() => begin('csv')} disabled={working}>{t('export.csv')}</Button>
        <Button type="primary" onClick={() => begin('xlsx')} disabled={working}>{t('export.xlsx')}</Button>
        {ready !== undefined && <Button type="link" onClick={() => again(ready)}>{t('export.again')}</Button>}
      </Space>
      <div aria-live="polite">
        {working && <Alert type="info" showIcon message={t('export.working')} />}
        {ready !== undefined && !downloadFailed && <Alert type="success" showIcon message={t('export.ready')} />}
        {failure && <Alert type="error" showIcon role="alert" message={t('export.failed', { reason: messageOf(failure, tm) })} />}
      </div>
    </div>
  );
}

export default function Timesheets() {
  const { t } = useTranslation('hours');
  const narrow = useNarrow();
  const list = useListParams<View>(PAGE_SIZE);
  const filters = list.filters;
  const rules = useQuery({ queryKey: ['work-rules'], queryFn: () => call(api.GET('/api/managers/work-rules')), staleTime: 60_000 });
  const tags = useQuery({ queryKey: ['tags'], queryFn: () => call(api.GET('/api/managers/tags')) });
  const sites = useSites();
  const period = (PERIODS as readonly string[]).includes(filters.period ?? '') ? filters.period as Period : 'thisWeek';
  const [from, to] = period === 'custom' && filters.from && filters.to
    ? [filters.from, filters.to]
    : periodDates(period === 'custom' ? 'thisWeek' : period, dayjs(), rules.data?.weekStartsOn ?? 1);
  const sort = filters.sort === 'hours' ? 'hours' : 'name';
  const common = {
    from, to,
    ...(filters.search ? { search: filters.search } : {}),
    ...(filters.tag ? { tag: Number(filters.tag) } : {}),
    ...(filters.siteId ? { siteId: Number(filters.siteId) } : {}),
  };
  // The list's own request rather than the kit's (useList): a preset period's dates depend on the
  // work rules' first day of the week, which the URL does not hold.
  const query: Query = { ...common, sort, page: list.params.page, limit: list.params.pageSize };
  const sheets = useQuery({ queryKey: ['timesheets', query], queryFn: () => listTimesheets(query), placeholderData: keepPreviousData, enabled: rules.isFetched });
  const opened = filters.worker ? Number(filters.worker) : null;

  const columns: Column<Row, View>[] = [
    {
      title: t('col.worker'), dataIndex: 'fullName', key: 'worker',
      filter: { kind: 'text', key: 'search', label: t('filter.search'), placeholder: t('filter.searchHint'), width: narrow ? undefined : 220 },
      render: (_: unknown, r: Row) => (
        <Button type="link" className="ts-worker" onClick={() => list.changeFilters({ worker: r.userId })}>
          <span>{r.fullName || r.username}</span> <Typography.Text type="secondary">{r.username}</Typography.Text>
        </Button>
      ),
    },
    { title: t('filter.tag'), hideInTable: true, filter: { kind: 'select', key: 'tag', width: 160, options: (tags.data ?? []).map((x) => ({ value: x.id, label: x.name })) } },
    { title: t('filter.site'), hideInTable: true, filter: { kind: 'select', key: 'siteId', width: 160, options: (sites.data ?? []).map((x) => ({ value: x.id, label: x.name })) } },
    { title: t('col.paid'), dataIndex: 'paidSeconds', key: 'paid', align: 'right' as const, render: (s: number) => <strong>{hm(s)}</strong> },
    { title: t('col.regular'), dataIndex: 'regularSeconds', key: 'regular', align: 'right' as const, render: hm },
    { title: t('col.overtime'), dataIndex: 'overtimeSeconds', key: 'overtime', align: 'right' as const, render: hm },
    { title: t('col.break'), dataIndex: 'breakSeconds', key: 'break', align: 'right' as const, render: hm },
    { title: t('col.days'), dataIndex: 'days', key: 'days', align: 'right' as const },
    { title: t('col.flags'), dataIndex: 'flags', key: 'flags', render: (f: Row['flags']) => <FlagTags flags={f} /> },
  ];

  const periodOptions = PERIODS.map((p) => ({ value: p, label: t(`period.${p}`) }));
  const choosePeriod = (p: Period) =>
    list.setFilters({ ...filters, ...(p === 'custom' ? { period: p, from, to } : { period: p === 'thisWeek' ? undefined : p, from: undefined, to: undefined }) });

  return (
    <Card>
      <Space wrap className="mgr-filters ts-period">
        {/* Five periods do not fit a phone's width side by side ("Custom" was cut off): a list there. */}
        {narrow
          ? <Select<Period> aria-label={t('period.label')} value={period} options={periodOptions} onChange={choosePeriod} style={{ width: '100%' }} />
          : <Segmented<Period> aria-label={t('period.label')} value={period} options={periodOptions} onChange={choosePeriod} />}
        {period === 'custom' && (
          <DatePicker.RangePicker aria-label={t('period.custom')} value={[dayjs(from), dayjs(to)]} allowClear={false}
            onChange={(r) => r?.[0] && r[1] && list.setFilters({ ...filters, from: r[0].format(DATE), to: r[1].format(DATE) })} />
        )}
        <Typography.Text type="secondary">{dateLabel(from)} – {dateLabel(to)}</Typography.Text>
      </Space>
      <ListView list={{ ...list, query: sheets }} rows={sheets.data?.items ?? []} total={sheets.data?.total ?? 0} columns={columns} name="timesheets"
        instant keep={KEPT} cards label={t('manager:nav.timesheets')} empty={t('empty')} emptyFiltered={t('empty')}
        table={{ rowKey: 'userId', className: 'ts-table' }}
        toolbar={(
          <>
            <Segmented aria-label={t('filter.sort')} value={sort} className="mgr-filters" options={[{ value: 'name', label: t('filter.byName') }, { value: 'hours', label: t('filter.byHours') }]}
              onChange={(v) => list.setFilters({ ...filters, sort: v === 'name' ? undefined : v })} />
            <ExportButtons body={common} />
            <PeriodButtons from={from} to={to} workers={(sheets.data?.items ?? []).map((r) => ({ userId: r.userId, name: r.fullName || r.username }))} />
          </>
        )} />
      {opened !== null && <WorkerDays userId={opened} from={from} to={to} onClose={() => list.changeFilters({ worker: undefined })} />}
    </Card>
  );
}
