import { Type } from 'typebox';
import { OrderByQuery, PagingQuery, TimeRangeQuery } from '../../../platform/http/schemas.ts';
import { ORDER_STATUSES } from '../../db/schema.ts';
import { Body, CappedListEnvelope, Envelope } from '../../http.ts';
import { PaymentFields } from '../../kernel/payment-records.ts';
import { MAX_PRODUCTS, PRODUCT_NAME_MAX, REQUEST_ID_PATTERN } from './orders.rules.ts';

export const ORDER_ORDER_FIELDS = ['id', 'order_no', 'user_id', 'amount', 'status', 'created_at', 'updated_at', 'paid_at'] as const;
export type OrderOrderField = (typeof ORDER_ORDER_FIELDS)[number];

const Id = (description?: string) => Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, ...(description ? { description } : {}) });
/** The largest amount `numeric(12,2)` holds. */
const AMOUNT_MAX = 9_999_999_999.99;
const Money = (description: string) => Type.Number({ minimum: 0, maximum: AMOUNT_MAX, description: `${description}; at most 2 decimals` });
const OrderNo = Type.String({ minLength: 1, maxLength: 32, pattern: '^[A-Za-z0-9_-]+$', description: 'order number (exact)' });
const Status = Type.Enum([...ORDER_STATUSES]);

export const ProductItem = Type.Object({
  product_id: Id(),
  product_name: Type.String({ minLength: 1, maxLength: PRODUCT_NAME_MAX, pattern: '\\S', description: `1 to ${PRODUCT_NAME_MAX} characters, not blank` }),
  price: Money('unit price ≥ 0'),
  quantity: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
}, { additionalProperties: false });

export const CreateOrderBody = Body({
  user_id: Id('the customer'),
  amount: Money('must equal the sum of price × quantity to the cent'),
  products: Type.Array(ProductItem, { minItems: 1, maxItems: MAX_PRODUCTS, description: `1 to ${MAX_PRODUCTS} items` }),
  request_id: Type.Optional(Type.String({
    minLength: 1,
    maxLength: 64,
    pattern: REQUEST_ID_PATTERN,
    description: 'idempotency key, 1 to 64 printable ASCII characters without spaces (a UUID, say); generated when omitted. A second order with the same request_id is refused (30002).',
  })),
});

/** The filters of the list (and of the CSV export). */
export const OrderFilterQuery = {
  user_id: Type.Optional(Id()),
  order_no: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: 'fuzzy (contains)' })),
  status: Type.Optional(Status),
  min_amount: Type.Optional(Type.Number({ minimum: 0, maximum: AMOUNT_MAX, description: 'amount ≥ this' })),
  max_amount: Type.Optional(Type.Number({ minimum: 0, maximum: AMOUNT_MAX, description: 'amount ≤ this' })),
  ...TimeRangeQuery,
};

export const OrderListQuery = Type.Object({
  ...PagingQuery,
  ...OrderFilterQuery,
  order_by: OrderByQuery(ORDER_ORDER_FIELDS, 'id:desc'),
});

/** GET /orders/export: the list's filters and order, without paging. */
export const OrderExportQuery = Type.Object({
  ...OrderFilterQuery,
  order_by: OrderByQuery(ORDER_ORDER_FIELDS, 'id:desc'),
});

/** Path `id` of GET/PUT/DELETE /orders/{id}: a positive id, or `0`/`-` when `order_no` is given. */
export const OrderIdParam = Type.Object({
  id: Type.String({
    pattern: '^(0|-|[1-9][0-9]{0,15})$',
    description: 'the order id; any of `0` or `-` when the `order_no` query parameter is given (which is then used instead)',
  }),
});

export const OrderLookupQuery = Type.Object({
  order_no: Type.Optional(OrderNo),
});

export const UpdateOrderBody = Body({
  status: Type.Enum([...ORDER_STATUSES], { description: 'the new status: `paid` or `cancelled` (from `pending` only)' }),
  payment_method_id: Type.Optional(Id('with `paid`: the active payment method used; omitted: the active method with the lowest `sort`, then id')),
});

export const OrderRecord = Type.Object({
  id: Type.Integer(),
  order_no: Type.String(),
  request_id: Type.String(),
  user_id: Type.Integer(),
  amount: Type.Number({ description: 'money as a number with at most 2 decimals' }),
  status: Status,
  created_by: Type.Union([Type.Integer(), Type.Null()], { description: 'the administrator who created it (null for imported or seeded orders)' }),
  created_by_name: Type.Union([Type.String(), Type.Null()], {
    description: 'that administrator’s nickname (the username when the nickname is empty); null when created_by is null or the administrator was deleted',
  }),
  paid_at: Type.Union([Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }), Type.Null()]),
  created_at: Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }),
  updated_at: Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }),
});

export const OrderDetailRecord = Type.Object({
  id: Type.Integer(),
  order_id: Type.Integer(),
  product_id: Type.Integer(),
  product_name: Type.String(),
  price: Type.Number({ description: 'unit price' }),
  quantity: Type.Integer(),
});

export const OrderWithDetails = Type.Object({ order: OrderRecord, details: Type.Array(OrderDetailRecord) });

export const OrderReply = Envelope(OrderWithDetails);
export const OrderList = CappedListEnvelope(OrderRecord);
export const OrderUpdateReply = Envelope(Type.Object({
  order: OrderRecord,
  details: Type.Array(OrderDetailRecord),
  payment: Type.Union([Type.Object(PaymentFields), Type.Null()], { description: 'the payment record created when the order was marked paid; otherwise null' }),
}));
export const OrderDeletedReply = Envelope(Type.Object({
  id: Type.Integer(),
  order_no: Type.String(),
  details_deleted: Type.Integer({ description: 'detail rows deleted with the order' }),
}));
