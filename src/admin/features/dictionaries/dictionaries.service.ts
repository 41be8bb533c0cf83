// Dictionaries: types (parent_id 0) and their items (parent_id = a type's id), one level deep.
// Code uniqueness is the database's (unique index on parent_id, lower(code)); the rules that
// span rows (the parent is a type, a type with items is neither deleted nor turned into an
// item) are checked in a transaction that locks the rows involved, so that a concurrent
// insert of an item under a type being deleted cannot leave an orphan.
import { and, asc, count, eq, ilike, inArray, sql } from 'drizzle-orm';
import { matchesTranslated, named, writeText } from '../../../platform/translations.ts';
import type { Locale } from '../../../platform/i18n.ts';
import { alias } from 'drizzle-orm/pg-core';
import type { Static } from 'typebox';
import type { Database, Orm } from '../../../platform/db/database.ts';
import { contains } from '../../../platform/db/like.ts';
import { pagedList } from '../../../platform/db/list.ts';
import { p } from '../../../platform/db/statements.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { E } from '../../errors.ts';
import type { DictionaryCreateBody, DictionaryOrderField, DictionaryQuery, DictionaryUpdateBody } from './dictionaries.schema.ts';
import { dictionaries, type DictionaryRow } from '../../db/schema.ts';
import { isUniqueViolation } from '../../../platform/db/errors.ts';
import { msg, type Msg } from '../../../platform/i18n.ts';

const types = alias(dictionaries, 'dictionary_types');

const entriesList = (orm: Orm) =>
  pagedList(orm, {
    name: 'dictionaries',
    rows: (orm) => orm.select().from(dictionaries).$dynamic(),
    table: dictionaries,
    filters: {
      parent_id: (x) => eq(dictionaries.parentId, x),
      type_code: {
        param: (code: string) => code.toLowerCase(),
        where: (x, orm) => inArray(dictionaries.parentId, orm.select({ id: types.id }).from(types).where(and(eq(types.parentId, 0), eq(sql`lower(${types.code})`, x)))),
      },
      name: { param: contains, where: (x) => matchesTranslated(dictionaries.name, dictionaries.nameI18n, x) },
      code: { param: contains, where: (x) => ilike(dictionaries.code, x) },
      status: (x) => eq(dictionaries.status, x),
    },
    sort: { id: dictionaries.id, sort: dictionaries.sort, code: dictionaries.code, created_at: dictionaries.createdAt } satisfies Record<DictionaryOrderField, unknown>,
    id: dictionaries.id,
  });

/** A dictionary row (placeholder `id`). */
const rowOf = (orm: Orm) => orm.select().from(dictionaries).where(eq(dictionaries.id, p('id'))).prepare('dictionary');

/** A taken code: of a type (`type` undefined), or of an item of `type`, which the refusal names. */
function duplicate(code: string, type: Pick<DictionaryRow, 'name' | 'nameI18n'> | undefined) {
  return new AppError(E.ALREADY_EXISTS, {
    detail: type ? msg('admin.dictionaries.itemCodeTaken', { code, type: named(type.name, type.nameI18n) }) : msg('admin.dictionaries.typeCodeTaken', { code }),
    details: { field: 'code' },
  });
}

const invalid = (detail: Msg, field: string) => new AppError(E.VALIDATION, { detail, details: { field } });

export class DictionariesService {
  private readonly db: Database;
  private readonly entries: ReturnType<typeof entriesList>;
  private readonly rowOf: ReturnType<typeof rowOf>;
  constructor(deps: { db: Database }) {
    this.db = deps.db;
    this.entries = entriesList(this.db.orm);
    this.rowOf = rowOf(this.db.orm);
  }

  async list(q: Static<typeof DictionaryQuery>): Promise<{ rows: DictionaryRow[]; total: number }> {
    return this.entries.page(q, q);
  }

  async get(id: number): Promise<DictionaryRow> {
    const [row] = await this.rowOf.execute({ id });
    if (!row) throw new AppError(E.DATA_NOT_FOUND, { detail: msg('admin.dictionaries.dictionaryNotFound', { id }) });
    return row;
  }

  async create(input: Static<typeof DictionaryCreateBody>, locale: Locale = 'en-US'): Promise<DictionaryRow> {
    const parentId = input.parent_id ?? 0;
    const name = writeText(undefined, input.name, input.name_i18n, locale)!;
    const description = writeText(undefined, input.description ?? '', input.description_i18n, locale)!;
    try {
      return await this.db.transaction(async ({ orm: tx }) => {
        if (parentId !== 0) {
          // FOR SHARE: a concurrent delete of the type waits for this insert, then sees the item.
          const [parent] = await tx.select({ parentId: dictionaries.parentId, name: dictionaries.name, nameI18n: dictionaries.nameI18n })
            .from(dictionaries).where(eq(dictionaries.id, parentId)).for('share');
          assertType(parent, parentId);
        }
        const [row] = await tx
          .insert(dictionaries)
          .values({
            parentId,
            name: name.base,
            nameI18n: name.translations,
            code: input.code,
            value: input.value ?? '',
            description: description.base,
            descriptionI18n: description.translations,
            status: input.status ?? 1,
            sort: input.sort ?? 0,
          })
          .returning();
        return row!;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw duplicate(input.code, parentId === 0 ? undefined : await this.get(parentId));
      throw err;
    }
  }

  async update(id: number, patch: Static<typeof DictionaryUpdateBody>, locale: Locale = 'en-US'): Promise<DictionaryRow> {
    if (Object.values(patch).every((v) => v === undefined)) throw invalid(msg('admin.dictionaries.nothingToChange'), 'body');
    let parentId = patch.parent_id;
    try {
      return await this.db.transaction(async ({ orm: tx }) => {
        const ids = patch.parent_id ? [id, patch.parent_id] : [id];
        // Both rows locked in id order: the one changed and the type it moves to.
        const locked = await tx
          .select({
            id: dictionaries.id, parentId: dictionaries.parentId,
            name: dictionaries.name, nameI18n: dictionaries.nameI18n, description: dictionaries.description, descriptionI18n: dictionaries.descriptionI18n,
          })
          .from(dictionaries)
          .where(inArray(dictionaries.id, ids))
          .orderBy(asc(dictionaries.id))
          .for('update');
        const current = locked.find((r) => r.id === id);
        if (!current) throw new AppError(E.DATA_NOT_FOUND, { detail: msg('admin.dictionaries.dictionaryNotFound', { id }) });
        parentId ??= current.parentId;
        const name = writeText({ base: current.name, translations: current.nameI18n }, patch.name, patch.name_i18n, locale);
        const description = writeText({ base: current.description, translations: current.descriptionI18n }, patch.description, patch.description_i18n, locale);
        if (patch.parent_id !== undefined && patch.parent_id !== current.parentId) {
          if (patch.parent_id === id) throw invalid(msg('admin.dictionaries.ownParent'), 'parent_id');
          if (patch.parent_id !== 0) assertType(locked.find((r) => r.id === patch.parent_id), patch.parent_id);
          if (current.parentId === 0) {
            const items = await this.itemCount(tx, id);
            if (items > 0) throw invalid(msg('admin.dictionaries.typeWithItemsCannotNest', { name: named(current.name, current.nameI18n), items }), 'parent_id');
          }
        }
        const [row] = await tx
          .update(dictionaries)
          // Fields absent from the request are undefined, which the builder leaves out of the SET.
          .set({
            parentId: patch.parent_id,
            name: name?.base,
            nameI18n: name?.translations,
            code: patch.code,
            value: patch.value,
            description: description?.base,
            descriptionI18n: description?.translations,
            status: patch.status,
            sort: patch.sort,
            updatedAt: sql`now()`,
          })
          .where(eq(dictionaries.id, id))
          .returning();
        return row!;
      });
    } catch (err) {
      if (isUniqueViolation(err)) {
        const code = patch.code ?? (await this.get(id)).code;
        throw duplicate(code, parentId ? await this.get(parentId) : undefined);
      }
      throw err;
    }
  }

  /** Deletes an item, or a type that has no items left. */
  async remove(id: number): Promise<void> {
    await this.db.transaction(async ({ orm: tx }) => {
      const [row] = await tx
        .select({ parentId: dictionaries.parentId, code: dictionaries.code })
        .from(dictionaries)
        .where(eq(dictionaries.id, id))
        .for('update');
      if (!row) throw new AppError(E.DATA_NOT_FOUND, { detail: msg('admin.dictionaries.dictionaryNotFound', { id }) });
      if (row.parentId === 0) {
        const items = await this.itemCount(tx, id);
        if (items > 0) {
          throw new AppError(E.DELETE_FAILED, { detail: msg('admin.dictionaries.typeHasItems', { code: row.code, items }) });
        }
      }
      await tx.delete(dictionaries).where(eq(dictionaries.id, id));
    });
  }

  private async itemCount(tx: Orm, typeId: number): Promise<number> {
    const [row] = await tx.select({ n: count() }).from(dictionaries).where(eq(dictionaries.parentId, typeId));
    return Number(row?.n ?? 0);
  }
}

/** The parent of an item must exist and be a type: items do not nest. */
function assertType(parent: Pick<DictionaryRow, 'parentId' | 'name' | 'nameI18n'> | undefined, parentId: number): void {
  if (!parent) throw invalid(msg('admin.dictionaries.unknownParentType', { parentId }), 'parent_id');
  if (parent.parentId !== 0) throw invalid(msg('admin.dictionaries.parentIsItem', { name: named(parent.name, parent.nameI18n) }), 'parent_id');
}
