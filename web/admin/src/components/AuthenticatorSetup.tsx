// Binding an authenticator: a new secret as a QR code (and as text), then a code from the app.
// The binding's reply holds the recovery codes, handed to `onBound` to be shown once
// (RecoveryCodes). Used on the profile, and in the binding step a role that requires an
// authenticator leads to after sign-in.
import { App, Button, Form, Image, Input, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../api/client.ts';
import { ApiError, plainMessage } from '../api/errors.ts';
import { messageOf } from '../../../shared/feedback.ts';
import { useSave } from '../../../shared/antd/useSave.ts';
import { addStrings } from '../i18n/index.ts';
import { strings } from './authenticatorStrings.ts';

addStrings('authenticator', strings);

/** A wrong or reused authenticator code (the server's code since issue 27; 30001 before). */
export const AUTHENTICATOR_CODE_WRONG = 10010;

export function AuthenticatorSetup({ onBound, success }: { onBound: (codes: string[]) => void; success: string }) {
  const { t } = useTranslation('authenticator');
  const [form] = Form.useForm<{ code: string }>();
  const [pending, setPending] = useState<{ secret: string; qrcode: string } | null>(null);
  const [asking, setAsking] = useState(false);
  const { message } = App.useApp();

  // The QR code is its own answer: only a refusal is said in a toast.
  const setUp = () => {
    setAsking(true);
    unwrap(api.GET('/api/admin/google-authenticator/qrcode'))
      .then((q) => setPending({ secret: q.secret, qrcode: q.qrcode }), (err: unknown) => void message.error(messageOf(err, t)))
      .finally(() => setAsking(false));
  };
  const { submit, isPending } = useSave(form, {
    save: ({ code }: { code: string }) => unwrap(api.POST('/api/admin/google-authenticator/bind', { body: { secret: pending!.secret, code } })),
    success,
    // A wrong code is said next to the field, in words.
    fieldsOf: (err) => err instanceof ApiError && !err.field && (err.code === 30001 || err.code === AUTHENTICATOR_CODE_WRONG) ? [{ name: 'code', errors: [plainMessage(err)] }] : [],
    onSaved: (reply) => {
      setPending(null);
      form.resetFields();
      onBound(reply.recovery_codes);
    },
  });

  if (!pending) return <Button type="primary" loading={asking} onClick={setUp}>{t('setUp')}</Button>;
  return (
    <Space direction="vertical">
      <Typography.Text type="secondary">{t('scan')}</Typography.Text>
      <Image src={pending.qrcode} alt={t('qrAlt')} width={180} preview={false} />
      <Typography.Text>
        {t('secretLabel')} <Typography.Text code copyable aria-label={t('secret')} data-secret={pending.secret}>{pending.secret}</Typography.Text>
      </Typography.Text>
      <Form form={form} layout="inline" onFinish={submit}>
        <Form.Item name="code" label={t('code')} rules={[{ required: true, pattern: /^\d{6}$/, message: t('codeRule') }]}>
          <Input inputMode="numeric" maxLength={6} autoComplete="one-time-code" style={{ width: 120 }} />
        </Form.Item>
        <Button type="primary" htmlType="submit" loading={isPending}>{t('bind')}</Button>
      </Form>
    </Space>
  );
}
