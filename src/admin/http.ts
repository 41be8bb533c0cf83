// The admin envelope: `{ code, message, data, trace_id }`, lists as `data = { list, page,
// page_size, total }`; and how admin routes declare who may call them.
import type { FastifyRequest } from 'fastify';
import { Type, type TSchema } from 'typebox';
import { localeOf } from '../platform/http/conventions.ts';
import { translate } from '../platform/i18n.ts';
import type { AuditSpec } from './kernel/audit.ts';
import type { SessionStep } from './kernel/guard.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Admin routes: the permission slug (`<module>.<action>`) a caller needs, or `auth`:
     * `public` (no token) / `self` (any signed-in administrator, acting on themself).
     */
    permission?: string;
    auth?: 'public' | 'self';
    /** Counted per client IP, AUTH_RATE_LIMIT a minute, with the X-RateLimit-* headers (captcha and login). */
    limitPerIp?: boolean;
    /**
     * The restricted sessions this route serves (kernel/guard.ts): `change_password` (changing the
     * password, its rules, sign-out) and `bind_authenticator` (the authenticator's status, QR code,
     * the binding itself, sign-out). Every other signed-in route refuses a restricted session (403
     * 10012 or 10011).
     */
    steps?: readonly SessionStep[];
    /** Body fields the operation log censors although their names are not secret ones (an authenticator `code`). */
    secretFields?: readonly string[];
    /** What a write route changes, for the before and after values of its operation log row (kernel/audit.ts). */
    audit?: AuditSpec;
  }
}

export function ok<T>(request: FastifyRequest, data: T) {
  return { code: 200, message: translate('admin.ok', localeOf(request)), data, trace_id: request.id };
}

export function okList<T>(request: FastifyRequest, list: T[], q: { page: number; page_size: number }, total: number) {
  return ok(request, { list, page: q.page, page_size: q.page_size, total });
}

/** A page of a list that counts at most LIST_COUNT_LIMIT rows (CappedListEnvelope). */
export function okCappedList<T>(request: FastifyRequest, list: T[], q: { page: number; page_size: number }, total: number, capped: boolean) {
  return ok(request, { list, page: q.page, page_size: q.page_size, total, total_capped: capped });
}

export const Envelope = <T extends TSchema>(data: T) =>
  Type.Object({
    code: Type.Integer({ examples: [200] }),
    message: Type.String(),
    data,
    trace_id: Type.String(),
  });

const page = {
  page: Type.Integer(),
  page_size: Type.Integer(),
};

export const ListEnvelope = <T extends TSchema>(item: T) =>
  Envelope(Type.Object({ list: Type.Array(item), ...page, total: Type.Integer({ description: 'the matching rows' }) }));

/** A page of a list over a table that grows without bound, whose count stops at LIST_COUNT_LIMIT. */
export const CappedListEnvelope = <T extends TSchema>(item: T) =>
  Envelope(Type.Object({
    list: Type.Array(item),
    ...page,
    total: Type.Integer({ description: 'the matching rows, counted up to LIST_COUNT_LIMIT (default 1,000): see total_capped' }),
    total_capped: Type.Boolean({ description: 'true when more rows match than LIST_COUNT_LIMIT: `total` is then that limit (the pages beyond it can still be read)' }),
  }));

export const ErrorEnvelope = Type.Object(
  {
    code: Type.Integer({ description: 'business code, see the error table in the description' }),
    message: Type.String(),
    data: Type.Null(),
    trace_id: Type.String(),
  },
  { description: 'error' },
);

/** Strict object for request bodies: unknown fields are refused by name. */
export const Body = <P extends Record<string, TSchema>>(props: P) => Type.Object(props, { additionalProperties: false });

export const IdParam = Type.Object({ id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });
