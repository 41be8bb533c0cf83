// Security alerts with their filters (type, severity, worker, since) and page in the URL; each
// alert's details (positions, speeds, the QR code …) expand under its row.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Button, Card, DatePicker, Empty, Select, Space, Tag, Typography } from 'antd';
import dayjs from 'dayjs';
import { useTranslation } from 'react-i18next';
import { api, call } from '../api/client.ts';
import { fmt, QueryError, useUrlFilters, DataList } from './common.tsx';

const PAGE_SIZE = 20;
const TYPES = ['geofence_violation', 'device_mismatch', 'forced_clock_out', 'qr_invalid', 'impossible_travel', 'implausible_accuracy', 'duplicate_event', 'out_of_order_event', 'late_punch'] as const;
const SEVERITIES = ['low', 'medium', 'high'] as const;
type Severity = (typeof SEVERITIES)[number];
export const SEVERITY_COLOR = { low: 'blue', medium: 'orange', high: 'red' } as const;

export default function Alerts() {
  const { t } = useTranslation('manager');
  const { filters, set, page } = useUrlFilters();
  const query = {
    page, limit: PAGE_SIZE,
    ...(filters.type ? { type: filters.type as (typeof TYPES)[number] } : {}),
    ...(filters.severity ? { severity: filters.severity as Severity } : {}),
    ...(filters.userId ? { userId: Number(filters.userId) } : {}),
    ...(filters.since ? { since: filters.since } : {}),
  };
  const list = useQuery({ queryKey: ['alerts', query], queryFn: () => call(api.GET('/api/managers/security/alerts', { params: { query } })), placeholderData: keepPreviousData, refetchInterval: 30_000 });
  const filtered = Boolean(filters.type || filters.severity || filters.userId || filters.since);
  return (
    <Card>
      <Space wrap className="mgr-filters">
        <Select aria-label={t('alerts.type')} style={{ minWidth: 200 }} value={filters.type ?? ''} onChange={(v) => set({ type: v, page: undefined })}
          options={[{ value: '', label: t('alerts.anyType') }, ...TYPES.map((x) => ({ value: x, label: t(`alerts.types.${x}`) }))]} />
        <Select aria-label={t('alerts.severity')} style={{ width: 160 }} value={filters.severity ?? ''} onChange={(v) => set({ severity: v, page: undefined })}
          options={[{ value: '', label: t('alerts.anySeverity') }, ...SEVERITIES.map((x) => ({ value: x, label: t(`alerts.${x}`) }))]} />
        <DatePicker aria-label={t('alerts.since')} placeholder={t('alerts.since')} showTime value={filters.since ? dayjs(filters.since) : null}
          onChange={(d) => set({ since: d ? d.toISOString() : undefined, page: undefined })} />
        {filtered && <Button onClick={() => set({ type: undefined, severity: undefined, userId: undefined, since: undefined, page: undefined })}>{t('action.reset')}</Button>}
      </Space>
      {list.isError && !list.data ? <QueryError error={list.error} onRetry={() => void list.refetch()} /> : (
        <DataList
          rowKey="id"
          aria-label={t('nav.alerts')}
          loading={list.isFetching && !list.data}
          dataSource={list.data?.alerts ?? []}
          locale={{ emptyText: <Empty description={filtered ? t('state.noMatch') : t('alerts.none')} /> }}
          pagination={{ current: page, pageSize: PAGE_SIZE, total: list.data?.totalCount ?? 0, onChange: (p) => set({ page: p === 1 ? undefined : p }), showSizeChanger: false }}
          expandable={{ expandedRowRender: (a) => <pre className="mgr-details">{JSON.stringify(a.details, null, 2)}</pre> }}
          columns={[
            { title: t('alerts.time'), dataIndex: 'created_at', render: (v: string) => fmt(v) },
            { title: t('alerts.type'), dataIndex: 'alert_type', render: (v: string) => t(`alerts.types.${v}`, { defaultValue: v }) },
            { title: t('alerts.severity'), dataIndex: 'severity', render: (v: Severity) => <Tag color={SEVERITY_COLOR[v]}>{t(`alerts.${v}`)}</Tag> },
            {
              title: t('alerts.worker'), key: 'w',
              render: (_, a) => <Button type="link" onClick={() => set({ userId: a.user_id, page: undefined })}>{a.full_name} <Typography.Text type="secondary">{a.username}</Typography.Text></Button>,
            },
          ]}
        />
      )}
    </Card>
  );
}
