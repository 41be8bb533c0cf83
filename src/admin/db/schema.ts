// Drizzle descriptions of the admin schema's tables (migrations/admin/*.sql creates them).
import { bigint, boolean, integer, pgSchema, primaryKey, smallint, text, timestamp, varchar } from 'drizzle-orm/pg-core';

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
});

export const roles = adminSchema.table('roles', {
  id: id(),
  name: varchar('name', { length: 64 }).notNull(),
  slug: varchar('slug', { length: 64 }).notNull(),
  description: varchar('description', { length: 255 }).notNull().default(''),
  status: smallint('status').notNull().default(1),
  sort: integer('sort').notNull().default(0),
  isSystem: boolean('is_system').notNull().default(false),
  ...stamps,
});

export const menus = adminSchema.table('menus', {
  id: id(),
  parentId: ref('parent_id').notNull().default(0),
  title: varchar('title', { length: 64 }).notNull(),
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
});

export const loginLogs = adminSchema.table('login_logs', {
  id: id(),
  adminId: ref('admin_id'),
  username: varchar('username', { length: 64 }).notNull(),
  ip: varchar('ip', { length: 64 }).notNull().default(''),
  userAgent: varchar('user_agent', { length: 512 }).notNull().default(''),
  status: smallint('status').notNull(),
  reason: varchar('reason', { length: 64 }).notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
});

export const SUPER_ADMIN_ROLE = 'super_admin';
