// Menus: the kit's tree screen (web/shared/antd/TreeScreen.tsx) with the menu's columns (filters
// by title and status in the URL) and its form (every field; the parent from a tree, where a menu
// cannot go under itself, and buttons hold no children; the server refuses it too). The server
// refuses to delete a menu that still has children, and says so. A change may change the
// signed-in administrator's own menu.
import { AutoComplete, Form, Input, InputNumber, Radio, Space, Switch, Tag, TreeSelect } from 'antd';
import { useTranslation } from 'react-i18next';
import { findIn, parentOptions, TreeScreen, type Editing, type TreeRow } from '../../../../shared/antd/TreeScreen.tsx';
import { FormModal } from '../../../../shared/antd/FormModal.tsx';
import { switchOneZero, useSave } from '../../../../shared/antd/useSave.ts';
import { api, unwrap, type Body, type ListQuery } from '../../api/client.ts';
import type { components } from '../../api/schema.gen.ts';
import { useAuth } from '../../auth/auth.tsx';
import { MENU_ICONS, menuIcon } from '../../components/menuIcon.tsx';
import { menuTitle } from '../../components/menuTitle.ts';
import { addStrings } from '../../i18n/index.ts';
import { strings } from './strings.ts';
import { statusFilter } from '../../components/statusFilter.ts';

addStrings('menus', strings);

type Menu = components['schemas']['def-0'];
type Row = TreeRow<Menu>;
type Values = Body<'/api/admin/menus', 'post'>;

const TYPE_COLORS: Record<number, string> = { 1: 'blue', 2: 'green', 3: 'orange' };
/** Buttons hold no children. */
const holds = (m: Row) => m.type !== 3;

export default function Menus() {
  const { t } = useTranslation(['menus', 'common']);
  const { can } = useAuth();
  const typeName = (type: number) => [t('directory'), t('menu'), t('button')][type - 1] ?? String(type);
  return (
    <TreeScreen<Menu, ListQuery<'/api/admin/menus'>>
      name="menus"
      queryKey="menus"
      load={(query) => unwrap(api.GET('/api/admin/menus', { params: { query } }))}
      columns={[
        { title: t('title'), dataIndex: 'title', width: 240, render: (_: string, m) => menuTitle(m, t), filter: { kind: 'text', key: 'title', max: 64 } },
        { title: t('common:field.status'), hideInTable: true, filter: statusFilter(t) },
        { title: t('type'), dataIndex: 'type', width: 90, render: (v: number) => <Tag color={TYPE_COLORS[v]}>{typeName(v)}</Tag> },
        { title: t('slug'), dataIndex: 'slug', width: 140, ellipsis: true },
        { title: t('icon'), dataIndex: 'icon', width: 100, render: (v: string | undefined, m) => (m.type === 3 ? '—' : <Space size={6}>{menuIcon(v, m.type)}{v || '—'}</Space>) },
        { title: t('path'), dataIndex: 'path', width: 180, ellipsis: true, render: (v?: string) => v || '—' },
        { detail: true, title: t('component'), dataIndex: 'component', width: 190, ellipsis: true, render: (v?: string) => v || '—' },
      ]}
      labelOf={(m) => m.title}
      can={{ create: can('menu.create'), update: can('menu.update'), delete: can('menu.delete') }}
      holdsChildren={holds}
      update={(m, body) => unwrap(api.PUT('/api/admin/menus/{id}', { params: { path: { id: m.id } }, body }))}
      remove={(m) => unwrap(api.DELETE('/api/admin/menus/{id}', { params: { path: { id: m.id } } }))}
      deleteHint={t('deleteHint')}
      invalidates={[['profile']]}
      form={(editing, rows, onClose) => <MenuForm editing={editing} tree={rows} onClose={onClose} />}
    />
  );
}

function MenuForm({ editing: { row, parentId }, tree, onClose }: { editing: Editing<Row>; tree: Row[]; onClose: () => void }) {
  const { t } = useTranslation(['menus', 'common']);
  const [form] = Form.useForm<Values>();
  const type = Form.useWatch('type', form);
  const { submit, isPending } = useSave(form, {
    save: (v) => {
      const body = { ...v, title: v.title.trim(), icon: v.icon ?? '', path: v.path ?? '', component: v.component ?? '', sort: v.sort ?? 0 };
      return row ? unwrap(api.PUT('/api/admin/menus/{id}', { params: { path: { id: row.id } }, body })) : unwrap(api.POST('/api/admin/menus', { body }));
    },
    onSaved: onClose,
  });
  const parent = parentId ? findIn(tree, parentId) : undefined;
  return (
    <FormModal form={form} width={640} title={row ? t('editTitle', { name: row.title }) : parent ? t('createChildTitle', { name: parent.title }) : t('createTitle')} pending={isPending} onClose={onClose}
      name="menus-form"
      onFinish={submit}
      initialValues={row
        ? { parent_id: row.parent_id, title: row.title, slug: row.slug, icon: row.icon, path: row.path, component: row.component, type: row.type, sort: row.sort, status: row.status }
        : { parent_id: parentId, type: parent ? (parent.type === 1 ? 2 : 3) : 1, sort: 0, status: 1 }}
    >
      <Form.Item name="parent_id" label={t('parent')} rules={[{ required: true }]}>
        <TreeSelect treeData={parentOptions(t('common:tree.root'), tree, (m) => m.title, row?.id, holds)} treeDefaultExpandAll showSearch treeNodeFilterProp="title" />
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
        <Form.Item name="status" label={t('common:field.enabled')} style={{ flex: 1 }} {...switchOneZero}><Switch /></Form.Item>
      </div>
    </FormModal>
  );
}
