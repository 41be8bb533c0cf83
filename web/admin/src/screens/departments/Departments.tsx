// Departments: the tree as a tree table (filters by name and status in the URL), create at the
// top or under a department, edit (name, parent, leader, contact, sort, status), enable/disable,
// delete (the server refuses a department that still has children or administrators, and says so).
import { PlusOutlined } from '@ant-design/icons';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Form, Input, InputNumber, Modal, Popconfirm, Select, Space, Switch, Table, TreeSelect } from 'antd';
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
import { useListTable } from '../../components/listTable.tsx';

addStrings('departments', strings);

type Department = components['schemas']['def-1'];
/** A row of the tree table: leaves carry no `children` (so that they show no expander). */
type Row = Omit<Department, 'children'> & { children?: Row[] };

const rowsOf = (nodes: Department[]): Row[] =>
  nodes.map(({ children, ...d }) => (children.length ? { ...d, children: rowsOf(children) } : d));
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
/** Parent choices: the node being edited and its descendants cannot be its parent. */
const optionsOf = (nodes: Row[], exclude: number | undefined, inside = false): Option[] =>
  nodes.map((n) => {
    const off = inside || n.id === exclude;
    return { value: n.id, title: n.name, disabled: off, children: optionsOf(n.children ?? [], exclude, off) };
  });

export default function Departments() {
  const { t } = useTranslation(['departments', 'common']);
  const table = useListTable();
  const { can } = useAuth();
  const run = useAction();
  const queryClient = useQueryClient();
  const { params, setFilters } = useListParams();
  const f = params.filters;
  const [editing, setEditing] = useState<{ row: Row | null; parentId: number } | null>(null);
  const [expanded, setExpanded] = useState<readonly Key[] | null>(null);

  const query = { ...(f.name ? { name: f.name } : {}), ...(f.status ? { status: Number(f.status) } : {}) };
  const tree = useQuery({
    queryKey: ['departments', query],
    queryFn: () => unwrap(api.GET('/api/admin/departments', { params: { query } })),
    placeholderData: keepPreviousData,
  });
  const rows = useMemo(() => rowsOf(tree.data?.list ?? []), [tree.data]);
  const allIds = useMemo(() => idsOf(rows), [rows]);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['departments'] });

  const update = (d: Row, body: { status?: number; sort?: number }) =>
    void run(() => unwrap(api.PUT('/api/admin/departments/{id}', { params: { path: { id: d.id } }, body })), t('common:state.saved')).then(refresh);
  const remove = (d: Row) =>
    void run(() => unwrap(api.DELETE('/api/admin/departments/{id}', { params: { path: { id: d.id } } })), t('common:state.deleted')).then(refresh);

  return (
    <Card>
      <Form
        className="list-filters"
        name="departments-filters"
        layout="inline"
        key={JSON.stringify(f)}
        initialValues={f}
        onFinish={(v: Record<string, string | undefined>) => setFilters({ name: v.name?.trim(), status: v.status })}
      >
        <Form.Item name="name" label={t('name')} rules={[{ max: 64 }]}><Input allowClear /></Form.Item>
        <Form.Item name="status" label={t('common:field.status')}>
          <Select allowClear style={{ width: 110 }} options={[{ value: '1', label: t('common:field.enabled') }, { value: '0', label: t('common:field.disabled') }]} />
        </Form.Item>
        <FilterButtons onReset={() => setFilters({})} />
      </Form>
      <div className="list-toolbar">
        <Space>
          {can('department.create') && (
            <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing({ row: null, parentId: 0 })}>{t('common:action.create')}</Button>
          )}
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
            { title: t('name'), dataIndex: 'name', width: 260 },
            { title: t('leader'), dataIndex: 'leader', render: (v: string) => v || '—' },
            { title: t('phone'), dataIndex: 'phone', render: (v: string) => v || '—' },
            { detail: true, title: t('email'), dataIndex: 'email', render: (v: string) => v || '—' },
            {
              title: t('common:field.sort'), dataIndex: 'sort', width: 100,
              render: (v: number, d) => (can('department.update')
                ? <InputNumber size="small" precision={0} defaultValue={v} aria-label={`${t('common:field.sort')} ${d.name}`} style={{ width: 80 }}
                    key={`${d.id}:${v}`} onBlur={(e) => { const n = Number(e.target.value); if (Number.isInteger(n) && n !== v) update(d, { sort: n }); }} />
                : v),
            },
            {
              title: t('common:field.status'), dataIndex: 'status', width: 80,
              render: (s: number, d) => (
                <Switch size="small" checked={s === 1} aria-label={`${t('common:field.status')} ${d.name}`}
                  disabled={!can('department.update')} onChange={(on) => update(d, { status: on ? 1 : 0 })} />
              ),
            },
            { detail: true, title: t('common:field.createdAt'), dataIndex: 'created_at', width: 170 },
            {
              title: t('common:field.actions'), key: 'actions', fixed: 'right', width: 210,
              render: (_: unknown, d) => (
                <Space size={0}>
                  {can('department.create') && (
                    <Button type="link" size="small" aria-label={`${t('addChild')} ${d.name}`} onClick={() => setEditing({ row: null, parentId: d.id })}>{t('addChild')}</Button>
                  )}
                  {can('department.update') && (
                    <Button type="link" size="small" aria-label={`${t('common:action.edit')} ${d.name}`} onClick={() => setEditing({ row: d, parentId: d.parent_id })}>{t('common:action.edit')}</Button>
                  )}
                  {can('department.delete') && (
                    <Popconfirm title={t('common:state.confirmDelete', { name: d.name })} description={t('deleteHint')} onConfirm={() => remove(d)}>
                      <Button type="link" size="small" danger aria-label={`${t('common:action.delete')} ${d.name}`}>{t('common:action.delete')}</Button>
                    </Popconfirm>
                  )}
                </Space>
              ),
            },
          ], { tree: true })}
        />
      )}
      {editing && (
        <DepartmentForm
          row={editing.row}
          parentId={editing.parentId}
          tree={rows}
          onClose={(saved) => { setEditing(null); if (saved) refresh(); }}
        />
      )}
    </Card>
  );
}

interface FormValues {
  parent_id: number;
  name: string;
  leader?: string;
  phone?: string;
  email?: string;
  sort?: number | null;
  status?: boolean;
}

function DepartmentForm({ row, parentId, tree, onClose }: { row: Row | null; parentId: number; tree: Row[]; onClose: (saved: boolean) => void }) {
  const { t } = useTranslation(['departments', 'common']);
  const [form] = Form.useForm<FormValues>();
  const [busy, setBusy] = useState(false);
  const run = useAction();
  const parentName = parentId ? findIn(tree, parentId)?.name : undefined;
  const options = [{ value: 0, title: t('root'), children: [] }, ...optionsOf(tree, row?.id)];
  const save = async (v: FormValues) => {
    setBusy(true);
    const body = {
      parent_id: v.parent_id, name: v.name.trim(), leader: v.leader ?? '', phone: v.phone ?? '', email: v.email ?? '',
      sort: v.sort ?? 0, status: v.status === false ? 0 : 1,
    };
    let failure: unknown;
    const ok = await run(async () => {
      try {
        if (row) await unwrap(api.PUT('/api/admin/departments/{id}', { params: { path: { id: row.id } }, body }));
        else await unwrap(api.POST('/api/admin/departments', { body }));
      } catch (err) {
        failure = err;
        throw err;
      }
    }, t('common:state.saved'));
    setBusy(false);
    if (ok) onClose(true);
    else form.setFields(fieldErrors(failure, ['parent_id', 'name', 'leader', 'phone', 'email', 'sort', 'status']) as never);
  };
  return (
    <Modal
      open
      title={row ? t('editTitle', { name: row.name }) : parentName ? t('createChildTitle', { name: parentName }) : t('createTitle')}
      onCancel={() => onClose(false)}
      onOk={() => form.submit()}
      okText={t('common:action.save')}
      cancelText={t('common:action.cancel')}
      confirmLoading={busy}
      destroyOnHidden
    >
      <Form<FormValues>
        form={form}
        name="departments-form"
        layout="vertical"
        onFinish={(v) => void save(v)}
        initialValues={row
          ? { parent_id: row.parent_id, name: row.name, leader: row.leader, phone: row.phone, email: row.email, sort: row.sort, status: row.status === 1 }
          : { parent_id: parentId, sort: 0, status: true }}
      >
        <Form.Item name="parent_id" label={t('parent')} rules={[{ required: true }]}>
          <TreeSelect treeData={options} treeDefaultExpandAll showSearch treeNodeFilterProp="title" />
        </Form.Item>
        <Form.Item name="name" label={t('name')} rules={[{ required: true, whitespace: true, max: 64, message: t('nameRule') }]}><Input /></Form.Item>
        <Form.Item name="leader" label={t('leader')} rules={[{ max: 64 }]}><Input /></Form.Item>
        <Form.Item name="phone" label={t('phone')} rules={[{ max: 32 }]}><Input /></Form.Item>
        <Form.Item name="email" label={t('email')} rules={[{ type: 'email', max: 128, message: t('emailRule') }]}><Input /></Form.Item>
        <Form.Item name="sort" label={t('common:field.sort')} rules={[{ type: 'integer', min: -2_147_483_648, max: 2_147_483_647, message: t('sortRule') }]}>
          <InputNumber precision={0} style={{ width: '100%' }} />
        </Form.Item>
        <Form.Item name="status" label={t('common:field.enabled')} valuePropName="checked"><Switch /></Form.Item>
      </Form>
    </Modal>
  );
}
