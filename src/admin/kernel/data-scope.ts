// Data scopes (DESIGN §7.11, issue 31): which rows of the resources that belong to a department
// or an administrator a caller may see and change. Each role has a scope: `all`,
// `department_and_below` (the holder's department and every department under it), `department`
// (the holder's department), `custom` (the role's chosen departments) or `self` (the rows of
// the holder only). An administrator's scope is the union of their enabled roles' scopes; the
// super administrator's is `all`; an administrator always reaches the rows they own. The
// departments under one are read from the tree when the session is loaded (the guard's cache is
// dropped when a department moves), so a move changes `department_and_below` at once.
//
// A row outside the scope does not exist for the caller: lists and counts leave it out, and a
// detail or a write by id answers 404. Which columns decide, per resource, is in docs/API.md.
import { and, eq, or, sql, type AnyColumn, type Placeholder, type SQL } from 'drizzle-orm';
import { pgArray } from '../../platform/db/copy.ts';
import type { Database } from '../../platform/db/database.ts';
import { p } from '../../platform/db/statements.ts';
import { adminRoles, admins, departments, roleDepartments, roles, type DataScopeKind } from '../db/schema.ts';

/** What a caller reaches: every row (`all`), or the rows of `departments` and their own. */
export interface DataScope {
  all: boolean;
  /** The departments whose rows are reached (empty with `all`, which needs none). */
  departments: readonly number[];
  /** The caller: the rows they own are always reached. */
  adminId: number;
  /** The caller's department (null: none): where the rows they create belong. */
  departmentId: number | null;
}

/** Every row, read for no caller: the audit trail's states of a record before and after a write (kernel/audit.ts). */
export const everyRow: DataScope = { all: true, departments: [], adminId: 0, departmentId: null };

/** The scope of one administrator's own rows only (a service reading back what they just wrote). */
export const ownRows = (adminId: number): DataScope => ({ all: false, departments: [], adminId, departmentId: null });

export interface ScopedRole {
  dataScope: DataScopeKind;
  /** The chosen departments of a `custom` scope. */
  departments: readonly number[];
}

/**
 * The union of `roles`' scopes for the administrator `adminId` of department `departmentId`
 * (null: none), over the department tree `tree`.
 */
export function resolveScope(input: {
  adminId: number;
  departmentId: number | null;
  isSuper: boolean;
  roles: readonly ScopedRole[];
  tree: readonly { id: number; parentId: number }[];
}): DataScope {
  const { adminId, departmentId } = input;
  if (input.isSuper || input.roles.some((r) => r.dataScope === 'all')) return { all: true, departments: [], adminId, departmentId };
  const reached = new Set<number>();
  for (const role of input.roles) {
    if (role.dataScope === 'custom') for (const id of role.departments) reached.add(id);
    else if (role.dataScope === 'department' && departmentId !== null) reached.add(departmentId);
    else if (role.dataScope === 'department_and_below' && departmentId !== null) {
      for (const id of subtree(input.tree, departmentId)) reached.add(id);
    }
  }
  return { all: false, departments: [...reached].sort((a, b) => a - b), adminId, departmentId };
}

/** `root` and every department under it (a cycle in the tree ends the walk). */
function subtree(tree: readonly { id: number; parentId: number }[], root: number): number[] {
  const children = new Map<number, number[]>();
  for (const d of tree) {
    const list = children.get(d.parentId);
    if (list) list.push(d.id);
    else children.set(d.parentId, [d.id]);
  }
  const seen = new Set<number>([root]);
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.pop()!) ?? []) {
      if (!seen.has(child)) {
        seen.add(child);
        queue.push(child);
      }
    }
  }
  return [...seen];
}

/** Reads what an administrator's scope is made of (on each session load, with the grants). */
export class DataScopes {
  private readonly reads;

  constructor(db: Database) {
    const orm = db.orm;
    this.reads = {
      admin: orm.select({ departmentId: admins.departmentId }).from(admins).where(eq(admins.id, p('admin_id'))).prepare('scope_admin'),
      roles: orm
        .select({
          dataScope: roles.dataScope,
          departments: sql<number[]>`coalesce((SELECT array_agg(${roleDepartments.departmentId} ORDER BY ${roleDepartments.departmentId}) FROM ${roleDepartments} WHERE ${roleDepartments.roleId} = ${roles.id}), '{}')`,
        })
        .from(adminRoles)
        .innerJoin(roles, eq(roles.id, adminRoles.roleId))
        .where(and(eq(adminRoles.adminId, p('admin_id')), eq(roles.status, 1)))
        .prepare('scope_roles'),
      tree: orm.select({ id: departments.id, parentId: departments.parentId }).from(departments).prepare('scope_tree'),
    };
  }

  async of(adminId: number, isSuper: boolean): Promise<DataScope> {
    const [[admin], roleRows] = await Promise.all([
      this.reads.admin.execute({ admin_id: adminId }),
      isSuper ? Promise.resolve([]) : this.reads.roles.execute({ admin_id: adminId }),
    ]);
    const scoped = roleRows.map((r) => ({ dataScope: r.dataScope, departments: (r.departments ?? []).map(Number) }));
    const needsTree = scoped.some((r) => r.dataScope === 'department_and_below');
    return resolveScope({
      adminId,
      departmentId: admin?.departmentId ?? null,
      isSuper,
      roles: scoped,
      tree: needsTree ? await this.reads.tree.execute() : [],
    });
  }
}

/**
 * The condition "in the scope" over a resource's department column and owner column (either may
 * be null: a resource that belongs to one of them only), on the placeholders `departments` (an
 * array literal, as text: the same value on both drivers and in a COPY) and `owner`.
 */
const reached = (department: AnyColumn | null, owner: AnyColumn | null, x: (name: string) => Placeholder): SQL =>
  or(
    department ? sql`${department} = any(${x('departments')}::bigint[])` : undefined,
    owner ? eq(owner, x('owner')) : undefined,
  )!;

/**
 * The list-kit filter of a data scope (its value: the caller's DataScope): left out for `all`,
 * so the unscoped statements stay as they were.
 */
export const scopeFilter = (department: AnyColumn | null, owner: AnyColumn | null) => ({
  params: (scope: DataScope) => (scope.all ? undefined : { departments: pgArray(scope.departments), owner: scope.adminId }),
  condition: (x: (name: string) => Placeholder) => reached(department, owner, x),
});

/**
 * The condition "in the scope" of a row that belongs to an administrator only (a log row, an
 * upload, a notification sent, an export task): its owner is the caller, or an administrator of
 * a department the scope reaches (their department now).
 */
const ownedWithin = (owner: AnyColumn, x: (name: string) => Placeholder): SQL =>
  or(
    eq(owner, x('owner')),
    sql`${owner} IN (SELECT ${admins.id} FROM ${admins} WHERE ${admins.departmentId} = any(${x('departments')}::bigint[]))`,
  )!;

/** The list-kit filter of a data scope over a row's owning administrator (ownedWithin); left out for `all`. */
export const ownerScopeFilter = (owner: AnyColumn) => ({
  params: (scope: DataScope) => (scope.all ? undefined : { departments: pgArray(scope.departments), owner: scope.adminId }),
  condition: (x: (name: string) => Placeholder) => ownedWithin(owner, x),
});

/** ownedWithin for a statement declared once whatever the scope (its placeholders: scopeValues). */
export const ownerScopeCondition = (owner: AnyColumn): SQL => or(sql`${p('scope.all')}::boolean`, ownedWithin(owner, (name) => p(`scope.${name}`)))!;

/** ownedWithin with the scope's values in it (a statement built per call); undefined for `all`. */
export function ownedInScope(scope: DataScope, owner: AnyColumn): SQL | undefined {
  if (scope.all) return undefined;
  return or(
    eq(owner, scope.adminId),
    sql`${owner} IN (SELECT ${admins.id} FROM ${admins} WHERE ${admins.departmentId} = any(${pgArray(scope.departments)}::bigint[]))`,
  );
}

/** Whether `scope` reaches the rows of administrator `adminId` (their department now, or the caller themself). */
export async function reachesAdmin(db: Database, scope: DataScope, adminId: number): Promise<boolean> {
  if (scope.all || adminId === scope.adminId) return true;
  const [row] = await db.orm.select({ id: admins.id }).from(admins).where(and(eq(admins.id, adminId), inScope(scope, admins.departmentId, null)));
  return row !== undefined;
}

/**
 * The condition "in the scope" for a statement declared once whatever the scope (a detail, a
 * write by id): its placeholders are filled by `scopeValues(scope)`.
 */
export const scopeCondition = (department: AnyColumn | null, owner: AnyColumn | null): SQL =>
  or(sql`${p('scope.all')}::boolean`, reached(department, owner, (name) => p(`scope.${name}`)))!;

export const scopeValues = (scope: DataScope) => ({
  'scope.all': scope.all,
  'scope.departments': pgArray(scope.departments),
  'scope.owner': scope.adminId,
});

/** The condition "in the scope" with the scope's values in it (a statement built per call); undefined for `all`. */
export function inScope(scope: DataScope, department: AnyColumn | null, owner: AnyColumn | null): SQL | undefined {
  if (scope.all) return undefined;
  return or(
    department ? sql`${department} = any(${pgArray(scope.departments)}::bigint[])` : undefined,
    owner ? eq(owner, scope.adminId) : undefined,
  );
}
