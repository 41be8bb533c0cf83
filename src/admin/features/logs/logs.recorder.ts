// Records the operation log of every state-changing admin request and the system log of the
// admin service (registered before the routes, so its hooks see every admin route).
//
// Operation log: one row per POST/PUT/PATCH/DELETE request to an admin route whose token was
// accepted (so 403s and failures of signed-in administrators are in it; anonymous requests are
// not, nor /login and /captcha, which the login log covers). module/action come from the
// route's permission slug (`online.kick` → online / kick); self-service routes are module
// `auth` with the path as action (`PUT /password` → auth / password).
//
// System log: every warn/error/fatal line logged through an admin request's logger
// (`request.log`), with that request's trace_id; this includes the error handler's line for
// every 500. Other code can add rows with recordSystemLog(). Lines logged through the
// process logger outside a request are not captured.
//
// Before and after: a route that declares `config.audit` (kernel/audit.ts) has its records read
// before the handler runs (a preHandler of that route, after the guard) and, after a success,
// their state after taken from the reply (or read again, off the request's path); the row's
// `changes` keep the fields that changed (logs.changes.ts). A read that fails (the database is
// away) costs the row its `changes`, never the row or the request.
//
// Rows are written after the response, in batches (see LogWriter); close() flushes them.
import { format } from 'node:util';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { FeatureOptions } from '../../context.ts';
import type { AuditSpec, RecordChange, RecordId } from '../../kernel/audit.ts';
import { capChanges, MAX_RECORDS, recordChange } from './logs.changes.ts';
import { capJson, describeError, maskFields, redact } from './logs.redact.ts';
import type { SystemLogLevel } from '../../db/schema.ts';
import { purgeLogs, type LogWriter } from './logs.writer.ts';
import { Periodic } from '../../../platform/jobs/periodic.ts';

const RECORDED_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Covered by the login log (paths under the service prefix). */
// Sign-in is in the login log; a token renewal and a socket ticket are the session's own
// plumbing (every page load asks for them), not something an administrator did; each chunk of a
// chunked upload is a part of one upload, whose merge writes its row.
const NOT_RECORDED = ['/login', '/captcha', '/refresh-token', '/ws/ticket', '/attachments/chunk'];
const PURGE_EVERY_MS = 60 * 60 * 1000;

/** Writers of the admin apps open in this process, newest last (recordSystemLog uses the newest). */
const openWriters: LogWriter[] = [];

/**
 * Adds a system log row (level error/warning/info/debug) from code that has no request at
 * hand; inside a request prefer `request.log.warn/error(...)`, which is captured with the
 * request's trace_id. Never throws; a no-op when no admin service is running.
 */
export function recordSystemLog(level: SystemLogLevel, message: string, context: Record<string, unknown> = {}, traceId?: string): void {
  openWriters.at(-1)?.system(level, message, context, traceId);
}

/** `online.kick` → online / kick; self-service routes → auth / their path. */
export function moduleAndAction(permission: string | undefined, routeUrl: string, prefix = ''): { module: string; action: string } {
  if (permission) {
    const dot = permission.indexOf('.');
    return { module: permission.slice(0, dot), action: permission.slice(dot + 1) };
  }
  const path = routeUrl.startsWith(prefix) ? routeUrl.slice(prefix.length) : routeUrl;
  const action = path.split('/').filter((s) => s && !s.startsWith(':') && s !== '*').join('.');
  return { module: 'auth', action: action || 'root' };
}

/** The records of one audited request: their state before, and the reply's `data` once answered. */
interface Audit {
  ids: RecordId[];
  before: Map<RecordId, unknown> | null;
  reply?: unknown;
}
const kAudit = Symbol('audit');
type Audited = FastifyRequest & { [kAudit]?: Audit };

/** The route's `:id`, the default record of an audited route. */
const idParam = (request: FastifyRequest): RecordId[] => {
  const id = (request.params as { id?: RecordId } | undefined)?.id;
  return id === undefined ? [] : [id];
};

async function loadAll(spec: AuditSpec, ids: readonly RecordId[], request: FastifyRequest): Promise<Map<RecordId, unknown>> {
  const out = new Map<RecordId, unknown>();
  for (const id of ids) out.set(id, await spec.load!(id, request));
  return out;
}

/** The reply's `data`: the record, or (a batch) nothing the changes use. */
function replyData(payload: unknown): unknown {
  if (typeof payload !== 'string' || !payload.startsWith('{')) return undefined;
  try {
    return (JSON.parse(payload) as { data?: unknown }).data;
  } catch {
    return undefined;
  }
}

/** What an answered audited request changed, record by record. */
async function changesOf(spec: AuditSpec, audit: Audit, request: FastifyRequest): Promise<RecordChange[]> {
  // A DELETE's records are gone, unless the route reads them again (a session it ends stays).
  const deleted = request.method === 'DELETE' && spec.after !== 'load';
  let ids = audit.ids;
  const fromReply = !deleted && (spec.after ?? 'reply') === 'reply' && typeof audit.reply === 'object' && audit.reply !== null;
  if (ids.length === 0) {
    // A create: its record is the reply.
    const id = spec.created ? spec.created(audit.reply) : (audit.reply as { id?: RecordId } | null | undefined)?.id;
    if (id === undefined) return [];
    ids = [id];
  }
  const after = deleted ? new Map<RecordId, unknown>() : fromReply && ids.length === 1 ? new Map([[ids[0]!, audit.reply]]) : spec.load ? await loadAll(spec, ids, request) : new Map<RecordId, unknown>();
  const out: RecordChange[] = [];
  for (const id of ids) {
    const change = recordChange(spec.entity, id, audit.before?.get(id) ?? null, after.get(id) ?? null);
    if (change) out.push(change);
  }
  return out;
}

const LEVELS = { warn: 'warning', error: 'error', fatal: 'error' } as const;

/** What a pino call `(obj?, msg?, ...args)` says: its message and its (redacted) context. */
function describeLogCall(args: unknown[]): { message: string; context: Record<string, unknown> } {
  const first = args[0];
  let rest = args.slice(1);
  let context: Record<string, unknown> = {};
  if (first instanceof Error) {
    context = { err: describeError(first) };
    if (typeof rest[0] !== 'string') rest = [first.message];
  } else if (first !== null && typeof first === 'object') {
    const { err, ...others } = first as Record<string, unknown>;
    context = redact(others) as Record<string, unknown>;
    if (err instanceof Error) context.err = describeError(err);
    else if (err !== undefined) context.err = redact(err);
    if (typeof rest[0] !== 'string') rest = [typeof (first as { msg?: unknown }).msg === 'string' ? (first as { msg: string }).msg : err instanceof Error ? err.message : ''];
  } else {
    rest = [first, ...rest];
  }
  const [msg, ...values] = rest;
  const text = typeof msg === 'string' ? msg : msg === undefined || msg === null ? '' : format('%o', msg);
  const message = values.length > 0 ? format(text, ...values) : text;
  return { message, context };
}

export const operationRecorder = fp<FeatureOptions>(async (app, { ctx }) => {
  const { platform } = ctx;
  const writer = ctx.logWriter;
  const prefix = app.prefix;
  const notRecorded = new Set(NOT_RECORDED.map((p) => `${prefix}${p}`));
  openWriters.push(writer);

  // The request's own child logger is tapped: its warn/error/fatal methods (and `child`) are
  // replaced by shared functions that also write the system log. No per-request closures:
  // this runs on every admin request.
  const kRequest = Symbol('request');
  type Tapped = FastifyBaseLogger & { [kRequest]?: FastifyRequest };
  const originals = new Map<string, (...args: unknown[]) => unknown>();
  const original = (log: Tapped, method: string) => {
    let fn = originals.get(method);
    if (!fn) {
      fn = (log as unknown as Record<string, (...args: unknown[]) => unknown>)[method]!;
      originals.set(method, fn);
    }
    return fn;
  };
  const capture = (log: Tapped, level: SystemLogLevel, args: unknown[]) => {
    const request = log[kRequest];
    if (!request) return;
    try {
      const { message, context } = describeLogCall(args);
      context.request = { method: request.method, route: request.routeOptions.url ?? null, path: request.url.split('?')[0] };
      writer.system(level, message, context, request.id);
    } catch {
      /* never let the system log break a request */
    }
  };
  const passThrough = (method: 'warn' | 'error' | 'fatal') =>
    function (this: Tapped, ...args: unknown[]) {
      capture(this, LEVELS[method], args);
      return originals.get(method)!.apply(this, args);
    };
  const tapped: Record<'warn' | 'error' | 'fatal' | 'child', (this: Tapped, ...args: unknown[]) => unknown> = {
    warn: passThrough('warn'),
    error: passThrough('error'),
    fatal: passThrough('fatal'),
    child: function (this: Tapped, ...args: unknown[]) {
      return tap(originals.get('child')!.apply(this, args) as Tapped, this[kRequest]!);
    },
  };
  const tap = (log: Tapped, request: FastifyRequest): Tapped => {
    for (const method of ['warn', 'error', 'fatal', 'child'] as const) {
      original(log, method);
      (log as unknown as Record<string, unknown>)[method] = tapped[method];
    }
    log[kRequest] = request;
    return log;
  };

  app.addHook('onRequest', (request, _reply, done) => {
    tap(request.log, request);
    done();
  });

  // Audited routes only (the others pay nothing): the state before of the records, read once the
  // guard has let the caller in, and a success's reply, the state after of most writes (a
  // create's id is in it).
  const readBefore = async (request: Audited) => {
    const spec = request.routeOptions.config.audit!;
    if (!request.admin) return;
    const ids = (spec.ids?.(request) ?? idParam(request)).slice(0, MAX_RECORDS);
    const audit: Audit = { ids: [...ids], before: null };
    request[kAudit] = audit;
    if (!spec.load || ids.length === 0) {
      audit.before = new Map();
      return;
    }
    try {
      audit.before = await loadAll(spec, ids, request);
    } catch (err) {
      request.log.warn({ err }, 'reading the records an operation changes failed; its log row keeps no values');
    }
  };
  const keepReply = async (request: Audited, reply: FastifyReply, payload: unknown) => {
    const audit = request[kAudit];
    if (audit && reply.statusCode < 400) audit.reply = replyData(payload);
    return payload;
  };
  app.addHook('onRoute', (route) => {
    if (!route.config?.audit || !RECORDED_METHODS.has([route.method].flat()[0]!)) return;
    route.preHandler = [...[route.preHandler ?? []].flat(), readBefore];
    route.onSend = [...[route.onSend ?? []].flat(), keepReply];
  });

  /** Rows waiting for their records' state after (close() waits for them). */
  const pending = new Set<Promise<void>>();

  app.addHook('onResponse', (request: Audited, reply: FastifyReply, done) => {
    try {
      const route = request.routeOptions.url;
      if (request.admin && route && RECORDED_METHODS.has(request.method) && !notRecorded.has(route)) {
        const { module, action } = moduleAndAction(request.routeOptions.config.permission, route, prefix);
        const params: Record<string, unknown> = {};
        if (request.params && Object.keys(request.params).length > 0) params.params = request.params;
        if (request.query && Object.keys(request.query).length > 0) params.query = request.query;
        const { secretFields } = request.routeOptions.config;
        if (request.body !== undefined && request.body !== null) params.body = secretFields ? maskFields(request.body, secretFields) : request.body;
        const row = {
          adminId: request.admin.adminId,
          username: request.admin.username.slice(0, 64),
          module: module.slice(0, 64),
          action: action.slice(0, 64),
          method: request.method,
          route: route.slice(0, 255),
          path: (request.url.split('?')[0] ?? '').slice(0, 2048),
          ip: request.ip.slice(0, 64),
          userAgent: (request.headers['user-agent'] ?? '').slice(0, 512),
          params: capJson(redact(params)),
          statusCode: reply.statusCode,
          durationMs: Math.max(0, Math.round(reply.elapsedTime)),
          traceId: request.id.slice(0, 128),
          createdAt: new Date(),
        };
        const spec = request.routeOptions.config.audit;
        const audit = request[kAudit];
        if (!spec || !audit || audit.before === null || reply.statusCode >= 400) {
          writer.operation(row);
        } else {
          const job = changesOf(spec, audit, request).then(
            (all) => {
              const { changes, omitted } = capChanges(all);
              writer.operation({ ...row, changes, ...(omitted > 0 ? { params: { ...row.params, changes_omitted: omitted } } : {}) });
            },
            (err: unknown) => {
              request.log.warn({ err }, 'reading the records an operation changed failed; its log row keeps no values');
              writer.operation(row);
            },
          ).finally(() => pending.delete(job));
          pending.add(job);
        }
      }
    } catch (err) {
      platform.logger.error({ err }, 'building the operation log row failed');
    }
    done();
  });

  // Retention: at start-up, then every hour; each run deletes in bounded batches.
  const purger = new Periodic({
    everyMs: PURGE_EVERY_MS,
    logger: platform.logger,
    failure: 'purging old log rows failed',
    task: async (stopping) => {
      const days = platform.config.LOG_RETENTION_DAYS;
      if (days === 0) return;
      const deleted = await purgeLogs(platform.db.orm, days, () => stopping.aborted);
      if (deleted.operation + deleted.system + deleted.login > 0) platform.logger.info({ deleted, days }, 'old log rows purged');
    },
  });
  app.addHook('onReady', async () => purger.start());

  app.addHook('onClose', async () => {
    await purger.stop();
    await Promise.all(pending);
    await writer.close();
    const i = openWriters.indexOf(writer);
    if (i >= 0) openWriters.splice(i, 1);
  });
}, { name: 'admin-operation-recorder' });
