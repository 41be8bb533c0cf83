// Worker accounts and tags (managers), device-binding reset, the end of a sign-in lockout, and a
// user's own record.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { localeOf } from '../../../platform/http/conventions.ts';
import { assertSelfOrManager } from '../../kernel/auth.ts';
import type { FeatureOptions } from '../../context.ts';
import { errors, IdParam } from '../../http.ts';
import {
  PublicWorker, Tag, TagBody, WorkerCreateBody, WorkerDetail, WorkerList, WorkerListQuery, WorkerUpdateBody,
} from './workers.schema.ts';

const tags = ['Workers (managers)'];
const tagTags = ['Tags (managers)'];
const manager = { access: 'manager' } as const;
const Deleted = Type.Null({ description: 'done, no body' });

export const workersRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const { workers, devices } = ctx;

  app.get('/managers/workers', {
    config: manager,
    schema: {
      tags,
      summary: 'Workers, with search, tags and paging',
      description:
        '`search`: case-insensitive substring of the username or the full name (`%` and `_` match themselves). ' +
        '`tags`: comma-separated tag ids; a worker is listed only when they have **all** of them. `status`: only active or disabled workers (default both). ' +
        '`page` from 1 (default 1), `limit` default 20, values above 100 are capped at 100; a page past the end is empty. Ordered by id. ' +
        'Each worker’s `tags` are its tag names, comma-separated in alphabetical order. Deleted workers are not listed. ' +
        'An extension of the contract: each worker’s `lockedUntil`, until when failed sign-ins lock them (null: not locked; `POST /api/managers/workers/{id}/unlock` ends it).',
      querystring: WorkerListQuery,
      response: { 200: WorkerList },
    },
  }, async (request) => workers.list(request.query));

  app.post('/managers/workers', {
    config: manager,
    schema: {
      tags,
      summary: 'Create a worker',
      description: 'Usernames are unique regardless of case, managers included (409 `CONFLICT`). Unknown tag ids are a 400 naming them. The first login binds the worker’s device.',
      body: WorkerCreateBody,
      response: { 201: WorkerDetail, ...errors(409) },
    },
  }, async (request, reply) => reply.status(201).send(await workers.create(request.body)));

  app.get('/managers/workers/:id', {
    config: manager,
    schema: { tags, summary: 'One worker with status, tags, clock state, bound device, last seen (the newest position’s own time) and tracking state', params: IdParam, response: { 200: WorkerDetail, ...errors(404) } },
  }, async (request) => workers.detail(request.params.id));

  app.patch('/managers/workers/:id', {
    config: manager,
    schema: {
      tags,
      summary: 'Update a worker (only the fields sent change)',
      description:
        '`tagIds` replaces the worker’s tags. `status: "disabled"` refuses their sign-in and their current tokens (within a second on every instance); `"active"` enables them again. ' +
        'A new password revokes the worker’s current tokens (they must sign in again).',
      params: IdParam,
      body: WorkerUpdateBody,
      response: { 200: WorkerDetail, ...errors(404, 409) },
    },
  }, async (request) => workers.update(request.params.id, request.body));

  app.delete('/managers/workers/:id', {
    config: manager,
    schema: {
      tags,
      summary: 'Delete a worker (their clock history is kept)',
      description:
        'A soft delete: the worker disappears from lists and lookups (404), their tokens stop working, their device and tags are released and the username can be reused; ' +
        'their clock events and security records stay for audit.',
      params: IdParam,
      response: { 204: Deleted, ...errors(404) },
    },
  }, async (request, reply) => {
    await workers.remove(request.params.id);
    return reply.status(204).send(null);
  });

  app.delete('/managers/workers/:id/device', {
    config: manager,
    schema: {
      tags,
      summary: 'Reset a worker’s device binding',
      description: 'The worker’s next successful login (or device registration) binds the device it presents. Idempotent. To sign a lost phone out, also change the worker’s password (which revokes their tokens) or disable them.',
      params: IdParam,
      response: { 204: Deleted, ...errors(404) },
    },
  }, async (request, reply) => {
    await devices.reset(request.params.id);
    return reply.status(204).send(null);
  });

  app.post('/managers/workers/:id/unlock', {
    config: manager,
    schema: {
      tags,
      summary: 'End the lock failed sign-ins put on a worker',
      description:
        'The worker can sign in again at once; the failures counted so far are forgotten. Idempotent (a worker who is not locked stays so). ' +
        'The worker’s `lockedUntil` (lists and detail) says whether they are locked. A locked manager waits for the lock to end, or an operator runs `npm run reset-password -- timeclock <username>`.',
      params: IdParam,
      response: { 204: Deleted, ...errors(404) },
    },
  }, async (request, reply) => {
    await workers.unlock(request.params.id);
    return reply.status(204).send(null);
  });

  app.get('/managers/tags', {
    config: manager,
    schema: { tags: tagTags, summary: 'All tags, by name, with the number of workers holding each', response: { 200: Type.Array(Tag) } },
  }, async () => workers.listTags());

  app.post('/managers/tags', {
    config: manager,
    schema: {
      tags: tagTags, summary: 'Create a tag', description: 'Names are unique regardless of case (409 `CONFLICT`) and cannot contain commas.',
      body: TagBody, response: { 201: Tag, ...errors(409) },
    },
  }, async (request, reply) => reply.status(201).send(await workers.createTag(request.body.name)));

  app.patch('/managers/tags/:id', {
    config: manager,
    schema: { tags: tagTags, summary: 'Rename a tag', params: IdParam, body: TagBody, response: { 200: Tag, ...errors(404, 409) } },
  }, async (request) => workers.renameTag(request.params.id, request.body.name));

  app.delete('/managers/tags/:id', {
    config: manager,
    schema: { tags: tagTags, summary: 'Delete a tag (it is removed from every worker)', params: IdParam, response: { 204: Deleted, ...errors(404) } },
  }, async (request, reply) => {
    await workers.removeTag(request.params.id);
    return reply.status(204).send(null);
  });

  app.get('/workers/:id', {
    config: { access: 'user' },
    schema: {
      tags: ['Workers'],
      summary: 'A user’s record: the caller’s own, or anyone’s for managers',
      params: IdParam,
      response: { 200: PublicWorker, ...errors(403, 404) },
    },
  }, async (request) => {
    assertSelfOrManager(request, request.params.id);
    return workers.profile(request.params.id, localeOf(request));
  });
};
