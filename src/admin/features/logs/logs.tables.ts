// Drizzle descriptions of the log tables that migrations/admin/0006_logs.sql creates
// (admin.login_logs is in ../../db/schema.ts).
import { bigint, integer, jsonb, smallint, timestamp, varchar } from 'drizzle-orm/pg-core';
import { adminSchema } from '../../db/schema.ts';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const operationLogs = adminSchema.table('operation_logs', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
  adminId: bigint('admin_id', { mode: 'number' }),
  username: varchar('username', { length: 64 }).notNull().default(''),
  module: varchar('module', { length: 64 }).notNull(),
  action: varchar('action', { length: 64 }).notNull(),
  method: varchar('method', { length: 8 }).notNull(),
  route: varchar('route', { length: 255 }).notNull().default(''),
  path: varchar('path', { length: 2048 }).notNull(),
  ip: varchar('ip', { length: 64 }).notNull().default(''),
  userAgent: varchar('user_agent', { length: 512 }).notNull().default(''),
  params: jsonb('params').$type<Record<string, unknown>>().notNull().default({}),
  statusCode: smallint('status_code').notNull(),
  durationMs: integer('duration_ms').notNull(),
  traceId: varchar('trace_id', { length: 128 }).notNull().default(''),
  createdAt: ts('created_at').notNull().defaultNow(),
});

export const SYSTEM_LOG_LEVELS = ['error', 'warning', 'info', 'debug'] as const;
export type SystemLogLevel = (typeof SYSTEM_LOG_LEVELS)[number];

export const systemLogs = adminSchema.table('system_logs', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
  level: varchar('level', { length: 8 }).$type<SystemLogLevel>().notNull(),
  message: varchar('message', { length: 2048 }).notNull(),
  traceId: varchar('trace_id', { length: 128 }).notNull().default(''),
  context: jsonb('context').$type<Record<string, unknown>>().notNull().default({}),
  createdAt: ts('created_at').notNull().defaultNow(),
});

export type OperationLogRow = typeof operationLogs.$inferInsert;
export type SystemLogRow = typeof systemLogs.$inferInsert;
