// Drizzle descriptions of every table of the admin schema (migrations/admin/*.sql creates
// them); row types are `typeof table.$inferSelect`. The value lists of CHECK constraints are
// declared here too, so that the columns' types are their literal unions.
import { passwordHistoryTable } from '../../platform/auth/password-history.ts';
import { LOCATION_KINDS } from '../../platform/geo/ip-location.ts';
import { exportTasksTable } from '../../platform/jobs/export-tasks.ts';
import type { Translations } from '../../platform/translations.ts';
import type { RecordChange } from '../kernel/audit.ts';
import { bigint, boolean, char, date, integer, jsonb, numeric, pgSchema, primaryKey, smallint, text, timestamp, varchar } from 'drizzle-orm/pg-core';

export const adminSchema = pgSchema('admin');

const id = () => bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity();
const ref = (name: string) => bigint(name, { mode: 'number' });
const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const stamps = {
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
};

export const departments = adminSchema.table('departments', {
  id: id(),
  parentId: ref('parent_id').notNull().default(0),
  name: varchar('name', { length: 64 }).notNull(),
  nameI18n: jsonb('name_i18n').$type<Translations>().notNull().default({}),
  leader: varchar('leader', { length: 64 }).notNull().default(''),
  phone: varchar('phone', { length: 32 }).notNull().default(''),
  email: varchar('email', { length: 128 }).notNull().default(''),
  status: smallint('status').notNull().default(1),
  sort: integer('sort').notNull().default(0),
  ...stamps,
});

export const admins = adminSchema.table('admins', {
  id: id(),
  username: varchar('username', { length: 64 }).notNull(),
  passwordHash: text('password_hash').notNull(),
  nickname: varchar('nickname', { length: 64 }).notNull().default(''),
  email: varchar('email', { length: 128 }).notNull().default(''),
  phone: varchar('phone', { length: 32 }).notNull().default(''),
  avatar: varchar('avatar', { length: 512 }).notNull().default(''),
  departmentId: ref('department_id'),
  status: smallint('status').notNull().default(1),
  totpSecret: text('totp_secret'),
  totpLastStep: ref('totp_last_step'),
  lastLoginAt: ts('last_login_at'),
  lastLoginIp: varchar('last_login_ip', { length: 64 }),
  ...stamps,
  /** When the password was set: its age, against the policy's maximum. */
  passwordChangedAt: ts('password_changed_at').notNull().defaultNow(),
  /** Someone else set the password: sign-in gives a session good only for choosing a new one. */
  mustChangePassword: boolean('must_change_password').notNull().default(false),
});

/** The hashes of administrators' earlier passwords (`account_id` an administrator; kernel/passwords.ts). */
export const passwordHistory = passwordHistoryTable(adminSchema);

/** The one row of the password and account policy (kernel/passwords.ts); none: the defaults. */
export const passwordPolicy = adminSchema.table('password_policy', {
  id: smallint('id').primaryKey().default(1),
  minLength: integer('min_length').notNull(),
  minClasses: integer('min_classes').notNull(),
  rejectCommon: boolean('reject_common').notNull(),
  rejectUsername: boolean('reject_username').notNull(),
  history: integer('history').notNull(),
  maxAgeDays: integer('max_age_days').notNull(),
  lockMaxFailures: integer('lock_max_failures').notNull(),
  lockSeconds: integer('lock_seconds').notNull(),
  updatedBy: ref('updated_by'),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

/** A role's data scope (kernel/data-scope.ts): which departments' and administrators' rows its holders reach. */
export const DATA_SCOPES = ['all', 'department_and_below', 'department', 'custom', 'self'] as const;
export type DataScopeKind = (typeof DATA_SCOPES)[number];

export const roles = adminSchema.table('roles', {
  id: id(),
  name: varchar('name', { length: 64 }).notNull(),
  slug: varchar('slug', { length: 64 }).notNull(),
  description: varchar('description', { length: 255 }).notNull().default(''),
  nameI18n: jsonb('name_i18n').$type<Translations>().notNull().default({}),
  descriptionI18n: jsonb('description_i18n').$type<Translations>().notNull().default({}),
  status: smallint('status').notNull().default(1),
  sort: integer('sort').notNull().default(0),
  isSystem: boolean('is_system').notNull().default(false),
  /** Its enabled holders without an authenticator get a session good only for binding one (sessions.bindingOnly). */
  requireAuthenticator: boolean('require_authenticator').notNull().default(false),
  dataScope: varchar('data_scope', { length: 24, enum: DATA_SCOPES }).notNull().default('all'),
  ...stamps,
});

/** The departments of a role whose data scope is `custom`. */
export const roleDepartments = adminSchema.table('role_departments', {
  roleId: ref('role_id').notNull(),
  departmentId: ref('department_id').notNull(),
}, (t) => [primaryKey({ columns: [t.roleId, t.departmentId] })]);

export const menus = adminSchema.table('menus', {
  id: id(),
  parentId: ref('parent_id').notNull().default(0),
  title: varchar('title', { length: 64 }).notNull(),
  titleI18n: jsonb('title_i18n').$type<Translations>().notNull().default({}),
  slug: varchar('slug', { length: 64 }).notNull(),
  icon: varchar('icon', { length: 64 }).notNull().default(''),
  path: varchar('path', { length: 255 }).notNull().default(''),
  component: varchar('component', { length: 255 }).notNull().default(''),
  type: smallint('type').notNull(),
  status: smallint('status').notNull().default(1),
  sort: integer('sort').notNull().default(0),
  ...stamps,
});

export const permissions = adminSchema.table('permissions', {
  id: id(),
  name: varchar('name', { length: 128 }).notNull(),
  slug: varchar('slug', { length: 128 }).notNull(),
  method: varchar('method', { length: 8 }).notNull().default(''),
  path: varchar('path', { length: 255 }).notNull().default(''),
  menuId: ref('menu_id'),
  status: smallint('status').notNull().default(1),
  isSystem: boolean('is_system').notNull().default(false),
  ...stamps,
});

export const adminRoles = adminSchema.table('admin_roles', {
  adminId: ref('admin_id').notNull(),
  roleId: ref('role_id').notNull(),
}, (t) => [primaryKey({ columns: [t.adminId, t.roleId] })]);

export const rolePermissions = adminSchema.table('role_permissions', {
  roleId: ref('role_id').notNull(),
  permissionId: ref('permission_id').notNull(),
}, (t) => [primaryKey({ columns: [t.roleId, t.permissionId] })]);

export const roleMenus = adminSchema.table('role_menus', {
  roleId: ref('role_id').notNull(),
  menuId: ref('menu_id').notNull(),
}, (t) => [primaryKey({ columns: [t.roleId, t.menuId] })]);

export const sessions = adminSchema.table('sessions', {
  id: id(),
  adminId: ref('admin_id').notNull(),
  tokenJti: varchar('token_jti', { length: 64 }).notNull(),
  ip: varchar('ip', { length: 64 }).notNull().default(''),
  userAgent: varchar('user_agent', { length: 512 }).notNull().default(''),
  createdAt: ts('created_at').notNull().defaultNow(),
  lastActiveAt: ts('last_active_at').notNull().defaultNow(),
  expiresAt: ts('expires_at').notNull(),
  endedAt: ts('ended_at'),
  endReason: varchar('end_reason', { length: 32 }),
  /** Opened for binding an authenticator only (a role requires one): other routes refuse it until then. */
  bindingOnly: boolean('binding_only').notNull().default(false),
});

/** One-time recovery codes of an administrator's authenticator (argon2id hashes; kernel/second-factor.ts). */
export const recoveryCodes = adminSchema.table('recovery_codes', {
  id: id(),
  adminId: ref('admin_id').notNull(),
  codeHash: text('code_hash').notNull(),
  usedAt: ts('used_at'),
  createdAt: ts('created_at').notNull().defaultNow(),
});

export const loginLogs = adminSchema.table('login_logs', {
  id: id(),
  adminId: ref('admin_id'),
  username: varchar('username', { length: 64 }).notNull(),
  ip: varchar('ip', { length: 64 }).notNull().default(''),
  userAgent: varchar('user_agent', { length: 512 }).notNull().default(''),
  status: smallint('status').notNull(),
  reason: varchar('reason', { length: 64 }).notNull(),
  /** Where `ip` is (migration 0021; platform/geo/ip-location.ts): rows older than the migration are `unknown`. */
  locationKind: varchar('location_kind', { length: 16, enum: LOCATION_KINDS }).notNull().default('unknown'),
  /** ISO 3166-1 alpha-2 of a public address the data places; empty otherwise. */
  country: varchar('country', { length: 2 }).notNull().default(''),
  city: varchar('city', { length: 128 }).notNull().default(''),
  createdAt: ts('created_at').notNull().defaultNow(),
});

export const SUPER_ADMIN_ROLE = 'super_admin';

/** parent_id 0: a dictionary type; otherwise an item of the type with that id. */
export const dictionaries = adminSchema.table('dictionaries', {
  id: id(),
  parentId: ref('parent_id').notNull().default(0),
  name: varchar('name', { length: 64 }).notNull(),
  code: varchar('code', { length: 64 }).notNull(),
  value: varchar('value', { length: 255 }).notNull().default(''),
  description: varchar('description', { length: 255 }).notNull().default(''),
  nameI18n: jsonb('name_i18n').$type<Translations>().notNull().default({}),
  descriptionI18n: jsonb('description_i18n').$type<Translations>().notNull().default({}),
  status: smallint('status').notNull().default(1),
  sort: integer('sort').notNull().default(0),
  ...stamps,
});

export const blacklists = adminSchema.table('blacklists', {
  id: id(),
  ip: varchar('ip', { length: 100 }).notNull(),
  remark: varchar('remark', { length: 255 }).notNull().default(''),
  status: smallint('status').notNull().default(1),
  ...stamps,
});

export const operationLogs = adminSchema.table('operation_logs', {
  id: id(),
  adminId: ref('admin_id'),
  username: varchar('username', { length: 64 }).notNull().default(''),
  module: varchar('module', { length: 64 }).notNull(),
  action: varchar('action', { length: 64 }).notNull(),
  method: varchar('method', { length: 8 }).notNull(),
  route: varchar('route', { length: 255 }).notNull().default(''),
  path: varchar('path', { length: 2048 }).notNull(),
  ip: varchar('ip', { length: 64 }).notNull().default(''),
  userAgent: varchar('user_agent', { length: 512 }).notNull().default(''),
  params: jsonb('params').$type<Record<string, unknown>>().notNull().default({}),
  /** What the operation changed, record by record (logs.changes.ts); null when the route records no values. */
  changes: jsonb('changes').$type<RecordChange[]>(),
  statusCode: smallint('status_code').notNull(),
  durationMs: integer('duration_ms').notNull(),
  traceId: varchar('trace_id', { length: 128 }).notNull().default(''),
  createdAt: ts('created_at').notNull().defaultNow(),
});

export const SYSTEM_LOG_LEVELS = ['error', 'warning', 'info', 'debug'] as const;
export type SystemLogLevel = (typeof SYSTEM_LOG_LEVELS)[number];

export const systemLogs = adminSchema.table('system_logs', {
  id: id(),
  level: varchar('level', { length: 8, enum: SYSTEM_LOG_LEVELS }).notNull(),
  message: varchar('message', { length: 2048 }).notNull(),
  traceId: varchar('trace_id', { length: 128 }).notNull().default(''),
  context: jsonb('context').$type<Record<string, unknown>>().notNull().default({}),
  createdAt: ts('created_at').notNull().defaultNow(),
});

/** The export queue's table (the platform's mechanism, platform/jobs/export-tasks.ts; migration 0007). */
export const exportTasks = exportTasksTable(adminSchema);

/** Money: numeric(12,2), read as its decimal text (never through a binary float). */
const money = (name: string) => numeric(name, { precision: 12, scale: 2 });

export const ORDER_STATUSES = ['pending', 'paid', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const orders = adminSchema.table('orders', {
  id: id(),
  orderNo: varchar('order_no', { length: 32 }).notNull(),
  requestId: varchar('request_id', { length: 64 }).notNull(),
  userId: ref('user_id').notNull(),
  amount: money('amount').notNull(),
  status: varchar('status', { length: 16, enum: ORDER_STATUSES }).notNull().default('pending'),
  createdBy: ref('created_by'),
  /** The creator's department when the order was made (its data scope); null: none. */
  departmentId: ref('department_id'),
  paidAt: ts('paid_at'),
  ...stamps,
});

export const orderDetails = adminSchema.table('order_details', {
  id: id(),
  orderId: ref('order_id').notNull(),
  productId: ref('product_id').notNull(),
  productName: varchar('product_name', { length: 200 }).notNull(),
  price: money('price').notNull(),
  quantity: integer('quantity').notNull(),
});

/** One run of the order CSV import; kept ORDER_IMPORT_KEEP_HOURS for its rejected rows. */
export const orderImports = adminSchema.table('order_imports', {
  id: id(),
  adminId: ref('admin_id').notNull(),
  /** The first line of the rejected-rows file (CSV, CRLF-terminated). */
  header: text('header').notNull(),
  total: integer('total').notNull().default(0),
  succeeded: integer('succeeded').notNull().default(0),
  failed: integer('failed').notNull().default(0),
  duplicates: integer('duplicates').notNull().default(0),
  createdAt: ts('created_at').notNull().defaultNow(),
  /** Null while it runs, and for an import that stopped. */
  finishedAt: ts('finished_at'),
});

/** A record an import refused: its cells as a CSV line (no line end) and its reasons (a JSON array of stored Msg). */
export const orderImportRejects = adminSchema.table('order_import_rejects', {
  importId: ref('import_id').notNull(),
  rowNo: integer('row_no').notNull(),
  line: text('line').notNull(),
  reasons: text('reasons').notNull(),
}, (t) => [primaryKey({ columns: [t.importId, t.rowNo] })]);

export const paymentMethods = adminSchema.table('payment_methods', {
  id: id(),
  name: varchar('name', { length: 64 }).notNull(),
  code: varchar('code', { length: 64 }).notNull(),
  type: varchar('type', { length: 32 }).notNull(),
  /** Unmasked: mask with maskConfig before it leaves the service's callers. */
  config: jsonb('config').$type<Record<string, unknown>>().notNull().default({}),
  isActive: boolean('is_active').notNull().default(true),
  sort: integer('sort').notNull().default(0),
  description: varchar('description', { length: 500 }).notNull().default(''),
  ...stamps,
});

export const PAYMENT_STATUSES = ['pending', 'paid', 'failed', 'cancelled'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export const payments = adminSchema.table('payments', {
  id: id(),
  paymentNo: varchar('payment_no', { length: 32 }).notNull(),
  orderId: ref('order_id'),
  orderNo: varchar('order_no', { length: 32 }).notNull(),
  userId: ref('user_id').notNull(),
  paymentMethodId: ref('payment_method_id').notNull(),
  amount: money('amount').notNull(),
  status: varchar('status', { length: 16, enum: PAYMENT_STATUSES }).notNull(),
  /** The order's creator and department (its data scope), copied from the order. */
  createdBy: ref('created_by'),
  departmentId: ref('department_id'),
  paidAt: ts('paid_at'),
  ...stamps,
});

/** The time zone whose calendar days the business rollup below is kept in (one row; migration 0019). */
export const businessRollupZone = adminSchema.table('business_rollup_zone', {
  onlyRow: boolean('only_row').primaryKey().default(true),
  timeZone: text('time_zone').notNull(),
});

// The business rollup (migration 0019, kept by its triggers): sums per day of the rollup's zone
// and per department of the order (0: none). A sum that fell to zero keeps its row.
const rollupDay = () => date('day', { mode: 'string' }).notNull();
const rollupDepartment = () => ref('department_id').notNull();

/** Orders by day, department and status: how many, and their amount, in shares (`slot`) that add up. */
export const businessOrdersDaily = adminSchema.table('business_orders_daily', {
  day: rollupDay(),
  departmentId: rollupDepartment(),
  status: varchar('status', { length: 16, enum: ORDER_STATUSES }).notNull(),
  slot: smallint('slot').notNull(),
  orders: integer('orders').notNull(),
  amount: numeric('amount').notNull(),
}, (t) => [primaryKey({ columns: [t.day, t.departmentId, t.status, t.slot] })]);

/** Paid payment records by the day they were written, department and method. */
export const businessPaymentsDaily = adminSchema.table('business_payments_daily', {
  day: rollupDay(),
  departmentId: rollupDepartment(),
  paymentMethodId: ref('payment_method_id').notNull(),
  payments: integer('payments').notNull(),
  amount: numeric('amount').notNull(),
}, (t) => [primaryKey({ columns: [t.day, t.departmentId, t.paymentMethodId] })]);

/** Details of paid orders by the order's department (also -1: every department) and day, product and product name. */
export const businessProductsDaily = adminSchema.table('business_products_daily', {
  departmentId: rollupDepartment(),
  day: rollupDay(),
  productId: ref('product_id').notNull(),
  productName: varchar('product_name', { length: 200 }).notNull(),
  quantity: integer('quantity').notNull(),
  revenue: numeric('revenue').notNull(),
}, (t) => [primaryKey({ columns: [t.departmentId, t.day, t.productId, t.productName] })]);

export const ATTACHMENT_TYPES = ['image', 'document', 'video'] as const;
export type AttachmentType = (typeof ATTACHMENT_TYPES)[number];

export const attachments = adminSchema.table('attachments', {
  id: id(),
  type: varchar('type', { length: 16, enum: ATTACHMENT_TYPES }).notNull(),
  originalName: varchar('original_name', { length: 255 }).notNull(),
  storedName: varchar('stored_name', { length: 64 }).notNull(),
  storageKey: varchar('storage_key', { length: 255 }).notNull(),
  extension: varchar('extension', { length: 8 }).notNull(),
  contentType: varchar('content_type', { length: 128 }).notNull(),
  size: ref('size').notNull(),
  sha256: char('sha256', { length: 64 }).notNull(),
  uploadedBy: ref('uploaded_by').notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
});

export const UPLOAD_STATUSES = ['open', 'merging', 'merged'] as const;

export const uploadSessions = adminSchema.table('upload_sessions', {
  id: id(),
  chunkId: varchar('chunk_id', { length: 64 }).notNull(),
  ownerId: ref('owner_id').notNull(),
  filename: varchar('filename', { length: 255 }).notNull(),
  totalChunks: integer('total_chunks').notNull(),
  storageDir: varchar('storage_dir', { length: 32 }).notNull(),
  status: varchar('status', { length: 16, enum: UPLOAD_STATUSES }).notNull().default('open'),
  mergeToken: varchar('merge_token', { length: 32 }),
  attachmentId: ref('attachment_id'),
  ...stamps,
});

export const uploadChunks = adminSchema.table('upload_chunks', {
  sessionId: ref('session_id').notNull(),
  chunkIndex: integer('chunk_index').notNull(),
  size: ref('size').notNull(),
  sha256: char('sha256', { length: 64 }).notNull(),
  receivedAt: ts('received_at').notNull().defaultNow(),
}, (t) => [primaryKey({ columns: [t.sessionId, t.chunkIndex] })]);

export const notifications = adminSchema.table('notifications', {
  id: id(),
  title: varchar('title', { length: 200 }).notNull(),
  content: text('content').notNull(),
  kind: varchar('kind', { length: 32 }).notNull().default('message'),
  senderId: ref('sender_id'),
  createdAt: ts('created_at').notNull().defaultNow(),
  /** System notifications: the stored Msg (`{ key, params }`) rendered in each reader's language; null: literal text. */
  titleMsg: jsonb('title_msg'),
  contentMsg: jsonb('content_msg'),
  link: varchar('link', { length: 512 }),
  linkExpiresAt: ts('link_expires_at'),
});

export const notificationRecipients = adminSchema.table('notification_recipients', {
  adminId: ref('admin_id').notNull(),
  notificationId: ref('notification_id').notNull(),
  readAt: ts('read_at'),
}, (t) => [primaryKey({ columns: [t.adminId, t.notificationId] })]);

export const loginFailures = adminSchema.table('login_failures', {
  accountKey: text('account_key').primaryKey(),
  failures: integer('failures').notNull(),
  endsAt: ts('ends_at').notNull(),
  /** Set by the failure that reached the policy's limit: the name is locked until then. */
  lockedUntil: ts('locked_until'),
});

export type DictionaryRow = typeof dictionaries.$inferSelect;
export type OperationLogRow = typeof operationLogs.$inferInsert;
export type SystemLogRow = typeof systemLogs.$inferInsert;
export type OrderRow = typeof orders.$inferSelect;
export type OrderDetailRow = typeof orderDetails.$inferSelect;
export type PaymentMethodRow = typeof paymentMethods.$inferSelect;
export type PaymentRow = typeof payments.$inferSelect;
export type AttachmentRow = typeof attachments.$inferSelect;
