// Permissions: the catalogue (system permissions generated from the server's routes, and custom
// ones), filtered in the URL by name, slug, method, menu and status; create a custom permission,
// edit (a system permission keeps its slug, method and path), enable/disable, delete custom ones.
import { PlusOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Form, Input, Select, Switch, Tag, TreeSelect } from 'antd';
import type { TFunction } from 'i18next';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap, type Body } from '../../api/client.ts';
import type { components } from '../../api/schema.gen.ts';
import { useAuth } from '../../auth/auth.tsx';
import { menuTitle } from '../../components/menuTitle.ts';
import { statusFilter } from '../../components/statusFilter.ts';
import { FormModal } from '../../../../shared/antd/FormModal.tsx';
import { ListView, type Column, type TreeOption } from '../../../../shared/antd/ListView.tsx';
import { switchOneZero, useSave } from '../../../../shared/antd/useSave.ts';
import type { PageOf, QueryOfList } from '../../../../shared/list/params.ts';
import { useList } from '../../../../shared/list/useList.ts';
import { addStrings } from '../../i18n/index.ts';
import { strings } from './strings.ts';
import { permissionsQuery } from './query.ts';
import { RowActions } from '../../../../shared/antd/RowActions.tsx';
import { useChange } from '../../../../shared/antd/useChange.ts';

addStrings('permissions', strings);

type Permission = PageOf<typeof permissionsQuery>['list'][number];
type Menu = components['schemas']['def-0'];

const METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;
const METHOD_COLORS: Record<string, string> = { GET: 'green', POST: 'blue', PUT: 'orange', DELETE: 'red' };
/** The menu tree as options, each titled as the menu screen shows it. */
const menuOptions = (nodes: Menu[], t: TFunction): TreeOption[] => nodes.map((m) => ({ value: m.id, title: menuTitle(m, t), children: menuOptions(m.children, t) }));

export default function Permissions() {
  const { t } = useTranslation(['permissions', 'common']);
  const { can } = useAuth();
  const { change, refresh } = useChange(permissionsQuery.key);
  const list = useList(permissionsQuery);
  const [editing, setEditing] = useState<Permission | 'new' | null>(null);

  const menus = useQuery({ queryKey: ['menus', {}], queryFn: () => unwrap(api.GET('/api/admin/menus', { params: { query: {} } })), enabled: can('menu.list') });
  const options = menuOptions(menus.data?.list ?? [], t);

  const setStatus = (p: Permission, status: 0 | 1) =>
    void change(() => unwrap(api.PUT('/api/admin/permissions/{id}', { params: { path: { id: p.id } }, body: { status } })), t('common:state.saved'));
  const remove = (p: Permission) =>
    void change(() => unwrap(api.DELETE('/api/admin/permissions/{id}', { params: { path: { id: p.id } } })), t('common:state.deleted'));

  const columns: Column<Permission, QueryOfList<typeof permissionsQuery>>[] = [
    { title: t('common:field.id'), dataIndex: 'id', width: 70 },
    { title: t('name'), dataIndex: 'name', width: 240, ellipsis: true, render: (_: string, p) => p.label, filter: { kind: 'text', key: 'name', max: 128 } },
    { title: t('slug'), dataIndex: 'slug', width: 200, render: (v: string) => <code>{v}</code>, filter: { kind: 'text', key: 'slug', max: 128 } },
    {
      title: t('method'), dataIndex: 'method', width: 90, render: (v: string) => (v ? <Tag color={METHOD_COLORS[v]}>{v}</Tag> : '—'),
      filter: { kind: 'select', key: 'method', width: 110, options: METHODS.map((m) => ({ value: m, label: m })) },
    },
    { detail: true, title: t('path'), dataIndex: 'path', ellipsis: true, render: (v: string) => v || '—' },
    {
      // Named by the server, so that a reader who may not list menus sees the title too.
      title: t('menu'), dataIndex: 'menu_title', width: 140, render: (v: string | null) => v ?? '—',
      filter: can('menu.list') ? { kind: 'tree', key: 'menu_id', treeData: options } : undefined,
    },
    { detail: true, title: t('kind'), dataIndex: 'is_system', width: 90, render: (s: boolean) => (s ? <Tag color="gold">{t('system')}</Tag> : <Tag>{t('custom')}</Tag>) },
    {
      title: t('common:field.status'), dataIndex: 'status', width: 90, filter: statusFilter(t),
      render: (s: number, p) => (
        <Switch size="small" checked={s === 1} aria-label={`${t('common:field.status')} ${p.slug}`}
          disabled={!can('permission.update')} onChange={(on) => setStatus(p, on ? 1 : 0)} />
      ),
    },
    {
      title: t('common:field.actions'), key: 'actions', fixed: 'right', width: 150,
      render: (_: unknown, p) => (
        <RowActions name={p.slug} onEdit={can('permission.update') && (() => setEditing(p))} onDelete={can('permission.delete') && !p.is_system && (() => remove(p))} />
      ),
    },
  ];

  return (
    <Card>
      <ListView
        list={list}
        columns={columns}
        name="permissions-filters"
        toolbar={can('permission.create') && <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing('new')}>{t('common:action.create')}</Button>}
      />
      {editing && (
        <PermissionForm permission={editing === 'new' ? null : editing} menus={options} onClose={(saved) => { setEditing(null); if (saved) refresh(); }} />
      )}
    </Card>
  );
}

type Values = Body<'/api/admin/permissions', 'post'>;

function PermissionForm({ permission, menus, onClose }: { permission: Permission | null; menus: TreeOption[]; onClose: (saved: boolean) => void }) {
  const { t } = useTranslation(['permissions', 'common']);
  const [form] = Form.useForm<Values>();
  const fixed = permission?.is_system === true;
  // The list is refreshed by the caller (onClose(true)).
  const { submit, isPending } = useSave(form, {
    save: (v: Values) => {
      const common = { name: v.name.trim(), menu_id: v.menu_id ?? null, status: v.status ?? 1 };
      const route = { slug: v.slug, method: v.method ?? '', path: v.path ?? '' };
      return permission
        ? unwrap(api.PUT('/api/admin/permissions/{id}', { params: { path: { id: permission.id } }, body: fixed ? common : { ...common, ...route } }))
        : unwrap(api.POST('/api/admin/permissions', { body: { ...common, ...route } }));
    },
    onSaved: () => onClose(true),
  });
  return (
    <FormModal form={form} title={permission ? t('editTitle', { name: permission.slug }) : t('createTitle')} pending={isPending} onClose={() => onClose(false)}
      name="permissions-form"
      onFinish={submit}
      initialValues={permission
        ? { name: permission.name, slug: permission.slug, method: permission.method, path: permission.path, menu_id: permission.menu_id, status: permission.status }
        : { method: '', status: 1 }}
      intro={fixed && <Alert type="info" showIcon style={{ marginBottom: 16 }} title={t('systemHint')} />}
    >
      <Form.Item name="name" label={t('name')} rules={[{ required: true, whitespace: true, max: 128, message: t('nameRule') }]}><Input /></Form.Item>
      <Form.Item name="slug" label={t('slug')} rules={[{ required: true, min: 3, max: 128, pattern: /^[a-z][a-z0-9_-]*\.[a-z][a-z0-9_.-]*$/, message: t('slugRule') }]}>
        <Input disabled={fixed} placeholder="report.view" />
      </Form.Item>
      <Form.Item name="method" label={t('method')}>
        <Select disabled={fixed} options={[{ value: '', label: t('anyMethod') }, ...METHODS.map((m) => ({ value: m, label: m }))]} />
      </Form.Item>
      <Form.Item name="path" label={t('path')} rules={[{ max: 255, pattern: /^(\/.*)?$/, message: t('pathRule') }]}>
        <Input disabled={fixed} placeholder="/api/admin/reports" />
      </Form.Item>
      <Form.Item name="menu_id" label={t('menu')}>
        <TreeSelect allowClear treeData={menus} treeDefaultExpandAll showSearch treeNodeFilterProp="title" placeholder={t('none')} />
      </Form.Item>
      <Form.Item name="status" label={t('common:field.enabled')} {...switchOneZero}><Switch /></Form.Item>
    </FormModal>
  );
}
