// Notifications: the administrator's own list (read/unread filter and page in the URL), mark one
// or all read, and, for holders of notification.send, sending one to chosen administrators, the
// members of a role, or everyone.
import { SendOutlined } from '@ant-design/icons';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Badge, Button, Card, Form, Input, Radio, Segmented, Select, Space, Tag, Typography } from 'antd';
import dayjs from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNarrow } from '../../../../shared/antd/DataList.tsx';
import { FormModal } from '../../../../shared/antd/FormModal.tsx';
import { ListView, type Column } from '../../../../shared/antd/ListView.tsx';
import { useSave } from '../../../../shared/antd/useSave.ts';
import type { PageOf } from '../../../../shared/list/params.ts';
import { useList } from '../../../../shared/list/useList.ts';
import { api, unwrap, type Body, type ListQuery } from '../../api/client.ts';
import { useAuth } from '../../auth/auth.tsx';
import { addStrings } from '../../i18n/index.ts';
import { DownloadLink } from './DownloadLink.tsx';
import { notificationsQuery } from './query.ts';
import { strings } from './strings.ts';
import { useChange } from '../../../../shared/antd/useChange.ts';

addStrings('notifications', strings);

type Notification = PageOf<typeof notificationsQuery>['list'][number];
const NOTIFICATIONS = ['notifications'];
const when = (iso: string | null) => (iso ? dayjs(iso).format('YYYY-MM-DD HH:mm:ss') : '—');

export default function Notifications() {
  const { t } = useTranslation(['notifications', 'common']);
  const { can } = useAuth();
  const { change } = useChange(NOTIFICATIONS);
  const list = useList(notificationsQuery);
  const [sending, setSending] = useState(false);
  const f = list.filters;
  const unread = list.query.data?.unread ?? 0;
  // The list and the bell's latest and unread count.

  const markRead = (n: Notification) =>
    void change(() => unwrap(api.PUT('/api/admin/notifications/{id}/read', { params: { path: { id: n.id } } })), t('common:state.done'));
  const markAll = () => void change(() => unwrap(api.PUT('/api/admin/notifications/read-all')), t('common:state.done'));
  // Who sent it: an administrator's message names them; the system's have no sender. On a phone,
  // under the title (a column of its own would be out of view, the table scrolling sideways).
  const narrow = useNarrow();
  const senderOf = (n: Notification) => n.sender_name ?? (n.kind === 'message' ? t('senderGone') : t('fromSystem'));

  const columns: Column<Notification, ListQuery<'/api/admin/notifications'>>[] = [
    {
      title: t('title'), dataIndex: 'title', width: 240,
      render: (v: string, n) => (
        <>
          <Space><Badge status={n.is_read ? 'default' : 'processing'} /><Typography.Text strong={!n.is_read}>{v}</Typography.Text></Space>
          {narrow && <Typography.Text type="secondary" style={{ display: 'block' }}>{t('from', { name: senderOf(n) })}</Typography.Text>}
        </>
      ),
    },
    { title: t('content'), dataIndex: 'content', render: (v: string, n) => (
        <>
          <Typography.Paragraph className="cell-wrap" ellipsis={{ rows: 2, expandable: true }} style={{ marginBottom: 0 }}>{v}</Typography.Paragraph>
          <DownloadLink n={n} />
        </>
      ),
    },
    { title: t('kind'), dataIndex: 'kind', width: 100, render: (k: string) => <Tag>{t(`kinds.${k}`, { defaultValue: k })}</Tag> },
    ...(narrow ? [] : [{ title: t('sender'), dataIndex: 'sender_name', width: 160, ellipsis: true, render: (_: unknown, n: Notification) => senderOf(n) }]),
    { title: t('sentAt'), dataIndex: 'created_at', width: 170, render: when },
    // In the row's detail below 1600 px, so that the sender's column leaves every other one in view at 1440 px.
    { detail: true, title: t('readAt'), dataIndex: 'read_at', width: 170, render: when },
    {
      title: t('common:field.actions'), key: 'actions', width: 120, fixed: 'right',
      render: (_: unknown, n) => (n.is_read ? null : <Button type="link" size="small" aria-label={`${t('read')}: ${n.title}`} onClick={() => markRead(n)}>{t('read')}</Button>),
    },
  ];

  return (
    <Card>
      <ListView
        list={list}
        columns={columns}
        empty={t('none')}
        toolbar={(
          <>
            <Space wrap>
              <Segmented
                aria-label={t('state')}
                value={f.is_read ?? ''}
                onChange={(v) => list.setFilters({ ...f, is_read: v === '' ? undefined : String(v) })}
                options={[{ value: '', label: t('all') }, { value: '0', label: t('unread') }, { value: '1', label: t('readState') }]}
              />
              <Typography.Text type="secondary">{t('bell', { count: unread })}</Typography.Text>
            </Space>
            <Space>
              <Button onClick={markAll} disabled={unread === 0}>{t('readAll')}</Button>
              {can('notification.send') && <Button type="primary" icon={<SendOutlined />} onClick={() => setSending(true)}>{t('send')}</Button>}
            </Space>
          </>
        )}
      />
      {sending && <SendForm onClose={() => setSending(false)} />}
    </Card>
  );
}

type SendBody = Body<'/api/admin/notifications', 'post'>;
/** The body's fields, and to whom: chosen administrators, a role's members, or everyone. */
type SendValues = Pick<SendBody, 'title' | 'content' | 'admin_ids' | 'role_id'> & { audience: 'admins' | 'role' | 'all' };

function SendForm({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation(['notifications', 'common']);
  const [form] = Form.useForm<SendValues>();
  const audience = Form.useWatch('audience', form) ?? 'admins';
  const [search, setSearch] = useState('');
  const admins = useQuery({
    queryKey: ['admins', 'pick', search],
    queryFn: () => unwrap(api.GET('/api/admin/admins', { params: { query: { page: 1, page_size: 50, order_by: 'id:desc', ...(search ? { username: search } : {}) } } })),
    placeholderData: keepPreviousData,
  });
  const roles = useQuery({ queryKey: ['roles', 'all'], queryFn: () => unwrap(api.GET('/api/admin/roles', { params: { query: { page: 1, page_size: 100 } } })), enabled: audience === 'role' });
  const { submit, isPending } = useSave(form, {
    save: ({ audience: to, title, content, admin_ids, role_id }: SendValues) => unwrap(api.POST('/api/admin/notifications', {
      body: { title, content, ...(to === 'admins' ? { admin_ids: admin_ids ?? [] } : to === 'role' ? { role_id: role_id! } : { all: true }) },
    })),
    success: t('common:state.done'),
    invalidates: [NOTIFICATIONS],
    onSaved: onClose,
  });
  const notBlank = (msg: string, max: number) => [{ required: true, max, whitespace: true, message: msg }];

  return (
    <FormModal form={form} title={t('sendTitle')} okText={t('sendOk')} pending={isPending} onClose={onClose}
      name="send-notification"
      initialValues={{ audience: 'admins' }}
      onFinish={submit}
    >
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
    </FormModal>
  );
}
