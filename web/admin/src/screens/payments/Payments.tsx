// Payment records (read-only): every filter in the URL, and one record in a drawer.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Button, Card, DatePicker, Descriptions, Drawer, Form, Input, Select, Skeleton, Space, Table, Tag, Typography } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { useAuth } from '../../auth/auth.tsx';
import { QueryError } from '../../../../shared/antd/feedback.tsx';
import type { QueryOfList } from '../../../../shared/list/params.ts';
import { useListParams } from '../../../../shared/list/useList.ts';
import { addStrings } from '../../i18n/index.ts';
import { centsText, numberToCents } from '../orders/logic.ts';
import { strings } from './strings.ts';
import { FilterButtons } from '../../../../shared/antd/FilterButtons.tsx';
import { type listPayments, paymentsQuery } from './query.ts';
import { useListTable } from '../../../../shared/antd/listTable.tsx';

addStrings('payments', strings);

type Payment = Awaited<ReturnType<typeof listPayments>>['list'][number];
const money = (n: number) => centsText(numberToCents(n));
const TIME = 'YYYY-MM-DD HH:mm:ss';
const ID_RE = /^[1-9]\d{0,15}$/;
const STATUSES = ['pending', 'paid', 'failed', 'cancelled'] as const;
const COLORS: Record<string, string> = { pending: 'gold', paid: 'green', failed: 'red', cancelled: 'default' };

interface FilterValues {
  payment_no?: string;
  order_no?: string;
  payment_method_id?: string;
  user_id?: string;
  status?: string;
  range?: [Dayjs | null, Dayjs | null] | null;
}

export default function Payments() {
  const { t } = useTranslation(['payments', 'common']);
  const table = useListTable();
  const { can } = useAuth();
  const { params, setFilters, pagination } = useListParams<QueryOfList<typeof paymentsQuery>>();
  const [viewing, setViewing] = useState<number | null>(null);
  const f = params.filters;
  const list = useQuery({ ...paymentsQuery(params), placeholderData: keepPreviousData });
  const methods = useQuery({
    queryKey: ['payment-methods', 'all'],
    queryFn: () => unwrap(api.GET('/api/admin/payment-methods', { params: { query: { page: 1, page_size: 100, order_by: 'id:desc' } } })),
    enabled: can('payment-method.list'),
  });

  return (
    <Card>
      <Form<FilterValues>
        name="paymentFilters"
        className="list-filters"
        layout="inline"
        key={JSON.stringify(f)}
        initialValues={{ ...f, range: f.start_time && f.end_time ? [dayjs(f.start_time), dayjs(f.end_time)] : undefined }}
        onFinish={(v) => {
          const [from, to] = v.range ?? [];
          setFilters({
            payment_no: v.payment_no?.trim(), order_no: v.order_no?.trim(), payment_method_id: v.payment_method_id, user_id: v.user_id?.trim(), status: v.status,
            start_time: from?.format(TIME), end_time: to?.format(TIME),
          });
        }}
      >
        <Form.Item name="payment_no" label={t('paymentNo')} rules={[{ max: 32 }]}><Input allowClear style={{ width: 200 }} /></Form.Item>
        <Form.Item name="order_no" label={t('orderNo')} rules={[{ max: 32 }]}><Input allowClear style={{ width: 200 }} /></Form.Item>
        <Form.Item name="payment_method_id" label={t('method')}>
          <Select
            allowClear
            style={{ width: 170 }}
            loading={methods.isLoading}
            options={(methods.data?.list ?? []).map((m) => ({ value: String(m.id), label: m.name }))}
            // Without the right to list methods, the id from the URL is still shown.
            notFoundContent={null}
          />
        </Form.Item>
        <Form.Item name="user_id" label={t('userId')} rules={[{ pattern: ID_RE, message: t('idRule') }]}><Input allowClear style={{ width: 110 }} inputMode="numeric" /></Form.Item>
        <Form.Item name="status" label={t('common:field.status')}>
          <Select allowClear style={{ width: 120 }} options={STATUSES.map((s) => ({ value: s, label: t(`status.${s}`) }))} />
        </Form.Item>
        <Form.Item name="range" label={t('common:field.createdAt')}><DatePicker.RangePicker showTime /></Form.Item>
        <FilterButtons onReset={() => setFilters({})} />
      </Form>
      <Typography.Paragraph type="secondary">{t('readOnly')}</Typography.Paragraph>
      {list.error ? <QueryError error={list.error} onRetry={() => void list.refetch()} /> : (
        <Table<Payment>
          rowKey="id"
          loading={list.isFetching}
          dataSource={list.data?.list ?? []}
          locale={{ emptyText: Object.keys(f).length > 0 ? t('common:state.emptyFiltered') : t('common:state.empty') }}
          pagination={pagination(list.data?.total ?? 0)}
          {...table<Payment>([
            { detail: true, title: t('common:field.id'), dataIndex: 'id', width: 70 },
            {
              first: true, title: t('paymentNo'), dataIndex: 'payment_no', width: 260,
              render: (v: string, p) => (can('payment.view') ? <Typography.Link onClick={() => setViewing(p.id)}>{v}</Typography.Link> : v),
            },
            {
              title: t('orderNo'), dataIndex: 'order_no', width: 250,
              render: (v: string, p) => <Space size={4}>{v}{p.order_id === null && <Tag>{t('orderDeleted')}</Tag>}</Space>,
            },
            { title: t('method'), dataIndex: 'payment_method_name' },
            { detail: true, title: t('userId'), dataIndex: 'user_id', width: 90 },
            { first: true, title: t('amount'), dataIndex: 'amount', align: 'right', render: money },
            { title: t('common:field.status'), dataIndex: 'status', render: (s: string) => <Tag color={COLORS[s]}>{t(`status.${s}`)}</Tag> },
            { title: t('paidAt'), dataIndex: 'paid_at', width: 180, render: (v: string | null) => v ?? '—' },
            { detail: true, title: t('common:field.createdAt'), dataIndex: 'created_at', width: 180 },
            ...(can('payment.view') ? [{
              title: t('common:field.actions'), key: 'actions', fixed: 'right' as const, width: 90,
              render: (_: unknown, p: Payment) => <Button type="link" size="small" onClick={() => setViewing(p.id)}>{t('common:action.view')}</Button>,
            }] : []),
          ])}
        />
      )}
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
