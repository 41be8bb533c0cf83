import { localeOf } from '../../../platform/http/conventions.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FeatureOptions } from '../../context.ts';
import { audited } from '../../kernel/audit.ts';
import { ErrorEnvelope, IdParam, ok, okList } from '../../http.ts';
import {
  DeletedReply,
  DictionaryCreateBody,
  DictionaryList,
  DictionaryQuery,
  DictionaryReply,
  DictionaryUpdateBody,
} from './dictionaries.schema.ts';
import { renderDictionary } from './dictionaries.view.ts';

const tags = ['Dictionaries'];

export const dictionariesRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const tz = ctx.platform.config.DISPLAY_TIMEZONE;
  const service = ctx.dictionaries;
  const audit = audited('dictionary', async (id, request) => renderDictionary(await service.get(id), tz, localeOf(request)));

  app.get('/dictionaries', {
    config: { permission: 'dictionary.list' },
    schema: {
      tags,
      summary: 'List dictionary types and items',
      description: [
        'A dictionary type has `parent_id` 0; its items have `parent_id` = the type’s id.',
        '`parent_id=0` lists the types; `type_code=<code>` lists the items of the type with that code (ignoring case) in one call, an unknown code giving an empty list.',
        '`name` and `code` are fuzzy (case-insensitive); filters combine with AND.',
        'Default order `id:desc` as for every list; a front end showing one dictionary usually asks `order_by=sort:asc` (ties by id).',
      ].join(' '),
      querystring: DictionaryQuery,
      response: { 200: DictionaryList },
    },
  }, async (request) => {
    const { rows, total } = await service.list(request.query);
    return okList(request, rows.map((r) => renderDictionary(r, tz, localeOf(request))), request.query, total);
  });

  app.get('/dictionaries/:id', {
    config: { permission: 'dictionary.list' },
    schema: { tags, summary: 'One dictionary type or item', params: IdParam, response: { 200: DictionaryReply, 404: ErrorEnvelope } },
  }, async (request) => ok(request, renderDictionary(await service.get(request.params.id), tz, localeOf(request))));

  app.post('/dictionaries', {
    config: { permission: 'dictionary.create', audit },
    schema: {
      tags,
      summary: 'Create a dictionary type or item',
      description: [
        '`parent_id` 0 (default) creates a type; otherwise it must be the id of an existing type (items do not nest), else 400 30001.',
        '`code` is unique, ignoring case, among the types and among the items of one type: a duplicate is 400 30002.',
        'Defaults: `value` and `description` empty, `status` 1, `sort` 0.',
      ].join(' '),
      body: DictionaryCreateBody,
      response: { 200: DictionaryReply },
    },
  }, async (request) => ok(request, renderDictionary(await service.create(request.body, localeOf(request)), tz, localeOf(request))));

  app.put('/dictionaries/:id', {
    config: { permission: 'dictionary.update', audit },
    schema: {
      tags,
      summary: 'Change a dictionary type or item',
      description: [
        'Partial update: only the fields sent change (at least one). The rules of creation apply to the result.',
        'An item can move to another type, or become a type (`parent_id` 0); a type can become an item only while it has no items.',
      ].join(' '),
      params: IdParam,
      body: DictionaryUpdateBody,
      response: { 200: DictionaryReply, 404: ErrorEnvelope },
    },
  }, async (request) => ok(request, renderDictionary(await service.update(request.params.id, request.body, localeOf(request)), tz, localeOf(request))));

  app.delete('/dictionaries/:id', {
    config: { permission: 'dictionary.delete', audit },
    schema: {
      tags,
      summary: 'Delete a dictionary item, or a type without items',
      description: 'A type that still has items is not deleted: 400 40002 (delete its items first).',
      params: IdParam,
      response: { 200: DeletedReply, 404: ErrorEnvelope },
    },
  }, async (request) => {
    await service.remove(request.params.id);
    return ok(request, null);
  });
};
