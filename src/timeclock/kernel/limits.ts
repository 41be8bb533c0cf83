// Rate limits of the time-clock service (the contract's Limits table), on @fastify/rate-limit's
// counters (Redis when configured, so every instance shares them, and this instance's memory
// while Redis is down; in-process otherwise):
//
//   auth      TIMECLOCK_RATE_LIMIT_AUTH      (5)   per minute per client IP  (login, refresh)
//   clock     TIMECLOCK_RATE_LIMIT_CLOCK     (10)  per minute per user       (POST /clock)
//   location  TIMECLOCK_RATE_LIMIT_LOCATION  (60)  per minute per user       (POST /location/update)
//   general   TIMECLOCK_RATE_LIMIT_GENERAL   (100) per minute per user       (every other signed-in route)
//
// Each tier is one fixed one-minute window per key, shared by all routes of the tier. With
// Redis, `auth`, `clock` and `location` are counted exactly in Redis (a round trip per request);
// `general`, which every other signed-in request pays, is counted in each instance's memory and
// reconciled with Redis every RECONCILE_MS (250 ms): exact on one instance, and across
// instances approximate by at most what the other instances accept from the user during one
// interval (and its round trip). The
// per-user tiers run after authentication (a request without a valid token is refused before it
// is counted); `auth` runs first, so that every attempt counts. Every response of a limited
// route carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (epoch seconds of
// the window's end); over the limit, 429 RATE_LIMITED with Retry-After (seconds): the platform's
// convention (platform/http/rate-limit.ts), which the back office follows too.
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, onRequestAsyncHookHandler } from 'fastify';
import { rateLimitStorage } from '../../platform/cache/rate-limit-store.ts';
import { AppError } from '../../platform/http/errors.ts';
import { limitHook } from '../../platform/http/rate-limit.ts';
import type { Platform } from '../../platform/platform.ts';
import { E } from '../errors.ts';
import { msg } from '../../platform/i18n.ts';

export type LimitTier = 'auth' | 'clock' | 'location' | 'general';

export const WINDOW_MS = 60_000;
const LOCAL_KEYS = 100_000;
/** How often the `general` tier's counts in memory are added to Redis (see above). */
export const RECONCILE_MS = 250;

/** Registers the counter store and returns the hook of each tier. */
export async function installLimits(app: FastifyInstance, platform: Platform): Promise<Record<LimitTier, onRequestAsyncHookHandler>> {
  const { config, redis } = platform;
  await app.register(rateLimit, {
    global: false,
    ...rateLimitStorage(redis, `${config.REDIS_KEY_PREFIX}timeclock-rl:`, platform.logger),
  });
  const max: Record<LimitTier, number> = {
    auth: config.TIMECLOCK_RATE_LIMIT_AUTH,
    clock: config.TIMECLOCK_RATE_LIMIT_CLOCK,
    location: config.TIMECLOCK_RATE_LIMIT_LOCATION,
    general: config.TIMECLOCK_RATE_LIMIT_GENERAL,
  };
  const hook = (tier: LimitTier): onRequestAsyncHookHandler =>
    limitHook(app, {
      max: max[tier],
      windowMs: WINDOW_MS,
      key: tier === 'auth' ? (req) => `${tier}:${req.ip}` : (req) => `${tier}:${req.user!.userId}`,
      cache: LOCAL_KEYS,
      ...(tier === 'general' ? { reconcileMs: RECONCILE_MS } : {}),
    }, ({ max: limit, retryAfter }) => new AppError(E.RATE_LIMITED, {
      detail: msg('timeclock.limits.rateLimited', { limit, tier: msg(`timeclock.limits.tier.${tier}`), retryAfter }),
      details: { limit, tier, retryAfter },
      headers: { 'Retry-After': String(retryAfter) },
    }));
  return { auth: hook('auth'), clock: hook('clock'), location: hook('location'), general: hook('general') };
}
