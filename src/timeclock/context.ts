// What every time-clock feature plugin receives: the platform, the access kernel and every
// service of the time-clock, each built once by app.ts (buildContext).
import type { JwtCodec } from '../platform/auth/jwt.ts';
import type { PasswordPolicies } from '../platform/auth/password-policy.ts';
import type { Platform } from '../platform/platform.ts';
import type { TimeclockAuth, TimeclockClaims } from './kernel/auth.ts';
import type { SecurityEvents } from './kernel/security-events.ts';
import type { AttendanceService } from './features/attendance/attendance.service.ts';
import type { AttendanceSweep } from './features/attendance/attendance.sweep.ts';
import type { AuthService } from './features/auth/auth.service.ts';
import type { ExportTasks } from '../platform/jobs/export-tasks.ts';
import type { Periods } from './features/hours/hours.periods.ts';
import type { HoursService } from './features/hours/hours.service.ts';
import type { BoardService } from './features/board/board.service.ts';
import type { ClockHistory } from './features/clock/clock.history.ts';
import type { ClockService } from './features/clock/clock.service.ts';
import type { CorrectionsService } from './features/corrections/corrections.service.ts';
import type { NotificationsService } from './features/notifications/notifications.service.ts';
import type { DevicesService } from './features/devices/devices.service.ts';
import type { LocationService } from './features/location/location.service.ts';
import type { SecurityService } from './features/security/security.service.ts';
import type { QrCodesService } from './features/qr-codes/qr-codes.service.ts';
import type { SitesService } from './features/sites/sites.service.ts';
import type { WebhookDispatcher } from './features/webhooks/webhooks.dispatcher.ts';
import type { WebhooksService } from './features/webhooks/webhooks.service.ts';
import type { WorkersService } from './features/workers/workers.service.ts';

export interface TimeclockContext {
  platform: Platform;
  /** Signs and verifies the service's tokens (payload exactly userId, role, iat, exp). */
  jwt: JwtCodec<TimeclockClaims>;
  auth: TimeclockAuth;
  /** The password policy in force: the back office's when it runs in this process, else the defaults. */
  passwordPolicies: PasswordPolicies;
  signIn: AuthService;
  devices: DevicesService;
  workers: WorkersService;
  sites: SitesService;
  qrCodes: QrCodesService;
  clock: ClockService;
  clockHistory: ClockHistory;
  location: LocationService;
  /** Records security events (the kernel's): the features that refuse requests hold it. */
  securityEvents: SecurityEvents;
  security: SecurityService;
  webhooks: WebhooksService;
  dispatcher: WebhookDispatcher;
  board: BoardService;
  hours: HoursService;
  /** Approved and locked periods of timesheets. */
  periods: Periods;
  corrections: CorrectionsService;
  notifications: NotificationsService;
  attendance: AttendanceService;
  /** Forgotten clock-outs: reminders and automatic clock-outs, every ATTENDANCE_SWEEP_MS. */
  attendanceSweep: AttendanceSweep;
  /** The platform's export queue over timeclock.export_tasks (payroll exports). */
  exports: ExportTasks;
}

export interface FeatureOptions {
  ctx: TimeclockContext;
}
