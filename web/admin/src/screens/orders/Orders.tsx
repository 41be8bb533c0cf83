// Orders: every filter of the contract in the URL (the created range refused over 3 calendar
// months before any request), the detail drawer, create with a live total in integer cents,
// pending → paid (choosing the payment method) or cancelled, delete, CSV import with its
// summary and error table, and export as a task.
import { PlusOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { Button, Card, Space, Tag, Typography } from 'antd';
import type { Rule } from 'antd/es/form';
import type { Dayjs } from 'dayjs';
import { memo, useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { useAuth } from '../../auth/auth.tsx';
import { ConfirmButton } from '../../components/ConfirmButton.tsx';
import { ExportTask } from '../../components/ExportTask.tsx';
import { useAction } from '../../../../shared/antd/feedback.tsx';
import { ListView, type Column } from '../../../../shared/antd/ListView.tsx';
import { filtersFor, type PageOf, type QueryOfList } from '../../../../shared/list/params.ts';
import type { paths } from '../../api/schema.gen.ts';
import { useList, useListParams } from '../../../../shared/list/useList.ts';
import { addStrings } from '../../i18n/index.ts';
import { ImportOrders } from './ImportOrders.tsx';
import { centsText, numberToCents, outsideRange, parseCents, rangeTooLong } from './logic.ts';
import { OrderDetail } from './OrderDetail.tsx';
import { OrderForm } from './OrderForm.tsx';
import { PayOrder } from './PayOrder.tsx';
import { strings } from './strings.ts';
import { ordersQuery } from './query.ts';

addStrings('orders', strings);

export type Order = PageOf<typeof ordersQuery>['list'][number];
type Query = QueryOfList<typeof ordersQuery>;
type ExportQuery = NonNullable<paths['/api/admin/orders/export']['post']['parameters']['query']>;

const DAY = 'YYYY-MM-DD';
const ID_RE = /^[1-9]\d{0,15}$/;
export const STATUS_COLORS: Record<string, string> = { pending: 'gold', paid: 'green', cancelled: 'default' };
export const money = (n: number) => centsText(numberToCents(n));

export default function Orders() {
  const { t } = useTranslation(['orders', 'common']);
  const { can } = useAuth();
  const run = useAction();
  const queryClient = useQueryClient();
  const list = useList(ordersQuery);
  const [creating, setCreating] = useState(false);
  const [viewing, setViewing] = useState<number | null>(null);
  const [paying, setPaying] = useState<Order | null>(null);
  const [importing, setImporting] = useState(false);
  const refresh = useCallback(() => void queryClient.invalidateQueries({ queryKey: ordersQuery.key }), [queryClient]);
  // The columns (and so the filter form) stay the same objects while pages of rows arrive, so that
  // a page renders the table alone.
  const columns = useMemo((): Column<Order, Query>[] => {
    const cancel = (o: Order) =>
      void run(() => unwrap(api.PUT('/api/admin/orders/{id}', { params: { path: { id: String(o.id) } }, body: { status: 'cancelled' } })), t('cancelledDone')).then(refresh);
    const remove = (o: Order) =>
      void run(() => unwrap(api.DELETE('/api/admin/orders/{id}', { params: { path: { id: String(o.id) } } })), t('common:state.deleted')).then(refresh);
    const amount = (key: 'min_amount' | 'max_amount', label: string, order: number, rules: Rule[] = []) => ({
      kind: 'text' as const, key, label, order, width: 110, inputMode: 'decimal' as const, rules: [{ validator: moneyRule(t('moneyRule')) }, ...rules],
    });
    return [
      { title: t('common:field.id'), dataIndex: 'id', width: 70 },
      {
        first: true, title: t('orderNo'), dataIndex: 'order_no', width: 250, filter: { kind: 'text', key: 'order_no', max: 32, width: 200, order: 0 },
        render: (v: string, o) => (can('order.view') ? <Typography.Link onClick={() => setViewing(o.id)}>{v}</Typography.Link> : v),
      },
      {
        detail: true, title: t('userId'), dataIndex: 'user_id', width: 90,
        filter: { kind: 'text', key: 'user_id', width: 110, inputMode: 'numeric', rules: [{ pattern: ID_RE, message: t('idRule') }], order: 1 },
      },
      {
        first: true, title: t('amount'), dataIndex: 'amount', align: 'right', sort: 'amount', width: 120, render: (n: number) => money(n),
        filter: amount('min_amount', t('minAmount'), 3),
      },
      {
        title: t('maxAmount'), hideInTable: true,
        filter: {
          ...amount('max_amount', t('maxAmount'), 4, [({ getFieldValue }) => ({
            validator: async (_, v: string | undefined) => {
              const min = parseCents(getFieldValue('min_amount') as string | undefined);
              const max = parseCents(v);
              if (min !== null && max !== null && min > max) throw new Error(t('amountOrder'));
            },
          })]),
          dependencies: ['min_amount'],
        },
      },
      {
        first: true, title: t('common:field.status'), dataIndex: 'status', render: (s: string) => <Tag color={STATUS_COLORS[s]}>{t(`status.${s}`)}</Tag>,
        filter: { kind: 'select', key: 'status', options: (['pending', 'paid', 'cancelled'] as const).map((s) => ({ value: s, label: t(`status.${s}`) })), order: 2 },
      },
      {
        title: t('common:field.createdAt'), dataIndex: 'created_at', width: 180, sort: 'created_at',
        // Whole days, at most 3 calendar months (the server's rule), refused before any request.
        filter: {
          kind: 'dateRange', keys: ['start_time', 'end_time'], wholeDays: true, label: t('createdRange'), extra: t('rangeHint'), order: 5,
          rules: [{
            validator: async (_, v: [Dayjs | null, Dayjs | null] | null | undefined) => {
              if (v?.[0] && v[1] && rangeTooLong(v[0].format(DAY), v[1].format(DAY))) throw new Error(t('rangeTooLong'));
            },
          }],
          disabledDate: (d, info) => !!info.from && outsideRange(d.format(DAY), info.from.format(DAY)),
        },
      },
      { detail: true, title: t('paidAt'), dataIndex: 'paid_at', width: 180, render: (v: string | null) => v ?? '—' },
      {
        title: t('common:field.actions'), key: 'actions', fixed: 'right', width: 280,
        render: (_: unknown, o) => (
          <Space size={0}>
            {can('order.view') && <Button type="link" size="small" onClick={() => setViewing(o.id)}>{t('common:action.view')}</Button>}
            {can('order.update') && o.status === 'pending' && (
              <>
                <Button type="link" size="small" onClick={() => setPaying(o)}>{t('markPaid')}</Button>
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
  }, [t, can, run, refresh]);
  return (
    <Card>
      <ListView name="orderFilters" list={list} columns={columns} toolbar={<OrdersToolbar onCreate={setCreating} onImport={setImporting} />} />
      {creating && <OrderForm onClose={(saved) => { setCreating(false); if (saved) refresh(); }} />}
      {viewing !== null && <OrderDetail id={viewing} onClose={() => setViewing(null)} />}
      {paying && <PayOrder order={paying} onClose={(done) => { setPaying(null); if (done) refresh(); }} />}
      {importing && <ImportOrders onClose={(imported) => { setImporting(false); if (imported) refresh(); }} />}
    </Card>
  );
}

/** Create, import and export (of the list's filters); apart, so that a page of rows arriving does not render it. */
const OrdersToolbar = memo(function OrdersToolbar({ onCreate, onImport }: { onCreate: (v: boolean) => void; onImport: (v: boolean) => void }) {
  const { t } = useTranslation(['orders', 'common']);
  const { can } = useAuth();
  const { filters } = useListParams<Query>();
  // The list's filters by the export's typed names, in its default order (the server's, as before).
  const exportQuery = (): ExportQuery => ({
    ...filtersFor<Omit<ExportQuery, 'order_by'>>(filters, ['order_no', 'user_id', 'status', 'min_amount', 'max_amount', 'start_time', 'end_time']),
    order_by: 'id:desc',
  });
  return (
    <>
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
    </>
  );
});

/** A form rule: empty, or money with at most 2 decimals. */
export const moneyRule = (message: string) => async (_: unknown, v: string | undefined) => {
  if (v !== undefined && v.trim() !== '' && parseCents(v) === null) throw new Error(message);
};
