// Serves the built browser clients (web/<name>/dist, built by scripts/web.ts; the server never
// imports their code), compressed (the build's brotli and gzip copies): hashed files under
// assets/ cached for a year, index.html never cached,
// and any other path of the client that is not a file answered with index.html, so that client
// routes survive a reload. Nothing of it is served under /api. A client that is not built is
// simply absent (its paths answer 404 and `/` lists the services).
import { existsSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export interface WebClient {
  /** URL prefix: `/` for the administration console, `/clock/` for the time-clock app. */
  prefix: `/${string}`;
  /** The built files. */
  root: string;
}

const IMMUTABLE = 'public, max-age=31536000, immutable';
const NO_CACHE = 'no-cache';

export const webRoot = (name: string) => path.resolve(import.meta.dirname, '../../web', name, 'dist');

/** Whether `client` has been built. */
export const isBuilt = (client: WebClient) => existsSync(path.join(client.root, 'index.html'));

/**
 * Registers the built clients (the ones not built are left out) and returns the fallback of
 * the server's not-found handler: index.html for a client route (a browser's GET, asking for
 * HTML, of a path outside /api that names no file), or undefined.
 */
export async function serveWebClients(
  app: FastifyInstance,
  clients: WebClient[],
): Promise<(request: FastifyRequest, reply: FastifyReply) => FastifyReply | undefined> {
  const built = clients.filter(isBuilt);
  for (const [i, client] of built.entries()) {
    await app.register(fastifyStatic, {
      root: client.root,
      prefix: client.prefix,
      // One decorator only (the first registration owns reply.sendFile).
      decorateReply: i === 0,
      wildcard: false,
      index: false,
      serveDotFiles: false,
      // Our own Cache-Control (setHeaders), not the plugin's max-age.
      cacheControl: false,
      // The build writes .br and .gz copies: sent to browsers that accept them.
      preCompressed: true,
      setHeaders: (res, file) => {
        res.setHeader('Cache-Control', file.includes(`${path.sep}assets${path.sep}`) ? IMMUTABLE : NO_CACHE);
      },
    });
  }
  // Longest prefix first: `/clock/` before `/`.
  const byPrefix = [...built].sort((a, b) => b.prefix.length - a.prefix.length);
  return (request, reply) => {
    const url = request.url.split('?')[0] ?? '/';
    // A browser's navigation (it asks for HTML); API clients keep their JSON 404.
    if (request.method !== 'GET' || !String(request.headers.accept ?? '').includes('text/html')) return undefined;
    if (url === '/api' || url.startsWith('/api/') || path.posix.basename(url).includes('.')) return undefined;
    const client = byPrefix.find((c) => `${url}/`.startsWith(c.prefix));
    return client ? reply.header('Cache-Control', NO_CACHE).type('text/html; charset=utf-8').sendFile('index.html', client.root, { cacheControl: false }) : undefined;
  };
}
