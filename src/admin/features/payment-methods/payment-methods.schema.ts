import { Type } from 'typebox';
import { OrderByQuery, PagingQuery } from '../../../platform/http/schemas.ts';
import { Body, Envelope, ListEnvelope } from '../../http.ts';

export const PAYMENT_METHOD_ORDER_FIELDS = ['id', 'name', 'code', 'type', 'sort', 'created_at'] as const;
export type PaymentMethodOrderField = (typeof PAYMENT_METHOD_ORDER_FIELDS)[number];

const CODE_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.:-]*$';
type Extra = { default?: unknown };

const Name = Type.String({ minLength: 1, maxLength: 64, pattern: '\\S', description: '1 to 64 characters, not blank' });
const Code = Type.String({
  minLength: 1, maxLength: 64, pattern: CODE_PATTERN,
  description: 'letters, digits and _ . : - (1 to 64, starting with a letter or digit); unique, ignoring case',
});
const MethodType = Type.String({
  minLength: 1, maxLength: 32, pattern: CODE_PATTERN,
  description: 'kind of method (e.g. `online`, `offline`, `card`, `wallet`): letters, digits and _ . : -, 1 to 32',
});
const Config = Type.Object({}, {
  additionalProperties: true,
  maxProperties: 100,
  description: 'payment configuration, a JSON object (up to 100 keys at its top level). Values under keys that look secret (key, secret, password, token, private, credential, signature, cert, salt…) are masked as `******` in every reply and log; sending `******` back for such a key keeps the stored value.',
});
const IsActive = (x: Extra = {}) => Type.Boolean({ description: 'only active methods can take payments', ...x });
const Sort = (x: Extra = {}) => Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'ascending display order, 0..1000000; the active method with the lowest sort is the default', ...x });
const Description = (x: Extra = {}) => Type.String({ maxLength: 500, ...x });

export const PaymentMethodQuery = Type.Object({
  ...PagingQuery,
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'fuzzy (contains, ignoring case)' })),
  code: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'exact, ignoring case' })),
  type: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: 'exact' })),
  is_active: Type.Optional(Type.Enum(['1', '0', 'true', 'false'], { description: '"1" (or "true") active, "0" (or "false") inactive' })),
  order_by: OrderByQuery(PAYMENT_METHOD_ORDER_FIELDS, 'id:desc'),
});

export const CreatePaymentMethodBody = Body({
  name: Name,
  code: Code,
  type: MethodType,
  config: Config,
  is_active: Type.Optional(IsActive({ default: true })),
  sort: Type.Optional(Sort({ default: 0 })),
  description: Type.Optional(Description({ default: '' })),
});

export const UpdatePaymentMethodBody = Body({
  name: Name,
  code: Type.Optional(Code),
  type: Type.Optional(MethodType),
  config: Type.Optional(Config),
  is_active: Type.Optional(IsActive()),
  sort: Type.Optional(Sort()),
  description: Type.Optional(Description()),
});

export const PaymentMethodRecord = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  code: Type.String(),
  type: Type.String(),
  config: Type.Record(Type.String(), Type.Unknown(), { description: 'with secret values masked as `******`' }),
  is_active: Type.Boolean(),
  sort: Type.Integer(),
  description: Type.String(),
  created_at: Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }),
  updated_at: Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }),
});

export const PaymentMethodReply = Envelope(PaymentMethodRecord);
export const PaymentMethodList = ListEnvelope(PaymentMethodRecord);
export const PaymentMethodDeletedReply = Envelope(Type.Null());
