// GET /monitor/system: the host (CPU, memory, disk of DATA_DIR), the Node.js runtime (in place of
// the contract's `go` block), and, as extensions of the contract, the database and the cache,
// each `up` or `down` with its figures. Refreshed by the console every few seconds.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Nullable } from '../../../platform/http/schemas.ts';
import type { FeatureOptions } from '../../context.ts';
import { localeOf } from '../../../platform/http/conventions.ts';
import { Envelope, ok } from '../../http.ts';
import { CPU_SAMPLE_MS } from './monitor.service.ts';

const Usage = (what: string) => Type.Number({ minimum: 0, maximum: 100, description: `${what}, percent` });
const Bytes = (what: string) => Type.Integer({ description: `${what}, bytes` });
const Count = (what: string) => Type.Integer({ minimum: 0, description: what });
const NULL_WHEN_DOWN = 'null while `down`';

/** `up`/`down` and why, shared by the dependency blocks. */
const DependencyState = {
  status: Type.String({ enum: ['up', 'down'], description: '`down` when it was refused (an outage is known) or did not answer within DEPENDENCY_TIMEOUT_MS' }),
  reason: Nullable(Type.String({ description: 'why it is `down`; null while `up`' })),
  latency_ms: Nullable(Type.Number({ minimum: 0, description: `round trip of a trivial command, ms; ${NULL_WHEN_DOWN}` })),
};

const SystemInfo = Envelope(
  Type.Object({
    cpu: Type.Object({ cores: Type.Integer(), usage: Usage(`busy share of all cores over ${CPU_SAMPLE_MS} ms`) }),
    memory: Type.Object({ total: Bytes('host memory'), used: Bytes('in use (total minus available)'), usage: Usage('used / total') }),
    disk: Type.Object({ total: Bytes('size of the file system holding DATA_DIR'), used: Bytes('used'), usage: Usage('used / total') }),
    runtime: Type.Object(
      {
        version: Type.String({ description: 'Node.js version' }),
        event_loop_delay: Type.Number({ description: 'mean event-loop delay over the last minute, ms' }),
        event_loop_delay_p99: Type.Number({ description: '99th percentile, ms' }),
        event_loop_delay_max: Type.Number({ description: 'maximum, ms' }),
        heap_used: Bytes('V8 heap used'),
        heap_total: Bytes('V8 heap size'),
        external: Bytes('memory of native objects bound to JavaScript (buffers, WebAssembly memory such as the embedded database)'),
        rss: Bytes('resident set size of the process'),
        uptime: Type.Integer({ description: 'process uptime, seconds' }),
        gc_count: Type.Integer({ description: 'garbage-collection pauses observed since start-up' }),
        gc_pause: Type.String({ description: 'the last, average and longest garbage-collection pause, in the reader’s language (Accept-Language), e.g. `last 0.52 ms · average 0.81 ms · longest 4.00 ms`' }),
        gc_pause_last_ms: Type.Number({ minimum: 0, description: 'the last garbage-collection pause, ms (0 before the first)' }),
        gc_pause_avg_ms: Type.Number({ minimum: 0, description: 'the average pause, ms' }),
        gc_pause_max_ms: Type.Number({ minimum: 0, description: 'the longest pause, ms' }),
        gc_summary: Type.String({
          description: 'one sentence in the reader’s language that says what the figures are (the runtime’s automatic memory clean-up briefly pausing the server) and gives them, for the console’s garbage-collection line',
        }),
      },
      { description: 'the Node.js runtime (in place of the contract’s `go` block)' },
    ),
    database: Type.Object(
      {
        kind: Type.String({ enum: ['pglite', 'postgres'], description: '`pglite`: the embedded database (DATABASE_URL unset); `postgres`: a PostgreSQL server' }),
        ...DependencyState,
        version: Nullable(Type.String({ description: `the server’s version, e.g. \`PostgreSQL 15.10 (Debian 15.10-1)\`; ${NULL_WHEN_DOWN}` })),
        size: Nullable(Type.Integer({ minimum: 0, description: `size of the database on disk, bytes; ${NULL_WHEN_DOWN}` })),
        pool: Type.Object(
          {
            max: Count('connections this instance opens at most (DB_POOL_MAX; 1 for the embedded database)'),
            active: Count('statements and transactions under way on the server (several statements may share a connection on PostgreSQL)'),
            waiting: Count('statements and transactions waiting for a connection'),
          },
          { description: 'what this instance has in flight on the database besides this request; known also while `down`' },
        ),
      },
      { description: 'the database (an extension of the contract); `latency_ms` is that of `SELECT 1`' },
    ),
    cache: Type.Object(
      {
        kind: Type.String({ enum: ['redis', 'memory'], description: '`redis` when REDIS_URL is set; `memory`: this process’s memory (always `up`, no figures)' }),
        ...DependencyState,
        version: Nullable(Type.String({ description: 'Redis version (INFO); null for `memory` or while `down`' })),
        used_memory: Nullable(Type.Integer({ minimum: 0, description: 'memory Redis uses, bytes (INFO used_memory); null for `memory` or while `down`' })),
        connected_clients: Nullable(Type.Integer({ minimum: 0, description: 'client connections to Redis, every instance’s (INFO); null for `memory` or while `down`' })),
        keys: Nullable(Type.Integer({ minimum: 0, description: 'keys in the Redis database (DBSIZE, every key prefix); null for `memory` or while `down`' })),
      },
      { description: 'the cache, rate-limit store and pub/sub (an extension of the contract); `latency_ms` is that of PING, null for `memory`' },
    ),
  }),
);

export const monitorRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const { monitor } = ctx;
  app.addHook('onClose', async () => monitor.stop());

  app.get('/monitor/system', {
    config: { permission: 'monitor.system' },
    schema: {
      tags: ['Monitoring'],
      summary: 'CPU, memory and disk of the host, the Node.js runtime, the database and the cache',
      description: `Takes about ${CPU_SAMPLE_MS} ms (the CPU sampling window). Disk figures are of the file system holding DATA_DIR. `
        + 'A database or Redis that is down does not fail the request: its block says `down` with the reason, at once during a known outage '
        + 'and at the latest after DEPENDENCY_TIMEOUT_MS, and the rest is answered. The caller’s session is checked against the database '
        + '(at least every SESSION_CACHE_MS), so during a longer database outage the request itself is refused 503 like any other.',
      response: { 200: SystemInfo },
    },
  }, async (request) => ok(request, await monitor.snapshot(localeOf(request))));
};
