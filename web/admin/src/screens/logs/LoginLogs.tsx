// Login log: every sign-in attempt, successful or not, and where it came from (the server's
// one-line location in the reader's language; this machine and private networks shown quieter
// than a place). Filters (in the URL): administrator ID, IP (fuzzy), result, a date range.
import { Card, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { Column } from '../../../../shared/antd/ListView.tsx';
import { filtersFor, type PageOf, type QueryOfList } from '../../../../shared/list/params.ts';
import { api, unwrap } from '../../api/client.ts';
import type { paths } from '../../api/schema.gen.ts';
import { useList } from '../../../../shared/list/useList.ts';
import { LogExports, LogList, timeFilter } from './shared.tsx';
import { loginLogsQuery } from './query.ts';

type ExportQuery = NonNullable<paths['/api/admin/logs/login/export']['post']['parameters']['query']>;
type Row = PageOf<typeof loginLogsQuery>['list'][number];

export default function LoginLogs() {
  const { t } = useTranslation(['logs', 'common']);
  const list = useList(loginLogsQuery);
  const reason = (r: string) => t(`reasons.${r}`, { defaultValue: r });
  const result = (s: number) => (s === 1 ? <Tag color="green">{t('success')}</Tag> : <Tag color="red">{t('failure')}</Tag>);
  const where = ({ location }: Row) => (location.kind === 'public' ? location.label : <Typography.Text type="secondary">{location.label}</Typography.Text>);

  const columns: Column<Row, QueryOfList<typeof loginLogsQuery>>[] = [
    { title: t('adminId'), hideInTable: true, filter: { kind: 'number', key: 'admin_id', min: 1 } },
    { title: t('common:field.id'), dataIndex: 'id', width: 80 },
    // On a phone: who, from where and how it went come first (the table scrolls sideways for the rest).
    { first: true, title: t('username'), dataIndex: 'username', render: (v: string, r) => `${v}${r.admin_id ? ` (#${r.admin_id})` : ''}` },
    { title: t('ip'), dataIndex: 'ip', filter: { kind: 'text', key: 'ip', max: 64, width: 150 } },
    { first: true, title: t('location'), key: 'location', render: (_: unknown, r) => where(r) },
    {
      first: true, title: t('result'), dataIndex: 'status', width: 100, render: result,
      filter: { kind: 'select', key: 'status', width: 110, options: [{ value: '1', label: t('success') }, { value: '0', label: t('failure') }] },
    },
    { title: t('reason'), dataIndex: 'reason', render: reason },
    // Below 1600 px in the row's expansion (and the drawer), so that a 1440 px window shows the rest, the location included, without scrolling.
    { detail: true, title: t('userAgent'), dataIndex: 'user_agent', ellipsis: true, render: (v: string) => v || '—' },
    { title: t('time'), dataIndex: 'created_at', width: 170, filter: timeFilter(t) },
  ];

  return (
    <Card>
      <LogList
        list={list}
        columns={columns}
        toolbar={<LogExports name="login-log" start={(format) => unwrap(api.POST('/api/admin/logs/login/export', { params: { query: { ...filtersFor<ExportQuery>(list.filters, ['admin_id', 'ip', 'status', 'start_date', 'end_date']), format } }, body: {} }))} />}
        details={(r) => [
          { label: t('username'), value: r.username },
          { label: t('adminId'), value: r.admin_id ?? '—' },
          { label: t('ip'), value: r.ip },
          { label: t('location'), value: r.location.country ? <>{where(r)} <Typography.Text type="secondary">({r.location.country})</Typography.Text></> : where(r) },
          { label: t('result'), value: result(r.status) },
          { label: t('reason'), value: reason(r.reason) },
          { label: t('userAgent'), value: r.user_agent || '—' },
          { label: t('time'), value: r.created_at },
        ]}
      />
    </Card>
  );
}
