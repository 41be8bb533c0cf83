// The time-clock service's error codes (strings, as the contract names them) and the HTTP
// status of each. Codes the contract does not name are marked as ours. New codes go here.
import { defineErrors, type FrameworkErrors } from '../platform/http/errors.ts';
import type { MessageKey } from '../platform/i18n.ts';

const e = (code: string, status: number, message: MessageKey) => ({ code, status, message });

export const E = defineErrors({
  VALIDATION_ERROR: e('VALIDATION_ERROR', 400, 'timeclock.error.VALIDATION_ERROR'),
  INVALID_CREDENTIALS: e('INVALID_CREDENTIALS', 401, 'timeclock.error.INVALID_CREDENTIALS'),
  TOKEN_EXPIRED: e('TOKEN_EXPIRED', 401, 'timeclock.error.TOKEN_EXPIRED'),
  TOKEN_INVALID: e('TOKEN_INVALID', 401, 'timeclock.error.TOKEN_INVALID'), // ours
  DEVICE_NOT_AUTHORIZED: e('DEVICE_NOT_AUTHORIZED', 403, 'timeclock.error.DEVICE_NOT_AUTHORIZED'),
  FORBIDDEN: e('FORBIDDEN', 403, 'timeclock.error.FORBIDDEN'), // ours
  // A token of an account that must choose a new password first (someone else set it, or it
  // expired), on any route but the change (PUT /api/me/password), its rules and /api/me.
  PASSWORD_CHANGE_REQUIRED: e('PASSWORD_CHANGE_REQUIRED', 403, 'timeclock.error.PASSWORD_CHANGE_REQUIRED'), // ours
  ACCOUNT_DISABLED: e('ACCOUNT_DISABLED', 403, 'timeclock.error.ACCOUNT_DISABLED'), // ours
  OUTSIDE_GEOFENCE: e('OUTSIDE_GEOFENCE', 403, 'timeclock.error.OUTSIDE_GEOFENCE'),
  SECURITY_VIOLATION: e('SECURITY_VIOLATION', 403, 'timeclock.error.SECURITY_VIOLATION'),
  NOT_FOUND: e('NOT_FOUND', 404, 'timeclock.error.NOT_FOUND'), // ours
  QR_CODE_INACTIVE: e('QR_CODE_INACTIVE', 404, 'timeclock.error.QR_CODE_INACTIVE'),
  METHOD_NOT_ALLOWED: e('METHOD_NOT_ALLOWED', 405, 'timeclock.error.METHOD_NOT_ALLOWED'), // ours
  DUPLICATE_EVENT: e('DUPLICATE_EVENT', 409, 'timeclock.error.DUPLICATE_EVENT'),
  DEVICE_ALREADY_REGISTERED: e('DEVICE_ALREADY_REGISTERED', 409, 'timeclock.error.DEVICE_ALREADY_REGISTERED'), // ours
  GEOFENCE_NOT_CONFIGURED: e('GEOFENCE_NOT_CONFIGURED', 409, 'timeclock.error.GEOFENCE_NOT_CONFIGURED'), // ours
  CONFLICT: e('CONFLICT', 409, 'timeclock.error.CONFLICT'), // ours
  // POST /api/clock: the punch comes less than CLOCK_MIN_INTERVAL_SECONDS after the worker's
  // latest event (a double tap); `details` say which event, when, and how long to wait.
  PUNCH_TOO_SOON: e('PUNCH_TOO_SOON', 409, 'timeclock.error.PUNCH_TOO_SOON'), // ours
  // POST /api/clock with `capturedAt`: the worker already has an event recorded after that time;
  // recording this one would rewrite their history.
  LATER_EVENT_RECORDED: e('LATER_EVENT_RECORDED', 409, 'timeclock.error.LATER_EVENT_RECORDED'), // ours
  // POST /api/clock: this `clientEventId` was already used by this worker for a punch with a
  // different body; `details.fields` names the fields that differ.
  CLIENT_EVENT_ID_REUSED: e('CLIENT_EVENT_ID_REUSED', 409, 'timeclock.error.CLIENT_EVENT_ID_REUSED'), // ours
  // Security alerts: acknowledging or resolving an alert already resolved, or acknowledging one already acknowledged.
  ALERT_ALREADY_ACKNOWLEDGED: e('ALERT_ALREADY_ACKNOWLEDGED', 409, 'timeclock.error.ALERT_ALREADY_ACKNOWLEDGED'), // ours
  ALERT_ALREADY_RESOLVED: e('ALERT_ALREADY_RESOLVED', 409, 'timeclock.error.ALERT_ALREADY_RESOLVED'), // ours
  // Corrections: the punches would no longer alternate (`details.conflictingEventId` names the
  // punch it conflicts with).
  CORRECTION_BREAKS_ORDER: e('CORRECTION_BREAKS_ORDER', 409, 'timeclock.error.CORRECTION_BREAKS_ORDER'), // ours
  // Corrections: the punch was voided or replaced by an earlier correction (`details.correctionId`).
  PUNCH_ALREADY_CORRECTED: e('PUNCH_ALREADY_CORRECTED', 409, 'timeclock.error.PUNCH_ALREADY_CORRECTED'), // ours
  // Corrections: approving, rejecting or cancelling a request that is no longer pending.
  CORRECTION_ALREADY_DECIDED: e('CORRECTION_ALREADY_DECIDED', 409, 'timeclock.error.CORRECTION_ALREADY_DECIDED'), // ours
  // A punch or a correction dated inside a period a manager locked (`details.date`, `from`, `to`).
  PERIOD_LOCKED: e('PERIOD_LOCKED', 409, 'timeclock.error.PERIOD_LOCKED'), // ours
  // Approving or locking a period that still has something to check (`details` list it).
  PERIOD_NOT_READY: e('PERIOD_NOT_READY', 409, 'timeclock.error.PERIOD_NOT_READY'), // ours
  PAYLOAD_TOO_LARGE: e('PAYLOAD_TOO_LARGE', 413, 'timeclock.error.PAYLOAD_TOO_LARGE'), // ours
  UNSUPPORTED_MEDIA_TYPE: e('UNSUPPORTED_MEDIA_TYPE', 415, 'timeclock.error.UNSUPPORTED_MEDIA_TYPE'), // ours
  RATE_LIMITED: e('RATE_LIMITED', 429, 'timeclock.error.RATE_LIMITED'), // ours
  // Sign-in: failed sign-ins locked the account name (the password policy's lockout) before the
  // password was checked; Retry-After and `details.retryAfterSeconds` say how long it lasts.
  ACCOUNT_LOCKED: e('ACCOUNT_LOCKED', 429, 'timeclock.error.ACCOUNT_LOCKED'), // ours
  INTERNAL_ERROR: e('INTERNAL_ERROR', 500, 'timeclock.error.INTERNAL_ERROR'), // ours
  SERVICE_UNAVAILABLE: e('SERVICE_UNAVAILABLE', 503, 'timeclock.error.SERVICE_UNAVAILABLE'), // ours
});

export const TIMECLOCK_FRAMEWORK_ERRORS: FrameworkErrors = {
  validation: E.VALIDATION_ERROR,
  malformedBody: E.VALIDATION_ERROR,
  notFound: E.NOT_FOUND,
  methodNotAllowed: E.METHOD_NOT_ALLOWED,
  bodyTooLarge: E.PAYLOAD_TOO_LARGE,
  unsupportedMediaType: E.UNSUPPORTED_MEDIA_TYPE,
  tooManyRequests: E.RATE_LIMITED,
  unauthorized: E.TOKEN_INVALID,
  internal: E.INTERNAL_ERROR,
  unavailable: E.SERVICE_UNAVAILABLE,
};
