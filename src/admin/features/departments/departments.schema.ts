import { Type } from 'typebox';
import { Body, Envelope } from '../../http.ts';
import { TranslationsBody, type LanguageValues } from '../../../platform/translations.ts';

const ID_MAX = Number.MAX_SAFE_INTEGER;
const SORT = { minimum: -2_147_483_648, maximum: 2_147_483_647 };

export interface DepartmentNode {
  id: number;
  parent_id: number;
  /** In the reader's language. */
  name: string;
  name_i18n: LanguageValues;
  leader: string;
  phone: string;
  email: string;
  status: number;
  sort: number;
  created_at: string;
  updated_at: string;
  children: DepartmentNode[];
}

/** Shared (registered with addSchema in the departments plugin) because the tree refers to itself. */
export const DepartmentNodeShared = {
  $id: 'DepartmentNode',
  type: 'object',
  properties: {
    id: { type: 'integer' },
    parent_id: { type: 'integer', description: '0 = root' },
    name: { type: 'string', description: 'in the reader’s language (Accept-Language); the seeded head office has both languages' },
    name_i18n: {
      type: 'object',
      description: 'the name in each language: `en-US` is the default value; `zh-CN` its own value, or null when it shows the default one',
      properties: { 'en-US': { type: 'string' }, 'zh-CN': { type: ['string', 'null'] } },
      required: ['en-US', 'zh-CN'],
    },
    leader: { type: 'string' },
    phone: { type: 'string' },
    email: { type: 'string' },
    status: { type: 'integer', description: '1 enabled, 0 disabled' },
    sort: { type: 'integer' },
    created_at: { type: 'string', description: 'YYYY-MM-DD HH:mm:ss' },
    updated_at: { type: 'string', description: 'YYYY-MM-DD HH:mm:ss' },
    children: { type: 'array', items: { $ref: 'DepartmentNode#' } },
  },
  required: ['id', 'parent_id', 'name', 'name_i18n', 'leader', 'phone', 'email', 'status', 'sort', 'created_at', 'updated_at', 'children'],
} as const;

export const DepartmentNodeSchema = Type.Unsafe<DepartmentNode>({ $ref: 'DepartmentNode#' });

type Opts = Record<string, unknown>;
const fields = {
  parent_id: (o: Opts = {}) => Type.Integer({ minimum: 0, maximum: ID_MAX, description: 'parent department; 0 = root', ...o }),
  name: (o: Opts = {}) => Type.String({ minLength: 1, maxLength: 64, pattern: '\\S', description: 'not blank; on update, the name in the writer’s language (see `name_i18n`)', ...o }),
  name_i18n: () => Type.Optional(TranslationsBody('name', Type.String({ minLength: 1, maxLength: 64, pattern: '\\S' }))),
  leader: (o: Opts = {}) => Type.String({ maxLength: 64, ...o }),
  phone: (o: Opts = {}) => Type.String({ maxLength: 32, ...o }),
  email: (o: Opts = {}) =>
    Type.Union([Type.Literal(''), Type.String({ format: 'email', maxLength: 128 })], { description: 'an email address, or empty', ...o }),
  status: (o: Opts = {}) => Type.Integer({ minimum: 0, maximum: 1, description: '1 enabled, 0 disabled', ...o }),
  sort: (o: Opts = {}) => Type.Integer({ ...SORT, description: 'ascending among siblings', ...o }),
};

export const DepartmentQuery = Type.Object({
  status: Type.Optional(Type.Integer({ minimum: 0, maximum: 1, description: 'only departments with this status (and their ancestors)' })),
  name: Type.Optional(Type.String({ maxLength: 64, description: 'fuzzy, over the name in every language; matching departments are shown with their ancestors' })),
});

export const DepartmentCreateBody = Body({
  name: fields.name(),
  name_i18n: fields.name_i18n(),
  parent_id: Type.Optional(fields.parent_id({ default: 0 })),
  leader: Type.Optional(fields.leader({ default: '' })),
  phone: Type.Optional(fields.phone({ default: '' })),
  email: Type.Optional(fields.email({ default: '' })),
  status: Type.Optional(fields.status({ default: 1 })),
  sort: Type.Optional(fields.sort({ default: 0 })),
});

/** Partial update: only the fields sent change (at least one). */
export const DepartmentUpdateBody = Body({
  name: Type.Optional(fields.name()),
  name_i18n: fields.name_i18n(),
  parent_id: Type.Optional(fields.parent_id()),
  leader: Type.Optional(fields.leader()),
  phone: Type.Optional(fields.phone()),
  email: Type.Optional(fields.email()),
  status: Type.Optional(fields.status()),
  sort: Type.Optional(fields.sort()),
});

export const DepartmentTreeReply = Envelope(
  Type.Object({
    list: Type.Array(DepartmentNodeSchema, { description: 'root departments, each with its children' }),
    total: Type.Integer({ description: 'number of departments in the tree, all levels' }),
  }),
);

export const DepartmentReply = Envelope(DepartmentNodeSchema);
export const NullReply = Envelope(Type.Null());
