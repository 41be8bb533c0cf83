// The admin service's business codes (XXYYYY: 10 authentication, 20 permission,
// 30 validation, 40 business, 50 system) and the HTTP status of each. New codes go here.
import { defineErrors, type FrameworkErrors } from '../platform/http/errors.ts';

const e = (code: number, status: number, en: string, zh: string) => ({ code, status, message: { 'en-US': en, 'zh-CN': zh } });

export const E = defineErrors({
  BAD_CREDENTIALS: e(10001, 401, 'Wrong username or password', '用户名或密码错误'),
  ACCOUNT_DISABLED: e(10002, 403, 'Account disabled', '账号已被禁用'),
  TOKEN_EXPIRED: e(10003, 401, 'Token expired', '令牌已过期'),
  TOKEN_REVOKED: e(10004, 401, 'Token revoked', '令牌已失效'),
  CAPTCHA_WRONG: e(10005, 400, 'Wrong or expired captcha', '验证码错误或已过期'),
  LOGIN_LOCKED: e(10006, 429, 'Too many failed logins; try again in {minutes} minutes', '登录失败次数过多，请 {minutes} 分钟后再试'),
  TOKEN_INVALID: e(10007, 401, 'Token invalid or missing', '令牌无效或缺失'),
  AUTHENTICATOR_CODE_INVALID: e(10008, 401, 'Authenticator code required or wrong', '需要动态验证码或验证码错误'),
  TOO_MANY_REQUESTS: e(10009, 429, 'Too many requests; slow down', '请求过于频繁，请稍后再试'),
  NO_PERMISSION: e(20001, 403, 'No permission', '没有权限'),
  NOT_FOUND: e(20002, 404, 'Resource does not exist', '资源不存在'),
  ACCESS_DENIED: e(20003, 403, 'Access denied', '拒绝访问'),
  METHOD_NOT_ALLOWED: e(20004, 405, 'Method not allowed', '请求方法不被允许'),
  VALIDATION: e(30001, 400, 'Parameter validation failed', '参数校验失败'),
  ALREADY_EXISTS: e(30002, 400, 'Data already exists', '数据已存在'),
  DATA_NOT_FOUND: e(30003, 404, 'Data does not exist', '数据不存在'),
  INVALID_FORMAT: e(30004, 400, 'Invalid format', '格式错误'),
  BODY_TOO_LARGE: e(30005, 413, 'Request body too large', '请求体过大'),
  UNSUPPORTED_MEDIA_TYPE: e(30006, 415, 'Unsupported media type', '不支持的内容类型'),
  OPERATION_FAILED: e(40001, 400, 'Operation failed', '操作失败'),
  DELETE_FAILED: e(40002, 400, 'Delete failed', '删除失败'),
  UPDATE_FAILED: e(40003, 400, 'Update failed', '更新失败'),
  CREATE_FAILED: e(40004, 400, 'Create failed', '创建失败'),
  UPLOAD_FAILED: e(40005, 400, 'Upload failed', '上传失败'),
  EXPORT_FAILED: e(40006, 400, 'Export failed', '导出失败'),
  INTERNAL: e(50001, 500, 'Internal server error', '服务器内部错误'),
  DATABASE: e(50002, 500, 'Database error', '数据库错误'),
  CACHE: e(50003, 500, 'Cache error', '缓存错误'),
  QUEUE: e(50004, 500, 'Queue error', '队列错误'),
  THIRD_PARTY: e(50005, 502, 'Third-party service error', '第三方服务错误'),
  SERVICE_UNAVAILABLE: e(50006, 503, 'Service temporarily unavailable; try again shortly', '服务暂时不可用，请稍后重试'),
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
