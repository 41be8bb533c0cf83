// What every service context installs: its error shape for every failure (ours and the
// framework's: malformed JSON, 404, 405, 413, 415, validation, 429), and its OpenAPI page.
import fastifySwagger from '@fastify/swagger';
import type { FastifyApiReferenceOptions } from '@scalar/fastify-api-reference';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod, RouteOptions } from 'fastify';
import type { HTTPMethod } from 'find-my-way';
import Router from 'find-my-way';
import type { TSchema } from 'typebox';
import { msg, pickLocale, translate, translateDeep, type Locale } from '../i18n.ts';
import { unavailableIn } from '../availability.ts';
import { isConnectionError, pgErrorCode, QUERY_CANCELED } from '../db/errors.ts';
import { AppError, InvalidInput, type ErrorDef, type FrameworkErrors } from './errors.ts';
import { JsonTooDeep } from './json-body.ts';
import { RequestValidationError } from './validation.ts';

export interface RenderedError {
  def: ErrorDef;
  /** Localised message, with the detail appended when there is one. */
  message: string;
  details: Record<string, unknown>;
}

export interface ServiceConventions {
  errors: FrameworkErrors;
  render(error: RenderedError, request: FastifyRequest): unknown;
  /** The schema of `render`'s output: documented as every route's 500 and 503, and as the refusals its access implies. */
  errorSchema: TSchema;
}

/** What a route's access declaration implies for its OpenAPI entry; each service derives it from its own declaration. */
export interface ImpliedByAccess {
  /** The route takes a bearer token. */
  bearer: boolean;
  /** The refusals that the declaration can answer (401 token, 403 permission or role, 429 rate limit…). */
  errors: readonly number[];
}

const BEARER = [{ bearer: [] }];

const METHODS: HTTPMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
/** Seconds a client refused for an outage is asked to wait (the service is ready again within a second of the dependency). */
const RETRY_AFTER_S = '3';

export function localeOf(request: FastifyRequest): Locale {
  return pickLocale(request.headers['accept-language']);
}

export function renderAppError(err: AppError, locale: Locale): { message: string; details: Record<string, unknown> } {
  const base = translate(err.def.message, locale, err.options.params);
  const { detail } = err.options;
  return {
    message: detail ? translate('common.withDetail', locale, { message: base, detail: translate(detail, locale) }) : base,
    details: (translateDeep(err.options.details ?? {}, locale) as Record<string, unknown>),
  };
}

/** Maps any thrown value to a registry entry; unexpected errors become `internal`. */
export function classify(err: unknown, errors: FrameworkErrors): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof InvalidInput) {
    return new AppError(errors.validation, { detail: err.detail, details: err.field ? { field: err.field } : {} });
  }
  const unavailable = unavailableIn(err);
  if (unavailable || isConnectionError(err)) {
    const dependency = unavailable?.dependency === 'Redis' ? 'redis' : unavailable?.dependency === 'object storage' ? 'storage' : 'database';
    return new AppError(errors.unavailable, { detail: msg(`unavailable.${dependency}`), headers: { 'Retry-After': RETRY_AFTER_S } });
  }
  if (pgErrorCode(err) === QUERY_CANCELED) {
    return new AppError(errors.unavailable, { detail: msg('unavailable.statementTimeout'), headers: { 'Retry-After': RETRY_AFTER_S } });
  }
  if (err instanceof JsonTooDeep) return new AppError(errors.malformedBody, { detail: msg('request.jsonTooDeep', { limit: err.limit }), details: { limit: err.limit } });
  if (err instanceof RequestValidationError) return new AppError(errors.validation, { detail: err.messages, details: { errors: err.messages } });
  const e = err as FastifyError & { validation?: unknown[]; validationContext?: string };
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError(errors.malformedBody, { detail: msg('request.invalidJson') });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError(errors.malformedBody, { detail: msg('request.emptyJson') });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError(errors.malformedBody, { detail: msg('request.contentLength') });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError(errors.bodyTooLarge);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError(errors.unsupportedMediaType, { detail: msg('request.mediaType', { type: String(e.message.split(': ')[1] ?? '') }) });
  }
  if (e instanceof SyntaxError && e.statusCode === 400) return new AppError(errors.malformedBody, { detail: msg('request.invalidJson') });
  switch (e.statusCode) {
    case 429:
      return new AppError(errors.tooManyRequests);
    case 404:
      return new AppError(errors.notFound);
    case 401:
      return new AppError(errors.unauthorized);
    case 413:
      return new AppError(errors.bodyTooLarge);
    case 415:
      return new AppError(errors.unsupportedMediaType);
  }
  if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500) return new AppError(errors.validation, { detail: msg('request.invalid') });
  return new AppError(errors.internal);
}

export function installConventions(app: FastifyInstance, conv: ServiceConventions): void {
  // Every route of this context, so that a known path with another method answers 405.
  const router = Router({ ignoreTrailingSlash: true });
  app.addHook('onRoute', (route) => {
    for (const m of [route.method].flat()) {
      if (m !== 'HEAD' && m !== 'OPTIONS' && !route.url.includes('*')) router.on(m.toUpperCase() as HTTPMethod, route.url, () => {});
    }
    // Any route can fail unexpectedly, or meet an outage of the database, Redis or the object store.
    documentErrors(route, [500, 503], conv.errorSchema);
  });

  const send = (reply: FastifyReply, request: FastifyRequest, err: AppError) => {
    const { message, details } = renderAppError(err, localeOf(request));
    for (const [k, v] of Object.entries(err.options.headers ?? {})) reply.header(k, v);
    return reply.status(err.def.status).send(conv.render({ def: err.def, message, details }, request));
  };

  app.setErrorHandler((err, request, reply) => {
    const appErr = classify(err, conv.errors);
    if (appErr.def === conv.errors.internal) request.log.error({ err }, 'request failed');
    return send(reply, request, appErr);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = METHODS.filter((m) => m !== request.method && router.find(m, path));
    if (allowed.length > 0) {
      reply.header('Allow', allowed.join(', '));
      return send(reply, request, new AppError(conv.errors.methodNotAllowed, { detail: msg('request.route', { method: request.method, path }) }));
    }
    return send(reply, request, new AppError(conv.errors.notFound, { detail: msg('request.route', { method: request.method, path }) }));
  });
}

/**
 * Documents on a route what its access declaration implies, so that a route states only the
 * responses particular to it: the bearer scheme, and each implied refusal it does not document itself.
 */
export function documentAccess(route: RouteOptions, implied: ImpliedByAccess, errorSchema: TSchema): void {
  if (!route.schema?.response) return;
  if (implied.bearer) route.schema.security ??= BEARER;
  documentErrors(route, implied.errors, errorSchema);
}

/** Adds the error statuses a route does not document itself (routes without a response map are not documented). */
function documentErrors(route: RouteOptions, statuses: readonly number[], errorSchema: TSchema): void {
  const response = route.schema?.response as Record<number, unknown> | undefined;
  if (!response) return;
  for (const status of statuses) response[status] ??= errorSchema;
}

export interface DocsOptions {
  /** Name of the swagger decorator, unique per service. */
  decorator: string;
  /** Full path of the interactive page; the document is at `${route}/openapi.json`. */
  route: `/${string}`;
  title: string;
  description: string;
  /** The service's errors, listed after the description as a table (code, HTTP status, meaning). */
  errors: Record<string, ErrorDef>;
  version: string;
  tags?: { name: string; description: string }[];
  /** PUBLIC_URL: the origin the documents name as their server; unset: the origin each request came to. */
  publicUrl?: string | undefined;
}

/** The reference page: only what helps a reader of this API (no AI agent, MCP, client download or editing controls), error tables readable. */
const REFERENCE_CSS = `
.markdown table { display: block; overflow-x: auto; }
.markdown table td:first-child, .markdown table td:nth-child(2) { white-space: nowrap; font-variant-numeric: tabular-nums; }
`;

function withErrorTable(description: string, errors: Record<string, ErrorDef>): string {
  const rows = Object.values(errors).map((d) => `| ${d.code} | ${d.status} | ${translate(d.message, 'en-US')} |`);
  return [description, '', '| code | HTTP | meaning |', '|---|---|---|', ...rows].join('\n');
}

/** OpenAPI generated from this context's route schemas, with an interactive page. */
export async function registerDocs(app: FastifyInstance, opts: DocsOptions): Promise<void> {
  await app.register(fastifySwagger, {
    decorator: opts.decorator,
    openapi: {
      openapi: '3.1.0',
      info: { title: opts.title, description: withErrorTable(opts.description, opts.errors), version: opts.version },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      tags: opts.tags ?? [],
    },
  });
  const prefix = app.prefix;
  // The document names the server it was fetched from (or PUBLIC_URL), so that the page's
  // examples and its "send" are full URLs that work as they are.
  const documentRoute = `${opts.route}/openapi.json`;
  app.addHook('preSerialization', async (request, _reply, payload) => {
    if (request.routeOptions.url !== documentRoute) return payload;
    const url = opts.publicUrl ?? `${request.protocol}://${request.host}`;
    return { ...(payload as object), servers: [{ url, description: opts.publicUrl ? 'PUBLIC_URL' : 'this server' }] };
  });
  referencePage(app, {
    routePrefix: opts.route.slice(prefix.length) as `/${string}`,
    logLevel: 'warn',
    configuration: {
      title: opts.title,
      pageTitle: `${opts.title} — reference`,
      metaData: { title: `${opts.title} — reference` },
      withDefaultFonts: false,
      hideClientButton: true,
      showDeveloperTools: 'never',
      agent: { disabled: true },
      mcp: { disabled: true },
      customCss: REFERENCE_CSS,
      content: () => (app as unknown as Record<string, () => unknown>)[opts.decorator]!(),
    },
  });
}

/** What Scalar's plugin serves under its prefix (Fastify ignores the trailing slash: `/` is also the prefix itself). */
const REFERENCE_ROUTES = ['/', '/openapi.json', '/openapi.yaml', '/js/scalar.js'] as const;

/**
 * Scalar's reference page, its plugin loaded on the first request for one of its routes: the
 * plugin's module holds the page's 4 MB script twice (as its source and as a string, 16 MB of
 * heap for a page few ever open). Its routes are declared at start (the router is closed
 * afterwards); the plugin then runs once against this context with its route declarations
 * collected, and each route hands over to the plugin's own handler.
 */
function referencePage(app: FastifyInstance, options: FastifyApiReferenceOptions): void {
  let handlers: Promise<Map<string, RouteHandlerMethod>> | undefined;
  const load = async () => {
    const { default: plugin } = await import('@scalar/fastify-api-reference');
    const routes = new Map<string, RouteHandlerMethod>();
    const collector = Object.create(app, { route: { value: (route: RouteOptions) => routes.set(route.url, route.handler) } }) as FastifyInstance;
    await new Promise<void>((resolve, reject) => {
      plugin(collector, options, (err?: Error) => (err ? reject(err) : resolve()));
    });
    return routes;
  };
  for (const path of REFERENCE_ROUTES) {
    const url = `${options.routePrefix}${path}`;
    app.route({
      method: 'GET',
      url,
      schema: { hide: true },
      logLevel: 'warn',
      handler: async function (request, reply) {
        handlers ??= load();
        const handler = (await handlers.catch((err: unknown) => {
          handlers = undefined;
          throw err;
        })).get(url);
        if (!handler) throw new Error(`the reference page's plugin declares no route ${url}`);
        return handler.call(this, request, reply);
      },
    });
  }
}
