// Permissions: the catalogue (system permissions generated from the server's routes, and custom
// ones), filtered in the URL by name, slug, method, menu and status; create a custom permission,
// edit (a system permission keeps its slug, method and path), enable/disable, delete custom ones.
import { PlusOutlined } from '@ant-design/icons';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Form, Input, Popconfirm, Select, Space, Switch, Table, Tag, TreeSelect } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap, type Body } from '../../api/client.ts';
import type { components } from '../../api/schema.gen.ts';
import { useAuth } from '../../auth/auth.tsx';
import { QueryError, useAction } from '../../../../shared/antd/feedback.tsx';
import { FormModal } from '../../../../shared/antd/FormModal.tsx';
import { switchOneZero, useSave } from '../../../../shared/antd/useSave.ts';
import type { QueryOfList } from '../../../../shared/list/params.ts';
import { useListParams } from '../../../../shared/list/useList.ts';
import { addStrings } from '../../i18n/index.ts';
import { strings } from './strings.ts';
import { FilterButtons } from '../../../../shared/antd/FilterButtons.tsx';
import { type listPermissions, permissionsQuery } from './query.ts';
import { useListTable } from '../../../../shared/antd/listTable.tsx';

addStrings('permissions', strings);

type Permission = Awaited<ReturnType<typeof listPermissions>>['list'][number];
type Menu = components['schemas']['def-0'];
interface MenuOption { value: number; title: string; children: MenuOption[] }

const METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;
const METHOD_COLORS: Record<string, string> = { GET: 'green', POST: 'blue', PUT: 'orange', DELETE: 'red' };
/** A menu's title in the console's language (the menu screen's rule: by slug, else as stored). */
type Title = (m: Menu) => string;
const menuOptions = (nodes: Menu[], title: Title): MenuOption[] => nodes.map((m) => ({ value: m.id, title: title(m), children: menuOptions(m.children, title) }));
const menuTitles = (nodes: Menu[], title: Title, into = new Map<number, string>()) => {
  for (const m of nodes) {
    into.set(m.id, title(m));
    menuTitles(m.children, title, into);
  }
  return into;
};

export default function Permissions() {
  const { t } = useTranslation(['permissions', 'common']);
  const table = useListTable();
  const { can } = useAuth();
  const run = useAction();
  const queryClient = useQueryClient();
  const { params, setFilters, pagination } = useListParams<QueryOfList<typeof permissionsQuery>>();
  const f = params.filters;
  const [editing, setEditing] = useState<Permission | 'new' | null>(null);

  const list = useQuery({ ...permissionsQuery(params), placeholderData: keepPreviousData });
  const menus = useQuery({ queryKey: ['menus', {}], queryFn: () => unwrap(api.GET('/api/admin/menus', { params: { query: {} } })), enabled: can('menu.list') });
  const menuTitle = (m: Menu) => t(`common:menu.${m.slug}`, { defaultValue: m.title });
  const options = menuOptions(menus.data?.list ?? [], menuTitle);
  const titles = menuTitles(menus.data?.list ?? [], menuTitle);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['permissions'] });

  const setStatus = (p: Permission, status: 0 | 1) =>
    void run(() => unwrap(api.PUT('/api/admin/permissions/{id}', { params: { path: { id: p.id } }, body: { status } })), t('common:state.saved')).then(refresh);
  const remove = (p: Permission) =>
    void run(() => unwrap(api.DELETE('/api/admin/permissions/{id}', { params: { path: { id: p.id } } })), t('common:state.deleted')).then(refresh);

  return (
    <Card>
      <Form
        className="list-filters"
        name="permissions-filters"
        layout="inline"
        key={JSON.stringify(f)}
        initialValues={{ ...f, menu_id: f.menu_id ? Number(f.menu_id) : undefined }}
        onFinish={(v: Record<string, string | number | undefined>) => setFilters({
          name: v.name, slug: v.slug, method: v.method, status: v.status, menu_id: v.menu_id,
        })}
      >
        <Form.Item name="name" label={t('name')} rules={[{ max: 128 }]}><Input allowClear /></Form.Item>
        <Form.Item name="slug" label={t('slug')} rules={[{ max: 128 }]}><Input allowClear /></Form.Item>
        <Form.Item name="method" label={t('method')}>
          <Select allowClear style={{ width: 110 }} options={METHODS.map((m) => ({ value: m, label: m }))} />
        </Form.Item>
        {can('menu.list') && (
          <Form.Item name="menu_id" label={t('menu')}>
            <TreeSelect allowClear style={{ width: 180 }} treeData={options} treeDefaultExpandAll showSearch treeNodeFilterProp="title" />
          </Form.Item>
        )}
        <Form.Item name="status" label={t('common:field.status')}>
          <Select allowClear style={{ width: 110 }} options={[{ value: '1', label: t('common:field.enabled') }, { value: '0', label: t('common:field.disabled') }]} />
        </Form.Item>
        <FilterButtons onReset={() => setFilters({})} />
      </Form>
      <div className="list-toolbar">
        <Space>
          {can('permission.create') && <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing('new')}>{t('common:action.create')}</Button>}
        </Space>
      </div>
      {list.error ? <QueryError error={list.error} onRetry={() => void list.refetch()} /> : (
        <Table<Permission>
          rowKey="id"
          loading={list.isFetching}
          dataSource={list.data?.list ?? []}
          locale={{ emptyText: Object.keys(f).length > 0 ? t('common:state.emptyFiltered') : t('common:state.empty') }}
          pagination={pagination(list.data?.total ?? 0)}
          {...table<Permission>([
            { title: t('common:field.id'), dataIndex: 'id', width: 70 },
            { title: t('name'), dataIndex: 'name', width: 240, ellipsis: true, render: (_: string, p) => p.label },
            { title: t('slug'), dataIndex: 'slug', width: 200, render: (v: string) => <code>{v}</code> },
            { title: t('method'), dataIndex: 'method', width: 90, render: (v: string) => (v ? <Tag color={METHOD_COLORS[v]}>{v}</Tag> : '—') },
            { detail: true, title: t('path'), dataIndex: 'path', ellipsis: true, render: (v: string) => v || '—' },
            { title: t('menu'), dataIndex: 'menu_id', width: 140, render: (v: number | null) => (v === null ? '—' : titles.get(v) ?? `#${v}`) },
            { detail: true, title: t('kind'), dataIndex: 'is_system', width: 90, render: (s: boolean) => (s ? <Tag color="gold">{t('system')}</Tag> : <Tag>{t('custom')}</Tag>) },
            {
              title: t('common:field.status'), dataIndex: 'status', width: 90,
              render: (s: number, p) => (
                <Switch size="small" checked={s === 1} aria-label={`${t('common:field.status')} ${p.slug}`}
                  disabled={!can('permission.update')} onChange={(on) => setStatus(p, on ? 1 : 0)} />
              ),
            },
            {
              title: t('common:field.actions'), key: 'actions', fixed: 'right', width: 150,
              render: (_: unknown, p) => (
                <Space size={0}>
                  {can('permission.update') && (
                    <Button type="link" size="small" aria-label={`${t('common:action.edit')} ${p.slug}`} onClick={() => setEditing(p)}>{t('common:action.edit')}</Button>
                  )}
                  {can('permission.delete') && !p.is_system && (
                    <Popconfirm title={t('common:state.confirmDelete', { name: p.slug })} onConfirm={() => remove(p)}>
                      <Button type="link" size="small" danger aria-label={`${t('common:action.delete')} ${p.slug}`}>{t('common:action.delete')}</Button>
                    </Popconfirm>
                  )}
                </Space>
              ),
            },
          ])}
        />
      )}
      {editing && (
        <PermissionForm permission={editing === 'new' ? null : editing} menus={options} onClose={(saved) => { setEditing(null); if (saved) refresh(); }} />
      )}
    </Card>
  );
}

type Values = Body<'/api/admin/permissions', 'post'>;

function PermissionForm({ permission, menus, onClose }: { permission: Permission | null; menus: MenuOption[]; onClose: (saved: boolean) => void }) {
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
    <FormModal form={form} title={permission ? t('editTitle', { name: permission.slug }) : t('createTitle')} pending={isPending} onClose={() => onClose(false)}>
      {fixed && <Alert type="info" showIcon style={{ marginBottom: 16 }} title={t('systemHint')} />}
      <Form<Values>
        form={form}
        name="permissions-form"
        layout="vertical"
        onFinish={submit}
        initialValues={permission
          ? { name: permission.name, slug: permission.slug, method: permission.method, path: permission.path, menu_id: permission.menu_id, status: permission.status }
          : { method: '', status: 1 }}
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
      </Form>
    </FormModal>
  );
}
