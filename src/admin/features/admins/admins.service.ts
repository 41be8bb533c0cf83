// Administrator accounts: listing (one page query, one count, one query for the page's roles; the
// statements are declared in ./admins.queries.ts), create, update, delete, password reset and
// authenticator unbinding by another administrator. Rules: protected administrators cannot be
// disabled, deleted or have their roles changed by others; nobody deletes or disables themself,
// nor sets their own password here (that is PUT /password, which asks for the old one); roles can
// only be granted by someone who holds every permission they carry (the super role only by a
// super administrator); no change may take away the last enabled super administrator or the
// caller's own right to administer administrators (checked in the write transaction). Disabling,
// deleting, resetting a password and unbinding an authenticator end the account's sessions on
// every instance; role changes apply on the next request. A password set here follows the
// password policy and is one someone else chose: its owner must replace it at the next sign-in.
// Failed sign-ins lock an account's name; `unlock` ends the lock.
import { and, asc, desc, eq, gt, inArray, lt } from 'drizzle-orm';
import type { Static } from 'typebox';
import { hashPassword } from '../../../platform/auth/password.ts';
import type { PasswordPolicies } from '../../../platform/auth/password-policy.ts';
import type { Config } from '../../../platform/config.ts';
import type { Database, Orm } from '../../../platform/db/database.ts';
import { declared, type Declared } from '../../../platform/db/list.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { parseTimeRange } from '../../../platform/http/schemas.ts';
import { displayStamps, formatDisplay } from '../../../platform/time.ts';
import {
  adminRoles, admins, departments, loginFailures, menus, permissions, roleMenus, rolePermissions, roles, SUPER_ADMIN_ROLE,
} from '../../db/schema.ts';
import { E } from '../../errors.ts';
import { orMissing } from '../../kernel/audit.ts';
import { everyRow, inScope, resolveScope, scopeValues, type DataScope, type ScopedRole } from '../../kernel/data-scope.ts';
import type { Principal } from '../../kernel/guard.ts';
import type { RbacService } from '../../kernel/rbac.ts';
import { assertPasswordAccepted, passwordState, storePassword } from '../../kernel/passwords.ts';
import { consumeTotp, dropRecoveryCodes } from '../../kernel/second-factor.ts';
import type { EndReason, Sessions } from '../../kernel/sessions.ts';
import type { Notifier } from '../../kernel/notifier.ts';
import { adminById, adminsList, departmentTree, rolesOf, rowColumns, selectRows, type AdminFilter, type AdminRecord, type AdminRow } from './admins.queries.ts';
import type { AdminListQuery, CreateAdminBody, UpdateAdminBody } from './admins.schema.ts';
import { FOREIGN_KEY_VIOLATION, pgErrorCode, UNIQUE_VIOLATION } from '../../../platform/db/errors.ts';
import { msg, type Locale } from '../../../platform/i18n.ts';
import { DEFAULT_LOCALE, localized, named } from '../../../platform/translations.ts';

/** One's own password changes only through PUT /password, which asks for the old one. */
const OWN_PASSWORD = msg('admin.admins.ownPassword');

const toStatus = (s: NonNullable<Static<typeof UpdateAdminBody>['status']>) => (Number(s) === 1 ? 1 : 0);

/** Every administrator's scope: for the rows the service reads back after its own writes. */
const EVERY = (adminId: number): DataScope => ({ all: true, departments: [], adminId, departmentId: null });

export class AdminsService {
  private readonly db: Database;
  private readonly orm: Orm;
  private readonly tz: string;
  private readonly sessions: Sessions;
  private readonly rbac: RbacService;
  private readonly notifications: Notifier;
  private readonly policies: PasswordPolicies;
  private readonly adminsList: ReturnType<typeof adminsList>;
  /** Built on the transaction's connection when given one. */
  private readonly rolesOfPage: Declared<ReturnType<typeof rolesOf>>;
  private readonly byId: Declared<ReturnType<typeof adminById>>;
  private readonly departmentTree: Declared<ReturnType<typeof departmentTree>>;
  constructor(deps: {
    db: Database;
    config: Config;
    sessions: Sessions;
    rbac: RbacService;
    notifications: Notifier;
    policies: PasswordPolicies;
  }) {
    this.db = deps.db;
    this.policies = deps.policies;
    this.orm = deps.db.orm;
    this.tz = deps.config.DISPLAY_TIMEZONE;
    this.sessions = deps.sessions;
    this.rbac = deps.rbac;
    this.notifications = deps.notifications;
    this.adminsList = adminsList(this.orm);
    this.rolesOfPage = declared(this.orm, rolesOf);
    this.byId = declared(this.orm, adminById);
    this.departmentTree = declared(this.orm, departmentTree);
  }

  /** The values of the list's and the export's filters (invalid time ranges throw). */
  private valuesOf(q: AdminFilter) {
    return { ...q, ...parseTimeRange(q, this.tz) };
  }

  /** Checks a filter now (400 on a bad time range), before it is queued for an export. */
  validateFilter(q: AdminFilter): void {
    this.valuesOf(q);
  }

  /**
   * The filtered administrators (with department and roles) in id order, read in pages of
   * `pageSize` by keyset on id, for exports: memory stays bounded whatever the row count.
   */
  async *iterate(q: AdminFilter, direction: 'asc' | 'desc' = 'asc', pageSize = 500, signal?: AbortSignal): AsyncGenerator<AdminRecord> {
    const values = this.valuesOf(q);
    const params = this.adminsList.params(values);
    const filter = this.adminsList.where(values, params);
    let last: number | undefined;
    for (;;) {
      signal?.throwIfAborted();
      const rows = await selectRows(this.orm)
        .where(and(filter, last === undefined ? undefined : direction === 'asc' ? gt(admins.id, last) : lt(admins.id, last)))
        .orderBy(direction === 'asc' ? asc(admins.id) : desc(admins.id))
        .limit(pageSize)
        .prepare('admins_export')
        .execute(params.values);
      if (rows.length === 0) return;
      yield* await this.withRoles(rows);
      if (rows.length < pageSize) return;
      last = rows.at(-1)!.id;
    }
  }

  /** A page of the administrators of the caller's data scope, their roles' and department's names in `locale`. */
  async list(q: Static<typeof AdminListQuery>, scope: DataScope, locale: Locale = DEFAULT_LOCALE) {
    const { rows, total } = await this.adminsList.page({ ...this.valuesOf(q), scope }, q);
    return { list: await this.withRoles(rows, this.orm, locale), total };
  }

  /** An administrator of the caller's data scope (outside it: 404). */
  async get(id: number, scope: DataScope, orm: Orm = this.orm, locale: Locale = DEFAULT_LOCALE): Promise<AdminRecord> {
    const rows = await this.byId.on(orm).execute({ id, ...scopeValues(scope) });
    if (rows.length === 0) throw new AppError(E.DATA_NOT_FOUND, { detail: msg('admin.admins.noAdministrator', { id }) });
    const [record] = await this.withRoles(rows, orm, locale);
    return record!;
  }

  /**
   * An administrator as the operation log keeps their state (kernel/audit.ts): the record, when
   * the password was set and whether it must change (so a new password shows, never its hash);
   * null when there is none.
   */
  async auditRecord(id: number, locale: Locale): Promise<Record<string, unknown> | null> {
    const record = await orMissing(this.get(id, everyRow, this.orm, locale));
    if (!record) return null;
    return { ...record, ...(await passwordState(this.db, id, this.tz)) };
  }

  /** One query for the roles of every administrator of a page; names in `locale` (exports: the default language). */
  private async withRoles(rows: AdminRow[], orm: Orm = this.orm, locale: Locale = DEFAULT_LOCALE): Promise<AdminRecord[]> {
    const ids = rows.map((r) => r.id);
    const roleRows = ids.length === 0 ? [] : await this.rolesOfPage.on(orm).execute({ ids });
    const byAdmin = new Map<number, { id: number; name: string; slug: string }[]>();
    const scopedRoles = new Map<number, { isSuper: boolean; roles: ScopedRole[] }>();
    for (const r of roleRows) {
      let list = byAdmin.get(r.adminId);
      if (!list) byAdmin.set(r.adminId, (list = []));
      list.push({ id: r.id, name: localized(r.name, r.nameI18n, locale), slug: r.slug });
      if (r.status !== 1) continue;
      const scoped = scopedRoles.get(r.adminId) ?? scopedRoles.set(r.adminId, { isSuper: false, roles: [] }).get(r.adminId)!;
      scoped.isSuper ||= r.slug === SUPER_ADMIN_ROLE;
      scoped.roles.push({ dataScope: r.dataScope, departments: (r.scopeDepartments ?? []).map(Number) });
    }
    const needsTree = roleRows.some((r) => r.status === 1 && r.dataScope === 'department_and_below');
    const tree = needsTree ? await this.departmentTree.on(orm).execute() : [];
    const scopeOf = (r: AdminRow) => {
      const scoped = scopedRoles.get(r.id) ?? { isSuper: false, roles: [] };
      const scope = resolveScope({ adminId: r.id, departmentId: r.departmentId, isSuper: scoped.isSuper, roles: scoped.roles, tree });
      return { all: scope.all, department_ids: [...scope.departments] };
    };
    return rows.map((r) => ({
      id: r.id,
      username: r.username,
      nickname: r.nickname,
      email: r.email,
      phone: r.phone,
      avatar: r.avatar,
      department_id: r.departmentId,
      department: r.departmentId !== null && r.departmentName !== null ? { id: r.departmentId, name: localized(r.departmentName, r.departmentNameI18n, locale) } : null,
      roles: byAdmin.get(r.id) ?? [],
      status: r.status,
      is_2fa_bound: r.bound,
      ...displayStamps(r, this.tz),
      last_login_at: formatDisplay(r.lastLoginAt, this.tz),
      locked_until: formatDisplay(r.lockedUntil, this.tz),
      data_scope: scopeOf(r),
    }));
  }

  /** A department that does not exist, or that the caller's data scope does not reach, is refused alike (400). */
  private async checkDepartment(scope: DataScope, id: number | null | undefined) {
    if (id === undefined || id === null) return;
    const [row] = await this.orm.select({ name: departments.name, nameI18n: departments.nameI18n }).from(departments).where(eq(departments.id, id));
    if (row && !scope.all && !scope.departments.includes(id)) {
      throw new AppError(E.VALIDATION, { detail: msg('admin.admins.departmentOutsideScope', { name: named(row.name, row.nameI18n) }), details: { field: 'department_id' } });
    }
    if (!row) throw new AppError(E.VALIDATION, { detail: msg('admin.admins.unknownDepartment', { id }), details: { field: 'department_id' } });
  }

  /**
   * Role ids must exist. Roles the target does not hold yet are grants: the super role only
   * by a super administrator, any other role only by a caller holding all its permissions and
   * seeing all its menus.
   */
  private async checkRoleGrants(caller: Principal, roleIds: number[], current: number[]) {
    if (roleIds.length === 0) return;
    const found = await this.orm.select({ id: roles.id, slug: roles.slug, name: roles.name, nameI18n: roles.nameI18n }).from(roles).where(inArray(roles.id, roleIds));
    const missing = roleIds.filter((id) => !found.some((r) => r.id === id));
    if (missing.length > 0) {
      throw new AppError(E.VALIDATION, { detail: msg('admin.admins.unknownRoles', { missing }), details: { field: 'role_ids' } });
    }
    if (caller.isSuper) return;
    const added = found.filter((r) => !current.includes(r.id));
    if (added.length === 0) return;
    const superRole = added.find((r) => r.slug === SUPER_ADMIN_ROLE);
    if (superRole) throw new AppError(E.ACCESS_DENIED, { detail: msg('admin.admins.onlySuperGrantsSuper') });
    const carried = await this.orm
      .selectDistinct({ roleId: rolePermissions.roleId, slug: permissions.slug })
      .from(rolePermissions)
      .innerJoin(permissions, eq(permissions.id, rolePermissions.permissionId))
      .where(and(inArray(rolePermissions.roleId, added.map((r) => r.id)), eq(permissions.status, 1)));
    // A refusal names the role as the form shows it.
    const roleName = (id: number) => {
      const role = added.find((r) => r.id === id)!;
      return named(role.name, role.nameI18n);
    };
    const beyond = carried.find((p) => !caller.permissions.has(p.slug));
    if (beyond) {
      throw new AppError(E.ACCESS_DENIED, { detail: msg('admin.admins.roleGrantsUnheldPermission', { role: roleName(beyond.roleId), slug: beyond.slug }) });
    }
    const menusCarried = await this.orm
      .selectDistinct({ roleId: roleMenus.roleId, menuId: menus.id, slug: menus.slug })
      .from(roleMenus)
      .innerJoin(menus, eq(menus.id, roleMenus.menuId))
      .where(inArray(roleMenus.roleId, added.map((r) => r.id)));
    if (menusCarried.length === 0) return;
    const held = await this.rbac.heldMenuIds(await this.rbac.grantsOf(caller.adminId));
    const unseen = menusCarried.find((m) => !held.has(m.menuId));
    if (unseen) {
      throw new AppError(E.ACCESS_DENIED, { detail: msg('admin.admins.roleGrantsUnseenMenu', { role: roleName(unseen.roleId), slug: unseen.slug }) });
    }
  }

  private async currentRoleIds(adminId: number): Promise<number[]> {
    const rows = await this.orm.select({ id: adminRoles.roleId }).from(adminRoles).where(eq(adminRoles.adminId, adminId));
    return rows.map((r) => r.id);
  }

  /** The administrator `id` of the caller's data scope (outside it: 404, as one that does not exist). */
  private async exists(scope: DataScope, id: number) {
    const [row] = await this.orm.select({ id: admins.id, username: admins.username, bound: rowColumns.bound }).from(admins)
      .where(and(eq(admins.id, id), inScope(scope, admins.departmentId, admins.id)));
    if (!row) throw new AppError(E.DATA_NOT_FOUND, { detail: msg('admin.admins.noAdministrator', { id }) });
    return row;
  }

  async create(caller: Principal, input: Static<typeof CreateAdminBody>, locale: Locale = DEFAULT_LOCALE): Promise<AdminRecord> {
    await this.checkDepartment(caller.scope, input.department_id);
    const roleIds = input.role_ids ?? [];
    await this.checkRoleGrants(caller, roleIds, []);
    await assertPasswordAccepted(this.policies, this.db, { password: input.password, username: input.username, field: 'password' });
    const passwordHash = await hashPassword(input.password);
    try {
      return await this.db.transaction(async (tx) => {
        const [row] = await tx.orm
          .insert(admins)
          .values({
            username: input.username,
            passwordHash,
            nickname: input.nickname ?? '',
            email: input.email ?? '',
            phone: input.phone ?? '',
            avatar: input.avatar ?? '',
            departmentId: input.department_id ?? null,
            status: input.status === undefined ? 1 : toStatus(input.status),
            mustChangePassword: true,
          })
          .returning({ id: admins.id });
        if (roleIds.length > 0) await tx.orm.insert(adminRoles).values(roleIds.map((roleId) => ({ adminId: row!.id, roleId })));
        return this.get(row!.id, EVERY(caller.adminId), tx.orm, locale);
      });
    } catch (err) {
      throw this.mapWriteError(err, input.username);
    }
  }

  private mapWriteError(err: unknown, username?: string) {
    if (err instanceof AppError) return err;
    const code = pgErrorCode(err);
    if (code === UNIQUE_VIOLATION) return new AppError(E.ALREADY_EXISTS, { detail: username ? msg('admin.admins.usernameTaken', { username }) : msg('admin.admins.duplicate'), details: { field: 'username' } });
    if (code === FOREIGN_KEY_VIOLATION) return new AppError(E.VALIDATION, { detail: msg('admin.admins.referenceVanished') });
    return err;
  }

  async update(caller: Principal, id: number, input: Static<typeof UpdateAdminBody>, locale: Locale = DEFAULT_LOCALE): Promise<AdminRecord> {
    const target = await this.exists(caller.scope, id);
    const self = caller.adminId === id;
    const status = input.status === undefined ? undefined : toStatus(input.status);
    const current = input.role_ids ? await this.currentRoleIds(id) : [];
    const rolesChange = input.role_ids !== undefined && !sameSet(input.role_ids, current);

    if (self && input.password !== undefined) throw new AppError(E.ACCESS_DENIED, { detail: OWN_PASSWORD });
    if (status === 0 && self) throw new AppError(E.ACCESS_DENIED, { detail: msg('admin.admins.cannotDisableSelf') });
    if ((status === 0 || rolesChange || input.password !== undefined) && !self && (await this.rbac.isProtected(id))) {
      if (status === 0) throw new AppError(E.ACCESS_DENIED, { detail: msg('admin.admins.protectedNotDisabled') });
      if (rolesChange) throw new AppError(E.ACCESS_DENIED, { detail: msg('admin.admins.protectedRolesFixed') });
      if (!caller.isSuper) throw new AppError(E.ACCESS_DENIED, { detail: msg('admin.admins.onlySuperSetsProtectedPassword') });
    }
    await this.checkDepartment(caller.scope, input.department_id);
    if (rolesChange) await this.checkRoleGrants(caller, input.role_ids!, current);
    if (input.password !== undefined) {
      await assertPasswordAccepted(this.policies, this.db, { password: input.password, username: target.username, adminId: id, field: 'password' });
    }
    const passwordHash = input.password === undefined ? undefined : await hashPassword(input.password);

    let ended: number[] = [];
    let record: AdminRecord;
    // Disabling and role changes can take away administration: checked before the commit.
    const guarded = status === 0 || rolesChange;
    try {
      record = await this.db.transaction(async (tx) => {
        const write = async () => {
          const [before] = await tx.orm.select({ status: admins.status }).from(admins).where(eq(admins.id, id)).for('update');
          if (!before) throw new AppError(E.DATA_NOT_FOUND, { detail: msg('admin.admins.noAdministrator', { id }) });
          await tx.orm
            .update(admins)
            // Fields absent from the request are undefined, which the builder leaves out of the SET.
            .set({
              nickname: input.nickname,
              email: input.email,
              phone: input.phone,
              avatar: input.avatar,
              departmentId: input.department_id,
              status,
              updatedAt: new Date(),
            })
            .where(eq(admins.id, id));
          if (passwordHash !== undefined) await storePassword(tx, id, passwordHash, 'other');
          if (rolesChange) {
            await tx.orm.delete(adminRoles).where(eq(adminRoles.adminId, id));
            if (input.role_ids!.length > 0) await tx.orm.insert(adminRoles).values(input.role_ids!.map((roleId) => ({ adminId: id, roleId })));
          }
          const reason: EndReason | undefined = status === 0 && before.status !== 0 ? 'disabled' : passwordHash !== undefined ? 'password_reset' : undefined;
          // Never the caller's own account here (no self-disabling, no own password): every session ends.
          if (reason) ended = await this.sessions.endAllOf(id, reason, undefined, tx);
        };
        if (guarded) await this.rbac.guardAdministration(tx, caller.adminId, E.UPDATE_FAILED, write);
        else await write();
        return this.get(id, EVERY(caller.adminId), tx.orm, locale);
      });
    } catch (err) {
      throw this.mapWriteError(err);
    }
    if (ended.length > 0 || rolesChange || status !== undefined || input.department_id !== undefined) await this.sessions.publish({ admins: [id], sessions: ended, ...(rolesChange ? { grants: true } : {}) });
    if (passwordHash !== undefined) await this.notifyPasswordReset(caller, id);
    return record;
  }

  async remove(caller: Principal, id: number) {
    await this.exists(caller.scope, id);
    if (caller.adminId === id) throw new AppError(E.ACCESS_DENIED, { detail: msg('admin.admins.cannotDeleteSelf') });
    if (await this.rbac.isProtected(id)) throw new AppError(E.ACCESS_DENIED, { detail: msg('admin.admins.protectedNotDeleted') });
    let ended: number[];
    try {
      // Protected administrators (super role holders) are refused above; the guard still checks.
      ended = await this.db.transaction((tx) => this.rbac.guardAdministration(tx, caller.adminId, E.DELETE_FAILED, async () => {
        const ids = await this.sessions.endAllOf(id, 'deleted', undefined, tx);
        const deleted = await tx.orm.delete(admins).where(eq(admins.id, id)).returning({ id: admins.id });
        if (deleted.length === 0) throw new AppError(E.DATA_NOT_FOUND, { detail: msg('admin.admins.noAdministrator', { id }) });
        return ids;
      }));
    } catch (err) {
      if (pgErrorCode(err) === FOREIGN_KEY_VIOLATION) throw new AppError(E.DELETE_FAILED, { detail: msg('admin.admins.stillReferenced') });
      throw err;
    }
    await this.sessions.publish({ admins: [id], sessions: ended });
  }

  async resetPassword(caller: Principal, id: number, password: string) {
    const target = await this.exists(caller.scope, id);
    if (caller.adminId === id) throw new AppError(E.ACCESS_DENIED, { detail: OWN_PASSWORD });
    if (!caller.isSuper && (await this.rbac.isProtected(id))) {
      throw new AppError(E.ACCESS_DENIED, { detail: msg('admin.admins.onlySuperResetsProtectedPassword') });
    }
    await assertPasswordAccepted(this.policies, this.db, { password, username: target.username, adminId: id, field: 'password' });
    const passwordHash = await hashPassword(password);
    const ended = await this.db.transaction(async (tx) => {
      await storePassword(tx, id, passwordHash, 'other');
      return this.sessions.endAllOf(id, 'password_reset', undefined, tx);
    });
    await this.sessions.publish({ admins: [id], sessions: ended });
    await this.notifyPasswordReset(caller, id);
  }

  /**
   * Ends the lock that failed sign-ins put on an administrator's name (of the caller's data scope:
   * outside it 404), and forgets the failures counted so far.
   */
  async unlock(caller: Principal, id: number) {
    const target = await this.exists(caller.scope, id);
    await this.orm.delete(loginFailures).where(eq(loginFailures.accountKey, target.username.toLowerCase()));
  }

  /** The administrator whose password someone else set is told who did it. */
  private async notifyPasswordReset(caller: Principal, id: number) {
    await this.notifications.notify(id, {
      kind: 'security',
      title: msg('admin.notifications.system.passwordResetTitle'),
      content: msg('admin.notifications.system.passwordReset', { username: caller.username }),
    });
  }

  /**
   * Another administrator's authenticator, removed by a caller who has one bound and gives
   * its current code (accepted once), with its recovery codes. The target's sessions end (all
   * of them, unless the target is the caller, whose current session stays).
   */
  async unbindOther(caller: Principal, id: number, code: string) {
    const target = await this.exists(caller.scope, id);
    const self = caller.adminId === id;
    if (!self && !caller.isSuper && (await this.rbac.isProtected(id))) {
      throw new AppError(E.ACCESS_DENIED, { detail: msg('admin.admins.onlySuperUnbindsProtected') });
    }
    const [me] = await this.orm.select({ secret: admins.totpSecret }).from(admins).where(eq(admins.id, caller.adminId));
    if (!me?.secret) throw new AppError(E.ACCESS_DENIED, { detail: msg('admin.admins.bindOwnAuthenticatorFirst') });
    if (!(await consumeTotp(this.db, caller.adminId, me.secret, code))) {
      throw new AppError(E.AUTHENTICATOR_CODE_WRONG, { details: { field: 'code' } });
    }
    if (!target.bound) return;
    const ended = await this.db.transaction(async (tx) => {
      await tx.orm.update(admins).set({ totpSecret: null, updatedAt: new Date() }).where(eq(admins.id, id));
      await dropRecoveryCodes(tx, id);
      return this.sessions.endAllOf(id, 'security', self ? caller.sessionId : undefined, tx);
    });
    await this.sessions.publish({ admins: [id], sessions: ended });
  }
}

function sameSet(a: number[], b: number[]) {
  return a.length === b.length && a.every((x) => b.includes(x));
}
