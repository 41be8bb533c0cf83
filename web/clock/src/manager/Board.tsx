// Live board: who is clocked in now (site, since when, last position, inside the fence or not,
// tracking or not), polled every few seconds, in a table and on a map (the last positions over
// the sites' fences; drawn on a plain grid when no map tiles are configured); and the late
// (offline) punches awaiting review, which the manager marks reviewed. The filters live in the URL.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Input, Select, Space, Statistic, Tag, Typography } from 'antd';
import dayjs from 'dayjs';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { api, call } from '../api/client.ts';
import type { paths } from '../api/schema.gen.ts';
import { useAction } from '../../../shared/antd/feedback.tsx';
import type { QueryOf } from '../../../shared/list/params.ts';
import { useListParams } from '../../../shared/list/useList.ts';
import { fmt, useConsoleSettings, useSites } from './common.tsx';
import { FenceMap, type Fence, type Marker } from './FenceMap.tsx';
import { QueryDataList } from '../../../shared/antd/DataList.tsx';

const POLL_MS = 5_000;

export default function Board() {
  const { t } = useTranslation('manager');
  const run = useAction();
  const client = useQueryClient();
  // The board is not paged (everyone clocked in, at most 1000): its filters alone, in the URL.
  const { filters, setFilters } = useListParams<QueryOf<paths, '/api/managers/board'>>();
  const sites = useSites();
  const siteId = filters.siteId ? Number(filters.siteId) : undefined;
  const board = useQuery({
    queryKey: ['board', siteId, filters.search],
    queryFn: () => call(api.GET('/api/managers/board', { params: { query: { limit: 1000, ...(siteId ? { siteId } : {}), ...(filters.search ? { search: filters.search } : {}) } } })),
    refetchInterval: POLL_MS,
  });
  const late = useQuery({
    queryKey: ['late-punches', 'awaiting'],
    queryFn: () => call(api.GET('/api/managers/late-punches', { params: { query: { reviewed: false, page: 1, limit: 100 } } })),
    refetchInterval: POLL_MS * 2,
  });
  const settings = useConsoleSettings();
  const rows = useMemo(() => board.data?.workers ?? [], [board.data]);
  const markers = useMemo(() => rows.flatMap((r): Marker[] => (r.lastPosition ? [{
    latitude: r.lastPosition.latitude, longitude: r.lastPosition.longitude, accuracy: r.lastPosition.accuracy, label: r.full_name,
    state: r.withinGeofence === null ? 'unknown' : r.withinGeofence ? 'inside' : 'outside', stale: !r.isTracking,
  }] : [])), [rows]);
  const fences = useMemo(() => {
    const shown = new Set(rows.map((r) => r.site?.id));
    return (sites.data ?? []).filter((s) => shown.has(s.id) && s.fence).map((s) => s.fence as Fence);
  }, [rows, sites.data]);
  // The view is fitted when who is shown changes (a filter, a worker clocking in or out), not on
  // every refresh: the manager's own zoom and pan stay.
  const fitKey = `${siteId ?? ''}|${filters.search ?? ''}|${rows.map((r) => r.userId).sort((a, b) => a - b).join(',')}`;
  const review = (id: number) =>
    void run(() => call(api.POST('/api/managers/late-punches/{id}/review', { params: { path: { id } } })), t('board.reviewed'))
      .then(() => client.invalidateQueries({ queryKey: ['late-punches'] }));

  return (
    <Space direction="vertical" size={16} style={{ width: '100%' }}>
      <Card>
        <div className="mgr-stats">
          <Statistic title={t('board.clockedIn')} value={board.data?.total ?? '—'} />
          <Statistic title={t('board.outside')} value={board.data ? rows.filter((r) => r.withinGeofence === false).length : '—'} valueStyle={{ color: '#b42318' }} />
          <Statistic title={t('board.notTracking')} value={board.data ? rows.filter((r) => !r.isTracking).length : '—'} valueStyle={{ color: '#8a5a00' }} />
          <Link to="/manager/alerts" data-testid="open-alerts" aria-label={t('board.openAlertsLink', { count: board.data?.openAlerts ?? 0 })}>
            <Statistic title={t('board.openAlerts')} value={board.data?.openAlerts ?? '—'} valueStyle={{ color: board.data?.openAlerts ? '#b42318' : undefined }} />
          </Link>
        </div>
        <Space wrap className="mgr-filters">
          <Select
            aria-label={t('board.site')}
            style={{ minWidth: 220 }}
            value={siteId ?? ''}
            onChange={(v) => setFilters({ ...filters, siteId: v || undefined })}
            options={[{ value: '', label: t('board.allSites') }, ...(sites.data ?? []).map((s) => ({ value: s.id, label: s.name }))]}
          />
          <Input.Search aria-label={t('workers.search')} placeholder={t('workers.search')} defaultValue={filters.search} allowClear onSearch={(search) => setFilters({ ...filters, search })} style={{ width: 260 }} />
          {board.dataUpdatedAt > 0 && (
            <Typography.Text type="secondary" role="status">
              {t('board.refreshed', { time: dayjs(board.dataUpdatedAt).format('HH:mm:ss'), seconds: POLL_MS / 1000 })}
            </Typography.Text>
          )}
        </Space>
        {markers.length > 0 && settings.data && (
          <>
            <FenceMap fence={null} fences={fences} markers={markers} fitKey={fitKey} tileUrl={settings.data.mapTileUrl} attribution={settings.data.mapAttribution}
              label={t('board.map')} className="board-map" />
            <Space className="mgr-legend" size={16} wrap>
              <span><i className="dot inside" />{t('board.inside')}</span>
              <span><i className="dot outside" />{t('board.outsideTag')}</span>
              <span><i className="dot unknown" />{t('board.unknown')}</span>
              <span><i className="dot stale" />{t('board.staleDot')}</span>
            </Space>
          </>
        )}
        <QueryDataList
          query={board}
          empty={t('board.none')}
          rowKey="userId"
          aria-label={t('board.title')}
          dataSource={rows}
          pagination={{ pageSize: 50, hideOnSinglePage: true }}
          columns={[
            { title: t('board.worker'), key: 'w', render: (_, r) => <span><strong>{r.full_name}</strong> <Typography.Text type="secondary">{r.username}</Typography.Text></span> },
            { title: t('board.since'), dataIndex: 'since', render: (v: string | null) => fmt(v) },
            { title: t('board.site'), key: 'site', render: (_, r) => (r.site ? <span>{r.site.name}{r.qrCodeName ? <Typography.Text type="secondary"> · {r.qrCodeName}</Typography.Text> : null}</span> : '—') },
            {
              title: t('board.position'), key: 'pos',
              render: (_, r) => (r.lastPosition
                ? <span>{r.lastPosition.latitude.toFixed(5)}, {r.lastPosition.longitude.toFixed(5)}<br /><Typography.Text type="secondary">{fmt(r.lastPosition.timestamp)}</Typography.Text></span>
                : t('board.unknown')),
            },
            {
              title: t('board.fence'), dataIndex: 'withinGeofence',
              render: (v: boolean | null) => (v === null ? <Tag>{t('board.unknown')}</Tag> : v ? <Tag color="green">{t('board.inside')}</Tag> : <Tag color="red">{t('board.outsideTag')}</Tag>),
            },
            { title: t('board.tracking'), dataIndex: 'isTracking', render: (v: boolean) => (v ? <Tag color="green">{t('board.on')}</Tag> : <Tag color="orange">{t('board.off')}</Tag>) },
          ]}
        />
      </Card>
      <Card title={t('board.late')} extra={<Button onClick={() => void late.refetch()}>{t('action.refresh')}</Button>}>
        <QueryDataList
          query={late}
          empty={t('board.lateNone')}
          rowKey="id"
          aria-label={t('board.late')}
          dataSource={late.data?.punches ?? []}
          pagination={false}
          columns={[
            { title: t('board.worker'), key: 'w', render: (_, p) => <span><strong>{p.full_name}</strong> <Typography.Text type="secondary">{p.username}</Typography.Text></span> },
            { title: t('board.event'), dataIndex: 'event_type', render: (v: string) => t(`board.${v}`) },
            { title: t('board.captured'), dataIndex: 'timestamp', render: (v: string) => fmt(v) },
            { title: t('board.received'), dataIndex: 'receivedAt', render: (v: string) => fmt(v) },
            { title: t('board.delay'), dataIndex: 'delaySeconds', render: (v: number) => t('board.minutes', { n: Math.round(v / 60) }) },
            { title: 'QR', dataIndex: 'qrCodeUsedName' },
            { title: '', dataIndex: 'implausibleGap', render: (v: boolean) => (v ? <Tag color="red">{t('board.gap')}</Tag> : null) },
            { title: '', key: 'a', render: (_, p) => <Button type="primary" onClick={() => review(p.id)}>{t('board.review')}</Button> },
          ]}
        />
      </Card>
    </Space>
  );
}
