// Webhooks: endpoints (create, edit, activate, delete), the signing secret shown only when it
// is created or rotated, and each endpoint's deliveries with a re-send. The endpoints are a short
// list the server answers at once (a table of them all); the deliveries are paged, their filter
// and page kept in the drawer (the list kit).
import { PlusOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Checkbox, Drawer, Form, Input, Modal, Popconfirm, Space, Switch, Tag, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, call, limitQuery, type Body, type ListQuery } from '../api/client.ts';
import { FormModal } from '../../../shared/antd/FormModal.tsx';
import { ListView, type Column } from '../../../shared/antd/ListView.tsx';
import { listQuery, type PageOf } from '../../../shared/list/params.ts';
import { useList } from '../../../shared/list/useList.ts';
import { useSave } from '../../../shared/antd/useSave.ts';
import { QueryDataList, useNarrow } from '../../../shared/antd/DataList.tsx';
import { fmt } from './common.tsx';
import { useChange } from '../../../shared/antd/useChange.ts';

const EVENTS = ['worker.clock_in', 'worker.clock_out', 'security.violation'] as const;
type Hook = { id: number; url: string; events: string[]; description: string; is_active: boolean; created_at: string };
const STATUS_COLOR = { pending: 'default', processing: 'blue', delivered: 'green', failed: 'red' } as const;
type DeliveriesPath = '/api/managers/webhooks/{id}/deliveries';
type DeliveriesQuery = ListQuery<DeliveriesPath>;
const deliveriesOf = (id: number) => listQuery(['deliveries', String(id)], (query: DeliveriesQuery) =>
  call(api.GET('/api/managers/webhooks/{id}/deliveries', { params: { path: { id }, query: limitQuery<DeliveriesPath>(query) } }))
    .then((r) => ({ list: r.deliveries, total: r.totalCount })));
type Delivery = PageOf<ReturnType<typeof deliveriesOf>>['list'][number];

export default function Webhooks() {
  const { t } = useTranslation('manager');
  const { change, refresh } = useChange(['webhooks']);
  const [editing, setEditing] = useState<Hook | 'new' | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [viewing, setViewing] = useState<Hook | null>(null);
  const list = useQuery({ queryKey: ['webhooks'], queryFn: () => call(api.GET('/api/managers/webhooks')) });
  const toggle = (h: Hook, is_active: boolean) =>
    void change(() => call(api.PATCH('/api/managers/webhooks/{id}', { params: { path: { id: h.id } }, body: { is_active } })), t('state.saved'));
  const remove = (h: Hook) => void change(() => call(api.DELETE('/api/managers/webhooks/{id}', { params: { path: { id: h.id } } })), t('state.deleted'));
  const rotate = async (h: Hook) => {
    let s = '';
    if (await change(async () => { s = (await call(api.POST('/api/managers/webhooks/{id}/rotate-secret', { params: { path: { id: h.id } } }))).secret; }, t('state.saved'))) setSecret(s);
  };
  return (
    <Card>
      <Space className="mgr-filters">
        <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing('new')}>{t('webhooks.create')}</Button>
      </Space>
      <QueryDataList
        query={list}
        empty={t('webhooks.none')}
        rowKey="id"
        aria-label={t('nav.webhooks')}
        dataSource={list.data ?? []}
        pagination={false}
        columns={[
          { title: t('webhooks.url'), dataIndex: 'url', render: (v: string, h) => <span><Typography.Text code>{v}</Typography.Text>{h.description && <><br /><Typography.Text type="secondary">{h.description}</Typography.Text></>}</span> },
          { title: t('webhooks.events'), dataIndex: 'events', render: (v: string[]) => v.map((e) => <Tag key={e}>{e}</Tag>) },
          { title: t('webhooks.active'), dataIndex: 'is_active', render: (v: boolean, h) => <Switch checked={v} aria-label={`${t('webhooks.active')} ${h.url}`} onChange={(on) => toggle(h, on)} /> },
          {
            title: '', key: 'a',
            render: (_, h) => (
              <Space size={0} wrap>
                <Button type="link" onClick={() => setViewing(h)}>{t('webhooks.deliveries')}</Button>
                <Button type="link" onClick={() => setEditing(h)}>{t('action.edit')}</Button>
                <Popconfirm title={t('webhooks.rotateConfirm')} onConfirm={() => void rotate(h)} okText={t('webhooks.rotate')} cancelText={t('action.cancel')}>
                  <Button type="link">{t('webhooks.rotate')}</Button>
                </Popconfirm>
                <Popconfirm title={t('action.confirmDelete')} onConfirm={() => remove(h)} okText={t('action.delete')} cancelText={t('action.cancel')}>
                  <Button type="link" danger>{t('action.delete')}</Button>
                </Popconfirm>
              </Space>
            ),
          },
        ]}
      />
      {editing && <HookForm hook={editing === 'new' ? null : editing} onClose={(created) => { setEditing(null); refresh(); if (created) setSecret(created); }} />}
      {secret && (
        <Modal open title={t('webhooks.secretTitle')} onCancel={() => setSecret(null)} footer={<Button type="primary" onClick={() => setSecret(null)}>{t('common:action.close')}</Button>}>
          <Alert type="warning" showIcon message={t('webhooks.secretOnce')} style={{ marginBottom: 12 }} />
          <Typography.Paragraph copyable={{ text: secret }} className="mgr-secret" aria-label={t('webhooks.secretTitle')}>{secret}</Typography.Paragraph>
        </Modal>
      )}
      {viewing && <Deliveries hook={viewing} onClose={() => setViewing(null)} />}
    </Card>
  );
}

function HookForm({ hook, onClose }: { hook: Hook | null; onClose: (secret?: string) => void }) {
  const { t } = useTranslation('manager');
  const [form] = Form.useForm<Body<'/api/managers/webhooks', 'post'>>();
  const { submit, isPending } = useSave(form, {
    save: async (v) => {
      const body = { url: v.url.trim(), events: v.events, description: v.description ?? '' };
      if (hook) await call(api.PATCH('/api/managers/webhooks/{id}', { params: { path: { id: hook.id } }, body }));
      else return (await call(api.POST('/api/managers/webhooks', { body }))).secret;
    },
    onSaved: (secret) => onClose(secret),
  });
  return (
    <FormModal form={form} name="webhook" title={hook ? t('webhooks.edit') : t('webhooks.create')} pending={isPending} onClose={() => onClose()}
      onFinish={submit}
      initialValues={hook ? { url: hook.url, events: hook.events, description: hook.description } : { events: ['worker.clock_in'] }}
    >
      <Form.Item name="url" label={t('webhooks.url')} rules={[{ required: true, message: t('workers.required') }, { pattern: /^https?:\/\/\S{1,2040}$/i, message: t('webhooks.urlRule') }]}>
        <Input placeholder="https://hooks.example.com/fieldops" />
      </Form.Item>
      <Form.Item name="events" label={t('webhooks.events')} rules={[{ required: true, type: 'array', min: 1, message: t('webhooks.eventsRule') }]}>
        <Checkbox.Group options={EVENTS.map((e) => ({ value: e, label: e }))} />
      </Form.Item>
      <Form.Item name="description" label={t('webhooks.description')} rules={[{ max: 255 }]}>
        <Input />
      </Form.Item>
    </FormModal>
  );
}

function Deliveries({ hook, onClose }: { hook: Hook; onClose: () => void }) {
  const { t } = useTranslation('manager');
  const narrow = useNarrow();
  const deliveries = useMemo(() => deliveriesOf(hook.id), [hook.id]);
  const { change } = useChange(deliveries.key);
  const list = useList(deliveries, 20, { local: {}, refetchInterval: 5_000 });
  const resend = (id: number) =>
    void change(() => call(api.POST('/api/managers/webhooks/deliveries/{id}/resend', { params: { path: { id } } })), t('state.done'));
  const columns: Column<Delivery, DeliveriesQuery>[] = [
    { title: t('alerts.time'), dataIndex: 'created_at', render: (v: string) => fmt(v) },
    { title: t('webhooks.events'), dataIndex: 'event' },
    {
      title: t('webhooks.status'), dataIndex: 'status',
      filter: { kind: 'select', key: 'status', width: 180, placeholder: t('webhooks.anyStatus'), options: (['pending', 'processing', 'delivered', 'failed'] as const).map((s) => ({ value: s, label: t(`webhooks.${s}`) })) },
      render: (v: keyof typeof STATUS_COLOR) => <Tag color={STATUS_COLOR[v]}>{t(`webhooks.${v}`)}</Tag>,
    },
    { title: t('webhooks.attempts'), dataIndex: 'attempts' },
    { title: t('webhooks.lastStatus'), dataIndex: 'last_status_code', render: (v: number | null) => v ?? '—' },
    { title: '', key: 'a', render: (_, d) => <Button size="small" onClick={() => resend(d.id)}>{t('webhooks.resend')}</Button> },
  ];
  return (
    <Drawer open width={narrow ? '100%' : 760} title={`${t('webhooks.deliveries')} — ${hook.url}`} onClose={onClose}>
      <ListView list={list} columns={columns} name="deliveries" instant cards empty={t('webhooks.noDeliveries')} emptyFiltered={t('webhooks.noDeliveries')}
        table={{ size: 'small', expandable: { expandedRowRender: (d) => <pre className="mgr-details">{JSON.stringify(d.payload, null, 2)}{d.last_error ? `\n\n${d.last_error}` : ''}</pre> } }} />
    </Drawer>
  );
}
