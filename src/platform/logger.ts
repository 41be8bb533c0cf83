// pino options shared by every process: secrets are redacted wherever they appear in a
// logged object, and request lines carry the request's trace_id. JSON lines for machines; on
// a terminal (LOG_FORMAT=auto), readable lines through pino-pretty, in this process.
import { createRequire } from 'node:module';
import type { FastifyBaseLogger } from 'fastify';
import type PinoPretty from 'pino-pretty';
import pino, { type ChildLoggerOptions, type Logger, type LoggerOptions } from 'pino';

// Keys whose values never reach a log line, at the top level of a logged object and one
// level down. Kept short: pino applies these paths to every child logger's bindings too.
const SECRET_KEYS = [
  'password', 'old_password', 'password_confirmation', 'password_hash', 'token', 'captcha_code',
  'google_code', 'secret', 'totp_secret', 'recovery_codes', 'authorization', 'cookie',
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
  // Loaded only for readable lines (about 1 MB of heap a JSON-logging server does without).
  const pretty = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
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

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Bindings = Record<string, unknown>;
interface LevelSource {
  level: string;
  isLevelEnabled(level: string): boolean;
}

/**
 * A request's logger whose pino child (its trace_id binding, which pino serialises through the
 * redaction paths) is built only when a line is written at an enabled level: most requests
 * write none (request lines are at `info`, the usual level `warn`), and building it for each
 * one cost 3–6 % of a short request. Its children are lazy too.
 */
class LazyLogger implements FastifyBaseLogger {
  #make: () => FastifyBaseLogger;
  #source: LevelSource;
  #real: FastifyBaseLogger | undefined;

  constructor(make: () => FastifyBaseLogger, source: LevelSource) {
    this.#make = make;
    this.#source = source;
  }

  private get real(): FastifyBaseLogger {
    return (this.#real ??= this.#make());
  }

  isLevelEnabled(level: string): boolean {
    return this.#real ? (this.#real as unknown as LevelSource).isLevelEnabled(level) : this.#source.isLevelEnabled(level);
  }

  get level(): string {
    return this.#real?.level ?? this.#source.level;
  }

  set level(level: string) {
    this.real.level = level;
  }

  private write(level: Level, args: unknown[]): void {
    if (this.#real || this.#source.isLevelEnabled(level)) Reflect.apply(this.real[level], this.real, args);
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return new LazyLogger(() => this.real.child(bindings, options), this);
  }
}

/** Fastify's `childLoggerFactory`: each request's logger, lazy (see LazyLogger); a route with its own log level gets its child at once. */
export function requestLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  if (Object.keys(options).length > 0) return logger.child(bindings, options);
  return new LazyLogger(() => logger.child(bindings), logger as unknown as LevelSource);
}
