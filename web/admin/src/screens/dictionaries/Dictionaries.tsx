// Dictionaries: the types (parent_id 0) on the left, the items of the chosen type on the right.
// In the URL: the chosen type (`type`), the types' search and page (`type_name`, `type_page`),
// and the items' filters (name, code, status) and page. Types and items are created, edited and
// deleted with the same form; a code already used (ignoring case) among the types or among the
// items of the type is refused by the server, whose message is shown next to the field.
import { PlusOutlined } from '@ant-design/icons';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Card, Col, Empty, Form, Input, InputNumber, Modal, Popconfirm, Row, Select, Space, Switch, Table, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import { useAuth } from '../../auth/auth.tsx';
import { messageOf } from '../../../../shared/feedback.ts';
import { QueryError, useAction } from '../../../../shared/antd/feedback.tsx';
import { toQuery } from '../../../../shared/list/params.ts';
import { useListParams } from '../../../../shared/list/useList.ts';
import { addStrings } from '../../i18n/index.ts';
import { strings } from './strings.ts';
import { useListTable } from '../../../../shared/antd/listTable.tsx';

addStrings('dictionaries', strings);

const listDictionaries = (query: Record<string, string | number>) => unwrap(api.GET('/api/admin/dictionaries', { params: { query: query as never } }));
type Entry = Awaited<ReturnType<typeof listDictionaries>>['list'][number];

const CODE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/;
const TYPES_PAGE = 20;
/** Keys of the URL that belong to the types column, not to the items' filters. */
const TYPE_KEYS = ['type', 'type_name', 'type_page'];

export default function Dictionaries() {
  const { t } = useTranslation(['dictionaries', 'common']);
  const table = useListTable();
  const { can } = useAuth();
  const run = useAction();
  const queryClient = useQueryClient();
  const { params, setFilters, pagination } = useListParams();
  const [editing, setEditing] = useState<{ entry: Entry | null; parent: Entry | null } | null>(null);
  const f = params.filters;
  const typeId = Number(f.type) || undefined;
  const typePage = Math.max(1, Number(f.type_page) || 1);
  const typeFilters = Object.fromEntries(Object.entries(f).filter(([k]) => TYPE_KEYS.includes(k)));
  const itemFilters = Object.fromEntries(Object.entries(f).filter(([k]) => !TYPE_KEYS.includes(k)));

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
  const items = useQuery({
    queryKey: ['dictionaries', 'items', typeId, params],
    queryFn: () => listDictionaries({ ...toQuery({ ...params, filters: itemFilters }), parent_id: typeId!, order_by: params.orderBy ?? 'sort:asc' }),
    enabled: typeId !== undefined,
    placeholderData: keepPreviousData,
  });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['dictionaries'] });

  const chooseType = (id: number | undefined) => setFilters({ ...typeFilters, type: id === undefined ? undefined : String(id) });
  const setStatus = (e: Entry, status: 0 | 1) =>
    void run(() => unwrap(api.PUT('/api/admin/dictionaries/{id}', { params: { path: { id: e.id } }, body: { status } })), t('common:state.saved')).then(refresh);
  const remove = (e: Entry) =>
    void run(() => unwrap(api.DELETE('/api/admin/dictionaries/{id}', { params: { path: { id: e.id } } })), t('common:state.deleted')).then((ok) => {
      if (ok && e.id === typeId) chooseType(undefined);
      refresh();
    });
  const statusSwitch = (e: Entry) => (
    <Switch size="small" checked={e.status === 1} aria-label={`${t('common:field.status')} ${e.code}`} disabled={!can('dictionary.update')} onChange={(on) => setStatus(e, on ? 1 : 0)} />
  );

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
            onSearch={(v) => setFilters({ ...itemFilters, type: f.type, type_name: v.trim() || undefined })}
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
                onChange: (p) => setFilters({ ...f, type_page: p === 1 ? undefined : String(p) }),
              }}
              columns={[
                {
                  title: t('name'), dataIndex: 'name',
                  render: (v: string, e) => (
                    <Button type="link" size="small" style={{ padding: 0 }} onClick={(ev) => { ev.stopPropagation(); chooseType(e.id); }}>{v}</Button>
                  ),
                },
                { title: t('code'), dataIndex: 'code', ellipsis: true, render: (v: string) => <Typography.Text code>{v}</Typography.Text> },
                { title: t('common:field.status'), dataIndex: 'status', width: 70, render: (_: number, e) => statusSwitch(e) },
                {
                  title: t('common:field.actions'), key: 'actions', width: 110,
                  render: (_: unknown, e) => (
                    <Space size={0} onClick={(ev) => ev.stopPropagation()}>
                      {can('dictionary.update') && <Button type="link" size="small" aria-label={t('editType', { name: e.name })} onClick={() => setEditing({ entry: e, parent: null })}>{t('common:action.edit')}</Button>}
                      {can('dictionary.delete') && (
                        <Popconfirm title={t('common:state.confirmDelete', { name: e.name })} description={t('typeHasItems')} onConfirm={() => remove(e)}>
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
          {typeId === undefined ? <Empty description={t('noType')} /> : (
            <>
              <Form
                className="list-filters"
                layout="inline"
                key={JSON.stringify(itemFilters)}
                initialValues={itemFilters}
                onFinish={(v: { name?: string; code?: string; status?: string }) => setFilters({ ...typeFilters, name: v.name?.trim(), code: v.code?.trim(), status: v.status })}
              >
                <Form.Item name="name" label={t('name')} rules={[{ max: 64 }]}><Input allowClear style={{ width: 140 }} /></Form.Item>
                <Form.Item name="code" label={t('code')} rules={[{ max: 64 }]}><Input allowClear style={{ width: 140 }} /></Form.Item>
                <Form.Item name="status" label={t('common:field.status')}>
                  <Select allowClear style={{ width: 110 }} options={[{ value: '1', label: t('common:field.enabled') }, { value: '0', label: t('common:field.disabled') }]} />
                </Form.Item>
                <Space>
                  <Button type="primary" htmlType="submit">{t('common:action.search')}</Button>
                  <Button onClick={() => setFilters(typeFilters)}>{t('common:action.reset')}</Button>
                </Space>
              </Form>
              <div className="list-toolbar">
                {can('dictionary.create') && type && <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing({ entry: null, parent: type })}>{t('newItem')}</Button>}
              </div>
              {items.error ? <QueryError error={items.error} onRetry={() => void items.refetch()} /> : (
                <Table<Entry>
                  rowKey="id"
                  loading={items.isFetching}
                  dataSource={items.data?.list ?? []}
                  locale={{ emptyText: Object.keys(itemFilters).length > 0 ? t('common:state.emptyFiltered') : t('common:state.empty') }}
                  pagination={pagination(items.data?.total ?? 0)}
                  {...table<Entry>([
                    { title: t('name'), dataIndex: 'name' },
                    { title: t('code'), dataIndex: 'code', render: (v: string) => <Typography.Text code>{v}</Typography.Text> },
                    { title: t('value'), dataIndex: 'value', render: (v: string) => v || '—' },
                    { title: t('common:field.sort'), dataIndex: 'sort', width: 70 },
                    { title: t('common:field.description'), dataIndex: 'description', ellipsis: true, render: (v: string) => v || '—' },
                    { title: t('common:field.status'), dataIndex: 'status', width: 80, render: (_: number, e) => statusSwitch(e) },
                    {
                      title: t('common:field.actions'), key: 'actions', fixed: 'right', width: 130,
                      render: (_: unknown, e) => (
                        <Space size={0}>
                          {can('dictionary.update') && <Button type="link" size="small" aria-label={`${t('common:action.edit')} ${e.code}`} onClick={() => setEditing({ entry: e, parent: type ?? null })}>{t('common:action.edit')}</Button>}
                          {can('dictionary.delete') && (
                            <Popconfirm title={t('common:state.confirmDelete', { name: e.name })} onConfirm={() => remove(e)}>
                              <Button type="link" size="small" danger aria-label={`${t('common:action.delete')} ${e.code}`}>{t('common:action.delete')}</Button>
                            </Popconfirm>
                          )}
                        </Space>
                      ),
                    },
                  ])}
                />
              )}
            </>
          )}
        </Card>
      </Col>
      {editing && (
        <EntryForm
          entry={editing.entry}
          parent={editing.parent}
          onClose={(saved) => {
            setEditing(null);
            if (saved) {
              refresh();
              // A new type is chosen at once, to add its items.
              if (typeof saved === 'object' && saved.parent_id === 0) chooseType(saved.id);
            }
          }}
        />
      )}
    </Row>
  );
}

interface FormValues {
  name: string;
  code: string;
  value?: string;
  description?: string;
  sort?: number | null;
  status?: boolean;
}
const FIELDS = ['name', 'code', 'value', 'description', 'sort', 'status'];

/** Creates or edits a type (`parent` null) or an item of `parent`. */
function EntryForm({ entry, parent, onClose }: { entry: Entry | null; parent: Entry | null; onClose: (saved: Entry | boolean) => void }) {
  const { t } = useTranslation(['dictionaries', 'common']);
  const [form] = Form.useForm<FormValues>();
  const [busy, setBusy] = useState(false);
  const { message } = App.useApp();
  const save = async (v: FormValues) => {
    setBusy(true);
    const body = {
      name: v.name.trim(), code: v.code.trim(), value: v.value ?? '', description: v.description ?? '',
      sort: v.sort ?? 0, status: v.status === false ? 0 : 1,
    };
    try {
      const saved = entry
        ? await unwrap(api.PUT('/api/admin/dictionaries/{id}', { params: { path: { id: entry.id } }, body }))
        : await unwrap(api.POST('/api/admin/dictionaries', { body: { ...body, parent_id: parent?.id ?? 0 } }));
      void message.success(t('common:state.saved'));
      onClose(saved ?? true);
    } catch (err) {
      // A duplicate code (30002) is about the code; a validation failure names its field.
      const field = err instanceof ApiError
        ? err.code === 30002 ? 'code' : err.field && FIELDS.includes(err.field) ? err.field : undefined
        : undefined;
      if (field) form.setFields([{ name: field as keyof FormValues, errors: [messageOf(err, t)] }]);
      else void message.error(messageOf(err, t));
    }
    setBusy(false);
  };
  const title = entry ? t('editTitle', { name: entry.name }) : parent ? t('createItem', { name: parent.name }) : t('createType');
  return (
    <Modal open title={title} onCancel={() => onClose(false)} onOk={() => form.submit()} okText={t('common:action.save')} cancelText={t('common:action.cancel')} confirmLoading={busy} destroyOnHidden>
      <Form<FormValues>
        form={form}
        name="dictionary-entry"
        layout="vertical"
        onFinish={(v) => void save(v)}
        initialValues={entry
          ? { name: entry.name, code: entry.code, value: entry.value, description: entry.description, sort: entry.sort, status: entry.status === 1 }
          : { status: true, sort: 0 }}
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
          <Form.Item name="status" label={t('common:field.enabled')} valuePropName="checked"><Switch /></Form.Item>
        </Space>
      </Form>
    </Modal>
  );
}
