// pino options shared by every process: secrets are redacted wherever they appear in a
// logged object, and request lines carry the request's trace_id.
import type { LoggerOptions } from 'pino';

const SECRET_KEYS = [
  'password', 'old_password', 'password_confirmation', 'password_hash', 'passwordHash',
  'token', 'refresh_token', 'captcha_code', 'google_code', 'secret', 'totp_secret',
  'authorization', 'cookie', 'JWT_SECRET', 'ADMIN_PASSWORD', 'MANAGER_PASSWORD', 'DATABASE_URL', 'REDIS_URL',
];

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-ws-ticket"]',
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((k) => `*.${k}`),
  ...SECRET_KEYS.map((k) => `*.*.${k}`),
];

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { pid: process.pid },
    timestamp: () => `,"time":"${new Date().toISOString()}"`,
  };
}
