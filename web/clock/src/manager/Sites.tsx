// Sites: the list, and an editor for the name and the fence — a circle (centre and radius) or a
// polygon (vertices), typed as coordinates or placed by clicking the map, validated as the
// server validates (ranges, at least 3 vertices) with the server's refusals next to the fields.
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { Alert, Button, Card, Form, Input, InputNumber, Popconfirm, Radio, Select, Space, Tag, TimePicker, Typography } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { api, call } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';
import { useSave } from '../../../shared/antd/useSave.ts';
import { FormModal } from '../../../shared/antd/FormModal.tsx';
import { useConsoleSettings, useSites, type Tr } from './common.tsx';
import { FenceMap, type Fence, type Point } from './FenceMap.tsx';
import { useChange } from '../../../shared/antd/useChange.ts';
import { QueryDataList } from '../../../shared/antd/DataList.tsx';

/** The IANA zones the browser knows (a site's zone in another spelling is shown as stored). */
const TIME_ZONES = [...new Set(['UTC', ...Intl.supportedValuesOf('timeZone')])].map((z) => ({ value: z, label: z }));

type Site = NonNullable<ReturnType<typeof useSites>['data']>[number];
type FenceType = 'none' | 'circle' | 'polygon';
interface Values {
  name: string;
  timezone: string;
  closesAt: Dayjs | null;
  type: FenceType;
  center?: Partial<Point>;
  radiusMetres?: number;
  points?: Partial<Point>[];
}

export function fenceSummary(fence: Site['fence'], t: Tr): string {
  if (!fence) return t('sites.noFence');
  return fence.type === 'circle' ? t('sites.summaryCircle', { r: fence.radiusMetres }) : t('sites.summaryPolygon', { n: fence.points.length });
}

export default function Sites() {
  const { t } = useTranslation('manager');
  const sites = useSites();
  const { change, refresh } = useChange(['sites']);
  const [search, setSearch] = useSearchParams();
  const [editingState, setEditing] = useState<Site | 'new' | null>(null);
  // `?edit=<id>`: the editor of that site open (where the first sign-in's banner leads). The
  // sites are one short list (no filters, no pages): a table of them all.
  const edit = search.get('edit');
  const asked = edit ? sites.data?.find((s) => s.id === Number(edit)) ?? null : null;
  const editing = editingState ?? asked;
  const close = (saved: boolean) => {
    setEditing(null);
    if (edit) setSearch({});
    if (saved) refresh();
  };
  const unfenced = (sites.data ?? []).filter((s) => !s.fence);
  const remove = (s: Site) => void change(() => call(api.DELETE('/api/managers/sites/{id}', { params: { path: { id: s.id } } })), t('state.deleted'));
  return (
    <Card>
      <Space className="mgr-filters">
        <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing('new')}>{t('sites.create')}</Button>
      </Space>
      {unfenced.length > 0 && (
        <Alert type="warning" showIcon className="mgr-notice" role="alert"
          message={t('sites.unfencedTitle', { count: unfenced.length, names: unfenced.map((s) => s.name).join(t('sites.listSeparator')) })}
          description={t('sites.unfencedWhy')} />
      )}
      <QueryDataList
        query={sites}
        empty={t('state.empty')}
        rowKey="id"
        aria-label={t('nav.sites')}
        dataSource={sites.data ?? []}
        pagination={{ pageSize: 50, hideOnSinglePage: true }}
        columns={[
          { title: t('sites.name'), dataIndex: 'name', render: (v: string, s) => <span>{v} {s.is_default && <Tag>{t('sites.default')}</Tag>}</span> },
          { title: t('sites.fence'), dataIndex: 'fence', render: (f: Site['fence']) => (f ? fenceSummary(f, t) : <Typography.Text type="danger">{t('sites.noFence')}</Typography.Text>) },
          { title: t('sites.timezone'), dataIndex: 'timezone' },
          { title: t('sites.closesAt'), dataIndex: 'closesAt', render: (v: string | null) => v ?? <Typography.Text type="secondary">{t('sites.noClosing')}</Typography.Text> },
          { title: t('sites.qrCount'), dataIndex: 'qr_code_count' },
          {
            title: '', key: 'a',
            render: (_, s) => (
              <Space size={0}>
                <Button type="link" onClick={() => setEditing(s)}>{t('action.edit')}</Button>
                {!s.is_default && (
                  <Popconfirm title={t('action.confirmDelete')} onConfirm={() => remove(s)} okText={t('action.delete')} cancelText={t('action.cancel')}>
                    <Button type="link" danger>{t('action.delete')}</Button>
                  </Popconfirm>
                )}
              </Space>
            ),
          },
        ]}
      />
      {editing && <SiteEditor site={editing === 'new' ? null : editing} onClose={close} />}
    </Card>
  );
}

function fenceOf(v: Partial<Values>): Fence | null {
  if (v.type === 'circle') return { type: 'circle', center: { latitude: v.center?.latitude ?? NaN, longitude: v.center?.longitude ?? NaN }, radiusMetres: v.radiusMetres ?? 0 };
  if (v.type === 'polygon') return { type: 'polygon', points: (v.points ?? []).map((p) => ({ latitude: p?.latitude ?? NaN, longitude: p?.longitude ?? NaN })) };
  return null;
}

function SiteEditor({ site, onClose }: { site: Site | null; onClose: (saved: boolean) => void }) {
  const { t } = useTranslation('manager');
  const [form] = Form.useForm<Values>();
  const settings = useConsoleSettings();
  const values = Form.useWatch([], form) as Partial<Values> | undefined;
  const f = site?.fence;
  const initial: Values = {
    name: site?.name ?? '',
    timezone: site?.timezone ?? settings.data?.displayTimezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
    closesAt: site?.closesAt ? dayjs(`2000-01-01T${site.closesAt}`) : null,
    type: f?.type ?? 'circle',
    center: f?.type === 'circle' ? f.center : undefined,
    radiusMetres: f?.type === 'circle' ? f.radiusMetres : 100,
    points: f?.type === 'polygon' ? f.points : [],
  };
  const lat = { type: 'number' as const, min: -90, max: 90, message: t('sites.latRule') };
  const lng = { type: 'number' as const, min: -180, max: 180, message: t('sites.lngRule') };

  const pick = (p: Point) => {
    const type = form.getFieldValue('type') as FenceType;
    if (type === 'circle') form.setFieldValue('center', p);
    else if (type === 'polygon') form.setFieldValue('points', [...((form.getFieldValue('points') as Point[] | undefined) ?? []), p]);
  };

  const { submit, isPending } = useSave(form, {
    save: (v) => {
      const body = { name: v.name.trim(), fence: v.type === 'none' ? null : fenceOf(v), timezone: v.timezone, closesAt: v.closesAt ? v.closesAt.format('HH:mm') : null };
      return site ? call(api.PATCH('/api/managers/sites/{id}', { params: { path: { id: site.id } }, body })) : call(api.POST('/api/managers/sites', { body }));
    },
    // The fence is drawn as points (a polygon) or a centre and a radius.
    // The fence is drawn as points or a radius: its refusal is shown there.
    fieldsOf: (err, v) => (err instanceof ApiError && err.field?.split('.')[0] === 'fence' ? [{ name: v.type === 'polygon' ? 'points' : 'radiusMetres' }] : []),
    onSaved: () => onClose(true),
  });

  return (
    <FormModal form={form} name="site" width={1000} title={site ? t('sites.edit') : t('sites.create')} pending={isPending} onClose={() => onClose(false)}
      initialValues={initial}
      onFinish={submit}
      aside={{ className: 'fence-editor', node: (
        <div>
          <FenceMap
            fence={values ? fenceOf(values) : null}
            tileUrl={settings.data?.mapTileUrl ?? null}
            attribution={settings.data?.mapAttribution}
            onPick={pick}
            label={t('sites.fence')}
          />
          <Typography.Paragraph type="secondary" style={{ marginTop: 8 }}>
            {t('sites.mapHelp')} {settings.data && !settings.data.mapTileUrl && t('sites.noTiles')}
          </Typography.Paragraph>
        </div>
      ) }}
    >
      <Form.Item name="name" label={t('sites.name')} rules={[{ required: true, whitespace: true, message: t('workers.required') }, { max: 128 }]}>
        <Input />
      </Form.Item>
      <Form.Item name="timezone" label={t('sites.timezone')} extra={t('sites.timezoneHelp')} rules={[{ required: true, message: t('workers.required') }]}>
        <Select showSearch options={TIME_ZONES} />
      </Form.Item>
      <Form.Item name="closesAt" label={t('sites.closesAt')} extra={t('sites.closesAtHelp')}>
        <TimePicker format="HH:mm" minuteStep={5} needConfirm={false} placeholder={t('sites.noClosing')} />
      </Form.Item>
      <Form.Item name="type" label={t('sites.fence')}>
        <Radio.Group optionType="button" options={[{ value: 'circle', label: t('sites.circle') }, { value: 'polygon', label: t('sites.polygon') }, { value: 'none', label: t('sites.none') }]} />
      </Form.Item>
      {values?.type === 'circle' && (
        <>
          <Space>
            <Form.Item name={['center', 'latitude']} label={t('sites.centerLat')} rules={[{ required: true, message: t('workers.required') }, lat]}>
              <InputNumber step={0.0001} style={{ width: 150 }} />
            </Form.Item>
            <Form.Item name={['center', 'longitude']} label={t('sites.centerLng')} rules={[{ required: true, message: t('workers.required') }, lng]}>
              <InputNumber step={0.0001} style={{ width: 150 }} />
            </Form.Item>
          </Space>
          <Form.Item name="radiusMetres" label={t('sites.radius')} rules={[{ required: true, message: t('workers.required') }, { type: 'number', min: 1, max: 100_000, message: t('sites.radiusRule') }]}>
            <InputNumber style={{ width: 150 }} />
          </Form.Item>
        </>
      )}
      {values?.type === 'polygon' && (
        <Form.List name="points" rules={[{ validator: async (_, pts: unknown[] | undefined) => { if (!pts || pts.length < 3) throw new Error(t('sites.polygonRule')); } }]}>
          {(fields, { add, remove }, { errors }) => (
            <>
              <Typography.Text strong>{t('sites.vertices')}</Typography.Text>
              {fields.map((field, i) => (
                <Space key={field.key} align="baseline">
                  <Typography.Text type="secondary">{i + 1}</Typography.Text>
                  <Form.Item name={[field.name, 'latitude']} rules={[{ required: true, message: t('workers.required') }, lat]}>
                    <InputNumber aria-label={`${t('sites.lat')} ${i + 1}`} placeholder={t('sites.lat')} step={0.0001} style={{ width: 130 }} />
                  </Form.Item>
                  <Form.Item name={[field.name, 'longitude']} rules={[{ required: true, message: t('workers.required') }, lng]}>
                    <InputNumber aria-label={`${t('sites.lng')} ${i + 1}`} placeholder={t('sites.lng')} step={0.0001} style={{ width: 130 }} />
                  </Form.Item>
                  <Button type="text" icon={<DeleteOutlined />} aria-label={t('action.delete')} onClick={() => remove(field.name)} />
                </Space>
              ))}
              <Form.ErrorList errors={errors} />
              <Button icon={<PlusOutlined />} onClick={() => add()}>{t('sites.addVertex')}</Button>
            </>
          )}
        </Form.List>
      )}
      {values?.type === 'none' && <Alert type="warning" showIcon message={t('sites.noFence')} />}
    </FormModal>
  );
}
