// The back-office service (/api/admin): conventions, docs, authentication, features.
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { deriveKey, jwtCodec } from '../platform/auth/jwt.ts';
import { installConventions, registerDocs } from '../platform/http/conventions.ts';
import { rateLimitStorage } from '../platform/cache/rate-limit-store.ts';
import { AppError } from '../platform/http/errors.ts';
import { ExportTasks } from '../platform/jobs/export-tasks.ts';
import type { Platform } from '../platform/platform.ts';
import type { AdminContext } from './context.ts';
import { adminsRoutes } from './features/admins/admins.routes.ts';
import { authenticatorRoutes } from './features/authenticator/authenticator.routes.ts';
import { blacklistGate } from './features/blacklists/blacklists.gate.ts';
import { blacklistsRoutes } from './features/blacklists/blacklists.routes.ts';
import { dashboardRoutes } from './features/dashboard/dashboard.routes.ts';
import { departmentsRoutes } from './features/departments/departments.routes.ts';
import { dictionariesRoutes } from './features/dictionaries/dictionaries.routes.ts';
import { exportsRoutes } from './features/exports/exports.routes.ts';
import { operationRecorder } from './features/logs/logs.recorder.ts';
import { logsRoutes } from './features/logs/logs.routes.ts';
import { menusRoutes } from './features/menus/menus.routes.ts';
import { monitorRoutes } from './features/monitor/monitor.routes.ts';
import { attachmentsRoutes } from './features/attachments/attachments.routes.ts';
import { notificationsRoutes } from './features/notifications/notifications.routes.ts';
import { NotificationService } from './features/notifications/notifications.service.ts';
import { ordersRoutes } from './features/orders/orders.routes.ts';
import { orderIoRoutes } from './features/orders/orders.io.routes.ts';
import { paymentMethodsRoutes } from './features/payment-methods/payment-methods.routes.ts';
import { paymentsRoutes } from './features/payments/payments.routes.ts';
import { permissionsRoutes } from './features/permissions/permissions.routes.ts';
import { rolesRoutes } from './features/roles/roles.routes.ts';
import { ensureBootstrapAdmin, syncPermissionCatalogue, type DeclaredPermission } from './bootstrap.ts';
import { ADMIN_FRAMEWORK_ERRORS, E } from './errors.ts';
import { ErrorEnvelope } from './http.ts';
import { AuthService } from './features/auth/auth.service.ts';
import { authRoutes } from './features/auth/auth.routes.ts';
import { MenuNodeShared } from './features/rbac/rbac.schema.ts';
import { isProtectedAdmin, RbacService } from './features/rbac/rbac.service.ts';
import { sessionsRoutes } from './features/sessions/sessions.routes.ts';
import { SessionService, type AdminTokenClaims } from './features/sessions/sessions.service.ts';
import { Guard } from './guard.ts';

export const ADMIN_PREFIX = '/api/admin';

export interface AdminOptions {
  platform: Platform;
  jwtSecret: string;
}

const ERROR_TABLE = Object.values(E)
  .map((d) => `| ${d.code} | ${d.status} | ${d.message['en-US']} |`)
  .join('\n');

export async function adminService(app: FastifyInstance, { platform, jwtSecret }: AdminOptions): Promise<void> {
  const { config, db, kv, pubsub, logger } = platform;

  installConventions(app, {
    errors: ADMIN_FRAMEWORK_ERRORS,
    render: ({ def, message }, request) => ({ code: def.code, message, data: null, trace_id: request.id }),
    errorSchema: ErrorEnvelope,
  });

  const jwt = jwtCodec<AdminTokenClaims>(deriveKey(jwtSecret, 'admin'));
  const rbac = new RbacService(db.orm);
  const sessions = new SessionService(db, pubsub, jwt, config.ADMIN_TOKEN_TTL);
  const auth = new AuthService({ db, kv, config, sessions, rbac, logger });
  const guard = new Guard({ jwt, sessions, rbac, cacheMs: config.SESSION_CACHE_MS });
  sessions.onInvalidate((m) => guard.invalidate(m));
  app.decorateRequest('admin', null);

  // Every route says who may call it, and that declaration becomes the route's auth hook;
  // the permission catalogue is the set of declared slugs.
  const declared: DeclaredPermission[] = [];
  const docsRoute = `${ADMIN_PREFIX}/docs`;
  app.addHook('onRoute', (route) => {
    const cfg = (route.config ??= {});
    if (route.url.startsWith(docsRoute)) cfg.auth ??= 'public';
    if (!cfg.permission && !cfg.auth) throw new Error(`admin route ${String(route.method)} ${route.url} declares no permission`);
    if (cfg.permission && route.method !== 'HEAD') {
      if (!/^[a-z][a-z0-9_-]*\.[a-z][a-z0-9_.-]*$/.test(cfg.permission)) throw new Error(`bad permission slug ${cfg.permission}`);
      declared.push({ slug: cfg.permission, method: [route.method].flat().join(','), path: route.url, name: route.schema?.summary ?? cfg.permission });
    }
    if (cfg.auth !== 'public') route.onRequest = [guard.hookFor(cfg.permission), ...[route.onRequest ?? []].flat()];
  });

  app.addSchema(MenuNodeShared);
  await registerDocs(app, {
    decorator: 'adminOpenapi',
    route: docsRoute,
    title: 'Back-office administration API',
    version: '1.0',
    description: [
      'Every response is `{ code, message, data, trace_id }`; lists put `{ list, page, page_size, total }` in `data`.',
      'Authenticate with `Authorization: Bearer <token>` from `POST /login`. Messages follow `Accept-Language` (`en-US`, `zh-CN`).',
      'Paging: `page` ≥ 1, `page_size` 1..100 (out of range is a 400). `order_by` is `field:asc|desc` over each list’s fields.',
      'Times in records are `YYYY-MM-DD HH:mm:ss` in the server’s display time zone; token expiry is ISO 8601 UTC.',
      '',
      '| code | HTTP | meaning |',
      '|---|---|---|',
      ERROR_TABLE,
    ].join('\n'),
  });

  await app.register(rateLimit, {
    global: false,
    ...rateLimitStorage(platform.redis, `${config.REDIS_KEY_PREFIX}admin-rl:`, logger),
    errorResponseBuilder: (_req, ctx) => new AppError(E.TOO_MANY_REQUESTS, { headers: { 'Retry-After': String(Math.ceil(ctx.ttl / 1000)) } }),
  });


  const ctx: AdminContext = {
    platform,
    sessions,
    rbac,
    auth,
    guard,
    isProtected: (adminId) => isProtectedAdmin(db.orm, adminId, config.protectedAdmins),
    exports: new ExportTasks({ db, schema: 'admin', dataDir: config.dataDir, logger, ttlHours: config.EXPORT_TTL_HOURS }),
    notifications: new NotificationService({ db, pubsub, logger }),
  };

  // Hooks for every admin route come first, so that the routes below get them.
  await app.register(blacklistGate, { ctx });
  await app.register(operationRecorder, { ctx });

  await app.register(authRoutes, { auth, rateLimit: { max: config.AUTH_RATE_LIMIT, timeWindow: 60_000 } });
  await app.register(sessionsRoutes, { sessions, config, isProtected: ctx.isProtected, notifications: ctx.notifications });
  for (const feature of [
    adminsRoutes, authenticatorRoutes, rolesRoutes, permissionsRoutes, menusRoutes, departmentsRoutes,
    dictionariesRoutes, blacklistsRoutes, logsRoutes, dashboardRoutes, monitorRoutes, exportsRoutes,
    ordersRoutes, orderIoRoutes, paymentMethodsRoutes, paymentsRoutes, attachmentsRoutes, notificationsRoutes,
  ]) {
    await app.register(feature, { ctx });
  }

  app.addHook('onReady', async () => {
    await guard.start(pubsub);
    await syncPermissionCatalogue(db, declared);
    await ensureBootstrapAdmin(db, config, logger);
    ctx.exports.start();
    auth.start();
  });
  app.addHook('onClose', async () => {
    auth.stop();
    await ctx.exports.stop();
    await guard.stop();
  });
}
