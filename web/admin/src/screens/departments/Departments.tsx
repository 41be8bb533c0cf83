// Departments: the kit's tree screen (web/shared/antd/TreeScreen.tsx) with the department's
// columns (filters by name and status in the URL) and its form (name, parent, leader, contact,
// sort, status). The server refuses to delete a department that still has children or
// administrators, and says so.
import { Form, Input, InputNumber, Switch, TreeSelect } from 'antd';
import { useTranslation } from 'react-i18next';
import { parentOptions, TreeScreen, findIn, type Editing, type TreeRow } from '../../../../shared/antd/TreeScreen.tsx';
import { FormModal } from '../../../../shared/antd/FormModal.tsx';
import { switchOneZero, useSave } from '../../../../shared/antd/useSave.ts';
import { api, unwrap, type Body, type ListQuery } from '../../api/client.ts';
import type { components } from '../../api/schema.gen.ts';
import { useAuth } from '../../auth/auth.tsx';
import { addStrings } from '../../i18n/index.ts';
import { strings } from './strings.ts';
import { statusFilter } from '../../components/statusFilter.ts';

addStrings('departments', strings);

type Department = components['schemas']['def-1'];
type Row = TreeRow<Department>;
type Values = Body<'/api/admin/departments', 'post'>;

export default function Departments() {
  const { t } = useTranslation(['departments', 'common']);
  const { can } = useAuth();
  const dash = (v: string) => v || '—';
  return (
    <TreeScreen<Department, ListQuery<'/api/admin/departments'>>
      name="departments"
      queryKey="departments"
      load={(query) => unwrap(api.GET('/api/admin/departments', { params: { query } }))}
      columns={[
        { title: t('name'), dataIndex: 'name', width: 260, filter: { kind: 'text', key: 'name', max: 64 } },
        { title: t('leader'), dataIndex: 'leader', render: dash },
        { title: t('common:field.status'), hideInTable: true, filter: statusFilter(t) },
        { title: t('phone'), dataIndex: 'phone', render: dash },
        { detail: true, title: t('email'), dataIndex: 'email', render: dash },
      ]}
      tail={[{ detail: true, title: t('common:field.createdAt'), dataIndex: 'created_at', width: 170 }]}
      labelOf={(d) => d.name}
      can={{ create: can('department.create'), update: can('department.update'), delete: can('department.delete') }}
      update={(d, body) => unwrap(api.PUT('/api/admin/departments/{id}', { params: { path: { id: d.id } }, body }))}
      remove={(d) => unwrap(api.DELETE('/api/admin/departments/{id}', { params: { path: { id: d.id } } }))}
      deleteHint={t('deleteHint')}
      form={(editing, rows, onClose) => <DepartmentForm editing={editing} tree={rows} onClose={onClose} />}
    />
  );
}

function DepartmentForm({ editing: { row, parentId }, tree, onClose }: { editing: Editing<Row>; tree: Row[]; onClose: () => void }) {
  const { t } = useTranslation(['departments', 'common']);
  const [form] = Form.useForm<Values>();
  const { submit, isPending } = useSave(form, {
    save: (v) => {
      const body = { ...v, name: v.name.trim(), leader: v.leader ?? '', phone: v.phone ?? '', email: v.email ?? '', sort: v.sort ?? 0 };
      return row ? unwrap(api.PUT('/api/admin/departments/{id}', { params: { path: { id: row.id } }, body })) : unwrap(api.POST('/api/admin/departments', { body }));
    },
    onSaved: onClose,
  });
  const parentName = parentId ? findIn(tree, parentId)?.name : undefined;
  return (
    <FormModal form={form} title={row ? t('editTitle', { name: row.name }) : parentName ? t('createChildTitle', { name: parentName }) : t('createTitle')} pending={isPending} onClose={onClose}
      name="departments-form"
      onFinish={submit}
      initialValues={row
        ? { parent_id: row.parent_id, name: row.name, leader: row.leader, phone: row.phone, email: row.email, sort: row.sort, status: row.status }
        : { parent_id: parentId, sort: 0, status: 1 }}
    >
      <Form.Item name="parent_id" label={t('parent')} rules={[{ required: true }]}>
        <TreeSelect treeData={parentOptions(t('common:tree.root'), tree, (d) => d.name, row?.id)} treeDefaultExpandAll showSearch treeNodeFilterProp="title" />
      </Form.Item>
      <Form.Item name="name" label={t('name')} rules={[{ required: true, whitespace: true, max: 64, message: t('nameRule') }]}><Input /></Form.Item>
      <Form.Item name="leader" label={t('leader')} rules={[{ max: 64 }]}><Input /></Form.Item>
      <Form.Item name="phone" label={t('phone')} rules={[{ max: 32 }]}><Input /></Form.Item>
      <Form.Item name="email" label={t('email')} rules={[{ type: 'email', max: 128, message: t('emailRule') }]}><Input /></Form.Item>
      <Form.Item name="sort" label={t('common:field.sort')} rules={[{ type: 'integer', min: -2_147_483_648, max: 2_147_483_647, message: t('sortRule') }]}>
        <InputNumber precision={0} style={{ width: '100%' }} />
      </Form.Item>
      <Form.Item name="status" label={t('common:field.enabled')} {...switchOneZero}><Switch /></Form.Item>
    </FormModal>
  );
}
