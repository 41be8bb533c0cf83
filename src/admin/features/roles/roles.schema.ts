import { Type } from 'typebox';
import { OrderByQuery, PagingQuery } from '../../../platform/http/schemas.ts';
import { Body, Envelope, ListEnvelope } from '../../http.ts';
import { TranslationsBody, TranslationsReply } from '../../../platform/translations.ts';

export const ROLE_ORDER_FIELDS = ['id', 'name', 'slug', 'status', 'sort', 'created_at', 'updated_at'] as const;
export type RoleOrderField = (typeof ROLE_ORDER_FIELDS)[number];

const Status = Type.Integer({ minimum: 0, maximum: 1, description: '1 enabled, 0 disabled' });
const IdList = (what: string) =>
  Type.Array(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), {
    uniqueItems: true,
    maxItems: 1000,
    description: `${what} ids; the whole set (replaces the previous one on update)`,
  });

export const RoleQuery = Type.Object({
  ...PagingQuery,
  name: Type.Optional(Type.String({ maxLength: 64, description: 'fuzzy, over the name in every language' })),
  status: Type.Optional(Status),
  order_by: Type.Optional(OrderByQuery(ROLE_ORDER_FIELDS, 'id:desc')),
});

const Name = Type.String({ minLength: 1, maxLength: 64, pattern: '\\S' });
const Slug = Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z][a-z0-9_-]*$', description: 'lower case letters, digits, _ and -; unique' });
const Description = Type.String({ maxLength: 255 });
const Sort = Type.Integer({ minimum: -1_000_000, maximum: 1_000_000 });

export const CreateRoleBody = Body({
  name: { ...Name, description: 'on update, the name in the writer’s language (Accept-Language; see `name_i18n`)' },
  name_i18n: Type.Optional(TranslationsBody('name', Name)),
  slug: Slug,
  description: Type.Optional({ ...Description, description: 'on update, in the writer’s language (see `description_i18n`)' }),
  description_i18n: Type.Optional(TranslationsBody('description', Description)),
  permission_ids: Type.Optional(IdList('permission')),
  menu_ids: Type.Optional(IdList('menu')),
  status: Type.Optional(Status),
  sort: Type.Optional(Sort),
});

/** Every field of the create body, optional: only the fields sent change. */
export const UpdateRoleBody = Body(Type.Partial(CreateRoleBody).properties);

export const RoleRecord = Type.Object({
  id: Type.Integer(),
  name: Type.String({ description: 'in the reader’s language (Accept-Language); the seeded super-administrator role has both languages' }),
  name_i18n: TranslationsReply('name'),
  slug: Type.String(),
  description: Type.String({ description: 'in the reader’s language' }),
  description_i18n: TranslationsReply('description'),
  status: Type.Integer(),
  sort: Type.Integer(),
  is_system: Type.Boolean({ description: 'the super-administrator role: cannot be deleted, disabled or re-slugged' }),
  created_at: Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }),
  updated_at: Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }),
  permission_ids: Type.Array(Type.Integer()),
  menu_ids: Type.Array(Type.Integer()),
});

export const RoleReply = Envelope(RoleRecord);
export const RoleList = ListEnvelope(RoleRecord);
export const DeletedRoleReply = Envelope(Type.Object({ id: Type.Integer() }));
