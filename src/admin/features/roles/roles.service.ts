// Roles: name, slug, status, whether they require an authenticator (enforced at sign-in:
// features/auth), and the sets of permissions and menus they grant. Writes are
// the grant catalogue's (kernel/grant-catalogue.ts): one transaction, and a change to what a
// role grants applies to its administrators' next request. Updates and deletions run through
// the administration guard (no lock-out, no losing one's own `admin.update`). Nobody but a
// super administrator grants a role a permission or a menu they do not hold themselves, and the
// system (super-administrator) role is not edited at all: it passes every check whatever it lists.

import { asc, count, eq, inArray, sql, type AnyColumn } from 'drizzle-orm';
import type { Static } from 'typebox';
import type { Orm } from '../../../platform/db/database.ts';
import { contains } from '../../../platform/db/like.ts';
import { declared, pagedList } from '../../../platform/db/list.ts';
import { p } from '../../../platform/db/statements.ts';
import { missingIds } from '../../../platform/db/missing-ids.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { displayStamps } from '../../../platform/time.ts';
import { adminRoles, departments, menus, permissions, roleDepartments, roleMenus, rolePermissions, roles, SUPER_ADMIN_ROLE } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import { GrantCatalogue } from '../../kernel/grant-catalogue.ts';
import type { Principal } from '../../kernel/guard.ts';
import type { CreateRoleBody, RoleOrderField, RoleQuery, UpdateRoleBody } from './roles.schema.ts';
import { msg, type Locale, type Msg } from '../../../platform/i18n.ts';
import { everyLanguage, localized, matchesTranslated, writeText } from '../../../platform/translations.ts';

type Row = typeof roles.$inferSelect;

const ORDER_COLUMNS: Record<RoleOrderField, AnyColumn> = {
  id: roles.id,
  name: roles.name,
  slug: roles.slug,
  status: roles.status,
  sort: roles.sort,
  created_at: roles.createdAt,
  updated_at: roles.updatedAt,
};

const isSuperRole = (r: Row) => r.slug === SUPER_ADMIN_ROLE;

/** The permission, menu and (custom data scope) department links of the roles `ids` (a placeholder: an array of ids), each set ascending. */
const setsOf = (orm: Orm) => ({
  permissions: orm.select().from(rolePermissions).where(sql`${rolePermissions.roleId} = any(${p('ids')})`).orderBy(asc(rolePermissions.permissionId))
    .prepare('role_permissions_of'),
  menus: orm.select().from(roleMenus).where(sql`${roleMenus.roleId} = any(${p('ids')})`).orderBy(asc(roleMenus.menuId)).prepare('role_menus_of'),
  departments: orm.select().from(roleDepartments).where(sql`${roleDepartments.roleId} = any(${p('ids')})`).orderBy(asc(roleDepartments.departmentId))
    .prepare('role_departments_of'),
});

export class RolesService extends GrantCatalogue<typeof roles> {
  protected readonly table = roles;
  protected readonly noun = msg('noun.role');
  protected readonly vanished = msg('admin.roles.referenceVanished');
  /** setsOf, on a transaction's connection when given one. */
  private readonly sets = declared(this.orm, setsOf);
  private readonly rolesList = pagedList(this.orm, {
    name: 'roles',
    rows: (orm) => orm.select().from(roles).$dynamic(),
    table: roles,
    filters: {
      name: { param: contains, where: (x) => matchesTranslated(roles.name, roles.nameI18n, x) },
      status: (x) => eq(roles.status, x),
    },
    sort: ORDER_COLUMNS,
    id: roles.id,
  });

  async list(q: Static<typeof RoleQuery>, locale: Locale = 'en-US') {
    const { rows, total } = await this.rolesList.page(q, { ...q, order_by: q.order_by ?? 'id:desc' });
    return { list: await this.records(this.orm, rows, locale), total };
  }

  async get(id: number, locale: Locale = 'en-US') {
    return (await this.records(this.orm, [await this.rowOf(id)], locale))[0]!;
  }

  async create(caller: Principal, input: Static<typeof CreateRoleBody>, locale: Locale = 'en-US') {
    const heldMenus = await this.heldMenusFor(caller, input);
    const name = writeText(undefined, input.name, input.name_i18n, locale)!;
    const description = writeText(undefined, input.description ?? '', input.description_i18n, locale)!;
    return this.write(input.slug, async (tx) => {
      await this.checkIds(tx, input);
      await this.checkGrantable(tx, caller, heldMenus, input, { permissions: [], menus: [] });
      this.checkScope(caller, input, undefined);
      const [row] = await tx
        .insert(roles)
        .values({
          name: name.base,
          nameI18n: name.translations,
          slug: input.slug,
          description: description.base,
          descriptionI18n: description.translations,
          status: input.status ?? 1,
          sort: input.sort ?? 0,
          requireAuthenticator: input.require_authenticator ?? false,
          dataScope: input.data_scope ?? 'all',
        })
        .returning();
      await this.replaceSets(tx, row!.id, input);
      // Nobody holds a new role yet: nothing to invalidate.
      return { value: (await this.records(tx, [row!], locale))[0]!, affected: [] };
    });
  }

  async update(caller: Principal, id: number, input: Static<typeof UpdateRoleBody>, locale: Locale = 'en-US') {
    const heldMenus = await this.heldMenusFor(caller, input);
    return this.write(input.slug, async (tx) => {
      const current = await this.rowOf(id, tx, true);
      if (isSuperRole(current) || current.isSystem) {
        throw new AppError(E.ACCESS_DENIED, { detail: msg('admin.roles.systemRoleNotEditable', { slug: current.slug }) });
      }
      await this.checkIds(tx, input);
      const name = writeText({ base: current.name, translations: current.nameI18n }, input.name, input.name_i18n, locale);
      const description = writeText({ base: current.description, translations: current.descriptionI18n }, input.description, input.description_i18n, locale);
      await this.checkGrantable(tx, caller, heldMenus, input, await this.setsOfRole(tx, id));
      this.checkScope(caller, input, current);
      // The sets first, then the row: a failure of either (a duplicate slug) undoes both.
      await this.replaceSets(tx, id, input);
      const [row] = await tx
        .update(roles)
        // Fields absent from the request are undefined, which the builder leaves out of the SET.
        .set({
          name: name?.base,
          nameI18n: name?.translations,
          slug: input.slug,
          description: description?.base,
          descriptionI18n: description?.translations,
          status: input.status,
          sort: input.sort,
          // Applies at its holders' next sign-in: nothing to invalidate now.
          requireAuthenticator: input.require_authenticator,
          dataScope: input.data_scope,
          updatedAt: new Date(),
        })
        .where(eq(roles.id, id))
        .returning();
      const grantsChange = input.permission_ids !== undefined || input.menu_ids !== undefined
        || (input.status !== undefined && input.status !== current.status)
        || input.data_scope !== undefined || input.department_ids !== undefined;
      return { value: (await this.records(tx, [row!], locale))[0]!, affected: grantsChange ? await this.holdersOf(tx, id) : [] };
    }, { caller, failure: E.UPDATE_FAILED });
  }

  /** Deletes a role nobody holds; the super-administrator role is never deleted. */
  async remove(caller: Principal, id: number) {
    await this.write(undefined, async (tx) => {
      // The row lock makes a concurrent assignment of this role wait for (and then fail on) the delete.
      const current = await this.rowOf(id, tx, true);
      if (isSuperRole(current) || current.isSystem) {
        throw new AppError(E.ACCESS_DENIED, { detail: msg('admin.roles.systemNotDeleted', { slug: current.slug }) });
      }
      const [held] = await tx.select({ n: count() }).from(adminRoles).where(eq(adminRoles.roleId, id));
      if ((held?.n ?? 0) > 0) {
        throw new AppError(E.DELETE_FAILED, { detail: msg('admin.roles.heldByAdministrators', { slug: current.slug, value: held!.n }) });
      }
      await tx.delete(roles).where(eq(roles.id, id));
      return { value: null, affected: [] };
    }, { caller, failure: E.DELETE_FAILED });
  }

  /** Refuses unknown permission or menu ids, naming them. */
  private async checkIds(tx: Orm, input: Static<typeof UpdateRoleBody>) {
    const problems: Msg[] = [];
    const unknownPermissions = await missingIds(tx, permissions.id, input.permission_ids ?? []);
    if (unknownPermissions.length) problems.push(msg('admin.roles.unknownPermissionIds', { unknownPermissions }));
    const unknownMenus = await missingIds(tx, menus.id, input.menu_ids ?? []);
    if (unknownMenus.length) problems.push(msg('admin.roles.unknownMenuIds', { unknownMenus }));
    const unknownDepartments = await missingIds(tx, departments.id, input.department_ids ?? []);
    if (unknownDepartments.length) problems.push(msg('admin.roles.unknownDepartmentIds', { unknownDepartments }));
    if (problems.length) {
      throw new AppError(E.VALIDATION, {
        detail: problems,
        details: { field: unknownPermissions.length ? 'permission_ids' : unknownMenus.length ? 'menu_ids' : 'department_ids' },
      });
    }
  }

  /** The permission and menu ids role `id` grants now, read on `tx`. */
  private async setsOfRole(tx: Orm, id: number) {
    const perms = await tx.select({ id: rolePermissions.permissionId }).from(rolePermissions).where(eq(rolePermissions.roleId, id));
    const menuRows = await tx.select({ id: roleMenus.menuId }).from(roleMenus).where(eq(roleMenus.roleId, id));
    return { permissions: perms.map((r) => r.id), menus: menuRows.map((r) => r.id) };
  }

  /**
   * The menus the caller sees, when the change sets menus and the caller is not a super
   * administrator; read before the change's transaction, on a connection of its own.
   */
  private async heldMenusFor(caller: Principal, input: Static<typeof UpdateRoleBody>): Promise<ReadonlySet<number> | undefined> {
    if (caller.isSuper || input.menu_ids === undefined || input.menu_ids.length === 0) return undefined;
    return this.rbac.heldMenuIds(await this.rbac.grantsOf(caller.adminId));
  }

  /**
   * Refuses (403, 20003) a change that would make the role grant a permission or a menu it
   * does not grant now and the caller does not hold (a super administrator holds everything;
   * `heldMenus`: what heldMenusFor read). What the role already grants may stay, and anything
   * may be taken away.
   */
  private async checkGrantable(
    tx: Orm,
    caller: Principal,
    heldMenus: ReadonlySet<number> | undefined,
    input: Static<typeof UpdateRoleBody>,
    current: { permissions: number[]; menus: number[] },
  ) {
    if (caller.isSuper) return;
    const problems: Msg[] = [];
    const addedPermissions = (input.permission_ids ?? []).filter((id) => !current.permissions.includes(id));
    if (addedPermissions.length) {
      const rows = await tx.select({ slug: permissions.slug }).from(permissions).where(inArray(permissions.id, addedPermissions));
      const beyond = rows.map((r) => r.slug).filter((slug) => !caller.permissions.has(slug)).sort();
      if (beyond.length) problems.push(msg('admin.roles.cannotGrantPermissions', { slugs: beyond }));
    }
    const addedMenus = (input.menu_ids ?? []).filter((id) => !current.menus.includes(id));
    if (addedMenus.length) {
      const beyondIds = addedMenus.filter((id) => !heldMenus?.has(id));
      if (beyondIds.length) {
        const rows = await tx.select({ slug: menus.slug }).from(menus).where(inArray(menus.id, beyondIds));
        problems.push(msg('admin.roles.cannotGrantMenus', { slugs: rows.map((r) => r.slug).sort() }));
      }
    }
    if (problems.length) throw new AppError(E.ACCESS_DENIED, { detail: problems });
  }

  /**
   * Refuses (403, 20003) a data scope wider than the caller's own: a caller who does not reach
   * every row may set only `self`, or `custom` over departments they reach (what the role has
   * now may stay).
   */
  private checkScope(caller: Principal, input: Static<typeof UpdateRoleBody>, current: Row | undefined) {
    if (caller.scope.all) return;
    const scope = input.data_scope ?? current?.dataScope ?? 'all';
    if (input.data_scope === undefined && input.department_ids === undefined && current) return;
    const reached = new Set(caller.scope.departments);
    const beyond = scope === 'custom' ? (input.department_ids ?? []).filter((id) => !reached.has(id)) : [];
    if ((scope !== 'self' && scope !== 'custom') || beyond.length > 0) {
      throw new AppError(E.ACCESS_DENIED, { detail: msg('admin.roles.scopeBeyondOwn', { scope: msg(`admin.roles.scope.${scope}`) }) });
    }
  }

  /** Replaces the sets that `input` carries (an absent set is left as it is). */
  private async replaceSets(tx: Orm, roleId: number, input: Static<typeof UpdateRoleBody>) {
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
    if (input.department_ids !== undefined) {
      await tx.delete(roleDepartments).where(eq(roleDepartments.roleId, roleId));
      if (input.department_ids.length) {
        await tx.insert(roleDepartments).values(input.department_ids.map((departmentId) => ({ roleId, departmentId })));
      }
    }
  }

  private async holdersOf(tx: Orm, roleId: number): Promise<number[]> {
    const rows = await tx.select({ id: adminRoles.adminId }).from(adminRoles).where(eq(adminRoles.roleId, roleId));
    return rows.map((r) => r.id);
  }

  /** Role rows as records, with their permission and menu ids (ascending). */
  private async records(orm: Orm, rows: Row[], locale: Locale) {
    const ids = rows.map((r) => r.id);
    if (ids.length === 0) return [];
    // One after the other: `orm` may be a transaction (one connection).
    const sets = this.sets.on(orm);
    const perms = await sets.permissions.execute({ ids });
    const menuRows = await sets.menus.execute({ ids });
    const departmentRows = await sets.departments.execute({ ids });
    const permsOf = new Map<number, number[]>();
    for (const p of perms) (permsOf.get(p.roleId) ?? permsOf.set(p.roleId, []).get(p.roleId)!).push(p.permissionId);
    const menusOf = new Map<number, number[]>();
    for (const m of menuRows) (menusOf.get(m.roleId) ?? menusOf.set(m.roleId, []).get(m.roleId)!).push(m.menuId);
    const departmentsOf = new Map<number, number[]>();
    for (const d of departmentRows) (departmentsOf.get(d.roleId) ?? departmentsOf.set(d.roleId, []).get(d.roleId)!).push(d.departmentId);
    return rows.map((r) => ({
      id: r.id,
      name: localized(r.name, r.nameI18n, locale),
      name_i18n: everyLanguage(r.name, r.nameI18n),
      slug: r.slug,
      description: localized(r.description, r.descriptionI18n, locale),
      description_i18n: everyLanguage(r.description, r.descriptionI18n),
      status: r.status,
      sort: r.sort,
      is_system: r.isSystem,
      require_authenticator: r.requireAuthenticator,
      data_scope: r.dataScope,
      department_ids: r.dataScope === 'custom' ? (departmentsOf.get(r.id) ?? []) : [],
      ...displayStamps(r, this.tz),
      permission_ids: permsOf.get(r.id) ?? [],
      menu_ids: menusOf.get(r.id) ?? [],
    }));
  }
}
