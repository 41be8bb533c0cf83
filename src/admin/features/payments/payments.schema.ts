import { Type } from 'typebox';
import { OrderByQuery, PagingQuery, TimeRangeQuery } from '../../../platform/http/schemas.ts';
import { PAYMENT_STATUSES } from '../../db/schema.ts';
import { Envelope, ListEnvelope } from '../../http.ts';

export const PAYMENT_ORDER_FIELDS = ['id', 'payment_no', 'order_no', 'user_id', 'amount', 'status', 'paid_at', 'created_at'] as const;
export type PaymentOrderField = (typeof PAYMENT_ORDER_FIELDS)[number];

const Id = (description?: string) => Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, ...(description ? { description } : {}) });
const Fuzzy = Type.String({ minLength: 1, maxLength: 32, description: 'fuzzy (contains)' });
const Time = (description: string) => Type.String({ description: `${description}, YYYY-MM-DD HH:mm:ss` });

export const PaymentListQuery = Type.Object({
  ...PagingQuery,
  payment_no: Type.Optional(Fuzzy),
  order_no: Type.Optional(Fuzzy),
  payment_method_id: Type.Optional(Id()),
  user_id: Type.Optional(Id()),
  status: Type.Optional(Type.Enum([...PAYMENT_STATUSES])),
  ...TimeRangeQuery,
  order_by: OrderByQuery(PAYMENT_ORDER_FIELDS, 'id:desc'),
});

/** A payment record as stored. */
export const PaymentFields = {
  id: Type.Integer(),
  payment_no: Type.String({ description: 'unique payment number' }),
  order_id: Type.Union([Type.Integer(), Type.Null()], { description: 'null once the order has been deleted' }),
  order_no: Type.String({ description: 'kept when the order is deleted' }),
  user_id: Type.Integer(),
  payment_method_id: Type.Integer(),
  amount: Type.Number({ description: 'money as a number with at most 2 decimals' }),
  status: Type.Enum([...PAYMENT_STATUSES]),
  paid_at: Type.Union([Time('when the money was received'), Type.Null()]),
  created_at: Time('created'),
  updated_at: Time('last changed'),
};

export const PaymentRecord = Type.Object({
  ...PaymentFields,
  payment_method_name: Type.String(),
  payment_method_code: Type.String(),
});

export const PaymentReply = Envelope(PaymentRecord);
export const PaymentList = ListEnvelope(PaymentRecord);
