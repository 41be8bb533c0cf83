// The worker time-clock service (/api): its own error shape `{ message, code, details }`,
// its health endpoint and its OpenAPI page. Features register here.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { documentAccess, installConventions, registerDocs } from '../platform/http/conventions.ts';
import { deriveKey, jwtCodec, type JwtCodec } from '../platform/auth/jwt.ts';
import { defaultPolicy, PasswordPolicies } from '../platform/auth/password-policy.ts';
import type { Platform } from '../platform/platform.ts';
import { TimeclockAuth, type TimeclockClaims } from './kernel/auth.ts';
import { ensureBootstrapManager } from './bootstrap.ts';
import type { TimeclockContext } from './context.ts';
import { attendanceRoutes } from './features/attendance/attendance.routes.ts';
import { AttendanceService } from './features/attendance/attendance.service.ts';
import { AttendanceSweep } from './features/attendance/attendance.sweep.ts';
import { authRoutes } from './features/auth/auth.routes.ts';
import { AuthService } from './features/auth/auth.service.ts';
import { boardRoutes } from './features/board/board.routes.ts';
import { BoardService } from './features/board/board.service.ts';
import { clockRoutes } from './features/clock/clock.routes.ts';
import { correctionsRoutes } from './features/corrections/corrections.routes.ts';
import { CorrectionsService } from './features/corrections/corrections.service.ts';
import { ClockHistory } from './features/clock/clock.history.ts';
import { ClockService } from './features/clock/clock.service.ts';
import { hoursRoutes } from './features/hours/hours.routes.ts';
import { Periods } from './features/hours/hours.periods.ts';
import { HoursService } from './features/hours/hours.service.ts';
import { devicesRoutes } from './features/devices/devices.routes.ts';
import { DevicesService } from './features/devices/devices.service.ts';
import { locationRoutes } from './features/location/location.routes.ts';
import { notificationsRoutes } from './features/notifications/notifications.routes.ts';
import { NotificationsService } from './features/notifications/notifications.service.ts';
import { LocationService } from './features/location/location.service.ts';
import { securityRoutes } from './features/security/security.routes.ts';
import { SecurityService } from './features/security/security.service.ts';
import { qrCodesRoutes } from './features/qr-codes/qr-codes.routes.ts';
import { QrCodesService } from './features/qr-codes/qr-codes.service.ts';
import { sitesRoutes } from './features/sites/sites.routes.ts';
import { SitesService } from './features/sites/sites.service.ts';
import { WebhookDispatcher } from './features/webhooks/webhooks.dispatcher.ts';
import { webhooksRoutes } from './features/webhooks/webhooks.routes.ts';
import { WebhooksService } from './features/webhooks/webhooks.service.ts';
import { workersRoutes } from './features/workers/workers.routes.ts';
import { WorkersService } from './features/workers/workers.service.ts';
import { E, TIMECLOCK_FRAMEWORK_ERRORS } from './errors.ts';
import { ErrorBody } from './http.ts';
import { installLimits } from './kernel/limits.ts';
import { SecurityEvents } from './kernel/security-events.ts';
import { timeclockExportTasks } from './kernel/export-tasks.ts';

export const TIMECLOCK_PREFIX = '/api';

export interface TimeclockOptions {
  platform: Platform;
  jwtSecret: string;
  /**
   * The password policy of the back office, when it runs in this process (src/server.ts): one
   * policy for every account. Without it, the policy's defaults apply.
   */
  passwordPolicies?: PasswordPolicies | undefined;
}

export { ErrorBody } from './http.ts';

/** Every service object of the time-clock, each built once. */
function buildContext(
  platform: Platform, jwt: JwtCodec<TimeclockClaims>, refreshJwt: JwtCodec<TimeclockClaims>, passwordPolicies: PasswordPolicies,
): TimeclockContext {
  const { config, db, logger } = platform;
  const auth = new TimeclockAuth({ db, jwt, refreshJwt, pubsub: platform.pubsub, policies: passwordPolicies });
  const securityEvents = new SecurityEvents({ db, logger });
  const devices = new DevicesService({ db, securityEvents });
  const hours = new HoursService({ db, config });
  const allowPrivate = config.WEBHOOK_ALLOW_PRIVATE ?? config.NODE_ENV !== 'production';
  return {
    platform,
    jwt,
    auth,
    passwordPolicies,
    signIn: new AuthService({ db, jwt, refreshJwt, config, logger, devices, metrics: platform.metrics, auth, policies: passwordPolicies }),
    devices,
    workers: new WorkersService({ db, auth, policies: passwordPolicies, trackingWindowSeconds: config.TRACKING_WINDOW_SECONDS }),
    sites: new SitesService({ db, defaultTimezone: config.DISPLAY_TIMEZONE }),
    qrCodes: new QrCodesService({ db }),
    clock: new ClockService({ db, logger, config, securityEvents }),
    clockHistory: new ClockHistory({ db }),
    location: new LocationService({ db, config, logger }),
    securityEvents,
    security: new SecurityService({ db }),
    webhooks: new WebhooksService({ db, allowPrivate }),
    dispatcher: new WebhookDispatcher({
      db,
      logger,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      retryBaseMs: config.WEBHOOK_RETRY_BASE_MS,
      retryMaxMs: config.WEBHOOK_RETRY_MAX_MS,
      maxAgeHours: config.WEBHOOK_MAX_AGE_HOURS,
      pollMs: config.WEBHOOK_POLL_MS,
      retentionDays: config.WEBHOOK_RETENTION_DAYS,
      allowPrivate,
    }),
    board: new BoardService({ db, config }),
    hours,
    periods: new Periods({ db, config, sheetsOf: (ids, range, locale) => hours.sheetsOf(ids, range, locale) }),
    corrections: new CorrectionsService({ db, config }),
    notifications: new NotificationsService({ db }),
    attendance: new AttendanceService({ db }),
    attendanceSweep: new AttendanceSweep({ db, config, logger }),
    exports: timeclockExportTasks({ db, storage: platform.storage, config, logger }),
  };
}

export async function timeclockService(app: FastifyInstance, { platform, jwtSecret, passwordPolicies }: TimeclockOptions): Promise<void> {
  installConventions(app, {
    errors: TIMECLOCK_FRAMEWORK_ERRORS,
    render: ({ def, message, details }) => ({ message, code: def.code, details }),
    errorSchema: ErrorBody,
  });

  const ctx = buildContext(
    platform,
    jwtCodec<TimeclockClaims>(deriveKey(jwtSecret, 'timeclock')),
    jwtCodec<TimeclockClaims>(deriveKey(jwtSecret, 'timeclock-refresh')),
    passwordPolicies ?? new PasswordPolicies({ defaults: defaultPolicy(platform.config) }),
  );
  app.decorateRequest('user', null);
  const limits = await installLimits(app, platform);

  // Every route says who may call it, and that declaration becomes its authentication hook,
  // followed by its rate limit: signed-in routes are limited per user (`general` unless the
  // route names another tier); public routes only when they name a tier (`auth`, per IP).
  // The declaration is also its documented security and refusals: a signed-in route can answer
  // 400, 401 (token), 429 and, for managers only, 403; a limited public route 429.
  const docsRoute = `${TIMECLOCK_PREFIX}/docs`;
  app.addHook('onRoute', (route) => {
    const cfg = (route.config ??= {});
    if (route.url.startsWith(docsRoute) || route.url === `${TIMECLOCK_PREFIX}/health`) cfg.access ??= 'public';
    if (!cfg.access) throw new Error(`time-clock route ${String(route.method)} ${route.url} declares no access`);
    const existing = [route.onRequest ?? []].flat();
    if (cfg.access === 'public') {
      if (cfg.limit) route.onRequest = [limits[cfg.limit], ...existing];
      documentAccess(route, { bearer: false, errors: cfg.limit ? [429] : [] }, ErrorBody);
    } else {
      // Per IP (`auth`): counted before the token is checked, so that refused attempts count and carry the headers.
      const authenticate = ctx.auth.hookFor(cfg.access, cfg.passwordStep);
      route.onRequest = cfg.limit === 'auth'
        ? [limits.auth, authenticate, ...existing]
        : [authenticate, limits[cfg.limit ?? 'general'], ...existing];
      // 403: a manager route refuses workers; every route but the password steps an account that must choose a new password first.
      documentAccess(route, { bearer: true, errors: cfg.access === 'manager' || !cfg.passwordStep ? [400, 401, 403, 429] : [400, 401, 429] }, ErrorBody);
    }
  });

  await registerDocs(app, {
    decorator: 'timeclockOpenapi',
    publicUrl: platform.config.PUBLIC_URL,
    route: docsRoute,
    title: 'Worker time-clock API',
    version: '1.0',
    description: [
      'Success bodies are exactly as the contract lists them; errors are `{ message, code, details }`. Times are ISO 8601 UTC.',
      'Error messages follow `Accept-Language` (`en-US`, the default, or `zh-CN`); a validation failure lists every bad field, one message per field, in `details.errors` (and in `message`), naming the field and the values it accepts.',
      'Authenticate with `Authorization: Bearer <token>` from `POST /api/auth/login` (whose reply also gives the account’s `userId` and `role`; `GET /api/me` answers the signed-in account). A worker acts only on their own `userId` (403 `FORBIDDEN` otherwise); managers on anyone’s. A password change, disabling or deleting an account revokes its tokens at once.',
      `**FORCE_CLOCK_OUT is on by default** (\`FORCE_CLOCK_OUT_ENABLED=true\`; ${platform.config.FORCE_CLOCK_OUT_ENABLED ? 'on' : 'off'} on this server): \`POST /api/clock\` with \`qrCodeValue: "FORCE_CLOCK_OUT"\` lets a worker clock themself out from any state without a QR code or geofence check; it is stored as forced and raises a security alert for managers. Set \`FORCE_CLOCK_OUT_ENABLED=false\` to refuse it.`,
      `Duplicate-punch window: a punch less than CLOCK_MIN_INTERVAL_SECONDS (now ${platform.config.CLOCK_MIN_INTERVAL_SECONDS} s) after the worker’s previous one is refused with 409 \`PUNCH_TOO_SOON\` (see \`POST /api/clock\`).`,
      'Rate limits (fixed one-minute windows): login and refresh 5 per client IP; `POST /api/clock` 10 per user; `POST /api/location/update` 60 per user; every other signed-in route 100 per user (configurable, `TIMECLOCK_RATE_LIMIT_*`). Limited responses carry `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (epoch seconds); over the limit: 429 `RATE_LIMITED` with `Retry-After` (seconds). With several instances, the sign-in, clock and location limits are counted exactly across them; the 100-per-user limit is counted by each instance and reconciled every 250 ms, so the instances together may accept, beyond it, what the others accepted from the same user within one 250 ms interval (a single instance refuses the 101st request exactly).',
    ].join('\n'),
    errors: E,
  });

  app.get('/health', {
    schema: {
      tags: ['Health'],
      summary: 'Time-clock service health: database reachable',
      response: { 200: Type.Object({ status: Type.Literal('ok'), service: Type.Literal('timeclock') }), 503: ErrorBody },
    },
  }, async (_request, reply) => {
    const { database } = await platform.ping();
    if (!database) return reply.status(503).send({ message: 'database unreachable', code: E.SERVICE_UNAVAILABLE.code, details: {} });
    return { status: 'ok' as const, service: 'timeclock' as const };
  });

  for (const feature of [
    authRoutes, workersRoutes, devicesRoutes, sitesRoutes, qrCodesRoutes, clockRoutes, locationRoutes, securityRoutes, webhooksRoutes, boardRoutes, hoursRoutes,
    correctionsRoutes, notificationsRoutes, attendanceRoutes,
  ]) {
    await app.register(feature, { ctx });
  }

  app.addHook('onReady', async () => {
    await ctx.auth.start();
    await ensureBootstrapManager(platform.db, platform.config, platform.logger, platform.generatedCredentials);
    ctx.exports.start();
    platform.metrics.watchQueue('timeclock_export_tasks', () => ctx.exports.backlog());
  });
  app.addHook('onClose', async () => {
    await ctx.exports.stop();
    await ctx.auth.stop();
  });
}
