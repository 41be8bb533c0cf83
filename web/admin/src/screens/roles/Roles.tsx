// Roles: the paged list (filters by name and status in the URL), create and edit (name, slug,
// status, sort, description, whether it requires an authenticator), the permissions a role grants as a tree grouped by module and its
// menus as the menu tree (both saved with the role: the sets replace the previous ones), its data
// scope (the departments of a `custom` one ticked in the department tree), delete.
// The super-administrator role is marked; its slug and status, and its grants, are not editable.
import { PlusOutlined, SafetyCertificateOutlined, SafetyOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Form, Input, InputNumber, Radio, Space, Switch, Tabs, Tag, theme, Tree, Typography } from 'antd';
import type { DataNode } from 'antd/es/tree';
import { useMemo, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import type { components } from '../../api/schema.gen.ts';
import { useAuth } from '../../auth/auth.tsx';
import { QueryError, useAction } from '../../../../shared/antd/feedback.tsx';
import { ListView, type Column } from '../../../../shared/antd/ListView.tsx';
import { useNarrow } from '../../../../shared/antd/DataList.tsx';
import { FormModal } from '../../../../shared/antd/FormModal.tsx';
import { useSave } from '../../../../shared/antd/useSave.ts';
import type { PageOf, QueryOfList } from '../../../../shared/list/params.ts';
import { useList } from '../../../../shared/list/useList.ts';
import { statusFilter } from '../../components/statusFilter.ts';
import { addStrings } from '../../i18n/index.ts';
import { menuTitle } from '../../components/menuTitle.ts';
import { DATA_SCOPES, departmentNames, departmentTree, RoleScope, type DepartmentNode, type ScopeFields } from '../../components/DataScope.tsx';
import { menusForPermissions, permissionsForMenus, roleView } from './grants.ts';
import { strings } from './strings.ts';
import { rolesQuery } from './query.ts';
import { RowActions } from '../../../../shared/antd/RowActions.tsx';

addStrings('roles', strings);

type Role = PageOf<typeof rolesQuery>['list'][number];
type Permission = Awaited<ReturnType<typeof allPermissions>>[number];
type Menu = components['schemas']['def-0'];
type Tab = 'details' | 'permissions' | 'menus';


/** The whole permission catalogue, page after page. */
async function allPermissions() {
  const first = await unwrap(api.GET('/api/admin/permissions', { params: { query: { page: 1, page_size: 100, order_by: 'slug:asc' } } }));
  const list = [...first.list];
  for (let page = 2; list.length < first.total && page <= 50; page++) {
    const next = await unwrap(api.GET('/api/admin/permissions', { params: { query: { page, page_size: 100, order_by: 'slug:asc' } } }));
    if (next.list.length === 0) break;
    list.push(...next.list);
  }
  return list;
}

const moduleOf = (slug: string) => slug.split('.')[0]!;

export default function Roles() {
  const { t } = useTranslation(['roles', 'common']);
  const { can } = useAuth();
  const run = useAction();
  const queryClient = useQueryClient();
  const list = useList(rolesQuery);
  const [editing, setEditing] = useState<{ role: Role | null; tab: Tab } | null>(null);
  // The names of a custom scope's departments.
  const departments = useQuery({ ...departmentTree, enabled: can('department.list') });
  const names = useMemo(() => departments.data && departmentNames(departments.data.list), [departments.data]);
  // The scope is under the permissions and menus; on a phone, under the name (in view without scrolling sideways).
  const narrow = useNarrow();
  const scopeOf = (r: Role) => <RoleScope scope={r.data_scope} departmentIds={r.department_ids} names={names} />;

  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: rolesQuery.key });
    void queryClient.invalidateQueries({ queryKey: ['profile'] });
  };

  const setStatus = (r: Role, status: 0 | 1) =>
    void run(() => unwrap(api.PUT('/api/admin/roles/{id}', { params: { path: { id: r.id } }, body: { status } })), t('common:state.saved')).then(refresh);
  const remove = (r: Role) =>
    void run(() => unwrap(api.DELETE('/api/admin/roles/{id}', { params: { path: { id: r.id } } })), t('common:state.deleted')).then(refresh);

  const columns: Column<Role, QueryOfList<typeof rolesQuery>>[] = [
    { title: t('common:field.id'), dataIndex: 'id', width: 60 },
    {
      title: t('name'), dataIndex: 'name', filter: { kind: 'text', key: 'name', max: 64 },
      render: (v: string, r) => (
        <>
          <Space wrap size={4}>
            {v}
            {r.is_system && <Tag color="gold" icon={<SafetyCertificateOutlined />}>{t('superAdmin')}</Tag>}
            {r.require_authenticator && <Tag color="blue" icon={<SafetyOutlined />}>{t('authenticatorTag')}</Tag>}
          </Space>
          {narrow && <div style={{ marginTop: 4 }}>{scopeOf(r)}</div>}
          {r.description && <Typography.Paragraph type="secondary" ellipsis={{ tooltip: r.description }} style={{ margin: 0, maxWidth: 320 }}>{r.description}</Typography.Paragraph>}
        </>
      ),
    },
    { title: t('slug'), dataIndex: 'slug', width: 150, render: (v: string) => <code>{v}</code> },
    {
      // The data scope under the permissions and menus (a column of its own did not fit at 1440 px).
      title: narrow ? t('grants') : t('grantsAndScope'), key: 'grants', width: 190,
      render: (_: unknown, r) => {
        const grants = r.is_system
          ? <Typography.Text type="secondary">{t('superAdmin')}</Typography.Text>
          : <span className="tag-row"><Tag>{t('permissionCount', { count: r.permission_ids.length })}</Tag><Tag>{t('menuCount', { count: r.menu_ids.length })}</Tag></span>;
        return narrow ? grants : <div className="cell-lines">{grants}{scopeOf(r)}</div>;
      },
    },
    { detail: true, title: t('common:field.sort'), dataIndex: 'sort', width: 70 },
    {
      title: t('common:field.status'), dataIndex: 'status', width: 90, filter: statusFilter(t),
      render: (s: number, r) => (
        <Switch size="small" checked={s === 1} aria-label={`${t('common:field.status')} ${r.name}`}
          disabled={!can('role.update') || r.is_system} onChange={(on) => setStatus(r, on ? 1 : 0)} />
      ),
    },
    { detail: true, title: t('common:field.createdAt'), dataIndex: 'created_at', width: 170 },
    {
      title: t('common:field.actions'), key: 'actions', fixed: 'right', width: 200,
      render: (_: unknown, r) => (
        <RowActions name={r.name} onEdit={can('role.update') && (() => setEditing({ role: r, tab: 'details' }))} onDelete={can('role.delete') && !r.is_system && (() => remove(r))}>
          {can('role.update') && !r.is_system && (
            <Button type="link" size="small" aria-label={`${t('grants')} ${r.name}`} onClick={() => setEditing({ role: r, tab: 'permissions' })}>{t('grants')}</Button>
          )}
        </RowActions>
      ),
    },
  ];

  return (
    <Card>
      <ListView
        list={list}
        columns={columns}
        name="roles-filters"
        toolbar={can('role.create') && <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing({ role: null, tab: 'details' })}>{t('common:action.create')}</Button>}
      />
      {editing && <RoleForm role={editing.role} tab={editing.tab} onClose={(saved) => { setEditing(null); if (saved) refresh(); }} />}
    </Card>
  );
}

interface FormValues extends Partial<ScopeFields> {
  name: string;
  slug: string;
  description?: string;
  sort?: number | null;
  status?: boolean;
  require_authenticator?: boolean;
}

const sameIds = (a: readonly number[], b: readonly number[]) => {
  const [x, y] = [[...a].sort((m, n) => m - n), [...b].sort((m, n) => m - n)];
  return x.length === y.length && x.every((id, i) => id === y[i]);
};

/**
 * The scope fields of a save: always for a new role; for an edit, only when the scope changed (a
 * caller whose own scope is not `all` could not send the one a role has now, and may leave it).
 */
function scopeBody(v: FormValues, role: Role | null): Partial<ScopeFields> {
  const scope = v.data_scope ?? role?.data_scope ?? 'all';
  const ids = scope === 'custom' ? v.department_ids ?? role?.department_ids ?? [] : [];
  if (role && scope === role.data_scope && (scope !== 'custom' || sameIds(ids, role.department_ids))) return {};
  return scope === 'custom' ? { data_scope: scope, department_ids: ids } : { data_scope: scope };
}

function RoleForm({ role, tab, onClose }: { role: Role | null; tab: Tab; onClose: (saved: boolean) => void }) {
  const { t } = useTranslation(['roles', 'common']);
  const { can } = useAuth();
  const [form] = Form.useForm<FormValues>();
  const [active, setActive] = useState<Tab>(tab);
  const [permissionIds, setPermissionIds] = useState<number[]>(role?.permission_ids ?? []);
  const [menuIds, setMenuIds] = useState<number[]>(role?.menu_ids ?? []);
  const fixed = role?.is_system === true;
  const permissions = useQuery({ queryKey: ['permissions', 'all'], queryFn: allPermissions, enabled: can('permission.list') });
  const menus = useQuery({ queryKey: ['menus', {}], queryFn: () => unwrap(api.GET('/api/admin/menus', { params: { query: {} } })), enabled: can('menu.list') });

  // Permissions and menus move together (when both can be read): see grants.ts.
  const flatMenus = useMemo(() => flatten(menus.data?.list ?? []), [menus.data]);
  const linked = !fixed && permissions.data !== undefined && menus.data !== undefined;
  const changePermissions = (ids: number[]) => {
    setPermissionIds(ids);
    const added = ids.filter((id) => !permissionIds.includes(id));
    if (linked && added.length > 0) setMenuIds(menusForPermissions(added, menuIds, flatMenus, permissions.data));
  };
  const changeMenus = (ids: number[]) => {
    setMenuIds(ids);
    const added = ids.filter((id) => !menuIds.includes(id));
    if (linked && added.length > 0) setPermissionIds(permissionsForMenus(added, permissionIds, flatMenus, permissions.data));
  };

  const { submit, isPending, refusal } = useSave(form, {
    save: (v: FormValues) => {
      const base = { name: v.name.trim(), description: v.description ?? '', sort: v.sort ?? 0 };
      // Only the sets the console could show are sent (without the list right, they are left as they are).
      const grants = {
        ...(permissions.data ? { permission_ids: permissionIds } : {}),
        ...(menus.data ? { menu_ids: menuIds } : {}),
      };
      const rules = { slug: v.slug, status: v.status === false ? 0 : 1, require_authenticator: v.require_authenticator === true, ...scopeBody(v, role) };
      if (!role) return unwrap(api.POST('/api/admin/roles', { body: { ...base, ...rules, ...grants } }));
      const body = fixed ? base : { ...base, ...rules, ...grants };
      return unwrap(api.PUT('/api/admin/roles/{id}', { params: { path: { id: role.id } }, body }));
    },
    onSaved: () => onClose(true),
    // The fields are on the first tab: it is shown when one of them is refused.
    onFieldErrors: () => setActive('details'),
  });

  return (
    <FormModal form={form} width={760} title={role ? t('editTitle', { name: role.name }) : t('createTitle')} pending={isPending} onClose={() => onClose(false)}
      name="roles-form"
      onFinish={submit}
      onFinishFailed={() => setActive('details')}
      refusal={refusal}
      initialValues={role
        ? {
            name: role.name, slug: role.slug, description: role.description, sort: role.sort, status: role.status === 1, require_authenticator: role.require_authenticator,
            data_scope: role.data_scope, department_ids: role.department_ids,
          }
        : { sort: 0, status: true, require_authenticator: false, data_scope: 'all', department_ids: [] }}
      intro={<>
        {fixed && <Alert type="warning" showIcon icon={<SafetyCertificateOutlined />} style={{ marginBottom: 12 }} title={t('superHint')} />}
        {linked && <RoleView permissionIds={permissionIds} menuIds={menuIds} menus={flatMenus} permissions={permissions.data} />}
      </>}
    >
      <Tabs
        activeKey={active}
        onChange={(k) => setActive(k as Tab)}
        items={[
          {
            key: 'details', label: t('details'), forceRender: true,
            children: (
              <>
                <div style={{ display: 'flex', gap: 16 }}>
                  <Form.Item name="name" label={t('name')} style={{ flex: 1 }} rules={[{ required: true, whitespace: true, max: 64, message: t('nameRule') }]}><Input /></Form.Item>
                  <Form.Item name="slug" label={t('slug')} style={{ flex: 1 }} rules={[{ required: true, max: 64, pattern: /^[a-z][a-z0-9_-]*$/, message: t('slugRule') }]}>
                    <Input disabled={fixed} />
                  </Form.Item>
                </div>
                <div style={{ display: 'flex', gap: 16 }}>
                  <Form.Item name="sort" label={t('common:field.sort')} style={{ flex: 1 }} rules={[{ type: 'integer', min: -1_000_000, max: 1_000_000, message: t('sortRule') }]}>
                    <InputNumber precision={0} style={{ width: '100%' }} />
                  </Form.Item>
                  <Form.Item name="status" label={t('common:field.enabled')} style={{ flex: 1 }} valuePropName="checked"><Switch disabled={fixed} /></Form.Item>
                </div>
                <Form.Item name="require_authenticator" label={t('requireAuthenticator')} valuePropName="checked" extra={t('requireAuthenticatorHint')}>
                  <Switch disabled={fixed} />
                </Form.Item>
                <Form.Item name="description" label={t('description')} rules={[{ max: 255 }]}><Input.TextArea rows={3} showCount maxLength={255} /></Form.Item>
                <DataScopeFields fixed={fixed} />
              </>
            ),
          },
          ...(can('permission.list') ? [{
            key: 'permissions', label: `${t('permissions')} (${fixed ? '∞' : permissionIds.length})`,
            children: permissions.error ? <QueryError error={permissions.error} onRetry={() => void permissions.refetch()} /> : (
              <PermissionTree permissions={permissions.data} value={permissionIds} onChange={changePermissions} disabled={fixed} />
            ),
          }] : []),
          ...(can('menu.list') ? [{
            key: 'menus', label: `${t('menus')} (${fixed ? '∞' : menuIds.length})`,
            children: menus.error ? <QueryError error={menus.error} onRetry={() => void menus.refetch()} /> : (
              <MenuTree menus={menus.data?.list} value={menuIds} onChange={changeMenus} disabled={fixed} />
            ),
          }] : []),
        ]}
      />
    </FormModal>
  );
}

const flatten = (nodes: Menu[]): Menu[] => nodes.flatMap((m) => [m, ...flatten(m.children)]);

/** The data scope: the five scopes in words, and the department tree of a `custom` one. */
function DataScopeFields({ fixed }: { fixed: boolean }) {
  const { t } = useTranslation(['roles', 'common']);
  const scope = Form.useWatch<FormValues['data_scope']>('data_scope', Form.useFormInstance());
  return (
    <>
      <Form.Item name="data_scope" label={t('common:dataScope.title')} extra={t('scopeHint')}>
        <Radio.Group disabled={fixed} style={{ display: 'flex', flexDirection: 'column', gap: 8 }}
          options={DATA_SCOPES.map((s) => ({ value: s, label: t(`common:dataScope.${s}`) }))} />
      </Form.Item>
      {scope === 'custom' && (
        <Form.Item name="department_ids" label={t('scopeDepartments')} rules={[{ type: 'array', required: true, min: 1, message: t('scopeDepartmentsRule') }]}>
          <DepartmentPicker disabled={fixed} />
        </Form.Item>
      )}
    </>
  );
}

const departmentNodes = (nodes: readonly DepartmentNode[], off: string): DataNode[] =>
  nodes.map((d) => ({
    key: String(d.id),
    title: <span>{d.name}{d.status !== 1 && <Tag style={{ marginLeft: 4 }}>{off}</Tag>}</span>,
    children: departmentNodes(d.children, off),
  }));

/** The departments of a `custom` scope, each ticked on its own (one under a ticked department is not included with it). */
function DepartmentPicker({ value = [], onChange, disabled }: { value?: number[]; onChange?: (ids: number[]) => void; disabled: boolean }) {
  const { t } = useTranslation(['roles', 'common']);
  const { can } = useAuth();
  const departments = useQuery({ ...departmentTree, enabled: can('department.list') });
  const all = useMemo(() => [...departmentNames(departments.data?.list ?? []).keys()], [departments.data]);
  const treeData = useMemo(() => departmentNodes(departments.data?.list ?? [], t('disabledTag')), [departments.data, t]);
  const [expanded, setExpanded] = useState<string[] | null>(null);
  if (!can('department.list')) return <Alert type="warning" showIcon title={t('scopeNoDepartments', { count: value.length })} />;
  if (departments.error) return <QueryError error={departments.error} onRetry={() => void departments.refetch()} />;
  // In the tree's order.
  const change = (ids: number[]) => onChange?.(all.filter((id) => ids.includes(id)));
  return (
    <>
      <Toolbar
        hint={t('scopeDepartmentsHint')}
        count={value.length}
        disabled={disabled}
        onAll={() => change(all)}
        onNone={() => change([])}
        onExpand={(open) => setExpanded(open ? all.map(String) : [])}
      />
      <TreeBox>
        <Tree
          aria-label={t('departmentTree')}
          checkable
          checkStrictly
          selectable={false}
          disabled={disabled}
          treeData={treeData}
          expandedKeys={expanded ?? all.map(String)}
          onExpand={(keys) => setExpanded(keys.map(String))}
          checkedKeys={{ checked: value.map(String), halfChecked: [] }}
          onCheck={(checked) => change((Array.isArray(checked) ? checked : checked.checked).map(Number))}
        />
      </TreeBox>
    </>
  );
}

/** What the role will see: its screens, and what it was granted but cannot reach (or reach but not read). */
function RoleView({ permissionIds, menuIds, menus, permissions }: { permissionIds: number[]; menuIds: number[]; menus: Menu[]; permissions: Permission[] }) {
  const { t } = useTranslation(['roles', 'common']);
  const view = roleView(permissionIds, menuIds, menus, permissions);
  const names = (list: Menu[]) => list.map((m) => menuTitle(m, t)).join(', ');
  const problems = [
    ...(view.unreachable.length > 0 ? [t('unreachable', { list: view.unreachable.map((p) => p.label).join(', ') })] : []),
    ...(view.empty.length > 0 ? [t('emptyScreens', { list: names(view.empty) })] : []),
  ];
  return (
    <Alert
      role="status"
      aria-label={t('willSee')}
      type={view.screens.length === 0 || problems.length > 0 ? 'warning' : 'info'}
      showIcon
      style={{ marginBottom: 12 }}
      title={view.screens.length === 0 ? t('seesNothing') : t('sees', { count: view.screens.length, list: names(view.screens) })}
      description={(
        <>
          {problems.map((p) => <div key={p}>{p}</div>)}
          <Typography.Text type="secondary">{t('linkHint')}</Typography.Text>
        </>
      )}
    />
  );
}

/** Permissions grouped by module; only the permissions (leaves) make the set. */
function PermissionTree({ permissions, value, onChange, disabled }: {
  permissions: Permission[] | undefined;
  value: number[];
  onChange: (ids: number[]) => void;
  disabled: boolean;
}) {
  const { t } = useTranslation(['roles', 'common']);
  const groups = useMemo(() => {
    const byModule = new Map<string, Permission[]>();
    for (const p of permissions ?? []) byModule.set(moduleOf(p.slug), [...(byModule.get(moduleOf(p.slug)) ?? []), p]);
    return [...byModule.entries()].sort(([a], [b]) => a.localeCompare(b));
  }, [permissions]);
  const treeData: DataNode[] = groups.map(([module, list]) => ({
    key: `g:${module}`,
    title: <span>{t(`common:menu.${module}`, { defaultValue: module })} <Typography.Text type="secondary">({module})</Typography.Text></span>,
    children: list.map((p) => ({
      key: `p:${p.id}`,
      title: (
        <span>
          {p.label} <Typography.Text type="secondary" code>{p.slug}</Typography.Text>
          {p.status !== 1 && <Tag style={{ marginLeft: 4 }}>{t('disabledTag')}</Tag>}
        </span>
      ),
    })),
  }));
  const [expanded, setExpanded] = useState<string[] | null>(null);
  if (!permissions) return <Tree aria-label={t('permissionTree')} treeData={[]} />;
  const allIds = permissions.map((p) => p.id);
  return (
    <>
      <Toolbar
        hint={t('permissionHint')}
        count={value.length}
        disabled={disabled}
        onAll={() => onChange(allIds)}
        onNone={() => onChange([])}
        onExpand={(open) => setExpanded(open ? groups.map(([m]) => `g:${m}`) : [])}
      />
      <TreeBox>
        <Tree
          aria-label={t('permissionTree')}
          checkable
          selectable={false}
          disabled={disabled}
          treeData={treeData}
          expandedKeys={expanded ?? groups.map(([m]) => `g:${m}`)}
          onExpand={(keys) => setExpanded(keys.map(String))}
          checkedKeys={value.map((id) => `p:${id}`)}
          onCheck={(checked) => {
            const keys = Array.isArray(checked) ? checked : checked.checked;
            onChange(keys.map(String).filter((k) => k.startsWith('p:')).map((k) => Number(k.slice(2))));
          }}
        />
      </TreeBox>
    </>
  );
}

interface MenuIndex { parent: Map<number, number>; children: Map<number, number[]>; all: number[] }
function indexMenus(nodes: Menu[], index: MenuIndex = { parent: new Map(), children: new Map(), all: [] }): MenuIndex {
  for (const m of nodes) {
    index.all.push(m.id);
    index.parent.set(m.id, m.parent_id);
    index.children.set(m.id, m.children.map((c) => c.id));
    indexMenus(m.children, index);
  }
  return index;
}
const menuNodes = (nodes: Menu[], label: (m: Menu) => string, off: string): DataNode[] =>
  nodes.map((m) => ({
    key: String(m.id),
    title: <span>{label(m)}{m.status !== 1 && <Tag style={{ marginLeft: 4 }}>{off}</Tag>}</span>,
    children: menuNodes(m.children, label, off),
  }));

/** The menu tree, each menu ticked on its own (the set is exactly what is ticked): ticking a
 *  menu also ticks its ancestors and descendants; unticking it unticks its descendants. */
function MenuTree({ menus, value, onChange, disabled }: { menus: Menu[] | undefined; value: number[]; onChange: (ids: number[]) => void; disabled: boolean }) {
  const { t } = useTranslation(['roles', 'common']);
  const index = useMemo(() => indexMenus(menus ?? []), [menus]);
  const treeData = useMemo(() => menuNodes(menus ?? [], (m) => menuTitle(m, t), t('disabledTag')), [menus, t]);
  const [expanded, setExpanded] = useState<string[] | null>(null);
  const descendants = (id: number): number[] => (index.children.get(id) ?? []).flatMap((c) => [c, ...descendants(c)]);
  const ancestors = (id: number): number[] => {
    const p = index.parent.get(id);
    return p ? [p, ...ancestors(p)] : [];
  };
  return (
    <>
      <Toolbar
        hint={t('menuHint')}
        count={value.length}
        disabled={disabled}
        onAll={() => onChange(index.all)}
        onNone={() => onChange([])}
        onExpand={(open) => setExpanded(open ? index.all.map(String) : [])}
      />
      <TreeBox>
        <Tree
          aria-label={t('menuTree')}
          checkable
          checkStrictly
          selectable={false}
          disabled={disabled}
          treeData={treeData}
          expandedKeys={expanded ?? index.all.map(String)}
          onExpand={(keys) => setExpanded(keys.map(String))}
          checkedKeys={{ checked: value.map(String), halfChecked: [] }}
          onCheck={(_, info) => {
            const id = Number(info.node.key);
            const set = new Set(value);
            if (info.checked) for (const m of [id, ...ancestors(id), ...descendants(id)]) set.add(m);
            else for (const m of [id, ...descendants(id)]) set.delete(m);
            onChange(index.all.filter((m) => set.has(m)));
          }}
        />
      </TreeBox>
    </>
  );
}

function Toolbar({ hint, count, disabled, onAll, onNone, onExpand }: {
  hint: string; count: number; disabled: boolean; onAll: () => void; onNone: () => void; onExpand: (open: boolean) => void;
}) {
  const { t } = useTranslation(['roles', 'common']);
  return (
    <div style={{ marginBottom: 8 }}>
      <Typography.Paragraph type="secondary" style={{ marginBottom: 8 }}>{hint}</Typography.Paragraph>
      <Space wrap>
        {!disabled && <Typography.Text strong>{t('chosen', { count })}</Typography.Text>}
        <Button size="small" disabled={disabled} onClick={onAll}>{t('all')}</Button>
        <Button size="small" disabled={disabled} onClick={onNone}>{t('none')}</Button>
        <Button size="small" onClick={() => onExpand(true)}>{t('expandAll')}</Button>
        <Button size="small" onClick={() => onExpand(false)}>{t('collapseAll')}</Button>
      </Space>
    </div>
  );
}

/** A scrolling frame for a long tree, bordered in the theme's colours. */
function TreeBox({ children }: { children: ReactNode }) {
  const { token } = theme.useToken();
  return (
    <div style={{ maxHeight: '50vh', overflow: 'auto', border: `1px solid ${token.colorBorderSecondary}`, borderRadius: token.borderRadius, padding: 8 }}>
      {children}
    </div>
  );
}
