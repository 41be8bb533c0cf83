// Cross-origin access, off by default: CORS_ORIGINS names the origins of front ends served
// elsewhere whose pages may call both APIs (@fastify/cors). Without credentials (the APIs
// authenticate with bearer tokens; the web clients' refresh cookies are for their own origin
// only), with the methods and headers the APIs use,
// the response headers a client reads exposed, and preflights cached by the browser.
// WebSocket upgrades are not subject to CORS: originAllowed() applies the same list to them.
import cors from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';

/** How long a browser may reuse a preflight's answer, seconds (Chromium caps it at 2 hours). */
export const PREFLIGHT_MAX_AGE = 3600;

export async function installCors(app: FastifyInstance, config: Config): Promise<void> {
  if (config.corsOrigins.length === 0) return;
  await app.register(cors, {
    origin: [...config.corsOrigins],
    credentials: false,
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Accept-Language', 'X-Trace-ID', 'X-Request-ID', 'If-None-Match', 'If-Range', 'Range'],
    exposedHeaders: [
      'X-Trace-ID', 'Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset',
      'Content-Disposition', 'Content-Range', 'ETag', 'Location', 'X-Total-Count',
    ],
    maxAge: PREFLIGHT_MAX_AGE,
    hideOptionsRoute: true,
  });
}

/**
 * Whether a WebSocket upgrade may proceed: no `Origin` (not a browser), the server's own origin
 * (its `Host`), or one of CORS_ORIGINS. Refusing the others keeps pages of other sites from
 * opening sockets with a user's credentials.
 */
export function originAllowed(request: FastifyRequest, config: Config): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  if (config.corsOrigins.includes(origin)) return true;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}
