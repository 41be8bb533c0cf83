import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FeatureOptions } from '../../context.ts';
import { audited } from '../../kernel/audit.ts';
import { ErrorEnvelope, IdParam, ok } from '../../http.ts';
import { localeOf } from '../../../platform/http/conventions.ts';
import { MenuCreateBody, MenuQuery, MenuReply, MenuTreeReply, MenuUpdateBody, NullReply } from './menus.schema.ts';

const tags = ['Menus'];

export const menusRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const { menus } = ctx;
  const audit = audited('menu', (id, request) => menus.get(id, localeOf(request)));

  app.get('/menus', {
    config: { permission: 'menu.list' },
    schema: {
      tags,
      summary: 'The menu tree',
      description:
        '`data.list` holds the root menus, each with its `children`, siblings ordered by `sort` then id; `data.total` counts the menus at all levels. ' +
        '`title` is in the reader’s language (Accept-Language) and `title_i18n` gives every language’s value, for the edit form. ' +
        'With `status` or `title`, the matching menus are returned with their ancestors, so that the tree stays connected.',
      querystring: MenuQuery,
      response: { 200: MenuTreeReply },
    },
  }, async (request) => ok(request, await menus.tree(request.query, localeOf(request))));

  app.post('/menus', {
    config: { permission: 'menu.create', audit },
    schema: {
      tags,
      summary: 'Create a menu',
      description: 'The parent must be 0 (root) or an existing menu that is not a button (type 3). A duplicate `slug` is 30002.',
      body: MenuCreateBody,
      response: { 200: MenuReply },
    },
  }, async (request) => ok(request, await menus.create(request.body, localeOf(request))));

  app.get('/menus/:id', {
    config: { permission: 'menu.list' },
    schema: {
      tags,
      summary: 'One menu with its subtree',
      params: IdParam,
      response: { 200: MenuReply, 404: ErrorEnvelope },
    },
  }, async (request) => ok(request, await menus.get(request.params.id, localeOf(request))));

  app.put('/menus/:id', {
    config: { permission: 'menu.update', audit },
    schema: {
      tags,
      summary: 'Update a menu (only the fields sent change)',
      description:
        'A new parent must exist, must not be a button, and must not be the menu itself or one of its descendants (30001). ' +
        'A menu with children cannot become a button (30001). A status change shows in `GET /info` on the next request.',
      params: IdParam,
      body: MenuUpdateBody,
      response: { 200: MenuReply, 404: ErrorEnvelope },
    },
  }, async (request) => ok(request, await menus.update(request.params.id, request.body, localeOf(request))));

  app.delete('/menus/:id', {
    config: { permission: 'menu.delete', audit },
    schema: {
      tags,
      summary: 'Delete a menu without children',
      description: 'A menu that still has children is refused (40002). Roles lose the menu; its permissions remain, no longer linked to a menu.',
      params: IdParam,
      response: { 200: NullReply, 404: ErrorEnvelope },
    },
  }, async (request) => {
    await menus.remove(request.params.id);
    return ok(request, null);
  });
};
