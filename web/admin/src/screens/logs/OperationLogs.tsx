// Operation log: every state-changing request of a signed-in administrator. Filters (in the URL):
// administrator ID, module, action and trace ID (exact), a date range. A trace ID (a link from a
// row of either log) shows the rows of that request, with a banner that says so. A row's detail
// shows what the operation changed, before and after (Changes).
import { Alert, Button, Card, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { Column } from '../../../../shared/antd/ListView.tsx';
import { filtersFor, type PageOf, type QueryOfList } from '../../../../shared/list/params.ts';
import { api, unwrap } from '../../api/client.ts';
import type { paths } from '../../api/schema.gen.ts';
import { useList } from '../../../../shared/list/useList.ts';
import { Changes } from './Changes.tsx';
import { JsonBlock, LogExports, LogList, statusTag, timeFilter, TraceLinks } from './shared.tsx';
import { operationLogsQuery } from './query.ts';

type ExportQuery = NonNullable<paths['/api/admin/logs/operation/export']['post']['parameters']['query']>;
type Row = PageOf<typeof operationLogsQuery>['list'][number];

export default function OperationLogs() {
  const { t } = useTranslation(['logs', 'common']);
  const list = useList(operationLogsQuery);
  const traceId = list.filters.trace_id;
  const who = (r: Row) => (r.username ? `${r.username}${r.admin_id ? ` (#${r.admin_id})` : ''}` : '—');

  const columns: Column<Row, QueryOfList<typeof operationLogsQuery>>[] = [
    { title: t('adminId'), hideInTable: true, filter: { kind: 'number', key: 'admin_id', min: 1 } },
    { title: t('module'), hideInTable: true, filter: { kind: 'text', key: 'module', max: 64, width: 140 } },
    { detail: true, title: t('common:field.id'), dataIndex: 'id', width: 80 },
    { title: t('admin'), dataIndex: 'username', render: (_: string, r) => who(r) },
    // What was done, named in the reader's language by the server; the slug stays in the details.
    { title: t('action'), dataIndex: 'action_label', filter: { kind: 'text', key: 'action', max: 64, width: 140 } },
    { title: t('method'), dataIndex: 'method', width: 90, render: (v: string) => <Tag>{v}</Tag> },
    { title: t('path'), dataIndex: 'path', ellipsis: true },
    { detail: true, title: t('ip'), dataIndex: 'ip' },
    { title: t('statusCode'), dataIndex: 'status_code', width: 100, render: statusTag },
    { detail: true, title: t('duration'), dataIndex: 'duration_ms', width: 100, render: (ms: number) => t('durationMs', { ms }) },
    { title: t('traceId'), hideInTable: true, filter: { kind: 'text', key: 'trace_id', max: 128, width: 280 } },
    { title: t('time'), dataIndex: 'created_at', width: 170, filter: timeFilter(t) },
  ];

  return (
    <Card>
      {traceId && (
        <Alert
          type="info"
          showIcon
          style={{ marginBottom: 12 }}
          message={t('traceFilter', { id: traceId })}
          action={<Button size="small" onClick={() => list.setFilters({})}>{t('clearTrace')}</Button>}
        />
      )}
      <LogList
        list={list}
        columns={columns}
        toolbar={<LogExports name="operation-log" start={(format) => unwrap(api.POST('/api/admin/logs/operation/export', { params: { query: { ...filtersFor<ExportQuery>(list.filters, ['admin_id', 'module', 'action', 'trace_id', 'start_date', 'end_date']), format } }, body: {} }))} />}
        details={(r, close) => [
          { label: t('admin'), value: who(r) },
          { label: t('action'), value: r.action_label },
          { label: t('slug'), value: <Typography.Text code>{`${r.module}.${r.action}`}</Typography.Text> },
          { label: t('method'), value: r.method },
          { label: t('route'), value: <Typography.Text code>{r.route}</Typography.Text> },
          { label: t('path'), value: r.path },
          { label: t('statusCode'), value: statusTag(r.status_code) },
          { label: t('duration'), value: t('durationMs', { ms: r.duration_ms }) },
          { label: t('ip'), value: r.ip },
          { label: t('userAgent'), value: r.user_agent || '—' },
          { label: t('time'), value: r.created_at },
          { label: t('traceId'), value: <TraceLinks traceId={r.trace_id} onFollow={close} /> },
          { label: t('changes'), value: <Changes changes={r.changes} /> },
          { label: t('params'), value: <JsonBlock value={r.params} label={t('params')} /> },
        ]}
      />
    </Card>
  );
}
