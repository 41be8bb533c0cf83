// A new order: the customer, product rows added and removed, a live total computed in integer
// cents from the typed text (sent as the amount), and an optional idempotency key.
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { App, Button, Form, Input, Space, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import { FormModal } from '../../../../shared/antd/FormModal.tsx';
import { useSave } from '../../../../shared/antd/useSave.ts';
import { centsText, centsToNumber, lineCents, orderTotal, parseCents, parseQuantity, type ProductLine } from './logic.ts';

interface Line extends ProductLine {
  product_id?: string;
  product_name?: string;
}
interface Values {
  user_id: string;
  products: Line[];
  request_id?: string;
}

const ID_RE = /^[1-9]\d{0,15}$/;
const REQUEST_ID_RE = /^[\x21-\x7E]{1,64}$/;

export function OrderForm({ onClose }: { onClose: (saved: boolean) => void }) {
  const { t } = useTranslation(['orders', 'common']);
  const [form] = Form.useForm<Values>();
  const { message } = App.useApp();
  const lines = Form.useWatch('products', form) ?? [];
  const total = orderTotal(lines);

  const { submit, isPending } = useSave(form, {
    save: (v: Values) => unwrap(api.POST('/api/admin/orders', {
      body: {
        user_id: Number(v.user_id),
        amount: centsToNumber(orderTotal(v.products).cents),
        products: v.products.map((p) => ({
          product_id: Number(p.product_id), product_name: p.product_name!, price: centsToNumber(parseCents(p.price)!), quantity: parseQuantity(p.quantity)!,
        })),
        ...(v.request_id?.trim() ? { request_id: v.request_id.trim() } : {}),
      },
    })),
    success: false,
    // `products.0.price` → the field of that row; the amount (the total) → the products.
    fieldsOf: (err) => {
      if (!(err instanceof ApiError) || !err.field) return [];
      const [first, ...rest] = err.field.split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p));
      if (first === 'amount') return [{ name: 'products', errors: [err.message] }];
      return first === 'user_id' || first === 'request_id' || first === 'products' ? [{ name: [first, ...rest], errors: [err.message] }] : [];
    },
    onSaved: (created) => {
      void message.success(t('created', { no: created.order.order_no }));
      onClose(true);
    },
  });

  return (
    <FormModal form={form} width={860} title={t('createTitle')} pending={isPending} onClose={() => onClose(false)}
      name="newOrder"
      onFinish={(v) => orderTotal(v.products).complete && submit(v)}
      initialValues={{ products: [{}] }}
    >
      <Form.Item name="user_id" label={t('userId')} rules={[{ required: true, pattern: ID_RE, message: t('idRule') }]}>
        <Input inputMode="numeric" style={{ width: 200 }} />
      </Form.Item>
      <Typography.Text strong>{t('details')}</Typography.Text>
      <Form.List name="products" rules={[{ validator: async (_, v: unknown[]) => { if (!v?.length) throw new Error(t('productsRule')); } }]}>
        {(fields, { add, remove }, { errors }) => (
          <>
            {fields.map((field, i) => {
              const sub = lineCents(lines[i]);
              return (
                <Space key={field.key} align="start" wrap style={{ display: 'flex', marginTop: 8 }}>
                  <Form.Item name={[field.name, 'product_id']} label={`${t('productId')} ${i + 1}`} rules={[{ required: true, pattern: ID_RE, message: t('idRule') }]}>
                    <Input inputMode="numeric" style={{ width: 110 }} />
                  </Form.Item>
                  <Form.Item
                    name={[field.name, 'product_name']}
                    label={`${t('productName')} ${i + 1}`}
                    rules={[{ required: true, whitespace: true, message: t('nameRule') }, { max: 200, message: t('nameRule') }]}
                  >
                    <Input style={{ width: 220 }} />
                  </Form.Item>
                  <Form.Item
                    name={[field.name, 'price']}
                    label={`${t('price')} ${i + 1}`}
                    rules={[{ required: true, message: t('moneyRule') }, { validator: async (_, v: string | undefined) => { if (v && parseCents(v) === null) throw new Error(t('moneyRule')); } }]}
                  >
                    <Input inputMode="decimal" style={{ width: 120 }} />
                  </Form.Item>
                  <Form.Item
                    name={[field.name, 'quantity']}
                    label={`${t('quantity')} ${i + 1}`}
                    rules={[{ required: true, message: t('quantityRule') }, { validator: async (_, v: string | undefined) => { if (v && parseQuantity(v) === null) throw new Error(t('quantityRule')); } }]}
                  >
                    <Input inputMode="numeric" style={{ width: 90 }} />
                  </Form.Item>
                  <Form.Item label={t('subtotal')}>
                    <Typography.Text aria-label={`${t('subtotal')} ${i + 1}`} style={{ display: 'inline-block', minWidth: 90, textAlign: 'right' }}>{sub === null ? '—' : centsText(sub)}</Typography.Text>
                  </Form.Item>
                  <Form.Item label=" ">
                    <Button aria-label={t('removeProduct', { n: i + 1 })} icon={<DeleteOutlined />} disabled={fields.length === 1} onClick={() => remove(field.name)} />
                  </Form.Item>
                </Space>
              );
            })}
            <Form.ErrorList errors={errors} />
            <Button type="dashed" icon={<PlusOutlined />} onClick={() => add({})} style={{ marginBottom: 16 }}>{t('addProduct')}</Button>
          </>
        )}
      </Form.List>
      <div role="status" aria-label={t('total')} style={{ fontSize: 16, marginBottom: 16 }}>
        {t('total')}: <Typography.Text strong>{centsText(total.cents)}</Typography.Text>
        {!total.complete && <Typography.Text type="secondary"> ({t('totalIncomplete')})</Typography.Text>}
      </div>
      <Form.Item name="request_id" label={t('requestId')} extra={t('requestIdHint')} rules={[{ pattern: REQUEST_ID_RE, message: t('requestIdRule') }]}>
        <Input autoComplete="off" maxLength={64} />
      </Form.Item>
    </FormModal>
  );
}
