// The permission catalogue: permissions generated from the route table (is_system) and
// custom ones. Writes are the grant catalogue's (kernel/grant-catalogue.ts): a change that
// alters what roles grant (status, slug, deletion) applies to every administrator holding such
// a role on their next request. Updates and deletions run through the administration guard
// (no lock-out, no losing one's own `admin.update`). Each record carries a `label` in the
// reader's language: the catalogue's name of a system permission (kernel/action-labels.ts)
// while its stored name is still the route's own, else the stored name, and the title of its
// menu in that language (read with the row, so that a reader who may not list menus sees a title).
import { eq, getTableColumns, ilike, type AnyColumn } from 'drizzle-orm';
import type { Static } from 'typebox';
import type { Orm } from '../../../platform/db/database.ts';
import { contains } from '../../../platform/db/like.ts';
import { pagedList } from '../../../platform/db/list.ts';
import { missingIds } from '../../../platform/db/missing-ids.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { displayStamps } from '../../../platform/time.ts';
import { localized, type Translations } from '../../../platform/translations.ts';
import { adminRoles, menus, permissions, rolePermissions } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import { GrantCatalogue } from '../../kernel/grant-catalogue.ts';
import type { Principal } from '../../kernel/guard.ts';
import type { CreatePermissionBody, PermissionOrderField, PermissionQuery, UpdatePermissionBody } from './permissions.schema.ts';
import { msg, type Locale } from '../../../platform/i18n.ts';
import { actionLabel } from '../../kernel/action-labels.ts';
import type { DeclaredPermission } from '../../bootstrap.ts';
import type { Config } from '../../../platform/config.ts';
import type { Database } from '../../../platform/db/database.ts';
import type { RbacService } from '../../kernel/rbac.ts';
import type { Sessions } from '../../kernel/sessions.ts';

type Row = typeof permissions.$inferSelect;
/** A permission and the title of its menu (null: none). */
type RowWithMenu = Row & { menuTitle: string | null; menuTitleI18n: Translations | null };

/** A permission's columns and its menu's title, over `permissions LEFT JOIN menus`. */
const WITH_MENU = { ...getTableColumns(permissions), menuTitle: menus.title, menuTitleI18n: menus.titleI18n };

const ORDER_COLUMNS: Record<PermissionOrderField, AnyColumn> = {
  id: permissions.id,
  name: permissions.name,
  slug: permissions.slug,
  method: permissions.method,
  path: permissions.path,
  menu_id: permissions.menuId,
  status: permissions.status,
  created_at: permissions.createdAt,
  updated_at: permissions.updatedAt,
};

export class PermissionsService extends GrantCatalogue<typeof permissions> {
  protected readonly table = permissions;
  protected readonly noun = msg('noun.permission');
  protected readonly vanished = msg('admin.permissions.menuVanished');
  /** The permissions the routes declare (filled as routes register); their names are the defaults. */
  private readonly declared: readonly DeclaredPermission[];
  private defaults: Map<string, string> | undefined;
  private readonly permissionsList = pagedList(this.orm, {
    name: 'permissions',
    rows: (orm) => orm.select(WITH_MENU).from(permissions).leftJoin(menus, eq(menus.id, permissions.menuId)).$dynamic(),
    table: permissions,
    filters: {
      name: { param: contains, where: (x) => ilike(permissions.name, x) },
      slug: { param: contains, where: (x) => ilike(permissions.slug, x) },
      method: (x) => eq(permissions.method, x),
      status: (x) => eq(permissions.status, x),
      menu_id: (x) => eq(permissions.menuId, x),
    },
    sort: ORDER_COLUMNS,
    id: permissions.id,
  });

  constructor(deps: { db: Database; config: Config; sessions: Sessions; rbac: RbacService; declared: readonly DeclaredPermission[] }) {
    super(deps);
    this.declared = deps.declared;
  }

  /** The name a system permission is created with (the first route declaring it), as syncPermissionCatalogue stores it. */
  private defaultName(slug: string): string | undefined {
    this.defaults ??= new Map([...this.declared].reverse().map((d) => [d.slug, d.name.slice(0, 128)]));
    return this.defaults.get(slug);
  }

  /**
   * Whether `r`'s stored name was edited: a custom permission's name is always its own; a
   * system one keeps its route's name, or its English label, until edited (one seeded by a
   * migration, whose route declares no name, always shows its label).
   */
  private renamed(r: Row): boolean {
    if (!r.isSystem) return true;
    const original = this.defaultName(r.slug);
    return original !== undefined && r.name !== original && r.name !== actionLabel(r.slug, 'en-US');
  }

  record(r: RowWithMenu, locale: Locale) {
    const renamed = this.renamed(r);
    return {
      id: r.id,
      name: r.name,
      label: renamed ? r.name : actionLabel(r.slug, locale, r.name),
      slug: r.slug,
      method: r.method,
      path: r.path,
      menu_id: r.menuId,
      menu_title: r.menuTitle === null ? null : localized(r.menuTitle, r.menuTitleI18n, locale),
      status: r.status,
      is_system: r.isSystem,
      ...displayStamps(r, this.tz),
    };
  }

  async list(q: Static<typeof PermissionQuery>, locale: Locale) {
    const { rows, total } = await this.permissionsList.page(q, { ...q, order_by: q.order_by ?? 'id:desc' });
    return { list: rows.map((r) => this.record(r, locale)), total };
  }

  async get(id: number, locale: Locale) {
    return this.record(await this.withMenu(await this.rowOf(id)), locale);
  }

  /** A single row with its menu's title (lists read it in their own statement). */
  private async withMenu(row: Row): Promise<RowWithMenu> {
    const [menu] = row.menuId === null ? [] : await this.orm.select({ title: menus.title, titleI18n: menus.titleI18n }).from(menus).where(eq(menus.id, row.menuId));
    return { ...row, menuTitle: menu?.title ?? null, menuTitleI18n: menu?.titleI18n ?? null };
  }

  async create(input: Static<typeof CreatePermissionBody>, locale: Locale) {
    const row = await this.write(input.slug, async (tx) => {
      await this.checkMenu(tx, input.menu_id);
      const [created] = await tx
        .insert(permissions)
        .values({
          name: input.name,
          slug: input.slug,
          method: input.method ?? '',
          path: input.path ?? '',
          menuId: input.menu_id ?? null,
          status: input.status ?? 1,
          isSystem: false,
        })
        .returning();
      return { value: created!, affected: [] };
    });
    return this.record(await this.withMenu(row), locale);
  }

  async update(caller: Principal, id: number, input: Static<typeof UpdatePermissionBody>, locale: Locale) {
    const row = await this.write(input.slug, async (tx) => {
      const current = await this.rowOf(id, tx, true);
      if (current.isSystem) {
        const fixed = (['slug', 'method', 'path'] as const).filter((f) => input[f] !== undefined && input[f] !== current[f]);
        if (fixed.length) {
          throw new AppError(E.ACCESS_DENIED, { detail: msg('admin.permissions.systemFieldsFixed', { fixed, slug: current.slug }) });
        }
      }
      await this.checkMenu(tx, input.menu_id);
      const grantsChange = (input.status !== undefined && input.status !== current.status) || (input.slug !== undefined && input.slug !== current.slug);
      const [updated] = await tx
        .update(permissions)
        // Fields absent from the request are undefined, which the builder leaves out of the SET.
        .set({
          name: input.name,
          slug: input.slug,
          method: input.method,
          path: input.path,
          menuId: input.menu_id,
          status: input.status,
          updatedAt: new Date(),
        })
        .where(eq(permissions.id, id))
        .returning();
      return { value: updated!, affected: grantsChange ? await this.holdersOf(tx, id) : [] };
    }, { caller, failure: E.UPDATE_FAILED });
    return this.record(await this.withMenu(row), locale);
  }

  /** Deletes a custom permission; roles holding it lose it (their administrators' grants are reloaded). */
  async remove(caller: Principal, id: number) {
    await this.write(undefined, async (tx) => {
      const current = await this.rowOf(id, tx, true);
      if (current.isSystem) throw new AppError(E.ACCESS_DENIED, { detail: msg('admin.permissions.systemNotDeleted', { slug: current.slug }) });
      const affected = await this.holdersOf(tx, id);
      await tx.delete(permissions).where(eq(permissions.id, id));
      return { value: null, affected };
    }, { caller, failure: E.DELETE_FAILED });
  }

  private async checkMenu(tx: Orm, menuId: number | null | undefined) {
    if (menuId == null) return;
    if ((await missingIds(tx, menus.id, [menuId])).length) {
      throw new AppError(E.VALIDATION, { detail: msg('admin.permissions.unknownMenuId', { menuId }), details: { field: 'menu_id' } });
    }
  }

  /** Administrators holding a role that holds the permission. */
  private async holdersOf(tx: Orm, permissionId: number): Promise<number[]> {
    const rows = await tx
      .selectDistinct({ id: adminRoles.adminId })
      .from(adminRoles)
      .innerJoin(rolePermissions, eq(rolePermissions.roleId, adminRoles.roleId))
      .where(eq(rolePermissions.permissionId, permissionId));
    return rows.map((r) => r.id);
  }
}
