// Dashboard: today's sign-ins and operations, the counts of administrators, roles and menus,
// a chart of the recent activity and the newest log rows.
import { useQuery } from '@tanstack/react-query';
import { Card, Col, Row, Statistic, Table, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { api, unwrap } from '../../api/client.ts';
import { QueryError } from '../../components/feedback.tsx';
import { addStrings } from '../../i18n/index.ts';

addStrings('dashboard', {
  'en-US': {
    admins: 'Administrators', roles: 'Roles', menus: 'Menus', loginsToday: 'Sign-ins today', operationsToday: 'Operations today',
    activity: 'Activity by hour (newest rows)', recentLogins: 'Recent sign-ins', recentOperations: 'Recent operations',
    user: 'User', ip: 'IP', result: 'Result', time: 'Time', module: 'Module', action: 'Action', success: 'Success', failure: 'Failure',
    logins: 'Sign-ins', operations: 'Operations',
  },
  'zh-CN': {
    admins: '管理员', roles: '角色', menus: '菜单', loginsToday: '今日登录', operationsToday: '今日操作',
    activity: '按小时的活动（最新记录）', recentLogins: '最近登录', recentOperations: '最近操作',
    user: '用户', ip: 'IP', result: '结果', time: '时间', module: '模块', action: '动作', success: '成功', failure: '失败',
    logins: '登录', operations: '操作',
  },
});

export default function Dashboard() {
  const { t } = useTranslation('dashboard');
  const stats = useQuery({ queryKey: ['dashboard'], queryFn: () => unwrap(api.GET('/api/admin/dashboard/stats')) });
  if (stats.error) return <QueryError error={stats.error} onRetry={() => void stats.refetch()} />;
  const d = stats.data;
  const hours = new Map<string, { hour: string; logins: number; operations: number }>();
  const hourOf = (time: string) => time.slice(11, 13) + ':00';
  for (const r of d?.recent_logins ?? []) {
    const h = hours.get(hourOf(r.created_at)) ?? { hour: hourOf(r.created_at), logins: 0, operations: 0 };
    h.logins += 1;
    hours.set(h.hour, h);
  }
  for (const r of d?.recent_operations ?? []) {
    const h = hours.get(hourOf(r.created_at)) ?? { hour: hourOf(r.created_at), logins: 0, operations: 0 };
    h.operations += 1;
    hours.set(h.hour, h);
  }
  const chart = [...hours.values()].sort((a, b) => a.hour.localeCompare(b.hour));
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
      <Card title={t('activity')} style={{ marginTop: 16 }} loading={stats.isLoading}>
        <div style={{ height: 240 }}>
          <ResponsiveContainer>
            <BarChart data={chart}>
              <CartesianGrid strokeDasharray="3 3" />
              <XAxis dataKey="hour" />
              <YAxis allowDecimals={false} />
              <Tooltip />
              <Legend />
              <Bar dataKey="logins" name={t('logins')} fill="#1677ff" />
              <Bar dataKey="operations" name={t('operations')} fill="#52c41a" />
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
              { title: t('module'), dataIndex: 'module' },
              { title: t('action'), dataIndex: 'action' },
              { title: t('time'), dataIndex: 'created_at' },
            ]} />
          </Card>
        </Col>
      </Row>
    </>
  );
}
