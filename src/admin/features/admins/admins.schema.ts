import { Type } from 'typebox';
import { DisplayTime, OrderByQuery, PagingQuery, TimeRangeQuery } from '../../../platform/http/schemas.ts';
import { Body, Envelope, ListEnvelope } from '../../http.ts';
import { AdminIdentityFields, PASSWORD_RULE } from '../../kernel/admin-identity.schema.ts';
import { AUTHENTICATOR_CODE } from '../../kernel/second-factor.ts';

export const ADMIN_ORDER_FIELDS = ['id', 'username', 'created_at', 'last_login_at', 'status'] as const;
export type AdminOrderField = (typeof ADMIN_ORDER_FIELDS)[number];

const Id = (description?: string) => Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, ...(description ? { description } : {}) });

export const AdminListQuery = Type.Object({
  ...PagingQuery,
  username: Type.Optional(Type.String({ maxLength: 64, description: 'fuzzy' })),
  nickname: Type.Optional(Type.String({ maxLength: 64, description: 'fuzzy' })),
  status: Type.Optional(Type.Integer({ minimum: 0, maximum: 1, description: '1 enabled, 0 disabled' })),
  role_id: Type.Optional(Id('administrators holding this role')),
  department_id: Type.Optional(Id('administrators of this department')),
  ...TimeRangeQuery,
  order_by: OrderByQuery(ADMIN_ORDER_FIELDS, 'id:desc'),
});

/**
 * Every field of the create and update requests, declared once: create requires `username`
 * and `password`, update changes only the fields sent and never the username.
 */
const AdminFields = Type.Object({
  username: Type.String({
    minLength: 3,
    maxLength: 64,
    pattern: '^[A-Za-z0-9._-]+$',
    description: '3 to 64 letters, digits, `.`, `_` or `-`; unique, case-insensitive',
  }),
  nickname: Type.String({ maxLength: 64 }),
  email: Type.Union([Type.Literal(''), Type.String({ format: 'email', maxLength: 128 })], { description: 'an e-mail address, or empty' }),
  phone: Type.String({ maxLength: 32, pattern: '^[0-9+() -]*$', description: 'digits, spaces, `+`, `-`, parentheses' }),
  avatar: Type.String({ maxLength: 512, description: 'image URL, may be empty' }),
  department_id: Type.Union([Id(), Type.Null()], { description: 'an existing department, or null for none' }),
  status: Type.Union([Type.Literal(1), Type.Literal(0), Type.Literal('1'), Type.Literal('0')], {
    description: '1 enabled, 0 disabled (integer or the strings "1"/"0")',
  }),
  password: Type.String(PASSWORD_RULE),
  role_ids: Type.Array(Id(), { maxItems: 100, uniqueItems: true, description: 'existing roles; replaces the current ones' }),
});

export const CreateAdminBody = Body({
  ...Type.Pick(AdminFields, ['username', 'password']).properties,
  ...Type.Partial(Type.Omit(AdminFields, ['username', 'password'])).properties,
});

export const UpdateAdminBody = Body({
  ...Type.Partial(Type.Omit(AdminFields, ['username'])).properties,
  password: Type.Optional(Type.String({ ...PASSWORD_RULE, description: `${PASSWORD_RULE.description}; omitted: unchanged` })),
});

export const ResetPasswordBody = Body({
  password: Type.String({ ...PASSWORD_RULE, description: `${PASSWORD_RULE.description}, and what the password policy asks (GET /password-policy)` }),
});

export const UnbindOtherBody = Body({
  code: Type.String({ ...AUTHENTICATOR_CODE, description: 'the caller’s own current 6-digit authenticator code (spaces ignored); wrong, reused or malformed: 400, 10010' }),
});

export const AdminRecord = Type.Object({
  ...AdminIdentityFields,
  status: Type.Integer({ description: '1 enabled, 0 disabled' }),
  is_2fa_bound: Type.Boolean(),
  created_at: Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }),
  updated_at: Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }),
  last_login_at: Type.Union([Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }), Type.Null()]),
  locked_until: Type.Union([Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }), Type.Null()], {
    description: 'until when failed sign-ins lock the account (the password policy’s lockout; `POST /admins/{id}/unlock` ends it); null: not locked',
  }),
  data_scope: Type.Object({
    all: Type.Boolean({ description: 'reaches every row (a role with the scope `all`, or the super-administrator role)' }),
    department_ids: Type.Array(Type.Integer(), {
      description: 'otherwise, the departments whose rows they reach (the departments under one included, ascending); their own rows always',
    }),
  }, { description: 'The effective data scope: the union of the enabled roles’ scopes (docs/API.md, "Data scopes")' }),
});

export const AdminReply = Envelope(AdminRecord);
export const AdminList = ListEnvelope(AdminRecord);
export const NullReply = Envelope(Type.Null());

const Flag = (description: string) => Type.Optional(Type.Union([Type.Literal('1'), Type.Literal('0')], { description }));
const IdString = (description: string) =>
  Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,15}$', description: `${description} (an integer id, as a string)` }));

/** The contract's administrator export request: every field an optional string. */
export const AdminExportBody = Body({
  username: Type.Optional(Type.String({ maxLength: 64, description: 'fuzzy' })),
  status: Flag('"1" enabled, "0" disabled'),
  role_id: IdString('administrators holding this role'),
  department_id: IdString('administrators of this department'),
  is_2fa_bound: Flag('"1" authenticator bound, "0" not bound'),
  start_time: Type.Optional(DisplayTime('created from (inclusive)')),
  end_time: Type.Optional(DisplayTime('created until (inclusive)')),
  order_by: Type.Optional(Type.String({
    enum: ['id:asc', 'id:desc'],
    description: 'row order of the file: `id:asc` (default) or `id:desc` (exports are read by keyset on id)',
  })),
});
