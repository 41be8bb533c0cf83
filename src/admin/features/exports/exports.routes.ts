// Export tasks of the admin service (DESIGN §7.3): a feature queues a task (POST /admins/export,
// POST /orders/export), the platform's ExportTasks worker (ctx.exports, started with the app)
// writes the CSV into the storage, GET /exports/{id} reports it and GET /exports/{id}/download
// streams the file from there (any instance serves it), or redirects to the store, until it
// expires. Who may read a task: ../../kernel/export-tasks.ts.
import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../../../platform/http/errors.ts';
import type { ExportTask } from '../../../platform/jobs/export-tasks.ts';
import type { FeatureOptions } from '../../context.ts';
import { E } from '../../errors.ts';
import type { Principal } from '../../kernel/guard.ts';
import { ErrorEnvelope, IdParam, ok } from '../../http.ts';
import { EXPORT_MANAGE, ExportTaskReply, renderExportTask, visibleExportTask } from '../../kernel/export-tasks.ts';
import { msg } from '../../../platform/i18n.ts';

const CsvFile = Type.Unsafe<Readable>({ type: 'string', format: 'binary', description: 'the CSV file (text/csv)' });
const withNotFound = { 404: ErrorEnvelope };

export const exportsRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const { platform } = ctx;
  const tz = platform.config.DISPLAY_TIMEZONE;
  const tasks = ctx.exports;
  const prefix = app.prefix;
  const render = (task: ExportTask) => renderExportTask(tasks, task, prefix, tz);
  const visible = (caller: Principal, id: number) => visibleExportTask(ctx.platform.db, tasks, caller, id);

  app.get('/exports/:id', {
    config: { auth: 'self' },
    schema: {
      tags: ['Exports'],
      summary: 'Status of an export task',
      description: `Its creator, and holders of \`${EXPORT_MANAGE}\`, may read it (otherwise 403, 20001).`,
      params: IdParam,
      response: { 200: ExportTaskReply, ...withNotFound },
    },
  }, async (request) => ok(request, render(await visible(request.admin!, request.params.id))));

  app.get('/exports/:id/download', {
    config: { auth: 'self' },
    schema: {
      tags: ['Exports'],
      summary: 'Download the CSV file of a completed export',
      description: `UTF-8 CSV with a byte-order mark. Its creator and holders of \`${EXPORT_MANAGE}\` may download it; 404 (30003) once it expired or when it is not completed. ` +
        'When the server stores files in S3 with `S3_PUBLIC_ENDPOINT` set, the answer is instead a 302 to a presigned URL of the store, valid for a minute, issued after the same checks; the store answers with the same Content-Type and Content-Disposition.',
      params: IdParam,
      response: { 200: CsvFile, ...withNotFound },
    },
  }, async (request, reply) => {
    const task = await visible(request.admin!, request.params.id);
    const name = `${task.kind}-export-${task.id}.csv`;
    const disposition = `attachment; filename="${name}"`;
    const url = await tasks.presigned(task, { contentDisposition: disposition, contentType: 'text/csv; charset=utf-8' });
    if (url) return reply.header('Cache-Control', 'no-store').redirect(url, 302);
    const file = await tasks.open(task);
    if (!file) throw new AppError(E.DATA_NOT_FOUND, { detail: msg('admin.exports.noFile', { id: task.id, status: task.status }) });
    return reply
      .header('Content-Type', 'text/csv; charset=utf-8')
      .header('Content-Disposition', disposition)
      .header('Content-Length', String(file.size))
      .header('Cache-Control', 'no-store')
      .header('X-Content-Type-Options', 'nosniff')
      .send(file.body);
  });
};
