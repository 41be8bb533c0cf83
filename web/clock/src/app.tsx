// Routes of the time-clock app, under /clock/: the sign-in page; the worker app (phone first) at
// the root; the manager console under /manager. Each part is its own chunk, loaded after sign-in,
// so the sign-in page and the worker app stay small (the console's Ant Design is never loaded on
// a worker's phone).
import { lazy, Suspense, type ReactNode } from 'react';
import { createBrowserRouter, Navigate, RouterProvider, useLocation } from 'react-router';
import type { Role } from './api/session.ts';
import { AuthProvider, useAuth } from './auth/auth.tsx';
import SignIn from './auth/SignIn.tsx';

const WorkerApp = lazy(() => import('./worker/WorkerApp.tsx'));
const ManagerApp = lazy(() => import('./manager/ManagerApp.tsx'));
// Only for an account whose password someone else set, or whose password expired.
const ChangePassword = lazy(() => import('./auth/ChangePassword.tsx'));

function RequireRole({ role, children }: { role: Role; children: ReactNode }) {
  const { session } = useAuth();
  const location = useLocation();
  if (!session) return <Navigate to={`/login?next=${encodeURIComponent(`${location.pathname}${location.search}`)}`} replace />;
  if (session.role !== role) return <Navigate to={session.role === 'manager' ? '/manager' : '/'} replace />;
  // A new password first: the token is good for nothing else.
  return <Suspense fallback={<p className="loading" role="status">…</p>}>{session.mustChangePassword ? <ChangePassword /> : children}</Suspense>;
}

const router = createBrowserRouter([
  { path: '/login', element: <SignIn /> },
  { path: '/manager/*', element: <RequireRole role="manager"><ManagerApp /></RequireRole> },
  { path: '/*', element: <RequireRole role="worker"><WorkerApp /></RequireRole> },
  // With the trailing slash the worker app's home is /clock/, inside the service worker's scope
  // (/clock/): a reload there, offline, is answered from the cached shell (/clock is outside it;
  // main.tsx moves it to /clock/).
], { basename: '/clock/' });

export function App() {
  return (
    <AuthProvider>
      <RouterProvider router={router} />
    </AuthProvider>
  );
}
