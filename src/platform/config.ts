// The one place that reads the environment. Every setting has a default and a one-line
// description; loadConfig() validates all of them at once and fails with a readable message.
import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { Type, type Static } from 'typebox';
import { canonicalTimeZone } from './time.ts';

const Bool = (def: boolean, description: string) =>
  Type.Boolean({ default: def, description });
const Int = (def: number, description: string, min = 0, max = 2 ** 31 - 1) =>
  Type.Integer({ default: def, minimum: min, maximum: max, description });
const Str = (def: string, description: string) => Type.String({ default: def, description });
const OptStr = (description: string) => Type.Optional(Type.String({ minLength: 1, description }));

export const ConfigSchema = Type.Object({
  NODE_ENV: Type.Union([Type.Literal('development'), Type.Literal('production'), Type.Literal('test')], {
    default: 'development',
    description: '`production` refuses insecure defaults (missing JWT_SECRET, captcha off)',
  }),
  HOST: Str('127.0.0.1', 'listen address'),
  PORT: Int(3000, 'listen port (0 picks a free one)', 0, 65535),
  TLS_CERT_FILE: OptStr('PEM certificate file (with its chain); with TLS_KEY_FILE the server speaks HTTPS (a phone’s camera and position need HTTPS beyond localhost)'),
  TLS_KEY_FILE: OptStr('PEM private key file of TLS_CERT_FILE'),
  PUBLIC_URL: OptStr('the origin clients reach this server at (https://ops.example.com), as the API documents name it; unset: the origin of each request (behind a proxy, set TRUST_PROXY so that its scheme and host are used)'),
  CORS_ORIGINS: Str('', 'comma-separated origins (scheme://host[:port]) whose pages may call the APIs and open the notification WebSocket; empty: same origin only'),
  METRICS_TOKEN: Type.Optional(Type.String({ minLength: 16, description: 'serves GET /metrics (Prometheus) on the main port to requests bearing this token (16+ characters)' })),
  METRICS_PORT: Int(0, 'serves GET /metrics (Prometheus) on this port of METRICS_HOST, apart from the public one; 0: not', 0, 65535),
  METRICS_HOST: Str('127.0.0.1', 'listen address of METRICS_PORT'),
  SERVICES: Type.String({
    default: 'admin,timeclock',
    pattern: '^(admin|timeclock)(,(admin|timeclock))?$',
    description: 'which services this process serves: admin, timeclock or both, comma-separated',
  }),
  DATA_DIR: Str('./data', 'embedded database, uploads, exports and generated secrets'),
  DATABASE_URL: OptStr('PostgreSQL connection string; unset: embedded PGlite under DATA_DIR/pglite'),
  DB_POOL_MAX: Int(10, 'PostgreSQL connection pool size', 1, 200),
  PGLITE_SHARED_BUFFERS_MB: Int(16, 'embedded PGlite only: its buffer cache (PostgreSQL shared_buffers), MB; pages beyond it are read from the files under DATA_DIR, which the operating system caches', 1, 1024),
  DEPENDENCY_TIMEOUT_MS: Int(3000, 'longest a request waits for an unresponsive database, Redis or object store before it is answered 503 (probed after a third of it; also the connect timeout)', 300, 60_000),
  DB_STATEMENT_TIMEOUT_MS: Int(30_000, 'PostgreSQL statement_timeout of the statements of requests, ms; a statement running longer is cancelled (503); 0: none', 0, 86_400_000),
  LIST_COUNT_LIMIT: Int(1_000, 'lists over tables that grow without bound (orders, payments, the three logs) count at most this many matching rows; beyond it `total` is this number and `total_capped` is true', 10, 10_000_000),
  DB_LONG_STATEMENT_TIMEOUT_MS: Int(3_600_000, 'statement_timeout of export queries and CSV import batches, ms; 0: none', 0, 86_400_000),
  REDIS_URL: OptStr('Redis connection string; unset: in-process cache, pub/sub and rate-limit store'),
  REDIS_KEY_PREFIX: Str('fieldops:', 'prefix of every Redis key and channel this deployment uses'),
  JWT_SECRET: Type.Optional(Type.String({ minLength: 32, description: 'token signing key (32+ chars); unset: generated once into DATA_DIR' })),
  ADMIN_TOKEN_TTL: Int(7200, 'administrator token lifetime in seconds', 60, 30 * 86400),
  ADMIN_USERNAME: Str('admin', 'super administrator created on an empty database'),
  ADMIN_PASSWORD: Type.Optional(Type.String({ minLength: 8, maxLength: 128, description: 'its password; unset: random, printed once' })),
  MANAGER_USERNAME: Str('manager', 'first time-clock manager created on an empty database'),
  MANAGER_PASSWORD: Type.Optional(Type.String({ minLength: 8, maxLength: 128, description: 'its password; unset: random, printed once' })),
  TIMECLOCK_TOKEN_TTL: Int(43_200, 'time-clock token lifetime in seconds (a shift plus margin)', 60, 30 * 86400),
  TIMECLOCK_REFRESH_TTL: Int(2_592_000, 'lifetime in seconds of the time-clock web app’s refresh cookie (renewed at every refresh): how long a phone stays signed in without being used', 60, 365 * 86400),
  PROTECTED_ADMINS: Str('', 'comma-separated usernames that, like the super administrator, cannot be disabled, deleted or kicked out by others'),
  CAPTCHA_ENABLED: Bool(true, '`false` skips the captcha check (development and automated tests only)'),
  LOGIN_MAX_FAILURES: Int(5, 'failed logins of one account name (an administrator, a worker or a manager) that lock it, until the password policy is saved in the console (which then decides)', 1, 100),
  LOGIN_LOCK_SECONDS: Int(900, 'failure-counting window and lock duration, seconds, until the password policy is saved in the console (which then decides)', 1, 86400),
  AUTH_RATE_LIMIT: Int(60, 'captcha and login requests per minute per client IP on the admin service', 1, 1_000_000),
  SESSION_CACHE_MS: Int(1000, 'how long an instance trusts a checked session before checking it again (revocations are also pushed at once)', 0, 1000),
  TRUST_PROXY: Str('', 'comma-separated addresses or CIDR blocks of reverse proxies whose X-Forwarded-For is honoured (also loopback, linklocal, uniquelocal); empty: the socket address is the client and X-Forwarded-For is ignored'),
  BODY_LIMIT: Int(1_048_576, 'largest JSON request body in bytes', 1024, 100 * 1_048_576),
  HTTP_HEADERS_TIMEOUT_MS: Int(10_000, 'time a client has to send the request line and headers, ms; then the connection is closed (408)', 1000, 300_000),
  HTTP_BODY_TIMEOUT_MS: Int(30_000, 'time a client has to send a whole request body, ms (multipart uploads and imports are limited by HTTP_IDLE_TIMEOUT_MS instead); 0: no limit', 0, 3_600_000),
  HTTP_IDLE_TIMEOUT_MS: Int(60_000, 'a connection on which nothing is received or sent for this long is closed, ms (also an upload or import that stalls); 0: no limit', 0, 3_600_000),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: Int(72_000, 'how long an idle keep-alive connection is kept for the next request, ms (keep it above the idle timeout of a load balancer in front)', 1000, 600_000),
  DISPLAY_TIMEZONE: Str('UTC', 'IANA time zone of `YYYY-MM-DD HH:mm:ss` times in records and queries'),
  LOG_RETENTION_DAYS: Int(90, 'days the operation, login and system logs are kept (purged at start-up and hourly); 0 keeps them forever', 0, 36_500),
  EXPORT_TTL_HOURS: Int(24, 'hours a finished export file stays downloadable before the cleanup deletes it', 1, 8760),
  // Orders: CSV import.
  ORDER_IMPORT_MAX_BYTES: Int(1_073_741_824, 'largest CSV file POST /orders/import accepts, bytes (streamed: memory does not grow with it)', 1024, 2 ** 40),
  ORDER_IMPORT_BATCH_ROWS: Int(10_000, 'orders written per transaction by the CSV import', 1, 100_000),
  ORDER_IMPORT_KEEP_HOURS: Int(24, 'hours the rejected rows of an order import stay downloadable (GET /orders/import/{id}/rejected) before the hourly purge deletes them', 1, 8760),
  // Notifications over WebSocket, then uploads.
  WS_HEARTBEAT_MS: Int(30_000, 'how often open WebSocket connections are pinged; one that has not answered the previous ping is dropped', 100, 600_000),
  WS_MAX_BUFFERED_BYTES: Int(1_048_576, 'unsent bytes a WebSocket client may fall behind before it is closed as a slow consumer (1013)', 1024, 256 * 1_048_576),
  WS_MAX_SOCKETS_PER_SESSION: Int(20, 'open notification sockets one session may hold on one instance; the upgrade for one more is refused (429)', 1, 10_000),
  UPLOAD_MAX_IMAGE_BYTES: Int(10 * 1_048_576, 'largest image upload (png, jpg, jpeg, gif, webp), bytes', 1024, 2 ** 40),
  UPLOAD_MAX_DOCUMENT_BYTES: Int(50 * 1_048_576, 'largest document upload (pdf, docx, xlsx, pptx, doc, xls, txt, csv), bytes', 1024, 2 ** 40),
  UPLOAD_MAX_VIDEO_BYTES: Int(1_073_741_824, 'largest video upload (mp4, mov, webm), bytes', 1024, 2 ** 40),
  UPLOAD_CHUNK_MAX_BYTES: Int(10 * 1_048_576, 'largest chunk of a chunked upload, bytes', 1024, 2 ** 31 - 1),
  UPLOAD_MAX_CHUNKS: Int(10_000, 'largest total_chunks of a chunked upload', 1, 100_000),
  UPLOAD_CHUNK_TTL_HOURS: Int(24, 'hours an unfinished chunked upload is kept after its last chunk before the sweep removes it', 1, 8760),
  UPLOAD_PUBLIC_IMAGES: Bool(false, '`true` serves image attachments without a token at their public URL (an unguessable name)'),
  // File storage: the local disk, or an S3-compatible bucket that any number of hosts share.
  STORAGE_DRIVER: Type.Union([Type.Literal('local'), Type.Literal('s3')], {
    default: 'local',
    description: '`local`: files under DATA_DIR/uploads (several instances need it on a shared volume); `s3`: files in the S3-compatible bucket S3_BUCKET (AWS S3, MinIO, Cloudflare R2, ...), which any number of hosts share',
  }),
  S3_ENDPOINT: OptStr('URL of the S3-compatible service (http://127.0.0.1:9000, https://<account>.r2.cloudflarestorage.com); unset: AWS S3 in S3_REGION'),
  S3_REGION: Str('us-east-1', 'region of the bucket (`auto` for Cloudflare R2; MinIO accepts the default)'),
  S3_BUCKET: OptStr('bucket that holds the files; required with STORAGE_DRIVER=s3'),
  S3_ACCESS_KEY_ID: OptStr('access key of the store; with S3_SECRET_ACCESS_KEY, or neither: the AWS SDK\'s own chain (AWS_* variables, shared files, an instance or container role)'),
  S3_SECRET_ACCESS_KEY: OptStr('secret key of S3_ACCESS_KEY_ID'),
  S3_FORCE_PATH_STYLE: Bool(false, '`true`: requests name the bucket in the path (http://host/bucket/key), as MinIO and most self-hosted stores need; `false`: in the host name (bucket.host), as AWS prefers'),
  S3_PREFIX: Str('', 'folder of every key in the bucket (`fieldops/` or `fieldops/prod`), so that deployments can share a bucket; empty: the bucket\'s root'),
  S3_PUBLIC_ENDPOINT: OptStr('URL at which clients reach the store themselves: the storage can then issue short-lived presigned download URLs signed for it; unset: it issues none'),
  // Time-clock: tracking, security, webhooks, rate limits.
  PERIOD_LOCK_MANAGERS: Str('', 'comma-separated usernames of the managers who may lock and unlock periods of timesheets; empty: every manager'),
  ATTENDANCE_SWEEP_MS: Int(60_000, 'how often each instance looks for forgotten clock-outs (reminders, automatic clock-outs); each acts once across instances', 1000, 3_600_000),
  TRACKING_WINDOW_SECONDS: Int(300, 'a worker is tracking while their last location update arrived within this many seconds', 10, 86_400),
  LOCATION_RETENTION_DAYS: Int(90, 'days location samples are kept (purged at start-up and hourly, in batches); 0 keeps them forever', 0, 36_500),
  IMPOSSIBLE_TRAVEL_KMH: Int(300, 'implied speed between two consecutive positions of a worker above which an impossible_travel alert is raised, km/h', 10, 100_000),
  WEBHOOK_TIMEOUT_MS: Int(5000, 'time allowed for one webhook delivery attempt (connect, send, answer)', 100, 60_000),
  WEBHOOK_RETRY_BASE_MS: Int(5000, 'delay before the first retry of a failed webhook delivery; it doubles with each attempt', 10, 600_000),
  WEBHOOK_RETRY_MAX_MS: Int(3_600_000, 'longest delay between two attempts of a webhook delivery', 10, 86_400_000),
  WEBHOOK_MAX_AGE_HOURS: Int(24, 'hours a webhook delivery is retried before it is marked failed', 1, 720),
  WEBHOOK_POLL_MS: Int(1000, 'how often each instance looks for due webhook deliveries (new ones also wake it at once)', 50, 60_000),
  WEBHOOK_RETENTION_DAYS: Int(30, 'days finished webhook deliveries (delivered or failed) stay in the delivery log; 0 keeps them forever', 0, 36_500),
  WEBHOOK_ALLOW_PRIVATE: Type.Optional(Type.Boolean({ description: 'whether webhook URLs may point at loopback, private or link-local addresses; unset: allowed except in production' })),
  TIMECLOCK_RATE_LIMIT_AUTH: Int(5, 'time-clock login and token refresh requests per minute per client IP', 1, 1_000_000),
  TIMECLOCK_RATE_LIMIT_CLOCK: Int(10, 'time-clock clock events per minute per user', 1, 1_000_000),
  TIMECLOCK_RATE_LIMIT_LOCATION: Int(60, 'time-clock location updates per minute per user', 1, 1_000_000),
  TIMECLOCK_RATE_LIMIT_GENERAL: Int(100, 'other time-clock requests per minute per user', 1, 1_000_000),
  FORCE_CLOCK_OUT_ENABLED: Bool(true, '`false` refuses the FORCE_CLOCK_OUT QR value (a forced clock-out bypasses QR and geofence checks)'),
  // Time-clock: punches captured offline and sent later (`capturedAt` of POST /api/clock).
  CLOCK_MIN_INTERVAL_SECONDS: Int(10, 'duplicate-punch window: a punch within this many seconds of the worker’s previous one (by the events’ times) is refused (409 PUNCH_TOO_SOON); 0: off, only the same-state rule applies', 0, 3600),
  CLOCK_CAPTURE_WINDOW_HOURS: Int(24, 'oldest capture time POST /api/clock accepts, hours before its receipt (older: 400)', 1, 720),
  CLOCK_CAPTURE_FUTURE_SECONDS: Int(120, 'how far a capture time may be ahead of the server clock (device clock skew), seconds (further: 400); such a punch is recorded at its receipt', 0, 3600),
  CLOCK_LATE_AFTER_SECONDS: Int(120, 'a punch received more than this many seconds after its capture time is late (flagged for managers to review)', 1, 86_400),
  CLOCK_LATE_ALERT_HOURS: Int(12, 'a late punch received more than this many hours after its capture raises a late_punch security alert; 0: never for the gap alone', 0, 720),
  CLOCK_LATE_ONLINE_ALERT: Bool(true, 'a late punch raises a late_punch security alert when the server heard from the worker (a location update, an own clock request, a device check) between its capture and its receipt'),
  CLOCK_LATE_ONLINE_GRACE_SECONDS: Int(120, 'contacts within this many seconds after the capture or before the receipt do not count for CLOCK_LATE_ONLINE_ALERT (a reconnecting phone sends its queues in a burst)', 0, 86_400),
  // Time-clock: the manager console.
  CLOCK_MAP_TILE_URL: Str('', 'tile URL template of the manager console’s maps, e.g. https://tile.openstreetmap.org/{z}/{x}/{y}.png; empty: no tiles (fences drawn on a plain grid, works offline)'),
  CLOCK_MAP_ATTRIBUTION: Str('', 'attribution text shown on the manager console’s maps (e.g. © OpenStreetMap contributors)'),
  SHUTDOWN_DRAIN_MS: Int(1000, 'on SIGTERM, how long /readyz answers 503 before the listener closes', 0, 20_000),
  SHUTDOWN_TIMEOUT_MS: Int(25_000, 'hard limit for a graceful shutdown', 1000, 120_000),
  LOG_FORMAT: Type.Union([Type.Literal('auto'), Type.Literal('json'), Type.Literal('pretty')], {
    default: 'auto',
    description: '`json`: one JSON object per line; `pretty`: readable lines (pino-pretty); `auto`: pretty when standard output is a terminal, else JSON',
  }),
  LOG_LEVEL: Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)), {
    default: 'info',
    description: 'pino log level',
  }),
});

export type RawConfig = Static<typeof ConfigSchema>;

/** Settings whose values never appear in messages. */
const SECRET_SETTINGS = new Set(['METRICS_TOKEN', 'JWT_SECRET', 'ADMIN_PASSWORD', 'MANAGER_PASSWORD', 'DATABASE_URL', 'REDIS_URL', 'S3_SECRET_ACCESS_KEY']);
export type Config = RawConfig & {
  services: ReadonlySet<'admin' | 'timeclock'>;
  protectedAdmins: ReadonlySet<string>;
  /** TRUST_PROXY as a list; empty: no proxy is trusted. */
  trustedProxies: readonly string[];
  /** CORS_ORIGINS as a list; empty: no cross-origin access. */
  corsOrigins: readonly string[];
  dataDir: string;
  /** S3_PREFIX as prepended to keys: empty, or ending with `/`. */
  s3Prefix: string;
};

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Coerces environment strings to the schema's types; empty strings count as unset. */
function fromEnv(env: Record<string, string | undefined>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(ConfigSchema.properties)) {
    const raw = env[key];
    if (raw === undefined || raw.trim() === '') continue;
    const type = (schema as { type?: string }).type;
    if (type === 'integer') out[key] = /^-?\d+$/.test(raw.trim()) ? Number(raw.trim()) : raw;
    else if (type === 'boolean') out[key] = ['true', '1', 'yes'].includes(raw.trim().toLowerCase()) ? true : ['false', '0', 'no'].includes(raw.trim().toLowerCase()) ? false : raw;
    else out[key] = raw.trim();
  }
  return out;
}

let checkConfig: ValidateFunction | undefined;

/**
 * Reads and validates the configuration. Throws ConfigError naming every bad variable.
 * `env` defaults to process.env plus a `.env` file in the working directory when present.
 */
export function loadConfig(env?: Record<string, string | undefined>): Config {
  if (!env) {
    if (existsSync('.env')) process.loadEnvFile('.env');
    env = process.env;
  }
  // Checked by the Ajv the HTTP layer loads anyway (TypeBox's own checker is 300 more modules,
  // about 2.5 MB of heap, for this one call); it fills in the defaults as it goes.
  const value = fromEnv(env);
  const check = checkConfig ??= new Ajv({ useDefaults: true, allErrors: true, strict: false }).compile(ConfigSchema);
  check(value);
  const problems = new Map<string, string>();
  const show = (key: string) => (SECRET_SETTINGS.has(key) ? '[redacted]' : JSON.stringify(value[key]));
  for (const e of check.errors ?? []) {
    const key = e.instancePath.replace(/^\//, '') || '(config)';
    if (problems.has(key)) continue;
    const prop = (ConfigSchema.properties as Record<string, { description?: string; anyOf?: { const: string }[] }>)[key];
    const message = prop?.anyOf ? `must be one of ${prop.anyOf.map((s) => s.const).join(', ')}` : e.message;
    problems.set(key, `${key}=${show(key)}: ${message}${prop?.description ? ` (${prop.description})` : ''}`);
  }
  if (typeof value.DISPLAY_TIMEZONE === 'string' && canonicalTimeZone(value.DISPLAY_TIMEZONE) === null) {
    problems.set('DISPLAY_TIMEZONE', `DISPLAY_TIMEZONE=${show('DISPLAY_TIMEZONE')}: not an IANA time zone`);
  }
  if (typeof value.TRUST_PROXY === 'string') {
    const bad = splitList(value.TRUST_PROXY).filter((p) => !isProxySpec(p));
    if (bad.length > 0) {
      problems.set('TRUST_PROXY', `TRUST_PROXY=${show('TRUST_PROXY')}: not an address or CIDR block: ${bad.join(', ')}`);
    }
  }
  if (typeof value.CORS_ORIGINS === 'string') {
    const bad = splitList(value.CORS_ORIGINS).filter((o) => !isOrigin(o));
    if (bad.length > 0) {
      problems.set('CORS_ORIGINS', `CORS_ORIGINS=${show('CORS_ORIGINS')}: not an origin (scheme://host[:port], nothing after): ${bad.join(', ')}`);
    }
  }
  if ((value.TLS_CERT_FILE === undefined) !== (value.TLS_KEY_FILE === undefined)) {
    problems.set('TLS_CERT_FILE', 'TLS_CERT_FILE and TLS_KEY_FILE: set both for HTTPS, or neither');
  }
  for (const key of ['TLS_CERT_FILE', 'TLS_KEY_FILE']) {
    if (typeof value[key] === 'string' && !existsSync(value[key])) problems.set(key, `${key}=${show(key)}: no such file`);
  }
  for (const [key, problem] of storageProblems(value)) problems.set(key, `${key}=${show(key)}: ${problem}`);
  if (value.NODE_ENV === 'production') {
    if (!value.JWT_SECRET) problems.set('JWT_SECRET', 'JWT_SECRET: required in production');
    if (value.CAPTCHA_ENABLED === false) problems.set('CAPTCHA_ENABLED', 'CAPTCHA_ENABLED=false: not allowed in production');
  }
  if (problems.size > 0) {
    throw new ConfigError(`Invalid configuration:\n${[...problems.values()].map((l) => `  ${l}`).join('\n')}`);
  }
  const raw = value as RawConfig;
  return {
    ...raw,
    services: new Set(raw.SERVICES.split(',') as ('admin' | 'timeclock')[]),
    protectedAdmins: new Set(raw.PROTECTED_ADMINS.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean)),
    trustedProxies: splitList(raw.TRUST_PROXY),
    corsOrigins: splitList(raw.CORS_ORIGINS),
    dataDir: path.resolve(raw.DATA_DIR),
    s3Prefix: raw.S3_PREFIX === '' || raw.S3_PREFIX.endsWith('/') ? raw.S3_PREFIX : `${raw.S3_PREFIX}/`,
  };
}

/** S3 bucket names: 3 to 63 lower-case letters, digits, dots and dashes, starting and ending with a letter or digit. */
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
/** Folders of letters, digits, dots, dashes and underscores, none starting with a dot, an optional `/` at the end. */
const KEY_PREFIX = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*\/?$/;

/** The S3 settings that are wrong, by variable: the bucket required with the s3 driver, names and URLs well formed. */
function storageProblems(value: Record<string, unknown>): Map<string, string> {
  const problems = new Map<string, string>();
  if (value.STORAGE_DRIVER === 's3' && value.S3_BUCKET === undefined) problems.set('S3_BUCKET', 'required with STORAGE_DRIVER=s3');
  if (typeof value.S3_BUCKET === 'string' && !BUCKET_NAME.test(value.S3_BUCKET)) {
    problems.set('S3_BUCKET', 'not a bucket name (3 to 63 lower-case letters, digits, dots and dashes, starting and ending with a letter or digit)');
  }
  for (const key of ['S3_ENDPOINT', 'S3_PUBLIC_ENDPOINT']) {
    if (typeof value[key] === 'string' && !isServiceUrl(value[key])) problems.set(key, 'not an http(s) URL without credentials, query or fragment');
  }
  if ((value.S3_ACCESS_KEY_ID === undefined) !== (value.S3_SECRET_ACCESS_KEY === undefined)) {
    const missing = value.S3_ACCESS_KEY_ID === undefined ? 'S3_ACCESS_KEY_ID' : 'S3_SECRET_ACCESS_KEY';
    problems.set(missing, 'set S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY together, or neither (the AWS SDK\'s own credentials)');
  }
  if (typeof value.S3_PREFIX === 'string' && value.S3_PREFIX !== '' && (value.S3_PREFIX.length > 256 || !KEY_PREFIX.test(value.S3_PREFIX))) {
    problems.set('S3_PREFIX', 'not a folder path (letters, digits, `.`, `_`, `-` separated by `/`, no segment starting with a dot, no `/` first)');
  }
  return problems;
}

function isServiceUrl(spec: string): boolean {
  try {
    const url = new URL(spec);
    return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password && !url.search && !url.hash;
  } catch {
    return false;
  }
}

function splitList(s: string): string[] {
  return s.split(',').map((x) => x.trim()).filter(Boolean);
}

/** A proxy address, a CIDR block (address/prefix) or one of proxy-addr's named ranges. */
function isProxySpec(spec: string): boolean {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(spec)) return true;
  const [address = '', prefix, ...rest] = spec.split('/');
  const family = isIP(address);
  if (family === 0 || address.includes('%') || rest.length > 0) return false;
  return prefix === undefined || (/^(0|[1-9]\d{0,2})$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

/** An http(s) origin written as browsers send it in `Origin`. */
function isOrigin(spec: string): boolean {
  try {
    const url = new URL(spec);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === spec;
  } catch {
    return false;
  }
}
