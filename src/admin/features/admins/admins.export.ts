// POST /admins/export and the `admins` export kind: the administrators matching the export
// request, as CSV columns, on the admin service's export queue (../../kernel/export-tasks.ts;
// the file is read and downloaded through GET /exports/{id}). Never password hashes,
// authenticator secrets or any other credential.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import { exportKind } from '../../../platform/jobs/export-kinds.ts';
import type { FeatureOptions } from '../../context.ts';
import { ok } from '../../http.ts';
import type { DataScope } from '../../kernel/data-scope.ts';
import { ExportTaskReply, renderExportTask } from '../../kernel/export-tasks.ts';
import { AdminExportBody } from './admins.schema.ts';
import type { AdminFilter, AdminRecord } from './admins.queries.ts';
import type { AdminsService } from './admins.service.ts';

/** What is queued: the request's filters in the service's types, plus the row order. */
export interface AdminExportParams extends AdminFilter {
  direction: 'asc' | 'desc';
}

/** The request's filters, with the caller's data scope when it is not `all` (the file holds what the caller could list). */
export function adminExportParams(body: Static<typeof AdminExportBody>, scope: DataScope): AdminExportParams {
  const params: AdminExportParams = { direction: body.order_by === 'id:desc' ? 'desc' : 'asc', ...(scope.all ? {} : { scope }) };
  if (body.username) params.username = body.username;
  if (body.status !== undefined) params.status = Number(body.status);
  if (body.role_id !== undefined) params.role_id = Number(body.role_id);
  if (body.department_id !== undefined) params.department_id = Number(body.department_id);
  if (body.is_2fa_bound !== undefined) params.is_2fa_bound = body.is_2fa_bound === '1';
  if (body.start_time !== undefined) params.start_time = body.start_time;
  if (body.end_time !== undefined) params.end_time = body.end_time;
  return params;
}

export function adminsExportKind(admins: AdminsService) {
  return exportKind<AdminRecord>({
    columns: [
      { header: 'id', value: (r) => r.id },
      { header: 'username', value: (r) => r.username },
      { header: 'nickname', value: (r) => r.nickname },
      { header: 'email', value: (r) => r.email },
      { header: 'phone', value: (r) => r.phone },
      { header: 'department', value: (r) => r.department?.name ?? '' },
      { header: 'roles', value: (r) => r.roles.map((x) => x.name).join('; ') },
      { header: 'status', value: (r) => r.status },
      { header: 'is_2fa_bound', value: (r) => (r.is_2fa_bound ? 1 : 0) },
      { header: 'last_login_at', value: (r) => r.last_login_at ?? '' },
      { header: 'created_at', value: (r) => r.created_at },
    ],
    rows: (params, signal) => {
      const { direction, ...filter } = params as unknown as AdminExportParams;
      return admins.iterate(filter, direction, 500, signal);
    },
  });
}

export const adminsExportRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const tz = ctx.platform.config.DISPLAY_TIMEZONE;
  const tasks = ctx.exports;
  const { admins } = ctx;
  tasks.register('admins', adminsExportKind(admins));
  const prefix = app.prefix;

  app.post('/admins/export', {
    config: { permission: 'admin.export' },
    schema: {
      tags: ['Administrators'],
      summary: 'Export administrators to CSV',
      description: [
        'Queues an export task with the list filters and returns it (`download_url` null).',
        'Poll `GET /exports/{id}` until `status` is `completed`, then download from `download_url`.',
        'Columns: id, username, nickname, email, phone, department, roles, status, is_2fa_bound, last_login_at, created_at.',
      ].join(' '),
      body: AdminExportBody,
      response: { 200: ExportTaskReply },
    },
    // The body is optional: none at all means no filters.
    preValidation: async (request) => {
      request.body ??= {};
    },
  }, async (request) => {
    const params = adminExportParams(request.body, request.admin!.scope);
    admins.validateFilter(params);
    const task = await tasks.create('admins', { ...params }, request.admin!.adminId);
    return ok(request, { ...renderExportTask(tasks, task, prefix, tz), download_url: null });
  });

};
