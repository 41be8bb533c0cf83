// Where the metrics come from and go to over HTTP: every answered request is recorded by its
// route template and status (one hook for both services), and GET /metrics serves the registry
// either on the public port to a bearer of METRICS_TOKEN, or on a port of its own
// (METRICS_PORT, meant to be reachable from the monitoring network only), or both.
import { timingSafeEqual } from 'node:crypto';
import type { Server as HttpServer } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../metrics.ts';
import { nodeHttp } from './node-http.ts';

const ADMIN_PREFIX = '/api/admin';

function serviceOf(route: string): string {
  if (route === ADMIN_PREFIX || route.startsWith(`${ADMIN_PREFIX}/`)) return 'admin';
  if (route === '/api' || route.startsWith('/api/')) return 'timeclock';
  return 'web';
}

/** Records every answered request; nothing is added while metrics are off. */
export function recordRequests(app: FastifyInstance, metrics: Metrics): void {
  if (!metrics.enabled) return;
  app.addHook('onResponse', async (request, reply) => {
    // The template, never the raw path: ids and query strings would make a series per request.
    const route = request.routeOptions.url ?? '(unmatched)';
    metrics.request(serviceOf(route), request.method, route, reply.statusCode, reply.elapsedTime / 1000);
  });
}

/** `Authorization: Bearer <token>`, compared in constant time. */
function bears(authorization: string | undefined, token: string): boolean {
  if (!authorization?.startsWith('Bearer ')) return false;
  const given = Buffer.from(authorization.slice(7));
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** GET /metrics on the public port, for requests bearing `token`. */
export function serveMetrics(app: FastifyInstance, metrics: Metrics, token: string): void {
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!bears(request.headers.authorization, token)) {
      return reply.status(401).header('WWW-Authenticate', 'Bearer').send({ message: 'Unauthorized', code: 'UNAUTHORIZED', details: {} });
    }
    return reply.type(metrics.contentType).send(await metrics.render());
  });
}

/** GET /metrics on a listener of its own; resolves once it listens. */
export async function listenMetrics(metrics: Metrics, host: string, port: number, token?: string): Promise<HttpServer> {
  const server = nodeHttp.createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: GET /metrics\n');
      return;
    }
    if (token && !bears(req.headers.authorization, token)) {
      res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' }).end('unauthorized\n');
      return;
    }
    metrics.render().then(
      (text) => res.writeHead(200, { 'content-type': metrics.contentType }).end(text),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics could not be collected\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
