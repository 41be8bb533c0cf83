// Which screen a menu entry opens: the menu tree from /info names each entry's `component`
// (system/admin/index, …); each screen is its own chunk, loaded when first opened.
import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

type Screen = LazyExoticComponent<ComponentType>;

export const SCREENS: Record<string, Screen> = {
  'dashboard/index': lazy(() => import('./dashboard/Dashboard.tsx')),
  'system/admin/index': lazy(() => import('./admins/Admins.tsx')),
  'system/role/index': lazy(() => import('./roles/Roles.tsx')),
  'system/menu/index': lazy(() => import('./menus/Menus.tsx')),
  'system/permission/index': lazy(() => import('./permissions/Permissions.tsx')),
  'system/department/index': lazy(() => import('./departments/Departments.tsx')),
  'system/dictionary/index': lazy(() => import('./dictionaries/Dictionaries.tsx')),
  'system/blacklist/index': lazy(() => import('./blacklists/Blacklists.tsx')),
  'trade/order/index': lazy(() => import('./orders/Orders.tsx')),
  'trade/payment-method/index': lazy(() => import('./payment-methods/PaymentMethods.tsx')),
  'trade/payment/index': lazy(() => import('./payments/Payments.tsx')),
  'log/operation/index': lazy(() => import('./logs/OperationLogs.tsx')),
  'log/login/index': lazy(() => import('./logs/LoginLogs.tsx')),
  'log/system/index': lazy(() => import('./logs/SystemLogs.tsx')),
  'monitor/online/index': lazy(() => import('./online/Online.tsx')),
  'monitor/system/index': lazy(() => import('./monitor/Monitor.tsx')),
  'attachment/index': lazy(() => import('./attachments/Attachments.tsx')),
  'notification/index': lazy(() => import('./notifications/Notifications.tsx')),
};

/** Screens reached from the header rather than the menu (every signed-in administrator has them). */
export const EXTRA_ROUTES: { path: string; screen: Screen }[] = [
  { path: '/profile', screen: lazy(() => import('./profile/Profile.tsx')) },
];
