// Providers (query cache, Ant Design theme and locale, session) and the routes: the sign-in
// page, and behind it the shell with one route per menu entry the administrator may see.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import i18n from 'i18next';
import { Alert, App as AntApp, Button, ConfigProvider, Spin, theme } from 'antd';
import enUS from 'antd/locale/en_US';
import zhCN from 'antd/locale/zh_CN';
import { lazy, Suspense, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { createBrowserRouter, Navigate, RouterProvider, useLocation, type RouteObject } from 'react-router';
import { ApiError } from './api/errors.ts';
import { endReason, getSession } from './api/session.ts';
import { AuthProvider, useAuth, type MenuNode } from './auth/auth.tsx';
import SignIn from './auth/SignIn.tsx';
import { useMotionToken } from '../../shared/antd/motion.ts';
import { ThemeState } from './layout/theme.tsx';
import { EXTRA_ROUTES, SCREENS, type Screen } from './screens/registry.tsx';

// Loaded after sign-in: the sign-in page stays small.
const Shell = lazy(() => import('./layout/Shell.tsx'));
// Only for an account whose role requires an authenticator it has not bound yet.
const BindAuthenticator = lazy(() => import('./auth/BindAuthenticator.tsx'));
// Only for an account whose password someone else set, or whose password expired.
const ChangePasswordStep = lazy(() => import('./auth/ChangePasswordStep.tsx'));

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A refusal (4xx) is an answer, not a glitch: only network failures and 5xx are retried.
      retry: (count, err) => count < 2 && (!(err instanceof ApiError) || err.status === 0 || err.status >= 500),
      refetchOnWindowFocus: false,
    },
  },
});
// What the server writes in the reader's language (action and permission labels, the chart's legend,
// notification texts) is asked for again when the language changes.
i18n.on('languageChanged', () => void queryClient.invalidateQueries());

const Pending = lazy(() => import('./screens/status.tsx').then((m) => ({ default: m.Pending })));
const NotFound = lazy(() => import('./screens/status.tsx').then((m) => ({ default: m.NotFound })));

/** The menu entries (type 2) the administrator may see, flattened. */
function pagesOf(nodes: MenuNode[]): (MenuNode & { path: string })[] {
  return nodes.flatMap((n) => [...(n.type === 2 && n.path ? [n as MenuNode & { path: string }] : []), ...pagesOf(n.children)]);
}

/** A screen's route: its chunk, and its first request started with the navigation (when signed in). */
function screenRoute(path: string, screen: Screen | undefined): RouteObject {
  if (!screen) return { path, element: <Pending /> };
  const { load, data } = screen;
  return {
    path,
    lazy: async () => ({ Component: (await load()).default }),
    loader: ({ request }) => {
      if (data && getSession()) void data(queryClient, new URL(request.url).searchParams);
      return null;
    },
    errorElement: <ScreenError />,
  };
}

/** A screen whose code could not be loaded (the network, or a console updated since this page was opened). */
function ScreenError() {
  const { t } = useTranslation();
  return (
    <Alert
      type="error"
      showIcon
      title={t('error.screen')}
      action={<Button onClick={() => window.location.reload()}>{t('action.reload')}</Button>}
    />
  );
}

/** Signed-in part: routes from the menu tree; the first page is the home. */
function Protected() {
  const { session, profile, restoring, bindingRequired, passwordRequired } = useAuth();
  const location = useLocation();
  if (restoring) return <Spin fullscreen />;
  // Signed out on purpose: the next sign-in (perhaps of someone else) starts at its own home.
  if (!session) return <Navigate to={endReason() === 'signed-out' ? '/login' : `/login?next=${encodeURIComponent(location.pathname + location.search)}`} replace />;
  // Someone else set the password, or it expired: the session is good for a new one, and nothing else yet.
  if (passwordRequired) return <ChangePasswordStep />;
  // A role requires an authenticator: the session is good for binding one, and nothing else yet.
  if (bindingRequired) return <BindAuthenticator />;
  if (!profile) return <Spin fullscreen />;
  return <Shell />;
}

function Routed() {
  const { profile } = useAuth();
  // The routes change only when the screens do: /info read again (on focus, after a change of
  // roles) with the same screens keeps the router, and so every open screen, form and menu.
  const pages = pagesOf((profile?.menus ?? []));
  const routesKey = `${profile ? 'in' : 'out'}:${pages.map((p) => `${p.path}=${p.component ?? ''}`).join('|')}`;
  const router = useMemo(() => {
    return createBrowserRouter([
      { path: '/login', element: <SignIn /> },
      {
        path: '/',
        element: <Protected />,
        hydrateFallbackElement: <Spin fullscreen />,
        children: [
          { index: true, element: pages[0] ? <Navigate to={pages[0].path} replace /> : <Pending /> },
          ...pages.map((p) => screenRoute(p.path, SCREENS[p.component ?? ''])),
          ...EXTRA_ROUTES.map((r) => screenRoute(r.path, r.screen)),
          { path: '*', element: profile ? <NotFound /> : <Spin /> },
        ],
      },
    ]);
  }, [routesKey]);
  return <RouterProvider router={router} />;
}

export function App() {
  const { i18n } = useTranslation();
  const motion = useMotionToken();
  return (
    <QueryClientProvider client={queryClient}>
      <ThemeState>
        {(dark) => (
          <ConfigProvider
            locale={i18n.language === 'zh-CN' ? zhCN : enUS}
            theme={{ algorithm: dark ? theme.darkAlgorithm : theme.defaultAlgorithm, zeroRuntime: true, token: motion }}
            // Labels as written (antd puts a space inside two-character Chinese labels).
            button={{ autoInsertSpace: false }}
          >
            <AntApp>
              <AuthProvider>
                <Suspense fallback={<Spin fullscreen />}>
                  <Routed />
                </Suspense>
              </AuthProvider>
            </AntApp>
          </ConfigProvider>
        )}
      </ThemeState>
    </QueryClientProvider>
  );
}
