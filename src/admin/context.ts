// What every admin feature plugin receives: the platform and the shared admin services.
import type { ExportTasks } from '../platform/jobs/export-tasks.ts';
import type { Platform } from '../platform/platform.ts';
import type { AuthService } from './features/auth/auth.service.ts';
import type { NotificationService } from './features/notifications/notifications.service.ts';
import type { RbacService } from './features/rbac/rbac.service.ts';
import type { SessionService } from './features/sessions/sessions.service.ts';
import type { Guard } from './guard.ts';

export interface AdminContext {
  platform: Platform;
  sessions: SessionService;
  rbac: RbacService;
  auth: AuthService;
  guard: Guard;
  /** The export-task queue of this service; features register their kinds on it. */
  exports: ExportTasks;
  /** Notifications of administrators: `send` to an audience, `notify` for system events (never throws). */
  notifications: NotificationService;
  /** Holders of the super-administrator role, and PROTECTED_ADMINS. */
  isProtected: (adminId: number) => Promise<boolean>;
}

export interface FeatureOptions {
  ctx: AdminContext;
}
