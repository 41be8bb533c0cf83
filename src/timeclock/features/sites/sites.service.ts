// Sites and their geofences. One default site (created by the migration) receives QR codes
// created without a site; it cannot be deleted, and it has no fence until a manager sets one.
import { randomUUID } from 'node:crypto';
import type { Database, RawExec } from '../../../platform/db/database.ts';
import { FOREIGN_KEY_VIOLATION, pgErrorCode } from '../../../platform/db/errors.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { E } from '../../errors.ts';
import { iso, num } from '../../http.ts';
import { fenceProblem, type Fence } from './geofence.ts';

interface SiteRow {
  id: number | string;
  name: string;
  fence: Fence | null;
  is_default: boolean;
  qr_code_count: number | string;
  created_at: Date | string;
  updated_at: Date | string;
}

const SELECT_SITE = `
  SELECT s.id, s.name, s.fence, s.is_default, s.created_at, s.updated_at,
         (SELECT count(*) FROM timeclock.qr_codes q WHERE q.site_id = s.id) AS qr_code_count
  FROM timeclock.sites s`;

const view = (r: SiteRow) => ({
  id: num(r.id),
  name: r.name,
  fence: r.fence,
  is_default: r.is_default,
  qr_code_count: num(r.qr_code_count),
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

export type SiteView = ReturnType<typeof view>;

const notFound = (id: number) => new AppError(E.NOT_FOUND, { detail: `site ${id} not found`, details: { siteId: id } });

function checkFence(fence: Fence | null | undefined): void {
  const problem = fence ? fenceProblem(fence) : null;
  if (problem) throw new AppError(E.VALIDATION_ERROR, { detail: problem, details: { field: 'fence' } });
}

/**
 * The fence of the site of the QR code the worker used for their latest clock-in; null when
 * they never clocked in with a QR code or that site has no fence.
 */
export async function currentSiteFence(exec: { query: RawExec }, userId: number): Promise<Fence | null> {
  const [row] = await exec.query<{ fence: Fence | null }>(
    `SELECT s.fence
     FROM timeclock.clock_events e JOIN timeclock.sites s ON s.id = e.site_id
     WHERE e.user_id = $1 AND e.event_type = 'clock_in'
     ORDER BY e.created_at DESC, e.id DESC LIMIT 1`,
    [userId],
  );
  return row?.fence ?? null;
}

export class SitesService {
  private readonly db: Database;
  constructor(db: Database) {
    this.db = db;
  }

  async list(): Promise<SiteView[]> {
    const rows = await this.db.query<SiteRow>(`${SELECT_SITE} ORDER BY s.is_default DESC, s.id`);
    return rows.map(view);
  }

  async get(id: number): Promise<SiteView> {
    const [row] = await this.db.query<SiteRow>(`${SELECT_SITE} WHERE s.id = $1`, [id]);
    if (!row) throw notFound(id);
    return view(row);
  }

  async create(input: { name: string; fence: Fence | null }): Promise<SiteView> {
    checkFence(input.fence);
    const [row] = await this.db.query<{ id: number | string }>(
      `INSERT INTO timeclock.sites (name, fence) VALUES ($1, $2::jsonb) RETURNING id`,
      [input.name.trim(), input.fence === null ? null : JSON.stringify(input.fence)],
    );
    return this.get(num(row!.id));
  }

  async update(id: number, input: { name?: string | undefined; fence?: Fence | null | undefined }): Promise<SiteView> {
    if (input.name === undefined && input.fence === undefined) {
      throw new AppError(E.VALIDATION_ERROR, { detail: 'send at least one field to change' });
    }
    checkFence(input.fence);
    const rows = await this.db.query(
      `UPDATE timeclock.sites SET
         name = CASE WHEN $2::boolean THEN $3 ELSE name END,
         fence = CASE WHEN $4::boolean THEN $5::jsonb ELSE fence END,
         updated_at = now()
       WHERE id = $1 RETURNING id`,
      [
        id,
        input.name !== undefined, input.name?.trim() ?? null,
        input.fence !== undefined, input.fence ? JSON.stringify(input.fence) : null,
      ],
    );
    if (rows.length === 0) throw notFound(id);
    return this.get(id);
  }

  /** Deletes a site that holds no QR code and is not the default one. */
  async remove(id: number): Promise<void> {
    await this.db.transactionRaw(async (tx) => {
      const [site] = await tx.query<{ is_default: boolean }>(`SELECT is_default FROM timeclock.sites WHERE id = $1 FOR UPDATE`, [id]);
      if (!site) throw notFound(id);
      if (site.is_default) throw new AppError(E.CONFLICT, { detail: 'the default site cannot be deleted', details: { siteId: id } });
      const [used] = await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM timeclock.qr_codes WHERE site_id = $1`, [id]);
      if ((used?.n ?? 0) > 0) {
        throw new AppError(E.CONFLICT, { detail: `site ${id} still has ${used!.n} QR code(s); move them first`, details: { siteId: id } });
      }
      await tx.query(`DELETE FROM timeclock.sites WHERE id = $1`, [id]);
    }).catch((err: unknown) => {
      // A QR code added to the site meanwhile.
      if (pgErrorCode(err) === FOREIGN_KEY_VIOLATION) throw new AppError(E.CONFLICT, { detail: `site ${id} still has QR codes`, details: { siteId: id } });
      throw err;
    });
  }
}

interface QrRow {
  id: string;
  name: string;
  is_active: boolean;
  created_at: Date | string;
  site_id: number | string;
  site_name: string;
}

const qrView = (r: QrRow) => ({ id: r.id, name: r.name, is_active: r.is_active, created_at: iso(r.created_at) });
const qrDetail = (r: QrRow) => ({ ...qrView(r), siteId: num(r.site_id), siteName: r.site_name });
export type QrView = ReturnType<typeof qrView>;
export type QrDetail = ReturnType<typeof qrDetail>;

const SELECT_QR = `
  SELECT q.id, q.name, q.is_active, q.created_at, q.site_id, s.name AS site_name
  FROM timeclock.qr_codes q JOIN timeclock.sites s ON s.id = q.site_id`;

const qrNotFound = (id: string) => new AppError(E.NOT_FOUND, { detail: `QR code ${id} not found`, details: { id } });
const unknownSite = (siteId: number) =>
  new AppError(E.VALIDATION_ERROR, { detail: `site ${siteId} does not exist`, details: { field: 'siteId' } });

/** QR codes: the value a worker scans is the code's UUID; each belongs to one site. */
export class QrCodesService {
  private readonly db: Database;
  constructor(db: Database) {
    this.db = db;
  }

  async list(q: { siteId?: number | undefined; active?: boolean | undefined }): Promise<QrView[]> {
    const rows = await this.db.query<QrRow>(
      `${SELECT_QR}
       WHERE ($1::bigint IS NULL OR q.site_id = $1) AND ($2::boolean IS NULL OR q.is_active = $2)
       ORDER BY q.created_at DESC, q.id`,
      [q.siteId ?? null, q.active ?? null],
    );
    return rows.map(qrView);
  }

  async get(id: string): Promise<QrDetail> {
    const [row] = await this.db.query<QrRow>(`${SELECT_QR} WHERE q.id = $1`, [id]);
    if (!row) throw qrNotFound(id);
    return qrDetail(row);
  }

  /** Creates an active QR code on `siteId`, or on the default site. */
  async create(input: { name: string; siteId?: number | undefined }): Promise<QrDetail> {
    const id = randomUUID();
    const rows = await this.db
      .query<{ id: string }>(
        `INSERT INTO timeclock.qr_codes (id, name, site_id)
         SELECT $1, $2, s.id FROM timeclock.sites s
         WHERE CASE WHEN $3::bigint IS NULL THEN s.is_default ELSE s.id = $3 END
         RETURNING id`,
        [id, input.name.trim(), input.siteId ?? null],
      )
      .catch((err: unknown) => {
        if (pgErrorCode(err) === FOREIGN_KEY_VIOLATION) throw unknownSite(input.siteId ?? 0);
        throw err;
      });
    if (rows.length === 0) throw unknownSite(input.siteId ?? 0);
    return this.get(id);
  }

  /** Renames, activates or deactivates a QR code, or moves it to another site. */
  async update(id: string, input: { name?: string | undefined; is_active?: boolean | undefined; siteId?: number | undefined }): Promise<QrDetail> {
    if (input.name === undefined && input.is_active === undefined && input.siteId === undefined) {
      throw new AppError(E.VALIDATION_ERROR, { detail: 'send at least one field to change' });
    }
    if (input.siteId !== undefined) {
      const [site] = await this.db.query(`SELECT 1 FROM timeclock.sites WHERE id = $1`, [input.siteId]);
      if (!site) throw unknownSite(input.siteId);
    }
    const rows = await this.db
      .query(
        // deactivated_at: set when an active code is deactivated, cleared when it is activated
        // (a punch captured offline before the deactivation still counts the code as active).
        `UPDATE timeclock.qr_codes SET
           name = coalesce($2, name), is_active = coalesce($3, is_active), site_id = coalesce($4, site_id), updated_at = now(),
           deactivated_at = CASE WHEN $3::boolean IS NULL THEN deactivated_at WHEN $3 THEN NULL WHEN is_active THEN now() ELSE deactivated_at END
         WHERE id = $1 RETURNING id`,
        [id, input.name?.trim() ?? null, input.is_active ?? null, input.siteId ?? null],
      )
      .catch((err: unknown) => {
        if (pgErrorCode(err) === FOREIGN_KEY_VIOLATION) throw unknownSite(input.siteId ?? 0);
        throw err;
      });
    if (rows.length === 0) throw qrNotFound(id);
    return this.get(id);
  }
}
