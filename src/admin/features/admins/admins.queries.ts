// How administrators are read, declared once: an administrator's row (with its department's
// name and the sign-in lock on its name), the statements by id, for a page's roles and for the
// department tree, and the paged list with its filters and sort, with the filter and record
// types the export shares. Apart from the service (admins.service.ts), which builds them once and
// keeps the rules and the writes.
import { and, asc, eq, ilike, inArray, isNotNull, isNull, sql } from 'drizzle-orm';
import type { Static } from 'typebox';
import type { Orm } from '../../../platform/db/database.ts';
import { contains } from '../../../platform/db/like.ts';
import { atOrAfter, atOrBefore, pagedList } from '../../../platform/db/list.ts';
import { p } from '../../../platform/db/statements.ts';
import { adminRoles, admins, departments, loginFailures, roleDepartments, roles } from '../../db/schema.ts';
import { scopeCondition, scopeFilter, type DataScope } from '../../kernel/data-scope.ts';
import type { AdminOrderField, AdminRecord as AdminRecordSchema } from './admins.schema.ts';

/** The filters the list and the export share. */
export interface AdminFilter {
  username?: string | undefined;
  nickname?: string | undefined;
  status?: number | undefined;
  role_id?: number | undefined;
  department_id?: number | undefined;
  is_2fa_bound?: boolean | undefined;
  start_time?: string | undefined;
  end_time?: string | undefined;
  /** The caller's data scope, when it is not `all`. */
  scope?: DataScope | undefined;
}

/** An administrator as the API shows it. */
export type AdminRecord = Static<typeof AdminRecordSchema>;

/** An administrator's row as the list, the export and `get` read it: with its department's name. */
export const rowColumns = {
  id: admins.id,
  username: admins.username,
  nickname: admins.nickname,
  email: admins.email,
  phone: admins.phone,
  avatar: admins.avatar,
  departmentId: admins.departmentId,
  status: admins.status,
  bound: sql<boolean>`(${admins.totpSecret} IS NOT NULL)`.mapWith(Boolean),
  createdAt: admins.createdAt,
  updatedAt: admins.updatedAt,
  lastLoginAt: admins.lastLoginAt,
  // The lock failed sign-ins put on the account's name (one primary-key read per row of a page).
  lockedUntil: sql<Date | null>`(SELECT ${loginFailures.lockedUntil} FROM ${loginFailures}
    WHERE ${loginFailures.accountKey} = lower(${admins.username}) AND ${loginFailures.lockedUntil} > now())`.mapWith(loginFailures.lockedUntil),
  departmentName: departments.name,
  departmentNameI18n: departments.nameI18n,
};
export const selectRows = (orm: Orm) => orm.select(rowColumns).from(admins).leftJoin(departments, eq(departments.id, admins.departmentId));
export type AdminRow = Awaited<ReturnType<typeof selectRows>>[number];
/** One administrator (placeholder `id`) in a data scope (scopeValues). */
export const adminById = (orm: Orm) => selectRows(orm).where(and(eq(admins.id, p('id')), scopeCondition(admins.departmentId, admins.id))).prepare('admin_by_id');
/** The roles of the administrators `ids` (a placeholder: an array of ids), with their data scopes. */
export const rolesOf = (orm: Orm) =>
  orm
    .select({
      adminId: adminRoles.adminId, id: roles.id, name: roles.name, nameI18n: roles.nameI18n, slug: roles.slug, status: roles.status,
      dataScope: roles.dataScope,
      scopeDepartments: sql<number[] | null>`(SELECT array_agg(${roleDepartments.departmentId}) FROM ${roleDepartments} WHERE ${roleDepartments.roleId} = ${roles.id})`,
    })
    .from(adminRoles)
    .innerJoin(roles, eq(roles.id, adminRoles.roleId))
    .where(sql`${adminRoles.adminId} = any(${p('ids')})`)
    .orderBy(asc(roles.sort), asc(roles.id))
    .prepare('admin_roles');

/** Every department's place in the tree (for the effective data scopes of a page). */
export const departmentTree = (orm: Orm) => orm.select({ id: departments.id, parentId: departments.parentId }).from(departments).prepare('admins_department_tree');

/** The paged list of administrators; its filters are the export's too. */
export const adminsList = (orm: Orm) =>
  pagedList(orm, {
    name: 'admins',
    rows: (orm) => selectRows(orm).$dynamic(),
    table: admins,
    filters: {
      username: { param: contains, where: (x) => ilike(admins.username, x) },
      nickname: { param: contains, where: (x) => ilike(admins.nickname, x) },
      status: (x) => eq(admins.status, x),
      department_id: (x) => eq(admins.departmentId, x),
      role_id: (x, orm) => inArray(admins.id, orm.select({ id: adminRoles.adminId }).from(adminRoles).where(eq(adminRoles.roleId, x))),
      is_2fa_bound: { inline: (bound: boolean) => (bound ? isNotNull(admins.totpSecret) : isNull(admins.totpSecret)) },
      from: atOrAfter(admins.createdAt),
      to: atOrBefore(admins.createdAt),
      // The caller's data scope: an administrator's department, and the caller themself.
      scope: scopeFilter(admins.departmentId, admins.id),
    },
    sort: {
      id: admins.id,
      username: admins.username,
      created_at: admins.createdAt,
      last_login_at: admins.lastLoginAt,
      status: admins.status,
    } satisfies Record<AdminOrderField, unknown>,
    id: admins.id,
    nullsLast: ['last_login_at'],
  });
