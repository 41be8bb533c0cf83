// Server monitoring: CPU, memory and disk of the host, the Node.js runtime, and the database and
// the cache (each up or down, with its figures or why it is down), sampled every 5 seconds while
// the screen is open, with the time of the last sample.
import { useQuery } from '@tanstack/react-query';
import { Alert, Card, Col, Descriptions, Progress, Row, Skeleton, Space, Statistic, Tag, Typography } from 'antd';
import dayjs from 'dayjs';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { messageOf } from '../../../../shared/feedback.ts';
import { QueryError } from '../../../../shared/antd/feedback.tsx';
import { addStrings } from '../../i18n/index.ts';

addStrings('monitor', {
  'en-US': {
    cpu: 'CPU', memory: 'Memory', disk: 'Disk', runtime: 'Runtime', cores: '{{count}} cores', usage: 'Usage', used: 'Used', total: 'Total',
    usedOf: '{{used}} of {{total}}', version: 'Node.js', uptime: 'Uptime', heap: 'Heap', rss: 'Resident memory', loopDelay: 'Event-loop delay',
    loopDelayDetail: 'mean {{mean}} ms · p99 {{p99}} ms · max {{max}} ms', gc: 'Garbage collection', gcDetail: '{{count}} pauses · {{pause}}',
    sampledAt: 'Last sample: {{time}}', refreshEvery: 'refreshed every 5 seconds', stale: 'The last refresh failed: {{message}}',
    days: '{{d}} d {{h}} h {{m}} min', hours: '{{h}} h {{m}} min', minutes: '{{m}} min {{s}} s',
    database: 'Database', cache: 'Cache', up: 'Up', down: 'Down', downReason: 'Reason: {{reason}}', kind: 'Kind', latency: 'Latency',
    size: 'Size', keys: 'Keys', serverVersion: 'Version', pool: 'Connection pool', poolDetail: '{{active}} under way · {{waiting}} waiting · pool size {{max}}',
    usedMemory: 'Memory used', clients: 'Connected clients',
    memoryNote: 'No Redis configured (REDIS_URL): the cache, the rate-limit counters and the messages between instances stay in this instance’s memory.',
    kinds: { pglite: 'PGlite', postgres: 'PostgreSQL', redis: 'Redis', memory: 'Memory' },
  },
  'zh-CN': {
    cpu: 'CPU', memory: '内存', disk: '磁盘', runtime: '运行时', cores: '{{count}} 核', usage: '使用率', used: '已用', total: '总量',
    usedOf: '已用 {{used}} / 共 {{total}}', version: 'Node.js 版本', uptime: '运行时长', heap: '堆内存', rss: '常驻内存', loopDelay: '事件循环延迟',
    loopDelayDetail: '平均 {{mean}} 毫秒 · p99 {{p99}} 毫秒 · 最大 {{max}} 毫秒', gc: '垃圾回收', gcDetail: '{{count}} 次暂停 · {{pause}}',
    sampledAt: '最近采样：{{time}}', refreshEvery: '每 5 秒刷新', stale: '最近一次刷新失败：{{message}}',
    days: '{{d}} 天 {{h}} 小时 {{m}} 分', hours: '{{h}} 小时 {{m}} 分', minutes: '{{m}} 分 {{s}} 秒',
    database: '数据库', cache: '缓存', up: '正常', down: '不可用', downReason: '原因：{{reason}}', kind: '类型', latency: '延迟',
    size: '大小', keys: '键数量', serverVersion: '版本', pool: '连接池', poolDetail: '{{active}} 个执行中 · {{waiting}} 个等待 · 连接池上限 {{max}}',
    usedMemory: '已用内存', clients: '客户端连接数',
    memoryNote: '未配置 Redis（REDIS_URL）：缓存、限流计数和实例间消息保存在本实例的内存中。',
    kinds: { pglite: 'PGlite', postgres: 'PostgreSQL', redis: 'Redis', memory: '内存' },
  },
});

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'];
export function bytes(n: number): string {
  let i = 0;
  let v = n;
  while (v >= 1024 && i < UNITS.length - 1) { v /= 1024; i++; }
  return `${v >= 100 || i === 0 ? v.toFixed(0) : v.toFixed(1)} ${UNITS[i]}`;
}
const color = (p: number) => (p >= 90 ? '#ff4d4f' : p >= 70 ? '#faad14' : undefined);
const round = (n: number) => Math.round(n * 10) / 10;

export default function Monitor() {
  const { t } = useTranslation(['monitor', 'common']);
  const q = useQuery({
    queryKey: ['monitor', 'system'],
    queryFn: async () => ({ sample: await unwrap(api.GET('/api/admin/monitor/system')), at: dayjs().format('YYYY-MM-DD HH:mm:ss') }),
    refetchInterval: 5000,
    refetchIntervalInBackground: false,
    retry: false,
  });
  if (q.error && !q.data) return <Card><QueryError error={q.error} onRetry={() => void q.refetch()} /></Card>;
  if (!q.data) return <Card><Skeleton active paragraph={{ rows: 6 }} /></Card>;
  const { sample: s, at } = q.data;
  const uptime = (sec: number) => {
    const d = Math.floor(sec / 86400), h = Math.floor((sec % 86400) / 3600), m = Math.floor((sec % 3600) / 60);
    return d > 0 ? t('days', { d, h, m }) : h > 0 ? t('hours', { h, m }) : t('minutes', { m, s: sec % 60 });
  };
  const dash = '—';
  const ms = (v: number | null) => (v === null ? dash : `${round(v)} ms`);
  const status = (name: string, state: 'up' | 'down') => (
    <Tag color={state === 'up' ? 'green' : 'red'} aria-label={`${name}: ${t(state)}`}>{t(state)}</Tag>
  );
  const { database: db, cache } = s;
  const gauge = (title: string, usage: number, extra: string, label: string) => (
    <Col xs={24} md={8}>
      <Card title={title} size="small">
        <Space direction="vertical" align="center" style={{ width: '100%' }}>
          <Progress type="dashboard" percent={round(usage)} strokeColor={color(usage)} aria-label={label} format={(p) => `${p ?? 0}%`} />
          <Typography.Text type="secondary">{extra}</Typography.Text>
        </Space>
      </Card>
    </Col>
  );
  return (
    <Space direction="vertical" size={16} style={{ width: '100%' }}>
      <Space wrap>
        <Typography.Text strong role="status" aria-live="polite">{t('sampledAt', { time: at })}</Typography.Text>
        <Typography.Text type="secondary">({t('refreshEvery')})</Typography.Text>
      </Space>
      {q.error && <Alert type="warning" showIcon message={t('stale', { message: messageOf(q.error, t) })} />}
      <Row gutter={[16, 16]}>
        {gauge(t('cpu'), s.cpu.usage, t('cores', { count: s.cpu.cores }), `${t('cpu')} ${t('usage')}`)}
        {gauge(t('memory'), s.memory.usage, t('usedOf', { used: bytes(s.memory.used), total: bytes(s.memory.total) }), `${t('memory')} ${t('usage')}`)}
        {gauge(t('disk'), s.disk.usage, t('usedOf', { used: bytes(s.disk.used), total: bytes(s.disk.total) }), `${t('disk')} ${t('usage')}`)}
      </Row>
      <Card title={t('runtime')} size="small">
        <Row gutter={[16, 16]} style={{ marginBottom: 16 }}>
          <Col xs={12} md={6}><Statistic title={t('version')} value={s.runtime.version} /></Col>
          <Col xs={12} md={6}><Statistic title={t('uptime')} value={uptime(s.runtime.uptime)} /></Col>
          <Col xs={12} md={6}><Statistic title={t('rss')} value={bytes(s.runtime.rss)} /></Col>
          <Col xs={12} md={6}><Statistic title={t('loopDelay')} value={round(s.runtime.event_loop_delay)} suffix="ms" /></Col>
        </Row>
        <Descriptions column={1} size="small" bordered items={[
          {
            key: 'heap', label: t('heap'),
            children: (
              <Space direction="vertical" style={{ width: '100%' }}>
                <Progress percent={round((s.runtime.heap_used / Math.max(1, s.runtime.heap_total)) * 100)} aria-label={t('heap')} />
                {t('usedOf', { used: bytes(s.runtime.heap_used), total: bytes(s.runtime.heap_total) })}
              </Space>
            ),
          },
          { key: 'loop', label: t('loopDelay'), children: t('loopDelayDetail', { mean: round(s.runtime.event_loop_delay), p99: round(s.runtime.event_loop_delay_p99), max: round(s.runtime.event_loop_delay_max) }) },
          { key: 'gc', label: t('gc'), children: t('gcDetail', { count: s.runtime.gc_count, pause: s.runtime.gc_pause }) },
        ]} />
      </Card>
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={12}>
          <Card title={t('database')} size="small" extra={status(t('database'), db.status)} role="region" aria-label={t('database')} style={{ height: '100%' }}>
            {db.reason !== null && <Alert type="error" showIcon style={{ marginBottom: 16 }} message={t('downReason', { reason: db.reason })} />}
            <Row gutter={[16, 16]} style={{ marginBottom: 16 }}>
              <Col xs={12} md={8}><Statistic title={t('kind')} value={t(`kinds.${db.kind}`)} /></Col>
              <Col xs={12} md={8}><Statistic title={t('latency')} value={ms(db.latency_ms)} /></Col>
              <Col xs={12} md={8}><Statistic title={t('size')} value={db.size === null ? dash : bytes(db.size)} /></Col>
            </Row>
            <Descriptions column={1} size="small" bordered items={[
              { key: 'version', label: t('serverVersion'), children: db.version ?? dash },
              { key: 'pool', label: t('pool'), children: t('poolDetail', { active: db.pool.active, waiting: db.pool.waiting, max: db.pool.max }) },
            ]} />
          </Card>
        </Col>
        <Col xs={24} lg={12}>
          <Card title={t('cache')} size="small" extra={status(t('cache'), cache.status)} role="region" aria-label={t('cache')} style={{ height: '100%' }}>
            {cache.reason !== null && <Alert type="error" showIcon style={{ marginBottom: 16 }} message={t('downReason', { reason: cache.reason })} />}
            <Row gutter={[16, 16]} style={{ marginBottom: 16 }}>
              <Col xs={12} md={8}><Statistic title={t('kind')} value={t(`kinds.${cache.kind}`)} /></Col>
              {cache.kind === 'redis' && <>
                <Col xs={12} md={8}><Statistic title={t('latency')} value={ms(cache.latency_ms)} /></Col>
                <Col xs={12} md={8}><Statistic title={t('keys')} value={cache.keys ?? dash} /></Col>
              </>}
            </Row>
            {cache.kind === 'redis'
              ? <Descriptions column={1} size="small" bordered items={[
                { key: 'version', label: t('serverVersion'), children: cache.version ?? dash },
                { key: 'memory', label: t('usedMemory'), children: cache.used_memory === null ? dash : bytes(cache.used_memory) },
                { key: 'clients', label: t('clients'), children: cache.connected_clients ?? dash },
              ]} />
              : <Typography.Text type="secondary">{t('memoryNote')}</Typography.Text>}
          </Card>
        </Col>
      </Row>
    </Space>
  );
}
