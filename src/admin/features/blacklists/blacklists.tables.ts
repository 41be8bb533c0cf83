// Drizzle description of admin.blacklists (migrations/admin/0003_blacklists.sql creates it).
import { bigint, smallint, timestamp, varchar } from 'drizzle-orm/pg-core';
import { adminSchema } from '../../db/schema.ts';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const blacklists = adminSchema.table('blacklists', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
  ip: varchar('ip', { length: 100 }).notNull(),
  remark: varchar('remark', { length: 255 }).notNull().default(''),
  status: smallint('status').notNull().default(1),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});
