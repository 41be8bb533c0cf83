// The time-clock service's error codes (strings, as the contract names them) and the HTTP
// status of each. Codes the contract does not name are marked as ours. New codes go here.
import { defineErrors, type FrameworkErrors } from '../platform/http/errors.ts';

const e = (code: string, status: number, en: string, zh: string) => ({ code, status, message: { 'en-US': en, 'zh-CN': zh } });

export const E = defineErrors({
  VALIDATION_ERROR: e('VALIDATION_ERROR', 400, 'Invalid request data', '请求数据无效'),
  INVALID_CREDENTIALS: e('INVALID_CREDENTIALS', 401, 'Invalid username or password', '用户名或密码错误'),
  TOKEN_EXPIRED: e('TOKEN_EXPIRED', 401, 'Token expired', '令牌已过期'),
  TOKEN_INVALID: e('TOKEN_INVALID', 401, 'Missing or invalid token', '令牌缺失或无效'), // ours
  DEVICE_NOT_AUTHORIZED: e('DEVICE_NOT_AUTHORIZED', 403, 'Device not authorized', '设备未授权'),
  FORBIDDEN: e('FORBIDDEN', 403, 'Forbidden', '禁止访问'), // ours
  ACCOUNT_DISABLED: e('ACCOUNT_DISABLED', 403, 'Account disabled', '账号已停用'), // ours
  OUTSIDE_GEOFENCE: e('OUTSIDE_GEOFENCE', 403, 'Outside the geofence', '不在地理围栏范围内'),
  SECURITY_VIOLATION: e('SECURITY_VIOLATION', 403, 'Security violation', '安全违规'),
  NOT_FOUND: e('NOT_FOUND', 404, 'Not found', '未找到'), // ours
  QR_CODE_INACTIVE: e('QR_CODE_INACTIVE', 404, 'QR code not found or inactive', '二维码不存在或未启用'),
  METHOD_NOT_ALLOWED: e('METHOD_NOT_ALLOWED', 405, 'Method not allowed', '请求方法不被允许'), // ours
  DUPLICATE_EVENT: e('DUPLICATE_EVENT', 409, 'Already in that state', '重复的打卡事件'),
  DEVICE_ALREADY_REGISTERED: e('DEVICE_ALREADY_REGISTERED', 409, 'Device registered to another user', '设备已注册给其他用户'), // ours
  GEOFENCE_NOT_CONFIGURED: e('GEOFENCE_NOT_CONFIGURED', 409, 'The site of this QR code has no geofence', '该二维码所属场地未设置地理围栏'), // ours
  CONFLICT: e('CONFLICT', 409, 'Conflict', '数据冲突'), // ours
  // POST /api/clock with `capturedAt`: the worker already has an event recorded after that time;
  // recording this one would rewrite their history.
  LATER_EVENT_RECORDED: e('LATER_EVENT_RECORDED', 409, 'A later clock event is already recorded', '已有更晚的打卡记录'), // ours
  // POST /api/clock: this `clientEventId` was already used by this worker for a punch with a
  // different body; `details.fields` names the fields that differ.
  CLIENT_EVENT_ID_REUSED: e('CLIENT_EVENT_ID_REUSED', 409, 'This client event id was already used for a different punch', '该客户端事件 ID 已用于另一条打卡'), // ours
  PAYLOAD_TOO_LARGE: e('PAYLOAD_TOO_LARGE', 413, 'Request body too large', '请求体过大'), // ours
  UNSUPPORTED_MEDIA_TYPE: e('UNSUPPORTED_MEDIA_TYPE', 415, 'Unsupported media type', '不支持的内容类型'), // ours
  RATE_LIMITED: e('RATE_LIMITED', 429, 'Too many requests', '请求过于频繁'), // ours
  INTERNAL_ERROR: e('INTERNAL_ERROR', 500, 'Internal server error', '服务器内部错误'), // ours
  SERVICE_UNAVAILABLE: e('SERVICE_UNAVAILABLE', 503, 'Service temporarily unavailable; try again shortly', '服务暂时不可用，请稍后重试'), // ours
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
