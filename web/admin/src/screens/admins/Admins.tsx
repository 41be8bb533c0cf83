// Administrators: every filter of the contract (in the URL), the department tree beside the
// list, each one's data scope in words (the departments named from that tree), create and edit
// (roles, department), enable/disable, reset password (the password policy's refusals at the
// field), unbind another administrator's authenticator, unlock one that failed sign-ins locked
// (marked "Locked"), delete (protected accounts shown as such), and export as a task.
import { LockOutlined, PlusOutlined, SafetyCertificateOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Button, Card, Col, Form, Input, Row, Select, Space, Switch, Tag, Tooltip, Tree, TreeSelect, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ListView, type Column } from '../../../../shared/antd/ListView.tsx';
import { useNarrow } from '../../../../shared/antd/DataList.tsx';
import { FormModal } from '../../../../shared/antd/FormModal.tsx';
import { switchOneZero, useSave } from '../../../../shared/antd/useSave.ts';
import { filtersFor, type PageOf } from '../../../../shared/list/params.ts';
import { useList } from '../../../../shared/list/useList.ts';
import { api, unwrap, type Body, type ListQuery } from '../../api/client.ts';
import { useAuth } from '../../auth/auth.tsx';
import { ExportTask } from '../../components/ExportTask.tsx';
import { passwordRulesQuery, policyRefusal } from '../../components/ChangePassword.tsx';
import { departmentNames, departmentTree, ScopeTags } from '../../components/DataScope.tsx';
import { addStrings } from '../../i18n/index.ts';
import { strings } from './strings.ts';
import { adminsQuery } from './query.ts';
import { statusFilter } from '../../components/statusFilter.ts';
import { RowActions } from '../../../../shared/antd/RowActions.tsx';
import { useChange } from '../../../../shared/antd/useChange.ts';

addStrings('admins', strings);

type Admin = PageOf<typeof adminsQuery>['list'][number];
type Query = ListQuery<'/api/admin/admins'>;
type Department = { id: number; name: string; children?: Department[] };

interface TreeNode {
  key: string;
  title: string;
  children: TreeNode[];
}
const treeOf = (nodes: Department[]): TreeNode[] => nodes.map((d) => ({ key: String(d.id), title: d.name, children: treeOf(d.children ?? []) }));

export default function Admins() {
  const { t } = useTranslation(['admins', 'common']);
  const { can, profile } = useAuth();
  const { change } = useChange(adminsQuery.key);
  const list = useList(adminsQuery);
  const [editing, setEditing] = useState<Admin | 'new' | null>(null);
  const [resetting, setResetting] = useState<Admin | null>(null);
  const [unbinding, setUnbinding] = useState<Admin | null>(null);

  const departments = useQuery(departmentTree);
  const names = useMemo(() => departments.data && departmentNames(departments.data.list), [departments.data]);
  // Each one's effective scope is under their roles; on a phone, under the username (in view without scrolling sideways).
  const narrow = useNarrow();
  const scopeOf = (a: Admin) => <ScopeTags all={a.data_scope.all} departmentIds={a.data_scope.department_ids} names={names} />;
  const roles = useQuery({ queryKey: ['roles', 'all'], queryFn: () => unwrap(api.GET('/api/admin/roles', { params: { query: { page: 1, page_size: 100 } } })) });
  const f = list.filters;

  const setStatus = (a: Admin, status: 0 | 1) =>
    void change(() => unwrap(api.PUT('/api/admin/admins/{id}', { params: { path: { id: a.id } }, body: { status } })), t('common:state.saved'));
  const unlock = (a: Admin) =>
    void change(() => unwrap(api.POST('/api/admin/admins/{id}/unlock', { params: { path: { id: a.id } } })), t('unlocked', { name: a.username }));
  const remove = (a: Admin) =>
    void change(() => unwrap(api.DELETE('/api/admin/admins/{id}', { params: { path: { id: a.id } } })), t('common:state.deleted'));
  const isProtected = (a: Admin) => a.roles.some((r) => r.slug === 'super_admin');
  const self = (a: Admin) => a.id === profile?.id;

  const columns: Column<Admin, Query>[] = [
    { title: t('common:field.id'), dataIndex: 'id', width: 70 },
    {
      first: true, title: t('username'), dataIndex: 'username', filter: { kind: 'text', key: 'username' },
      render: (v: string, a) => {
        const name = (
          <Space wrap size={4}>
            {v}
            {isProtected(a) && <Tag color="gold" icon={<SafetyCertificateOutlined />}>{t('protected')}</Tag>}
            {a.locked_until && (
              <Tooltip title={t('lockedUntil', { time: a.locked_until })}>
                <Tag color="red" icon={<LockOutlined />} aria-label={t('lockedUntil', { time: a.locked_until })}>{t('locked')}</Tag>
              </Tooltip>
            )}
          </Space>
        );
        return narrow ? <div className="cell-lines">{name}{scopeOf(a)}</div> : name;
      },
    },
    { detail: true, title: t('nickname'), dataIndex: 'nickname', filter: { kind: 'text', key: 'nickname' } },
    { detail: true, title: t('department'), render: (_: unknown, a) => a.department?.name ?? '—' },
    {
      // The effective data scope under the roles it comes from (a column of its own did not fit at 1440 px).
      title: narrow ? t('roles') : t('rolesAndScope'),
      render: (_: unknown, a) => {
        const roleTags = a.roles.length > 0 && <span className="tag-row">{a.roles.map((r) => <Tag key={r.id}>{r.name}</Tag>)}</span>;
        return narrow ? roleTags : <div className="cell-lines">{roleTags}{scopeOf(a)}</div>;
      },
      filter: { kind: 'select', key: 'role_id', label: t('roles'), width: 160, order: 3.5, options: (roles.data?.list ?? []).map((r) => ({ value: r.id, label: r.name })) },
    },
    { detail: true, title: t('twoFactor'), dataIndex: 'is_2fa_bound', render: (b: boolean) => (b ? <Tag color="green">{t('bound')}</Tag> : <Tag>{t('notBound')}</Tag>) },
    {
      title: t('common:field.status'), dataIndex: 'status', filter: { ...statusFilter(t), order: 3 },
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
    { title: t('common:field.createdAt'), hideInTable: true, filter: { kind: 'dateRange', keys: ['start_time', 'end_time'], showTime: true } },
    {
      title: t('common:field.actions'), key: 'actions', fixed: 'right', width: 260,
      render: (_: unknown, a) => (
        <RowActions name={a.username} onEdit={can('admin.update') && (() => setEditing(a))} onDelete={can('admin.delete') && !self(a) && !isProtected(a) && (() => remove(a))}>
          {can('admin.unlock') && a.locked_until && <Button type="link" size="small" onClick={() => unlock(a)}>{t('unlock')}</Button>}
          {can('admin.reset_password') && !self(a) && <Button type="link" size="small" onClick={() => setResetting(a)}>{t('resetPassword')}</Button>}
          {can('admin.unbind_2fa') && a.is_2fa_bound && !self(a) && <Button type="link" size="small" onClick={() => setUnbinding(a)}>{t('unbind')}</Button>}
        </RowActions>
      ),
    },
  ];

  return (
    <Row gutter={16}>
      <Col xs={24} lg={5} xl={4}>
        <Card size="small" title={t('departments')}>
          <Tree
            aria-label={t('departments')}
            treeData={treeOf((departments.data?.list ?? []))}
            selectedKeys={f.department_id ? [f.department_id] : []}
            onSelect={(keys) => list.setFilters({ ...f, department_id: keys[0] as string | undefined })}
            defaultExpandAll
          />
        </Card>
      </Col>
      <Col xs={24} lg={19} xl={20}>
        <Card>
          <ListView
            name="admin-filters"
            list={list}
            columns={columns}
            toolbar={(
              <>
                <Space>
                  {can('admin.create') && <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing('new')}>{t('common:action.create')}</Button>}
                </Space>
                <Space>
                  {can('admin.export') && (
                    <ExportTask
                      fileName="administrators.csv"
                      start={() => unwrap(api.POST('/api/admin/admins/export', {
                        body: filtersFor<Body<'/api/admin/admins/export', 'post'>>(f, ['username', 'status', 'role_id', 'department_id', 'start_time', 'end_time']),
                      }))}
                    />
                  )}
                </Space>
              </>
            )}
          />
        </Card>
      </Col>
      {editing && (
        <AdminForm
          admin={editing === 'new' ? null : editing}
          roles={(roles.data?.list ?? []).map((r) => ({ value: r.id, label: r.name }))}
          departments={treeOf((departments.data?.list ?? []))}
          names={names}
          onClose={() => setEditing(null)}
        />
      )}
      {resetting && <ResetPassword admin={resetting} onClose={() => setResetting(null)} />}
      {unbinding && <UnbindAuthenticator admin={unbinding} onClose={() => setUnbinding(null)} />}
    </Row>
  );
}

type Values = Body<'/api/admin/admins', 'post'>;

function AdminForm({ admin, roles, departments, names, onClose }: {
  admin: Admin | null;
  roles: { value: number; label: string }[];
  departments: TreeNode[];
  names: ReadonlyMap<number, string> | undefined;
  onClose: () => void;
}) {
  const { t } = useTranslation(['admins', 'common']);
  const [form] = Form.useForm<Values>();
  const minLength = useQuery(passwordRulesQuery).data?.min_length ?? 8;
  const convert = (nodes: TreeNode[]): DepartmentOption[] => nodes.map((n) => ({ value: Number(n.key), title: n.title, children: convert(n.children) }));
  const { submit, isPending } = useSave(form, {
    fieldsOf: policyRefusal('password'),
    save: ({ username, password, ...v }) => {
      const body = { ...v, nickname: v.nickname ?? '', email: v.email ?? '', phone: v.phone ?? '', department_id: v.department_id ?? null, role_ids: v.role_ids ?? [] };
      return admin
        ? unwrap(api.PUT('/api/admin/admins/{id}', { params: { path: { id: admin.id } }, body }))
        : unwrap(api.POST('/api/admin/admins', { body: { ...body, username, password } }));
    },
    invalidates: [adminsQuery.key],
    onSaved: onClose,
  });
  return (
    <FormModal form={form} title={admin ? t('editTitle', { name: admin.username }) : t('createTitle')} pending={isPending} onClose={onClose}
      name="admin-form"
      onFinish={submit}
      initialValues={admin ? {
        username: admin.username, nickname: admin.nickname, email: admin.email, phone: admin.phone,
        department_id: admin.department_id, role_ids: admin.roles.map((r) => r.id), status: admin.status,
      } : { status: 1, role_ids: [] }}
    >
      <Form.Item name="username" label={t('username')} rules={[{ required: true, min: 3, max: 64, pattern: /^[A-Za-z0-9._-]+$/, message: t('usernameRule') }]}>
        <Input disabled={!!admin} autoComplete="off" />
      </Form.Item>
      {!admin && (
        <Form.Item name="password" label={t('password')} extra={t('passwordGiven')} rules={[{ required: true, min: minLength, max: 128, message: t('passwordRule', { count: minLength }) }]}>
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
      {admin && (
        <Form.Item label={t('common:dataScope.title')} extra={t('scopeHint')}>
          <ScopeTags all={admin.data_scope.all} departmentIds={admin.data_scope.department_ids} names={names} />
        </Form.Item>
      )}
      <Form.Item name="status" label={t('common:field.enabled')} {...switchOneZero}><Switch /></Form.Item>
    </FormModal>
  );
}

interface DepartmentOption { value: number; title: string; children: DepartmentOption[] }

function TreeSelectDepartments({ data, value, onChange }: { data: DepartmentOption[]; value?: number | null; onChange?: (v: number | null) => void }) {
  return <TreeSelect allowClear treeDefaultExpandAll treeData={data} value={value ?? undefined} onChange={(v: number | undefined) => onChange?.(v ?? null)} />;
}

function ResetPassword({ admin, onClose }: { admin: Admin; onClose: () => void }) {
  const { t } = useTranslation(['admins', 'common']);
  const [form] = Form.useForm<Body<'/api/admin/admins/{id}/reset-password', 'put'>>();
  const minLength = useQuery(passwordRulesQuery).data?.min_length ?? 8;
  const { submit, isPending } = useSave(form, {
    save: (body) => unwrap(api.PUT('/api/admin/admins/{id}/reset-password', { params: { path: { id: admin.id } }, body })),
    fieldsOf: policyRefusal('password'),
    onSaved: onClose,
  });
  return (
    <FormModal form={form} title={t('resetTitle', { name: admin.username })} pending={isPending} onClose={onClose}
      name="admin-reset"
      onFinish={submit}
      intro={<Typography.Paragraph type="secondary">{t('resetHint')}</Typography.Paragraph>}
    >
      <Form.Item name="password" label={t('newPassword')} rules={[{ required: true, min: minLength, max: 128, message: t('passwordRule', { count: minLength }) }]}>
        <Input.Password autoComplete="new-password" />
      </Form.Item>
    </FormModal>
  );
}

function UnbindAuthenticator({ admin, onClose }: { admin: Admin; onClose: () => void }) {
  const { t } = useTranslation(['admins', 'common']);
  const [form] = Form.useForm<Body<'/api/admin/admins/{id}/unbind-google-auth', 'post'>>();
  const { submit, isPending } = useSave(form, {
    save: (body) => unwrap(api.POST('/api/admin/admins/{id}/unbind-google-auth', { params: { path: { id: admin.id } }, body })),
    success: t('common:state.done'),
    invalidates: [adminsQuery.key],
    onSaved: onClose,
  });
  return (
    <FormModal form={form} title={t('unbindTitle', { name: admin.username })} pending={isPending} onClose={onClose} okText={t('common:action.confirm')}
      name="admin-unbind"
      onFinish={submit}
      intro={<Typography.Paragraph type="secondary">{t('unbindHint')}</Typography.Paragraph>}
    >
      <Form.Item name="code" label={t('yourCode')} rules={[{ required: true, pattern: /^\d{6}$/, message: t('codeRule') }]}>
        <Input inputMode="numeric" maxLength={6} autoComplete="one-time-code" />
      </Form.Item>
    </FormModal>
  );
}
