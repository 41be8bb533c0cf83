// Payment methods: list (filters in the URL), create, edit, delete. `config` is edited as
// key/value rows or as JSON; secrets come back masked (`******`) and are kept unless re-entered.
// A method with payment records is not deleted: the server's message says so.
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { Alert, Button, Card, Checkbox, Form, Input, InputNumber, Segmented, Space, Switch, Tag, Tooltip, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { FormModal } from '../../../../shared/antd/FormModal.tsx';
import { ListView, type Column } from '../../../../shared/antd/ListView.tsx';
import { useSave } from '../../../../shared/antd/useSave.ts';
import type { PageOf } from '../../../../shared/list/params.ts';
import { useList } from '../../../../shared/list/useList.ts';
import { api, unwrap, type Body, type ListQuery } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import { useAuth } from '../../auth/auth.tsx';
import { addStrings } from '../../i18n/index.ts';
import { configFromRows, configText, parseConfigText, rowsFromConfig, SECRET_MASK, type ConfigRow } from './config.ts';
import { paymentMethodsQuery } from './query.ts';
import { strings } from './strings.ts';
import { RowActions } from '../../../../shared/antd/RowActions.tsx';
import { useChange } from '../../../../shared/antd/useChange.ts';

addStrings('paymentMethods', strings);

type Method = PageOf<typeof paymentMethodsQuery>['list'][number];
const CODE_RE = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/;

export default function PaymentMethods() {
  const { t } = useTranslation(['paymentMethods', 'common']);
  const { can } = useAuth();
  const { change } = useChange(['payment-methods']);
  const list = useList(paymentMethodsQuery);
  const [editing, setEditing] = useState<Method | 'new' | null>(null);
  const remove = (m: Method) =>
    void change(() => unwrap(api.DELETE('/api/admin/payment-methods/{id}', { params: { path: { id: m.id } } })), t('common:state.deleted'));
  const setActive = (m: Method, on: boolean) =>
    void change(() => unwrap(api.PUT('/api/admin/payment-methods/{id}', { params: { path: { id: m.id } }, body: { name: m.name, is_active: on } })), t('common:state.saved'));

  const columns: Column<Method, ListQuery<'/api/admin/payment-methods'>>[] = [
    { title: t('common:field.id'), dataIndex: 'id', width: 70 },
    { title: t('name'), dataIndex: 'name', width: 180, filter: { kind: 'text', key: 'name', max: 64 } },
    { title: t('code'), dataIndex: 'code', width: 180, render: (v: string) => <Typography.Text code>{v}</Typography.Text>, filter: { kind: 'text', key: 'code', max: 64 } },
    { title: t('type'), dataIndex: 'type', render: (v: string) => <Tag>{v}</Tag>, filter: { kind: 'text', key: 'type', max: 32, width: 120 } },
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
      filter: { kind: 'select', key: 'is_active', width: 110, options: [{ value: '1', label: t('active') }, { value: '0', label: t('inactive') }] },
      render: (on: boolean, m) => (
        <Switch size="small" checked={on} aria-label={`${t('isActive')} ${m.name}`} disabled={!can('payment-method.update')} onChange={(v) => setActive(m, v)} />
      ),
    },
    { detail: true, title: t('common:field.description'), dataIndex: 'description', ellipsis: true },
    { detail: true, title: t('common:field.updatedAt'), dataIndex: 'updated_at', width: 180 },
    {
      title: t('common:field.actions'), key: 'actions', fixed: 'right', width: 150,
      render: (_: unknown, m) => (
        <RowActions name={m.name} onEdit={can('payment-method.update') && (() => setEditing(m))} onDelete={can('payment-method.delete') && (() => remove(m))} />
      ),
    },
  ];

  return (
    <Card>
      <ListView
        name="methodFilters"
        list={list}
        columns={columns}
        toolbar={<Space>{can('payment-method.create') && <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing('new')}>{t('common:action.create')}</Button>}</Space>}
      />
      {editing && <MethodForm method={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
    </Card>
  );
}

/** The body, its `config` edited as key/value rows or as JSON text (and set from them on save). */
type Values = Body<'/api/admin/payment-methods', 'post'> & { rows?: ConfigRow[]; json?: string };

function MethodForm({ method, onClose }: { method: Method | null; onClose: () => void }) {
  const { t } = useTranslation(['paymentMethods', 'common']);
  const [form] = Form.useForm<Values>();
  const [mode, setMode] = useState<'rows' | 'json'>('rows');
  const [configError, setConfigError] = useState<string | null>(null);
  const { submit, isPending, mutation } = useSave(form, {
    save: ({ rows: _rows, json: _json, ...v }) => {
      const body = { ...v, sort: v.sort ?? 0, description: v.description ?? '' };
      return method
        ? unwrap(api.PUT('/api/admin/payment-methods/{id}', { params: { path: { id: method.id } }, body }))
        : unwrap(api.POST('/api/admin/payment-methods', { body }));
    },
    invalidates: [['payment-methods']],
    onSaved: onClose,
  });
  // A refusal of the config (it has no field of its own in the form) is shown under it.
  const refused = mutation.error instanceof ApiError && mutation.error.field?.startsWith('config') ? mutation.error.message : null;

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

  const save = (v: Values) => {
    const c = currentConfig();
    if ('error' in c) {
      setConfigError(c.error);
      return;
    }
    setConfigError(null);
    submit({ ...v, config: c.config });
  };

  return (
    <FormModal form={form} width={760} title={method ? t('editTitle', { name: method.name }) : t('createTitle')} pending={isPending} onClose={onClose}
      name="method"
      onFinish={save}
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
      {(configError ?? refused) && <Alert type="error" showIcon title={configError ?? refused} style={{ marginTop: 8 }} />}
    </FormModal>
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
