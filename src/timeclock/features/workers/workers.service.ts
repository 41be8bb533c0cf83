// Worker accounts and tags, managed by managers. Deleting a worker is a soft delete: the row
// stays (with its clock history, alerts and positions) but disappears from every list and
// lookup, its tokens stop working, its device binding and tags are released, and the username
// becomes free for a new account. A password a manager sets follows the password policy and is
// one someone else chose: the worker must replace it before anything else (kernel/auth.ts).
// Failed sign-ins lock a worker's name (auth.service.ts); the records say until when, and
// `unlock` ends the lock.
import { and, asc, eq, ilike, inArray, isNull, or, sql, type Placeholder } from 'drizzle-orm';
import type { Static } from 'typebox';
import { hashPassword } from '../../../platform/auth/password.ts';
import type { PasswordPolicies } from '../../../platform/auth/password-policy.ts';
import type { Database, Executor, Orm } from '../../../platform/db/database.ts';
import { isUniqueViolation } from '../../../platform/db/errors.ts';
import { contains } from '../../../platform/db/like.ts';
import { declared, pagedList, type Declared } from '../../../platform/db/list.ts';
import { p } from '../../../platform/db/statements.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { REVOKE_TOKENS, type TimeclockAuth } from '../../kernel/auth.ts';
import { assertPasswordAccepted, storePassword } from '../../kernel/passwords.ts';
import { devices, lastPositions, loginFailures, tags, users, workerState, workerTags } from '../../db/schema.ts';
import { isTrackingWithin } from '../../kernel/positions.ts';
import { E } from '../../errors.ts';
import {
  LIST_LIMIT_MAX, type PublicWorker, type Tag, type WorkerCreateBody, type WorkerDetail, type WorkerItem, type WorkerList, type WorkerListQuery,
  type WorkerUpdateBody,
} from './workers.schema.ts';
import { msg, type Locale } from '../../../platform/i18n.ts';
import { personName } from '../../seeds.ts';

type ItemRow = { id: number; username: string; fullName: string; createdAt: Date; tags: string };

const item = (r: ItemRow): Omit<Static<typeof WorkerItem>, 'lockedUntil'> => ({
  id: r.id, username: r.username, full_name: r.fullName, created_at: r.createdAt.toISOString(), tags: r.tags,
});

/** A worker as managers read them (lists and detail): with the lock failed sign-ins put on their name. */
const listed = (r: ItemRow & { lockedUntil: Date | null }): Static<typeof WorkerItem> => ({ ...item(r), lockedUntil: r.lockedUntil?.toISOString() ?? null });

// The lock failed sign-ins put on the worker's name (one primary-key read per row of a page).
const lockedUntil = sql<Date | null>`(SELECT ${loginFailures.lockedUntil} FROM ${loginFailures}
  WHERE ${loginFailures.accountKey} = lower(${users.username}) AND ${loginFailures.lockedUntil} > now())`.mapWith(loginFailures.lockedUntil);

/** A worker that is not deleted (`id` a value, or a placeholder). */
const liveWorker = (id: number | Placeholder) => and(eq(users.id, id), eq(users.role, 'worker'), isNull(users.deletedAt));

const workerNotFound = (id: number) => new AppError(E.NOT_FOUND, { detail: msg('timeclock.workers.workerNotFound', { id }), details: { userId: id } });

export class WorkersService {
  private readonly db: Database;
  private readonly auth: TimeclockAuth;
  private readonly policies: PasswordPolicies;
  /** A worker's columns as lists show them, `tags` their tag names, comma-separated in alphabetical order. */
  private readonly itemColumns;
  private readonly workersList;
  /** Built on the transaction's connection when given one. */
  private readonly details: Declared<ReturnType<WorkersService['detailStatements']>>;
  private readonly profileOf;
  private readonly allTags;
  private readonly trackingWindowSeconds: number;
  constructor({ db, auth, policies, trackingWindowSeconds }: { db: Database; auth: TimeclockAuth; policies: PasswordPolicies; trackingWindowSeconds: number }) {
    this.db = db;
    this.auth = auth;
    this.policies = policies;
    this.trackingWindowSeconds = trackingWindowSeconds;
    // Subqueries with a join, so that the builder qualifies every column: in a one-table query
    // it names columns bare, and the outer `id` would be taken for the inner table's.
    const tagNames = db.orm
      .select({ names: sql`string_agg(${tags.name}, ',' ORDER BY lower(${tags.name}), ${tags.id})` })
      .from(workerTags)
      .innerJoin(tags, eq(tags.id, workerTags.tagId))
      .where(eq(workerTags.userId, users.id));
    const itemColumns = {
      id: users.id, username: users.username, fullName: users.fullName, createdAt: users.createdAt,
      tags: sql<string>`coalesce((${tagNames}), '')`,
    };
    this.itemColumns = itemColumns;
    this.workersList = pagedList(db.orm, {
      name: 'tc_workers',
      rows: (orm) => orm.select({ ...itemColumns, lockedUntil }).from(users).$dynamic(),
      table: users,
      always: and(eq(users.role, 'worker'), isNull(users.deletedAt)),
      filters: {
        search: { param: (search: string) => (search.trim() ? contains(search.trim()) : undefined), where: (x) => or(ilike(users.username, x), ilike(users.fullName, x)) },
        status: { param: (status: 'active' | 'disabled') => (status === 'active' ? 1 : 0), where: (x) => eq(users.status, x) },
        // Every tag given: as many of the worker's tags among them as there are.
        tags: {
          param: (names: string) => {
            const ids = [...new Set(names.split(',').map((s) => s.trim()).filter(Boolean).map(Number))];
            return ids.length === 0 ? undefined : ids;
          },
          where: (x, orm) => eq(orm.$count(workerTags, and(eq(workerTags.userId, users.id), sql`${workerTags.tagId} = any(${x})`)), sql`cardinality(${x}::bigint[])`),
        },
      },
      sort: { id: users.id },
      id: users.id,
    });
    this.details = declared(db.orm, (orm) => this.detailStatements(orm));
    this.profileOf = db.orm
      .select({ ...this.itemColumns, role: users.role })
      .from(users)
      .where(and(eq(users.id, p('id')), isNull(users.deletedAt)))
      .prepare('tc_worker_profile');
    this.allTags = this.selectTags().orderBy(sql`lower(${tags.name})`, asc(tags.id)).prepare('tc_tags');
  }

  /** Workers (not deleted), by id; `search` over username and full name, `tags` all required. */
  async list(q: Static<typeof WorkerListQuery>): Promise<Static<typeof WorkerList>> {
    const limit = Math.min(q.limit, LIST_LIMIT_MAX);
    const { rows, total } = await this.workersList.page(q, { page: q.page, page_size: limit, order_by: 'id:asc' });
    return { workers: rows.map(listed), totalCount: total, currentPage: q.page, totalPages: Math.ceil(total / limit) };
  }

  /** The statements of `detail` on `orm` (placeholder `id`). */
  private detailStatements(orm: Orm) {
    return {
      worker: orm
        .select({
          ...this.itemColumns, lockedUntil, status: users.status, clockState: workerState.state, device: devices,
          position: lastPositions, tracking: isTrackingWithin(this.trackingWindowSeconds),
        })
        .from(users)
        .leftJoin(workerState, eq(workerState.userId, users.id))
        .leftJoin(devices, eq(devices.userId, users.id))
        .leftJoin(lastPositions, eq(lastPositions.userId, users.id))
        .where(liveWorker(p('id')))
        .prepare('tc_worker_detail'),
      tagIds: orm.select({ id: workerTags.tagId }).from(workerTags).where(eq(workerTags.userId, p('id'))).orderBy(asc(workerTags.tagId)).prepare('tc_worker_tag_ids'),
    };
  }

  /** A worker as managers see it: record, tags, status, clock state and bound device. */
  async detail(id: number, exec: Executor = this.db): Promise<Static<typeof WorkerDetail>> {
    const statements = this.details.on(exec.orm);
    const [r] = await statements.worker.execute({ id });
    if (!r) throw workerNotFound(id);
    const tagIds = await statements.tagIds.execute({ id });
    return {
      ...listed(r),
      tag_ids: tagIds.map((t) => t.id),
      status: r.status === 1 ? 'active' : 'disabled',
      clock_state: r.clockState ?? 'clock_out',
      device: r.device
        ? { deviceUuid: r.device.deviceUuid, registeredAt: r.device.registeredAt.toISOString(), lastSeen: r.device.lastSeen.toISOString() }
        : null,
      lastSeenAt: r.position?.recordedAt.toISOString() ?? null,
      isTracking: r.tracking === true,
      lastPosition: r.position && {
        latitude: r.position.latitude,
        longitude: r.position.longitude,
        accuracy: r.position.accuracy,
        timestamp: r.position.recordedAt.toISOString(),
        receivedAt: r.position.receivedAt.toISOString(),
        source: r.position.source,
      },
    };
  }

  /** Any signed-in user's own record (or anyone's, for managers): `GET /workers/:id`. */
  async profile(id: number, locale: Locale): Promise<Static<typeof PublicWorker>> {
    const [r] = await this.profileOf.execute({ id });
    if (!r) throw workerNotFound(id);
    return { ...item(r), full_name: personName(r.fullName, r.role, locale), role: r.role };
  }

  async create(input: Static<typeof WorkerCreateBody>): Promise<Static<typeof WorkerDetail>> {
    await assertPasswordAccepted(this.policies, this.db, { password: input.password, username: input.username, field: 'password' });
    const hash = await hashPassword(input.password);
    const id = await this.db.transaction(async (tx) => {
      const [row] = await tx.orm
        .insert(users)
        .values({ username: input.username, passwordHash: hash, fullName: input.fullName.trim(), role: 'worker', mustChangePassword: true })
        .returning({ id: users.id });
      if (input.tagIds?.length) await setTags(tx, row!.id, input.tagIds);
      return row!.id;
    }).catch(usernameTaken(input.username));
    return this.detail(id);
  }

  /** Changes only the fields sent; `tagIds` replaces the set; `disabled` takes effect within a second. */
  async update(id: number, input: Static<typeof WorkerUpdateBody>): Promise<Static<typeof WorkerDetail>> {
    if (Object.values(input).every((v) => v === undefined)) {
      throw new AppError(E.VALIDATION_ERROR, { detail: msg('timeclock.workers.nothingToChange') });
    }
    if (input.password !== undefined) {
      const [current] = await this.db.orm.select({ username: users.username }).from(users).where(liveWorker(id));
      if (!current) throw workerNotFound(id);
      await assertPasswordAccepted(this.policies, this.db, { password: input.password, username: input.username ?? current.username, userId: id, field: 'password' });
    }
    const hash = input.password === undefined ? undefined : await hashPassword(input.password);
    const result = await this.db.transaction(async (tx) => {
      const rows = await tx.orm
        .update(users)
        .set({
          username: input.username,
          fullName: input.fullName?.trim(),
          status: input.status === undefined ? undefined : input.status === 'active' ? 1 : 0,
          // Disabling revokes every token issued before (enabling again does not bring them back); so does a new password (below).
          ...(input.status === 'disabled' ? REVOKE_TOKENS : {}),
          updatedAt: sql`now()`,
        })
        .where(liveWorker(id))
        .returning({ id: users.id });
      if (rows.length === 0) throw workerNotFound(id);
      if (hash !== undefined) await storePassword(tx, id, hash, 'other');
      if (input.tagIds) await setTags(tx, id, input.tagIds);
      return this.detail(id, tx);
    }).catch(usernameTaken(input.username ?? ''));
    // A new password or status takes effect for existing tokens (a password change revokes them).
    if (input.status !== undefined || input.password !== undefined) await this.auth.forget(id);
    return result;
  }

  async remove(id: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      const rows = await tx.orm
        .update(users)
        .set({ deletedAt: sql`now()`, status: 0, updatedAt: sql`now()`, ...REVOKE_TOKENS })
        .where(liveWorker(id))
        .returning({ id: users.id });
      if (rows.length === 0) throw workerNotFound(id);
      await tx.orm.delete(devices).where(eq(devices.userId, id));
      await tx.orm.delete(workerTags).where(eq(workerTags.userId, id));
    });
    await this.auth.forget(id);
  }

  /** Ends the lock failed sign-ins put on a worker's name, and forgets the failures counted so far. Idempotent. */
  async unlock(id: number): Promise<void> {
    const [worker] = await this.db.orm.select({ username: users.username }).from(users).where(liveWorker(id));
    if (!worker) throw workerNotFound(id);
    await this.db.orm.delete(loginFailures).where(eq(loginFailures.accountKey, sql`lower(${worker.username})`));
  }

  // Tags

  private selectTags() {
    const holders = this.db.orm
      .select({ n: sql`count(*)::int` })
      .from(workerTags)
      .innerJoin(users, eq(users.id, workerTags.userId))
      .where(and(eq(workerTags.tagId, tags.id), isNull(users.deletedAt)));
    return this.db.orm.select({ id: tags.id, name: tags.name, worker_count: sql<number>`(${holders})`, createdAt: tags.createdAt }).from(tags);
  }

  async listTags(): Promise<Static<typeof Tag>[]> {
    const rows = await this.allTags.execute();
    return rows.map(tagView);
  }

  async createTag(name: string): Promise<Static<typeof Tag>> {
    const [row] = await this.db.orm.insert(tags).values({ name: name.trim() }).returning({ id: tags.id }).catch(tagTaken(name));
    return this.tag(row!.id);
  }

  async renameTag(id: number, name: string): Promise<Static<typeof Tag>> {
    const rows = await this.db.orm.update(tags).set({ name: name.trim() }).where(eq(tags.id, id)).returning({ id: tags.id }).catch(tagTaken(name));
    if (rows.length === 0) throw tagNotFound(id);
    return this.tag(id);
  }

  /** Deletes a tag; it is removed from every worker. */
  async removeTag(id: number): Promise<void> {
    const rows = await this.db.orm.delete(tags).where(eq(tags.id, id)).returning({ id: tags.id });
    if (rows.length === 0) throw tagNotFound(id);
  }

  private async tag(id: number): Promise<Static<typeof Tag>> {
    const [row] = await this.selectTags().where(eq(tags.id, id));
    if (!row) throw tagNotFound(id);
    return tagView(row);
  }
}

const tagView = (r: { id: number; name: string; worker_count: number; createdAt: Date }): Static<typeof Tag> => ({
  id: r.id, name: r.name, worker_count: r.worker_count, created_at: r.createdAt.toISOString(),
});

/** Replaces a worker's tags; unknown tag ids are a 400 naming them. */
async function setTags(tx: Executor, userId: number, tagIds: number[]): Promise<void> {
  const known = await tx.orm.select({ id: tags.id }).from(tags).where(inArray(tags.id, tagIds)).for('share');
  const knownIds = new Set(known.map((r) => r.id));
  const unknown = tagIds.filter((t) => !knownIds.has(t));
  if (unknown.length > 0) {
    throw new AppError(E.VALIDATION_ERROR, { detail: msg('timeclock.workers.unknownTagIds', { unknown }), details: { field: 'tagIds', unknown } });
  }
  await tx.orm.delete(workerTags).where(eq(workerTags.userId, userId));
  if (tagIds.length > 0) await tx.orm.insert(workerTags).values(tagIds.map((tagId) => ({ userId, tagId })));
}

const tagNotFound = (id: number) => new AppError(E.NOT_FOUND, { detail: msg('timeclock.workers.tagNotFound', { id }), details: { tagId: id } });

const usernameTaken = (username: string) => (err: unknown): never => {
  if (isUniqueViolation(err)) throw new AppError(E.CONFLICT, { detail: msg('timeclock.workers.usernameTaken', { username }), details: { field: 'username' } });
  throw err;
};

const tagTaken = (name: string) => (err: unknown): never => {
  if (isUniqueViolation(err)) throw new AppError(E.CONFLICT, { detail: msg('timeclock.workers.tagNameTaken', { value: name.trim() }), details: { field: 'name' } });
  throw err;
};
