// Changing one's own password: the current one, the new one twice, and what the password policy
// asks of it (GET /password/policy), so that a refusal is rarely needed; when the server refuses
// one anyway, its words name the rule, next to the field. Used on the profile, and in the step
// after sign-in when someone else set the password or it expired.
import { useQuery } from '@tanstack/react-query';
import { Button, Form, Input, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { api, unwrap, type Body } from '../api/client.ts';
import { ApiError, plainMessage } from '../api/errors.ts';
import { useSave } from '../../../shared/antd/useSave.ts';
import { addStrings } from '../i18n/index.ts';
import { strings } from './passwordStrings.ts';

addStrings('password', strings);

type Values = Body<'/api/admin/password', 'put'>;
const FIELDS = ['old_password', 'password_confirmation', 'password'] as const;

/** A new password the password policy refuses (the message names the rule). */
export const PASSWORD_REFUSED = 30007;

/** The password policy's refusal, next to the field of the new password. */
export function policyRefusal<N extends string>(name: N) {
  return (err: unknown): { name: N; errors: string[] }[] => (err instanceof ApiError && err.code === PASSWORD_REFUSED ? [{ name, errors: [err.message] }] : []);
}

/**
 * The field a refusal is about: the policy's, the new password; where the server names it in its
 * message (`old_password is incorrect`) rather than as `body.…`, that one; one that names a field
 * goes by the kit's usual mapping.
 */
function fieldErrors(err: unknown): { name: (typeof FIELDS)[number]; errors: string[] }[] {
  const refused = policyRefusal('password' as const)(err);
  if (refused.length > 0 || !(err instanceof ApiError) || err.field || err.code !== 30001) return refused;
  const name = FIELDS.find((f) => new RegExp(`\\b${f}\\b`).test(err.message));
  return name ? [{ name, errors: [plainMessage(err)] }] : [];
}

/** What the policy asks of a new password (the password policy screen makes it stale when it saves). */
export const passwordRulesQuery = { queryKey: ['password-rules'], queryFn: () => unwrap(api.GET('/api/admin/password/policy')), staleTime: 60_000 };

/** What the policy asks of a new password, in words. */
function PasswordRules() {
  const { t } = useTranslation('password');
  const rules = useQuery(passwordRulesQuery);
  const r = rules.data;
  if (!r) return null;
  const items = [
    t('ruleLength', { count: r.min_length }),
    t('ruleClasses', { count: r.min_classes }),
    ...(r.reject_common ? [t('ruleCommon')] : []),
    ...(r.reject_username ? [t('ruleUsername')] : []),
    r.history > 1 ? t('ruleHistory', { count: r.history }) : t('ruleCurrent'),
  ];
  return (
    <div className="password-rules">
      <Typography.Text type="secondary">{t('rulesTitle')}</Typography.Text>
      <ul>{items.map((item) => <li key={item}>{item}</li>)}</ul>
      {r.max_age_days > 0 && <Typography.Text type="secondary">{t('ruleAge', { count: r.max_age_days })}</Typography.Text>}
    </div>
  );
}

export function ChangePassword({ onChanged }: { onChanged?: () => void }) {
  const { t } = useTranslation('password');
  const [form] = Form.useForm<Values>();
  const rules = useQuery(passwordRulesQuery);
  const min = rules.data?.min_length ?? 8;
  const { submit, isPending } = useSave(form, {
    save: (v: Values) => unwrap(api.PUT('/api/admin/password', { body: v })),
    success: t('changed'),
    fieldsOf: fieldErrors,
    onSaved: () => {
      form.resetFields();
      onChanged?.();
    },
  });
  return (
    <Form<Values> form={form} name="change-password" layout="vertical" onFinish={submit} style={{ maxWidth: 420 }}>
      <Form.Item name="old_password" label={t('oldPassword')} rules={[{ required: true, max: 128, message: t('required') }]}>
        <Input.Password autoComplete="current-password" />
      </Form.Item>
      <Form.Item
        name="password"
        label={t('newPassword')}
        dependencies={['old_password']}
        extra={<PasswordRules />}
        rules={[
          { required: true, message: t('required') },
          { min, max: 128, message: t('tooShort', { count: min }) },
          ({ getFieldValue }) => ({ validator: (_, v: string) => (v && v === getFieldValue('old_password') ? Promise.reject(new Error(t('sameAsOld'))) : Promise.resolve()) }),
        ]}
      >
        <Input.Password autoComplete="new-password" />
      </Form.Item>
      <Form.Item
        name="password_confirmation"
        label={t('confirmPassword')}
        dependencies={['password']}
        rules={[
          { required: true, max: 128, message: t('required') },
          ({ getFieldValue }) => ({ validator: (_, v: string) => (!v || v === getFieldValue('password') ? Promise.resolve() : Promise.reject(new Error(t('mismatch')))) }),
        ]}
      >
        <Input.Password autoComplete="new-password" />
      </Form.Item>
      <Button type="primary" htmlType="submit" loading={isPending}>{t('submit')}</Button>
    </Form>
  );
}
