import { localeOf } from '../../../platform/http/conventions.ts';
// Roles: CRUD with the sets of permissions and menus each role grants.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FeatureOptions } from '../../context.ts';
import { audited } from '../../kernel/audit.ts';
import { ErrorEnvelope, IdParam, ok, okList } from '../../http.ts';
import { CreateRoleBody, DeletedRoleReply, RoleList, RoleQuery, RoleReply, UpdateRoleBody } from './roles.schema.ts';

const tags = ['Roles'];

export const rolesRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const service = ctx.roles;
  const audit = audited('role', (id, request) => service.get(id, localeOf(request)));

  app.get('/roles', {
    config: { permission: 'role.list' },
    schema: {
      tags,
      summary: 'List roles',
      description: 'Paged; `name` is fuzzy; `order_by` defaults to `id:desc`. Each role carries its `permission_ids` and `menu_ids`.',
      querystring: RoleQuery,
      response: { 200: RoleList },
    },
  }, async (request) => {
    const { list, total } = await service.list(request.query, localeOf(request));
    return okList(request, list, request.query, total);
  });

  app.post('/roles', {
    config: { permission: 'role.create', audit },
    schema: {
      tags,
      summary: 'Create a role',
      description: 'The slug is unique (30002 when taken). Unknown permission or menu ids are a 400 (30001) naming them. A caller who is not a super administrator can grant only permissions and menus they hold themselves (their roles grant the menu or one below it): anything else is refused (403, 20003) naming the slugs.',
      body: CreateRoleBody,
      response: { 200: RoleReply },
    },
  }, async (request) => ok(request, await service.create(request.admin!, request.body, localeOf(request))));

  app.get('/roles/:id', {
    config: { permission: 'role.list' },
    schema: {
      tags,
      summary: 'One role, with its permission and menu ids',
      params: IdParam,
      response: { 200: RoleReply, 404: ErrorEnvelope },
    },
  }, async (request) => ok(request, await service.get(request.params.id, localeOf(request))));

  app.put('/roles/:id', {
    config: { permission: 'role.update', audit },
    schema: {
      tags,
      summary: 'Update a role',
      description: [
        'Every field is optional; `permission_ids` and `menu_ids`, when given, replace the whole set (all or nothing).',
        'A change of permissions, menus or status applies to the role’s administrators on their next request.',
        'The system role (the super-administrator role, `is_system`) is not editable: any change is refused (403, 20003).',
        'A caller who is not a super administrator can add to the sets only permissions and menus they hold themselves (what the role grants already may stay, anything may be removed): anything else is refused (403, 20003) naming the slugs.',
        'A change that would leave no enabled super administrator, or take from the caller their own right to administer administrators (the super role or `admin.update`), is refused (400, 40003).',
      ].join(' '),
      params: IdParam,
      body: UpdateRoleBody,
      response: { 200: RoleReply, 404: ErrorEnvelope },
    },
  }, async (request) => ok(request, await service.update(request.admin!, request.params.id, request.body, localeOf(request))));

  app.delete('/roles/:id', {
    config: { permission: 'role.delete', audit },
    schema: {
      tags,
      summary: 'Delete a role',
      description: 'Refused (400, 40002) while administrators hold it; the super-administrator role cannot be deleted (403, 20003).',
      params: IdParam,
      response: { 200: DeletedRoleReply, 404: ErrorEnvelope },
    },
  }, async (request) => {
    await service.remove(request.admin!, request.params.id);
    return ok(request, { id: request.params.id });
  });
};
