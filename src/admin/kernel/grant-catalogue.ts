// The grant catalogue (part of the access kernel): the roles and the permissions that say what
// administrators may do. Their two services extend this one base, which holds what they share:
// their dependencies, reading a row by id, and the one way a change to what
// roles grant is written. A change runs in one transaction, through the administration guard when it could
// take administration away (updates and deletions); a unique violation is refused as 30002, a
// foreign-key violation (a row referred to vanished meanwhile) as 30001; after the commit, the
// cached grants of the administrators it affects are dropped on every instance, so it applies
// to their next request.
import { eq } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Config } from '../../platform/config.ts';
import type { Database, Orm } from '../../platform/db/database.ts';
import { FOREIGN_KEY_VIOLATION, pgErrorCode, UNIQUE_VIOLATION } from '../../platform/db/errors.ts';
import { p } from '../../platform/db/statements.ts';
import { AppError, type ErrorDef } from '../../platform/http/errors.ts';
import { E } from '../errors.ts';
import type { Principal } from './guard.ts';
import type { RbacService } from './rbac.ts';
import type { Sessions } from './sessions.ts';
import { msg, type Msg } from '../../platform/i18n.ts';

/** What a change returns: its value, and the administrators whose grants it changed. */
export interface GrantChange<T> {
  value: T;
  affected: number[];
}

export abstract class GrantCatalogue<Table extends PgTable & { id: AnyPgColumn }> {
  /** The catalogue's table, with an `id` and a unique `slug`. */
  protected abstract readonly table: Table;
  /** What a row is called in refusals (`no role 5`). */
  protected abstract readonly noun: Msg;
  /** The refusal when a row the change refers to no longer exists (a foreign-key violation). */
  protected abstract readonly vanished: Msg;

  protected readonly orm: Orm;
  protected readonly tz: string;
  private readonly db: Database;
  private readonly sessions: Sessions;
  protected readonly rbac: RbacService;
  /** The read by id (built on first use: `table` is the subclass's). */
  private byId: ReturnType<GrantCatalogue<Table>['byIdStatement']> | undefined;
  constructor(deps: { db: Database; config: Config; sessions: Sessions; rbac: RbacService }) {
    this.db = deps.db;
    this.orm = deps.db.orm;
    this.tz = deps.config.DISPLAY_TIMEZONE;
    this.sessions = deps.sessions;
    this.rbac = deps.rbac;
  }

  /** The row `id` (404 when there is none); `forUpdate` locks it for the transaction `orm`. */
  protected async rowOf(id: number, orm: Orm = this.orm, forUpdate = false): Promise<Table['$inferSelect']> {
    let rows: Table['$inferSelect'][];
    if (orm === this.orm && !forUpdate) {
      this.byId ??= this.byIdStatement();
      rows = await this.byId.execute({ id });
    } else {
      const table: PgTable = this.table; // widened: the builder's types cannot follow a generic table
      const query = orm.select().from(table).where(eq(this.table.id, id));
      rows = await (forUpdate ? query.for('update') : query);
    }
    const [row] = rows;
    if (!row) throw new AppError(E.DATA_NOT_FOUND, { detail: msg('admin.grantCatalogue.notFound', { noun: this.noun, id }) });
    return row;
  }

  private byIdStatement() {
    const table: PgTable = this.table;
    return this.orm.select().from(table).where(eq(this.table.id, p('id'))).prepare('grant_catalogue_row');
  }

  /**
   * Runs `change` in one transaction (see the header); with `guard`, through the
   * administration guard as `guard.caller`, refused with `guard.failure`. `slug` is the one
   * the change writes, named when it is taken.
   */
  protected async write<T>(
    slug: string | undefined,
    change: (tx: Orm) => Promise<GrantChange<T>>,
    guard?: { caller: Principal; failure: ErrorDef },
  ): Promise<T> {
    let result: GrantChange<T>;
    try {
      result = await this.db.transaction((tx) =>
        guard ? this.rbac.guardAdministration(tx, guard.caller.adminId, guard.failure, () => change(tx.orm)) : change(tx.orm));
    } catch (err) {
      const code = pgErrorCode(err);
      if (code === UNIQUE_VIOLATION) throw new AppError(E.ALREADY_EXISTS, { detail: msg('admin.grantCatalogue.slugTaken', { noun: this.noun, slug: slug ?? '' }) });
      if (code === FOREIGN_KEY_VIOLATION) throw new AppError(E.VALIDATION, { detail: this.vanished });
      throw err;
    }
    if (result.affected.length) await this.sessions.publish({ admins: result.affected, grants: true });
    return result.value;
  }
}
