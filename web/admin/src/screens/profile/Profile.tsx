// The signed-in administrator's own page: their profile (from /info), changing the password,
// turning the authenticator on (QR code and secret, then a code) or off (a code), and their
// own sessions (for holders of online.list), ending the others (online.kick).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Col, Descriptions, Form, Image, Input, Popconfirm, Row, Space, Table, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap, type Body } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import { useAuth } from '../../auth/auth.tsx';
import { useAction, QueryError } from '../../../../shared/antd/feedback.tsx';
import { useSave } from '../../../../shared/antd/useSave.ts';
import { plainMessage } from '../../api/errors.ts';
import { addStrings } from '../../i18n/index.ts';
import { strings } from './strings.ts';
import { useListTable } from '../../../../shared/antd/listTable.tsx';

addStrings('profile', strings);

export default function Profile() {
  const { t } = useTranslation(['profile', 'common']);
  const { profile, can } = useAuth();
  if (!profile) return null;
  return (
    <Row gutter={[16, 16]}>
      <Col xs={24} xl={12}>
        <Card title={t('title')}>
          <Descriptions column={1} size="small" items={[
            { key: 'username', label: t('username'), children: profile.username },
            { key: 'nickname', label: t('nickname'), children: profile.nickname || '—' },
            { key: 'email', label: t('email'), children: profile.email || '—' },
            { key: 'phone', label: t('phone'), children: profile.phone || '—' },
            { key: 'department', label: t('department'), children: profile.department?.name ?? '—' },
            { key: 'roles', label: t('roles'), children: profile.roles.map((r) => <Tag key={r.id}>{r.name}</Tag>) },
            { key: '2fa', label: t('twoFactor'), children: profile.is_2fa_bound ? <Tag color="green">{t('on')}</Tag> : <Tag>{t('off')}</Tag> },
            { key: 'last', label: t('lastLogin'), children: profile.last_login_at ?? '—' },
          ]} />
        </Card>
      </Col>
      <Col xs={24} xl={12}>
        <ChangePassword />
      </Col>
      <Col xs={24} xl={12}>
        <Authenticator bound={profile.is_2fa_bound} />
      </Col>
      {can('online.list') && (
        <Col xs={24}>
          <Sessions adminId={profile.id} username={profile.username} />
        </Col>
      )}
    </Row>
  );
}

/** A wrong or reused authenticator code (the server's code since issue 27; 30001 before). */
const AUTHENTICATOR_CODE_WRONG = 10010;

const PASSWORD_FIELDS = ['old_password', 'password_confirmation', 'password'] as const;

/**
 * A refusal that names no field, where the server names it in its message (`old_password is
 * incorrect`) rather than as `body.…`; one that names a field goes by the kit's usual mapping.
 */
function passwordFieldErrors(err: unknown): { name: (typeof PASSWORD_FIELDS)[number]; errors: string[] }[] {
  if (!(err instanceof ApiError) || err.field || err.code !== 30001) return [];
  const name = PASSWORD_FIELDS.find((f) => new RegExp(`\\b${f}\\b`).test(err.message));
  return name ? [{ name, errors: [err.message] }] : [];
}

type PasswordValues = Body<'/api/admin/password', 'put'>;

function ChangePassword() {
  const { t } = useTranslation(['profile', 'common']);
  const [form] = Form.useForm<PasswordValues>();
  const { submit, isPending } = useSave(form, {
    save: (v: PasswordValues) => unwrap(api.PUT('/api/admin/password', { body: v })),
    fieldsOf: passwordFieldErrors,
    onSaved: () => form.resetFields(),
  });
  return (
    <Card title={t('password')}>
      <Typography.Paragraph type="secondary">{t('passwordHint')}</Typography.Paragraph>
      <Form<PasswordValues> form={form} layout="vertical" onFinish={submit} style={{ maxWidth: 420 }}>
        <Form.Item name="old_password" label={t('oldPassword')} rules={[{ required: true, max: 128, message: t('required') }]}>
          <Input.Password autoComplete="current-password" />
        </Form.Item>
        <Form.Item
          name="password"
          label={t('newPassword')}
          dependencies={['old_password']}
          rules={[
            { required: true, min: 8, max: 128, message: t('passwordRule') },
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
        <Button type="primary" htmlType="submit" loading={isPending}>{t('changePassword')}</Button>
      </Form>
    </Card>
  );
}

function Authenticator({ bound }: { bound: boolean }) {
  const { t } = useTranslation(['profile', 'common']);
  const queryClient = useQueryClient();
  const [form] = Form.useForm<{ code: string }>();
  const [pending, setPending] = useState<{ secret: string; qrcode: string } | null>(null);
  const run = useAction();
  const refreshProfile = () => void queryClient.invalidateQueries({ queryKey: ['profile'] });

  const setUp = () => void run(async () => {
    const q = await unwrap(api.GET('/api/admin/google-authenticator/qrcode'));
    setPending({ secret: q.secret, qrcode: q.qrcode });
  }, t('scan'));
  const { submit, isPending } = useSave(form, {
    save: ({ code }: { code: string }) => bound
      ? unwrap(api.POST('/api/admin/google-authenticator/unbind', { body: { code } }))
      : unwrap(api.POST('/api/admin/google-authenticator/bind', { body: { secret: pending!.secret, code } })),
    success: bound ? t('unbound') : t('bound'),
    // A wrong code is said next to the field, in words.
    fieldsOf: (err) => err instanceof ApiError && !err.field && (err.code === 30001 || err.code === AUTHENTICATOR_CODE_WRONG) ? [{ name: 'code', errors: [plainMessage(err)] }] : [],
    onSaved: () => {
      setPending(null);
      form.resetFields();
      refreshProfile();
    },
  });
  const codeField = (
    <Form form={form} layout="inline" onFinish={submit}>
      <Form.Item name="code" label={t('code')} rules={[{ required: true, pattern: /^\d{6}$/, message: t('codeRule') }]}>
        <Input inputMode="numeric" maxLength={6} autoComplete="one-time-code" style={{ width: 120 }} />
      </Form.Item>
      <Button type="primary" htmlType="submit" danger={bound} loading={isPending}>{bound ? t('unbind') : t('bind')}</Button>
    </Form>
  );

  return (
    <Card title={t('authenticator')} extra={bound ? <Tag color="green">{t('on')}</Tag> : <Tag>{t('off')}</Tag>}>
      <Typography.Paragraph>{bound ? t('authOn') : t('authOff')}</Typography.Paragraph>
      {bound ? (
        <>
          <Typography.Paragraph type="secondary">{t('unbindHint')}</Typography.Paragraph>
          {codeField}
        </>
      ) : pending ? (
        <Space direction="vertical">
          <Typography.Text type="secondary">{t('scan')}</Typography.Text>
          <Image src={pending.qrcode} alt={t('qrAlt')} width={180} preview={false} />
          <Typography.Text>
            {t('secret')}: <Typography.Text code copyable aria-label={t('secret')} data-secret={pending.secret}>{pending.secret}</Typography.Text>
          </Typography.Text>
          {codeField}
        </Space>
      ) : (
        <Button type="primary" onClick={setUp}>{t('setUp')}</Button>
      )}
    </Card>
  );
}

function Sessions({ adminId, username }: { adminId: number; username: string }) {
  const { t } = useTranslation(['profile', 'common']);
  const table = useListTable();
  const { can } = useAuth();
  const run = useAction();
  const queryClient = useQueryClient();
  const sessions = useQuery({
    queryKey: ['online', 'mine', adminId],
    queryFn: () => unwrap(api.GET('/api/admin/online-admins', { params: { query: { page: 1, page_size: 100, username } } })),
    select: (d) => d.list.filter((s) => s.admin_id === adminId),
  });
  type Session = NonNullable<typeof sessions.data>[number];
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['online'] });
  const others = (sessions.data ?? []).filter((s) => !s.is_current).map((s) => s.token_id);
  const end = (ids: number[]) =>
    void run(() => (ids.length === 1
      ? unwrap(api.DELETE('/api/admin/online-admins/{token_id}', { params: { path: { token_id: ids[0]! } } }))
      : unwrap(api.POST('/api/admin/online-admins/batch-kick-out', { body: { token_ids: ids } }))), t('common:state.done')).then(refresh);
  const mayKick = can('online.kick');

  return (
    <Card
      title={t('sessions')}
      extra={mayKick && others.length > 0 && (
        <Popconfirm title={t('confirmEndOthers')} onConfirm={() => end(others.slice(0, 100))}>
          <Button danger>{t('endOthers')}</Button>
        </Popconfirm>
      )}
    >
      {sessions.error ? <QueryError error={sessions.error} onRetry={() => void sessions.refetch()} /> : (
        <Table<Session>
          rowKey="token_id"
          size="small"
          loading={sessions.isFetching}
          dataSource={sessions.data ?? []}
          pagination={false}
          locale={{ emptyText: t('common:state.empty') }}
          {...table<Session>([
            { title: t('ip'), dataIndex: 'ip', width: 140, render: (ip: string, s) => <Space>{ip}{s.is_current && <Tag color="blue">{t('current')}</Tag>}</Space> },
            { title: t('agent'), dataIndex: 'user_agent', ellipsis: true },
            { title: t('loginAt'), dataIndex: 'login_at', width: 170 },
            { title: t('lastActive'), dataIndex: 'last_active_at', width: 170 },
            { title: t('expires'), dataIndex: 'expires_at', width: 170 },
            {
              title: t('common:field.actions'), key: 'actions', width: 90,
              render: (_: unknown, s) => (mayKick && !s.is_current ? (
                <Popconfirm title={t('confirmEnd')} onConfirm={() => end([s.token_id])}>
                  <Button type="link" size="small" danger aria-label={`${t('end')} ${s.ip}`}>{t('end')}</Button>
                </Popconfirm>
              ) : null),
            },
          ])}
        />
      )}
    </Card>
  );
}
