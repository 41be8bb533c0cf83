// Dashboard: today's sign-ins and operations, the counts of administrators, roles and menus,
// a chart of today's activity hour by hour (counted by the server over the whole day, in the
// display time zone) and the newest log rows.
import { useQuery } from '@tanstack/react-query';
import { Card, Col, Row, Statistic, Table, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { api, unwrap } from '../../api/client.ts';
import { QueryError } from '../../../../shared/antd/feedback.tsx';
import { addStrings } from '../../i18n/index.ts';

addStrings('dashboard', {
  'en-US': {
    admins: 'Administrators', roles: 'Roles', menus: 'Menus', loginsToday: 'Sign-ins today', operationsToday: 'Operations today',
    activity: 'Activity today by hour ({{date}}, {{zone}})', recentLogins: 'Recent sign-ins', recentOperations: 'Recent operations',
    user: 'User', ip: 'IP', result: 'Result', time: 'Time', action: 'Action', success: 'Success', failure: 'Failure',
  },
  'zh-CN': {
    admins: '管理员', roles: '角色', menus: '菜单', loginsToday: '今日登录', operationsToday: '今日操作',
    activity: '今日每小时活动（{{date}}，{{zone}}）', recentLogins: '最近登录', recentOperations: '最近操作',
    user: '用户', ip: 'IP', result: '结果', time: '时间', action: '操作', success: '成功', failure: '失败',
  },
});

const COLORS: Record<string, string> = { operations: '#52c41a', logins: '#1677ff' };

export default function Dashboard() {
  const { t } = useTranslation('dashboard');
  const stats = useQuery({ queryKey: ['dashboard'], queryFn: () => unwrap(api.GET('/api/admin/dashboard/stats')) });
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
            <Card loading={stats.isLoading}><Statistic title={t(key)} value={value ?? 0} /></Card>
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
