import { Type } from 'typebox';
import type { MenuNode } from './rbac.ts';

/** Shared (registered with addSchema) because the tree refers to itself. */
export const MenuNodeShared = {
  $id: 'MenuNode',
  type: 'object',
  properties: {
    id: { type: 'integer' },
    parent_id: { type: 'integer', description: '0 = root' },
    title: { type: 'string', description: 'in the reader’s language (Accept-Language)' },
    title_i18n: {
      type: 'object',
      description: 'the title in each language: `en-US` is the default value; `zh-CN` its own value, or null when it shows the default one (seeded menus have both; see PUT /menus/{id})',
      properties: { 'en-US': { type: 'string' }, 'zh-CN': { type: ['string', 'null'] } },
      required: ['en-US', 'zh-CN'],
    },
    slug: { type: 'string' },
    icon: { type: 'string' },
    path: { type: 'string' },
    component: { type: 'string' },
    type: { type: 'integer', description: '1 directory, 2 menu, 3 button' },
    status: { type: 'integer' },
    sort: { type: 'integer' },
    children: { type: 'array', items: { $ref: 'MenuNode#' } },
  },
  required: ['id', 'parent_id', 'title', 'title_i18n', 'slug', 'type', 'status', 'sort', 'children'],
} as const;

export const MenuNodeSchema = Type.Unsafe<MenuNode>({ $ref: 'MenuNode#' });
