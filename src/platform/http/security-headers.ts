// Security headers on every response: no page of ours may be framed by another site
// (`frame-ancestors 'none'` and X-Frame-Options DENY), no response is MIME-sniffed, no full URL
// leaks to other origins in Referer, and each response carries the Content-Security-Policy of its
// kind:
// - the web clients (pages, assets, the service worker): scripts, styles, fonts, workers and
//   connections from this origin only, no inline script (the builds have none); inline styles are
//   allowed (Ant Design and React set `style` attributes), images from this origin, `data:` (the
//   captcha, QR codes) and `blob:`, plus the map tile origin when CLOCK_MAP_TILE_URL names one,
//   and connections to the object store when downloads are redirected there (S3_PUBLIC_ENDPOINT);
// - the API reference pages: the same, plus their one inline script (the Scalar page's set-up),
//   allowed by its hash, computed from the page as it is sent;
// - everything else (the APIs' JSON, downloads): nothing at all may load or run.
// Permissions-Policy keeps the camera and the position for this origin (the worker app scans QR
// codes and reports where it is) and turns off what no page uses.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

export interface SecurityHeaderOptions {
  /** CLOCK_MAP_TILE_URL: a tile URL template; its origin may serve images. Empty: none. */
  mapTileUrl: string;
  /** Path prefixes of the API reference pages (`/api/admin/docs`). */
  docsPrefixes: readonly string[];
  /** The object store's origin as clients reach it, when downloads redirect there (the consoles fetch them); undefined: none. */
  fileOrigin?: string | undefined;
}

const COMMON = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'strict-origin-when-cross-origin',
  'Permissions-Policy': 'camera=(self), geolocation=(self), microphone=(), payment=(), usb=()',
} as const;

/**
 * The origin the presigned URLs of S3_PUBLIC_ENDPOINT point at: the endpoint's own with
 * path-style addressing, any subdomain of it (the bucket's name) with virtual-hosted addressing.
 */
export function storeOrigin(publicEndpoint: string, forcePathStyle: boolean): string {
  const { protocol, host } = new URL(publicEndpoint);
  return forcePathStyle ? `${protocol}//${host}` : `${protocol}//*.${host}`;
}

/** The origin of a tile URL template (`https://{s}.tile.example.org/{z}/{x}/{y}.png` -> `https://*.tile.example.org`), or null. */
export function tileOrigin(template: string): string | null {
  const m = /^(https?):\/\/([^/?#]+)/i.exec(template.trim());
  if (!m) return null;
  const host = m[2]!.replace(/\{[a-z]+\}/gi, '*');
  // One wildcard label at the start is all CSP allows; anything else is not a source we can name.
  if (!/^(\*\.)?[A-Za-z0-9.-]+(:\d+)?$/.test(host)) return null;
  return `${m[1]!.toLowerCase()}://${host.toLowerCase()}`;
}

const policy = (directives: Record<string, string[]>) =>
  Object.entries(directives).map(([k, v]) => [k, ...v].join(' ')).join('; ');

/** The web clients' policy. */
export function appPolicy(mapTileUrl: string, extraScripts: string[] = [], fileOrigin?: string): string {
  const tiles = mapTileUrl ? tileOrigin(mapTileUrl) : null;
  return policy({
    'default-src': ["'self'"],
    'script-src': ["'self'", ...extraScripts],
    'style-src': ["'self'", "'unsafe-inline'"],
    'img-src': ["'self'", 'data:', 'blob:', ...(tiles ? [tiles] : [])],
    'font-src': ["'self'", 'data:'],
    'connect-src': ["'self'", ...(fileOrigin ? [fileOrigin] : [])],
    'worker-src': ["'self'", 'blob:'],
    'manifest-src': ["'self'"],
    'media-src': ["'self'", 'blob:'],
    'object-src': ["'none'"],
    'base-uri': ["'self'"],
    'form-action': ["'self'"],
    'frame-ancestors': ["'none'"],
  });
}

/** Responses that are data, not pages: nothing may load, run or frame them. */
export const DATA_POLICY = "default-src 'none'; frame-ancestors 'none'; sandbox";

/** The hashes (`'sha256-…'`) of the inline scripts of an HTML page. */
export function inlineScriptHashes(html: string): string[] {
  const hashes: string[] = [];
  for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
    if (/\bsrc\s*=/i.test(m[1]!)) continue;
    hashes.push(`'sha256-${createHash('sha256').update(m[2]!).digest('base64')}'`);
  }
  return hashes;
}

export function installSecurityHeaders(app: FastifyInstance, opts: SecurityHeaderOptions): void {
  const pages = appPolicy(opts.mapTileUrl, [], opts.fileOrigin);
  const docsPolicies = new Map<string, string>();
  const isDocs = (path: string) => opts.docsPrefixes.some((p) => path === p || path.startsWith(`${p}/`));
  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    reply.headers(COMMON);
    const api = path === '/api' || path.startsWith('/api/');
    reply.header('Content-Security-Policy', api && !isDocs(path) ? DATA_POLICY : pages);
  });
  // A reference page's inline set-up script, allowed by its hash (the page is the same on every
  // request but for the configuration it carries, so the policy is computed once per page text).
  app.addHook('onSend', async (request, reply, payload) => {
    if (typeof payload !== 'string' || !isDocs(request.url.split('?')[0] ?? '/')) return payload;
    if (!String(reply.getHeader('content-type') ?? '').startsWith('text/html')) return payload;
    let csp = docsPolicies.get(payload);
    if (!csp) {
      csp = appPolicy(opts.mapTileUrl, inlineScriptHashes(payload), opts.fileOrigin);
      if (docsPolicies.size > 16) docsPolicies.clear();
      docsPolicies.set(payload, csp);
    }
    reply.header('Content-Security-Policy', csp);
    return payload;
  });
}
