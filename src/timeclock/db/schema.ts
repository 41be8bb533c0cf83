// Drizzle descriptions of every table of the time-clock schema (migrations/timeclock/*.sql
// creates them); row types are `typeof table.$inferSelect`. The value lists of CHECK constraints
// are declared here too, so that the columns' types are their literal unions.
import { sql } from 'drizzle-orm';
import {
  bigint, boolean, doublePrecision, integer, jsonb, pgSchema, primaryKey, smallint, text, timestamp, uuid, varchar, type AnyPgColumn,
} from 'drizzle-orm/pg-core';
import { passwordHistoryTable } from '../../platform/auth/password-history.ts';
import { exportTasksTable } from '../../platform/jobs/export-tasks.ts';
import type { Fence } from '../kernel/geofence.ts';

export const timeclockSchema = pgSchema('timeclock');

export const ROLES = ['worker', 'manager'] as const;
export const EVENT_TYPES = ['clock_in', 'clock_out'] as const;
export const LOCATION_SOURCES = ['background', 'manual', 'clock_event'] as const;
export const SEVERITIES = ['low', 'medium', 'high'] as const;
export const DELIVERY_STATUSES = ['pending', 'processing', 'delivered', 'failed'] as const;
export const ALERT_STATUSES = ['open', 'acknowledged', 'resolved'] as const;
/** Where a punch comes from: the clock, a correction, or the automatic clock-out. */
export const PUNCH_ORIGINS = ['punch', 'correction', 'auto'] as const;
export const CORRECTION_KINDS = ['add', 'move', 'void'] as const;
export const CORRECTION_STATUSES = ['pending', 'approved', 'rejected', 'cancelled'] as const;

const id = () => bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity();
const ref = (name: string) => bigint(name, { mode: 'number' });
const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const createdAt = () => ts('created_at').notNull().defaultNow();
const updatedAt = () => ts('updated_at').notNull().defaultNow();

export const users = timeclockSchema.table('users', {
  id: id(),
  username: varchar('username', { length: 64 }).notNull(),
  passwordHash: text('password_hash').notNull(),
  fullName: varchar('full_name', { length: 128 }).notNull().default(''),
  role: varchar('role', { length: 16, enum: ROLES }).notNull(),
  status: smallint('status').notNull().default(1),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
  deletedAt: ts('deleted_at'),
  /** Epoch seconds: tokens without a version claim (issued before migration 0005) issued before are revoked. */
  tokensValidAfter: bigint('tokens_valid_after', { mode: 'number' }).notNull().default(0),
  /** Every token carries it; a password change, disabling or deleting adds one, revoking every earlier token. */
  tokenVersion: integer('token_version').notNull().default(0),
  /** When the password was set: its age, against the policy's maximum. */
  passwordChangedAt: ts('password_changed_at').notNull().defaultNow(),
  /** Someone else set the password: the account's tokens are good only for choosing a new one (kernel/auth.ts). */
  mustChangePassword: boolean('must_change_password').notNull().default(false),
});

/** The hashes of workers' and managers' earlier passwords (`account_id` a user; kernel/passwords.ts). */
export const passwordHistory = passwordHistoryTable(timeclockSchema);

/** Failed sign-ins per account name (lower-cased, existing or not) within the policy's window. */
export const loginFailures = timeclockSchema.table('login_failures', {
  accountKey: text('account_key').primaryKey(),
  failures: integer('failures').notNull(),
  endsAt: ts('ends_at').notNull(),
  /** Set by the failure that reached the policy's limit: the name is locked until then. */
  lockedUntil: ts('locked_until'),
});

export const tags = timeclockSchema.table('tags', {
  id: id(),
  name: varchar('name', { length: 64 }).notNull(),
  createdAt: createdAt(),
});

export const workerTags = timeclockSchema.table('worker_tags', {
  userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  tagId: ref('tag_id').notNull().references(() => tags.id, { onDelete: 'cascade' }),
}, (t) => [primaryKey({ columns: [t.userId, t.tagId] })]);

export const devices = timeclockSchema.table('devices', {
  userId: ref('user_id').primaryKey().references(() => users.id, { onDelete: 'cascade' }),
  deviceUuid: varchar('device_uuid', { length: 64 }).notNull().unique(),
  registeredAt: ts('registered_at').notNull().defaultNow(),
  lastSeen: ts('last_seen').notNull().defaultNow(),
});

export const sites = timeclockSchema.table('sites', {
  id: id(),
  name: varchar('name', { length: 128 }).notNull(),
  fence: jsonb('fence').$type<Fence>(),
  isDefault: boolean('is_default').notNull().default(false),
  /** IANA zone of the site's days (timesheets); null: the configured DISPLAY_TIMEZONE. */
  timezone: varchar('timezone', { length: 64 }),
  /** Local time (HH:MM, the site's zone) the site closes: a session open after it is a forgotten clock-out. */
  closesAt: varchar('closes_at', { length: 5 }),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const qrCodes = timeclockSchema.table('qr_codes', {
  id: uuid('id').primaryKey(),
  name: varchar('name', { length: 128 }).notNull(),
  siteId: ref('site_id').notNull().references(() => sites.id),
  isActive: boolean('is_active').notNull().default(true),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
  deactivatedAt: ts('deactivated_at'),
});

export const clockEvents = timeclockSchema.table('clock_events', {
  id: id(),
  userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  eventType: varchar('event_type', { length: 16, enum: EVENT_TYPES }).notNull(),
  qrCodeId: uuid('qr_code_id').references(() => qrCodes.id),
  siteId: ref('site_id').references(() => sites.id, { onDelete: 'set null' }),
  // Null only for a punch added by a correction.
  latitude: doublePrecision('latitude'),
  longitude: doublePrecision('longitude'),
  forced: boolean('forced').notNull().default(false),
  notes: varchar('notes', { length: 500 }),
  // Millisecond precision, as the API shows it.
  createdAt: ts('created_at').notNull().default(sql`date_trunc('milliseconds', clock_timestamp())`),
  receivedAt: ts('received_at').notNull().default(sql`date_trunc('milliseconds', clock_timestamp())`),
  capturedAt: ts('captured_at'),
  clientEventId: uuid('client_event_id'),
  recordedBy: ref('recorded_by').references(() => users.id, { onDelete: 'set null' }),
  late: boolean('late').notNull().default(false),
  implausibleGap: boolean('implausible_gap').notNull().default(false),
  reviewedAt: ts('reviewed_at'),
  reviewedBy: ref('reviewed_by').references(() => users.id, { onDelete: 'set null' }),
  origin: varchar('origin', { length: 16, enum: PUNCH_ORIGINS }).notNull().default('punch'),
  /** Set when a correction voided or replaced it: out of every total, kept in the history. */
  voidedAt: ts('voided_at'),
  voidedBy: ref('voided_by').references((): AnyPgColumn => corrections.id),
  /** The correction that inserted it (an added or moved punch). */
  correctionId: ref('correction_id').references((): AnyPgColumn => corrections.id),
  /** The punch a move replaced. */
  replacesId: ref('replaces_id').references((): AnyPgColumn => clockEvents.id),
});

/** A punch as a correction stores it before and after. */
export interface PunchValues {
  eventId: number | null;
  eventType: (typeof EVENT_TYPES)[number];
  at: string;
  siteId: number | null;
}

export const corrections = timeclockSchema.table('corrections', {
  id: id(),
  userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  kind: varchar('kind', { length: 8, enum: CORRECTION_KINDS }).notNull(),
  eventId: ref('event_id').references((): AnyPgColumn => clockEvents.id),
  before: jsonb('before').$type<PunchValues[]>(),
  after: jsonb('after').$type<PunchValues[]>(),
  reason: varchar('reason', { length: 500 }).notNull(),
  status: varchar('status', { length: 16, enum: CORRECTION_STATUSES }).notNull(),
  requestedBy: ref('requested_by').references(() => users.id, { onDelete: 'set null' }),
  requestedAt: ts('requested_at').notNull().default(sql`date_trunc('milliseconds', clock_timestamp())`),
  decidedBy: ref('decided_by').references(() => users.id, { onDelete: 'set null' }),
  decidedAt: ts('decided_at'),
  decisionNote: varchar('decision_note', { length: 500 }),
  resultId: ref('result_id').references((): AnyPgColumn => clockEvents.id),
});

export const notifications = timeclockSchema.table('notifications', {
  id: id(),
  userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  kind: varchar('kind', { length: 32 }).notNull(),
  data: jsonb('data').$type<Record<string, unknown>>().notNull().default({}),
  createdAt: ts('created_at').notNull().default(sql`date_trunc('milliseconds', clock_timestamp())`),
  readAt: ts('read_at'),
});

export const workerState = timeclockSchema.table('worker_state', {
  userId: ref('user_id').primaryKey().references(() => users.id, { onDelete: 'cascade' }),
  state: varchar('state', { length: 16, enum: EVENT_TYPES }).notNull(),
  lastEventId: ref('last_event_id').references(() => clockEvents.id, { onDelete: 'set null' }),
  updatedAt: updatedAt(),
});

export const clockRequests = timeclockSchema.table('clock_requests', {
  userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  clientEventId: uuid('client_event_id').notNull(),
  request: jsonb('request').notNull(),
  status: smallint('status'),
  reply: jsonb('reply'),
  eventId: ref('event_id').references(() => clockEvents.id, { onDelete: 'set null' }),
  createdAt: createdAt(),
}, (t) => [primaryKey({ columns: [t.userId, t.clientEventId] })]);

/** A position sample's columns: every sample, and each worker's newest. */
const position = () => ({
  latitude: doublePrecision('latitude').notNull(),
  longitude: doublePrecision('longitude').notNull(),
  accuracy: doublePrecision('accuracy'),
  source: varchar('source', { length: 16, enum: LOCATION_SOURCES }).notNull(),
  recordedAt: ts('recorded_at').notNull(),
  receivedAt: ts('received_at').notNull().defaultNow(),
});

export const locationSamples = timeclockSchema.table('location_samples', {
  id: id(),
  userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  ...position(),
});

export const lastPositions = timeclockSchema.table('last_positions', {
  userId: ref('user_id').primaryKey().references(() => users.id, { onDelete: 'cascade' }),
  ...position(),
});

export const securityAlerts = timeclockSchema.table('security_alerts', {
  id: id(),
  userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  alertType: varchar('alert_type', { length: 32 }).notNull(),
  severity: varchar('severity', { length: 8, enum: SEVERITIES }).notNull(),
  details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
  createdAt: createdAt(),
  status: varchar('status', { length: 16, enum: ALERT_STATUSES }).notNull().default('open'),
  acknowledgedAt: ts('acknowledged_at'),
  acknowledgedBy: ref('acknowledged_by').references((): AnyPgColumn => users.id, { onDelete: 'set null' }),
  acknowledgeNote: varchar('acknowledge_note', { length: 1000 }),
  resolvedAt: ts('resolved_at'),
  resolvedBy: ref('resolved_by').references((): AnyPgColumn => users.id, { onDelete: 'set null' }),
  resolveNote: varchar('resolve_note', { length: 1000 }),
});

export const securityChecks = timeclockSchema.table('security_checks', {
  id: id(),
  userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  riskScore: integer('risk_score').notNull(),
  riskLevel: varchar('risk_level', { length: 8, enum: SEVERITIES }).notNull(),
  createdAt: createdAt(),
});

export const appBlacklist = timeclockSchema.table('app_blacklist', {
  packageId: varchar('package_id', { length: 255 }).primaryKey(),
  createdAt: createdAt(),
});

export const webhookEndpoints = timeclockSchema.table('webhook_endpoints', {
  id: id(),
  url: varchar('url', { length: 2048 }).notNull(),
  events: text('events').array().notNull(),
  secret: text('secret').notNull(),
  description: varchar('description', { length: 255 }).notNull().default(''),
  isActive: boolean('is_active').notNull().default(true),
  createdBy: ref('created_by').references(() => users.id, { onDelete: 'set null' }),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const webhookDeliveries = timeclockSchema.table('webhook_deliveries', {
  id: id(),
  endpointId: ref('endpoint_id').notNull().references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
  resendOf: ref('resend_of').references((): AnyPgColumn => webhookDeliveries.id, { onDelete: 'set null' }),
  event: varchar('event', { length: 64 }).notNull(),
  payload: text('payload').notNull(),
  status: varchar('status', { length: 16, enum: DELIVERY_STATUSES }).notNull().default('pending'),
  attempts: integer('attempts').notNull().default(0),
  nextAttemptAt: ts('next_attempt_at').notNull().defaultNow(),
  lockedBy: text('locked_by'),
  lockedUntil: ts('locked_until'),
  lastStatusCode: integer('last_status_code'),
  lastError: text('last_error'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
  deliveredAt: ts('delivered_at'),
});

/** The work rules in force are the newest row; each change is a row of its own (who, when). */
export const workRules = timeclockSchema.table('work_rules', {
  id: id(),
  rules: jsonb('rules').$type<Record<string, unknown>>().notNull(),
  changedBy: ref('changed_by').references(() => users.id, { onDelete: 'set null' }),
  changedAt: ts('changed_at').notNull().defaultNow(),
});

/** The platform's export queue in this schema (payroll exports). */
export const exportTasks = exportTasksTable(timeclockSchema);
