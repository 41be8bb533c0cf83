// Payment methods: list (filters in the URL), create, edit, delete. `config` is edited as
// key/value rows or as JSON; secrets come back masked (`******`) and are kept unless re-entered.
// A method with payment records is not deleted: the server's message says so.
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Checkbox, Form, Input, InputNumber, Modal, Popconfirm, Segmented, Select, Space, Switch, Table, Tag, Tooltip, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import { useAuth } from '../../auth/auth.tsx';
import { fieldErrorsOf } from '../../../../shared/feedback.ts';
import { QueryError, useAction } from '../../../../shared/antd/feedback.tsx';
import type { QueryOfList } from '../../../../shared/list/params.ts';
import { useListParams } from '../../../../shared/list/useList.ts';
import { addStrings } from '../../i18n/index.ts';
import { configFromRows, configText, parseConfigText, rowsFromConfig, SECRET_MASK, type ConfigRow } from './config.ts';
import { strings } from './strings.ts';
import { FilterButtons } from '../../../../shared/antd/FilterButtons.tsx';
import { type listMethods, paymentMethodsQuery } from './query.ts';
import { useListTable } from '../../../../shared/antd/listTable.tsx';

addStrings('paymentMethods', strings);

type Method = Awaited<ReturnType<typeof listMethods>>['list'][number];
const CODE_RE = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/;

export default function PaymentMethods() {
  const { t } = useTranslation(['paymentMethods', 'common']);
  const table = useListTable();
  const { can } = useAuth();
  const run = useAction();
  const queryClient = useQueryClient();
  const { params, setFilters, pagination } = useListParams<QueryOfList<typeof paymentMethodsQuery>>();
  const [editing, setEditing] = useState<Method | 'new' | null>(null);
  const f = params.filters;
  const list = useQuery({ ...paymentMethodsQuery(params), placeholderData: keepPreviousData });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['payment-methods'] });
  const remove = (m: Method) =>
    void run(() => unwrap(api.DELETE('/api/admin/payment-methods/{id}', { params: { path: { id: m.id } } })), t('common:state.deleted')).then(refresh);
  const setActive = (m: Method, on: boolean) =>
    void run(() => unwrap(api.PUT('/api/admin/payment-methods/{id}', { params: { path: { id: m.id } }, body: { name: m.name, is_active: on } })), t('common:state.saved')).then(refresh);

  return (
    <Card>
      <Form
        name="methodFilters"
        className="list-filters"
        layout="inline"
        key={JSON.stringify(f)}
        initialValues={f}
        onFinish={(v: Record<string, string | undefined>) => setFilters({ name: v.name?.trim(), code: v.code?.trim(), type: v.type?.trim(), is_active: v.is_active })}
      >
        <Form.Item name="name" label={t('name')} rules={[{ max: 64 }]}><Input allowClear /></Form.Item>
        <Form.Item name="code" label={t('code')} rules={[{ max: 64 }]}><Input allowClear /></Form.Item>
        <Form.Item name="type" label={t('type')} rules={[{ max: 32 }]}><Input allowClear style={{ width: 120 }} /></Form.Item>
        <Form.Item name="is_active" label={t('common:field.status')}>
          <Select allowClear style={{ width: 110 }} options={[{ value: '1', label: t('active') }, { value: '0', label: t('inactive') }]} />
        </Form.Item>
        <FilterButtons onReset={() => setFilters({})} />
      </Form>
      <div className="list-toolbar">
        <Space>
          {can('payment-method.create') && <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing('new')}>{t('common:action.create')}</Button>}
        </Space>
      </div>
      {list.error ? <QueryError error={list.error} onRetry={() => void list.refetch()} /> : (
        <Table<Method>
          rowKey="id"
          loading={list.isFetching}
          dataSource={list.data?.list ?? []}
          locale={{ emptyText: Object.keys(f).length > 0 ? t('common:state.emptyFiltered') : t('common:state.empty') }}
          pagination={pagination(list.data?.total ?? 0)}
          {...table<Method>([
            { title: t('common:field.id'), dataIndex: 'id', width: 70 },
            { title: t('name'), dataIndex: 'name', width: 180 },
            { title: t('code'), dataIndex: 'code', width: 180, render: (v: string) => <Typography.Text code>{v}</Typography.Text> },
            { title: t('type'), dataIndex: 'type', render: (v: string) => <Tag>{v}</Tag> },
            {
              title: t('config'), dataIndex: 'config', width: 200,
              render: (c: Record<string, unknown>) => {
                const keys = Object.keys(c);
                return (
                  <Tooltip title={<pre style={{ margin: 0, whiteSpace: 'pre-wrap' }}>{configText(c)}</pre>}>
                    <Typography.Text type="secondary">{keys.length === 0 ? '—' : keys.slice(0, 4).join(', ') + (keys.length > 4 ? ` … (${t('keys', { count: keys.length })})` : '')}</Typography.Text>
                  </Tooltip>
                );
              },
            },
            { title: t('common:field.sort'), dataIndex: 'sort', width: 80 },
            {
              title: t('common:field.status'), dataIndex: 'is_active',
              render: (on: boolean, m) => (
                <Switch size="small" checked={on} aria-label={`${t('isActive')} ${m.name}`} disabled={!can('payment-method.update')} onChange={(v) => setActive(m, v)} />
              ),
            },
            { detail: true, title: t('common:field.description'), dataIndex: 'description', ellipsis: true },
            { detail: true, title: t('common:field.updatedAt'), dataIndex: 'updated_at', width: 180 },
            {
              title: t('common:field.actions'), key: 'actions', fixed: 'right', width: 150,
              render: (_: unknown, m) => (
                <Space size={0}>
                  {can('payment-method.update') && <Button type="link" size="small" onClick={() => setEditing(m)}>{t('common:action.edit')}</Button>}
                  {can('payment-method.delete') && (
                    <Popconfirm title={t('common:state.confirmDelete', { name: m.name })} onConfirm={() => remove(m)} okText={t('common:action.confirm')} cancelText={t('common:action.cancel')}>
                      <Button type="link" size="small" danger>{t('common:action.delete')}</Button>
                    </Popconfirm>
                  )}
                </Space>
              ),
            },
          ])}
        />
      )}
      {editing && <MethodForm method={editing === 'new' ? null : editing} onClose={(saved) => { setEditing(null); if (saved) refresh(); }} />}
    </Card>
  );
}

interface Values {
  name: string;
  code: string;
  type: string;
  is_active: boolean;
  sort: number;
  description?: string;
  rows?: ConfigRow[];
  json?: string;
}

function MethodForm({ method, onClose }: { method: Method | null; onClose: (saved: boolean) => void }) {
  const { t } = useTranslation(['paymentMethods', 'common']);
  const [form] = Form.useForm<Values>();
  const [mode, setMode] = useState<'rows' | 'json'>('rows');
  const [busy, setBusy] = useState(false);
  const [configError, setConfigError] = useState<string | null>(null);
  const run = useAction();

  /** The config the form holds now, or the field error to show. */
  const currentConfig = (): { config: Record<string, unknown> } | { error: string } => {
    if (mode === 'json') {
      const c = parseConfigText((form.getFieldValue('json') as string | undefined) ?? '');
      return c ? { config: c } : { error: t('notObject') };
    }
    const r = configFromRows((form.getFieldValue('rows') as ConfigRow[] | undefined) ?? []);
    if (r.ok) return { config: r.config };
    return { error: r.problem === 'duplicate' ? t('duplicateKey', { key: r.key }) : t('badJson', { key: r.key }) };
  };

  const switchMode = (next: 'rows' | 'json') => {
    const c = currentConfig();
    if ('error' in c) {
      setConfigError(c.error);
      return;
    }
    setConfigError(null);
    if (next === 'json') form.setFieldValue('json', configText(c.config));
    else form.setFieldValue('rows', rowsFromConfig(c.config));
    setMode(next);
  };

  const save = async (v: Values) => {
    const c = currentConfig();
    if ('error' in c) {
      setConfigError(c.error);
      return;
    }
    setConfigError(null);
    setBusy(true);
    const body = { name: v.name, code: v.code, type: v.type, config: c.config, is_active: v.is_active, sort: v.sort ?? 0, description: v.description ?? '' };
    let failure: unknown;
    const ok = await run(async () => {
      try {
        if (method) await unwrap(api.PUT('/api/admin/payment-methods/{id}', { params: { path: { id: method.id } }, body }));
        else await unwrap(api.POST('/api/admin/payment-methods', { body }));
      } catch (err) {
        failure = err;
        throw err;
      }
    }, t('common:state.saved'));
    setBusy(false);
    if (ok) onClose(true);
    else {
      form.setFields(fieldErrorsOf(failure, ['name', 'code', 'type', 'sort', 'description'], t));
      if (failure instanceof ApiError && failure.field?.startsWith('config')) setConfigError(failure.message);
    }
  };

  return (
    <Modal
      open
      width={760}
      title={method ? t('editTitle', { name: method.name }) : t('createTitle')}
      onCancel={() => onClose(false)}
      onOk={() => form.submit()}
      okText={t('common:action.save')}
      cancelText={t('common:action.cancel')}
      confirmLoading={busy}
      destroyOnHidden
    >
      <Form<Values>
        form={form}
        name="method"
        layout="vertical"
        onFinish={(v) => void save(v)}
        initialValues={method
          ? { name: method.name, code: method.code, type: method.type, is_active: method.is_active, sort: method.sort, description: method.description, rows: rowsFromConfig(method.config) }
          : { is_active: true, sort: 0, rows: [] }}
      >
        <Space wrap align="start">
          <Form.Item name="name" label={t('name')} rules={[{ required: true, whitespace: true, max: 64, message: t('nameRule') }]}><Input style={{ width: 220 }} /></Form.Item>
          <Form.Item name="code" label={t('code')} rules={[{ required: true, max: 64, pattern: CODE_RE, message: t('codeRule') }]}><Input style={{ width: 200 }} /></Form.Item>
          <Form.Item name="type" label={t('type')} rules={[{ required: true, max: 32, pattern: CODE_RE, message: t('typeRule') }]}>
            <Input style={{ width: 160 }} placeholder={t('typeExamples')} />
          </Form.Item>
        </Space>
        <Space wrap align="start">
          <Form.Item name="sort" label={t('common:field.sort')} rules={[{ type: 'integer', min: 0, max: 1_000_000, message: t('sortRule') }]}>
            <InputNumber min={0} max={1_000_000} precision={0} style={{ width: 140 }} />
          </Form.Item>
          <Form.Item name="is_active" label={t('isActive')} valuePropName="checked"><Switch /></Form.Item>
        </Space>
        <Form.Item name="description" label={t('common:field.description')} rules={[{ max: 500, message: t('descriptionRule') }]}><Input.TextArea rows={2} /></Form.Item>
        <Space style={{ marginBottom: 8 }}>
          <Typography.Text strong>{t('config')}</Typography.Text>
          <Segmented
            aria-label={t('configMode')}
            value={mode}
            onChange={(v) => switchMode(v as 'rows' | 'json')}
            options={[{ value: 'rows', label: t('asRows') }, { value: 'json', label: t('asJson') }]}
          />
        </Space>
        <Typography.Paragraph type="secondary" style={{ fontSize: 12 }}>{t('secretHint')}</Typography.Paragraph>
        {mode === 'json' ? (
          <Form.Item name="json" label={t('jsonLabel')} rules={[{ validator: async (_, v: string) => { if (parseConfigText(v ?? '') === null) throw new Error(t('notObject')); } }]}>
            <Input.TextArea rows={8} spellCheck={false} style={{ fontFamily: 'monospace' }} />
          </Form.Item>
        ) : (
          <Form.List name="rows">
            {(fields, { add, remove }, { errors }) => (
              <>
                {fields.map((field, i) => <ConfigRowFields key={field.key} name={field.name} n={i + 1} onRemove={() => remove(field.name)} />)}
                <Form.ErrorList errors={errors} />
                <Button type="dashed" icon={<PlusOutlined />} onClick={() => add({ key: '', value: '', masked: false, json: false })}>{t('addKey')}</Button>
              </>
            )}
          </Form.List>
        )}
        {configError && <Alert type="error" showIcon title={configError} style={{ marginTop: 8 }} />}
      </Form>
    </Modal>
  );
}

function ConfigRowFields({ name, n, onRemove }: { name: number; n: number; onRemove: () => void }) {
  const { t } = useTranslation(['paymentMethods', 'common']);
  const masked = Form.useWatch(['rows', name, 'masked']) as boolean | undefined;
  return (
    <Space align="start" style={{ display: 'flex' }}>
      <Form.Item name={[name, 'key']} rules={[{ required: true, whitespace: true, message: t('key') }]}>
        <Input aria-label={t('keyN', { n })} placeholder={t('key')} style={{ width: 200 }} />
      </Form.Item>
      <Form.Item name={[name, 'value']} extra={masked ? t('maskedHint') : undefined} style={{ width: 300 }}>
        {masked
          ? <Input.Password aria-label={t('valueN', { n })} placeholder={SECRET_MASK} style={{ width: 300 }} autoComplete="new-password" visibilityToggle={false} />
          : <Input aria-label={t('valueN', { n })} placeholder={t('value')} style={{ width: 300 }} />}
      </Form.Item>
      <Form.Item name={[name, 'json']} valuePropName="checked">
        <Checkbox disabled={masked} style={{ whiteSpace: 'nowrap' }}>{t('jsonValue')}</Checkbox>
      </Form.Item>
      <Form.Item name={[name, 'masked']} hidden valuePropName="checked"><Checkbox /></Form.Item>
      <Button aria-label={t('removeKey', { n })} icon={<DeleteOutlined />} onClick={onRemove} />
    </Space>
  );
}
