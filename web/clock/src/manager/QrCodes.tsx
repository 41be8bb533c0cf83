// QR codes: created on a site, activated and deactivated, moved to another site, and printed
// (a sheet per code). Site and state filters live in the URL. Codes are never deleted: clock
// history names them.
import { PlusOutlined, PrinterOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Form, Input, Select, Space, Switch, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { api, call, type Body } from '../api/client.ts';
import { useAction } from '../../../shared/antd/feedback.tsx';
import { FormModal } from '../../../shared/antd/FormModal.tsx';
import { useSave } from '../../../shared/antd/useSave.ts';
import { fmt, useSites, useUrlFilters } from './common.tsx';
import { QueryDataList } from '../../../shared/antd/DataList.tsx';

type Qr = { id: string; name: string; is_active: boolean; created_at: string; siteId: number; siteName: string; usable: boolean; unusable_reason: 'INACTIVE' | 'GEOFENCE_NOT_CONFIGURED' | null };

export default function QrCodes() {
  const { t } = useTranslation('manager');
  const run = useAction();
  const client = useQueryClient();
  const sites = useSites();
  const { filters, set } = useUrlFilters();
  const [creating, setCreating] = useState(false);
  const [moving, setMoving] = useState<Qr | null>(null);
  const siteId = filters.site ? Number(filters.site) : undefined;
  const active = filters.active === 'true' ? true : filters.active === 'false' ? false : undefined;
  const query = { ...(siteId ? { siteId } : {}), ...(active !== undefined ? { active } : {}) };
  const list = useQuery({ queryKey: ['qr', query], queryFn: () => call(api.GET('/api/managers/qr-codes', { params: { query } })) });
  const refresh = () => { void client.invalidateQueries({ queryKey: ['qr'] }); void client.invalidateQueries({ queryKey: ['sites'] }); };
  const siteOptions = (sites.data ?? []).map((s) => ({ value: s.id, label: s.name }));
  // A code on a site without a fence cannot be used for clocking: only fenced sites are offered.
  const fencedOptions = (sites.data ?? []).filter((s) => s.fence).map((s) => ({ value: s.id, label: s.name }));
  const unfenced = (sites.data ?? []).filter((s) => !s.fence).map((s) => s.name);
  const toggle = (q: Qr, is_active: boolean) =>
    void run(() => call(api.PATCH('/api/managers/qr-codes/{id}', { params: { path: { id: q.id } }, body: { is_active } })), t('state.saved')).then(refresh);

  return (
    <Card>
      <Space wrap className="mgr-filters">
        <Select aria-label={t('qr.site')} style={{ minWidth: 220 }} value={siteId ?? ''} onChange={(v) => set({ site: v || undefined })}
          options={[{ value: '', label: t('qr.allSites') }, ...siteOptions]} />
        <Select aria-label={t('qr.active')} style={{ width: 160 }} value={filters.active ?? ''} onChange={(v) => set({ active: v })}
          options={[{ value: '', label: t('qr.anyState') }, { value: 'true', label: t('qr.active') }, { value: 'false', label: t('qr.inactive') }]} />
        <Button type="primary" icon={<PlusOutlined />} onClick={() => setCreating(true)}>{t('qr.create')}</Button>
      </Space>
      <QueryDataList
        query={list}
        empty={siteId || active !== undefined ? t('state.noMatch') : t('state.empty')}
        rowKey="id"
        aria-label={t('nav.qr')}
        dataSource={list.data ?? []}
        pagination={{ pageSize: 50, hideOnSinglePage: true }}
        columns={[
          { title: t('qr.name'), dataIndex: 'name' },
          { title: t('qr.site'), dataIndex: 'siteName' },
          { title: t('qr.value'), dataIndex: 'id', render: (v: string) => <Typography.Text code copyable>{v}</Typography.Text> },
          { title: t('qr.createdAt'), dataIndex: 'created_at', render: (v: string) => fmt(v) },
          {
            title: t('qr.active'), dataIndex: 'is_active',
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
        ]}
      />
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
