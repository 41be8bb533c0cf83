// The login and operation log rows as the logs feature lists them and the dashboard shows its
// newest ones: the logs feature implements `RecentLogs`, handed to the dashboard by app.ts. And
// the system log as other parts of the service write to it (`SystemLog`, the logs feature's
// LogWriter, handed in by app.ts).
import { Type, type Static } from 'typebox';
import { Nullable } from '../../platform/http/schemas.ts';
import type { Locale } from '../../platform/i18n.ts';
import type { SystemLogLevel } from '../db/schema.ts';
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
  status_code: Type.Integer(),
  duration_ms: Type.Integer(),
  trace_id: Type.String(),
  created_at: Time,
});

export const LoginLogRecord = Type.Object({
  id: Type.Integer(),
  admin_id: Nullable(Type.Integer()),
  username: Type.String({ description: 'as typed at login' }),
  ip: Type.String(),
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
