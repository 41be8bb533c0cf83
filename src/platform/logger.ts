// pino options shared by every process: secrets are redacted wherever they appear in a
// logged object, and request lines carry the request's trace_id. JSON lines for machines; on
// a terminal (LOG_FORMAT=auto), readable lines through pino-pretty, in this process.
import pino, { type Logger, type LoggerOptions } from 'pino';
import pretty from 'pino-pretty';

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

/** Whether LOG_FORMAT asks for readable lines (`auto`: standard output is a terminal). */
export function prettyLogs(format: 'auto' | 'json' | 'pretty'): boolean {
  return format === 'pretty' || (format === 'auto' && process.stdout.isTTY === true);
}

export function createLogger(config: { LOG_LEVEL: string; LOG_FORMAT: 'auto' | 'json' | 'pretty' }): Logger {
  const options = loggerOptions(config.LOG_LEVEL);
  if (!prettyLogs(config.LOG_FORMAT)) return pino(options);
  return pino(options, pretty({
    colorize: process.stdout.isTTY === true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname,req,res',
    // Request lines say what happened in one line; their objects stay available in JSON mode.
    messageFormat: '{if req}{req.method} {req.url} {end}{if res}{res.statusCode} {end}{msg}',
    hideObject: false,
    singleLine: true,
    sync: true,
  }));
}
