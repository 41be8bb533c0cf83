// Which screen a menu entry opens: the menu tree from /info names each entry's `component`
// (system/admin/index, …). Each screen is its own chunk. A navigation to a screen loads its chunk
// and, for a list, starts its first request at the same time (from the URL's search parameters,
// before the screen's code has arrived); once the shell is shown, the chunks of the screens in the
// administrator's menu are loaded in the browser's idle time, so a first visit does not wait for
// them either.
import type { QueryClient } from '@tanstack/react-query';
import type { ComponentType } from 'react';
import { adminsQuery } from './admins/query.ts';
import { blacklistsQuery } from './blacklists/query.ts';
import { loginLogsQuery, operationLogsQuery, systemLogsQuery } from './logs/query.ts';
import { notificationsQuery } from './notifications/query.ts';
import { onlineQuery } from './online/query.ts';
import { ordersQuery } from './orders/query.ts';
import { paymentMethodsQuery } from './payment-methods/query.ts';
import { paymentsQuery } from './payments/query.ts';
import { permissionsQuery } from './permissions/query.ts';
import { rolesQuery } from './roles/query.ts';

export interface Screen {
  load: () => Promise<{ default: ComponentType }>;
  /** Starts the screen's first request, for the URL's search parameters. */
  data?: (client: QueryClient, search: URLSearchParams) => Promise<void>;
}

export const SCREENS: Record<string, Screen> = {
  'dashboard/index': { load: () => import('./dashboard/Dashboard.tsx') },
  'system/admin/index': { load: () => import('./admins/Admins.tsx'), data: adminsQuery.prefetch },
  'system/role/index': { load: () => import('./roles/Roles.tsx'), data: rolesQuery.prefetch },
  'system/menu/index': { load: () => import('./menus/Menus.tsx') },
  'system/permission/index': { load: () => import('./permissions/Permissions.tsx'), data: permissionsQuery.prefetch },
  'system/department/index': { load: () => import('./departments/Departments.tsx') },
  'system/dictionary/index': { load: () => import('./dictionaries/Dictionaries.tsx') },
  'system/blacklist/index': { load: () => import('./blacklists/Blacklists.tsx'), data: blacklistsQuery.prefetch },
  'system/password-policy/index': { load: () => import('./password-policy/PasswordPolicy.tsx') },
  'trade/order/index': { load: () => import('./orders/Orders.tsx'), data: ordersQuery.prefetch },
  'trade/payment-method/index': { load: () => import('./payment-methods/PaymentMethods.tsx'), data: paymentMethodsQuery.prefetch },
  'trade/payment/index': { load: () => import('./payments/Payments.tsx'), data: paymentsQuery.prefetch },
  'log/operation/index': { load: () => import('./logs/OperationLogs.tsx'), data: operationLogsQuery.prefetch },
  'log/login/index': { load: () => import('./logs/LoginLogs.tsx'), data: loginLogsQuery.prefetch },
  'log/system/index': { load: () => import('./logs/SystemLogs.tsx'), data: systemLogsQuery.prefetch },
  'monitor/online/index': { load: () => import('./online/Online.tsx'), data: onlineQuery.prefetch },
  'monitor/system/index': { load: () => import('./monitor/Monitor.tsx') },
  'attachment/index': { load: () => import('./attachments/Attachments.tsx') },
  'notification/index': { load: () => import('./notifications/Notifications.tsx'), data: notificationsQuery.prefetch },
};

/** Screens reached from the header rather than the menu (every signed-in administrator has them). */
export const EXTRA_ROUTES: { path: string; titleKey: string; screen: Screen }[] = [
  { path: '/profile', titleKey: 'action.profile', screen: { load: () => import('./profile/Profile.tsx') } },
];

/** Loads the given screens' chunks one at a time, each when the browser is idle. */
export function preloadScreens(components: string[]): () => void {
  let stopped = false;
  const idle = () => new Promise<void>((resolve) => {
    if ('requestIdleCallback' in window) window.requestIdleCallback(() => resolve(), { timeout: 2000 });
    else setTimeout(resolve, 50);
  });
  void (async () => {
    for (const c of components) {
      await idle();
      if (stopped) return;
      await SCREENS[c]?.load().catch(() => undefined); // loaded again, and its error shown, when opened
    }
  })();
  return () => { stopped = true; };
}
