// Drizzle description of admin.dictionaries (migrations/admin/0002_dictionaries.sql creates it).
import { bigint, integer, smallint, timestamp, varchar } from 'drizzle-orm/pg-core';
import { adminSchema } from '../../db/schema.ts';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** parent_id 0: a dictionary type; otherwise an item of the type with that id. */
export const dictionaries = adminSchema.table('dictionaries', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
  parentId: bigint('parent_id', { mode: 'number' }).notNull().default(0),
  name: varchar('name', { length: 64 }).notNull(),
  code: varchar('code', { length: 64 }).notNull(),
  value: varchar('value', { length: 255 }).notNull().default(''),
  description: varchar('description', { length: 255 }).notNull().default(''),
  status: smallint('status').notNull().default(1),
  sort: integer('sort').notNull().default(0),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

export type DictionaryRow = typeof dictionaries.$inferSelect;
