// Administrators: every filter of the contract (in the URL), the department tree beside the
// list, create and edit (roles, department), enable/disable, reset password, unbind another
// administrator's authenticator, delete (protected accounts shown as such), and export as a task.
import { PlusOutlined, SafetyCertificateOutlined } from '@ant-design/icons';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Col, DatePicker, Form, Input, Modal, Popconfirm, Row, Select, Space, Switch, Table, Tag, Tree, TreeSelect, Typography } from 'antd';
import dayjs from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { useAuth } from '../../auth/auth.tsx';
import { ExportTask } from '../../components/ExportTask.tsx';
import { fieldErrors, QueryError, useAction } from '../../components/feedback.tsx';
import { useListParams } from '../../components/listParams.ts';
import { addStrings } from '../../i18n/index.ts';
import { strings } from './strings.ts';
import { FilterButtons } from '../../components/FilterButtons.tsx';
import { type listAdmins, adminsQuery } from './query.ts';
import { useListTable } from '../../components/listTable.tsx';

addStrings('admins', strings);

type Admin = Awaited<ReturnType<typeof listAdmins>>['list'][number];
type Department = { id: number; name: string; children?: Department[] };

const TIME = 'YYYY-MM-DD HH:mm:ss';

interface TreeNode {
  key: string;
  title: string;
  children: TreeNode[];
}
const treeOf = (nodes: Department[]): TreeNode[] => nodes.map((d) => ({ key: String(d.id), title: d.name, children: treeOf(d.children ?? []) }));

export default function Admins() {
  const { t } = useTranslation(['admins', 'common']);
  const table = useListTable();
  const { can, profile } = useAuth();
  const run = useAction();
  const queryClient = useQueryClient();
  const { params, setFilters, pagination } = useListParams();
  const [editing, setEditing] = useState<Admin | 'new' | null>(null);
  const [resetting, setResetting] = useState<Admin | null>(null);
  const [unbinding, setUnbinding] = useState<Admin | null>(null);

  const list = useQuery({ ...adminsQuery(params), placeholderData: keepPreviousData });
  const departments = useQuery({ queryKey: ['departments'], queryFn: () => unwrap(api.GET('/api/admin/departments', { params: { query: {} } })) });
  const roles = useQuery({ queryKey: ['roles', 'all'], queryFn: () => unwrap(api.GET('/api/admin/roles', { params: { query: { page: 1, page_size: 100 } } })) });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['admins'] });
  const f = params.filters;

  const setStatus = (a: Admin, status: 0 | 1) =>
    void run(() => unwrap(api.PUT('/api/admin/admins/{id}', { params: { path: { id: a.id } }, body: { status } })), t('common:state.saved')).then(refresh);
  const remove = (a: Admin) =>
    void run(() => unwrap(api.DELETE('/api/admin/admins/{id}', { params: { path: { id: a.id } } })), t('common:state.deleted')).then(refresh);
  const isProtected = (a: Admin) => a.roles.some((r) => r.slug === 'super_admin');
  const self = (a: Admin) => a.id === profile?.id;

  return (
    <Row gutter={16}>
      <Col xs={24} lg={5} xl={4}>
        <Card size="small" title={t('departments')}>
          <Tree
            aria-label={t('departments')}
            treeData={treeOf((departments.data?.list ?? []))}
            selectedKeys={f.department_id ? [f.department_id] : []}
            onSelect={(keys) => setFilters({ ...f, department_id: keys[0] as string | undefined })}
            defaultExpandAll
          />
        </Card>
      </Col>
      <Col xs={24} lg={19} xl={20}>
        <Card>
          <Form
            name="admin-filters"
            className="list-filters"
            layout="inline"
            key={JSON.stringify(f)}
            initialValues={{ ...f, status: f.status, range: f.start_time && f.end_time ? [dayjs(f.start_time), dayjs(f.end_time)] : undefined }}
            onFinish={(v: Record<string, unknown>) => {
              const range = v.range as [dayjs.Dayjs, dayjs.Dayjs] | undefined;
              setFilters({
                username: v.username as string, nickname: v.nickname as string, status: v.status as string | undefined,
                role_id: v.role_id as string | undefined, department_id: f.department_id,
                start_time: range?.[0]?.format(TIME), end_time: range?.[1]?.format(TIME),
              });
            }}
          >
            <Form.Item name="username" label={t('username')}><Input allowClear /></Form.Item>
            <Form.Item name="nickname" label={t('nickname')}><Input allowClear /></Form.Item>
            <Form.Item name="status" label={t('common:field.status')}>
              <Select allowClear style={{ width: 110 }} options={[{ value: '1', label: t('common:field.enabled') }, { value: '0', label: t('common:field.disabled') }]} />
            </Form.Item>
            <Form.Item name="role_id" label={t('roles')}>
              <Select allowClear style={{ width: 160 }} options={(roles.data?.list ?? []).map((r) => ({ value: String(r.id), label: r.name }))} />
            </Form.Item>
            <Form.Item name="range" label={t('common:field.createdAt')}><DatePicker.RangePicker showTime /></Form.Item>
            <FilterButtons onReset={() => setFilters({})} />
          </Form>
          <div className="list-toolbar">
            <Space>
              {can('admin.create') && <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing('new')}>{t('common:action.create')}</Button>}
            </Space>
            <Space>
              {can('admin.export') && (
                <ExportTask
                  fileName="administrators.csv"
                  start={() => unwrap(api.POST('/api/admin/admins/export', { body: Object.fromEntries(Object.entries(f).filter(([k]) => ['username', 'nickname', 'status', 'role_id', 'department_id', 'start_time', 'end_time'].includes(k))) as never }))}
                />
              )}
            </Space>
          </div>
          {list.error ? <QueryError error={list.error} onRetry={() => void list.refetch()} /> : (
            <Table<Admin>
              rowKey="id"
              loading={list.isFetching}
              dataSource={list.data?.list ?? []}
              locale={{ emptyText: Object.keys(f).length > 0 ? t('common:state.emptyFiltered') : t('common:state.empty') }}
              pagination={pagination(list.data?.total ?? 0)}
              {...table<Admin>([
                { title: t('common:field.id'), dataIndex: 'id', width: 70 },
                {
                  first: true, title: t('username'), dataIndex: 'username',
                  render: (v: string, a) => <Space>{v}{isProtected(a) && <Tag color="gold" icon={<SafetyCertificateOutlined />}>{t('protected')}</Tag>}</Space>,
                },
                { detail: true, title: t('nickname'), dataIndex: 'nickname' },
                { detail: true, title: t('department'), render: (_: unknown, a) => a.department?.name ?? '—' },
                { title: t('roles'), render: (_: unknown, a) => a.roles.map((r) => <Tag key={r.id}>{r.name}</Tag>) },
                { detail: true, title: t('twoFactor'), dataIndex: 'is_2fa_bound', render: (b: boolean) => (b ? <Tag color="green">{t('bound')}</Tag> : <Tag>{t('notBound')}</Tag>) },
                {
                  title: t('common:field.status'), dataIndex: 'status',
                  render: (s: number, a) => (
                    <Switch
                      size="small"
                      checked={s === 1}
                      aria-label={`${t('common:field.status')} ${a.username}`}
                      disabled={!can('admin.update') || self(a) || isProtected(a)}
                      onChange={(on) => setStatus(a, on ? 1 : 0)}
                    />
                  ),
                },
                { detail: true, title: t('lastLogin'), dataIndex: 'last_login_at', render: (v: string | null) => v ?? '—' },
                {
                  title: t('common:field.actions'), key: 'actions', fixed: 'right', width: 260,
                  render: (_: unknown, a) => (
                    <Space size={0}>
                      {can('admin.update') && <Button type="link" size="small" onClick={() => setEditing(a)}>{t('common:action.edit')}</Button>}
                      {can('admin.reset_password') && !self(a) && <Button type="link" size="small" onClick={() => setResetting(a)}>{t('resetPassword')}</Button>}
                      {can('admin.unbind_2fa') && a.is_2fa_bound && !self(a) && <Button type="link" size="small" onClick={() => setUnbinding(a)}>{t('unbind')}</Button>}
                      {can('admin.delete') && !self(a) && !isProtected(a) && (
                        <Popconfirm title={t('common:state.confirmDelete', { name: a.username })} onConfirm={() => remove(a)}>
                          <Button type="link" size="small" danger>{t('common:action.delete')}</Button>
                        </Popconfirm>
                      )}
                    </Space>
                  ),
                },
              ])}
            />
          )}
        </Card>
      </Col>
      {editing && (
        <AdminForm
          admin={editing === 'new' ? null : editing}
          roles={(roles.data?.list ?? []).map((r) => ({ value: r.id, label: r.name }))}
          departments={treeOf((departments.data?.list ?? []))}
          onClose={(saved) => { setEditing(null); if (saved) refresh(); }}
        />
      )}
      {resetting && <ResetPassword admin={resetting} onClose={() => setResetting(null)} />}
      {unbinding && <UnbindAuthenticator admin={unbinding} onClose={(done) => { setUnbinding(null); if (done) refresh(); }} />}
    </Row>
  );
}

interface FormValues {
  username: string;
  password?: string;
  nickname?: string;
  email?: string;
  phone?: string;
  department_id?: number | null;
  role_ids?: number[];
  status?: boolean;
}

function AdminForm({ admin, roles, departments, onClose }: {
  admin: Admin | null;
  roles: { value: number; label: string }[];
  departments: TreeNode[];
  onClose: (saved: boolean) => void;
}) {
  const { t } = useTranslation(['admins', 'common']);
  const [form] = Form.useForm<FormValues>();
  const [busy, setBusy] = useState(false);
  const run = useAction();
  const convert = (nodes: TreeNode[]): unknown[] => nodes.map((n) => ({ value: Number(n.key), title: n.title, children: convert(n.children) }));
  const save = async (v: FormValues) => {
    setBusy(true);
    const body = {
      nickname: v.nickname ?? '', email: v.email ?? '', phone: v.phone ?? '',
      department_id: v.department_id ?? null, role_ids: v.role_ids ?? [], status: v.status === false ? 0 : 1,
    } as const;
    let failure: unknown;
    const ok = await run(async () => {
      try {
        if (admin) await unwrap(api.PUT('/api/admin/admins/{id}', { params: { path: { id: admin.id } }, body }));
        else await unwrap(api.POST('/api/admin/admins', { body: { ...body, username: v.username, password: v.password! } }));
      } catch (err) {
        failure = err;
        throw err;
      }
    }, t('common:state.saved'));
    setBusy(false);
    if (ok) onClose(true);
    else form.setFields(fieldErrors(failure, ['username', 'password', 'nickname', 'email', 'phone', 'department_id', 'role_ids']) as never);
  };
  return (
    <Modal
      open
      title={admin ? t('editTitle', { name: admin.username }) : t('createTitle')}
      onCancel={() => onClose(false)}
      onOk={() => form.submit()}
      okText={t('common:action.save')}
      cancelText={t('common:action.cancel')}
      confirmLoading={busy}
      destroyOnHidden
    >
      <Form<FormValues>
        name="admin-form"
        form={form}
        layout="vertical"
        onFinish={(v) => void save(v)}
        initialValues={admin ? {
          username: admin.username, nickname: admin.nickname, email: admin.email, phone: admin.phone,
          department_id: admin.department_id, role_ids: admin.roles.map((r) => r.id), status: admin.status === 1,
        } : { status: true, role_ids: [] }}
      >
        <Form.Item name="username" label={t('username')} rules={[{ required: true, min: 3, max: 64, pattern: /^[A-Za-z0-9._-]+$/, message: t('usernameRule') }]}>
          <Input disabled={!!admin} autoComplete="off" />
        </Form.Item>
        {!admin && (
          <Form.Item name="password" label={t('password')} rules={[{ required: true, min: 8, max: 128, message: t('passwordRule') }]}>
            <Input.Password autoComplete="new-password" />
          </Form.Item>
        )}
        <Form.Item name="nickname" label={t('nickname')} rules={[{ max: 64 }]}><Input /></Form.Item>
        <Form.Item name="email" label={t('email')} rules={[{ type: 'email', message: t('emailRule') }]}><Input /></Form.Item>
        <Form.Item name="phone" label={t('phone')} rules={[{ pattern: /^[0-9+() -]*$/, max: 32, message: t('phoneRule') }]}><Input /></Form.Item>
        <Form.Item name="department_id" label={t('department')}>
          <TreeSelectDepartments data={convert(departments)} />
        </Form.Item>
        <Form.Item name="role_ids" label={t('roles')}><Select mode="multiple" options={roles} allowClear /></Form.Item>
        <Form.Item name="status" label={t('common:field.enabled')} valuePropName="checked"><Switch /></Form.Item>
      </Form>
    </Modal>
  );
}

function TreeSelectDepartments({ data, value, onChange }: { data: unknown[]; value?: number | null; onChange?: (v: number | null) => void }) {
  return <TreeSelect allowClear treeDefaultExpandAll treeData={data as never} value={value ?? undefined} onChange={(v: number | undefined) => onChange?.(v ?? null)} />;
}

function ResetPassword({ admin, onClose }: { admin: Admin; onClose: () => void }) {
  const { t } = useTranslation(['admins', 'common']);
  const [form] = Form.useForm<{ password: string }>();
  const run = useAction();
  return (
    <Modal open title={t('resetTitle', { name: admin.username })} onCancel={onClose} onOk={() => form.submit()} okText={t('common:action.save')} cancelText={t('common:action.cancel')} destroyOnHidden>
      <Typography.Paragraph type="secondary">{t('resetHint')}</Typography.Paragraph>
      <Form name="admin-reset" form={form} layout="vertical" onFinish={(v) => void run(() => unwrap(api.PUT('/api/admin/admins/{id}/reset-password', { params: { path: { id: admin.id } }, body: v })), t('common:state.saved')).then((ok) => ok && onClose())}>
        <Form.Item name="password" label={t('newPassword')} rules={[{ required: true, min: 8, max: 128, message: t('passwordRule') }]}>
          <Input.Password autoComplete="new-password" />
        </Form.Item>
      </Form>
    </Modal>
  );
}

function UnbindAuthenticator({ admin, onClose }: { admin: Admin; onClose: (done: boolean) => void }) {
  const { t } = useTranslation(['admins', 'common']);
  const [form] = Form.useForm<{ code: string }>();
  const run = useAction();
  return (
    <Modal open title={t('unbindTitle', { name: admin.username })} onCancel={() => onClose(false)} onOk={() => form.submit()} okText={t('common:action.confirm')} cancelText={t('common:action.cancel')} destroyOnHidden>
      <Typography.Paragraph type="secondary">{t('unbindHint')}</Typography.Paragraph>
      <Form name="admin-unbind" form={form} layout="vertical" onFinish={(v) => void run(() => unwrap(api.POST('/api/admin/admins/{id}/unbind-google-auth', { params: { path: { id: admin.id } }, body: v })), t('common:state.done')).then((ok) => ok && onClose(true))}>
        <Form.Item name="code" label={t('yourCode')} rules={[{ required: true, pattern: /^\d{6}$/, message: t('codeRule') }]}>
          <Input inputMode="numeric" maxLength={6} autoComplete="one-time-code" />
        </Form.Item>
      </Form>
    </Modal>
  );
}
