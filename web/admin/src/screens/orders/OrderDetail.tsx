// One order in a drawer: its fields and its products (GET /orders/{id}).
import { useQuery } from '@tanstack/react-query';
import { Descriptions, Drawer, Skeleton, Table, Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { QueryError } from '../../../../shared/antd/feedback.tsx';
import { centsText, numberToCents } from './logic.ts';

const money = (n: number) => centsText(numberToCents(n));
const COLORS: Record<string, string> = { pending: 'gold', paid: 'green', cancelled: 'default' };

export function OrderDetail({ id, onClose }: { id: number; onClose: () => void }) {
  const { t } = useTranslation(['orders', 'common']);
  const q = useQuery({ queryKey: ['orders', 'one', id], queryFn: () => unwrap(api.GET('/api/admin/orders/{id}', { params: { path: { id: String(id) }, query: {} } })) });
  const o = q.data?.order;
  return (
    <Drawer open size="large" title={o ? t('detailTitle', { no: o.order_no }) : t('common:state.loading')} onClose={onClose}>
      {q.error ? <QueryError error={q.error} onRetry={() => void q.refetch()} /> : !q.data || !o ? <Skeleton active /> : (
        <>
          <Descriptions column={1} bordered size="small" style={{ marginBottom: 16 }}>
            <Descriptions.Item label={t('orderNo')}>{o.order_no}</Descriptions.Item>
            <Descriptions.Item label={t('common:field.status')}><Tag color={COLORS[o.status]}>{t(`status.${o.status}`)}</Tag></Descriptions.Item>
            <Descriptions.Item label={t('userId')}>{o.user_id}</Descriptions.Item>
            <Descriptions.Item label={t('amount')}>{money(o.amount)}</Descriptions.Item>
            <Descriptions.Item label={t('requestId')}>{o.request_id}</Descriptions.Item>
            <Descriptions.Item label={t('createdBy')}>{o.created_by_name ?? (o.created_by === null ? '—' : t('common:state.adminGone', { id: o.created_by }))}</Descriptions.Item>
            <Descriptions.Item label={t('common:field.createdAt')}>{o.created_at}</Descriptions.Item>
            <Descriptions.Item label={t('paidAt')}>{o.paid_at ?? '—'}</Descriptions.Item>
            <Descriptions.Item label={t('common:field.updatedAt')}>{o.updated_at}</Descriptions.Item>
          </Descriptions>
          <Table
            rowKey="id"
            size="small"
            title={() => t('details')}
            pagination={false}
            dataSource={q.data.details}
            locale={{ emptyText: t('common:state.empty') }}
            columns={[
              { title: t('productId'), dataIndex: 'product_id' },
              { title: t('productName'), dataIndex: 'product_name' },
              { title: t('price'), dataIndex: 'price', align: 'right', render: money },
              { title: t('quantity'), dataIndex: 'quantity', align: 'right' },
              { title: t('subtotal'), key: 'subtotal', align: 'right', render: (_: unknown, d) => centsText(numberToCents(d.price) * BigInt(d.quantity)) },
            ]}
          />
        </>
      )}
    </Drawer>
  );
}
