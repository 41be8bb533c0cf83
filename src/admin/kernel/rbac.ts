// What an administrator's roles grant (part of the access kernel): permission slugs and menus.
// The super-administrator role grants everything; disabled roles, permissions and menus grant
// nothing. Also the one guard every change of grants runs through, so that administration
// cannot be locked out (how such a change is written: grant-catalogue.ts), and which
// administrators are protected.
import { and, asc, eq, exists, or, sql } from 'drizzle-orm';
import type { Config } from '../../platform/config.ts';
import type { Database, Executor, Orm } from '../../platform/db/database.ts';
import { p } from '../../platform/db/statements.ts';
import { AppError, type ErrorDef } from '../../platform/http/errors.ts';
import { buildTree, withAncestors } from '../../platform/tree.ts';
import { DataScopes, type DataScope } from './data-scope.ts';
import { adminRoles, admins, menus, permissions, roleMenus, rolePermissions, roles, SUPER_ADMIN_ROLE } from '../db/schema.ts';
import { msg, type Locale } from '../../platform/i18n.ts';
import { everyLanguage, localized, type LanguageValues, type Translations } from '../../platform/translations.ts';

/** The permission that lets an administrator manage administrators (with the super role). */
export const ADMINISTER_ADMINS = 'admin.update';

export interface Grants {
  /** `name` in the default language; `nameI18n` its translations. */
  roles: { id: number; name: string; slug: string; nameI18n?: Translations }[];
  isSuper: boolean;
  permissions: string[];
}

export interface MenuNode {
  id: number;
  parent_id: number;
  /** In the reader's language. */
  title: string;
  title_i18n: LanguageValues;
  slug: string;
  icon: string;
  path: string;
  component: string;
  type: number;
  status: number;
  sort: number;
  children: MenuNode[];
}

/**
 * The reads of every request's grants and menus, built once (placeholders: `admin_id`, and
 * `role_ids`, an array of role ids).
 */
const readStatements = (orm: Orm) => ({
  rolesOf: orm
    .select({ id: roles.id, name: roles.name, nameI18n: roles.nameI18n, slug: roles.slug, status: roles.status })
    .from(adminRoles)
    .innerJoin(roles, eq(roles.id, adminRoles.roleId))
    .where(eq(adminRoles.adminId, p('admin_id')))
    .orderBy(asc(roles.sort), asc(roles.id))
    .prepare('rbac_roles_of'),
  enabledPermissions: orm.select({ slug: permissions.slug }).from(permissions).where(eq(permissions.status, 1)).prepare('rbac_enabled_permissions'),
  permissionsOfRoles: orm
    .selectDistinct({ slug: permissions.slug })
    .from(rolePermissions)
    .innerJoin(permissions, eq(permissions.id, rolePermissions.permissionId))
    .where(and(sql`${rolePermissions.roleId} = any(${p('role_ids')})`, eq(permissions.status, 1)))
    .prepare('rbac_permissions_of_roles'),
  usernameOf: orm.select({ username: admins.username }).from(admins).where(eq(admins.id, p('admin_id'))).prepare('rbac_username_of'),
  superRoleOf: orm
    .select({ id: roles.id })
    .from(adminRoles)
    .innerJoin(roles, eq(roles.id, adminRoles.roleId))
    .where(and(eq(adminRoles.adminId, p('admin_id')), eq(roles.slug, SUPER_ADMIN_ROLE)))
    .limit(1)
    .prepare('rbac_super_role_of'),
  allMenus: orm.select().from(menus).orderBy(asc(menus.sort), asc(menus.id)).prepare('rbac_all_menus'),
  menusOfRoles: orm
    .selectDistinct({ menuId: roleMenus.menuId })
    .from(roleMenus)
    .innerJoin(roles, eq(roles.id, roleMenus.roleId))
    .where(and(sql`${roleMenus.roleId} = any(${p('role_ids')})`, eq(roles.status, 1)))
    .prepare('rbac_menus_of_roles'),
});

export class RbacService {
  private readonly orm: Orm;
  private readonly protectedNames: ReadonlySet<string>;
  private readonly reads: ReturnType<typeof readStatements>;
  private readonly scopes: DataScopes;
  constructor(deps: { db: Database; config: Config }) {
    this.orm = deps.db.orm;
    this.protectedNames = deps.config.protectedAdmins;
    this.reads = readStatements(this.orm);
    this.scopes = new DataScopes(deps.db);
  }

  /** The data scope of an administrator holding `grants` (kernel/data-scope.ts). */
  scopeOf(adminId: number, grants: Grants): Promise<DataScope> {
    return this.scopes.of(adminId, grants.isSuper);
  }

  async grantsOf(adminId: number): Promise<Grants> {
    const roleRows = await this.reads.rolesOf.execute({ admin_id: adminId });
    const active = roleRows.filter((r) => r.status === 1);
    const isSuper = active.some((r) => r.slug === SUPER_ADMIN_ROLE);
    const permRows = isSuper
      ? await this.reads.enabledPermissions.execute()
      : active.length === 0
        ? []
        : await this.reads.permissionsOfRoles.execute({ role_ids: active.map((r) => r.id) });
    return {
      roles: roleRows.map(({ id, name, nameI18n, slug }) => ({ id, name, slug, nameI18n })),
      isSuper,
      permissions: permRows.map((p) => p.slug).sort(),
    };
  }

  /**
   * Runs `change` inside the transaction `tx`, then refuses its outcome (the thrown `failure`
   * rolls the transaction back) when it takes away the last enabled administrator holding the
   * enabled super-administrator role, or the caller's own ability to administer administrators
   * (the super role, or `admin.update` through an enabled role and an enabled permission).
   * The super role's row is locked first, so such changes run one at a time and none can race
   * past the check (under READ COMMITTED the check, run after the lock, sees every earlier one).
   */
  async guardAdministration<T>({ orm: tx }: Executor, callerId: number, failure: ErrorDef, change: () => Promise<T>): Promise<T> {
    await tx.select({ id: roles.id }).from(roles).where(eq(roles.slug, SUPER_ADMIN_ROLE)).for('no key update');
    const superBefore = await this.hasEnabledSuper(tx);
    const callerBefore = await this.canAdminister(tx, callerId);
    const result = await change();
    if (superBefore && !(await this.hasEnabledSuper(tx))) {
      throw new AppError(failure, { detail: msg('admin.rbac.lastSuperAdministrator') });
    }
    if (callerBefore && !(await this.canAdminister(tx, callerId))) {
      throw new AppError(failure, { detail: msg('admin.rbac.ownAdministerPermission', { ADMINISTER_ADMINS }) });
    }
    return result;
  }

  /** Whether an enabled administrator holds the super-administrator role, itself enabled. */
  private async hasEnabledSuper(tx: Orm): Promise<boolean> {
    const rows = await tx
      .select({ id: admins.id })
      .from(admins)
      .innerJoin(adminRoles, eq(adminRoles.adminId, admins.id))
      .innerJoin(roles, eq(roles.id, adminRoles.roleId))
      .where(and(eq(roles.slug, SUPER_ADMIN_ROLE), eq(roles.status, 1), eq(admins.status, 1)))
      .limit(1);
    return rows.length > 0;
  }

  /** Whether the (enabled) administrator holds, through an enabled role, the super role or an enabled `admin.update`. */
  private async canAdminister(tx: Orm, adminId: number): Promise<boolean> {
    const grantsUpdate = tx
      .select({ id: rolePermissions.permissionId })
      .from(rolePermissions)
      .innerJoin(permissions, eq(permissions.id, rolePermissions.permissionId))
      .where(and(eq(rolePermissions.roleId, roles.id), eq(permissions.slug, ADMINISTER_ADMINS), eq(permissions.status, 1)));
    const rows = await tx
      .select({ id: roles.id })
      .from(adminRoles)
      .innerJoin(admins, eq(admins.id, adminRoles.adminId))
      .innerJoin(roles, eq(roles.id, adminRoles.roleId))
      .where(and(
        eq(adminRoles.adminId, adminId),
        eq(admins.status, 1),
        eq(roles.status, 1),
        or(eq(roles.slug, SUPER_ADMIN_ROLE), exists(grantsUpdate)),
      ))
      .limit(1);
    return rows.length > 0;
  }

  /**
   * The ids of the menus an administrator's enabled roles grant, with their ancestors (what
   * their sidebar can reach), whatever the menus' status; every menu for a super administrator.
   * What they may grant to a role, or hand on through one.
   */
  async heldMenuIds(grants: Grants): Promise<Set<number>> {
    const all = await this.reads.allMenus.execute();
    if (grants.isSuper) return new Set(all.map((m) => m.id));
    const roleIds = grants.roles.map((r) => r.id);
    const granted = roleIds.length ? await this.reads.menusOfRoles.execute({ role_ids: roleIds }) : [];
    return new Set(withAncestors(all, granted.map((g) => g.menuId)).map((m) => m.id));
  }

  /**
   * Protected administrators: holders of the super-administrator role, and the usernames
   * listed in PROTECTED_ADMINS. They cannot be disabled, deleted or kicked out by others.
   */
  async isProtected(adminId: number): Promise<boolean> {
    const [admin] = await this.reads.usernameOf.execute({ admin_id: adminId });
    if (!admin) return false;
    if (this.protectedNames.has(admin.username.toLowerCase())) return true;
    const superRole = await this.reads.superRoleOf.execute({ admin_id: adminId });
    return superRole.length > 0;
  }

  /**
   * The menus the grants reach, with the ancestors that hold them, as a tree (titles in
   * `locale`). A menu shows only when it and every ancestor are enabled.
   */
  async menuTreeFor(grants: Grants, locale: Locale = 'en-US'): Promise<MenuNode[]> {
    const all = await this.reads.allMenus.execute();
    const byId = new Map(all.map((m) => [m.id, m]));
    const enabled = (id: number, seen = new Set<number>()): boolean => {
      const m = byId.get(id);
      if (!m || m.status !== 1 || seen.has(id)) return false;
      seen.add(id);
      return m.parentId === 0 || enabled(m.parentId, seen);
    };
    let visible = all.filter((m) => enabled(m.id));
    if (!grants.isSuper) {
      const activeRoleIds = grants.roles.map((r) => r.id);
      const granted = activeRoleIds.length
        ? await this.reads.menusOfRoles.execute({ role_ids: activeRoleIds })
        : [];
      // The ancestors of a visible menu are visible (enabled up to the root).
      visible = withAncestors(visible, granted.map((g) => g.menuId));
    }
    return buildTree(
      visible.map((m) => ({
        id: m.id, parent_id: m.parentId, title: localized(m.title, m.titleI18n, locale), title_i18n: everyLanguage(m.title, m.titleI18n),
        slug: m.slug, icon: m.icon, path: m.path, component: m.component, type: m.type, status: m.status, sort: m.sort, children: [],
      })),
    );
  }
}
