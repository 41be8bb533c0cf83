// Security alerts with their filters (status, type, severity, worker, since) and page in the URL;
// each alert's details (positions, speeds, the QR code …) expand under its row. The workflow: a
// manager acknowledges an open alert (on it) and resolves it, each with an optional note; resolved
// alerts leave the default view (`unresolved`), the status filter shows them.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Button, Card, DatePicker, Form, Input, Select, Space, Tag, Typography } from 'antd';
import dayjs from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, call, type Body } from '../api/client.ts';
import type { paths } from '../api/schema.gen.ts';
import { FormModal } from '../../../shared/antd/FormModal.tsx';
import { useSave } from '../../../shared/antd/useSave.ts';
import { fmt, useUrlFilters } from './common.tsx';
import { QueryDataList } from '../../../shared/antd/DataList.tsx';

const PAGE_SIZE = 20;
const TYPES = ['geofence_violation', 'device_mismatch', 'forced_clock_out', 'qr_invalid', 'impossible_travel', 'implausible_accuracy', 'duplicate_event', 'out_of_order_event', 'late_punch'] as const;
const SEVERITIES = ['low', 'medium', 'high'] as const;
type Severity = (typeof SEVERITIES)[number];
const STATUSES = ['unresolved', 'open', 'acknowledged', 'resolved', 'all'] as const;
type StatusFilter = (typeof STATUSES)[number];
const STATUS_COLOR = { open: 'red', acknowledged: 'gold', resolved: 'green' } as const;
type Step = 'acknowledge' | 'resolve';
type StepBody = NonNullable<Body<'/api/managers/security/alerts/{id}/resolve', 'post'>>;
type Alert = NonNullable<Awaited<ReturnType<typeof listAlerts>>>['alerts'][number];
type AlertsQuery = NonNullable<paths['/api/managers/security/alerts']['get']['parameters']['query']>;
const listAlerts = (query: AlertsQuery) =>
  call(api.GET('/api/managers/security/alerts', { params: { query } }));
export const SEVERITY_COLOR = { low: 'blue', medium: 'orange', high: 'red' } as const;

export default function Alerts() {
  const { t } = useTranslation('manager');
  const { filters, set, page } = useUrlFilters();
  const [acting, setActing] = useState<{ alert: Alert; step: Step } | null>(null);
  const status = (STATUSES as readonly string[]).includes(filters.status ?? '') ? filters.status as StatusFilter : 'unresolved';
  const query = {
    page, limit: PAGE_SIZE, status,
    ...(filters.type ? { type: filters.type as (typeof TYPES)[number] } : {}),
    ...(filters.severity ? { severity: filters.severity as Severity } : {}),
    ...(filters.userId ? { userId: Number(filters.userId) } : {}),
    ...(filters.since ? { since: filters.since } : {}),
  };
  const list = useQuery({ queryKey: ['alerts', query], queryFn: () => listAlerts(query), placeholderData: keepPreviousData, refetchInterval: 30_000 });
  const filtered = Boolean(filters.type || filters.severity || filters.userId || filters.since || filters.status);
  return (
    <Card>
      <Space wrap className="mgr-filters">
        <Select aria-label={t('alerts.status')} style={{ width: 200 }} value={status} onChange={(v) => set({ status: v === 'unresolved' ? undefined : v, page: undefined })}
          options={STATUSES.map((x) => ({ value: x, label: t(`alerts.statusFilter.${x}`) }))} />
        <Select aria-label={t('alerts.type')} style={{ minWidth: 200 }} value={filters.type ?? ''} onChange={(v) => set({ type: v, page: undefined })}
          options={[{ value: '', label: t('alerts.anyType') }, ...TYPES.map((x) => ({ value: x, label: t(`alerts.types.${x}`) }))]} />
        <Select aria-label={t('alerts.severity')} style={{ width: 160 }} value={filters.severity ?? ''} onChange={(v) => set({ severity: v, page: undefined })}
          options={[{ value: '', label: t('alerts.anySeverity') }, ...SEVERITIES.map((x) => ({ value: x, label: t(`alerts.${x}`) }))]} />
        <DatePicker aria-label={t('alerts.since')} placeholder={t('alerts.since')} showTime value={filters.since ? dayjs(filters.since) : null}
          onChange={(d) => set({ since: d ? d.toISOString() : undefined, page: undefined })} />
        {filtered && <Button onClick={() => set({ type: undefined, severity: undefined, userId: undefined, since: undefined, status: undefined, page: undefined })}>{t('action.reset')}</Button>}
      </Space>
      <QueryDataList
        query={list}
        empty={filtered ? t('state.noMatch') : t('alerts.noneOpen')}
        rowKey="id"
        aria-label={t('nav.alerts')}
        dataSource={list.data?.alerts ?? []}
        pagination={{ current: page, pageSize: PAGE_SIZE, total: list.data?.totalCount ?? 0, onChange: (p) => set({ page: p === 1 ? undefined : p }), showSizeChanger: false }}
        expandable={{ expandedRowRender: (a) => <pre className="mgr-details">{JSON.stringify(a.details, null, 2)}</pre> }}
        rowClassName={(a) => `alert-${a.status}`}
        columns={[
          { title: t('alerts.time'), dataIndex: 'created_at', render: (v: string) => fmt(v) },
          { title: t('alerts.type'), dataIndex: 'alert_type', render: (v: string) => t(`alerts.types.${v}`, { defaultValue: v }) },
          { title: t('alerts.severity'), dataIndex: 'severity', render: (v: Severity) => <Tag color={SEVERITY_COLOR[v]}>{t(`alerts.${v}`)}</Tag> },
          {
            title: t('alerts.worker'), key: 'w',
            // Wraps (name, then username) rather than pushing a phone-width card sideways.
            render: (_, a) => <Button type="link" style={{ whiteSpace: 'normal', overflowWrap: 'anywhere', height: 'auto', paddingInline: 0, textAlign: 'start' }} onClick={() => set({ userId: a.user_id, page: undefined })}>{a.full_name} <Typography.Text type="secondary">{a.username}</Typography.Text></Button>,
          },
          {
            title: t('alerts.status'), dataIndex: 'status',
            render: (_: unknown, a: Alert) => (
              <Space direction="vertical" size={2}>
                <Tag color={STATUS_COLOR[a.status]}>{t(`alerts.statuses.${a.status}`)}</Tag>
                {(['acknowledged', 'resolved'] as const).map((k) => {
                  const step = a[k];
                  if (!step) return null;
                  return (
                    <Typography.Text key={k} type="secondary" className="alert-step">
                      {t(`alerts.by_${k}`, { name: step.by?.full_name ?? t('alerts.someone'), time: fmt(step.at) })}
                      {step.note ? <>: <q>{step.note}</q></> : null}
                    </Typography.Text>
                  );
                })}
              </Space>
            ),
          },
          {
            title: '', key: 'a',
            render: (_: unknown, a: Alert) => (a.status === 'resolved' ? null : (
              <Space size={0} wrap>
                {a.status === 'open' && <Button type="link" onClick={() => setActing({ alert: a, step: 'acknowledge' })}>{t('alerts.acknowledge')}</Button>}
                <Button type="link" onClick={() => setActing({ alert: a, step: 'resolve' })}>{t('alerts.resolve')}</Button>
              </Space>
            )),
          },
        ]}
      />
      {acting && <StepForm {...acting} onClose={() => setActing(null)} />}
    </Card>
  );
}

/** Acknowledge or resolve one alert, with an optional note. */
function StepForm({ alert, step, onClose }: { alert: Alert; step: Step; onClose: () => void }) {
  const { t } = useTranslation('manager');
  const [form] = Form.useForm<StepBody>();
  const { submit, isPending } = useSave(form, {
    save: (v: StepBody) => {
      const note = v.note?.trim();
      const body = note ? { note } : {};
      return step === 'acknowledge'
        ? call(api.POST('/api/managers/security/alerts/{id}/acknowledge', { params: { path: { id: alert.id } }, body }))
        : call(api.POST('/api/managers/security/alerts/{id}/resolve', { params: { path: { id: alert.id } }, body }));
    },
    success: t(step === 'acknowledge' ? 'alerts.acknowledged' : 'alerts.resolvedDone'),
    fallback: 'note',
    // The board counts the open alerts.
    invalidates: [['alerts'], ['board']],
    onSaved: onClose,
  });
  const action = t(step === 'acknowledge' ? 'alerts.acknowledge' : 'alerts.resolve');
  return (
    <FormModal form={form} title={`${action} — ${t(`alerts.types.${alert.alert_type}`, { defaultValue: alert.alert_type })}, ${alert.full_name}`} okText={action} pending={isPending} onClose={onClose}
      name="alert-step"
      onFinish={submit}
      intro={<Typography.Paragraph type="secondary">{t(step === 'acknowledge' ? 'alerts.acknowledgeHelp' : 'alerts.resolveHelp')}</Typography.Paragraph>}
    >
      <Form.Item name="note" label={t('alerts.note')} rules={[{ max: 1000 }]}>
        <Input.TextArea rows={3} maxLength={1000} showCount />
      </Form.Item>
    </FormModal>
  );
}
