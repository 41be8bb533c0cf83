// QR codes: created on a site, activated and deactivated, moved to another site, and printed
// (a sheet per code). Site and state filters live in the URL (the list kit); the server answers
// every code at once (no pages). Codes are never deleted: clock history names them.
import { PlusOutlined, PrinterOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Form, Input, Select, Space, Switch, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { api, call, type Body } from '../api/client.ts';
import type { paths } from '../api/schema.gen.ts';
import { useAction } from '../../../shared/antd/feedback.tsx';
import { FormModal } from '../../../shared/antd/FormModal.tsx';
import { ListView, type Column } from '../../../shared/antd/ListView.tsx';
import { useSave } from '../../../shared/antd/useSave.ts';
import type { QueryOf } from '../../../shared/list/params.ts';
import { useListParams } from '../../../shared/list/useList.ts';
import { fmt, useSites } from './common.tsx';

type Query = QueryOf<paths, '/api/managers/qr-codes'>;
const listCodes = (query: Query) => call(api.GET('/api/managers/qr-codes', { params: { query } }));
type Qr = Awaited<ReturnType<typeof listCodes>>[number];

export default function QrCodes() {
  const { t } = useTranslation('manager');
  const run = useAction();
  const client = useQueryClient();
  const sites = useSites();
  const list = useListParams<Query>();
  const [creating, setCreating] = useState(false);
  const [moving, setMoving] = useState<Qr | null>(null);
  const siteId = list.filters.siteId ? Number(list.filters.siteId) : undefined;
  const active = list.filters.active === 'true' ? true : list.filters.active === 'false' ? false : undefined;
  const query = { ...(siteId ? { siteId } : {}), ...(active !== undefined ? { active } : {}) };
  const codes = useQuery({ queryKey: ['qr', query], queryFn: () => listCodes(query) });
  const refresh = () => { void client.invalidateQueries({ queryKey: ['qr'] }); void client.invalidateQueries({ queryKey: ['sites'] }); };
  const siteOptions = (sites.data ?? []).map((s) => ({ value: s.id, label: s.name }));
  // A code on a site without a fence cannot be used for clocking: only fenced sites are offered.
  const fencedOptions = (sites.data ?? []).filter((s) => s.fence).map((s) => ({ value: s.id, label: s.name }));
  const unfenced = (sites.data ?? []).filter((s) => !s.fence).map((s) => s.name);
  const toggle = (q: Qr, is_active: boolean) =>
    void run(() => call(api.PATCH('/api/managers/qr-codes/{id}', { params: { path: { id: q.id } }, body: { is_active } })), t('state.saved')).then(refresh);

  const columns: Column<Qr, Query>[] = [
    { title: t('qr.name'), dataIndex: 'name' },
    { title: t('qr.site'), dataIndex: 'siteName', filter: { kind: 'select', key: 'siteId', width: 220, placeholder: t('qr.allSites'), options: siteOptions } },
    { title: t('qr.value'), dataIndex: 'id', render: (v: string) => <Typography.Text code copyable>{v}</Typography.Text> },
    { title: t('qr.createdAt'), dataIndex: 'created_at', render: (v: string) => fmt(v) },
    {
      title: t('qr.active'), dataIndex: 'is_active',
      filter: { kind: 'select', key: 'active', width: 160, placeholder: t('qr.anyState'), options: [{ value: 'true', label: t('qr.active') }, { value: 'false', label: t('qr.inactive') }] },
      render: (v: boolean, q) => <Switch checked={v} aria-label={`${v ? t('qr.deactivate') : t('qr.activate')} ${q.name}`} checkedChildren={t('qr.active')} unCheckedChildren={t('qr.inactive')} onChange={(on) => toggle(q, on)} />,
    },
    {
      // The server decides whether workers can clock with the code now, and why not.
      title: t('qr.usable'), dataIndex: 'usable',
      render: (v: boolean, q) => v ? <Tag color="green">{t('qr.usableYes')}</Tag> : (
        <Space direction="vertical" size={0} data-testid={`unusable-${q.id}`}>
          <Tag color="red">{t('qr.usableNo')}</Tag>
          {q.unusable_reason && <Typography.Text type="secondary">{t(`qr.reason.${q.unusable_reason}`)}</Typography.Text>}
        </Space>
      ),
    },
    {
      title: '', key: 'a',
      render: (_, q) => (
        <Space size={0}>
          <Button type="link" onClick={() => setMoving(q)}>{t('qr.move')}</Button>
          <Link to={`/manager/qr/${q.id}/print`} target="_blank"><Button type="link" icon={<PrinterOutlined />}>{t('qr.printSheet')}</Button></Link>
        </Space>
      ),
    },
  ];

  return (
    <Card>
      <ListView list={{ ...list, query: codes }} rows={codes.data ?? []} columns={columns} name="qr-codes" instant cards label={t('nav.qr')}
        toolbar={<Space className="mgr-filters"><Button type="primary" icon={<PlusOutlined />} onClick={() => setCreating(true)}>{t('qr.create')}</Button></Space>} />
      {creating && <CreateQr siteOptions={fencedOptions} unfenced={unfenced} siteId={fencedOptions.some((o) => o.value === siteId) ? siteId : undefined} onClose={(saved) => { setCreating(false); if (saved) refresh(); }} />}
      {moving && <MoveQr qr={moving} siteOptions={fencedOptions.some((o) => o.value === moving.siteId) ? fencedOptions : [{ value: moving.siteId, label: moving.siteName }, ...fencedOptions]} unfenced={unfenced} onClose={(saved) => { setMoving(null); if (saved) refresh(); }} />}
    </Card>
  );
}

/** Why some sites are not offered: they have no fence (and where to draw one). */
function UnfencedNote({ unfenced }: { unfenced: string[] }) {
  const { t } = useTranslation('manager');
  if (!unfenced.length) return null;
  return (
    <Alert type="info" showIcon style={{ marginBottom: 16 }} data-testid="unfenced-note"
      message={t('qr.unfencedNotOffered', { count: unfenced.length, names: unfenced.join(t('sites.listSeparator')) })}
      description={<>{t('qr.unfencedWhy')} <Link to="/manager/sites">{t('qr.toSites')}</Link></>} />
  );
}

function CreateQr({ siteOptions, unfenced, siteId, onClose }: { siteOptions: { value: number; label: string }[]; unfenced: string[]; siteId?: number | undefined; onClose: (saved: boolean) => void }) {
  const { t } = useTranslation('manager');
  const [form] = Form.useForm<Body<'/api/managers/qr-codes', 'post'>>();
  const { submit, isPending } = useSave(form, {
    save: (v) => call(api.POST('/api/managers/qr-codes', { body: { name: v.name.trim(), siteId: v.siteId } })),
    onSaved: () => onClose(true),
  });
  return (
    <FormModal form={form} name="qr" title={t('qr.create')} okDisabled={siteOptions.length === 0} pending={isPending} onClose={() => onClose(false)}
      onFinish={submit}
      initialValues={{ siteId: siteId ?? siteOptions[0]?.value }}
      intro={<>
        <UnfencedNote unfenced={unfenced} />
        {siteOptions.length === 0 && <Alert type="warning" showIcon style={{ marginBottom: 16 }} message={t('qr.noFencedSite')} />}
      </>}
    >
      <Form.Item name="name" label={t('qr.name')} rules={[{ required: true, whitespace: true, message: t('workers.required') }, { max: 128 }]}>
        <Input />
      </Form.Item>
      <Form.Item name="siteId" label={t('qr.site')} rules={[{ required: true, message: t('workers.required') }]}>
        <Select options={siteOptions} />
      </Form.Item>
    </FormModal>
  );
}

function MoveQr({ qr, siteOptions, unfenced, onClose }: { qr: Qr; siteOptions: { value: number; label: string }[]; unfenced: string[]; onClose: (saved: boolean) => void }) {
  const { t } = useTranslation('manager');
  const [form] = Form.useForm<{ siteId: number }>();
  const { submit, isPending } = useSave(form, {
    save: (v) => call(api.PATCH('/api/managers/qr-codes/{id}', { params: { path: { id: qr.id } }, body: { siteId: v.siteId } })),
    onSaved: () => onClose(true),
  });
  return (
    <FormModal form={form} name="qr-move" title={`${t('qr.move')} — ${qr.name}`} pending={isPending} onClose={() => onClose(false)}
      onFinish={submit}
      initialValues={{ siteId: qr.siteId }}
      intro={<UnfencedNote unfenced={unfenced.filter((n) => n !== qr.siteName)} />}
    >
      <Form.Item name="siteId" label={t('qr.site')} rules={[{ required: true, message: t('workers.required') }]}>
        <Select options={siteOptions} />
      </Form.Item>
    </FormModal>
  );
}
