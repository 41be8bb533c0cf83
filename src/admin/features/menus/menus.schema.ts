import { Type } from 'typebox';
import { Body, Envelope } from '../../http.ts';
import { MenuNodeSchema } from '../../kernel/rbac.schema.ts';
import { TranslationsBody, TranslationsReply } from '../../../platform/translations.ts';

const ID_MAX = Number.MAX_SAFE_INTEGER;
const SORT = { minimum: -2_147_483_648, maximum: 2_147_483_647 };

type Opts = Record<string, unknown>;
const fields = {
  parent_id: (o: Opts = {}) => Type.Integer({ minimum: 0, maximum: ID_MAX, description: 'parent menu; 0 = root', ...o }),
  title: (o: Opts = {}) => Type.String({ minLength: 1, maxLength: 64, pattern: '\\S', description: 'not blank; on update, the title in the writer’s language (see `title_i18n`)', ...o }),
  title_i18n: () => Type.Optional(TranslationsBody('title', Type.String({ minLength: 1, maxLength: 64, pattern: '\\S' }))),
  slug: (o: Opts = {}) =>
    Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]*$', description: 'unique; letters, digits and `_ . : -`', ...o }),
  icon: (o: Opts = {}) => Type.String({ maxLength: 64, ...o }),
  path: (o: Opts = {}) => Type.String({ maxLength: 255, ...o }),
  component: (o: Opts = {}) => Type.String({ maxLength: 255, ...o }),
  type: (o: Opts = {}) => Type.Integer({ minimum: 1, maximum: 3, description: '1 directory, 2 menu, 3 button (a button has no children)', ...o }),
  status: (o: Opts = {}) => Type.Integer({ minimum: 0, maximum: 1, description: '1 enabled, 0 disabled', ...o }),
  sort: (o: Opts = {}) => Type.Integer({ ...SORT, description: 'ascending among siblings', ...o }),
};

export const MenuQuery = Type.Object({
  status: Type.Optional(Type.Integer({ minimum: 0, maximum: 1, description: 'only menus with this status (and their ancestors)' })),
  title: Type.Optional(Type.String({ maxLength: 64, description: 'fuzzy, over the title in every language; matching menus are shown with their ancestors' })),
});

export const MenuCreateBody = Body({
  parent_id: Type.Optional(fields.parent_id({ default: 0 })),
  title: fields.title(),
  title_i18n: fields.title_i18n(),
  slug: fields.slug(),
  icon: Type.Optional(fields.icon({ default: '' })),
  path: Type.Optional(fields.path({ default: '' })),
  component: Type.Optional(fields.component({ default: '' })),
  type: fields.type(),
  status: Type.Optional(fields.status({ default: 1 })),
  sort: Type.Optional(fields.sort({ default: 0 })),
});

/** Partial update: only the fields sent change (at least one). */
export const MenuUpdateBody = Body({
  parent_id: Type.Optional(fields.parent_id()),
  title: Type.Optional(fields.title()),
  title_i18n: fields.title_i18n(),
  slug: Type.Optional(fields.slug()),
  icon: Type.Optional(fields.icon()),
  path: Type.Optional(fields.path()),
  component: Type.Optional(fields.component()),
  type: Type.Optional(fields.type()),
  status: Type.Optional(fields.status()),
  sort: Type.Optional(fields.sort()),
});

/** One menu with its timestamps and its subtree. */
export const MenuRecord = Type.Object({
  id: Type.Integer(),
  parent_id: Type.Integer({ description: '0 = root' }),
  title: Type.String({ description: 'in the reader’s language (Accept-Language)' }),
  title_i18n: TranslationsReply('title'),
  slug: Type.String(),
  icon: Type.String(),
  path: Type.String(),
  component: Type.String(),
  type: Type.Integer({ description: '1 directory, 2 menu, 3 button' }),
  status: Type.Integer(),
  sort: Type.Integer(),
  created_at: Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }),
  updated_at: Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }),
  children: Type.Array(MenuNodeSchema),
});

export const MenuTreeReply = Envelope(
  Type.Object({
    list: Type.Array(MenuNodeSchema, { description: 'root menus, each with its children' }),
    total: Type.Integer({ description: 'number of menus in the tree, all levels' }),
  }),
);

export const MenuReply = Envelope(MenuRecord);
export const NullReply = Envelope(Type.Null());
