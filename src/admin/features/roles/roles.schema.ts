import { Type } from 'typebox';
import { DATA_SCOPES } from '../../db/schema.ts';
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
const REQUIRE_AUTHENTICATOR =
  'Whether the role requires an authenticator: an administrator holding it (while it is enabled) without one bound gets, at the next sign-in, ' +
  'a token good only for binding one (`must_bind_authenticator`, other routes 403 10011); sessions open at the time of the change are not affected.';

const DATA_SCOPE =
  'Which rows of the resources that belong to a department or an administrator its holders reach (administrators, orders, payments…; ' +
  'per resource in docs/API.md, "Data scopes"): `all`; `department_and_below`, the holder’s department and every one under it; ' +
  '`department`, the holder’s department; `custom`, the departments in `department_ids`; `self`, the holder’s own rows only. ' +
  'An administrator holding several roles reaches the union of their scopes, and always their own rows; the super administrator reaches all. ' +
  'A row outside the scope answers 404, on reads and writes. An administrator whose own scope is not `all` may set only `self`, ' +
  'or `custom` over departments they reach. Applies to the holders’ next request.';
const DataScope = Type.Enum([...DATA_SCOPES], { description: DATA_SCOPE });

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
  require_authenticator: Type.Optional(Type.Boolean({ description: REQUIRE_AUTHENTICATOR + ' Default false.' })),
  data_scope: Type.Optional({ ...DataScope, description: DATA_SCOPE + ' Default `all`.' }),
  department_ids: Type.Optional(IdList('department (of a `custom` data scope; ignored by the others)')),
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
  require_authenticator: Type.Boolean({ description: REQUIRE_AUTHENTICATOR }),
  data_scope: DataScope,
  department_ids: Type.Array(Type.Integer(), { description: 'the departments of a `custom` data scope (empty for the others), ascending' }),
  created_at: Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }),
  updated_at: Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }),
  permission_ids: Type.Array(Type.Integer()),
  menu_ids: Type.Array(Type.Integer()),
});

export const RoleReply = Envelope(RoleRecord);
export const RoleList = ListEnvelope(RoleRecord);
export const DeletedRoleReply = Envelope(Type.Object({ id: Type.Integer() }));
