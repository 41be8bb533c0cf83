// The permission catalogue: permissions generated from the route table (is_system) and
// custom ones. Writes are the grant catalogue's (kernel/grant-catalogue.ts): a change that
// alters what roles grant (status, slug, deletion) applies to every administrator holding such
// a role on their next request. Updates and deletions run through the administration guard
// (no lock-out, no losing one's own `admin.update`).
import { and, eq, ilike } from 'drizzle-orm';
import type { Static } from 'typebox';
import type { Orm } from '../../../platform/db/database.ts';
import { contains } from '../../../platform/db/like.ts';
import { p, Params } from '../../../platform/db/statements.ts';
import { missingIds } from '../../../platform/db/missing-ids.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { displayStamps } from '../../../platform/time.ts';
import { adminRoles, menus, permissions, rolePermissions } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import { GrantCatalogue } from '../../kernel/grant-catalogue.ts';
import type { Principal } from '../../kernel/guard.ts';
import type { CreatePermissionBody, PermissionOrderField, PermissionQuery, UpdatePermissionBody } from './permissions.schema.ts';
import { msg } from '../../../platform/i18n.ts';

type Row = typeof permissions.$inferSelect;

const ORDER_COLUMNS = {
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

export class PermissionService extends GrantCatalogue<typeof permissions> {
  protected readonly table = permissions;
  protected readonly noun = msg('noun.permission');
  protected readonly vanished = msg('admin.permissions.menuVanished');

  record(r: Row) {
    return {
      id: r.id,
      name: r.name,
      slug: r.slug,
      method: r.method,
      path: r.path,
      menu_id: r.menuId,
      status: r.status,
      is_system: r.isSystem,
      ...displayStamps(r, this.tz),
    };
  }

  async list(q: Static<typeof PermissionQuery>) {
    const params = new Params()
      .set('name', q.name ? contains(q.name) : undefined)
      .set('slug', q.slug ? contains(q.slug) : undefined)
      .set('method', q.method ? q.method : undefined)
      .set('status', q.status)
      .set('menu_id', q.menu_id);
    const where = (set: Params) => and(
      set.has('name') ? ilike(permissions.name, p('name')) : undefined,
      set.has('slug') ? ilike(permissions.slug, p('slug')) : undefined,
      set.has('method') ? eq(permissions.method, p('method')) : undefined,
      set.has('status') ? eq(permissions.status, p('status')) : undefined,
      set.has('menu_id') ? eq(permissions.menuId, p('menu_id')) : undefined,
    );
    const { rows, total } = await this.page<PermissionOrderField>(q, params, where, ORDER_COLUMNS);
    return { list: rows.map((r) => this.record(r)), total };
  }

  async get(id: number) {
    return this.record(await this.rowOf(id));
  }

  async create(input: Static<typeof CreatePermissionBody>) {
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
    return this.record(row);
  }

  async update(caller: Principal, id: number, input: Static<typeof UpdatePermissionBody>) {
    const row = await this.write(input.slug, async (tx) => {
      const current = await this.rowOf(id, tx, true);
      if (current.isSystem) {
        const fixed = (['slug', 'method', 'path'] as const).filter((f) => input[f] !== undefined && input[f] !== current[f]);
        if (fixed.length) {
          throw new AppError(E.ACCESS_DENIED, { detail: msg('admin.permissions.systemPermissionCannotChanged', { fixed, slug: current.slug }) });
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
    return this.record(row);
  }

  /** Deletes a custom permission; roles holding it lose it (their administrators' grants are reloaded). */
  async remove(caller: Principal, id: number) {
    await this.write(undefined, async (tx) => {
      const current = await this.rowOf(id, tx, true);
      if (current.isSystem) throw new AppError(E.ACCESS_DENIED, { detail: msg('admin.permissions.systemPermissionCannotDeleted', { slug: current.slug }) });
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
