import { Type } from 'typebox';
import { OrderByQuery, PagingQuery, TimeRangeQuery } from '../../../platform/http/schemas.ts';
import { PAYMENT_STATUSES } from '../../db/schema.ts';
import { CappedListEnvelope, Envelope } from '../../http.ts';
import { PaymentFields } from '../../kernel/payment-records.ts';

export const PAYMENT_ORDER_FIELDS = ['id', 'payment_no', 'order_no', 'user_id', 'amount', 'status', 'paid_at', 'created_at'] as const;
export type PaymentOrderField = (typeof PAYMENT_ORDER_FIELDS)[number];

const Id = (description?: string) => Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, ...(description ? { description } : {}) });
const Fuzzy = Type.String({ minLength: 1, maxLength: 32, description: 'fuzzy (contains)' });

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

export const PaymentRecord = Type.Object({
  ...PaymentFields,
  payment_method_name: Type.String(),
  payment_method_code: Type.String(),
});

export const PaymentReply = Envelope(PaymentRecord);
export const PaymentList = CappedListEnvelope(PaymentRecord);
