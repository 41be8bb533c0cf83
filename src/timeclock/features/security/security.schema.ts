import { Type } from 'typebox';
import { Nullable } from '../../../platform/http/schemas.ts';
import { Body, Id } from '../../http.ts';
import { ALERT_STATUSES, SEVERITIES } from '../../db/schema.ts';
import { ALERT_TYPES } from '../../kernel/security-events.ts';

const Severity = Type.Enum(SEVERITIES);
const Level = Type.Enum(SEVERITIES, { description: 'risk level: low, medium or high' });

/** An Android package name or an iOS bundle identifier: two or more dot-separated segments. */
export const PACKAGE_ID_PATTERN = '^[A-Za-z0-9_][A-Za-z0-9_-]*(\\.[A-Za-z0-9_-]+)+$';
const PackageId = Type.String({
  minLength: 3,
  maxLength: 255,
  pattern: PACKAGE_ID_PATTERN,
  description: 'application package identifier (Android package name or iOS bundle id), compared exactly',
  examples: ['com.lexa.fakegps'],
});

export const BlacklistReply = Type.Array(Type.String(), { description: 'blacklisted application package identifiers, sorted' });
export const BlacklistBody = Body({ packageId: PackageId });
export const BlacklistParam = Type.Object({ packageId: PackageId });
export const BlacklistEntry = Type.Object({ packageId: Type.String(), created_at: Type.String({ description: 'ISO 8601 UTC' }) });

const AlertStatus = Type.Enum(ALERT_STATUSES, {
  description: '`open` (nobody has handled it), `acknowledged` (a manager has seen it and is on it) or `resolved` (handled; left out of the default list)',
});

export const AlertRecord = Type.Object({
  id: Type.Integer(),
  alert_type: Type.String({ description: `one of ${ALERT_TYPES.join(', ')}` }),
  severity: Severity,
  created_at: Type.String({ description: 'ISO 8601 UTC' }),
  status: AlertStatus,
});

export const SecurityStatusReply = Type.Object({
  latestSecurityCheck: Nullable(Type.Object({
    id: Type.Integer(),
    user_id: Type.Integer(),
    timestamp: Type.String({ description: 'when the check was computed (at the latest alert), ISO 8601 UTC' }),
    risk_level: Level,
    risk_score: Type.Integer({ minimum: 0, maximum: 100 }),
  }, { description: 'the risk recorded at the latest alert; null when the worker never had one' })),
  recentAlerts: Type.Array(AlertRecord, { description: 'alerts of the last 7 days, newest first, at most 20' }),
  securityStatus: Level,
});

export const ALERT_STATUS_FILTERS = ['unresolved', 'open', 'acknowledged', 'resolved', 'all'] as const;

export const AlertsQuery = Type.Object({
  status: Type.Enum(ALERT_STATUS_FILTERS, {
    default: 'unresolved',
    description: '`unresolved` (the default: `open` and `acknowledged`), `open`, `acknowledged`, `resolved` or `all`',
  }),
  userId: Type.Optional(Id('only this worker')),
  severity: Type.Optional(Severity),
  type: Type.Optional(Type.Enum(ALERT_TYPES)),
  since: Type.Optional(Type.String({ format: 'date-time', description: 'only alerts created at or after this instant, ISO 8601 with a zone' })),
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
});

const Step = (what: string) => Nullable(Type.Object({
  at: Type.String({ description: `when it was ${what}, ISO 8601 UTC` }),
  by: Nullable(Type.Object({ id: Type.Integer(), username: Type.String(), full_name: Type.String() }, { description: `the manager who ${what} it; null when that account was removed` })),
  note: Nullable(Type.String({ description: 'the manager’s note; null when none' })),
}, { description: `who ${what} it, when, and their note; null while it is not` }));

export const AlertItem = Type.Object({
  id: Type.Integer(),
  user_id: Type.Integer(),
  username: Type.String(),
  full_name: Type.String(),
  alert_type: Type.String(),
  severity: Severity,
  details: Type.Object({}, { additionalProperties: true, description: 'what was observed (positions, speeds, accuracy, QR code …)' }),
  created_at: Type.String({ description: 'ISO 8601 UTC' }),
  status: AlertStatus,
  acknowledged: Step('acknowledged'),
  resolved: Step('resolved'),
});

export const AlertIdParam = Type.Object({ id: Id('the alert’s id') });

export const AlertStepBody = Type.Union([
  Body({ note: Type.Optional(Type.String({ maxLength: 1000, description: 'optional note, up to 1000 characters (trimmed; blank: none)' })) }),
  Type.Null(),
], { description: '`{ "note": "…" }`, `{}`, or no body' });

export const AlertsReply = Type.Object({
  alerts: Type.Array(AlertItem),
  totalCount: Type.Integer(),
  currentPage: Type.Integer(),
  totalPages: Type.Integer(),
});
