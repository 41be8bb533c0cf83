// The signed-in administrator's own page: their profile (from /info), changing the password (with
// the password policy's rules: components/ChangePassword.tsx), turning the authenticator on (QR
// code and secret, then a code; the recovery codes shown once) or off (a code or a recovery code),
// how many recovery codes are left and new ones, and their own sessions (for holders of
// online.list), ending the others (online.kick).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Col, Descriptions, Form, Input, Popconfirm, Row, Segmented, Space, Table, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import { useAuth } from '../../auth/auth.tsx';
import { useAction, QueryError } from '../../../../shared/antd/feedback.tsx';
import { FormModal } from '../../../../shared/antd/FormModal.tsx';
import { useSave } from '../../../../shared/antd/useSave.ts';
import { AUTHENTICATOR_CODE_WRONG, AuthenticatorSetup } from '../../components/AuthenticatorSetup.tsx';
import { ChangePassword } from '../../components/ChangePassword.tsx';
import { RecoveryCodes } from '../../components/RecoveryCodes.tsx';
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
        <ChangePasswordCard />
      </Col>
      <Col xs={24} xl={12}>
        <Authenticator bound={profile.is_2fa_bound} username={profile.username} />
      </Col>
      {can('online.list') && (
        <Col xs={24}>
          <Sessions adminId={profile.id} username={profile.username} />
        </Col>
      )}
    </Row>
  );
}

function ChangePasswordCard() {
  const { t } = useTranslation(['profile', 'common']);
  return (
    <Card title={t('password')}>
      <Typography.Paragraph type="secondary">{t('passwordHint')}</Typography.Paragraph>
      <ChangePassword />
    </Card>
  );
}

/** A code as the unbinding and new recovery codes take it: six digits, or a recovery code (ten letters and digits). */
const CODE_OR_RECOVERY = /^\s*(\d{3}\s?\d{3}|[a-z0-9]{5}[\s-]*[a-z0-9]{5})\s*$/i;

/** A wrong code (or password) said next to the field that holds it, in words. */
const codeFieldErrors = <N extends 'code' | 'password'>(name: N) => (err: unknown): { name: N; errors: string[] }[] =>
  err instanceof ApiError && !err.field && (err.code === 30001 || err.code === AUTHENTICATOR_CODE_WRONG) ? [{ name, errors: [plainMessage(err)] }] : [];

function Authenticator({ bound, username }: { bound: boolean; username: string }) {
  const { t } = useTranslation(['profile', 'common']);
  const queryClient = useQueryClient();
  const [form] = Form.useForm<{ code: string }>();
  // New recovery codes, shown once (after binding, or after asking for new ones).
  const [codes, setCodes] = useState<string[] | null>(null);
  const [renewing, setRenewing] = useState(false);
  const status = useQuery({ queryKey: ['authenticator-status'], queryFn: () => unwrap(api.GET('/api/admin/google-authenticator/status')), enabled: bound });
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: ['profile'] });
    void queryClient.invalidateQueries({ queryKey: ['authenticator-status'] });
  };
  const { submit, isPending } = useSave(form, {
    save: ({ code }: { code: string }) => unwrap(api.POST('/api/admin/google-authenticator/unbind', { body: { code } })),
    success: t('unbound'),
    fieldsOf: codeFieldErrors('code'),
    onSaved: () => {
      form.resetFields();
      refresh();
    },
  });
  const left = status.data?.recovery_codes_left;

  return (
    <Card title={t('authenticator')} extra={bound ? <Tag color="green">{t('on')}</Tag> : <Tag>{t('off')}</Tag>}>
      {codes ? (
        <RecoveryCodes codes={codes} username={username} doneText={t('codesDone')} onDone={() => setCodes(null)} />
      ) : (
        <>
          <Typography.Paragraph>{bound ? t('authOn') : t('authOff')}</Typography.Paragraph>
          {bound ? (
            <>
              <Typography.Paragraph>
                <Space wrap>
                  <span>{t('codesLeftLabel')}</span>
                  {left === undefined ? '—' : <Tag color={left <= 2 ? 'orange' : 'default'} aria-label={t('codesLeft')}>{t('codesLeftCount', { count: left })}</Tag>}
                  <Button size="small" onClick={() => setRenewing(true)}>{t('newCodes')}</Button>
                </Space>
              </Typography.Paragraph>
              {left !== undefined && left <= 2 && <Alert type="warning" showIcon title={t('codesLow')} style={{ marginBottom: 12 }} />}
              <Typography.Paragraph type="secondary">{t('unbindHint')}</Typography.Paragraph>
              <Form form={form} layout="inline" onFinish={submit}>
                <Form.Item name="code" label={t('code')} rules={[{ required: true, pattern: CODE_OR_RECOVERY, message: t('codeOrRecoveryRule') }]}>
                  <Input autoComplete="one-time-code" maxLength={20} style={{ width: 150 }} />
                </Form.Item>
                <Button type="primary" htmlType="submit" danger loading={isPending}>{t('unbind')}</Button>
              </Form>
            </>
          ) : (
            <AuthenticatorSetup success={t('bound')} onBound={(made) => { setCodes(made); refresh(); }} />
          )}
        </>
      )}
      {renewing && <NewRecoveryCodes onClose={(made) => { setRenewing(false); if (made) { setCodes(made); refresh(); } }} />}
    </Card>
  );
}

type RenewValues = { proof: 'code' | 'password'; code?: string; password?: string };

/** New recovery codes, proven by the authenticator's code (or a recovery code) or by the password. */
function NewRecoveryCodes({ onClose }: { onClose: (codes?: string[]) => void }) {
  const { t } = useTranslation(['profile', 'common']);
  const [form] = Form.useForm<RenewValues>();
  const proof = Form.useWatch('proof', form) ?? 'code';
  const { submit, isPending } = useSave(form, {
    save: (v: RenewValues) => unwrap(api.POST('/api/admin/google-authenticator/recovery-codes', {
      body: v.proof === 'code' ? { code: v.code ?? '' } : { password: v.password ?? '' },
    })),
    success: t('codesMade'),
    fieldsOf: (err, v) => (v.proof === 'code' ? codeFieldErrors('code')(err) : codeFieldErrors('password')(err)),
    onSaved: (reply) => onClose(reply.recovery_codes),
  });
  return (
    <FormModal<RenewValues> form={form} name="recovery-codes" title={t('newCodes')} pending={isPending} onClose={() => onClose()} onFinish={submit}
      initialValues={{ proof: 'code' }} okText={t('makeCodes')}
      intro={<Typography.Paragraph type="secondary">{t('newCodesHint')}</Typography.Paragraph>}
    >
      <Form.Item name="proof" label={t('proveWith')}>
        <Segmented<'code' | 'password'> options={[{ value: 'code', label: t('code') }, { value: 'password', label: t('passwordProof') }]} />
      </Form.Item>
      {proof === 'code' ? (
        <Form.Item name="code" label={t('code')} rules={[{ required: true, pattern: CODE_OR_RECOVERY, message: t('codeOrRecoveryRule') }]}>
          <Input autoComplete="one-time-code" maxLength={20} />
        </Form.Item>
      ) : (
        <Form.Item name="password" label={t('passwordProof')} rules={[{ required: true, max: 128, message: t('required') }]}>
          <Input.Password autoComplete="current-password" />
        </Form.Item>
      )}
    </FormModal>
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
