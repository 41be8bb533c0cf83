// What every admin feature plugin receives: the platform, the access kernel and every service
// object of the admin service, each built once by app.ts. A service's constructor takes one
// object naming its dependencies (platform parts under their Platform names, other services
// under their names here), so that app.ts is the one place where services are wired.
import type { PasswordPolicies } from '../platform/auth/password-policy.ts';
import type { ExportTasks } from '../platform/jobs/export-tasks.ts';
import type { Platform } from '../platform/platform.ts';
import type { AdminsService } from './features/admins/admins.service.ts';
import type { AttachmentsService } from './features/attachments/attachments.service.ts';
import type { AuthService } from './features/auth/auth.service.ts';
import type { AuthenticatorService } from './features/authenticator/authenticator.service.ts';
import type { BlacklistsService } from './features/blacklists/blacklists.service.ts';
import type { DashboardService } from './features/dashboard/dashboard.service.ts';
import type { DepartmentsService } from './features/departments/departments.service.ts';
import type { DictionariesService } from './features/dictionaries/dictionaries.service.ts';
import type { LogsService } from './features/logs/logs.service.ts';
import type { LogWriter } from './features/logs/logs.writer.ts';
import type { MenusService } from './features/menus/menus.service.ts';
import type { MonitorService } from './features/monitor/monitor.service.ts';
import type { NotificationPush } from './features/notifications/notifications.push.ts';
import type { NotificationsService } from './features/notifications/notifications.service.ts';
import type { OrdersService } from './features/orders/orders.service.ts';
import type { PaymentMethodsService } from './features/payment-methods/payment-methods.service.ts';
import type { PasswordPolicyService } from './features/password-policy/password-policy.service.ts';
import type { PaymentsService } from './features/payments/payments.service.ts';
import type { PermissionsService } from './features/permissions/permissions.service.ts';
import type { RolesService } from './features/roles/roles.service.ts';
import type { SessionsService } from './features/sessions/sessions.service.ts';
import type { Guard } from './kernel/guard.ts';
import type { RbacService } from './kernel/rbac.ts';
import type { SecondFactor } from './kernel/second-factor.ts';
import type { Sessions } from './kernel/sessions.ts';

export interface AdminContext {
  platform: Platform;

  // The access kernel.
  sessions: Sessions;
  rbac: RbacService;
  guard: Guard;
  /** Authenticator and recovery codes, as sign-in and the self-service routes accept them. */
  secondFactor: SecondFactor;
  /** The password and account policy in force (kernel/passwords.ts), also handed to the time clock when it runs in this process. */
  passwordPolicies: PasswordPolicies;

  /** The export-task queue of this service; features register their kinds on it. */
  exports: ExportTasks;
  /** Notifications of administrators: `send` to an audience, `notify` for system events (never throws). */
  notifications: NotificationsService;
  /** Pushes notifications to the administrators' open WebSockets. */
  push: NotificationPush;
  /** Writes the operation and system logs (the recorder's). */
  logWriter: LogWriter;

  auth: AuthService;
  authenticator: AuthenticatorService;
  admins: AdminsService;
  passwordPolicy: PasswordPolicyService;
  roles: RolesService;
  permissions: PermissionsService;
  menus: MenusService;
  departments: DepartmentsService;
  dictionaries: DictionariesService;
  blacklists: BlacklistsService;
  logs: LogsService;
  dashboard: DashboardService;
  monitor: MonitorService;
  onlineAdmins: SessionsService;
  orders: OrdersService;
  payments: PaymentsService;
  paymentMethods: PaymentMethodsService;
  attachments: AttachmentsService;
}

export interface FeatureOptions {
  ctx: AdminContext;
}
