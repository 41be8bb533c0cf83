// The frame of every screen after sign-in: the menu tree the administrator may see (from /info:
// its titles and icons), breadcrumbs, the language switch, light and dark themes, the
// notification bell and the profile menu. The screen itself is the routed outlet. On a phone
// (narrower than 768 px) the menu is a drawer opened from the header. The menu follows a change
// of the administrator's roles: /info is read again when the window regains focus.
import { AppstoreOutlined, BulbOutlined, LogoutOutlined, MenuOutlined, UserOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { Breadcrumb, Button, Drawer, Dropdown, Grid, Layout, Menu, Space, Spin, Tooltip, Typography, type MenuProps } from 'antd';
import { Suspense, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Outlet, useLocation, useNavigate } from 'react-router';
import { useAuth, type MenuNode } from '../auth/auth.tsx';
import { menuIcon } from '../components/menuIcon.tsx';
import { menuTitle } from '../components/menuTitle.ts';
import { NotificationBell } from '../screens/notifications/Bell.tsx';
import { EXTRA_ROUTES, preloadScreens } from '../screens/registry.tsx';
import { LanguageSwitch } from './LanguageSwitch.tsx';
import { useTheme } from './theme.tsx';

type Item = Required<MenuProps>['items'][number];

/** Directories and menus (not buttons), as antd menu items keyed by path. */
function itemsOf(nodes: MenuNode[], title: (n: MenuNode) => string): Item[] {
  return nodes
    .filter((n) => n.type !== 3)
    .map((n) => {
      const children = itemsOf(n.children, title);
      return n.type === 1
        ? { key: n.path || `dir-${n.id}`, icon: menuIcon(n.icon, n.type), label: title(n), children }
        : { key: n.path ?? `menu-${n.id}`, icon: menuIcon(n.icon, n.type), label: <MenuLink to={n.path ?? '/'}>{title(n)}</MenuLink> };
    });
}

/**
 * A menu entry's link. Unlike react-router's Link, it does not read the location, so a navigation
 * does not render every entry of the menu again.
 */
function MenuLink({ to, children }: { to: string; children: ReactNode }) {
  const navigate = useNavigate();
  return (
    <a
      href={to}
      onClick={(e) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return; // a new tab or window
        e.preventDefault();
        void navigate(to);
      }}
    >
      {children}
    </a>
  );
}

/** The `component` of every menu entry (type 2) in the tree. */
function componentsOf(nodes: MenuNode[]): string[] {
  return nodes.flatMap((n) => [...(n.type === 2 && n.component ? [n.component] : []), ...componentsOf(n.children)]);
}

/** The trail of menu nodes down to the one whose path is `path`. */
function trailOf(nodes: MenuNode[], path: string): MenuNode[] {
  for (const n of nodes) {
    if (n.path === path) return [n];
    const below = trailOf(n.children, path);
    if (below.length > 0) return [n, ...below];
  }
  return [];
}

/** Reads /info again when the window regains focus (a change of roles shows without a reload). */
function useProfileOnFocus() {
  const queryClient = useQueryClient();
  useEffect(() => {
    const again = () => {
      if (document.visibilityState === 'visible') void queryClient.invalidateQueries({ queryKey: ['profile'] });
    };
    window.addEventListener('focus', again);
    document.addEventListener('visibilitychange', again);
    return () => {
      window.removeEventListener('focus', again);
      document.removeEventListener('visibilitychange', again);
    };
  }, [queryClient]);
}

export default function Shell() {
  const { t } = useTranslation();
  const { profile, signOut } = useAuth();
  const { dark, toggle } = useTheme();
  const location = useLocation();
  const navigate = useNavigate();
  const screens = Grid.useBreakpoint();
  // Before the first measurement, the width decides (no sidebar flashing on a phone).
  const phone = screens.md === undefined ? window.innerWidth < 768 : !screens.md;
  const [drawer, setDrawer] = useState(false);
  const [collapsed, setCollapsed] = useState(false);
  const title = (n: MenuNode) => menuTitle(n, t);
  const menus = useMemo(() => (profile?.menus ?? []), [profile]);
  const items = useMemo(() => itemsOf(menus, (n) => menuTitle(n, t)), [menus, t]);
  const trail = trailOf(menus, location.pathname);
  const open = trail.slice(0, -1).map((n) => n.path || `dir-${n.id}`);
  const extra = EXTRA_ROUTES.find((r) => r.path === location.pathname);
  const crumbs = extra ? [{ title: t(extra.titleKey) }] : trail.map((n) => ({ title: title(n) }));
  useEffect(() => preloadScreens(componentsOf(menus)), [menus]);
  useProfileOnFocus();
  // A new screen opens at its top; the drawer closes once an entry is chosen.
  useEffect(() => {
    window.scrollTo(0, 0);
    setDrawer(false);
  }, [location.pathname]);

  const menu = (
    <nav aria-label={t('app.title')}>
      {/* Opened on the way to the current screen: entering another directory (a link, a reload at
          `/` that leads to the first screen) shows its entries. */}
      <Menu key={open.join('|')} mode="inline" theme={dark ? 'dark' : 'light'} items={items} selectedKeys={[location.pathname]} defaultOpenKeys={collapsed && !phone ? [] : open} />
    </nav>
  );
  return (
    <Layout className="shell">
      {!phone && (
        <Layout.Sider
          className="shell-sider"
          breakpoint="lg"
          collapsible
          collapsed={collapsed}
          onCollapse={setCollapsed}
          width={220}
          theme={dark ? 'dark' : 'light'}
        >
          <div className="brand" title={t('app.title')}>{collapsed ? <AppstoreOutlined aria-label={t('app.title')} /> : t('app.title')}</div>
          {menu}
        </Layout.Sider>
      )}
      {phone && (
        <Drawer
          placement="left"
          open={drawer}
          onClose={() => setDrawer(false)}
          size={260}
          title={t('app.title')}
          styles={{ body: { padding: 0 } }}
        >
          {menu}
        </Drawer>
      )}
      <Layout className="shell-main">
        <Layout.Header className="shell-header">
          <div className="shell-header-start">
            {phone && <Button type="text" icon={<MenuOutlined />} aria-label={t('layout.menu')} aria-expanded={drawer} onClick={() => setDrawer(true)} />}
            {phone
              ? <Typography.Text strong ellipsis className="shell-header-title">{crumbs.at(-1)?.title ?? t('app.title')}</Typography.Text>
              : <Breadcrumb items={[{ title: <Link to="/">{t('layout.home')}</Link> }, ...crumbs]} />}
          </div>
          <Space size={phone ? 0 : 'middle'}>
            <NotificationBell />
            <LanguageSwitch />
            <Tooltip title={t('layout.theme')}>
              <Button type="text" icon={<BulbOutlined />} onClick={toggle} aria-label={`${t('layout.theme')}: ${dark ? t('layout.light') : t('layout.dark')}`} />
            </Tooltip>
            <Dropdown
              trigger={['click']}
              menu={{
                items: [
                  { key: 'profile', icon: <UserOutlined />, label: t('action.profile'), onClick: () => void navigate('/profile') },
                  { key: 'sign-out', icon: <LogoutOutlined />, label: t('action.signOut'), onClick: () => void signOut() },
                ],
              }}
            >
              <Button type="text" aria-label={t('action.profile')} icon={<UserOutlined />}>
                {!phone && <Typography.Text>{profile?.nickname || profile?.username}</Typography.Text>}
              </Button>
            </Dropdown>
          </Space>
        </Layout.Header>
        <Layout.Content className="shell-content">
          <Suspense fallback={<Spin className="screen-loading" />}>
            <Outlet />
          </Suspense>
        </Layout.Content>
      </Layout>
    </Layout>
  );
}
