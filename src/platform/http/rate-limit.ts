// One rate-limit convention for both services, the time-clock contract's: every response of a
// limited route carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (epoch
// seconds at which the window ends), whatever its status (a refused login, a 401 refresh, the
// 429 itself); over the limit, the service's own 429 with Retry-After (seconds). Counters live
// in @fastify/rate-limit's store (platform/cache/rate-limit-store.ts), fixed windows: exact
// (one Redis round trip per request when Redis is configured), or, for a rule that gives
// `reconcileMs`, counted in the instance's memory and reconciled with Redis every
// `reconcileMs` (no round trip on the request's path; approximate across instances, see the store).
import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';

export interface LimitRule {
  /** Requests per window. */
  max: number;
  windowMs: number;
  /** What is counted: a tier and the client IP or the user. */
  key: (request: FastifyRequest) => string;
  /** Keys kept in memory (in-process store, or counted in memory): beyond it, the least recently used (or oldest) dropped. */
  cache?: number;
  /**
   * Counted in this instance's memory and added to the shared counter every so many ms: with
   * several instances, they may accept together, beyond `max`, what the others accepted from
   * the same key during one interval. Unset: every request counted in the shared store.
   */
  reconcileMs?: number;
}

/** The service's 429 (its envelope), given the limit and the seconds until the window ends. */
export type RefuseOverLimit = (limit: { max: number; retryAfter: number }) => Error;

export function limitHook(app: FastifyInstance, rule: LimitRule, refuse: RefuseOverLimit): onRequestAsyncHookHandler {
  const check = app.createRateLimit({
    max: rule.max,
    timeWindow: rule.windowMs,
    keyGenerator: rule.key,
    ...(rule.cache ? { cache: rule.cache } : {}),
    // Passed through to the store's child() (the plugin merges unknown options into its parameters).
    ...(rule.reconcileMs ? ({ reconcileMs: rule.reconcileMs } as object) : {}),
  });
  return async (request, reply) => {
    const r = await check(request);
    if (r.isAllowed) return; // allow-listed: not counted
    reply.header('X-RateLimit-Limit', r.max);
    reply.header('X-RateLimit-Remaining', r.remaining);
    reply.header('X-RateLimit-Reset', Math.ceil((Date.now() + r.ttl) / 1000));
    if (r.isExceeded) throw refuse({ max: r.max, retryAfter: Math.max(1, r.ttlInSeconds) });
  };
}
