// pending → paid: the administrator chooses the active payment method used (the default is the
// one the server would pick: the lowest sort, then id).
import { useQuery } from '@tanstack/react-query';
import { Alert, Descriptions, Form, Select } from 'antd';
import { useTranslation } from 'react-i18next';
import { QueryError } from '../../../../shared/antd/feedback.tsx';
import { FormModal } from '../../../../shared/antd/FormModal.tsx';
import { useSave } from '../../../../shared/antd/useSave.ts';
import { api, unwrap, type Body } from '../../api/client.ts';
import { centsText, numberToCents } from './logic.ts';
import type { Order } from './Orders.tsx';

type Values = Required<Pick<Body<'/api/admin/orders/{id}', 'put'>, 'payment_method_id'>>;

export function PayOrder({ order, onClose }: { order: Order; onClose: (done: boolean) => void }) {
  const { t } = useTranslation(['orders', 'common']);
  const [form] = Form.useForm<Values>();
  const methods = useQuery({
    queryKey: ['payment-methods', 'active'],
    queryFn: () => unwrap(api.GET('/api/admin/payment-methods', { params: { query: { page: 1, page_size: 100, is_active: '1', order_by: 'sort:asc' } } })),
  });
  const active = [...(methods.data?.list ?? [])].filter((m) => m.is_active).sort((a, b) => a.sort - b.sort || a.id - b.id);
  // The list is refreshed by the caller (onClose(true)).
  const { submit, isPending } = useSave(form, {
    save: ({ payment_method_id }: Values) => unwrap(api.PUT('/api/admin/orders/{id}', {
      params: { path: { id: String(order.id) } }, body: { status: 'paid', payment_method_id },
    })),
    success: t('paidDone'),
    fallback: 'payment_method_id',
    onSaved: () => onClose(true),
  });
  return (
    <FormModal form={form} title={t('payTitle', { no: order.order_no })} okText={t('markPaid')} okDisabled={active.length === 0} pending={isPending} onClose={() => onClose(false)}
      name="payOrder"
      onFinish={submit}
      formKey={active[0]?.id ?? 0}
      initialValues={{ payment_method_id: active[0]?.id }}
      intro={(
        <Descriptions column={1} size="small" style={{ marginBottom: 16 }}>
          <Descriptions.Item label={t('userId')}>{order.user_id}</Descriptions.Item>
          <Descriptions.Item label={t('amount')}>{centsText(numberToCents(order.amount))}</Descriptions.Item>
        </Descriptions>
      )}
    >
      {methods.error ? <QueryError error={methods.error} onRetry={() => void methods.refetch()} /> : methods.data && active.length === 0 ? (
        <Alert type="warning" showIcon title={t('noActiveMethod')} />
      ) : (
        <Form.Item name="payment_method_id" label={t('paymentMethod')} rules={[{ required: true }]}>
          <Select loading={methods.isLoading} options={active.map((m) => ({ value: m.id, label: `${m.name} (${m.code})` }))} />
        </Form.Item>
      )}
    </FormModal>
  );
}
