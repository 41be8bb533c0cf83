import { Type } from 'typebox';
import { OrderByQuery, PagingQuery } from '../../../platform/http/schemas.ts';
import { Body, Envelope, ListEnvelope } from '../../http.ts';

export const BLACKLIST_ORDER_FIELDS = ['id', 'ip', 'status', 'created_at', 'updated_at'] as const;
export type BlacklistOrderField = (typeof BLACKLIST_ORDER_FIELDS)[number];

const Status = (description: string) => Type.Integer({ minimum: 0, maximum: 1, description });
const IpText = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'an IPv4 or IPv6 address, a CIDR block (`10.0.0.0/8`, `2001:db8::/32`) or a range `start-end` of one family; stored in canonical form',
  examples: ['203.0.113.7', '203.0.113.0/24', '198.51.100.10-198.51.100.20'],
});
const Remark = Type.String({ maxLength: 255 });

export const BlacklistQuery = Type.Object({
  ...PagingQuery,
  ip: Type.Optional(Type.String({ maxLength: 100, description: 'fuzzy, over the stored rule text' })),
  status: Type.Optional(Status('1 active, 0 inactive')),
  order_by: OrderByQuery(BLACKLIST_ORDER_FIELDS, 'id:desc'),
});

export const BlacklistRecord = Type.Object({
  id: Type.Integer(),
  ip: Type.String({ description: 'canonical rule text' }),
  remark: Type.String(),
  status: Type.Integer({ description: '1 active (blocks), 0 inactive' }),
  created_at: Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }),
  updated_at: Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }),
});

export const BlacklistList = ListEnvelope(BlacklistRecord);
export const BlacklistReply = Envelope(BlacklistRecord);

export const CreateBlacklistBody = Body({
  ip: IpText,
  remark: Type.Optional(Remark),
  status: Type.Optional(Status('1 active (default), 0 inactive')),
});

export const UpdateBlacklistBody = Type.Object(
  {
    ip: Type.Optional(IpText),
    remark: Type.Optional(Remark),
    status: Type.Optional(Status('1 active, 0 inactive')),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const BatchDeleteBody = Body({
  ids: Type.Array(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), { minItems: 1, maxItems: 100, uniqueItems: true }),
});

export const DeleteReply = Envelope(
  Type.Object({
    deleted: Type.Integer({ description: 'rules deleted by this call' }),
    not_found: Type.Array(Type.Integer(), { description: 'ids that did not exist' }),
  }),
);
