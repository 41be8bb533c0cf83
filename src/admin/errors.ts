// The admin service's business codes (XXYYYY: 10 authentication, 20 permission,
// 30 validation, 40 business, 50 system) and the HTTP status of each. New codes go here.
import { defineErrors, type FrameworkErrors } from '../platform/http/errors.ts';
import type { MessageKey } from '../platform/i18n.ts';

const e = (code: number, status: number, message: MessageKey) => ({ code, status, message });

export const E = defineErrors({
  BAD_CREDENTIALS: e(10001, 401, 'admin.error.BAD_CREDENTIALS'),
  ACCOUNT_DISABLED: e(10002, 403, 'admin.error.ACCOUNT_DISABLED'),
  TOKEN_EXPIRED: e(10003, 401, 'admin.error.TOKEN_EXPIRED'),
  TOKEN_REVOKED: e(10004, 401, 'admin.error.TOKEN_REVOKED'),
  CAPTCHA_WRONG: e(10005, 400, 'admin.error.CAPTCHA_WRONG'),
  LOGIN_LOCKED: e(10006, 429, 'admin.error.LOGIN_LOCKED'),
  TOKEN_INVALID: e(10007, 401, 'admin.error.TOKEN_INVALID'),
  AUTHENTICATOR_CODE_INVALID: e(10008, 401, 'admin.error.AUTHENTICATOR_CODE_INVALID'),
  TOO_MANY_REQUESTS: e(10009, 429, 'admin.error.TOO_MANY_REQUESTS'),
  /** A wrong, reused or malformed authenticator code when binding or unbinding one (login answers 10008). */
  AUTHENTICATOR_CODE_WRONG: e(10010, 400, 'admin.error.AUTHENTICATOR_CODE_WRONG'),
  /** A session opened for binding an authenticator only (a role requires one), on any other route. */
  AUTHENTICATOR_BINDING_REQUIRED: e(10011, 403, 'admin.error.AUTHENTICATOR_BINDING_REQUIRED'),
  /** A session of an administrator who must choose a new password (someone else set it, or it expired), on any other route. */
  PASSWORD_CHANGE_REQUIRED: e(10012, 403, 'admin.error.PASSWORD_CHANGE_REQUIRED'),
  NO_PERMISSION: e(20001, 403, 'admin.error.NO_PERMISSION'),
  NOT_FOUND: e(20002, 404, 'admin.error.NOT_FOUND'),
  ACCESS_DENIED: e(20003, 403, 'admin.error.ACCESS_DENIED'),
  METHOD_NOT_ALLOWED: e(20004, 405, 'admin.error.METHOD_NOT_ALLOWED'),
  VALIDATION: e(30001, 400, 'admin.error.VALIDATION'),
  ALREADY_EXISTS: e(30002, 400, 'admin.error.ALREADY_EXISTS'),
  DATA_NOT_FOUND: e(30003, 404, 'admin.error.DATA_NOT_FOUND'),
  INVALID_FORMAT: e(30004, 400, 'admin.error.INVALID_FORMAT'),
  BODY_TOO_LARGE: e(30005, 413, 'admin.error.BODY_TOO_LARGE'),
  UNSUPPORTED_MEDIA_TYPE: e(30006, 415, 'admin.error.UNSUPPORTED_MEDIA_TYPE'),
  /** A new password the password policy refuses; the detail names the rule (so a client can tell it from other validation failures). */
  PASSWORD_REFUSED: e(30007, 400, 'admin.error.PASSWORD_REFUSED'),
  OPERATION_FAILED: e(40001, 400, 'admin.error.OPERATION_FAILED'),
  DELETE_FAILED: e(40002, 400, 'admin.error.DELETE_FAILED'),
  UPDATE_FAILED: e(40003, 400, 'admin.error.UPDATE_FAILED'),
  CREATE_FAILED: e(40004, 400, 'admin.error.CREATE_FAILED'),
  UPLOAD_FAILED: e(40005, 400, 'admin.error.UPLOAD_FAILED'),
  EXPORT_FAILED: e(40006, 400, 'admin.error.EXPORT_FAILED'),
  INTERNAL: e(50001, 500, 'admin.error.INTERNAL'),
  DATABASE: e(50002, 500, 'admin.error.DATABASE'),
  CACHE: e(50003, 500, 'admin.error.CACHE'),
  QUEUE: e(50004, 500, 'admin.error.QUEUE'),
  THIRD_PARTY: e(50005, 502, 'admin.error.THIRD_PARTY'),
  SERVICE_UNAVAILABLE: e(50006, 503, 'admin.error.SERVICE_UNAVAILABLE'),
});

export const ADMIN_FRAMEWORK_ERRORS: FrameworkErrors = {
  validation: E.VALIDATION,
  malformedBody: E.INVALID_FORMAT,
  notFound: E.NOT_FOUND,
  methodNotAllowed: E.METHOD_NOT_ALLOWED,
  bodyTooLarge: E.BODY_TOO_LARGE,
  unsupportedMediaType: E.UNSUPPORTED_MEDIA_TYPE,
  tooManyRequests: E.TOO_MANY_REQUESTS,
  unauthorized: E.TOKEN_INVALID,
  internal: E.INTERNAL,
  unavailable: E.SERVICE_UNAVAILABLE,
};
