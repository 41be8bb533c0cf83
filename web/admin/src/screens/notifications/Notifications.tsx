// Notifications: the administrator's own list (read/unread filter and page in the URL), mark one
// or all read, and, for holders of notification.send, sending one to chosen administrators, the
// members of a role, or everyone.
import { SendOutlined } from '@ant-design/icons';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge, Button, Card, Form, Input, Modal, Radio, Segmented, Select, Space, Table, Tag, Typography } from 'antd';
import dayjs from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { useAuth } from '../../auth/auth.tsx';
import { fieldErrorsOf } from '../../../../shared/feedback.ts';
import { QueryError, useAction } from '../../../../shared/antd/feedback.tsx';
import type { QueryOfList } from '../../../../shared/list/params.ts';
import { useListParams } from '../../../../shared/list/useList.ts';
import { addStrings } from '../../i18n/index.ts';
import { DownloadLink } from './DownloadLink.tsx';
import { strings } from './strings.ts';
import { type listNotifications, notificationsQuery } from './query.ts';
import { useListTable } from '../../../../shared/antd/listTable.tsx';

addStrings('notifications', strings);

type Notification = Awaited<ReturnType<typeof listNotifications>>['list'][number];
const when = (iso: string | null) => (iso ? dayjs(iso).format('YYYY-MM-DD HH:mm:ss') : '—');

export default function Notifications() {
  const { t } = useTranslation(['notifications', 'common']);
  const table = useListTable();
  const { can } = useAuth();
  const run = useAction();
  const queryClient = useQueryClient();
  const { params, setFilters, pagination } = useListParams<QueryOfList<typeof notificationsQuery>>();
  const [sending, setSending] = useState(false);
  const f = params.filters;
  const list = useQuery({ ...notificationsQuery(params), placeholderData: keepPreviousData });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['notifications'] });

  const markRead = (n: Notification) =>
    void run(() => unwrap(api.PUT('/api/admin/notifications/{id}/read', { params: { path: { id: n.id } } })), t('common:state.done')).then(refresh);
  const markAll = () => void run(() => unwrap(api.PUT('/api/admin/notifications/read-all')), t('common:state.done')).then(refresh);

  return (
    <Card>
      <div className="list-toolbar">
        <Space wrap>
          <Segmented
            aria-label={t('state')}
            value={f.is_read ?? ''}
            onChange={(v) => setFilters({ ...f, is_read: v === '' ? undefined : String(v) })}
            options={[{ value: '', label: t('all') }, { value: '0', label: t('unread') }, { value: '1', label: t('readState') }]}
          />
          <Typography.Text type="secondary">{t('bell', { count: list.data?.unread ?? 0 })}</Typography.Text>
        </Space>
        <Space>
          <Button onClick={markAll} disabled={(list.data?.unread ?? 0) === 0}>{t('readAll')}</Button>
          {can('notification.send') && <Button type="primary" icon={<SendOutlined />} onClick={() => setSending(true)}>{t('send')}</Button>}
        </Space>
      </div>
      {list.error ? <QueryError error={list.error} onRetry={() => void list.refetch()} /> : (
        <Table<Notification>
          rowKey="id"
          loading={list.isFetching}
          dataSource={list.data?.list ?? []}
          locale={{ emptyText: Object.keys(f).length > 0 ? t('common:state.emptyFiltered') : t('none') }}
          pagination={pagination(list.data?.total ?? 0)}
          {...table<Notification>([
            {
              title: t('title'), dataIndex: 'title', width: 240,
              render: (v: string, n) => <Space><Badge status={n.is_read ? 'default' : 'processing'} /><Typography.Text strong={!n.is_read}>{v}</Typography.Text></Space>,
            },
            { title: t('content'), dataIndex: 'content', render: (v: string, n) => (
                <>
                  <Typography.Paragraph className="cell-wrap" ellipsis={{ rows: 2, expandable: true }} style={{ marginBottom: 0 }}>{v}</Typography.Paragraph>
                  <DownloadLink n={n} />
                </>
              ),
            },
            { title: t('kind'), dataIndex: 'kind', width: 100, render: (k: string) => <Tag>{t(`kinds.${k}`, { defaultValue: k })}</Tag> },
            { title: t('sentAt'), dataIndex: 'created_at', width: 170, render: when },
            { title: t('readAt'), dataIndex: 'read_at', width: 170, render: when },
            {
              title: t('common:field.actions'), key: 'actions', width: 120, fixed: 'right',
              render: (_: unknown, n) => (n.is_read ? null : <Button type="link" size="small" aria-label={`${t('read')}: ${n.title}`} onClick={() => markRead(n)}>{t('read')}</Button>),
            },
          ])}
        />
      )}
      {sending && <SendForm onClose={(sent) => { setSending(false); if (sent) refresh(); }} />}
    </Card>
  );
}

interface SendValues {
  title: string;
  content: string;
  audience: 'admins' | 'role' | 'all';
  admin_ids?: number[];
  role_id?: number;
}

function SendForm({ onClose }: { onClose: (sent: boolean) => void }) {
  const { t } = useTranslation(['notifications', 'common']);
  const [form] = Form.useForm<SendValues>();
  const audience = Form.useWatch('audience', form) ?? 'admins';
  const [search, setSearch] = useState('');
  const [busy, setBusy] = useState(false);
  const run = useAction();
  const admins = useQuery({
    queryKey: ['admins', 'pick', search],
    queryFn: () => unwrap(api.GET('/api/admin/admins', { params: { query: { page: 1, page_size: 50, order_by: 'id:desc', ...(search ? { username: search } : {}) } } })),
    placeholderData: keepPreviousData,
  });
  const roles = useQuery({ queryKey: ['roles', 'all'], queryFn: () => unwrap(api.GET('/api/admin/roles', { params: { query: { page: 1, page_size: 100 } } })), enabled: audience === 'role' });

  const send = async (v: SendValues) => {
    setBusy(true);
    const body = {
      title: v.title, content: v.content,
      ...(v.audience === 'admins' ? { admin_ids: v.admin_ids ?? [] } : v.audience === 'role' ? { role_id: v.role_id! } : { all: true }),
    };
    let failure: unknown;
    const ok = await run(async () => {
      try {
        await unwrap(api.POST('/api/admin/notifications', { body }));
      } catch (err) {
        failure = err;
        throw err;
      }
    }, t('common:state.done'));
    setBusy(false);
    if (ok) onClose(true);
    else form.setFields(fieldErrorsOf(failure, ['title', 'content', 'admin_ids', 'role_id'], t));
  };
  const notBlank = (msg: string, max: number) => [{ required: true, max, whitespace: true, message: msg }];

  return (
    <Modal open title={t('sendTitle')} onCancel={() => onClose(false)} onOk={() => form.submit()} okText={t('sendOk')} cancelText={t('common:action.cancel')} confirmLoading={busy} destroyOnHidden>
      <Form<SendValues> form={form} layout="vertical" initialValues={{ audience: 'admins' }} onFinish={(v) => void send(v)}>
        <Form.Item name="title" label={t('title')} rules={notBlank(t('titleRule'), 200)}><Input maxLength={200} showCount /></Form.Item>
        <Form.Item name="content" label={t('content')} rules={notBlank(t('contentRule'), 5000)}><Input.TextArea rows={4} maxLength={5000} showCount /></Form.Item>
        <Form.Item name="audience" label={t('audience')}>
          <Radio.Group optionType="button" options={[{ value: 'admins', label: t('toAdmins') }, { value: 'role', label: t('toRole') }, { value: 'all', label: t('toAll') }]} />
        </Form.Item>
        {audience === 'admins' && (
          <Form.Item name="admin_ids" label={t('admins')} rules={[{ required: true, type: 'array', min: 1, max: 1000, message: t('adminsRule') }]}>
            <Select
              mode="multiple"
              showSearch
              filterOption={false}
              onSearch={setSearch}
              loading={admins.isFetching}
              options={(admins.data?.list ?? []).map((a) => ({ value: a.id, label: a.nickname ? `${a.username} (${a.nickname})` : a.username }))}
            />
          </Form.Item>
        )}
        {audience === 'role' && (
          <Form.Item name="role_id" label={t('role')} rules={[{ required: true, message: t('roleRule') }]}>
            <Select loading={roles.isFetching} options={(roles.data?.list ?? []).map((r) => ({ value: r.id, label: r.name }))} />
          </Form.Item>
        )}
      </Form>
    </Modal>
  );
}
