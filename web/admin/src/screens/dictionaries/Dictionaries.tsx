// Dictionaries: the types (parent_id 0) on the left, the items of the chosen type on the right.
// In the URL: the chosen type (`type`), the types' search and page (`type_name`, `type_page`),
// and the items' filters (name, code, status) and page. Types and items are created, edited and
// deleted with the same form; a code already used (ignoring case) among the types or among the
// items of the type is refused by the server, whose message is shown next to the field.
import { PlusOutlined } from '@ant-design/icons';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Button, Card, Col, Empty, Form, Input, InputNumber, Popconfirm, Row, Space, Switch, Table, Tag, Typography } from 'antd';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { QueryError } from '../../../../shared/antd/feedback.tsx';
import { FormModal } from '../../../../shared/antd/FormModal.tsx';
import { ListView, type Column } from '../../../../shared/antd/ListView.tsx';
import { switchOneZero, useSave } from '../../../../shared/antd/useSave.ts';
import { useList, useListParams } from '../../../../shared/list/useList.ts';
import { api, unwrap, type Body } from '../../api/client.ts';
import { useAuth } from '../../auth/auth.tsx';
import { addStrings } from '../../i18n/index.ts';
import { itemsQuery, listDictionaries, type ItemsQuery } from './query.ts';
import { strings } from './strings.ts';
import { statusFilter } from '../../components/statusFilter.ts';
import { useChange } from '../../../../shared/antd/useChange.ts';

addStrings('dictionaries', strings);

type Entry = Awaited<ReturnType<typeof listDictionaries>>['list'][number];
type Values = Body<'/api/admin/dictionaries', 'post'>;

const CODE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/;
const TYPES_PAGE = 20;
/** The URL's filters that belong to the types column: a reset of the items' filters leaves them. */
const TYPE_KEYS = ['type', 'type_name', 'type_page'] as const;

/** What a row's status switch and actions do (the types' and the items' rows alike). */
interface RowActions {
  statusSwitch: (e: Entry) => ReactNode;
  remove: (e: Entry) => void;
  edit: (e: Entry) => void;
}

export default function Dictionaries() {
  const { t } = useTranslation(['dictionaries', 'common']);
  const { can } = useAuth();
  const { change } = useChange(['dictionaries']);
  const { filters: f, setFilters } = useListParams<ItemsQuery>();
  const [editing, setEditing] = useState<{ entry: Entry | null; parent: Entry | null } | null>(null);
  const typeId = Number(f.type) || undefined;
  const typePage = Math.max(1, Number(f.type_page) || 1);
  const { type: _type, type_name: _name, type_page: _page, ...itemFilters } = f;

  const types = useQuery({
    queryKey: ['dictionaries', 'types', f.type_name ?? '', typePage],
    queryFn: () => listDictionaries({ parent_id: 0, page: typePage, page_size: TYPES_PAGE, order_by: 'sort:asc', ...(f.type_name ? { name: f.type_name } : {}) }),
    placeholderData: keepPreviousData,
  });
  const chosen = useQuery({
    queryKey: ['dictionaries', 'one', typeId],
    queryFn: () => unwrap(api.GET('/api/admin/dictionaries/{id}', { params: { path: { id: typeId! } } })),
    enabled: typeId !== undefined,
  });
  const type = types.data?.list.find((x) => x.id === typeId) ?? (chosen.data?.parent_id === 0 ? chosen.data : undefined);

  const chooseType = (id: number | undefined) => setFilters({ type: id, type_name: f.type_name, type_page: f.type_page });
  const setStatus = (e: Entry, status: 0 | 1) =>
    void change(() => unwrap(api.PUT('/api/admin/dictionaries/{id}', { params: { path: { id: e.id } }, body: { status } })), t('common:state.saved'));
  const actions: RowActions = {
    statusSwitch: (e) => (
      <Switch size="small" checked={e.status === 1} aria-label={`${t('common:field.status')} ${e.code}`} disabled={!can('dictionary.update')} onChange={(on) => setStatus(e, on ? 1 : 0)} />
    ),
    remove: (e) =>
      void change(() => unwrap(api.DELETE('/api/admin/dictionaries/{id}', { params: { path: { id: e.id } } })), t('common:state.deleted')).then((ok) => {
        if (ok && e.id === typeId) chooseType(undefined);
      }),
    edit: (e) => setEditing({ entry: e, parent: e.parent_id === 0 ? null : type ?? null }),
  };

  return (
    <Row gutter={16}>
      <Col xs={24} lg={9}>
        <Card
          size="small"
          title={t('types')}
          extra={can('dictionary.create') && <Button size="small" type="primary" icon={<PlusOutlined />} onClick={() => setEditing({ entry: null, parent: null })}>{t('newType')}</Button>}
        >
          <Input.Search
            allowClear
            key={f.type_name ?? ''}
            defaultValue={f.type_name}
            placeholder={t('searchTypes')}
            aria-label={t('searchTypes')}
            maxLength={64}
            style={{ marginBottom: 8 }}
            onSearch={(v) => setFilters({ ...itemFilters, type: f.type, type_name: v })}
          />
          {types.error ? <QueryError error={types.error} onRetry={() => void types.refetch()} /> : (
            <Table<Entry>
              rowKey="id"
              size="small"
              loading={types.isFetching}
              dataSource={types.data?.list ?? []}
              locale={{ emptyText: f.type_name ? t('common:state.emptyFiltered') : t('common:state.empty') }}
              rowClassName={(e) => (e.id === typeId ? 'ant-table-row-selected' : '')}
              onRow={(e) => ({ onClick: () => chooseType(e.id), style: { cursor: 'pointer' } })}
              pagination={{
                current: typePage, pageSize: TYPES_PAGE, total: types.data?.total ?? 0, size: 'small', hideOnSinglePage: true,
                onChange: (p) => setFilters({ ...f, type_page: p === 1 ? undefined : p }),
              }}
              columns={[
                {
                  title: t('name'), dataIndex: 'name',
                  render: (v: string, e) => (
                    <Button type="link" size="small" style={{ padding: 0 }} onClick={(ev) => { ev.stopPropagation(); chooseType(e.id); }}>{v}</Button>
                  ),
                },
                { title: t('code'), dataIndex: 'code', ellipsis: true, render: (v: string) => <Typography.Text code>{v}</Typography.Text> },
                { title: t('common:field.status'), dataIndex: 'status', width: 70, render: (_: number, e) => actions.statusSwitch(e) },
                {
                  title: t('common:field.actions'), key: 'actions', width: 110,
                  render: (_: unknown, e) => (
                    <Space size={0} onClick={(ev) => ev.stopPropagation()}>
                      {can('dictionary.update') && <Button type="link" size="small" aria-label={t('editType', { name: e.name })} onClick={() => actions.edit(e)}>{t('common:action.edit')}</Button>}
                      {can('dictionary.delete') && (
                        <Popconfirm title={t('common:state.confirmDelete', { name: e.name })} description={t('typeHasItems')} onConfirm={() => actions.remove(e)}>
                          <Button type="link" size="small" danger aria-label={t('deleteType', { name: e.name })}>{t('common:action.delete')}</Button>
                        </Popconfirm>
                      )}
                    </Space>
                  ),
                },
              ]}
            />
          )}
        </Card>
      </Col>
      <Col xs={24} lg={15}>
        <Card size="small" title={type ? <Space>{t('items', { name: type.name })}<Tag>{type.code}</Tag></Space> : t('items', { name: '…' })}>
          {typeId === undefined ? <Empty description={t('noType')} /> : <Items type={type} actions={actions} onCreate={(parent) => setEditing({ entry: null, parent })} />}
        </Card>
      </Col>
      {editing && (
        <EntryForm
          entry={editing.entry}
          parent={editing.parent}
          onClose={(saved) => {
            setEditing(null);
            // A new type is chosen at once, to add its items.
            if (saved && saved.parent_id === 0) chooseType(saved.id);
          }}
        />
      )}
    </Row>
  );
}

/** The items of the chosen type (in the URL): their filters, table and page. */
function Items({ type, actions, onCreate }: { type: Entry | undefined; actions: RowActions; onCreate: (parent: Entry) => void }) {
  const { t } = useTranslation(['dictionaries', 'common']);
  const { can } = useAuth();
  const list = useList(itemsQuery);
  const columns: Column<Entry, ItemsQuery>[] = [
    { title: t('name'), dataIndex: 'name', filter: { kind: 'text', key: 'name', max: 64, width: 140 } },
    { title: t('code'), dataIndex: 'code', render: (v: string) => <Typography.Text code>{v}</Typography.Text>, filter: { kind: 'text', key: 'code', max: 64, width: 140 } },
    { title: t('value'), dataIndex: 'value', render: (v: string) => v || '—' },
    { title: t('common:field.sort'), dataIndex: 'sort', width: 70 },
    { title: t('common:field.description'), dataIndex: 'description', ellipsis: true, render: (v: string) => v || '—' },
    {
      title: t('common:field.status'), dataIndex: 'status', width: 80, render: (_: number, e) => actions.statusSwitch(e),
      filter: statusFilter(t),
    },
    {
      title: t('common:field.actions'), key: 'actions', fixed: 'right', width: 130,
      render: (_: unknown, e) => (
        <Space size={0}>
          {can('dictionary.update') && <Button type="link" size="small" aria-label={`${t('common:action.edit')} ${e.code}`} onClick={() => actions.edit(e)}>{t('common:action.edit')}</Button>}
          {can('dictionary.delete') && (
            <Popconfirm title={t('common:state.confirmDelete', { name: e.name })} onConfirm={() => actions.remove(e)}>
              <Button type="link" size="small" danger aria-label={`${t('common:action.delete')} ${e.code}`}>{t('common:action.delete')}</Button>
            </Popconfirm>
          )}
        </Space>
      ),
    },
  ];
  return (
    <ListView
      list={list}
      columns={columns}
      keep={TYPE_KEYS}
      toolbar={can('dictionary.create') && type && <Button type="primary" icon={<PlusOutlined />} onClick={() => onCreate(type)}>{t('newItem')}</Button>}
    />
  );
}

/** Creates or edits a type (`parent` null) or an item of `parent`; closes with what was saved (nothing when cancelled). */
function EntryForm({ entry, parent, onClose }: { entry: Entry | null; parent: Entry | null; onClose: (saved?: Entry | null) => void }) {
  const { t } = useTranslation(['dictionaries', 'common']);
  const [form] = Form.useForm<Values>();
  // A refusal naming no field (a duplicate code, 30002) is about the code; a validation failure names its field.
  const { submit, isPending } = useSave(form, {
    save: (v) => {
      const body = { name: v.name.trim(), code: v.code.trim(), value: v.value ?? '', description: v.description ?? '', sort: v.sort ?? 0, status: v.status ?? 1 };
      return entry
        ? unwrap(api.PUT('/api/admin/dictionaries/{id}', { params: { path: { id: entry.id } }, body }))
        : unwrap(api.POST('/api/admin/dictionaries', { body: { ...body, parent_id: parent?.id ?? 0 } }));
    },
    fallback: 'code',
    invalidates: [['dictionaries']],
    onSaved: (saved) => onClose(saved),
  });
  const title = entry ? t('editTitle', { name: entry.name }) : parent ? t('createItem', { name: parent.name }) : t('createType');
  return (
    <FormModal form={form} title={title} pending={isPending} onClose={() => onClose()}
      name="dictionary-entry"
      onFinish={submit}
      initialValues={entry
        ? { name: entry.name, code: entry.code, value: entry.value, description: entry.description, sort: entry.sort, status: entry.status }
        : { status: 1, sort: 0 }}
    >
      {parent && <Form.Item label={t('typeOf')}><Typography.Text>{parent.name} <Tag>{parent.code}</Tag></Typography.Text></Form.Item>}
      <Form.Item name="name" label={t('name')} rules={[{ required: true, whitespace: true, max: 64, message: t('nameRule') }]}><Input /></Form.Item>
      <Form.Item name="code" label={t('code')} extra={t('codeHelp')} rules={[{ required: true, max: 64, pattern: CODE_PATTERN, message: t('codeRule') }]}>
        <Input autoComplete="off" />
      </Form.Item>
      <Form.Item name="value" label={t('value')} rules={[{ max: 255 }]}><Input /></Form.Item>
      <Form.Item name="description" label={t('common:field.description')} rules={[{ max: 255 }]}><Input.TextArea rows={2} showCount maxLength={255} /></Form.Item>
      <Space size="large">
        <Form.Item name="sort" label={t('common:field.sort')} rules={[{ type: 'integer', min: 0, max: 1_000_000, message: t('sortRule') }]}>
          <InputNumber min={0} max={1_000_000} precision={0} />
        </Form.Item>
        <Form.Item name="status" label={t('common:field.enabled')} {...switchOneZero}><Switch /></Form.Item>
      </Space>
    </FormModal>
  );
}
