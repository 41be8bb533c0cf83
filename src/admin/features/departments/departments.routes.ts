import { localeOf } from '../../../platform/http/conventions.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FeatureOptions } from '../../context.ts';
import { audited } from '../../kernel/audit.ts';
import { ErrorEnvelope, IdParam, ok } from '../../http.ts';
import {
  DepartmentCreateBody, DepartmentNodeShared, DepartmentQuery, DepartmentReply, DepartmentTreeReply, DepartmentUpdateBody, NullReply,
} from './departments.schema.ts';

const tags = ['Departments'];

export const departmentsRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const { departments } = ctx;
  const audit = audited('department', (id, request) => departments.get(id, localeOf(request)));
  app.addSchema(DepartmentNodeShared);

  app.get('/departments', {
    config: { permission: 'department.list' },
    schema: {
      tags,
      summary: 'The department tree',
      description:
        '`data.list` holds the root departments, each with its `children`, siblings ordered by `sort` then id; `data.total` counts the departments at all levels. ' +
        'With `status` or `name`, the matching departments are returned with their ancestors, so that the tree stays connected.',
      querystring: DepartmentQuery,
      response: { 200: DepartmentTreeReply },
    },
  }, async (request) => ok(request, await departments.tree(request.query, localeOf(request))));

  app.post('/departments', {
    config: { permission: 'department.create', audit },
    schema: {
      tags,
      summary: 'Create a department',
      description: 'The parent must be 0 (root) or an existing department; `email` is an email address or empty.',
      body: DepartmentCreateBody,
      response: { 200: DepartmentReply },
    },
  }, async (request) => ok(request, await departments.create(request.body, localeOf(request))));

  app.get('/departments/:id', {
    config: { permission: 'department.list' },
    schema: {
      tags,
      summary: 'One department with its subtree',
      params: IdParam,
      response: { 200: DepartmentReply, 404: ErrorEnvelope },
    },
  }, async (request) => ok(request, await departments.get(request.params.id, localeOf(request))));

  app.put('/departments/:id', {
    config: { permission: 'department.update', audit },
    schema: {
      tags,
      summary: 'Update a department (only the fields sent change)',
      description: 'A new parent must exist and must not be the department itself or one of its descendants (30001).',
      params: IdParam,
      body: DepartmentUpdateBody,
      response: { 200: DepartmentReply, 404: ErrorEnvelope },
    },
  }, async (request) => ok(request, await departments.update(request.params.id, request.body, localeOf(request))));

  app.delete('/departments/:id', {
    config: { permission: 'department.delete', audit },
    schema: {
      tags,
      summary: 'Delete a department without children or administrators',
      description: 'A department that still has child departments or administrators is refused (40002).',
      params: IdParam,
      response: { 200: NullReply, 404: ErrorEnvelope },
    },
  }, async (request) => {
    await departments.remove(request.params.id);
    return ok(request, null);
  });
};
