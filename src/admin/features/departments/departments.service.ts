// Departments: one tree (parent_id 0 = root). Writes that change the tree's shape run in one
// transaction behind a lock on the table's structure, so that two concurrent moves cannot
// make a cycle and a child cannot be added under a department being deleted.
import { asc, eq, sql } from 'drizzle-orm';
import type { Static } from 'typebox';
import type { Config } from '../../../platform/config.ts';
import type { Database, Executor, Orm, Transaction } from '../../../platform/db/database.ts';
import { contains } from '../../../platform/db/like.ts';
import { pagedList } from '../../../platform/db/list.ts';
import { AppError, InvalidInput } from '../../../platform/http/errors.ts';
import { displayStamps } from '../../../platform/time.ts';
import { admins, departments } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import type { Sessions } from '../../kernel/sessions.ts';
import { buildTree, checkMove, treeTransaction, withAncestors } from '../../../platform/tree.ts';
import { FOREIGN_KEY_VIOLATION, pgErrorCode } from '../../../platform/db/errors.ts';
import type { DepartmentCreateBody, DepartmentNode, DepartmentUpdateBody } from './departments.schema.ts';
import { msg, type InLanguages, type Locale } from '../../../platform/i18n.ts';
import { everyLanguage, localized, matchesTranslated, named, writeText } from '../../../platform/translations.ts';

type Row = typeof departments.$inferSelect;

/** Every department, siblings by `sort` then id. */
const allDepartments = (orm: Orm) => orm.select().from(departments).orderBy(asc(departments.sort), asc(departments.id)).prepare('departments_all');

/** The ids of the departments matching the filters (the tree then adds their ancestors). */
const hitsList = (orm: Orm) =>
  pagedList(orm, {
    name: 'departments_hits',
    rows: (orm) => orm.select({ id: departments.id }).from(departments).$dynamic(),
    table: departments,
    filters: {
      status: (x) => eq(departments.status, x),
      name: { param: contains, where: (x) => matchesTranslated(departments.name, departments.nameI18n, x) },
    },
    sort: { id: departments.id },
    id: departments.id,
  });

export class DepartmentsService {
  private readonly db: Database;
  private readonly tz: string;
  private readonly all: ReturnType<typeof allDepartments>;
  private readonly hits: ReturnType<typeof hitsList>;
  private readonly sessions: Sessions;
  constructor(deps: { db: Database; config: Config; sessions: Sessions }) {
    this.db = deps.db;
    this.tz = deps.config.DISPLAY_TIMEZONE;
    this.sessions = deps.sessions;
    this.all = allDepartments(this.db.orm);
    this.hits = hitsList(this.db.orm);
  }

  private node(d: Row, locale: Locale): DepartmentNode {
    return {
      id: d.id, parent_id: d.parentId, name: localized(d.name, d.nameI18n, locale), name_i18n: everyLanguage(d.name, d.nameI18n), leader: d.leader, phone: d.phone, email: d.email,
      status: d.status, sort: d.sort,
      ...displayStamps(d, this.tz),
      children: [],
    };
  }

  /**
   * The whole tree, siblings by `sort` then id. With filters, the matching departments and
   * their ancestors (whatever those match), so that the tree stays connected.
   */
  async tree(q: { status?: number | undefined; name?: string | undefined }, locale: Locale = 'en-US'): Promise<{ list: DepartmentNode[]; total: number }> {
    const all = await this.all.execute();
    let rows = all;
    if (this.hits.filtered(q)) {
      const hits = await this.hits.all(q);
      rows = withAncestors(all, hits.map((h) => h.id));
    }
    return { list: buildTree(rows.map((d) => this.node(d, locale))), total: rows.length };
  }

  /** One department with its subtree. */
  async get(id: number, locale: Locale = 'en-US'): Promise<DepartmentNode> {
    const all = await this.all.execute();
    const nodes = all.map((d) => this.node(d, locale));
    buildTree(nodes);
    const self = nodes.find((n) => n.id === id);
    if (!self) throw notFound(id);
    return self;
  }

  async create(input: Static<typeof DepartmentCreateBody>, locale: Locale = 'en-US'): Promise<DepartmentNode> {
    const name = writeText(undefined, input.name, input.name_i18n, locale)!;
    checkPhone(input.phone);
    const id = await this.write(async (tx) => {
      const parentId = input.parent_id ?? 0;
      await this.checkParent(tx, parentId);
      const [row] = await tx.orm
        .insert(departments)
        .values({
          parentId,
          name: name.base,
          nameI18n: name.translations,
          leader: input.leader ?? '',
          phone: input.phone ?? '',
          email: input.email ?? '',
          status: input.status ?? 1,
          sort: input.sort ?? 0,
        })
        .returning({ id: departments.id });
      return row!.id;
    });
    return this.get(id, locale);
  }

  async update(id: number, input: Static<typeof DepartmentUpdateBody>, locale: Locale = 'en-US'): Promise<DepartmentNode> {
    if (Object.keys(input).length === 0) throw new AppError(E.VALIDATION, { detail: msg('admin.departments.nothingToChange') });
    checkPhone(input.phone);
    let moved = false;
    await this.write(async (tx) => {
      const [current] = await tx.orm.select().from(departments).where(eq(departments.id, id)).for('update');
      if (!current) throw notFound(id);
      const name = writeText({ base: current.name, translations: current.nameI18n }, input.name, input.name_i18n, locale);
      const parentId = input.parent_id;
      if (parentId !== undefined && parentId !== current.parentId) {
        await checkMove(tx, { table: 'admin.departments', noun: msg('noun.department'), id, parentId, checkParent: () => this.checkParent(tx, parentId) });
        moved = true;
      }
      await tx.orm
        .update(departments)
        // Fields absent from the request are undefined, which the builder leaves out of the SET.
        .set({
          name: name?.base,
          nameI18n: name?.translations,
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
    // A move changes which departments are under which: every `department_and_below` data scope
    // is read again at its next request, on every instance.
    if (moved) await this.sessions.publish({ everyone: true });
    return this.get(id, locale);
  }

  /** Deletes a department that has neither child departments nor administrators. */
  async remove(id: number): Promise<void> {
    // The refusals name the department (in the reader's language), as the console shows it.
    let name: InLanguages | undefined;
    try {
      await this.write(async (tx) => {
        const [current] = await tx.orm.select({ name: departments.name, nameI18n: departments.nameI18n }).from(departments).where(eq(departments.id, id)).for('update');
        if (!current) throw notFound(id);
        name = named(current.name, current.nameI18n);
        const [child] = await tx.orm.select({ id: departments.id }).from(departments).where(eq(departments.parentId, id)).limit(1);
        if (child) throw new AppError(E.DELETE_FAILED, { detail: msg('admin.departments.hasChildren', { name }) });
        const [members] = await tx.orm.select({ n: sql<number>`count(*)::int` }).from(admins).where(eq(admins.departmentId, id));
        if (members && members.n > 0) {
          throw new AppError(E.DELETE_FAILED, { detail: msg('admin.departments.hasAdministratorsCount', { name, n: members.n }) });
        }
        await tx.orm.delete(departments).where(eq(departments.id, id));
      });
    } catch (err) {
      // An administrator assigned meanwhile: the foreign key refuses the delete.
      if (pgErrorCode(err) === FOREIGN_KEY_VIOLATION) {
        throw new AppError(E.DELETE_FAILED, { detail: msg('admin.departments.hasAdministrators', { name }) });
      }
      throw err;
    }
  }

  /** The parent must be 0 or an existing department. */
  private async checkParent(tx: Executor, parentId: number) {
    if (parentId === 0) return;
    const [parent] = await tx.orm.select({ id: departments.id }).from(departments).where(eq(departments.id, parentId));
    if (!parent) throw new InvalidInput(msg('admin.departments.unknownParent', { parentId }), 'parent_id');
  }

  /** One transaction behind the tree lock. */
  private write<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    return treeTransaction(this.db, 'admin.departments', fn);
  }
}

function notFound(id: number) {
  return new AppError(E.DATA_NOT_FOUND, { detail: msg('admin.departments.departmentNotFound', { id }) });
}

/** A phone number as people write one: digits with `+`, spaces, `-`, `.`, `(` `)`, an optional extension; 3 (an internal line) to 20 digits. */
const PHONE = /^\+?[\d\s().-]+(\s*(ext\.?|x|#)\s*\d{1,6})?$/i;

/** Refuses a `phone` that is not a phone number (empty is allowed: no phone), naming the field. */
export function checkPhone(phone: string | undefined): void {
  if (phone === undefined || phone === '') return;
  const digits = phone.replace(/(ext\.?|x|#)\s*\d+$/i, '').replace(/\D/g, '').length;
  if (!PHONE.test(phone.trim()) || digits < 3 || digits > 20) throw new InvalidInput(msg('admin.departments.phoneNotNumber'), 'phone');
}
