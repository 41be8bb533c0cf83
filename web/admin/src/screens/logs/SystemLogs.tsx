// System log: warnings and errors of the service, each with the trace ID of its request. Filters
// (in the URL): level, trace ID (exact), a date range. A row links to the rows of both logs that
// carry its trace ID.
import { Card, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { Column } from '../../../../shared/antd/ListView.tsx';
import type { PageOf, QueryOfList } from '../../../../shared/list/params.ts';
import { useList } from '../../../../shared/list/useList.ts';
import { useAuth } from '../../auth/auth.tsx';
import { JsonBlock, LEVEL_COLORS, LogList, operationTraceLink, timeFilter, TraceLinks } from './shared.tsx';
import { systemLogsQuery } from './query.ts';

type Row = PageOf<typeof systemLogsQuery>['list'][number];
const LEVELS = ['error', 'warning', 'info', 'debug'];

export default function SystemLogs() {
  const { t } = useTranslation(['logs', 'common']);
  const { can } = useAuth();
  const list = useList(systemLogsQuery);
  const level = (l: string) => <Tag color={LEVEL_COLORS[l] ?? 'default'}>{l}</Tag>;

  const columns: Column<Row, QueryOfList<typeof systemLogsQuery>>[] = [
    { title: t('common:field.id'), dataIndex: 'id', width: 80 },
    { title: t('level'), dataIndex: 'level', width: 100, render: level, filter: { kind: 'select', key: 'level', options: LEVELS.map((l) => ({ value: l, label: l })) } },
    { title: t('message'), dataIndex: 'message', ellipsis: true, render: (v: string) => v },
    {
      title: t('traceId'), dataIndex: 'trace_id', width: 200, filter: { kind: 'text', key: 'trace_id', max: 128, width: 280 },
      render: (v: string) => (!v ? '—' : can('log.operation')
        ? <Link to={operationTraceLink(v)} aria-label={`${t('traceOperation')} ${v}`}>{v.slice(0, 12)}…</Link>
        : <Typography.Text code>{v.slice(0, 12)}…</Typography.Text>),
    },
    { title: t('time'), dataIndex: 'created_at', width: 170, filter: timeFilter(t) },
  ];

  return (
    <Card>
      <LogList
        list={list}
        columns={columns}
        details={(r, close) => [
          { label: t('level'), value: level(r.level) },
          { label: t('message'), value: <Typography.Text style={{ whiteSpace: 'pre-wrap' }}>{r.message}</Typography.Text> },
          { label: t('time'), value: r.created_at },
          { label: t('traceId'), value: <TraceLinks traceId={r.trace_id} onFollow={close} /> },
          { label: t('context'), value: <JsonBlock value={r.context} label={t('context')} /> },
        ]}
      />
    </Card>
  );
}
