// Payment records (read-only): every filter in the URL, and one record in a drawer.
import { useQuery } from '@tanstack/react-query';
import { Button, Card, Descriptions, Drawer, Skeleton, Space, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { QueryError } from '../../../../shared/antd/feedback.tsx';
import { ListView, type Column } from '../../../../shared/antd/ListView.tsx';
import type { PageOf, QueryOfList } from '../../../../shared/list/params.ts';
import { useList } from '../../../../shared/list/useList.ts';
import { api, unwrap } from '../../api/client.ts';
import { useAuth } from '../../auth/auth.tsx';
import { addStrings } from '../../i18n/index.ts';
import { centsText, numberToCents } from '../orders/logic.ts';
import { paymentsQuery } from './query.ts';
import { strings } from './strings.ts';

addStrings('payments', strings);

type Payment = PageOf<typeof paymentsQuery>['list'][number];
const money = (n: number) => centsText(numberToCents(n));
const ID_RE = /^[1-9]\d{0,15}$/;
const STATUSES = ['pending', 'paid', 'failed', 'cancelled'] as const;
const COLORS: Record<string, string> = { pending: 'gold', paid: 'green', failed: 'red', cancelled: 'default' };

export default function Payments() {
  const { t } = useTranslation(['payments', 'common']);
  const { can } = useAuth();
  const list = useList(paymentsQuery);
  const [viewing, setViewing] = useState<number | null>(null);
  const methods = useQuery({
    queryKey: ['payment-methods', 'all'],
    queryFn: () => unwrap(api.GET('/api/admin/payment-methods', { params: { query: { page: 1, page_size: 100, order_by: 'id:desc' } } })),
    enabled: can('payment-method.list'),
  });

  const columns: Column<Payment, QueryOfList<typeof paymentsQuery>>[] = [
    { detail: true, title: t('common:field.id'), dataIndex: 'id', width: 70 },
    {
      first: true, title: t('paymentNo'), dataIndex: 'payment_no', width: 260, filter: { kind: 'text', key: 'payment_no', max: 32, width: 200 },
      render: (v: string, p) => (can('payment.view') ? <Typography.Link onClick={() => setViewing(p.id)}>{v}</Typography.Link> : v),
    },
    {
      title: t('orderNo'), dataIndex: 'order_no', width: 250, filter: { kind: 'text', key: 'order_no', max: 32, width: 200 },
      render: (v: string, p) => <Space size={4}>{v}{p.order_id === null && <Tag>{t('orderDeleted')}</Tag>}</Space>,
    },
    {
      title: t('method'), dataIndex: 'payment_method_name',
      // Without the right to list methods, the id from the URL is still shown.
      filter: { kind: 'select', key: 'payment_method_id', width: 170, loading: methods.isLoading, notFoundContent: null, options: (methods.data?.list ?? []).map((m) => ({ value: m.id, label: m.name })) },
    },
    {
      detail: true, title: t('userId'), dataIndex: 'user_id', width: 90,
      filter: { kind: 'text', key: 'user_id', width: 110, inputMode: 'numeric', rules: [{ pattern: ID_RE, message: t('idRule') }] },
    },
    { first: true, title: t('amount'), dataIndex: 'amount', align: 'right', render: money },
    {
      title: t('common:field.status'), dataIndex: 'status', render: (s: string) => <Tag color={COLORS[s]}>{t(`status.${s}`)}</Tag>,
      filter: { kind: 'select', key: 'status', options: STATUSES.map((s) => ({ value: s, label: t(`status.${s}`) })) },
    },
    { title: t('paidAt'), dataIndex: 'paid_at', width: 180, render: (v: string | null) => v ?? '—' },
    { detail: true, title: t('common:field.createdAt'), dataIndex: 'created_at', width: 180, filter: { kind: 'dateRange', keys: ['start_time', 'end_time'], showTime: true } },
    ...(can('payment.view') ? [{
      title: t('common:field.actions'), key: 'actions', fixed: 'right' as const, width: 90,
      render: (_: unknown, p: Payment) => <Button type="link" size="small" onClick={() => setViewing(p.id)}>{t('common:action.view')}</Button>,
    }] : []),
  ];

  return (
    <Card>
      <ListView
        name="paymentFilters"
        list={list}
        columns={columns}
        toolbar={<Typography.Text type="secondary">{t('readOnly')}</Typography.Text>}
      />
      {viewing !== null && <PaymentDetail id={viewing} onClose={() => setViewing(null)} />}
    </Card>
  );
}

function PaymentDetail({ id, onClose }: { id: number; onClose: () => void }) {
  const { t } = useTranslation(['payments', 'common']);
  const q = useQuery({ queryKey: ['payments', 'one', id], queryFn: () => unwrap(api.GET('/api/admin/payments/{id}', { params: { path: { id } } })) });
  const p = q.data;
  return (
    <Drawer open size="large" title={p ? t('detailTitle', { no: p.payment_no }) : t('common:state.loading')} onClose={onClose}>
      {q.error ? <QueryError error={q.error} onRetry={() => void q.refetch()} /> : !p ? <Skeleton active /> : (
        <Descriptions column={1} bordered size="small">
          <Descriptions.Item label={t('paymentNo')}>{p.payment_no}</Descriptions.Item>
          <Descriptions.Item label={t('common:field.status')}><Tag color={COLORS[p.status]}>{t(`status.${p.status}`)}</Tag></Descriptions.Item>
          <Descriptions.Item label={t('amount')}>{money(p.amount)}</Descriptions.Item>
          <Descriptions.Item label={t('method')}>{p.payment_method_name} <Typography.Text code>{p.payment_method_code}</Typography.Text></Descriptions.Item>
          <Descriptions.Item label={t('orderNo')}>{p.order_no}{p.order_id === null && <Tag style={{ marginLeft: 8 }}>{t('orderDeleted')}</Tag>}</Descriptions.Item>
          <Descriptions.Item label={t('orderId')}>{p.order_id ?? '—'}</Descriptions.Item>
          <Descriptions.Item label={t('userId')}>{p.user_id}</Descriptions.Item>
          <Descriptions.Item label={t('paidAt')}>{p.paid_at ?? '—'}</Descriptions.Item>
          <Descriptions.Item label={t('common:field.createdAt')}>{p.created_at}</Descriptions.Item>
          <Descriptions.Item label={t('common:field.updatedAt')}>{p.updated_at}</Descriptions.Item>
        </Descriptions>
      )}
    </Drawer>
  );
}
