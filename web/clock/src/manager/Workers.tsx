// Workers: search, tags (filter, edit, and the tag list itself), create, edit, disable, delete,
// reset the password and the device binding, unlock a worker whom failed sign-ins locked; each
// worker's history, location and security status in a drawer. Filters and page live in the URL
// (the list kit).
import { PlusOutlined, TagsOutlined } from '@ant-design/icons';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Descriptions, Drawer, Empty, Form, Input, Modal, Popconfirm, Select, Space, Tabs, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, call, callPage, limitQuery, type ListQuery } from '../api/client.ts';
import { atField } from '../../../shared/api/errors.ts';
import { FormModal } from '../../../shared/antd/FormModal.tsx';
import { ListView, type Column } from '../../../shared/antd/ListView.tsx';
import { useSave } from '../../../shared/antd/useSave.ts';
import { fieldErrorsOf } from '../../../shared/feedback.ts';
import { listQuery, type PageOf } from '../../../shared/list/params.ts';
import { useList } from '../../../shared/list/useList.ts';
import { ApiError } from '../api/errors.ts';
import { QueryError, useAction } from '../../../shared/antd/feedback.tsx';
import { DataList, useNarrow } from '../../../shared/antd/DataList.tsx';
import { fmt, sinceTime, type Tr } from './common.tsx';

/** Clock events per page of a worker's history (the server pages them: every event is reachable). */
const HISTORY_PAGE_SIZE = 10;
const USERNAME = /^[A-Za-z0-9._@-]{3,64}$/;

type Path = '/api/managers/workers';
/** The path's query, its `search` named `q` in the URL (as links to the screen have it). */
type Query = Omit<ListQuery<Path>, 'search'> & { q?: ListQuery<Path>['search'] };
const workersQuery = listQuery(['workers'], ({ q, ...query }: Query) =>
  call(api.GET('/api/managers/workers', { params: { query: limitQuery<Path>({ ...query, ...(q ? { search: q } : {}) }) } }))
    .then((r) => ({ list: r.workers, total: r.totalCount })));
type WorkerItem = PageOf<typeof workersQuery>['list'][number];

export default function Workers() {
  const { t } = useTranslation('manager');
  const run = useAction();
  const client = useQueryClient();
  const list = useList(workersQuery, 20);
  const [editing, setEditing] = useState<number | 'new' | null>(null);
  const [resetting, setResetting] = useState<WorkerItem | null>(null);
  const [viewing, setViewing] = useState<number | null>(null);
  const [tagsOpen, setTagsOpen] = useState(false);
  const tags = useQuery({ queryKey: ['tags'], queryFn: () => call(api.GET('/api/managers/tags')) });
  const refresh = () => void client.invalidateQueries({ queryKey: workersQuery.key });

  const remove = (w: WorkerItem) =>
    void run(() => call(api.DELETE('/api/managers/workers/{id}', { params: { path: { id: w.id } } })), t('state.deleted')).then(refresh);

  const columns: Column<WorkerItem, Query>[] = [
    {
      title: t('workers.fullName'), dataIndex: 'full_name',
      filter: { kind: 'text', key: 'q', label: t('workers.search'), width: 220 },
      render: (v: string, w) => (
        <Space size={4} wrap>
          <Button type="link" onClick={() => setViewing(w.id)}>{v}</Button>
          {w.lockedUntil && <LockedTag until={w.lockedUntil} />}
        </Space>
      ),
    },
    { title: t('workers.username'), dataIndex: 'username' },
    {
      title: t('workers.tags'), dataIndex: 'tags',
      filter: { kind: 'select', key: 'tags', multiple: true, width: 220, options: (tags.data ?? []).map((g) => ({ value: g.id, label: g.name })) },
      render: (v: string) => v.split(',').filter(Boolean).map((n) => <Tag key={n}>{n}</Tag>),
    },
    {
      title: t('workers.status'), hideInTable: true,
      filter: { kind: 'select', key: 'status', width: 160, placeholder: t('workers.any'), options: [{ value: 'active', label: t('workers.active') }, { value: 'disabled', label: t('workers.disabled') }] },
    },
    { title: t('workers.createdAt'), dataIndex: 'created_at', render: (v: string) => fmt(v) },
    {
      title: '', key: 'a',
      render: (_, w) => (
        <Space size={0} wrap>
          {w.lockedUntil && <UnlockButton worker={w} onDone={refresh} />}
          <Button type="link" onClick={() => setEditing(w.id)}>{t('action.edit')}</Button>
          <Button type="link" onClick={() => setResetting(w)}>{t('workers.resetPassword')}</Button>
          <Popconfirm title={t('workers.deleteConfirm')} onConfirm={() => remove(w)} okText={t('action.delete')} cancelText={t('action.cancel')}>
            <Button type="link" danger>{t('action.delete')}</Button>
          </Popconfirm>
        </Space>
      ),
    },
  ];

  return (
    <Card>
      <ListView list={list} columns={columns} name="workers" instant cards label={t('nav.workers')}
        toolbar={(
          <Space wrap className="mgr-filters">
            <Button icon={<TagsOutlined />} onClick={() => setTagsOpen(true)}>{t('workers.manageTags')}</Button>
            <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing('new')}>{t('workers.create')}</Button>
          </Space>
        )} />
      {editing !== null && <WorkerForm id={editing} tags={tags.data ?? []} onClose={(saved) => { setEditing(null); if (saved) refresh(); }} />}
      {resetting && <ResetPassword worker={resetting} onClose={() => setResetting(null)} />}
      {viewing !== null && <WorkerDrawer key={viewing} id={viewing} onClose={() => setViewing(null)} onChanged={refresh} />}
      {tagsOpen && <TagManager onClose={() => { setTagsOpen(false); refresh(); }} />}
    </Card>
  );
}

/** "Locked until 09:15" (a date too when not today): failed sign-ins refuse the worker until then. */
function LockedTag({ until }: { until: string }) {
  const { t } = useTranslation('manager');
  return <Tag color="red" title={t('workers.lockedWhy')}>{t('workers.lockedUntil', { time: sinceTime(until) })}</Tag>;
}

/** Ends the lock failed sign-ins put on the worker, once the manager confirms. */
function UnlockButton({ worker, small, onDone }: { worker: { id: number; full_name: string }; small?: boolean; onDone: () => void }) {
  const { t } = useTranslation('manager');
  const run = useAction();
  const unlock = () => void run(() => call(api.POST('/api/managers/workers/{id}/unlock', { params: { path: { id: worker.id } } })), t('workers.unlocked')).then(onDone);
  return (
    <Popconfirm title={t('workers.unlockConfirm', { name: worker.full_name })} onConfirm={unlock} okText={t('workers.unlock')} cancelText={t('action.cancel')}>
      {small ? <Button size="small">{t('workers.unlock')}</Button> : <Button type="link">{t('workers.unlock')}</Button>}
    </Popconfirm>
  );
}

/** The form's values: the body's, but tags may be new names (created on save). */
type WorkerValues = { username: string; fullName: string; password?: string; tagIds?: (number | string)[]; status?: 'active' | 'disabled' };

/**
 * The length rule of the password policy (the back office's, GET /api/me/password-policy), so the
 * form says before sending what the server would refuse; 8 until it is read. The other rules are
 * the server's to name when it refuses.
 */
function usePasswordLength(): { min: number; max: number } {
  const { data } = useQuery({ queryKey: ['password-policy'], queryFn: () => call(api.GET('/api/me/password-policy')), staleTime: 60_000 });
  return { min: data?.minLength ?? 8, max: 128 };
}

function WorkerForm({ id, tags, onClose }: { id: number | 'new'; tags: { id: number; name: string }[]; onClose: (saved: boolean) => void }) {
  const { t } = useTranslation('manager');
  const [form] = Form.useForm<WorkerValues>();
  const client = useQueryClient();
  const length = usePasswordLength();
  const isNew = id === 'new';
  const detail = useQuery({ queryKey: ['worker', id], enabled: !isNew, queryFn: () => call(api.GET('/api/managers/workers/{id}', { params: { path: { id: id as number } } })) });
  const save = useSave(form, {
    save: async (v: WorkerValues) => {
      // Tags typed that do not exist yet are created first (a name already there, in any case, is that tag).
      let tagIds: number[];
      try {
        tagIds = await tagIdsOf(v.tagIds ?? [], tags);
      } catch (err) {
        throw err instanceof ApiError ? atField(err, 'tagIds') : err;
      } finally {
        void client.invalidateQueries({ queryKey: ['tags'] });
      }
      if (isNew) await call(api.POST('/api/managers/workers', { body: { username: v.username, fullName: v.fullName, password: v.password ?? '', tagIds } }));
      else await call(api.PATCH('/api/managers/workers/{id}', { params: { path: { id } }, body: { username: v.username, fullName: v.fullName, tagIds, ...(v.status ? { status: v.status } : {}) } }));
    },
    onSaved: () => onClose(true),
  });
  if (!isNew && detail.isPending) return null;
  const d = detail.data;
  return (
    <FormModal form={form} name="worker" title={isNew ? t('workers.create') : t('workers.edit')} pending={save.isPending} onClose={() => onClose(false)}
      onFinish={save.submit}
      initialValues={d ? { username: d.username, fullName: d.full_name, tagIds: d.tag_ids, status: d.status } : { tagIds: [] }}
    >
      <Form.Item name="username" label={t('workers.username')} rules={[{ required: true, message: t('workers.required') }, { pattern: USERNAME, message: t('workers.usernameRule') }]}>
        <Input autoComplete="off" />
      </Form.Item>
      <Form.Item name="fullName" label={t('workers.fullName')} rules={[{ required: true, whitespace: true, message: t('workers.required') }, { max: 128 }]}>
        <Input />
      </Form.Item>
      {isNew && (
        <Form.Item name="password" label={t('workers.password')} rules={[{ required: true, message: t('workers.required') }, { ...length, message: t('workers.passwordRule', { count: length.min }) }]}>
          <Input.Password autoComplete="new-password" />
        </Form.Item>
      )}
      <Form.Item name="tagIds" label={t('workers.tags')} extra={t('workers.tagsHelp')} rules={[{ validator: async (_, v: (number | string)[] | undefined) => {
        const bad = (v ?? []).find((x) => typeof x === 'string' && (x.includes(',') || x.trim().length > 64));
        if (typeof bad === 'string') throw new Error(bad.includes(',') ? t('workers.tagRule') : t('workers.tagLong'));
      } }]}>
        <Select mode="tags" tokenSeparators={[]} optionFilterProp="label" options={tags.map((g) => ({ value: g.id, label: g.name }))} />
      </Form.Item>
      {!isNew && (
        <Form.Item name="status" label={t('workers.status')}>
          <Select options={[{ value: 'active', label: t('workers.active') }, { value: 'disabled', label: t('workers.disabled') }]} />
        </Form.Item>
      )}
    </FormModal>
  );
}

/** "Clocked in since 08:02 at North yard", "Clocked out since 17:30 (2026-11-25)", "Never clocked in". */
function clockStateWords(state: 'clock_in' | 'clock_out', last: { event_type: string; timestamp: string; siteName: string | null } | undefined, t: Tr): string {
  if (!last) return state === 'clock_in' ? t('workers.stateIn') : t('workers.stateNever');
  const at = sinceTime(last.timestamp);
  const key = state === 'clock_in' ? 'workers.stateInSince' : 'workers.stateOutSince';
  return `${t(key, { time: at })}${last.siteName ? t('workers.stateAt', { site: last.siteName }) : ''}`;
}

/** The ids of the tags chosen or typed: a typed name is an existing tag's (in any case) or a new tag, created here. */
async function tagIdsOf(values: (number | string)[], tags: { id: number; name: string }[]): Promise<number[]> {
  const ids = new Set<number>();
  for (const v of values) {
    if (typeof v === 'number') { ids.add(v); continue; }
    const name = v.trim();
    if (!name) continue;
    const known = tags.find((g) => g.name.toLowerCase() === name.toLowerCase());
    ids.add(known ? known.id : (await call(api.POST('/api/managers/tags', { body: { name } }))).id);
  }
  return [...ids];
}

function ResetPassword({ worker, onClose }: { worker: WorkerItem; onClose: () => void }) {
  const { t } = useTranslation('manager');
  const [form] = Form.useForm<{ password: string }>();
  const length = usePasswordLength();
  const { submit, isPending } = useSave(form, {
    save: (v) => call(api.PATCH('/api/managers/workers/{id}', { params: { path: { id: worker.id } }, body: { password: v.password } })),
    onSaved: onClose,
  });
  return (
    <FormModal form={form} name="reset-password" title={`${t('workers.resetPassword')} — ${worker.full_name}`} pending={isPending} onClose={onClose} onFinish={submit}>
      <Form.Item name="password" label={t('workers.newPassword')} rules={[{ required: true, message: t('workers.required') }, { ...length, message: t('workers.passwordRule', { count: length.min }) }]}>
        <Input.Password autoComplete="new-password" />
      </Form.Item>
    </FormModal>
  );
}

function WorkerDrawer({ id, onClose, onChanged }: { id: number; onClose: () => void; onChanged: () => void }) {
  const { t } = useTranslation('manager');
  const narrow = useNarrow();
  const run = useAction();
  const client = useQueryClient();
  const detail = useQuery({ queryKey: ['worker', id], queryFn: () => call(api.GET('/api/managers/workers/{id}', { params: { path: { id } } })) });
  const [historyPage, setHistoryPage] = useState(1);
  const history = useQuery({
    queryKey: ['worker', id, 'history', historyPage],
    queryFn: () => callPage(api.GET('/api/worker/clock-history/{userId}', { params: { path: { userId: id }, query: { page: historyPage, limit: HISTORY_PAGE_SIZE } } })),
    placeholderData: keepPreviousData,
  });
  // The latest event in force says since when the worker is in their state (the detail has only
  // the state): a punch a correction voided stays in the history and does not count.
  const latest = useQuery({
    queryKey: ['worker', id, 'latest'],
    queryFn: () => call(api.GET('/api/worker/clock-history/{userId}', { params: { path: { userId: id }, query: { page: 1, limit: 20 } } }))
      .then((recent) => recent.filter((e) => !e.voided)),
  });
  const location = useQuery({ queryKey: ['worker', id, 'location'], queryFn: () => call(api.GET('/api/location/status/{userId}', { params: { path: { userId: id } } })) });
  const security = useQuery({ queryKey: ['worker', id, 'security'], queryFn: () => call(api.GET('/api/security/status/{userId}', { params: { path: { userId: id } } })) });
  const d = detail.data;
  const after = () => { void client.invalidateQueries({ queryKey: ['worker', id] }); onChanged(); };
  const resetDevice = () => void run(() => call(api.DELETE('/api/managers/workers/{id}/device', { params: { path: { id } } })), t('state.done')).then(after);
  const setStatus = (status: 'active' | 'disabled') =>
    void run(() => call(api.PATCH('/api/managers/workers/{id}', { params: { path: { id } }, body: { status } })), t('state.saved')).then(after);
  const riskColor = { low: 'green', medium: 'orange', high: 'red' } as const;

  return (
    <Drawer open width={narrow ? '100%' : 640} title={d ? `${d.full_name} (${d.username})` : t('workers.detail')} onClose={onClose}>
      {detail.isError ? <QueryError error={detail.error} onRetry={() => void detail.refetch()} /> : d && (
        <Space direction="vertical" size={16} style={{ width: '100%' }}>
          <Descriptions column={1} bordered size="small">
            <Descriptions.Item label={t('workers.status')}>
              <Space wrap>
                <Tag color={d.status === 'active' ? 'green' : 'default'}>{t(`workers.${d.status}`)}</Tag>
                <Button size="small" onClick={() => setStatus(d.status === 'active' ? 'disabled' : 'active')}>{d.status === 'active' ? t('workers.disable') : t('workers.enable')}</Button>
                {d.lockedUntil && <LockedTag until={d.lockedUntil} />}
                {d.lockedUntil && <UnlockButton worker={d} small onDone={after} />}
              </Space>
            </Descriptions.Item>
            <Descriptions.Item label={t('workers.clockState')}><span data-testid="clock-state">{clockStateWords(d.clock_state, latest.data?.[0], t)}</span></Descriptions.Item>
            {/* The newest position's own time (the server's lastSeenAt), not the device's latest sign-in. */}
            <Descriptions.Item label={t('workers.lastSeen')}><span data-testid="last-seen">{d.lastSeenAt ? fmt(d.lastSeenAt) : t('workers.lastSeenNever')}</span></Descriptions.Item>
            <Descriptions.Item label={t('workers.tags')}>{d.tags.split(',').filter(Boolean).map((n) => <Tag key={n}>{n}</Tag>)}</Descriptions.Item>
            <Descriptions.Item label={t('workers.device')}>
              {d.device ? (
                <Space direction="vertical" size={4}>
                  <Typography.Text code>{d.device.deviceUuid}</Typography.Text>
                  <Typography.Text type="secondary">{t('workers.registeredAt')}: {fmt(d.device.registeredAt)}</Typography.Text>
                  <Popconfirm title={t('workers.resetDeviceConfirm')} onConfirm={resetDevice} okText={t('workers.resetDevice')} cancelText={t('action.cancel')}>
                    <Button danger size="small">{t('workers.resetDevice')}</Button>
                  </Popconfirm>
                </Space>
              ) : <Typography.Text type="secondary">{t('workers.noDevice')}</Typography.Text>}
            </Descriptions.Item>
          </Descriptions>
          <Tabs items={[
            {
              key: 'history', label: t('workers.history'),
              children: history.isError ? <QueryError error={history.error} /> : (
                <DataList rowKey="id" size="small" loading={history.isFetching} dataSource={history.data?.items ?? []}
                  pagination={{
                    current: historyPage, pageSize: HISTORY_PAGE_SIZE, total: history.data?.total ?? 0, onChange: setHistoryPage,
                    hideOnSinglePage: true, showSizeChanger: false, showTotal: (n) => t('workers.historyTotal', { n }),
                  }}
                  locale={{ emptyText: <Empty description={t('workers.noHistory')} /> }}
                  columns={[
                    { title: t('board.event'), dataIndex: 'event_type', render: (v: string, e) => (
                      <span className={e.voided ? 'cx-old' : undefined}>
                        {t(`board.${v}`)} {e.forced && <Tag color="red">{t('workers.forced')}</Tag>}{e.late && <Tag color="orange">{t('workers.late')}</Tag>}
                        {e.voided ? <Tag>{t('workers.voided')}</Tag> : e.origin === 'correction' ? <Tag color="cyan">{t('workers.corrected')}</Tag> : e.origin === 'auto' ? <Tag color="magenta">{t('workers.auto')}</Tag> : null}
                      </span>
                    ) },
                    { title: t('alerts.time'), dataIndex: 'timestamp', render: (v: string) => fmt(v) },
                    { title: 'QR', dataIndex: 'qrCodeUsedName' },
                  ]} />
              ),
            },
            {
              key: 'location', label: t('workers.location'),
              children: location.isError ? <QueryError error={location.error} /> : location.data && (
                location.data.currentLocation ? (
                  <Descriptions column={1} size="small" bordered>
                    <Descriptions.Item label={t('workers.tracking')}>{location.data.isTracking ? <Tag color="green">{t('workers.tracking')}</Tag> : <Tag color="orange">{t('workers.notTracking')}</Tag>}</Descriptions.Item>
                    <Descriptions.Item label={t('board.position')}>{location.data.currentLocation.latitude.toFixed(5)}, {location.data.currentLocation.longitude.toFixed(5)}</Descriptions.Item>
                    <Descriptions.Item label={t('workers.lastUpdate')}>{fmt(location.data.lastUpdate)}</Descriptions.Item>
                    <Descriptions.Item label={t('board.fence')}>{location.data.withinGeofence === null ? t('board.unknown') : location.data.withinGeofence ? t('workers.withinFence') : t('workers.outsideFence')}</Descriptions.Item>
                  </Descriptions>
                ) : <Empty description={t('workers.noLocation')} />
              ),
            },
            {
              key: 'security', label: t('workers.security'),
              children: security.isError ? <QueryError error={security.error} /> : security.data && (
                <Space direction="vertical" style={{ width: '100%' }}>
                  <div>
                    {t('workers.risk')}: <Tag color={riskColor[security.data.securityStatus]}>{t(`alerts.${security.data.securityStatus}`)}</Tag>
                    {security.data.latestSecurityCheck && <Typography.Text type="secondary">{t('workers.score', { score: security.data.latestSecurityCheck.risk_score })}</Typography.Text>}
                  </div>
                  <DataList rowKey="id" size="small" dataSource={security.data.recentAlerts} pagination={false}
                    locale={{ emptyText: <Empty description={t('workers.noAlerts')} /> }}
                    columns={[
                      { title: t('alerts.type'), dataIndex: 'alert_type', render: (v: string) => t(`alerts.types.${v}`, { defaultValue: v }) },
                      { title: t('alerts.severity'), dataIndex: 'severity', render: (v: 'low' | 'medium' | 'high') => <Tag color={riskColor[v]}>{t(`alerts.${v}`)}</Tag> },
                      { title: t('alerts.time'), dataIndex: 'created_at', render: (v: string) => fmt(v) },
                    ]} />
                </Space>
              ),
            },
          ]} />
        </Space>
      )}
    </Drawer>
  );
}

function TagManager({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation('manager');
  const run = useAction();
  const client = useQueryClient();
  const [form] = Form.useForm();
  const [renameForm] = Form.useForm();
  const [renaming, setRenaming] = useState<number | null>(null);
  const tags = useQuery({ queryKey: ['tags'], queryFn: () => call(api.GET('/api/managers/tags')) });
  const refresh = () => void client.invalidateQueries({ queryKey: ['tags'] });
  const nameRules = [{ required: true, whitespace: true, message: t('workers.required') }, { max: 64 }, { pattern: /^[^,]*$/, message: t('workers.tagRule') }];
  const add = async (v: { name: string }) => {
    const ok = await run(async () => {
      try {
        await call(api.POST('/api/managers/tags', { body: { name: v.name.trim() } }));
      } catch (err) {
        form.setFields(fieldErrorsOf(err, ['name'], t));
        throw err;
      }
    }, t('state.saved'));
    if (ok) { form.resetFields(); refresh(); }
  };
  const rename = async (id: number, v: { name: string }) => {
    const ok = await run(async () => {
      try {
        await call(api.PATCH('/api/managers/tags/{id}', { params: { path: { id } }, body: { name: v.name.trim() } }));
      } catch (err) {
        renameForm.setFields(fieldErrorsOf(err, ['name'], t));
        throw err;
      }
    }, t('state.saved'));
    if (ok) { setRenaming(null); refresh(); }
  };
  const startRename = (g: { id: number; name: string }) => {
    renameForm.setFieldsValue({ name: g.name });
    setRenaming(g.id);
  };
  const remove = (id: number) => void run(() => call(api.DELETE('/api/managers/tags/{id}', { params: { path: { id } } })), t('state.deleted')).then(refresh);
  return (
    <Modal open title={t('workers.manageTags')} onCancel={onClose} footer={<Button onClick={onClose}>{t('common:action.close')}</Button>}>
      <Form form={form} layout="inline" name="tag" onFinish={(v) => void add(v)} style={{ marginBottom: 16 }}>
        <Form.Item name="name" rules={nameRules}>
          <Input placeholder={t('workers.newTag')} aria-label={t('workers.newTag')} />
        </Form.Item>
        <Button htmlType="submit" type="primary">{t('action.create')}</Button>
      </Form>
      {tags.isError ? <QueryError error={tags.error} /> : (
        <Form form={renameForm} name="tag-rename" component={false} onFinish={(v: { name: string }) => renaming !== null && void rename(renaming, v)}>
          <DataList rowKey="id" size="small" loading={tags.isPending} dataSource={tags.data ?? []} pagination={false}
            locale={{ emptyText: <Empty description={t('state.empty')} /> }}
            columns={[
              {
                title: t('sites.name'), dataIndex: 'name',
                render: (name: string, g) => renaming === g.id ? (
                  <Form.Item name="name" rules={nameRules} style={{ margin: 0 }}>
                    <Input autoFocus aria-label={t('workers.tagName')} onPressEnter={() => renameForm.submit()} />
                  </Form.Item>
                ) : name,
              },
              { title: '', dataIndex: 'worker_count', render: (n: number) => t('workers.tagCount', { count: n }) },
              {
                title: '', key: 'a',
                render: (_, g) => renaming === g.id ? (
                  <Space size={0}>
                    <Button type="link" onClick={() => renameForm.submit()}>{t('action.save')}</Button>
                    <Button type="link" onClick={() => setRenaming(null)}>{t('action.cancel')}</Button>
                  </Space>
                ) : (
                  <Space size={0}>
                    <Button type="link" aria-label={`${t('workers.renameTag')} ${g.name}`} onClick={() => startRename(g)}>{t('workers.renameTag')}</Button>
                    <Popconfirm title={t('action.confirmDelete')} onConfirm={() => remove(g.id)} okText={t('action.delete')} cancelText={t('action.cancel')}>
                      <Button type="link" danger aria-label={`${t('action.delete')} ${g.name}`}>{t('action.delete')}</Button>
                    </Popconfirm>
                  </Space>
                ),
              },
            ]} />
        </Form>
      )}
    </Modal>
  );
}
