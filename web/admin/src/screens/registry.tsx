// Which screen a menu entry opens: the menu tree from /info names each entry's `component`
// (system/admin/index, …); each screen is its own chunk, loaded when first opened.
import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

type Screen = LazyExoticComponent<ComponentType>;

export const SCREENS: Record<string, Screen> = {
  'dashboard/index': lazy(() => import('./dashboard/Dashboard.tsx')),
  'system/admin/index': lazy(() => import('./admins/Admins.tsx')),
};

/** Screens reached from the header rather than the menu. */
export const EXTRA_ROUTES: { path: string; screen: Screen; title: string }[] = [];
