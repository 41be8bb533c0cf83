// Menus: one tree (parent_id 0 = root). Writes that change the tree's shape run in one
// transaction behind a lock on the table's structure, so that two concurrent moves cannot
// make a cycle and a child cannot be added under a menu being deleted.
import { asc, eq, sql } from 'drizzle-orm';
import type { Static } from 'typebox';
import type { Config } from '../../../platform/config.ts';
import type { Database, Executor, Orm, Transaction } from '../../../platform/db/database.ts';
import { contains } from '../../../platform/db/like.ts';
import { pagedList } from '../../../platform/db/list.ts';
import { AppError, InvalidInput } from '../../../platform/http/errors.ts';
import { displayStamps } from '../../../platform/time.ts';
import { menus } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import type { MenuNode } from '../../kernel/rbac.ts';
import type { MenuCreateBody, MenuUpdateBody } from './menus.schema.ts';
import { buildTree, checkMove, treeTransaction, withAncestors } from '../../../platform/tree.ts';
import { pgErrorCode, UNIQUE_VIOLATION } from '../../../platform/db/errors.ts';
import { msg, type Locale } from '../../../platform/i18n.ts';
import { everyLanguage, localized, matchesTranslated, named, writeText } from '../../../platform/translations.ts';

export const BUTTON = 3;

type Row = typeof menus.$inferSelect;

export interface MenuRecord extends MenuNode {
  created_at: string;
  updated_at: string;
}

const node = (m: Row, locale: Locale): MenuNode => ({
  id: m.id, parent_id: m.parentId, title: localized(m.title, m.titleI18n, locale), title_i18n: everyLanguage(m.title, m.titleI18n),
  slug: m.slug, icon: m.icon, path: m.path,
  component: m.component, type: m.type, status: m.status, sort: m.sort, children: [],
});

/** Every menu, siblings by `sort` then id. */
const allMenus = (orm: Orm) => orm.select().from(menus).orderBy(asc(menus.sort), asc(menus.id)).prepare('menus_all');

/** The ids of the menus matching the filters (the tree then adds their ancestors). */
const hitsList = (orm: Orm) =>
  pagedList(orm, {
    name: 'menus_hits',
    rows: (orm) => orm.select({ id: menus.id }).from(menus).$dynamic(),
    table: menus,
    filters: {
      status: (x) => eq(menus.status, x),
      title: { param: contains, where: (x) => matchesTranslated(menus.title, menus.titleI18n, x) },
    },
    sort: { id: menus.id },
    id: menus.id,
  });

export class MenusService {
  private readonly db: Database;
  private readonly tz: string;
  private readonly all: ReturnType<typeof allMenus>;
  private readonly hits: ReturnType<typeof hitsList>;
  constructor(deps: { db: Database; config: Config }) {
    this.db = deps.db;
    this.tz = deps.config.DISPLAY_TIMEZONE;
    this.all = allMenus(this.db.orm);
    this.hits = hitsList(this.db.orm);
  }

  /**
   * The whole tree, siblings by `sort` then id. With filters, the matching menus and their
   * ancestors (whatever those match), so that the tree stays connected.
   */
  async tree(q: { status?: number | undefined; title?: string | undefined }, locale: Locale): Promise<{ list: MenuNode[]; total: number }> {
    const all = await this.all.execute();
    let rows = all;
    if (this.hits.filtered(q)) {
      const hits = await this.hits.all(q);
      rows = withAncestors(all, hits.map((h) => h.id));
    }
    return { list: buildTree(rows.map((m) => node(m, locale))), total: rows.length };
  }

  /** One menu with its timestamps and its subtree. */
  async get(id: number, locale: Locale): Promise<MenuRecord> {
    const all = await this.all.execute();
    const row = all.find((m) => m.id === id);
    if (!row) throw notFound(id);
    const nodes = all.map((m) => node(m, locale));
    buildTree(nodes);
    const self = nodes.find((n) => n.id === id)!;
    return { ...self, ...displayStamps(row, this.tz) };
  }

  async create(input: Static<typeof MenuCreateBody>, locale: Locale): Promise<MenuRecord> {
    const title = writeText(undefined, input.title, input.title_i18n, locale)!;
    const id = await this.write(input.slug, async (tx) => {
      const parentId = input.parent_id ?? 0;
      await this.checkParent(tx, parentId);
      const [row] = await tx.orm
        .insert(menus)
        .values({
          parentId,
          title: title.base,
          titleI18n: title.translations,
          slug: input.slug,
          icon: input.icon ?? '',
          path: input.path ?? '',
          component: input.component ?? '',
          type: input.type,
          status: input.status ?? 1,
          sort: input.sort ?? 0,
        })
        .returning({ id: menus.id });
      return row!.id;
    });
    return this.get(id, locale);
  }

  async update(id: number, input: Static<typeof MenuUpdateBody>, locale: Locale): Promise<MenuRecord> {
    if (Object.keys(input).length === 0) throw new AppError(E.VALIDATION, { detail: msg('admin.menus.nothingToChange') });
    await this.write(input.slug, async (tx) => {
      const [current] = await tx.orm.select().from(menus).where(eq(menus.id, id)).for('update');
      if (!current) throw notFound(id);
      const title = writeText({ base: current.title, translations: current.titleI18n }, input.title, input.title_i18n, locale);
      const parentId = input.parent_id;
      if (parentId !== undefined && parentId !== current.parentId) {
        await checkMove(tx, { table: 'admin.menus', noun: msg('noun.menu'), id, parentId, checkParent: () => this.checkParent(tx, parentId) });
      }
      if (input.type === BUTTON && current.type !== BUTTON) {
        const [child] = await tx.orm.select({ id: menus.id }).from(menus).where(eq(menus.parentId, id)).limit(1);
        if (child) throw new InvalidInput(msg('admin.menus.buttonWithChildren', { title: named(current.title, current.titleI18n) }), 'type');
      }
      await tx.orm
        .update(menus)
        // Fields absent from the request are undefined, which the builder leaves out of the SET.
        .set({
          parentId: input.parent_id,
          title: title?.base,
          titleI18n: title?.translations,
          slug: input.slug,
          icon: input.icon,
          path: input.path,
          component: input.component,
          type: input.type,
          status: input.status,
          sort: input.sort,
          updatedAt: sql`now()`,
        })
        .where(eq(menus.id, id));
    });
    return this.get(id, locale);
  }

  /**
   * Deletes a menu without children. Its role links go with it (ON DELETE CASCADE) and its
   * permissions stay, unlinked (menu_id ON DELETE SET NULL).
   */
  async remove(id: number): Promise<void> {
    await this.write(undefined, async (tx) => {
      const [current] = await tx.orm.select({ title: menus.title, titleI18n: menus.titleI18n }).from(menus).where(eq(menus.id, id)).for('update');
      if (!current) throw notFound(id);
      const [child] = await tx.orm.select({ id: menus.id }).from(menus).where(eq(menus.parentId, id)).limit(1);
      if (child) throw new AppError(E.DELETE_FAILED, { detail: msg('admin.menus.hasChildren', { title: named(current.title, current.titleI18n) }) });
      await tx.orm.delete(menus).where(eq(menus.id, id));
    });
  }

  /** The parent must be 0 or an existing menu that is not a button. */
  private async checkParent(tx: Executor, parentId: number) {
    if (parentId === 0) return;
    const [parent] = await tx.orm.select({ type: menus.type, title: menus.title, titleI18n: menus.titleI18n }).from(menus).where(eq(menus.id, parentId));
    if (!parent) throw new InvalidInput(msg('admin.menus.unknownParent', { parentId }), 'parent_id');
    if (parent.type === BUTTON) throw new InvalidInput(msg('admin.menus.parentIsButton', { title: named(parent.title, parent.titleI18n) }), 'parent_id');
  }

  /** One transaction behind the tree lock; a duplicate slug becomes 30002. */
  private async write<T>(slug: string | undefined, fn: (tx: Transaction) => Promise<T>): Promise<T> {
    try {
      return await treeTransaction(this.db, 'admin.menus', fn);
    } catch (err) {
      if (pgErrorCode(err) === UNIQUE_VIOLATION) {
        throw new AppError(E.ALREADY_EXISTS, { detail: msg('admin.menus.slugTaken', { slug: slug ?? '' }), details: { field: 'slug' } });
      }
      throw err;
    }
  }
}

function notFound(id: number) {
  return new AppError(E.DATA_NOT_FOUND, { detail: msg('admin.menus.menuNotFound', { id }) });
}
