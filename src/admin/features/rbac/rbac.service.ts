// What an administrator's roles grant: permission slugs and menus. The super-administrator
// role grants everything; disabled roles, permissions and menus grant nothing.
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Orm } from '../../../platform/db/database.ts';
import { adminRoles, admins, menus, permissions, roleMenus, rolePermissions, roles, SUPER_ADMIN_ROLE } from '../../db/schema.ts';

export interface Grants {
  roles: { id: number; name: string; slug: string }[];
  isSuper: boolean;
  permissions: string[];
}

export interface MenuNode {
  id: number;
  parent_id: number;
  title: string;
  slug: string;
  icon: string;
  path: string;
  component: string;
  type: number;
  status: number;
  sort: number;
  children: MenuNode[];
}

export class RbacService {
  private readonly orm: Orm;
  constructor(orm: Orm) {
    this.orm = orm;
  }

  async grantsOf(adminId: number): Promise<Grants> {
    const roleRows = await this.orm
      .select({ id: roles.id, name: roles.name, slug: roles.slug, status: roles.status })
      .from(adminRoles)
      .innerJoin(roles, eq(roles.id, adminRoles.roleId))
      .where(eq(adminRoles.adminId, adminId))
      .orderBy(asc(roles.sort), asc(roles.id));
    const active = roleRows.filter((r) => r.status === 1);
    const isSuper = active.some((r) => r.slug === SUPER_ADMIN_ROLE);
    const permRows = isSuper
      ? await this.orm.select({ slug: permissions.slug }).from(permissions).where(eq(permissions.status, 1))
      : active.length === 0
        ? []
        : await this.orm
            .selectDistinct({ slug: permissions.slug })
            .from(rolePermissions)
            .innerJoin(permissions, eq(permissions.id, rolePermissions.permissionId))
            .where(and(inArray(rolePermissions.roleId, active.map((r) => r.id)), eq(permissions.status, 1)));
    return {
      roles: roleRows.map(({ id, name, slug }) => ({ id, name, slug })),
      isSuper,
      permissions: permRows.map((p) => p.slug).sort(),
    };
  }

  /**
   * The menus the grants reach, with the ancestors that hold them, as a tree. A menu shows
   * only when it and every ancestor are enabled.
   */
  async menuTreeFor(grants: Grants): Promise<MenuNode[]> {
    const all = await this.orm.select().from(menus).orderBy(asc(menus.sort), asc(menus.id));
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
        ? await this.orm
            .selectDistinct({ menuId: roleMenus.menuId })
            .from(roleMenus)
            .innerJoin(roles, eq(roles.id, roleMenus.roleId))
            .where(and(inArray(roleMenus.roleId, activeRoleIds), eq(roles.status, 1)))
        : [];
      const shown = new Set(visible.map((m) => m.id));
      const keep = new Set<number>();
      for (const { menuId } of granted) {
        if (!shown.has(menuId)) continue;
        for (let m = byId.get(menuId); m && !keep.has(m.id); m = byId.get(m.parentId)) keep.add(m.id);
      }
      visible = visible.filter((m) => keep.has(m.id));
    }
    return buildTree(
      visible.map((m) => ({
        id: m.id, parent_id: m.parentId, title: m.title, slug: m.slug, icon: m.icon, path: m.path,
        component: m.component, type: m.type, status: m.status, sort: m.sort, children: [],
      })),
    );
  }
}

/** Nests rows under their parents; rows whose parent is absent become roots. Keeps order. */
export function buildTree<T extends { id: number; parent_id: number; children: T[] }>(rows: T[]): T[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const roots: T[] = [];
  for (const row of rows) {
    const parent = row.parent_id ? byId.get(row.parent_id) : undefined;
    (parent ? parent.children : roots).push(row);
  }
  return roots;
}

/**
 * Protected administrators: holders of the super-administrator role, and the usernames
 * listed in PROTECTED_ADMINS. They cannot be disabled, deleted or kicked out by others.
 */
export async function isProtectedAdmin(orm: Orm, adminId: number, protectedNames: ReadonlySet<string>): Promise<boolean> {
  const [admin] = await orm.select({ username: admins.username }).from(admins).where(eq(admins.id, adminId));
  if (!admin) return false;
  if (protectedNames.has(admin.username.toLowerCase())) return true;
  const superRole = await orm
    .select({ id: roles.id })
    .from(adminRoles)
    .innerJoin(roles, eq(roles.id, adminRoles.roleId))
    .where(and(eq(adminRoles.adminId, adminId), eq(roles.slug, SUPER_ADMIN_ROLE)))
    .limit(1);
  return superRole.length > 0;
}
