// pino options shared by every process: secrets are redacted wherever they appear in a
// logged object, and request lines carry the request's trace_id.
import type { LoggerOptions } from 'pino';

// Keys whose values never reach a log line, at the top level of a logged object and one
// level down. Kept short: pino applies these paths to every child logger's bindings too.
const SECRET_KEYS = [
  'password', 'old_password', 'password_confirmation', 'password_hash', 'token', 'captcha_code',
  'google_code', 'secret', 'totp_secret', 'authorization', 'cookie',
];

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((k) => `*.${k}`),
];

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { pid: process.pid },
    timestamp: () => `,"time":"${new Date().toISOString()}"`,
  };
}
