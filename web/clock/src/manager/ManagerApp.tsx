// The manager console: its own lazy chunk with Ant Design, never loaded by workers. One menu
// entry per screen, in a sidebar from `md` up and in a drawer at phone width (where the lists
// become cards and the forms one column: see common.tsx); the QR sheet is a bare page made to print.
import { AlertOutlined, ApiOutlined, AuditOutlined, ClockCircleOutlined, DashboardOutlined, FieldTimeOutlined, EnvironmentOutlined, LogoutOutlined, MenuOutlined, QrcodeOutlined, StopOutlined, TeamOutlined } from '@ant-design/icons';
import { QueryClientProvider, useQuery } from '@tanstack/react-query';
import { Alert, App as AntApp, Badge, Button, ConfigProvider, Drawer, Layout, Menu, Space, Typography } from 'antd';
import enUS from 'antd/locale/en_US';
import zhCN from 'antd/locale/zh_CN';
import dayjs from 'dayjs';
import 'dayjs/locale/zh-cn';
import { lazy, Suspense, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, Route, Routes, useLocation, useNavigate } from 'react-router';
import { api, call } from '../api/client.ts';
import { useAuth } from '../auth/auth.tsx';
import { LanguageButton } from '../components/LanguageButton.tsx';
import { addStrings } from '../i18n/index.ts';
import { useNarrow } from '../../../shared/antd/DataList.tsx';
import { useMotionToken } from '../../../shared/antd/motion.ts';
import { queryClient, useSites } from './common.tsx';
import './manager.css';
import { strings } from './strings.ts';

addStrings('manager', strings);

const Board = lazy(() => import('./Board.tsx'));
const Workers = lazy(() => import('./Workers.tsx'));
const Sites = lazy(() => import('./Sites.tsx'));
const QrCodes = lazy(() => import('./QrCodes.tsx'));
const QrSheet = lazy(() => import('./QrSheet.tsx'));
const Alerts = lazy(() => import('./Alerts.tsx'));
const Blacklist = lazy(() => import('./Blacklist.tsx'));
const Webhooks = lazy(() => import('./Webhooks.tsx'));
const Timesheets = lazy(() => import('./Timesheets.tsx'));
const Exceptions = lazy(() => import('./Exceptions.tsx'));
const WorkRules = lazy(() => import('./WorkRules.tsx'));

const MENU = [
  { key: 'board', icon: <DashboardOutlined /> },
  { key: 'timesheets', icon: <FieldTimeOutlined /> },
  { key: 'exceptions', icon: <AuditOutlined /> },
  { key: 'workers', icon: <TeamOutlined /> },
  { key: 'sites', icon: <EnvironmentOutlined /> },
  { key: 'qr', icon: <QrcodeOutlined /> },
  { key: 'alerts', icon: <AlertOutlined /> },
  { key: 'blacklist', icon: <StopOutlined /> },
  { key: 'rules', icon: <ClockCircleOutlined /> },
  { key: 'webhooks', icon: <ApiOutlined /> },
] as const;

/**
 * Until the default site has a fence nobody can clock at its codes (a new database starts so): every
 * screen but the sites' says so and leads to drawing it.
 */
function FenceBanner() {
  const { t } = useTranslation('manager');
  const navigate = useNavigate();
  const sites = useSites();
  const site = sites.data?.find((s) => s.is_default && !s.fence);
  if (!site) return null;
  return (
    <Alert type="warning" showIcon className="mgr-notice" role="alert" data-testid="fence-banner"
      message={t('sites.firstFenceTitle', { site: site.name })}
      description={t('sites.firstFenceWhy')}
      action={<Button type="primary" onClick={() => void navigate(`/manager/sites?edit=${site.id}`)}>{t('sites.drawFence')}</Button>} />
  );
}

/** How many correction requests wait for a decision and automatic clock-outs for review (the Exceptions entry's badge); refreshed with the inbox. */
function usePendingCorrections(): number {
  const summary = useQuery({
    queryKey: ['corrections', 'summary'],
    queryFn: () => call(api.GET('/api/managers/exceptions/summary')),
    refetchInterval: 60_000,
  });
  return (summary.data?.pendingCorrections ?? 0) + (summary.data?.autoClockOutsToReview ?? 0);
}

function Shell() {
  const { t } = useTranslation('manager');
  const pending = usePendingCorrections();
  const { session, signOut } = useAuth();
  const location = useLocation();
  const navigate = useNavigate();
  const current = location.pathname.split('/')[2] || 'board';
  const narrow = useNarrow();
  const [drawer, setDrawer] = useState(false);
  const menu = (
    <Menu
      mode="inline"
      selectedKeys={[current]}
      items={MENU.map((m) => ({
        key: m.key, icon: m.icon,
        label: m.key === 'exceptions' && pending > 0
          ? <span className="mgr-menu-count">{t(`nav.${m.key}`)}<Badge count={pending} size="small" aria-label={t('nav.waiting', { count: pending })} /></span>
          : t(`nav.${m.key}`),
      }))}
      onClick={({ key }) => {
        setDrawer(false);
        void navigate(`/manager/${key}`);
      }}
    />
  );
  return (
    <Layout className={`mgr${narrow ? ' mgr-narrow' : ''}`}>
      {narrow ? (
        <Drawer open={drawer} placement="left" width={272} onClose={() => setDrawer(false)} title={t('common:app.manager')} className="mgr-nav-drawer"
          footer={<Typography.Text type="secondary">{session?.fullName}</Typography.Text>}>
          {menu}
        </Drawer>
      ) : (
        <Layout.Sider width={232} breakpoint="lg" collapsedWidth={56} theme="light" className="mgr-sider">
          <div className="mgr-brand">{t('common:app.manager')}</div>
          {menu}
        </Layout.Sider>
      )}
      <Layout>
        <Layout.Header className="mgr-header">
          {narrow && <Button type="text" icon={<MenuOutlined />} aria-label={t('nav.open')} aria-expanded={drawer} onClick={() => setDrawer(true)} className="mgr-nav-button" />}
          <Typography.Title level={1} className="mgr-title">{t(`nav.${current}`, { defaultValue: t('nav.board') })}</Typography.Title>
          <Space size={narrow ? 0 : 8}>
            {!narrow && <Typography.Text type="secondary">{session?.fullName}</Typography.Text>}
            <LanguageButton />
            {narrow
              ? <Button type="text" icon={<LogoutOutlined />} aria-label={t('common:action.signOut')} title={t('common:action.signOut')} onClick={signOut} />
              : <Button type="link" onClick={signOut}>{t('common:action.signOut')}</Button>}
          </Space>
        </Layout.Header>
        <Layout.Content className="mgr-content">
          {current !== 'sites' && <FenceBanner />}
          <Suspense fallback={<p className="loading" role="status">{t('state.loading')}</p>}>
            <Routes>
              <Route index element={<Navigate to="board" replace />} />
              <Route path="board" element={<Board />} />
              <Route path="timesheets" element={<Timesheets />} />
              <Route path="exceptions" element={<Exceptions />} />
              <Route path="rules" element={<WorkRules />} />
              <Route path="workers" element={<Workers />} />
              <Route path="sites" element={<Sites />} />
              <Route path="qr" element={<QrCodes />} />
              <Route path="alerts" element={<Alerts />} />
              <Route path="blacklist" element={<Blacklist />} />
              <Route path="webhooks" element={<Webhooks />} />
              <Route path="*" element={<Navigate to="board" replace />} />
            </Routes>
          </Suspense>
        </Layout.Content>
      </Layout>
    </Layout>
  );
}

export default function ManagerApp() {
  const { i18n } = useTranslation();
  const zh = i18n.language === 'zh-CN';
  const motion = useMotionToken();
  useEffect(() => void dayjs.locale(zh ? 'zh-cn' : 'en'), [zh]);
  return (
    <ConfigProvider
      locale={zh ? zhCN : enUS}
      theme={{ token: { colorPrimary: '#0b6e4f', ...motion } }}
      // Labels as written (antd puts a space inside two-character Chinese labels).
      button={{ autoInsertSpace: false }}
    >
      <AntApp>
        <QueryClientProvider client={queryClient}>
          <Routes>
            <Route path="qr/:id/print" element={<Suspense fallback={null}><QrSheet /></Suspense>} />
            <Route path="*" element={<Shell />} />
          </Routes>
        </QueryClientProvider>
      </AntApp>
    </ConfigProvider>
  );
}
