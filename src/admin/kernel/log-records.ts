// The login and operation log rows as the logs feature lists them and the dashboard shows its
// newest ones: the logs feature implements `RecentLogs`, handed to the dashboard by app.ts. And
// the system log as other parts of the service write to it (`SystemLog`, the logs feature's
// LogWriter, handed in by app.ts).
import { Type, type Static } from 'typebox';
import { LOCATION_KINDS } from '../../platform/geo/ip-location.ts';
import { Nullable } from '../../platform/http/schemas.ts';
import type { Locale } from '../../platform/i18n.ts';
import type { SystemLogLevel } from '../db/schema.ts';
import { RecordChange } from './audit.ts';
import type { DataScope } from './data-scope.ts';

const Time = Type.String({ description: 'YYYY-MM-DD HH:mm:ss' });

export const OperationLogRecord = Type.Object({
  id: Type.Integer(),
  admin_id: Nullable(Type.Integer()),
  username: Type.String(),
  module: Type.String({ description: 'first part of the route’s permission slug; `auth` for self-service routes' }),
  action: Type.String(),
  action_label: Type.String({
    description: 'what was done, in the reader’s language (Accept-Language), from the permission catalogue (`order.import` → "Import orders" / "导入订单"); the raw `module.action` for an action the catalogue does not name',
  }),
  method: Type.String(),
  route: Type.String({ description: 'route pattern, e.g. /api/admin/online-admins/:token_id' }),
  path: Type.String({ description: 'the requested path, without the query string' }),
  ip: Type.String(),
  user_agent: Type.String(),
  params: Type.Unknown({ description: '`params`, `query` and `body` of the request; secrets replaced by [redacted], long values cut' }),
  changes: Nullable(Type.Array(RecordChange), {
    description: 'an extension of the contract: the before and after values of the fields the operation changed, per record it wrote (a batch: each record; at most 100, and 64 KiB, `params.changes_omitted` counts the rest); null for a route that records none (sign-out, a token renewal) and for a refused request, which changed nothing; the states are read just before the write and just after it',
  }),
  status_code: Type.Integer(),
  duration_ms: Type.Integer(),
  trace_id: Type.String(),
  created_at: Time,
});

/** Where a sign-in's address is, as a login log row shows it. */
export const LoginLocation = Type.Object({
  kind: Type.String({
    enum: [...LOCATION_KINDS],
    description: '`loopback` (this machine), `private` (RFC 1918, 100.64/10, link-local, IPv6 fc00::/7 and fe80::/10), `public` (placed in a country by the data), `unknown` (a public address the data does not place, any other IPv6 address, a reserved one, and every row written before locations were recorded)',
  }),
  country: Type.String({ description: 'ISO 3166-1 alpha-2 code (`US`) when `kind` is `public`; empty otherwise' }),
  country_name: Type.String({ description: 'the country in the reader’s language (Accept-Language): "United States" / "美国"; empty when `country` is' }),
  city: Type.String({ description: 'the city as the data names it (in English); often empty, as the data places many addresses in a country only' }),
  label: Type.String({
    description: 'the location as one line in the reader’s language: "Hangzhou, China" / "中国 Hangzhou", "United States" / "美国", "This machine" / "本机", "Private network" / "内网", "Unknown" / "未知"',
  }),
}, {
  description: 'where `ip` was when the row was written, from the offline GeoLite data shipped with the server (the fast-geoip package; IPv4 addresses only, an IPv4-mapped IPv6 address as its IPv4 address). This product includes GeoLite data created by MaxMind, available from https://www.maxmind.com.',
});

export const LoginLogRecord = Type.Object({
  id: Type.Integer(),
  admin_id: Nullable(Type.Integer()),
  username: Type.String({ description: 'as typed at login' }),
  ip: Type.String(),
  location: LoginLocation,
  user_agent: Type.String(),
  status: Type.Integer({ description: '1 success, 0 failure' }),
  reason: Type.String({
    description: 'success, recovery_code (signed in with a recovery code in place of the authenticator code), captcha, locked, unknown_user, bad_password, disabled, authenticator_required, authenticator_wrong',
  }),
  created_at: Time,
});

export interface RecentLogs {
  /** The newest `n` rows of the login and the operation logs of `scope`, newest first, as the lists show them. */
  recent(n: number, scope: DataScope, locale: Locale): Promise<{ logins: Static<typeof LoginLogRecord>[]; operations: Static<typeof OperationLogRecord>[] }>;
}

/** Adds a system log row (`context` redacted and capped by the writer); never throws. */
export interface SystemLog {
  system(level: SystemLogLevel, message: string, context?: Record<string, unknown>, traceId?: string): void;
}
