// The password and account policy: what a new password must be, how long it lasts, and when failed
// sign-ins lock an administrator. One form over GET/PUT /password-policy (every setting saved at
// once), read-only without `password_policy.update`.
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Divider, Form, InputNumber, Space, Switch, Typography } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { QueryError } from '../../../../shared/antd/feedback.tsx';
import { useSave } from '../../../../shared/antd/useSave.ts';
import { api, unwrap, type Body } from '../../api/client.ts';
import { useAuth } from '../../auth/auth.tsx';
import { passwordRulesQuery } from '../../components/ChangePassword.tsx';
import { addStrings } from '../../i18n/index.ts';
import { strings } from './strings.ts';

addStrings('passwordPolicy', strings);

type Values = Body<'/api/admin/password-policy', 'put'>;
const policyQuery = { queryKey: ['password-policy'], queryFn: () => unwrap(api.GET('/api/admin/password-policy')) };

/** A whole number between `min` and `max`, with its unit after it. */
function Count({ min, max, unit, value, onChange, disabled, id }: {
  min: number; max: number; unit: string; value?: number; onChange?: (v: number | null) => void; disabled?: boolean; id?: string;
}) {
  return (
    <Space.Compact>
      <InputNumber id={id} min={min} max={max} precision={0} value={value} onChange={onChange} disabled={disabled} style={{ width: 120 }} />
      <Space.Addon>{unit}</Space.Addon>
    </Space.Compact>
  );
}

export default function PasswordPolicy() {
  const { t } = useTranslation(['passwordPolicy', 'common']);
  const { can } = useAuth();
  const editable = can('password_policy.update');
  const policy = useQuery(policyQuery);
  const [form] = Form.useForm<Values>();
  const { submit, isPending } = useSave(form, {
    save: (v: Values) => unwrap(api.PUT('/api/admin/password-policy', { body: v })),
    invalidates: [policyQuery.queryKey, passwordRulesQuery.queryKey],
  });
  const data = policy.data;
  useEffect(() => {
    if (data) form.setFieldsValue(data);
  }, [data, form]);

  if (policy.error) return <QueryError error={policy.error} onRetry={() => void policy.refetch()} />;
  return (
    <Card title={t('title')} loading={!data}>
      <Typography.Paragraph type="secondary">{t('intro')}</Typography.Paragraph>
      {data && (
        <Typography.Paragraph type="secondary">
          {data.stored ? t('savedBy', { who: data.updated_by ?? t('someone'), when: data.updated_at }) : t('defaults')}
        </Typography.Paragraph>
      )}
      {!editable && <Alert type="info" showIcon title={t('readOnly')} style={{ marginBottom: 16 }} />}
      <Form<Values> form={form} name="password-policy" layout="vertical" onFinish={submit} disabled={!editable} style={{ maxWidth: 640 }}>
        <Divider titlePlacement="start">{t('passwords')}</Divider>
        <Form.Item name="min_length" label={t('minLength')} rules={[{ required: true }]}>
          <Count min={8} max={128} unit={t('minLengthUnit')} />
        </Form.Item>
        <Form.Item name="min_classes" label={t('minClasses')} extra={t('minClassesHint')} rules={[{ required: true }]}>
          <Count min={1} max={4} unit="/ 4" />
        </Form.Item>
        <Form.Item name="reject_common" label={t('rejectCommon')} valuePropName="checked"><Switch /></Form.Item>
        <Form.Item name="reject_username" label={t('rejectUsername')} valuePropName="checked"><Switch /></Form.Item>
        <Form.Item name="history" label={t('history')} extra={t('historyHint')} rules={[{ required: true }]}>
          <InputNumber min={0} max={24} precision={0} style={{ width: 120 }} />
        </Form.Item>
        <Divider titlePlacement="start">{t('expiry')}</Divider>
        <Form.Item name="max_age_days" label={t('maxAgeDays')} extra={t('maxAgeHint')} rules={[{ required: true }]}>
          <Count min={0} max={3650} unit={t('days')} />
        </Form.Item>
        <Divider titlePlacement="start">{t('lockout')}</Divider>
        <Form.Item name="lock_max_failures" label={t('lockMaxFailures')} rules={[{ required: true }]}>
          <Count min={1} max={100} unit={t('failures')} />
        </Form.Item>
        <Form.Item name="lock_seconds" label={t('lockSeconds')} extra={t('lockHint')} rules={[{ required: true }]}>
          <Count min={1} max={86_400} unit={t('seconds')} />
        </Form.Item>
        {editable && <Button type="primary" htmlType="submit" loading={isPending}>{t('save')}</Button>}
      </Form>
    </Card>
  );
}
