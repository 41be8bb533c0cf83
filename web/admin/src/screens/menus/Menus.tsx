// Menus: the menu tree as a tree table (filters by title and status in the URL), create at the
// top or under a directory or menu, edit every field (the parent from a tree; a menu cannot move
// under itself, the server refuses it too), enable/disable, and delete (the server refuses a
// menu that still has children, and says so).
import { PlusOutlined } from '@ant-design/icons';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { AutoComplete, Button, Card, Form, Input, InputNumber, Modal, Popconfirm, Radio, Select, Space, Switch, Table, Tag, TreeSelect } from 'antd';
import { useMemo, useState, type Key } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import type { components } from '../../api/schema.gen.ts';
import { useAuth } from '../../auth/auth.tsx';
import { fieldErrors, QueryError, useAction } from '../../components/feedback.tsx';
import { useListParams } from '../../components/listParams.ts';
import { addStrings } from '../../i18n/index.ts';
import { strings } from './strings.ts';
import { FilterButtons } from '../../components/FilterButtons.tsx';
import { MENU_ICONS, menuIcon } from '../../components/menuIcon.tsx';
import { menuTitle } from '../../components/menuTitle.ts';
import { useListTable } from '../../components/listTable.tsx';

addStrings('menus', strings);

type Menu = components['schemas']['def-0'];
type Row = Omit<Menu, 'children'> & { children?: Row[] };

const rowsOf = (nodes: Menu[]): Row[] => nodes.map(({ children, ...m }) => (children.length ? { ...m, children: rowsOf(children) } : m));
const idsOf = (nodes: Row[]): number[] => nodes.flatMap((n) => [n.id, ...idsOf(n.children ?? [])]);
const findIn = (nodes: Row[], id: number): Row | undefined => {
  for (const n of nodes) {
    if (n.id === id) return n;
    const hit = findIn(n.children ?? [], id);
    if (hit) return hit;
  }
  return undefined;
};

interface Option { value: number; title: string; disabled?: boolean; children: Option[] }
/** Parent choices: buttons hold no children; a menu cannot go under itself or its descendants. */
const optionsOf = (nodes: Row[], exclude: number | undefined, inside = false): Option[] =>
  nodes.filter((n) => n.type !== 3).map((n) => {
    const off = inside || n.id === exclude;
    return { value: n.id, title: n.title, disabled: off, children: optionsOf(n.children ?? [], exclude, off) };
  });

const TYPE_COLORS: Record<number, string> = { 1: 'blue', 2: 'green', 3: 'orange' };

export default function Menus() {
  const { t } = useTranslation(['menus', 'common']);
  const table = useListTable();
  const { can } = useAuth();
  const run = useAction();
  const queryClient = useQueryClient();
  const { params, setFilters } = useListParams();
  const f = params.filters;
  const [editing, setEditing] = useState<{ row: Row | null; parentId: number } | null>(null);
  const [expanded, setExpanded] = useState<readonly Key[] | null>(null);
  const typeName = (type: number) => [t('directory'), t('menu'), t('button')][type - 1] ?? String(type);

  const query = { ...(f.title ? { title: f.title } : {}), ...(f.status ? { status: Number(f.status) } : {}) };
  const tree = useQuery({ queryKey: ['menus', query], queryFn: () => unwrap(api.GET('/api/admin/menus', { params: { query } })), placeholderData: keepPreviousData });
  const rows = useMemo(() => rowsOf(tree.data?.list ?? []), [tree.data]);
  const allIds = useMemo(() => idsOf(rows), [rows]);
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: ['menus'] });
    // The signed-in administrator's own menu may have changed.
    void queryClient.invalidateQueries({ queryKey: ['profile'] });
  };

  const update = (m: Row, body: { status?: number; sort?: number }) =>
    void run(() => unwrap(api.PUT('/api/admin/menus/{id}', { params: { path: { id: m.id } }, body })), t('common:state.saved')).then(refresh);
  const remove = (m: Row) =>
    void run(() => unwrap(api.DELETE('/api/admin/menus/{id}', { params: { path: { id: m.id } } })), t('common:state.deleted')).then(refresh);

  return (
    <Card>
      <Form
        className="list-filters"
        name="menus-filters"
        layout="inline"
        key={JSON.stringify(f)}
        initialValues={f}
        onFinish={(v: Record<string, string | undefined>) => setFilters({ title: v.title?.trim(), status: v.status })}
      >
        <Form.Item name="title" label={t('title')} rules={[{ max: 64 }]}><Input allowClear /></Form.Item>
        <Form.Item name="status" label={t('common:field.status')}>
          <Select allowClear style={{ width: 110 }} options={[{ value: '1', label: t('common:field.enabled') }, { value: '0', label: t('common:field.disabled') }]} />
        </Form.Item>
        <FilterButtons onReset={() => setFilters({})} />
      </Form>
      <div className="list-toolbar">
        <Space>
          {can('menu.create') && <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing({ row: null, parentId: 0 })}>{t('common:action.create')}</Button>}
        </Space>
        <Space>
          <Button onClick={() => setExpanded(allIds)}>{t('expandAll')}</Button>
          <Button onClick={() => setExpanded([])}>{t('collapseAll')}</Button>
        </Space>
      </div>
      {tree.error ? <QueryError error={tree.error} onRetry={() => void tree.refetch()} /> : (
        <Table<Row>
          rowKey="id"
          loading={tree.isFetching}
          dataSource={rows}
          pagination={false}
          expandable={{ expandedRowKeys: expanded ?? allIds, onExpandedRowsChange: (keys) => setExpanded(keys) }}
          locale={{ emptyText: Object.keys(f).length > 0 ? t('common:state.emptyFiltered') : t('common:state.empty') }}
          {...table<Row>([
            { title: t('title'), dataIndex: 'title', width: 240, render: (_: string, m) => menuTitle(m, t) },
            { title: t('type'), dataIndex: 'type', width: 90, render: (v: number) => <Tag color={TYPE_COLORS[v]}>{typeName(v)}</Tag> },
            { title: t('slug'), dataIndex: 'slug', width: 140, ellipsis: true },
            { title: t('icon'), dataIndex: 'icon', width: 100, render: (v: string | undefined, m) => (m.type === 3 ? '—' : <Space size={6}>{menuIcon(v, m.type)}{v || '—'}</Space>) },
            { title: t('path'), dataIndex: 'path', width: 180, ellipsis: true, render: (v?: string) => v || '—' },
            { detail: true, title: t('component'), dataIndex: 'component', width: 190, ellipsis: true, render: (v?: string) => v || '—' },
            {
              title: t('common:field.sort'), dataIndex: 'sort', width: 110,
              render: (v: number, m) => (can('menu.update')
                ? <InputNumber size="small" precision={0} defaultValue={v} aria-label={`${t('common:field.sort')} ${m.title}`} style={{ width: 80 }}
                    key={`${m.id}:${v}`} onBlur={(e) => { const n = Number(e.target.value); if (Number.isInteger(n) && n !== v) update(m, { sort: n }); }} />
                : v),
            },
            {
              title: t('common:field.status'), dataIndex: 'status', width: 90,
              render: (s: number, m) => (
                <Switch size="small" checked={s === 1} aria-label={`${t('common:field.status')} ${m.title}`}
                  disabled={!can('menu.update')} onChange={(on) => update(m, { status: on ? 1 : 0 })} />
              ),
            },
            {
              title: t('common:field.actions'), key: 'actions', fixed: 'right', width: 220,
              render: (_: unknown, m) => (
                <Space size={0}>
                  {can('menu.create') && m.type !== 3 && (
                    <Button type="link" size="small" aria-label={`${t('addChild')} ${m.title}`} onClick={() => setEditing({ row: null, parentId: m.id })}>{t('addChild')}</Button>
                  )}
                  {can('menu.update') && (
                    <Button type="link" size="small" aria-label={`${t('common:action.edit')} ${m.title}`} onClick={() => setEditing({ row: m, parentId: m.parent_id })}>{t('common:action.edit')}</Button>
                  )}
                  {can('menu.delete') && (
                    <Popconfirm title={t('common:state.confirmDelete', { name: m.title })} description={t('deleteHint')} onConfirm={() => remove(m)}>
                      <Button type="link" size="small" danger aria-label={`${t('common:action.delete')} ${m.title}`}>{t('common:action.delete')}</Button>
                    </Popconfirm>
                  )}
                </Space>
              ),
            },
          ], { tree: true })}
        />
      )}
      {editing && (
        <MenuForm row={editing.row} parentId={editing.parentId} tree={rows} onClose={(saved) => { setEditing(null); if (saved) refresh(); }} />
      )}
    </Card>
  );
}

interface FormValues {
  parent_id: number;
  title: string;
  slug: string;
  icon?: string;
  path?: string;
  component?: string;
  type: number;
  sort?: number | null;
  status?: boolean;
}

const FIELDS = ['parent_id', 'title', 'slug', 'icon', 'path', 'component', 'type', 'sort', 'status'];

function MenuForm({ row, parentId, tree, onClose }: { row: Row | null; parentId: number; tree: Row[]; onClose: (saved: boolean) => void }) {
  const { t } = useTranslation(['menus', 'common']);
  const [form] = Form.useForm<FormValues>();
  const [busy, setBusy] = useState(false);
  const run = useAction();
  const type = Form.useWatch('type', form);
  const parent = parentId ? findIn(tree, parentId) : undefined;
  const options = [{ value: 0, title: t('root'), children: [] }, ...optionsOf(tree, row?.id)];
  const save = async (v: FormValues) => {
    setBusy(true);
    const body = {
      parent_id: v.parent_id, title: v.title.trim(), slug: v.slug, icon: v.icon ?? '', path: v.path ?? '', component: v.component ?? '',
      type: v.type, sort: v.sort ?? 0, status: v.status === false ? 0 : 1,
    };
    let failure: unknown;
    const ok = await run(async () => {
      try {
        if (row) await unwrap(api.PUT('/api/admin/menus/{id}', { params: { path: { id: row.id } }, body }));
        else await unwrap(api.POST('/api/admin/menus', { body }));
      } catch (err) {
        failure = err;
        throw err;
      }
    }, t('common:state.saved'));
    setBusy(false);
    if (ok) onClose(true);
    else form.setFields(fieldErrors(failure, FIELDS) as never);
  };
  return (
    <Modal
      open
      width={640}
      title={row ? t('editTitle', { name: row.title }) : parent ? t('createChildTitle', { name: parent.title }) : t('createTitle')}
      onCancel={() => onClose(false)}
      onOk={() => form.submit()}
      okText={t('common:action.save')}
      cancelText={t('common:action.cancel')}
      confirmLoading={busy}
      destroyOnHidden
    >
      <Form<FormValues>
        form={form}
        name="menus-form"
        layout="vertical"
        onFinish={(v) => void save(v)}
        initialValues={row
          ? { parent_id: row.parent_id, title: row.title, slug: row.slug, icon: row.icon, path: row.path, component: row.component, type: row.type, sort: row.sort, status: row.status === 1 }
          : { parent_id: parentId, type: parent ? (parent.type === 1 ? 2 : 3) : 1, sort: 0, status: true }}
      >
        <Form.Item name="parent_id" label={t('parent')} rules={[{ required: true }]}>
          <TreeSelect treeData={options} treeDefaultExpandAll showSearch treeNodeFilterProp="title" />
        </Form.Item>
        <Form.Item name="type" label={t('type')} rules={[{ required: true }]}>
          <Radio.Group
            optionType="button"
            options={[1, 2, 3].map((v) => ({ value: v, label: [t('directory'), t('menu'), t('button')][v - 1]!, disabled: v === 3 && !!row?.children?.length }))}
          />
        </Form.Item>
        <div style={{ display: 'flex', gap: 16 }}>
          <Form.Item name="title" label={t('title')} style={{ flex: 1 }} rules={[{ required: true, whitespace: true, max: 64, message: t('titleRule') }]}><Input /></Form.Item>
          <Form.Item name="slug" label={t('slug')} style={{ flex: 1 }} rules={[{ required: true, max: 64, pattern: /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/, message: t('slugRule') }]}><Input /></Form.Item>
        </div>
        {type !== 3 && (
          <>
            <Form.Item name="path" label={t('path')} extra={t('pathHint')} rules={[{ max: 255 }]}><Input /></Form.Item>
            <Form.Item name="component" label={t('component')} extra={t('componentHint')} rules={[{ max: 255 }]}><Input /></Form.Item>
            <Form.Item name="icon" label={t('icon')} rules={[{ max: 64 }]}>
              <AutoComplete
                allowClear
                options={Object.keys(MENU_ICONS).map((name) => ({ value: name, label: <Space>{menuIcon(name, 2)}{name}</Space> }))}
                filterOption={(input, o) => String(o?.value ?? '').includes(input.toLowerCase())}
              />
            </Form.Item>
          </>
        )}
        <div style={{ display: 'flex', gap: 16 }}>
          <Form.Item name="sort" label={t('common:field.sort')} style={{ flex: 1 }} rules={[{ type: 'integer', min: -2_147_483_648, max: 2_147_483_647, message: t('sortRule') }]}>
            <InputNumber precision={0} style={{ width: '100%' }} />
          </Form.Item>
          <Form.Item name="status" label={t('common:field.enabled')} style={{ flex: 1 }} valuePropName="checked"><Switch /></Form.Item>
        </div>
      </Form>
    </Modal>
  );
}
