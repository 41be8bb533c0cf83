// pending → paid: the administrator chooses the active payment method used (the default is the
// one the server would pick: the lowest sort, then id).
import { useQuery } from '@tanstack/react-query';
import { Alert, Descriptions, Form, Modal, Select } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { QueryError, useAction } from '../../../../shared/antd/feedback.tsx';
import { centsText, numberToCents } from './logic.ts';
import type { Order } from './Orders.tsx';

export function PayOrder({ order, onClose }: { order: Order; onClose: (done: boolean) => void }) {
  const { t } = useTranslation(['orders', 'common']);
  const run = useAction();
  const [form] = Form.useForm<{ payment_method_id: number }>();
  const [busy, setBusy] = useState(false);
  const methods = useQuery({
    queryKey: ['payment-methods', 'active'],
    queryFn: () => unwrap(api.GET('/api/admin/payment-methods', { params: { query: { page: 1, page_size: 100, is_active: '1', order_by: 'sort:asc' } } })),
  });
  const active = [...(methods.data?.list ?? [])].filter((m) => m.is_active).sort((a, b) => a.sort - b.sort || a.id - b.id);
  const pay = async (v: { payment_method_id: number }) => {
    setBusy(true);
    const ok = await run(() => unwrap(api.PUT('/api/admin/orders/{id}', {
      params: { path: { id: String(order.id) } }, body: { status: 'paid', payment_method_id: v.payment_method_id },
    })), t('paidDone'));
    setBusy(false);
    if (ok) onClose(true);
  };
  return (
    <Modal
      open
      title={t('payTitle', { no: order.order_no })}
      onCancel={() => onClose(false)}
      onOk={() => form.submit()}
      okText={t('markPaid')}
      cancelText={t('common:action.cancel')}
      okButtonProps={{ disabled: active.length === 0 }}
      confirmLoading={busy}
      destroyOnHidden
    >
      <Descriptions column={1} size="small" style={{ marginBottom: 16 }}>
        <Descriptions.Item label={t('userId')}>{order.user_id}</Descriptions.Item>
        <Descriptions.Item label={t('amount')}>{centsText(numberToCents(order.amount))}</Descriptions.Item>
      </Descriptions>
      {methods.error ? <QueryError error={methods.error} onRetry={() => void methods.refetch()} /> : methods.data && active.length === 0 ? (
        <Alert type="warning" showIcon title={t('noActiveMethod')} />
      ) : (
        <Form form={form} name="payOrder" layout="vertical" onFinish={(v) => void pay(v)} key={active[0]?.id ?? 0} initialValues={{ payment_method_id: active[0]?.id }}>
          <Form.Item name="payment_method_id" label={t('paymentMethod')} rules={[{ required: true }]}>
            <Select loading={methods.isLoading} options={active.map((m) => ({ value: m.id, label: `${m.name} (${m.code})` }))} />
          </Form.Item>
        </Form>
      )}
    </Modal>
  );
}
