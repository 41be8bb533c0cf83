// Orders: every filter of the contract in the URL (the created range refused over 3 calendar
// months before any request), the detail drawer, create with a live total in integer cents,
// pending → paid (choosing the payment method) or cancelled, delete, CSV import with its
// summary and error table, and export as a task.
import { PlusOutlined } from '@ant-design/icons';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, DatePicker, Form, Input, Select, Space, Table, Tag, Typography } from 'antd';
import type { SorterResult } from 'antd/es/table/interface';
import dayjs, { type Dayjs } from 'dayjs';
import { memo, useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { useAuth } from '../../auth/auth.tsx';
import { ConfirmButton } from '../../components/ConfirmButton.tsx';
import { ExportTask } from '../../components/ExportTask.tsx';
import { QueryError, useAction } from '../../../../shared/antd/feedback.tsx';
import { filtersFor, type QueryOfList } from '../../../../shared/list/params.ts';
import type { paths } from '../../api/schema.gen.ts';
import { useListParams } from '../../../../shared/list/useList.ts';
import { addStrings } from '../../i18n/index.ts';
import { ImportOrders } from './ImportOrders.tsx';
import { centsText, numberToCents, outsideRange, parseCents, rangeTimes, rangeTooLong } from './logic.ts';
import { OrderDetail } from './OrderDetail.tsx';
import { OrderForm } from './OrderForm.tsx';
import { PayOrder } from './PayOrder.tsx';
import { strings } from './strings.ts';
import { FilterButtons } from '../../../../shared/antd/FilterButtons.tsx';
import { type listOrders, ordersQuery } from './query.ts';
import { type ListColumn, useListTable } from '../../../../shared/antd/listTable.tsx';
import { cappedPage } from '../../../../shared/antd/ListView.tsx';

addStrings('orders', strings);

export type Order = Awaited<ReturnType<typeof listOrders>>['list'][number];
type ExportQuery = NonNullable<paths['/api/admin/orders/export']['post']['parameters']['query']>;

const DAY = 'YYYY-MM-DD';
const ID_RE = /^[1-9]\d{0,15}$/;
export const STATUS_COLORS: Record<string, string> = { pending: 'gold', paid: 'green', cancelled: 'default' };
export const money = (n: number) => centsText(numberToCents(n));

interface FilterValues {
  order_no?: string;
  user_id?: string;
  status?: string;
  min_amount?: string;
  max_amount?: string;
  range?: [Dayjs | null, Dayjs | null] | null;
}

export default function Orders() {
  const queryClient = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [viewing, setViewing] = useState<number | null>(null);
  const [paying, setPaying] = useState<Order | null>(null);
  const [importing, setImporting] = useState(false);
  const refresh = useCallback(() => void queryClient.invalidateQueries({ queryKey: ['orders'] }), [queryClient]);
  // The filters, the toolbar and the table are separate components, so that a page of rows
  // arriving renders the table alone.
  return (
    <Card>
      <OrderFilters />
      <OrdersToolbar onCreate={setCreating} onImport={setImporting} />
      <OrdersTable onView={setViewing} onPay={setPaying} refresh={refresh} />
      {creating && <OrderForm onClose={(saved) => { setCreating(false); if (saved) refresh(); }} />}
      {viewing !== null && <OrderDetail id={viewing} onClose={() => setViewing(null)} />}
      {paying && <PayOrder order={paying} onClose={(done) => { setPaying(null); if (done) refresh(); }} />}
      {importing && <ImportOrders onClose={(imported) => { setImporting(false); if (imported) refresh(); }} />}
    </Card>
  );
}

const OrderFilters = memo(function OrderFilters() {
  const { t } = useTranslation(['orders', 'common']);
  const { params, setFilters } = useListParams<QueryOfList<typeof ordersQuery>>();
  const f = params.filters;
  const search = (v: FilterValues) => {
    const [from, to] = v.range ?? [];
    setFilters({
      order_no: v.order_no?.trim(), user_id: v.user_id?.trim(), status: v.status, min_amount: v.min_amount?.trim(), max_amount: v.max_amount?.trim(),
      ...(from && to ? rangeTimes(from.format(DAY), to.format(DAY)) : {}),
    });
  };
  return (
    <Form<FilterValues>
      name="orderFilters"
      className="list-filters"
      layout="inline"
      key={JSON.stringify(f)}
      initialValues={{
        ...f,
        range: f.start_time && f.end_time ? [dayjs(f.start_time.slice(0, 10)), dayjs(f.end_time.slice(0, 10))] : undefined,
      }}
      onFinish={search}
    >
      <Form.Item name="order_no" label={t('orderNo')} rules={[{ max: 32 }]}><Input allowClear style={{ width: 200 }} /></Form.Item>
      <Form.Item name="user_id" label={t('userId')} rules={[{ pattern: ID_RE, message: t('idRule') }]}><Input allowClear style={{ width: 110 }} inputMode="numeric" /></Form.Item>
      <Form.Item name="status" label={t('common:field.status')}>
        <Select allowClear style={{ width: 120 }} options={(['pending', 'paid', 'cancelled'] as const).map((s) => ({ value: s, label: t(`status.${s}`) }))} />
      </Form.Item>
      <Form.Item name="min_amount" label={t('minAmount')} rules={[{ validator: moneyRule(t('moneyRule')) }]}><Input allowClear style={{ width: 110 }} inputMode="decimal" /></Form.Item>
      <Form.Item
        name="max_amount"
        label={t('maxAmount')}
        dependencies={['min_amount']}
        rules={[{ validator: moneyRule(t('moneyRule')) }, ({ getFieldValue }) => ({
          validator: async (_, v: string | undefined) => {
            const min = parseCents(getFieldValue('min_amount') as string | undefined);
            const max = parseCents(v);
            if (min !== null && max !== null && min > max) throw new Error(t('amountOrder'));
          },
        })]}
      >
        <Input allowClear style={{ width: 110 }} inputMode="decimal" />
      </Form.Item>
      <Form.Item
        name="range"
        label={t('createdRange')}
        extra={t('rangeHint')}
        rules={[{
          validator: async (_, v: FilterValues['range']) => {
            if (v?.[0] && v[1] && rangeTooLong(v[0].format(DAY), v[1].format(DAY))) throw new Error(t('rangeTooLong'));
          },
        }]}
      >
        <DatePicker.RangePicker
          allowEmpty={[false, false]}
          disabledDate={(d, info) => !!info.from && outsideRange(d.format(DAY), info.from.format(DAY))}
        />
      </Form.Item>
      <FilterButtons onReset={() => setFilters({})} />
    </Form>
  );
});

const OrdersToolbar = memo(function OrdersToolbar({ onCreate, onImport }: { onCreate: (v: boolean) => void; onImport: (v: boolean) => void }) {
  const { t } = useTranslation(['orders', 'common']);
  const { can } = useAuth();
  const { params } = useListParams<QueryOfList<typeof ordersQuery>>();
  const f = params.filters;
  // The list's filters by the export's typed names, in its default order (the server's, as before).
  const exportQuery = (): ExportQuery => ({
    ...filtersFor<Omit<ExportQuery, 'order_by'>>(f, ['order_no', 'user_id', 'status', 'min_amount', 'max_amount', 'start_time', 'end_time']),
    order_by: 'id:desc',
  });
  return (
    <div className="list-toolbar">
      <Space>
        {can('order.create') && <Button type="primary" icon={<PlusOutlined />} onClick={() => onCreate(true)}>{t('common:action.create')}</Button>}
      </Space>
      <Space>
        {can('order.import') && <Button onClick={() => onImport(true)}>{t('common:action.import')}</Button>}
        {can('order.export') && (
          <ExportTask
            fileName="orders.csv"
            start={() => unwrap(api.POST('/api/admin/orders/export', { params: { query: exportQuery() }, body: {} }))}
          />
        )}
      </Space>
    </div>
  );
});

function OrdersTable({ onView, onPay, refresh }: { onView: (id: number) => void; onPay: (o: Order) => void; refresh: () => void }) {
  const { t } = useTranslation(['orders', 'common']);
  const table = useListTable();
  const { can } = useAuth();
  const run = useAction();
  const { params, filtered, setOrderBy, pagination } = useListParams<QueryOfList<typeof ordersQuery>>();
  const list = useQuery({ ...ordersQuery(params), placeholderData: keepPreviousData });
  const columns = useMemo((): ListColumn<Order>[] => {
    const cancel = (o: Order) =>
      void run(() => unwrap(api.PUT('/api/admin/orders/{id}', { params: { path: { id: String(o.id) } }, body: { status: 'cancelled' } })), t('cancelledDone')).then(refresh);
    const remove = (o: Order) =>
      void run(() => unwrap(api.DELETE('/api/admin/orders/{id}', { params: { path: { id: String(o.id) } } })), t('common:state.deleted')).then(refresh);
    return [
      { title: t('common:field.id'), dataIndex: 'id', width: 70 },
      {
        first: true, title: t('orderNo'), dataIndex: 'order_no', width: 250,
        render: (v: string, o) => (can('order.view') ? <Typography.Link onClick={() => onView(o.id)}>{v}</Typography.Link> : v),
      },
      { detail: true, title: t('userId'), dataIndex: 'user_id', width: 90 },
      {
        first: true, title: t('amount'), dataIndex: 'amount', align: 'right', sorter: true, width: 120,
        sortOrder: sortOrderOf(params.orderBy, 'amount'), render: (n: number) => money(n),
      },
      { first: true, title: t('common:field.status'), dataIndex: 'status', render: (s: string) => <Tag color={STATUS_COLORS[s]}>{t(`status.${s}`)}</Tag> },
      { title: t('common:field.createdAt'), dataIndex: 'created_at', width: 180, sorter: true, sortOrder: sortOrderOf(params.orderBy, 'created_at') },
      { detail: true, title: t('paidAt'), dataIndex: 'paid_at', width: 180, render: (v: string | null) => v ?? '—' },
      {
        title: t('common:field.actions'), key: 'actions', fixed: 'right', width: 280,
        render: (_: unknown, o) => (
          <Space size={0}>
            {can('order.view') && <Button type="link" size="small" onClick={() => onView(o.id)}>{t('common:action.view')}</Button>}
            {can('order.update') && o.status === 'pending' && (
              <>
                <Button type="link" size="small" onClick={() => onPay(o)}>{t('markPaid')}</Button>
                <ConfirmButton title={t('confirmCancel', { no: o.order_no })} onConfirm={() => cancel(o)} okText={t('cancelOrder')} cancelText={t('keepOrder')}>{t('cancelOrder')}</ConfirmButton>
              </>
            )}
            {can('order.delete') && (
              <ConfirmButton title={t('common:state.confirmDelete', { name: o.order_no })} onConfirm={() => remove(o)} danger>{t('common:action.delete')}</ConfirmButton>
            )}
          </Space>
        ),
      },
    ];
  }, [t, can, run, refresh, onView, onPay, params.orderBy]);
  return list.error ? <QueryError error={list.error} onRetry={() => void list.refetch()} /> : (
    <Table<Order>
      rowKey="id"
      loading={list.isFetching}
      dataSource={list.data?.list ?? []}
      locale={{ emptyText: filtered ? t('common:state.emptyFiltered') : t('common:state.empty') }}
      pagination={pagination(list.data?.total ?? 0, cappedPage(t, list.data))}
      onChange={(_p, _f, sorter) => {
        const s = sorter as SorterResult<Order>;
        const next = s.order ? `${String(s.field)}:${s.order === 'ascend' ? 'asc' : 'desc'}` : undefined;
        if (next !== params.orderBy) setOrderBy(next as typeof params.orderBy);
      }}
      {...table<Order>(columns)}
    />
  );
}

function sortOrderOf(orderBy: string | undefined, field: string): 'ascend' | 'descend' | null {
  if (!orderBy?.startsWith(`${field}:`)) return null;
  return orderBy.endsWith(':asc') ? 'ascend' : 'descend';
}

/** A form rule: empty, or money with at most 2 decimals. */
export const moneyRule = (message: string) => async (_: unknown, v: string | undefined) => {
  if (v !== undefined && v.trim() !== '' && parseCents(v) === null) throw new Error(message);
};
