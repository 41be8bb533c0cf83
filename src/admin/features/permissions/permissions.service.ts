// The permission catalogue: permissions generated from the route table (is_system) and
// custom ones. A change that alters what roles grant (status, slug, deletion) drops the
// cached grants of every administrator holding such a role, on every instance. Updates and
// deletions run through the administration guard (no lock-out, no losing one's own
// `admin.update`), checked inside the transaction before the commit.
import { and, asc, count, desc, eq, ilike, inArray, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { AppError } from '../../../platform/http/errors.ts';
import { contains } from '../../../platform/db/like.ts';
import { offsetOf, parseOrderBy } from '../../../platform/http/schemas.ts';
import { formatDisplay } from '../../../platform/time.ts';
import type { AdminContext } from '../../context.ts';
import { adminRoles, menus, permissions, rolePermissions } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import type { Principal } from '../../guard.ts';
import type { Orm } from '../../../platform/db/database.ts';
import { FOREIGN_KEY_VIOLATION, pgErrorCode, UNIQUE_VIOLATION } from '../../../platform/db/errors.ts';
import type { PermissionOrderField } from './permissions.schema.ts';

/** Ids among `wanted` that have no row in `table` (checked inside the caller's transaction). */
export async function missingIds(tx: Orm, column: AnyPgColumn, wanted: number[]): Promise<number[]> {
  if (wanted.length === 0) return [];
  const found = await tx.select({ id: column }).from(column.table).where(inArray(column, wanted));
  const have = new Set(found.map((r) => Number(r.id)));
  return wanted.filter((id) => !have.has(id));
}

type Row = typeof permissions.$inferSelect;

export interface PermissionInput {
  name?: string | undefined;
  slug?: string | undefined;
  method?: string | undefined;
  path?: string | undefined;
  menu_id?: number | null | undefined;
  status?: number | undefined;
}

export interface PermissionFilter {
  page: number;
  page_size: number;
  name?: string | undefined;
  slug?: string | undefined;
  method?: string | undefined;
  status?: number | undefined;
  menu_id?: number | undefined;
  order_by?: string | undefined;
}

const ORDER_COLUMNS: Record<PermissionOrderField, AnyPgColumn> = {
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

export class PermissionService {
  private readonly ctx: AdminContext;
  private readonly orm: Orm;
  private readonly tz: string;
  constructor(ctx: AdminContext) {
    this.ctx = ctx;
    this.orm = ctx.platform.db.orm;
    this.tz = ctx.platform.config.DISPLAY_TIMEZONE;
  }

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
      created_at: formatDisplay(r.createdAt, this.tz)!,
      updated_at: formatDisplay(r.updatedAt, this.tz)!,
    };
  }

  async list(q: PermissionFilter) {
    const where = and(
      q.name ? ilike(permissions.name, contains(q.name)) : undefined,
      q.slug ? ilike(permissions.slug, contains(q.slug)) : undefined,
      q.method ? eq(permissions.method, q.method) : undefined,
      q.status !== undefined ? eq(permissions.status, q.status) : undefined,
      q.menu_id !== undefined ? eq(permissions.menuId, q.menu_id) : undefined,
    );
    const { field, direction } = parseOrderBy<PermissionOrderField>(q.order_by ?? 'id:desc');
    const column = ORDER_COLUMNS[field];
    const order: SQL[] = [direction === 'asc' ? asc(column) : desc(column)];
    if (field !== 'id') order.push(direction === 'asc' ? asc(permissions.id) : desc(permissions.id));
    const [rows, [total]] = await Promise.all([
      this.orm.select().from(permissions).where(where).orderBy(...order).limit(q.page_size).offset(offsetOf(q)),
      this.orm.select({ n: count() }).from(permissions).where(where),
    ]);
    return { list: rows.map((r) => this.record(r)), total: total?.n ?? 0 };
  }

  async get(id: number) {
    const [row] = await this.orm.select().from(permissions).where(eq(permissions.id, id));
    if (!row) throw new AppError(E.DATA_NOT_FOUND, { detail: `no permission ${id}` });
    return this.record(row);
  }

  async create(input: PermissionInput & { name: string; slug: string }) {
    const row = await this.write(async (tx) => {
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
      return { row: created!, affected: [] };
    }, input.slug);
    return this.record(row);
  }

  async update(caller: Principal, id: number, input: PermissionInput) {
    const row = await this.write((tx) => this.ctx.rbac.guardAdministration(tx, caller.adminId, E.UPDATE_FAILED, async () => {
      const [current] = await tx.select().from(permissions).where(eq(permissions.id, id)).for('update');
      if (!current) throw new AppError(E.DATA_NOT_FOUND, { detail: `no permission ${id}` });
      if (current.isSystem) {
        const fixed = (['slug', 'method', 'path'] as const).filter((f) => input[f] !== undefined && input[f] !== current[f]);
        if (fixed.length) {
          throw new AppError(E.ACCESS_DENIED, { detail: `${fixed.join(', ')} of the system permission ${current.slug} cannot be changed` });
        }
      }
      await this.checkMenu(tx, input.menu_id);
      const grantsChange = (input.status !== undefined && input.status !== current.status) || (input.slug !== undefined && input.slug !== current.slug);
      const [updated] = await tx
        .update(permissions)
        .set({
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.slug !== undefined ? { slug: input.slug } : {}),
          ...(input.method !== undefined ? { method: input.method } : {}),
          ...(input.path !== undefined ? { path: input.path } : {}),
          ...(input.menu_id !== undefined ? { menuId: input.menu_id } : {}),
          ...(input.status !== undefined ? { status: input.status } : {}),
          updatedAt: new Date(),
        })
        .where(eq(permissions.id, id))
        .returning();
      return { row: updated!, affected: grantsChange ? await this.holdersOf(tx, id) : [] };
    }), input.slug);
    return this.record(row);
  }

  /** Deletes a custom permission; roles holding it lose it (their administrators' grants are reloaded). */
  async remove(caller: Principal, id: number) {
    await this.write((tx) => this.ctx.rbac.guardAdministration(tx, caller.adminId, E.DELETE_FAILED, async () => {
      const [current] = await tx.select().from(permissions).where(eq(permissions.id, id)).for('update');
      if (!current) throw new AppError(E.DATA_NOT_FOUND, { detail: `no permission ${id}` });
      if (current.isSystem) throw new AppError(E.ACCESS_DENIED, { detail: `the system permission ${current.slug} cannot be deleted` });
      const affected = await this.holdersOf(tx, id);
      await tx.delete(permissions).where(eq(permissions.id, id));
      return { row: current, affected };
    }));
  }

  /**
   * Runs `fn` in one transaction; maps a duplicate slug to 30002 and a vanished menu to
   * 30001; after the commit, drops the cached grants of the administrators it returns.
   */
  private async write(fn: (tx: Orm) => Promise<{ row: Row; affected: number[] }>, slug?: string): Promise<Row> {
    let result: { row: Row; affected: number[] };
    try {
      result = await this.orm.transaction((tx) => fn(tx as unknown as Orm));
    } catch (err) {
      const code = pgErrorCode(err);
      if (code === UNIQUE_VIOLATION) throw new AppError(E.ALREADY_EXISTS, { detail: `a permission with slug ${slug ?? ''} already exists` });
      if (code === FOREIGN_KEY_VIOLATION) throw new AppError(E.VALIDATION, { detail: 'menu_id does not exist' });
      throw err;
    }
    if (result.affected.length) await this.ctx.sessions.publish({ admins: result.affected });
    return result.row;
  }

  private async checkMenu(tx: Orm, menuId: number | null | undefined) {
    if (menuId == null) return;
    if ((await missingIds(tx, menus.id, [menuId])).length) {
      throw new AppError(E.VALIDATION, { detail: `unknown menu_id: ${menuId}`, details: { field: 'menu_id' } });
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
