// The refresh credential of the web clients: an HttpOnly cookie that the page's script cannot
// read, sent only to the service's refresh route (its Path), never by another site (SameSite
// Strict), and only over HTTPS when the page came over HTTPS (directly, or through a
// TLS-terminating proxy named in TRUST_PROXY, whose X-Forwarded-Proto sets request.protocol).
// The access token itself stays in the page's memory; on a reload the page calls the refresh
// route, which answers a new access token for a valid cookie. Each service decides what the
// cookie's value is and checks it against its own revocation rules.
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface RefreshCookie {
  /** Cookie name (letters, digits, `_`). */
  name: string;
  /** The refresh route's full path: the only one the browser sends the cookie to. */
  path: `/${string}`;
}

/** The cookie's value in the request, if any (the first one when several are sent). */
export function readRefreshCookie(request: FastifyRequest, cookie: RefreshCookie): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== cookie.name) continue;
    const value = part.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
    return value.length > 0 && value.length <= 4096 ? value : undefined;
  }
  return undefined;
}

function attributes(request: FastifyRequest, cookie: RefreshCookie, maxAge: number): string {
  return [`Path=${cookie.path}`, `Max-Age=${Math.max(0, Math.floor(maxAge))}`, 'HttpOnly', 'SameSite=Strict', ...(request.protocol === 'https' ? ['Secure'] : [])].join('; ');
}

/** Sets the cookie to `value` (URL-safe text, e.g. a JWT) for `maxAgeSeconds`. */
export function setRefreshCookie(request: FastifyRequest, reply: FastifyReply, cookie: RefreshCookie, value: string, maxAgeSeconds: number): void {
  reply.header('Set-Cookie', `${cookie.name}=${value}; ${attributes(request, cookie, maxAgeSeconds)}`);
}

/** Tells the browser to forget the cookie (sign-out). */
export function clearRefreshCookie(request: FastifyRequest, reply: FastifyReply, cookie: RefreshCookie): void {
  reply.header('Set-Cookie', `${cookie.name}=; ${attributes(request, cookie, 0)}; Expires=Thu, 01 Jan 1970 00:00:00 GMT`);
}
