// The manager console (desktop first, usable on a tablet): its own lazy chunk with Ant Design,
// never loaded by workers. One menu entry per screen; the QR sheet is a bare page made to print.
import { AlertOutlined, ApiOutlined, DashboardOutlined, EnvironmentOutlined, QrcodeOutlined, StopOutlined, TeamOutlined } from '@ant-design/icons';
import { QueryClientProvider } from '@tanstack/react-query';
import { App as AntApp, Button, ConfigProvider, Layout, Menu, Space, Typography } from 'antd';
import enUS from 'antd/locale/en_US';
import zhCN from 'antd/locale/zh_CN';
import dayjs from 'dayjs';
import 'dayjs/locale/zh-cn';
import { lazy, Suspense, useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, Route, Routes, useLocation, useNavigate } from 'react-router';
import { useAuth } from '../auth/auth.tsx';
import { LanguageButton } from '../components/LanguageButton.tsx';
import { addStrings } from '../i18n/index.ts';
import { queryClient } from './common.tsx';
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

const MENU = [
  { key: 'board', icon: <DashboardOutlined /> },
  { key: 'workers', icon: <TeamOutlined /> },
  { key: 'sites', icon: <EnvironmentOutlined /> },
  { key: 'qr', icon: <QrcodeOutlined /> },
  { key: 'alerts', icon: <AlertOutlined /> },
  { key: 'blacklist', icon: <StopOutlined /> },
  { key: 'webhooks', icon: <ApiOutlined /> },
] as const;

function Shell() {
  const { t } = useTranslation('manager');
  const { session, signOut } = useAuth();
  const location = useLocation();
  const navigate = useNavigate();
  const current = location.pathname.split('/')[2] || 'board';
  return (
    <Layout className="mgr">
      <Layout.Sider width={232} breakpoint="lg" collapsedWidth={56} theme="light" className="mgr-sider">
        <div className="mgr-brand">{t('common:app.manager')}</div>
        <Menu
          mode="inline"
          selectedKeys={[current]}
          items={MENU.map((m) => ({ key: m.key, icon: m.icon, label: t(`nav.${m.key}`) }))}
          onClick={({ key }) => void navigate(`/manager/${key}`)}
        />
      </Layout.Sider>
      <Layout>
        <Layout.Header className="mgr-header">
          <Typography.Title level={1} className="mgr-title">{t(`nav.${current}`, { defaultValue: t('nav.board') })}</Typography.Title>
          <Space>
            <Typography.Text type="secondary">{session?.fullName}</Typography.Text>
            <LanguageButton />
            <Button type="link" onClick={signOut}>{t('common:action.signOut')}</Button>
          </Space>
        </Layout.Header>
        <Layout.Content className="mgr-content">
          <Suspense fallback={<p className="loading" role="status">{t('state.loading')}</p>}>
            <Routes>
              <Route index element={<Navigate to="board" replace />} />
              <Route path="board" element={<Board />} />
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
  useEffect(() => void dayjs.locale(zh ? 'zh-cn' : 'en'), [zh]);
  return (
    <ConfigProvider
      locale={zh ? zhCN : enUS}
      theme={{ token: { colorPrimary: '#0b6e4f' } }}
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
