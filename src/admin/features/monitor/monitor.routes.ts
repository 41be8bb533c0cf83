import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FeatureOptions } from '../../context.ts';
import { authErrors, Envelope, ok } from '../../http.ts';
import { CPU_SAMPLE_MS, SystemMonitor } from './monitor.service.ts';

const Usage = (what: string) => Type.Number({ minimum: 0, maximum: 100, description: `${what}, percent` });
const Bytes = (what: string) => Type.Integer({ description: `${what}, bytes` });

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
        rss: Bytes('resident set size of the process'),
        uptime: Type.Integer({ description: 'process uptime, seconds' }),
        gc_count: Type.Integer({ description: 'GC pauses observed since start-up' }),
        gc_pause: Type.String({ description: 'last, average and longest GC pause' }),
      },
      { description: 'the Node.js runtime (in place of the contract’s `go` block)' },
    ),
  }),
);

export const monitorRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const monitor = new SystemMonitor(ctx.platform.config.dataDir);
  app.addHook('onClose', async () => monitor.stop());

  app.get('/monitor/system', {
    config: { permission: 'monitor.system' },
    schema: {
      tags: ['Monitoring'],
      summary: 'CPU, memory and disk of the host, and the Node.js runtime',
      description: `Takes about ${CPU_SAMPLE_MS} ms (the CPU sampling window). Disk figures are of the file system holding DATA_DIR.`,
      security: [{ bearer: [] }],
      response: { 200: SystemInfo, ...authErrors },
    },
  }, async (request) => ok(request, await monitor.snapshot()));
};
