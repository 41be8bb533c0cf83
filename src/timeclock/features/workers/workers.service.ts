// Worker accounts and tags, managed by managers. Deleting a worker is a soft delete: the row
// stays (with its clock history, alerts and positions) but disappears from every list and
// lookup, its tokens stop working, its device binding and tags are released, and the username
// becomes free for a new account.
import { hashPassword } from '../../../platform/auth/password.ts';
import type { Database, RawExec } from '../../../platform/db/database.ts';
import { isUniqueViolation } from '../../../platform/db/errors.ts';
import { contains } from '../../../platform/db/like.ts';
import { AppError } from '../../../platform/http/errors.ts';
import type { TimeclockAuth } from '../../auth.ts';
import { E } from '../../errors.ts';
import { iso, num } from '../../http.ts';
import { LIST_LIMIT_MAX } from './workers.schema.ts';

type Status = 'active' | 'disabled';

const TAG_NAMES = `coalesce((SELECT string_agg(t.name, ',' ORDER BY lower(t.name), t.id)
  FROM timeclock.worker_tags wt JOIN timeclock.tags t ON t.id = wt.tag_id WHERE wt.user_id = u.id), '')`;

interface WorkerRow {
  id: number | string;
  username: string;
  full_name: string;
  created_at: Date | string;
  tags: string;
}

const item = (r: WorkerRow) => ({ id: num(r.id), username: r.username, full_name: r.full_name, created_at: iso(r.created_at), tags: r.tags });

const workerNotFound = (id: number) => new AppError(E.NOT_FOUND, { detail: `worker ${id} not found`, details: { userId: id } });

export class WorkersService {
  private readonly db: Database;
  private readonly auth: TimeclockAuth;
  constructor(db: Database, auth: TimeclockAuth) {
    this.db = db;
    this.auth = auth;
  }

  /** Workers (not deleted), by id; `search` over username and full name, `tags` all required. */
  async list(q: { search?: string | undefined; tags?: string | undefined; status?: Status | undefined; page: number; limit: number }) {
    const limit = Math.min(q.limit, LIST_LIMIT_MAX);
    const search = q.search?.trim() ? contains(q.search.trim()) : null;
    const tagIds = [...new Set((q.tags ?? '').split(',').map((s) => s.trim()).filter(Boolean).map(Number))];
    const where = `u.role = 'worker' AND u.deleted_at IS NULL
      AND ($1::text IS NULL OR u.username ILIKE $1 OR u.full_name ILIKE $1)
      AND ($3::int IS NULL OR u.status = $3)
      AND (cardinality($2::bigint[]) = 0 OR cardinality($2::bigint[]) = (
        SELECT count(*) FROM timeclock.worker_tags wt WHERE wt.user_id = u.id AND wt.tag_id = ANY ($2::bigint[])))`;
    const status = q.status === undefined ? null : q.status === 'active' ? 1 : 0;
    const params = [search, tagIds, status];
    const [count] = await this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM timeclock.users u WHERE ${where}`, params);
    const total = count?.n ?? 0;
    const rows = await this.db.query<WorkerRow>(
      `SELECT u.id, u.username, u.full_name, u.created_at, ${TAG_NAMES} AS tags
       FROM timeclock.users u WHERE ${where} ORDER BY u.id LIMIT $4 OFFSET $5`,
      [...params, limit, (q.page - 1) * limit],
    );
    return { workers: rows.map(item), totalCount: total, currentPage: q.page, totalPages: Math.ceil(total / limit) };
  }

  /** A worker as managers see it: record, tags, status, clock state and bound device. */
  async detail(id: number, exec: { query: RawExec } = this.db) {
    const [r] = await exec.query<WorkerRow & {
      tag_ids: (number | string)[] | null; status: number; clock_state: string | null;
      device_uuid: string | null; registered_at: Date | string | null; last_seen: Date | string | null;
    }>(
      `SELECT u.id, u.username, u.full_name, u.created_at, u.status, ${TAG_NAMES} AS tags,
              (SELECT array_agg(wt.tag_id ORDER BY wt.tag_id) FROM timeclock.worker_tags wt WHERE wt.user_id = u.id) AS tag_ids,
              ws.state AS clock_state, d.device_uuid, d.registered_at, d.last_seen
       FROM timeclock.users u
       LEFT JOIN timeclock.worker_state ws ON ws.user_id = u.id
       LEFT JOIN timeclock.devices d ON d.user_id = u.id
       WHERE u.id = $1 AND u.role = 'worker' AND u.deleted_at IS NULL`,
      [id],
    );
    if (!r) throw workerNotFound(id);
    return {
      ...item(r),
      tag_ids: (r.tag_ids ?? []).map(num),
      status: r.status === 1 ? ('active' as const) : ('disabled' as const),
      clock_state: (r.clock_state ?? 'clock_out') as 'clock_in' | 'clock_out',
      device: r.device_uuid
        ? { deviceUuid: r.device_uuid, registeredAt: iso(r.registered_at!), lastSeen: iso(r.last_seen!) }
        : null,
    };
  }

  /** Any signed-in user's own record (or anyone's, for managers): `GET /workers/:id`. */
  async profile(id: number) {
    const [r] = await this.db.query<WorkerRow & { role: 'worker' | 'manager' }>(
      `SELECT u.id, u.username, u.full_name, u.role, u.created_at, ${TAG_NAMES} AS tags
       FROM timeclock.users u WHERE u.id = $1 AND u.deleted_at IS NULL`,
      [id],
    );
    if (!r) throw workerNotFound(id);
    return { ...item(r), role: r.role };
  }

  async create(input: { username: string; password: string; fullName: string; tagIds?: number[] | undefined }) {
    const hash = await hashPassword(input.password);
    const id = await this.db.transactionRaw(async (tx) => {
      const [row] = await tx.query<{ id: number | string }>(
        `INSERT INTO timeclock.users (username, password_hash, full_name, role) VALUES ($1, $2, $3, 'worker') RETURNING id`,
        [input.username, hash, input.fullName.trim()],
      );
      const userId = num(row!.id);
      if (input.tagIds?.length) await setTags(tx, userId, input.tagIds);
      return userId;
    }).catch(usernameTaken(input.username));
    return this.detail(id);
  }

  /** Changes only the fields sent; `tagIds` replaces the set; `disabled` takes effect within a second. */
  async update(id: number, input: {
    username?: string | undefined; password?: string | undefined; fullName?: string | undefined;
    tagIds?: number[] | undefined; status?: Status | undefined;
  }) {
    if (Object.values(input).every((v) => v === undefined)) {
      throw new AppError(E.VALIDATION_ERROR, { detail: 'send at least one field to change' });
    }
    const hash = input.password === undefined ? null : await hashPassword(input.password);
    const result = await this.db.transactionRaw(async (tx) => {
      const rows = await tx.query(
        `UPDATE timeclock.users SET
           username = coalesce($2, username), password_hash = coalesce($3, password_hash),
           tokens_valid_after = CASE WHEN $3::text IS NULL THEN tokens_valid_after ELSE floor(extract(epoch FROM now()))::bigint END,
           full_name = coalesce($4, full_name), status = coalesce($5, status), updated_at = now()
         WHERE id = $1 AND role = 'worker' AND deleted_at IS NULL RETURNING id`,
        [id, input.username ?? null, hash, input.fullName?.trim() ?? null, input.status === undefined ? null : input.status === 'active' ? 1 : 0],
      );
      if (rows.length === 0) throw workerNotFound(id);
      if (input.tagIds) await setTags(tx, id, input.tagIds);
      return this.detail(id, tx);
    }).catch(usernameTaken(input.username ?? ''));
    // A new password or status takes effect for existing tokens (a password change revokes them).
    if (input.status !== undefined || input.password !== undefined) this.auth.forget(id);
    return result;
  }

  async remove(id: number): Promise<void> {
    await this.db.transactionRaw(async (tx) => {
      const rows = await tx.query(
        `UPDATE timeclock.users SET deleted_at = now(), status = 0, updated_at = now()
         WHERE id = $1 AND role = 'worker' AND deleted_at IS NULL RETURNING id`,
        [id],
      );
      if (rows.length === 0) throw workerNotFound(id);
      await tx.query(`DELETE FROM timeclock.devices WHERE user_id = $1`, [id]);
      await tx.query(`DELETE FROM timeclock.worker_tags WHERE user_id = $1`, [id]);
    });
    this.auth.forget(id);
  }

  // Tags

  async listTags() {
    const rows = await this.db.query<{ id: number | string; name: string; worker_count: number; created_at: Date | string }>(
      `SELECT t.id, t.name, t.created_at,
              (SELECT count(*)::int FROM timeclock.worker_tags wt JOIN timeclock.users u ON u.id = wt.user_id
               WHERE wt.tag_id = t.id AND u.deleted_at IS NULL) AS worker_count
       FROM timeclock.tags t ORDER BY lower(t.name), t.id`,
    );
    return rows.map((r) => ({ id: num(r.id), name: r.name, worker_count: r.worker_count, created_at: iso(r.created_at) }));
  }

  async createTag(name: string) {
    const rows = await this.db
      .query<{ id: number | string }>(`INSERT INTO timeclock.tags (name) VALUES ($1) RETURNING id`, [name.trim()])
      .catch(tagTaken(name));
    return this.tag(num(rows[0]!.id));
  }

  async renameTag(id: number, name: string) {
    const rows = await this.db
      .query(`UPDATE timeclock.tags SET name = $2 WHERE id = $1 RETURNING id`, [id, name.trim()])
      .catch(tagTaken(name));
    if (rows.length === 0) throw tagNotFound(id);
    return this.tag(id);
  }

  /** Deletes a tag; it is removed from every worker. */
  async removeTag(id: number): Promise<void> {
    const rows = await this.db.query(`DELETE FROM timeclock.tags WHERE id = $1 RETURNING id`, [id]);
    if (rows.length === 0) throw tagNotFound(id);
  }

  private async tag(id: number) {
    const tag = (await this.listTags()).find((t) => t.id === id);
    if (!tag) throw tagNotFound(id);
    return tag;
  }
}

/** Replaces a worker's tags; unknown tag ids are a 400 naming them. */
async function setTags(tx: { query: RawExec }, userId: number, tagIds: number[]): Promise<void> {
  const known = await tx.query<{ id: number | string }>(`SELECT id FROM timeclock.tags WHERE id = ANY ($1::bigint[]) FOR SHARE`, [tagIds]);
  const knownIds = new Set(known.map((r) => num(r.id)));
  const unknown = tagIds.filter((t) => !knownIds.has(t));
  if (unknown.length > 0) {
    throw new AppError(E.VALIDATION_ERROR, { detail: `unknown tag ids: ${unknown.join(', ')}`, details: { field: 'tagIds', unknown } });
  }
  await tx.query(`DELETE FROM timeclock.worker_tags WHERE user_id = $1`, [userId]);
  await tx.query(
    `INSERT INTO timeclock.worker_tags (user_id, tag_id) SELECT $1, unnest($2::bigint[])`,
    [userId, tagIds],
  );
}

const tagNotFound = (id: number) => new AppError(E.NOT_FOUND, { detail: `tag ${id} not found`, details: { tagId: id } });

const usernameTaken = (username: string) => (err: unknown): never => {
  if (isUniqueViolation(err)) throw new AppError(E.CONFLICT, { detail: `username ${username} is taken`, details: { field: 'username' } });
  throw err;
};

const tagTaken = (name: string) => (err: unknown): never => {
  if (isUniqueViolation(err)) throw new AppError(E.CONFLICT, { detail: `a tag named ${name.trim()} exists`, details: { field: 'name' } });
  throw err;
};
