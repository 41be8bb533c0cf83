// Dashboard, two tabs. Business (the default): today's and the last 30 days' orders, revenue and
// statuses, a chart of the 30 days with a legend, payments by method and the top products, all
// in the caller's data scope (GET /dashboard/business). System: today's sign-ins and operations,
// the counts of administrators, roles and menus, a chart of today's activity hour by hour
// (counted by the server over the whole day, in the display time zone) and the newest log rows
// (sign-ins with where they came from).
import { useQuery } from '@tanstack/react-query';
import { Card, Col, Row, Statistic, Table, Tabs, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Bar, BarChart, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { api, unwrap } from '../../api/client.ts';
import { QueryError } from '../../../../shared/antd/feedback.tsx';
import { addStrings } from '../../i18n/index.ts';

addStrings('dashboard', {
  'en-US': {
    admins: 'Administrators', roles: 'Roles', menus: 'Menus', loginsToday: 'Sign-ins today', operationsToday: 'Operations today',
    activity: 'Activity today by hour ({{date}}, {{zone}})', recentLogins: 'Recent sign-ins', recentOperations: 'Recent operations',
    user: 'User', ip: 'IP', location: 'Location', result: 'Result', time: 'Time', action: 'Action', success: 'Success', failure: 'Failure',
    business: 'Business', system: 'System', today: 'Today ({{date}})', period: 'Last {{days}} days ({{from}} to {{to}})',
    orders: 'Orders', revenue: 'Revenue', paid: 'Paid', pending: 'Pending', cancelled: 'Cancelled', averageOrderValue: 'Average order value',
    byDay: 'Orders and revenue by day (last {{days}} days, {{zone}})', paymentsByMethod: 'Payments by method', topProducts: 'Top products by quantity',
    method: 'Method', count: 'Payments', amount: 'Amount', product: 'Product', quantity: 'Quantity', nothing: 'No data in this period',
  },
  'zh-CN': {
    admins: '管理员', roles: '角色', menus: '菜单', loginsToday: '今日登录', operationsToday: '今日操作',
    activity: '今日每小时活动（{{date}}，{{zone}}）', recentLogins: '最近登录', recentOperations: '最近操作',
    user: '用户', ip: 'IP', location: '登录地点', result: '结果', time: '时间', action: '操作', success: '成功', failure: '失败',
    business: '业务', system: '系统', today: '今日（{{date}}）', period: '近 {{days}} 天（{{from}} 至 {{to}}）',
    orders: '订单数', revenue: '收入', paid: '已支付', pending: '待支付', cancelled: '已取消', averageOrderValue: '平均订单金额',
    byDay: '每日订单与收入（近 {{days}} 天，{{zone}}）', paymentsByMethod: '按支付方式', topProducts: '销量最高的商品',
    method: '支付方式', count: '笔数', amount: '金额', product: '商品', quantity: '数量', nothing: '此期间没有数据',
  },
});

interface Figures { orders: number; paid: number; pending: number; cancelled: number; revenue: number; average_order_value: number }

const money = (n: number | undefined) => (n ?? 0).toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export default function Dashboard() {
  const { t } = useTranslation('dashboard');
  return (
    <Tabs defaultActiveKey="business" items={[
      { key: 'business', label: t('business'), children: <Business /> },
      { key: 'system', label: t('system'), children: <System /> },
    ]} />
  );
}

/** The business figures of the caller's data scope: today and the last 30 days. */
function Business() {
  const { t } = useTranslation('dashboard');
  const q = useQuery({ queryKey: ['dashboard', 'business'], queryFn: () => unwrap(api.GET('/api/admin/dashboard/business', { params: { query: { days: 30 } } })) });
  if (q.error) return <QueryError error={q.error} onRetry={() => void q.refetch()} />;
  const d = q.data;
  const figureCards = (title: string, f: Figures | undefined) => (
    <Card title={title} loading={q.isLoading} size="small" className="dashboard-figures" role="group" aria-label={title}>
      <Row gutter={[16, 16]}>
        {([
          ['orders', f?.orders], ['paid', f?.paid], ['pending', f?.pending], ['cancelled', f?.cancelled],
        ] as const).map(([key, value]) => (
          <Col key={key} xs={12} md={6} xl={4}><Statistic title={t(key)} value={value ?? 0} /></Col>
        ))}
        <Col xs={12} md={6} xl={4}><Statistic title={t('revenue')} value={money(f?.revenue)} /></Col>
        <Col xs={12} md={6} xl={4}><Statistic title={t('averageOrderValue')} value={money(f?.average_order_value)} /></Col>
      </Row>
    </Card>
  );
  return (
    <>
      {figureCards(t('today', { date: d?.today.date ?? '' }), d?.today)}
      <div style={{ marginTop: 16 }}>
        {figureCards(t('period', { days: d?.period.days ?? 30, from: d?.period.from ?? '', to: d?.period.to ?? '' }), d?.period)}
      </div>
      <Card title={t('byDay', { days: d?.period.days ?? 30, zone: d?.time_zone ?? '' })} className="dashboard-by-day" style={{ marginTop: 16 }} loading={q.isLoading}>
        <div style={{ height: 260 }}>
          <ResponsiveContainer>
            <ComposedChart data={(d?.by_day ?? []).map((day) => ({ ...day, date: day.date.slice(5) }))}>
              <CartesianGrid strokeDasharray="3 3" />
              <XAxis dataKey="date" />
              <YAxis yAxisId="orders" allowDecimals={false} />
              <YAxis yAxisId="revenue" orientation="right" />
              <Tooltip />
              <Legend />
              <Bar yAxisId="orders" dataKey="orders" name={`${t('orders')} (${d?.period.orders ?? 0})`} fill="#1677ff" />
              <Line yAxisId="revenue" dataKey="revenue" name={`${t('revenue')} (${money(d?.period.revenue)})`} stroke="#52c41a" dot={false} />
            </ComposedChart>
          </ResponsiveContainer>
        </div>
      </Card>
      <Row gutter={[16, 16]} style={{ marginTop: 16 }}>
        <Col xs={24} xl={12}>
          <Card title={t('paymentsByMethod')} className="dashboard-methods">
            <Table size="small" rowKey="method_id" loading={q.isLoading} pagination={false} dataSource={d?.payments_by_method ?? []} locale={{ emptyText: t('nothing') }} columns={[
              { title: t('method'), dataIndex: 'name' },
              { title: t('count'), dataIndex: 'count', align: 'right' },
              { title: t('amount'), dataIndex: 'amount', align: 'right', render: (n: number) => money(n) },
            ]} />
          </Card>
        </Col>
        <Col xs={24} xl={12}>
          <Card title={t('topProducts')} className="dashboard-products">
            <Table size="small" rowKey="product_id" loading={q.isLoading} pagination={false} dataSource={d?.top_products ?? []} locale={{ emptyText: t('nothing') }} columns={[
              { title: t('product'), dataIndex: 'product_name' },
              { title: t('quantity'), dataIndex: 'quantity', align: 'right' },
              { title: t('revenue'), dataIndex: 'revenue', align: 'right', render: (n: number) => money(n) },
            ]} />
          </Card>
        </Col>
      </Row>
    </>
  );
}

const COLORS: Record<string, string> = { operations: '#52c41a', logins: '#1677ff' };

/** The system figures: administrators, roles, menus, today's activity and the newest log rows. */
function System() {
  const { t } = useTranslation('dashboard');
  const stats = useQuery({ queryKey: ['dashboard', 'stats'], queryFn: () => unwrap(api.GET('/api/admin/dashboard/stats')) });
  if (stats.error) return <QueryError error={stats.error} onRetry={() => void stats.refetch()} />;
  const d = stats.data;
  // One row per hour of the day, one column per series (the legend names them, in the reader's language).
  const activity = d?.activity_today;
  const series = activity?.series ?? [];
  const chart = (activity?.hours ?? []).map((hour, i) => ({ hour, ...Object.fromEntries(series.map((s) => [s.key, s.data[i] ?? 0])) }));
  const cards = [
    ['loginsToday', d?.login_count_today], ['operationsToday', d?.operation_count_today],
    ['admins', d?.admin_count], ['roles', d?.role_count], ['menus', d?.menu_count],
  ] as const;
  return (
    <>
      <Row gutter={[16, 16]}>
        {cards.map(([key, value]) => (
          <Col key={key} xs={12} md={8} xl={4}>
            <Card loading={stats.isLoading} role="group" aria-label={t(key)}><Statistic title={t(key)} value={value ?? 0} /></Card>
          </Col>
        ))}
      </Row>
      <Card title={activity ? t('activity', { date: activity.date, zone: activity.time_zone }) : t('activity', { date: '', zone: '' })} className="dashboard-activity" style={{ marginTop: 16 }} loading={stats.isLoading}>
        <div style={{ height: 240 }}>
          <ResponsiveContainer>
            <BarChart data={chart}>
              <CartesianGrid strokeDasharray="3 3" />
              <XAxis dataKey="hour" />
              <YAxis allowDecimals={false} />
              <Tooltip />
              <Legend />
              {series.map((s) => <Bar key={s.key} dataKey={s.key} name={`${s.name} (${s.total})`} fill={COLORS[s.key]} />)}
            </BarChart>
          </ResponsiveContainer>
        </div>
      </Card>
      <Row gutter={16} style={{ marginTop: 16 }}>
        <Col xs={24} xl={12}>
          <Card title={t('recentLogins')}>
            <Table size="small" rowKey="id" loading={stats.isLoading} pagination={false} dataSource={d?.recent_logins ?? []} columns={[
              { title: t('user'), dataIndex: 'username' },
              { title: t('ip'), dataIndex: 'ip' },
              { title: t('location'), key: 'location', render: (_: unknown, r) => r.location.label },
              { title: t('result'), dataIndex: 'status', render: (s: number) => (s === 1 ? t('success') : <Typography.Text type="danger">{t('failure')}</Typography.Text>) },
              { title: t('time'), dataIndex: 'created_at' },
            ]} />
          </Card>
        </Col>
        <Col xs={24} xl={12}>
          <Card title={t('recentOperations')}>
            <Table size="small" rowKey="id" loading={stats.isLoading} pagination={false} dataSource={d?.recent_operations ?? []} columns={[
              { title: t('user'), dataIndex: 'username' },
              { title: t('action'), dataIndex: 'action_label' },
              { title: t('time'), dataIndex: 'created_at' },
            ]} />
          </Card>
        </Col>
      </Row>
    </>
  );
}
