import { Type } from 'typebox';
import { Nullable } from '../../../platform/http/schemas.ts';
import { Body, Id } from '../../http.ts';
import { SEVERITIES } from '../../db/schema.ts';
import { ALERT_TYPES } from './security.service.ts';

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

export const AlertRecord = Type.Object({
  id: Type.Integer(),
  alert_type: Type.String({ description: `one of ${ALERT_TYPES.join(', ')}` }),
  severity: Severity,
  created_at: Type.String({ description: 'ISO 8601 UTC' }),
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

export const AlertsQuery = Type.Object({
  userId: Type.Optional(Id('only this worker')),
  severity: Type.Optional(Severity),
  type: Type.Optional(Type.Enum(ALERT_TYPES)),
  since: Type.Optional(Type.String({ format: 'date-time', description: 'only alerts created at or after this instant, ISO 8601 with a zone' })),
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
});

export const AlertsReply = Type.Object({
  alerts: Type.Array(Type.Object({
    id: Type.Integer(),
    user_id: Type.Integer(),
    username: Type.String(),
    full_name: Type.String(),
    alert_type: Type.String(),
    severity: Severity,
    details: Type.Object({}, { additionalProperties: true, description: 'what was observed (positions, speeds, accuracy, QR code …)' }),
    created_at: Type.String({ description: 'ISO 8601 UTC' }),
  })),
  totalCount: Type.Integer(),
  currentPage: Type.Integer(),
  totalPages: Type.Integer(),
});
