// Roles: name, slug, status, and the sets of permissions and menus they grant. Writes run in
// one transaction; a change to what a role grants drops, after the commit, the cached grants
// of its administrators on every instance, so it applies to their next request. Updates and
// deletions run through the administration guard (no lock-out, no losing one's own
// `admin.update`), checked inside the transaction before the commit.
import { and, asc, count, desc, eq, ilike, inArray, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Orm } from '../../../platform/db/database.ts';
import { contains } from '../../../platform/db/like.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { offsetOf, parseOrderBy } from '../../../platform/http/schemas.ts';
import { formatDisplay } from '../../../platform/time.ts';
import type { AdminContext } from '../../context.ts';
import { adminRoles, menus, permissions, roleMenus, rolePermissions, roles, SUPER_ADMIN_ROLE } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import type { Principal } from '../../guard.ts';
import { FOREIGN_KEY_VIOLATION, pgErrorCode, UNIQUE_VIOLATION } from '../../../platform/db/errors.ts';
import { missingIds } from '../permissions/permissions.service.ts';
import type { RoleOrderField } from './roles.schema.ts';

type Row = typeof roles.$inferSelect;

export interface RoleInput {
  name?: string | undefined;
  slug?: string | undefined;
  description?: string | undefined;
  permission_ids?: number[] | undefined;
  menu_ids?: number[] | undefined;
  status?: number | undefined;
  sort?: number | undefined;
}

export interface RoleFilter {
  page: number;
  page_size: number;
  name?: string | undefined;
  status?: number | undefined;
  order_by?: string | undefined;
}

const ORDER_COLUMNS: Record<RoleOrderField, AnyPgColumn> = {
  id: roles.id,
  name: roles.name,
  slug: roles.slug,
  status: roles.status,
  sort: roles.sort,
  created_at: roles.createdAt,
  updated_at: roles.updatedAt,
};

const isSuperRole = (r: Row) => r.slug === SUPER_ADMIN_ROLE;

export class RoleService {
  private readonly ctx: AdminContext;
  private readonly orm: Orm;
  private readonly tz: string;
  constructor(ctx: AdminContext) {
    this.ctx = ctx;
    this.orm = ctx.platform.db.orm;
    this.tz = ctx.platform.config.DISPLAY_TIMEZONE;
  }

  async list(q: RoleFilter) {
    const where = and(
      q.name ? ilike(roles.name, contains(q.name)) : undefined,
      q.status !== undefined ? eq(roles.status, q.status) : undefined,
    );
    const { field, direction } = parseOrderBy<RoleOrderField>(q.order_by ?? 'id:desc');
    const dir = direction === 'asc' ? asc : desc;
    const order: SQL[] = [dir(ORDER_COLUMNS[field])];
    if (field !== 'id') order.push(dir(roles.id));
    const [rows, [total]] = await Promise.all([
      this.orm.select().from(roles).where(where).orderBy(...order).limit(q.page_size).offset(offsetOf(q)),
      this.orm.select({ n: count() }).from(roles).where(where),
    ]);
    return { list: await this.records(this.orm, rows), total: total?.n ?? 0 };
  }

  async get(id: number) {
    const [row] = await this.orm.select().from(roles).where(eq(roles.id, id));
    if (!row) throw new AppError(E.DATA_NOT_FOUND, { detail: `no role ${id}` });
    return (await this.records(this.orm, [row]))[0]!;
  }

  async create(input: RoleInput & { name: string; slug: string }) {
    return this.write(input.slug, async (tx) => {
      await this.checkIds(tx, input);
      const [row] = await tx
        .insert(roles)
        .values({
          name: input.name,
          slug: input.slug,
          description: input.description ?? '',
          status: input.status ?? 1,
          sort: input.sort ?? 0,
        })
        .returning();
      await this.replaceSets(tx, row!.id, input);
      // Nobody holds a new role yet: nothing to invalidate.
      return { record: (await this.records(tx, [row!]))[0]!, affected: [] };
    });
  }

  async update(caller: Principal, id: number, input: RoleInput) {
    return this.write(input.slug, (tx) => this.ctx.rbac.guardAdministration(tx, caller.adminId, E.UPDATE_FAILED, async () => {
      const [current] = await tx.select().from(roles).where(eq(roles.id, id)).for('update');
      if (!current) throw new AppError(E.DATA_NOT_FOUND, { detail: `no role ${id}` });
      if (isSuperRole(current) || current.isSystem) {
        if (input.slug !== undefined && input.slug !== current.slug) {
          throw new AppError(E.ACCESS_DENIED, { detail: `the slug of the system role ${current.slug} cannot be changed` });
        }
        if (input.status === 0) throw new AppError(E.ACCESS_DENIED, { detail: `the system role ${current.slug} cannot be disabled` });
      }
      await this.checkIds(tx, input);
      // The sets first, then the row: a failure of either (a duplicate slug) undoes both.
      await this.replaceSets(tx, id, input);
      const [row] = await tx
        .update(roles)
        .set({
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.slug !== undefined ? { slug: input.slug } : {}),
          ...(input.description !== undefined ? { description: input.description } : {}),
          ...(input.status !== undefined ? { status: input.status } : {}),
          ...(input.sort !== undefined ? { sort: input.sort } : {}),
          updatedAt: new Date(),
        })
        .where(eq(roles.id, id))
        .returning();
      const grantsChange = input.permission_ids !== undefined || input.menu_ids !== undefined
        || (input.status !== undefined && input.status !== current.status);
      return { record: (await this.records(tx, [row!]))[0]!, affected: grantsChange ? await this.holdersOf(tx, id) : [] };
    }));
  }

  /** Deletes a role nobody holds; the super-administrator role is never deleted. */
  async remove(caller: Principal, id: number) {
    await this.write(undefined, (tx) => this.ctx.rbac.guardAdministration(tx, caller.adminId, E.DELETE_FAILED, async () => {
      // The row lock makes a concurrent assignment of this role wait for (and then fail on) the delete.
      const [current] = await tx.select().from(roles).where(eq(roles.id, id)).for('update');
      if (!current) throw new AppError(E.DATA_NOT_FOUND, { detail: `no role ${id}` });
      if (isSuperRole(current) || current.isSystem) {
        throw new AppError(E.ACCESS_DENIED, { detail: `the system role ${current.slug} cannot be deleted` });
      }
      const [held] = await tx.select({ n: count() }).from(adminRoles).where(eq(adminRoles.roleId, id));
      if ((held?.n ?? 0) > 0) {
        throw new AppError(E.DELETE_FAILED, { detail: `the role ${current.slug} is held by ${held!.n} administrator(s); remove it from them first` });
      }
      await tx.delete(roles).where(eq(roles.id, id));
      return { record: null, affected: [] };
    }));
  }

  /**
   * Runs `fn` in one transaction; maps a duplicate slug to 30002 and an id that vanished
   * meanwhile to 30001; after the commit, drops the cached grants of the administrators it returns.
   */
  private async write<T>(slug: string | undefined, fn: (tx: Orm) => Promise<{ record: T; affected: number[] }>): Promise<T> {
    let result: { record: T; affected: number[] };
    try {
      result = await this.orm.transaction((tx) => fn(tx as unknown as Orm));
    } catch (err) {
      const code = pgErrorCode(err);
      if (code === UNIQUE_VIOLATION) throw new AppError(E.ALREADY_EXISTS, { detail: `a role with slug ${slug ?? ''} already exists` });
      if (code === FOREIGN_KEY_VIOLATION) throw new AppError(E.VALIDATION, { detail: 'a permission, menu or role referred to no longer exists' });
      throw err;
    }
    if (result.affected.length) await this.ctx.sessions.publish({ admins: result.affected });
    return result.record;
  }

  /** Refuses unknown permission or menu ids, naming them. */
  private async checkIds(tx: Orm, input: RoleInput) {
    const problems: string[] = [];
    const unknownPermissions = await missingIds(tx, permissions.id, input.permission_ids ?? []);
    if (unknownPermissions.length) problems.push(`unknown permission_ids: ${unknownPermissions.join(', ')}`);
    const unknownMenus = await missingIds(tx, menus.id, input.menu_ids ?? []);
    if (unknownMenus.length) problems.push(`unknown menu_ids: ${unknownMenus.join(', ')}`);
    if (problems.length) {
      throw new AppError(E.VALIDATION, {
        detail: problems.join('; '),
        details: { field: unknownPermissions.length ? 'permission_ids' : 'menu_ids' },
      });
    }
  }

  /** Replaces the sets that `input` carries (an absent set is left as it is). */
  private async replaceSets(tx: Orm, roleId: number, input: RoleInput) {
    if (input.permission_ids !== undefined) {
      await tx.delete(rolePermissions).where(eq(rolePermissions.roleId, roleId));
      if (input.permission_ids.length) {
        await tx.insert(rolePermissions).values(input.permission_ids.map((permissionId) => ({ roleId, permissionId })));
      }
    }
    if (input.menu_ids !== undefined) {
      await tx.delete(roleMenus).where(eq(roleMenus.roleId, roleId));
      if (input.menu_ids.length) {
        await tx.insert(roleMenus).values(input.menu_ids.map((menuId) => ({ roleId, menuId })));
      }
    }
  }

  private async holdersOf(tx: Orm, roleId: number): Promise<number[]> {
    const rows = await tx.select({ id: adminRoles.adminId }).from(adminRoles).where(eq(adminRoles.roleId, roleId));
    return rows.map((r) => r.id);
  }

  /** Role rows as records, with their permission and menu ids (ascending). */
  private async records(orm: Orm, rows: Row[]) {
    const ids = rows.map((r) => r.id);
    if (ids.length === 0) return [];
    // One after the other: `orm` may be a transaction (one connection).
    const perms = await orm.select().from(rolePermissions).where(inArray(rolePermissions.roleId, ids)).orderBy(asc(rolePermissions.permissionId));
    const menuRows = await orm.select().from(roleMenus).where(inArray(roleMenus.roleId, ids)).orderBy(asc(roleMenus.menuId));
    const permsOf = new Map<number, number[]>();
    for (const p of perms) (permsOf.get(p.roleId) ?? permsOf.set(p.roleId, []).get(p.roleId)!).push(p.permissionId);
    const menusOf = new Map<number, number[]>();
    for (const m of menuRows) (menusOf.get(m.roleId) ?? menusOf.set(m.roleId, []).get(m.roleId)!).push(m.menuId);
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      slug: r.slug,
      description: r.description,
      status: r.status,
      sort: r.sort,
      is_system: r.isSystem,
      created_at: formatDisplay(r.createdAt, this.tz)!,
      updated_at: formatDisplay(r.updatedAt, this.tz)!,
      permission_ids: permsOf.get(r.id) ?? [],
      menu_ids: menusOf.get(r.id) ?? [],
    }));
  }
}
