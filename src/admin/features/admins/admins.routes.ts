import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { localeOf } from '../../../platform/http/conventions.ts';
import type { FeatureOptions } from '../../context.ts';
import type { AuditSpec } from '../../kernel/audit.ts';
import { ErrorEnvelope, IdParam, ok, okList } from '../../http.ts';
import {
  AdminList, AdminListQuery, AdminReply, CreateAdminBody, NullReply, ResetPasswordBody, UnbindOtherBody, UpdateAdminBody,
} from './admins.schema.ts';

const tags = ['Administrators'];
const withNotFound = { 404: ErrorEnvelope };

export const adminsRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const { admins } = ctx;
  // The operation log's before and after of an administrator (kernel/audit.ts), both read the
  // same way: the replies lack when the password was set.
  const audit: AuditSpec = { entity: 'admin', after: 'load', load: (id, request) => admins.auditRecord(Number(id), localeOf(request)) };

  app.get('/admins', {
    config: { permission: 'admin.list' },
    schema: {
      tags,
      summary: 'List administrators',
      description: 'Fuzzy `username` and `nickname`; `start_time`/`end_time` bound `created_at`. Each record carries its department and roles.',
      querystring: AdminListQuery,
      response: { 200: AdminList },
    },
  }, async (request) => {
    const { list, total } = await admins.list(request.query, request.admin!.scope, localeOf(request));
    return okList(request, list, request.query, total);
  });

  app.post('/admins', {
    config: { permission: 'admin.create', audit },
    schema: {
      tags,
      summary: 'Create an administrator',
      description: 'The username is unique regardless of case (30002). Granting a role needs every permission it carries; the super-administrator role only a super administrator can grant (403, 20003). ' +
        'The password must satisfy the password policy (400, 30007, its message naming the rule it breaks), and the new administrator must replace it at the first sign-in (`must_change_password`).',
      body: CreateAdminBody,
      response: { 200: AdminReply },
    },
  }, async (request) => ok(request, await admins.create(request.admin!, request.body, localeOf(request))));

  app.get('/admins/:id', {
    config: { permission: 'admin.list' },
    schema: { tags, summary: 'One administrator with department and roles', params: IdParam, response: { 200: AdminReply, ...withNotFound } },
  }, async (request) => ok(request, await admins.get(request.params.id, request.admin!.scope, undefined, localeOf(request))));

  app.put('/admins/:id', {
    config: { permission: 'admin.update', audit },
    schema: {
      tags,
      summary: 'Update an administrator',
      description: [
        'Only the fields sent change; `role_ids` replaces the roles. Protected administrators cannot be disabled or have their roles changed by others (403, 20003); nobody disables themself,',
        'nor sets their own `password` here (403, 20003: use PUT /password, which asks for the old one).',
        'A change that would leave no enabled super administrator, or take from the caller their own right to administer administrators (the super role or `admin.update`), is refused (400, 40003).',
        'Disabling ends every session of the account at once, and so does a new password, which must satisfy the password policy and the account’s history (400, 30007, its message naming the rule)',
        'and which its owner must replace at the next sign-in (`must_change_password`); role changes apply on the next request.',
      ].join(' '),
      params: IdParam,
      body: UpdateAdminBody,
      response: { 200: AdminReply, ...withNotFound },
    },
  }, async (request) => ok(request, await admins.update(request.admin!, request.params.id, request.body, localeOf(request))));

  app.delete('/admins/:id', {
    config: { permission: 'admin.delete', audit },
    schema: {
      tags,
      summary: 'Delete an administrator',
      description: 'Protected administrators and the caller themself cannot be deleted (403, 20003). The account’s sessions end at once.',
      params: IdParam,
      response: { 200: NullReply, ...withNotFound },
    },
  }, async (request) => {
    await admins.remove(request.admin!, request.params.id);
    return ok(request, null);
  });

  app.put('/admins/:id/reset-password', {
    config: { permission: 'admin.reset_password', audit },
    schema: {
      tags,
      summary: 'Set a new password for an administrator',
      description: 'Every session of the account ends, and its owner must replace the new password at the next sign-in (`must_change_password`). ' +
        'The password must satisfy the password policy and differ from the account’s last passwords (400, 30007, its message naming the rule). ' +
        'A protected administrator’s password only a super administrator can reset. Not for one’s own password (403, 20003): that is PUT /password, which asks for the old one.',
      params: IdParam,
      body: ResetPasswordBody,
      response: { 200: NullReply, ...withNotFound },
    },
  }, async (request) => {
    await admins.resetPassword(request.admin!, request.params.id, request.body.password);
    return ok(request, null);
  });

  app.post('/admins/:id/unlock', {
    config: { permission: 'admin.unlock', audit },
    schema: {
      tags,
      summary: 'End the lock failed sign-ins put on an administrator',
      description: 'The account can sign in again at once; the failures counted so far are forgotten. Idempotent (an account that is not locked stays so). `locked_until` of the record says whether it is locked.',
      params: IdParam,
      response: { 200: NullReply, ...withNotFound },
    },
  }, async (request) => {
    await admins.unlock(request.admin!, request.params.id);
    return ok(request, null);
  });

  app.post('/admins/:id/unbind-google-auth', {
    config: { permission: 'admin.unbind_2fa', secretFields: ['code'], audit },
    schema: {
      tags,
      summary: 'Remove an administrator’s authenticator',
      description: 'The caller must have an authenticator bound (403, 20003) and send its current code, accepted once (400, 10010 when wrong, reused or malformed). The target’s sessions end.',
      params: IdParam,
      body: UnbindOtherBody,
      response: { 200: NullReply, ...withNotFound },
    },
  }, async (request) => {
    await admins.unbindOther(request.admin!, request.params.id, request.body.code);
    return ok(request, null);
  });
};
