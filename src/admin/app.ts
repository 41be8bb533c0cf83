// The back-office service (/api/admin): conventions, docs, authentication, features.
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { deriveKey, jwtCodec } from '../platform/auth/jwt.ts';
import { documentAccess, installConventions, registerDocs } from '../platform/http/conventions.ts';
import { rateLimitStorage } from '../platform/cache/rate-limit-store.ts';
import { limitHook } from '../platform/http/rate-limit.ts';
import { AppError } from '../platform/http/errors.ts';
import type { Platform } from '../platform/platform.ts';
import type { AdminContext } from './context.ts';
import { adminsExportRoutes } from './features/admins/admins.export.ts';
import { adminsRoutes } from './features/admins/admins.routes.ts';
import { AdminsService } from './features/admins/admins.service.ts';
import { attachmentsRoutes } from './features/attachments/attachments.routes.ts';
import { AttachmentsService } from './features/attachments/attachments.service.ts';
import { authRoutes } from './features/auth/auth.routes.ts';
import { AuthService } from './features/auth/auth.service.ts';
import { authenticatorRoutes } from './features/authenticator/authenticator.routes.ts';
import { AuthenticatorService } from './features/authenticator/authenticator.service.ts';
import { blacklistGate } from './features/blacklists/blacklists.gate.ts';
import { blacklistsRoutes } from './features/blacklists/blacklists.routes.ts';
import { BlacklistsService } from './features/blacklists/blacklists.service.ts';
import { dashboardRoutes } from './features/dashboard/dashboard.routes.ts';
import { DashboardService } from './features/dashboard/dashboard.service.ts';
import { departmentsRoutes } from './features/departments/departments.routes.ts';
import { DepartmentsService } from './features/departments/departments.service.ts';
import { dictionariesRoutes } from './features/dictionaries/dictionaries.routes.ts';
import { DictionariesService } from './features/dictionaries/dictionaries.service.ts';
import { exportsRoutes } from './features/exports/exports.routes.ts';
import { operationRecorder } from './features/logs/logs.recorder.ts';
import { logsExportRoutes } from './features/logs/logs.export.ts';
import { logsRoutes } from './features/logs/logs.routes.ts';
import { LogsService } from './features/logs/logs.service.ts';
import { LogWriter } from './features/logs/logs.writer.ts';
import { menusRoutes } from './features/menus/menus.routes.ts';
import { MenusService } from './features/menus/menus.service.ts';
import { monitorRoutes } from './features/monitor/monitor.routes.ts';
import { MonitorService } from './features/monitor/monitor.service.ts';
import { NotificationPush } from './features/notifications/notifications.push.ts';
import { notificationsRoutes } from './features/notifications/notifications.routes.ts';
import { NotificationsService } from './features/notifications/notifications.service.ts';
import { orderIoRoutes } from './features/orders/orders.io.routes.ts';
import { ordersRoutes } from './features/orders/orders.routes.ts';
import { OrdersService } from './features/orders/orders.service.ts';
import { paymentMethodsRoutes } from './features/payment-methods/payment-methods.routes.ts';
import { PaymentMethodsService } from './features/payment-methods/payment-methods.service.ts';
import { passwordPolicyRoutes } from './features/password-policy/password-policy.routes.ts';
import { PasswordPolicyService } from './features/password-policy/password-policy.service.ts';
import { paymentsRoutes } from './features/payments/payments.routes.ts';
import { PaymentsService } from './features/payments/payments.service.ts';
import { permissionsRoutes } from './features/permissions/permissions.routes.ts';
import { PermissionsService } from './features/permissions/permissions.service.ts';
import { rolesRoutes } from './features/roles/roles.routes.ts';
import { RolesService } from './features/roles/roles.service.ts';
import { sessionsRoutes } from './features/sessions/sessions.routes.ts';
import { SessionsService } from './features/sessions/sessions.service.ts';
import { ensureBootstrapAdmin, syncPermissionCatalogue, type DeclaredPermission } from './bootstrap.ts';
import { ADMIN_FRAMEWORK_ERRORS, E } from './errors.ts';
import { ErrorEnvelope } from './http.ts';
import { adminExportTasks } from './kernel/export-tasks.ts';
import { Guard } from './kernel/guard.ts';
import { adminPasswordPolicies } from './kernel/passwords.ts';
import { RbacService } from './kernel/rbac.ts';
import { MenuNodeShared } from './kernel/rbac.schema.ts';
import { SecondFactor } from './kernel/second-factor.ts';
import { Sessions, type AdminRefreshClaims, type AdminTokenClaims } from './kernel/sessions.ts';
import { msg } from '../platform/i18n.ts';

export const ADMIN_PREFIX = '/api/admin';

export interface AdminOptions {
  platform: Platform;
  jwtSecret: string;
}

/** Registers the admin service on `app`; returns its context, which the server hands to `adminExtras`. */
export async function adminService(app: FastifyInstance, { platform, jwtSecret }: AdminOptions): Promise<AdminContext> {
  const { config, db, kv, pubsub, logger, redis } = platform;

  installConventions(app, {
    errors: ADMIN_FRAMEWORK_ERRORS,
    render: ({ def, message }, request) => ({ code: def.code, message, data: null, trace_id: request.id }),
    errorSchema: ErrorEnvelope,
  });

  // Every service object, built once; features take theirs from the context.
  const jwt = jwtCodec<AdminTokenClaims>(deriveKey(jwtSecret, 'admin'));
  const rbac = new RbacService({ db, config });
  const passwordPolicies = adminPasswordPolicies({ db, config, pubsub });
  const sessions = new Sessions({ db, pubsub, config, jwt, refreshJwt: jwtCodec<AdminRefreshClaims>(deriveKey(jwtSecret, 'admin-refresh')), policies: passwordPolicies });
  const guard = new Guard({ jwt, sessions, rbac, config });
  sessions.onInvalidate((m) => guard.invalidate(m));
  const notifications = new NotificationsService({ db, pubsub, logger });
  const logWriter = new LogWriter(db.orm, logger);
  const secondFactor = new SecondFactor({ db, notifier: notifications, systemLog: logWriter });
  const auth = new AuthService({
    db, kv, config, sessions, rbac, secondFactor, logger, metrics: platform.metrics, policies: passwordPolicies, notifier: notifications, systemLog: logWriter,
  });
  const logs = new LogsService({ db, config });
  // The permission catalogue: the slugs the routes declare (filled as they register, below).
  const declared: DeclaredPermission[] = [];
  const ctx: AdminContext = {
    platform,
    sessions,
    rbac,
    guard,
    secondFactor,
    passwordPolicies,
    exports: adminExportTasks({ db, storage: platform.storage, config, logger }),
    notifications,
    push: new NotificationPush({ config, kv, pubsub, logger, sessions, guard, notifications }),
    logWriter,
    auth,
    authenticator: new AuthenticatorService({ db, kv, sessions, secondFactor }),
    admins: new AdminsService({ db, config, sessions, rbac, notifications, policies: passwordPolicies }),
    passwordPolicy: new PasswordPolicyService({ db, config, policies: passwordPolicies }),
    roles: new RolesService({ db, config, sessions, rbac }),
    permissions: new PermissionsService({ db, config, sessions, rbac, declared }),
    menus: new MenusService({ db, config }),
    departments: new DepartmentsService({ db, config, sessions }),
    dictionaries: new DictionariesService({ db }),
    blacklists: new BlacklistsService({ db, pubsub, logger }),
    logs,
    dashboard: new DashboardService({ db, config, logs }),
    monitor: new MonitorService({ db, redis, config }),
    onlineAdmins: new SessionsService({ db, config, sessions, rbac, notifications }),
    orders: new OrdersService({ db, config }),
    payments: new PaymentsService({ db, config }),
    paymentMethods: new PaymentMethodsService({ db }),
    attachments: new AttachmentsService({ db, storage: platform.storage, config, logger }),
  };
  app.decorateRequest('admin', null);

  // Every route says who may call it, and that declaration becomes the route's auth hook and
  // its documented security and refusals; the permission catalogue is the set of declared slugs.
  // A signed-in route can answer 400, 401 (token) and 403 (permission, or the IP blacklist); a
  // public one 403 (the IP blacklist refuses every route); a route with `limitPerIp` 429.
  await app.register(rateLimit, { global: false, ...rateLimitStorage(platform.redis, `${config.REDIS_KEY_PREFIX}admin-rl:`, logger) });
  const perIp = limitHook(app, { max: config.AUTH_RATE_LIMIT, windowMs: 60_000, key: (request) => `${request.routeOptions.url}:${request.ip}` }, ({ retryAfter }) =>
    new AppError(E.TOO_MANY_REQUESTS, { detail: msg('admin.app.authRateLimited', { AUTH_RATE_LIMIT: config.AUTH_RATE_LIMIT, retryAfter }), headers: { 'Retry-After': String(retryAfter) } }));
  const docsRoute = `${ADMIN_PREFIX}/docs`;
  app.addHook('onRoute', (route) => {
    const cfg = (route.config ??= {});
    if (route.url.startsWith(docsRoute)) cfg.auth ??= 'public';
    if (!cfg.permission && !cfg.auth) throw new Error(`admin route ${String(route.method)} ${route.url} declares no permission`);
    if (cfg.permission && route.method !== 'HEAD') {
      if (!/^[a-z][a-z0-9_-]*\.[a-z][a-z0-9_.-]*$/.test(cfg.permission)) throw new Error(`bad permission slug ${cfg.permission}`);
      declared.push({ slug: cfg.permission, method: [route.method].flat().join(','), path: route.url, name: route.schema?.summary ?? cfg.permission });
    }
    const signedIn = cfg.auth !== 'public';
    // Counted first, so that every attempt counts and carries the headers.
    route.onRequest = [...(cfg.limitPerIp ? [perIp] : []), ...(signedIn ? [guard.hookFor(cfg.permission, cfg.steps)] : []), ...[route.onRequest ?? []].flat()];
    const refusals = signedIn ? [400, 401, 403] : [403];
    if (cfg.limitPerIp) refusals.push(429);
    documentAccess(route, { bearer: signedIn, errors: refusals }, ErrorEnvelope);
  });

  app.addSchema(MenuNodeShared);
  await registerDocs(app, {
    decorator: 'adminOpenapi',
    publicUrl: config.PUBLIC_URL,
    route: docsRoute,
    title: 'Back-office administration API',
    version: '1.0',
    description: [
      'Every response is `{ code, message, data, trace_id }`; lists put `{ list, page, page_size, total }` in `data`.',
      'Authenticate with `Authorization: Bearer <token>` from `POST /login`. Messages follow `Accept-Language` (`en-US`, the default, or `zh-CN`), the detail after a code’s message included; a validation message names the field and the values it accepts.',
      '`/captcha` and `/login` are limited per client IP (`AUTH_RATE_LIMIT` a minute each): their answers carry `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (epoch seconds), and over the limit 429 10009 with `Retry-After` (seconds).',
      'Paging: `page` ≥ 1, `page_size` 1..100 (out of range is a 400). `order_by` is `field:asc|desc` over each list’s fields.',
      'Times in records are `YYYY-MM-DD HH:mm:ss` in the server’s display time zone; token expiry is ISO 8601 UTC.',
    ].join('\n'),
    errors: E,
  });


  // Hooks for every admin route come first, so that the routes below get them.
  await app.register(blacklistGate, { ctx });
  await app.register(operationRecorder, { ctx });

  for (const feature of [
    authRoutes, sessionsRoutes, adminsRoutes, authenticatorRoutes, rolesRoutes, permissionsRoutes, menusRoutes, departmentsRoutes,
    dictionariesRoutes, blacklistsRoutes, logsRoutes, logsExportRoutes, dashboardRoutes, monitorRoutes, adminsExportRoutes, exportsRoutes,
    ordersRoutes, orderIoRoutes, paymentMethodsRoutes, paymentsRoutes, attachmentsRoutes, notificationsRoutes, passwordPolicyRoutes,
  ]) {
    await app.register(feature, { ctx });
  }

  app.addHook('onReady', async () => {
    await guard.start(pubsub);
    await passwordPolicies.start();
    await syncPermissionCatalogue(db, declared);
    await ensureBootstrapAdmin(db, config, logger, platform.generatedCredentials);
    await ctx.dashboard.start(logger);
    ctx.exports.start();
    platform.metrics.watchQueue('export_tasks', () => ctx.exports.backlog());
    platform.metrics.watchValue('websockets_open', 'Notification WebSockets open on this instance', () => ctx.push.hub.size);
    auth.start();
  });
  app.addHook('onClose', async () => {
    await auth.stop();
    await ctx.exports.stop();
    await guard.stop();
    await passwordPolicies.stop();
  });
  return ctx;
}
