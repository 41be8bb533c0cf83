// Permissions: the catalogue generated from the route table (is_system) plus custom ones.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FeatureOptions } from '../../context.ts';
import { audited } from '../../kernel/audit.ts';
import { localeOf } from '../../../platform/http/conventions.ts';
import { ErrorEnvelope, IdParam, ok, okList } from '../../http.ts';
import {
  CreatePermissionBody, DeletedReply, PermissionList, PermissionQuery, PermissionReply, UpdatePermissionBody,
} from './permissions.schema.ts';

const tags = ['Permissions'];

export const permissionsRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const service = ctx.permissions;
  const audit = audited('permission', (id, request) => service.get(id, localeOf(request)));

  app.get('/permissions', {
    config: { permission: 'permission.list' },
    schema: {
      tags,
      summary: 'List permissions',
      description: 'Paged; `name` and `slug` are fuzzy; `order_by` defaults to `id:desc`.',
      querystring: PermissionQuery,
      response: { 200: PermissionList },
    },
  }, async (request) => {
    const { list, total } = await service.list(request.query, localeOf(request));
    return okList(request, list, request.query, total);
  });

  app.post('/permissions', {
    config: { permission: 'permission.create', audit },
    schema: {
      tags,
      summary: 'Create a permission',
      description: 'The slug is unique (30002 when taken); an unknown `menu_id` is a 400 (30001).',
      body: CreatePermissionBody,
      response: { 200: PermissionReply },
    },
  }, async (request) => ok(request, await service.create(request.body, localeOf(request))));

  app.get('/permissions/:id', {
    config: { permission: 'permission.list' },
    schema: {
      tags,
      summary: 'One permission',
      params: IdParam,
      response: { 200: PermissionReply, 404: ErrorEnvelope },
    },
  }, async (request) => ok(request, await service.get(request.params.id, localeOf(request))));

  app.put('/permissions/:id', {
    config: { permission: 'permission.update', audit },
    schema: {
      tags,
      summary: 'Update a permission',
      description: [
        'Every field is optional. System permissions (generated from the route table) can be renamed, moved to another menu',
        'and disabled, but their `slug`, `method` and `path` cannot change (403, 20003). A change of status or slug applies',
        'to the administrators holding it on their next request. A change that would take from the caller their own right to administer',
        'administrators (`admin.update`), or leave no enabled super administrator, is refused (400, 40003).',
      ].join(' '),
      params: IdParam,
      body: UpdatePermissionBody,
      response: { 200: PermissionReply, 404: ErrorEnvelope },
    },
  }, async (request) => ok(request, await service.update(request.admin!, request.params.id, request.body, localeOf(request))));

  app.delete('/permissions/:id', {
    config: { permission: 'permission.delete', audit },
    schema: {
      tags,
      summary: 'Delete a permission',
      description: 'System permissions cannot be deleted (403, 20003). Roles holding a custom permission lose it.',
      params: IdParam,
      response: { 200: DeletedReply, 404: ErrorEnvelope },
    },
  }, async (request) => {
    await service.remove(request.admin!, request.params.id);
    return ok(request, { id: request.params.id });
  });
};
