// Security alerts with their filters (status, type, severity, worker, since) and page in the URL;
// each alert's details (positions, speeds, the QR code …) expand under its row. The workflow: a
// manager acknowledges an open alert (on it) and resolves it, each with an optional note; resolved
// alerts leave the default view (`unresolved`), the status filter shows them.
import { Button, Card, Form, Input, Space, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, call, limitQuery, type Body, type ListQuery } from '../api/client.ts';
import { FormModal } from '../../../shared/antd/FormModal.tsx';
import { ListView, type Column } from '../../../shared/antd/ListView.tsx';
import { useSave } from '../../../shared/antd/useSave.ts';
import { listQuery, type PageOf } from '../../../shared/list/params.ts';
import { useList } from '../../../shared/list/useList.ts';
import { fmt } from './common.tsx';

const TYPES = ['geofence_violation', 'device_mismatch', 'forced_clock_out', 'qr_invalid', 'impossible_travel', 'implausible_accuracy', 'duplicate_event', 'out_of_order_event', 'late_punch'] as const;
const SEVERITIES = ['low', 'medium', 'high'] as const;
type Severity = (typeof SEVERITIES)[number];
const STATUSES = ['unresolved', 'open', 'acknowledged', 'resolved', 'all'] as const;
const STATUS_COLOR = { open: 'red', acknowledged: 'gold', resolved: 'green' } as const;
type Step = 'acknowledge' | 'resolve';
type StepBody = NonNullable<Body<'/api/managers/security/alerts/{id}/resolve', 'post'>>;
type Query = ListQuery<'/api/managers/security/alerts'>;
const alertsQuery = listQuery(['alerts'], (query: Query) =>
  call(api.GET('/api/managers/security/alerts', { params: { query: limitQuery<'/api/managers/security/alerts'>(query) } }))
    .then((r) => ({ list: r.alerts, total: r.totalCount })));
type Alert = PageOf<typeof alertsQuery>['list'][number];
export const SEVERITY_COLOR = { low: 'blue', medium: 'orange', high: 'red' } as const;

export default function Alerts() {
  const { t } = useTranslation('manager');
  const list = useList(alertsQuery, 20, { refetchInterval: 30_000 });
  const [acting, setActing] = useState<{ alert: Alert; step: Step } | null>(null);
  const columns: Column<Alert, Query>[] = [
    { title: t('alerts.time'), dataIndex: 'created_at', filter: { kind: 'date', key: 'since', label: t('alerts.since'), showTime: true, order: 4 }, render: (v: string) => fmt(v) },
    {
      title: t('alerts.type'), dataIndex: 'alert_type',
      filter: { kind: 'select', key: 'type', width: 200, placeholder: t('alerts.anyType'), options: TYPES.map((x) => ({ value: x, label: t(`alerts.types.${x}`) })), order: 1 },
      render: (v: string) => t(`alerts.types.${v}`, { defaultValue: v }),
    },
    {
      title: t('alerts.severity'), dataIndex: 'severity',
      filter: { kind: 'select', key: 'severity', width: 160, placeholder: t('alerts.anySeverity'), options: SEVERITIES.map((x) => ({ value: x, label: t(`alerts.${x}`) })), order: 2 },
      render: (v: Severity) => <Tag color={SEVERITY_COLOR[v]}>{t(`alerts.${v}`)}</Tag>,
    },
    {
      title: t('alerts.worker'), key: 'w',
      // Wraps (name, then username) rather than pushing a phone-width card sideways.
      render: (_, a) => <Button type="link" style={{ whiteSpace: 'normal', overflowWrap: 'anywhere', height: 'auto', paddingInline: 0, textAlign: 'start' }} onClick={() => list.setFilters({ ...list.filters, userId: a.user_id })}>{a.full_name} <Typography.Text type="secondary">{a.username}</Typography.Text></Button>,
    },
    {
      title: t('alerts.status'), dataIndex: 'status',
      // Not resolved by default (the server's), which the empty field says.
      filter: { kind: 'select', key: 'status', width: 200, placeholder: t('alerts.statusFilter.unresolved'), options: STATUSES.map((x) => ({ value: x, label: t(`alerts.statusFilter.${x}`) })), order: 0 },
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
  ];
  return (
    <Card>
      <ListView list={list} columns={columns} name="alerts" instant cards label={t('nav.alerts')} empty={t('alerts.noneOpen')}
        table={{ expandable: { expandedRowRender: (a) => <pre className="mgr-details">{JSON.stringify(a.details, null, 2)}</pre> }, rowClassName: (a) => `alert-${a.status}` }} />
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
