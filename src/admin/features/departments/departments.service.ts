// Departments: one tree (parent_id 0 = root). Writes that change the tree's shape run in one
// transaction behind a lock on the table's structure, so that two concurrent moves cannot
// make a cycle and a child cannot be added under a department being deleted.
import { and, asc, eq, ilike, sql } from 'drizzle-orm';
import type { Static } from 'typebox';
import type { Config } from '../../../platform/config.ts';
import type { Database, Executor, Transaction } from '../../../platform/db/database.ts';
import { contains } from '../../../platform/db/like.ts';
import { AppError, InvalidInput } from '../../../platform/http/errors.ts';
import { displayStamps } from '../../../platform/time.ts';
import { admins, departments } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import { buildTree, checkMove, treeTransaction, withAncestors } from '../../../platform/tree.ts';
import { FOREIGN_KEY_VIOLATION, pgErrorCode } from '../../../platform/db/errors.ts';
import type { DepartmentCreateBody, DepartmentNode, DepartmentUpdateBody } from './departments.schema.ts';
import { msg } from '../../../platform/i18n.ts';

type Row = typeof departments.$inferSelect;

export class DepartmentService {
  private readonly db: Database;
  private readonly tz: string;
  constructor(deps: { db: Database; config: Config }) {
    this.db = deps.db;
    this.tz = deps.config.DISPLAY_TIMEZONE;
  }

  private node(d: Row): DepartmentNode {
    return {
      id: d.id, parent_id: d.parentId, name: d.name, leader: d.leader, phone: d.phone, email: d.email,
      status: d.status, sort: d.sort,
      ...displayStamps(d, this.tz),
      children: [],
    };
  }

  /**
   * The whole tree, siblings by `sort` then id. With filters, the matching departments and
   * their ancestors (whatever those match), so that the tree stays connected.
   */
  async tree(q: { status?: number | undefined; name?: string | undefined }): Promise<{ list: DepartmentNode[]; total: number }> {
    const all = await this.db.orm.select().from(departments).orderBy(asc(departments.sort), asc(departments.id));
    let rows = all;
    const filter = and(
      q.status !== undefined ? eq(departments.status, q.status) : undefined,
      q.name ? ilike(departments.name, contains(q.name)) : undefined,
    );
    if (filter) {
      const hits = await this.db.orm.select({ id: departments.id }).from(departments).where(filter);
      rows = withAncestors(all, hits.map((h) => h.id));
    }
    return { list: buildTree(rows.map((d) => this.node(d))), total: rows.length };
  }

  /** One department with its subtree. */
  async get(id: number): Promise<DepartmentNode> {
    const all = await this.db.orm.select().from(departments).orderBy(asc(departments.sort), asc(departments.id));
    const nodes = all.map((d) => this.node(d));
    buildTree(nodes);
    const self = nodes.find((n) => n.id === id);
    if (!self) throw notFound(id);
    return self;
  }

  async create(input: Static<typeof DepartmentCreateBody>): Promise<DepartmentNode> {
    const id = await this.write(async (tx) => {
      const parentId = input.parent_id ?? 0;
      await this.checkParent(tx, parentId);
      const [row] = await tx.orm
        .insert(departments)
        .values({
          parentId,
          name: input.name,
          leader: input.leader ?? '',
          phone: input.phone ?? '',
          email: input.email ?? '',
          status: input.status ?? 1,
          sort: input.sort ?? 0,
        })
        .returning({ id: departments.id });
      return row!.id;
    });
    return this.get(id);
  }

  async update(id: number, input: Static<typeof DepartmentUpdateBody>): Promise<DepartmentNode> {
    if (Object.keys(input).length === 0) throw new AppError(E.VALIDATION, { detail: msg('admin.departments.sendAtLeastOne') });
    await this.write(async (tx) => {
      const [current] = await tx.orm.select().from(departments).where(eq(departments.id, id)).for('update');
      if (!current) throw notFound(id);
      const parentId = input.parent_id;
      if (parentId !== undefined && parentId !== current.parentId) {
        await checkMove(tx, { table: 'admin.departments', noun: msg('noun.department'), id, parentId, checkParent: () => this.checkParent(tx, parentId) });
      }
      await tx.orm
        .update(departments)
        // Fields absent from the request are undefined, which the builder leaves out of the SET.
        .set({
          name: input.name,
          parentId: input.parent_id,
          leader: input.leader,
          phone: input.phone,
          email: input.email,
          status: input.status,
          sort: input.sort,
          updatedAt: sql`now()`,
        })
        .where(eq(departments.id, id));
    });
    return this.get(id);
  }

  /** Deletes a department that has neither child departments nor administrators. */
  async remove(id: number): Promise<void> {
    try {
      await this.write(async (tx) => {
        const [current] = await tx.orm.select({ id: departments.id }).from(departments).where(eq(departments.id, id)).for('update');
        if (!current) throw notFound(id);
        const [child] = await tx.orm.select({ id: departments.id }).from(departments).where(eq(departments.parentId, id)).limit(1);
        if (child) throw new AppError(E.DELETE_FAILED, { detail: msg('admin.departments.departmentStillHasChild', { id }) });
        const [members] = await tx.orm.select({ n: sql<number>`count(*)::int` }).from(admins).where(eq(admins.departmentId, id));
        if (members && members.n > 0) {
          throw new AppError(E.DELETE_FAILED, { detail: msg('admin.departments.departmentStillHasAdministrator', { id, n: members.n }) });
        }
        await tx.orm.delete(departments).where(eq(departments.id, id));
      });
    } catch (err) {
      // An administrator assigned meanwhile: the foreign key refuses the delete.
      if (pgErrorCode(err) === FOREIGN_KEY_VIOLATION) {
        throw new AppError(E.DELETE_FAILED, { detail: msg('admin.departments.departmentStillHasAdministrators', { id }) });
      }
      throw err;
    }
  }

  /** The parent must be 0 or an existing department. */
  private async checkParent(tx: Executor, parentId: number) {
    if (parentId === 0) return;
    const [parent] = await tx.orm.select({ id: departments.id }).from(departments).where(eq(departments.id, parentId));
    if (!parent) throw new InvalidInput(msg('admin.departments.parentIdDoesNot', { parentId }), 'parent_id');
  }

  /** One transaction behind the tree lock. */
  private write<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    return treeTransaction(this.db, 'admin.departments', fn);
  }
}

function notFound(id: number) {
  return new AppError(E.DATA_NOT_FOUND, { detail: msg('admin.departments.departmentDoesNotExist', { id }) });
}
