// The rules of an order's input (DESIGN §7.8), shared by POST /orders and the CSV import, and
// the order-number generator. Money is handled as integer cents parsed from the decimal text
// of the value, never through binary floating-point arithmetic.
import { randomInt } from 'node:crypto';
import { msg, type Msg } from '../../../platform/i18n.ts';

/** Largest value of a numeric(12,2) column, in cents. */
export const MAX_CENTS = 999_999_999_999n;
export const MAX_PRODUCTS = 1000;
export const PRODUCT_NAME_MAX = 200;
export const REQUEST_ID_PATTERN = '^[\\x21-\\x7E]{1,64}$';
const REQUEST_ID_RE = new RegExp(REQUEST_ID_PATTERN);
const MONEY_RE = /^(\d{1,10})(?:\.(\d{1,2}))?$/;
const INT_RE = /^[1-9]\d{0,15}$/;
const QUANTITY_MAX = 2_147_483_647;

/**
 * Integer cents of a money value given as a JSON number or as decimal text ("12.5", "12.50"),
 * or null when it is negative, not finite, has more than 2 decimals or exceeds numeric(12,2).
 * A JSON number is read through its shortest decimal representation (12.35 → "12.35"),
 * which is exactly what the client wrote for any value with at most 2 decimals.
 */
export function toCents(value: unknown): bigint | null {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : typeof value === 'string' ? value.trim() : '';
  const m = MONEY_RE.exec(text);
  if (!m) return null;
  const cents = BigInt(m[1]!) * 100n + BigInt((m[2] ?? '').padEnd(2, '0'));
  return cents <= MAX_CENTS ? cents : null;
}

/** `1234` cents → `"12.34"` (the text PostgreSQL numeric accepts and returns). */
export function centsText(cents: bigint): string {
  const s = cents.toString().padStart(3, '0');
  return `${s.slice(0, -2)}.${s.slice(-2)}`;
}

/** A positive integer given as a JSON number or as digits, or null. */
function toPositiveInt(value: unknown, max = Number.MAX_SAFE_INTEGER): number | null {
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string' && INT_RE.test(value.trim())) n = Number(value.trim());
  else return null;
  return Number.isSafeInteger(n) && n >= 1 && n <= max ? n : null;
}

export interface OrderItemInput {
  product_id: number;
  product_name: string;
  price: string;
  quantity: number;
}

export interface NormalizedOrder {
  user_id: number;
  /** Decimal text with 2 decimals. */
  amount: string;
  request_id: string | undefined;
  products: OrderItemInput[];
}

/**
 * Checks one order's input with the rules of POST /orders and returns its normalised form, or
 * the problems found (human-readable, each naming the field). Numbers may also be given as
 * text (CSV cells): `"12.50"` for a price, `"3"` for a quantity.
 */
export function checkOrder(input: { user_id: unknown; amount: unknown; products: unknown; request_id?: unknown }):
  { ok: true; order: NormalizedOrder } | { ok: false; problems: Msg[] } {
  const problems: Msg[] = [];
  const userId = toPositiveInt(input.user_id);
  if (userId === null) problems.push(msg('admin.orders.invalidUserId'));
  const amount = toCents(input.amount);
  if (amount === null) problems.push(msg('admin.orders.invalidAmount'));
  let requestId: string | undefined;
  if (input.request_id !== undefined && input.request_id !== null && input.request_id !== '') {
    if (typeof input.request_id !== 'string' || !REQUEST_ID_RE.test(input.request_id)) {
      problems.push(msg('admin.orders.invalidRequestId'));
    } else {
      requestId = input.request_id;
    }
  }
  const products: OrderItemInput[] = [];
  let total = 0n;
  if (!Array.isArray(input.products) || input.products.length === 0 || input.products.length > MAX_PRODUCTS) {
    problems.push(msg('admin.orders.invalidProducts', { MAX_PRODUCTS }));
  } else {
    input.products.forEach((raw: unknown, i) => {
      const at = `products[${i}]`;
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
        problems.push(msg('admin.orders.invalidProduct', { at }));
        return;
      }
      const item = raw as Record<string, unknown>;
      const unknownKeys = Object.keys(item).filter((k) => !['product_id', 'product_name', 'price', 'quantity'].includes(k));
      if (unknownKeys.length > 0) problems.push(msg('admin.orders.unknownProductFields', { at, unknownKeys }));
      const productId = toPositiveInt(item.product_id);
      if (productId === null) problems.push(msg('admin.orders.invalidProductId', { at }));
      const name = item.product_name;
      const nameOk = typeof name === 'string' && name.trim().length > 0 && [...name].length <= PRODUCT_NAME_MAX;
      if (!nameOk) problems.push(msg('admin.orders.invalidProductName', { at, PRODUCT_NAME_MAX }));
      const price = toCents(item.price);
      if (price === null) problems.push(msg('admin.orders.invalidPrice', { at }));
      const quantity = toPositiveInt(item.quantity, QUANTITY_MAX);
      if (quantity === null) problems.push(msg('admin.orders.invalidQuantity', { at }));
      if (productId !== null && nameOk && price !== null && quantity !== null) {
        total += price * BigInt(quantity);
        products.push({ product_id: productId, product_name: name, price: centsText(price), quantity });
      }
    });
  }
  if (problems.length === 0 && amount !== total) {
    problems.push(msg('admin.orders.amountNotSum', { value: centsText(amount!), value2: centsText(total) }));
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, order: { user_id: userId!, amount: centsText(amount!), request_id: requestId, products } };
}

/**
 * Problems of one order input under the rules of POST /orders (empty when it is valid).
 * Used by the CSV import; numbers may be given as text.
 */
export function orderProblems(input: { user_id: unknown; amount: unknown; products: unknown; request_id?: unknown }): Msg[] {
  const r = checkOrder(input);
  return r.ok ? [] : r.problems;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/**
 * A new order number: the UTC time to the millisecond (`YYYYMMDDHHmmssSSS`) then 10 random
 * digits, 27 characters. Sortable by creation time, readable, and unique across instances
 * without coordination (the unique index catches the ~1e-10 chance of a same-millisecond clash,
 * and the writer retries).
 */
export function newOrderNo(now = new Date()): string {
  const stamp = `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}`
    + `${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}${pad(now.getUTCMilliseconds(), 3)}`;
  return `${stamp}${pad(randomInt(0, 10_000_000_000), 10)}`;
}
