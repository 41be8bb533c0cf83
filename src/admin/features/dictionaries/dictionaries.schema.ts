import { Type } from 'typebox';
import { OrderByQuery, PagingQuery } from '../../../platform/http/schemas.ts';
import { Body, Envelope, ListEnvelope } from '../../http.ts';
import { TranslationsBody, TranslationsReply } from '../../../platform/translations.ts';

const ID_MAX = Number.MAX_SAFE_INTEGER;
export const CODE_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.:-]*$';
/** PostgreSQL text cannot hold NUL: refused here rather than failing in the database. */

type Extra = { default?: unknown };
const ParentId = (x: Extra = {}) => Type.Integer({ minimum: 0, maximum: ID_MAX, description: '0 for a dictionary type, else the id of the type this item belongs to', ...x });
const Name = Type.String({ minLength: 1, maxLength: 64, pattern: '\\S', description: '1 to 64 characters, not blank' });
const Code = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: CODE_PATTERN,
  description: 'letters, digits and _ . : - (1 to 64, starting with a letter or digit); unique, ignoring case, among the types or among the items of one type',
});
const Value = (x: Extra = {}) => Type.String({ maxLength: 255, description: 'the stored value an item stands for (up to 255 characters)', ...x });
const Description = (x: Extra = {}) => Type.String({ maxLength: 255, ...x });
const Status = (x: Extra = {}) => Type.Integer({ minimum: 0, maximum: 1, description: '1 enabled, 0 disabled', ...x });
const Sort = (x: Extra = {}) => Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'ascending display order, 0..1000000', ...x });

export const DICTIONARY_ORDER_FIELDS = ['id', 'sort', 'code', 'created_at'] as const;
export type DictionaryOrderField = (typeof DICTIONARY_ORDER_FIELDS)[number];

export const DictionaryQuery = Type.Object({
  ...PagingQuery,
  parent_id: Type.Optional(Type.Integer({ minimum: 0, maximum: ID_MAX, description: '0: the types; a type id: its items' })),
  type_code: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: CODE_PATTERN, description: 'code of a type (ignoring case): that type’s items; an unknown code gives an empty list' })),
  name: Type.Optional(Type.String({ maxLength: 64, description: 'fuzzy, over the name in every language' })),
  code: Type.Optional(Type.String({ maxLength: 64, description: 'fuzzy' })),
  status: Type.Optional(Status()),
  order_by: OrderByQuery(DICTIONARY_ORDER_FIELDS, 'id:desc'),
});

export const DictionaryCreateBody = Body({
  parent_id: Type.Optional(ParentId({ default: 0 })),
  name: { ...Name, description: '1 to 64 characters, not blank; on update, the name in the writer’s language (see `name_i18n`)' },
  name_i18n: Type.Optional(TranslationsBody('name', Name)),
  code: Code,
  value: Type.Optional(Value({ default: '' })),
  description: Type.Optional(Description({ default: '' })),
  description_i18n: Type.Optional(TranslationsBody('description', Description())),
  status: Type.Optional(Status({ default: 1 })),
  sort: Type.Optional(Sort({ default: 0 })),
});

export const DictionaryUpdateBody = Body({
  parent_id: Type.Optional(ParentId()),
  name: Type.Optional(Name),
  name_i18n: Type.Optional(TranslationsBody('name', Name)),
  code: Type.Optional(Code),
  value: Type.Optional(Value()),
  description: Type.Optional(Description()),
  description_i18n: Type.Optional(TranslationsBody('description', Description())),
  status: Type.Optional(Status()),
  sort: Type.Optional(Sort()),
});

export const Dictionary = Type.Object({
  id: Type.Integer(),
  parent_id: Type.Integer({ description: '0 for a dictionary type' }),
  name: Type.String({ description: 'in the reader’s language (Accept-Language); the seeded types and items have both languages' }),
  name_i18n: TranslationsReply('name'),
  code: Type.String(),
  value: Type.String(),
  description: Type.String({ description: 'in the reader’s language' }),
  description_i18n: TranslationsReply('description'),
  status: Type.Integer({ description: '1 enabled, 0 disabled' }),
  sort: Type.Integer(),
  created_at: Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }),
  updated_at: Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }),
});

export const DictionaryReply = Envelope(Dictionary);
export const DictionaryList = ListEnvelope(Dictionary);
export const DeletedReply = Envelope(Type.Null());
