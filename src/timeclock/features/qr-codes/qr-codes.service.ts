// QR codes: the value a worker scans is the code's UUID; each belongs to one site (the default
// site when created without one). Codes are never deleted, only deactivated.
import { randomUUID } from 'node:crypto';
import { asc, desc, eq, sql } from 'drizzle-orm';
import type { Static } from 'typebox';
import type { Database, Orm } from '../../../platform/db/database.ts';
import { FOREIGN_KEY_VIOLATION, pgErrorCode } from '../../../platform/db/errors.ts';
import { pagedList } from '../../../platform/db/list.ts';
import { p } from '../../../platform/db/statements.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { qrCodes, sites } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import type { Fence } from '../../kernel/geofence.ts';
import type { QrCode, QrCodeCreated, QrCodeDetail, QrCreateBody, QrListQuery, QrUpdateBody } from './qr-codes.schema.ts';
import { msg, type Locale } from '../../../platform/i18n.ts';
import { siteName } from '../../seeds.ts';

type QrRow = typeof qrCodes.$inferSelect;

const qrView = (r: QrRow): Static<typeof QrCode> => ({ id: r.id, name: r.name, is_active: r.isActive, created_at: r.createdAt.toISOString() });

/** Whether workers can clock with a code, and if not why: deactivated first, then its site without a fence. */
const usability = (isActive: boolean, siteHasFence: boolean): Pick<Static<typeof QrCodeDetail>, 'usable' | 'unusable_reason'> => {
  const reason = !isActive ? 'INACTIVE' as const : !siteHasFence ? 'GEOFENCE_NOT_CONFIGURED' as const : null;
  return { usable: reason === null, unusable_reason: reason };
};

type SiteOfCode = { name: string; isDefault: boolean; fence: Fence | null };

const qrDetail = (r: QrRow, site: SiteOfCode, locale: Locale): Static<typeof QrCodeDetail> => ({
  ...qrView(r), siteId: r.siteId, siteName: siteName(site.name, site.isDefault, locale), site_has_fence: site.fence !== null, ...usability(r.isActive, site.fence !== null),
});

const qrNotFound = (id: string) => new AppError(E.NOT_FOUND, { detail: msg('timeclock.sites.qrCodeNotFound', { id }), details: { id } });
const unknownSite = (siteId: number) =>
  new AppError(E.VALIDATION_ERROR, { detail: msg('timeclock.sites.siteDoesNotExist', { siteId }), details: { field: 'siteId' } });
const foreignKeyToUnknownSite = (siteId: number) => (err: unknown): never => {
  if (pgErrorCode(err) === FOREIGN_KEY_VIOLATION) throw unknownSite(siteId);
  throw err;
};

/** QR codes: the value a worker scans is the code's UUID; each belongs to one site. */
export class QrCodesService {
  private readonly db: Database;
  private readonly codes;
  private readonly one;
  constructor({ db }: { db: Database }) {
    this.db = db;
    this.codes = pagedList(db.orm, {
      name: 'tc_qr_codes',
      rows: (orm) => this.select(orm).$dynamic(),
      table: qrCodes,
      filters: { site_id: (x) => eq(qrCodes.siteId, x), active: (x) => eq(qrCodes.isActive, x) },
      sort: { created_at: qrCodes.createdAt },
      id: qrCodes.id,
      order: [desc(qrCodes.createdAt), asc(qrCodes.id)],
    });
    this.one = this.select().where(eq(qrCodes.id, p('id'))).prepare('tc_qr_code');
  }

  private select(orm: Orm = this.db.orm) {
    return orm.select({ qr: qrCodes, site: { name: sites.name, isDefault: sites.isDefault, fence: sites.fence } }).from(qrCodes).innerJoin(sites, eq(sites.id, qrCodes.siteId));
  }

  async list(q: Static<typeof QrListQuery>, locale: Locale): Promise<Static<typeof QrCodeDetail>[]> {
    const rows = await this.codes.all({ site_id: q.siteId, active: q.active });
    return rows.map((r) => qrDetail(r.qr, r.site, locale));
  }

  async get(id: string, locale: Locale): Promise<Static<typeof QrCodeDetail>> {
    const [row] = await this.one.execute({ id });
    if (!row) throw qrNotFound(id);
    return qrDetail(row.qr, row.site, locale);
  }

  /** Creates an active QR code on `siteId`, or on the default site. */
  async create(input: Static<typeof QrCreateBody>, locale: Locale): Promise<Static<typeof QrCodeCreated>> {
    const [site] = await this.db.orm
      .select({ id: sites.id, name: sites.name, isDefault: sites.isDefault, fence: sites.fence })
      .from(sites)
      .where(input.siteId === undefined ? eq(sites.isDefault, true) : eq(sites.id, input.siteId));
    if (!site) throw unknownSite(input.siteId ?? 0);
    const [row] = await this.db.orm
      .insert(qrCodes)
      .values({ id: randomUUID(), name: input.name.trim(), siteId: site.id })
      .returning()
      .catch(foreignKeyToUnknownSite(input.siteId ?? 0));
    return {
      id: row!.id, name: row!.name, is_active: row!.isActive,
      siteId: site.id, siteName: siteName(site.name, site.isDefault, locale), site_has_fence: site.fence !== null, ...usability(row!.isActive, site.fence !== null),
    };
  }

  /** Renames, activates or deactivates a QR code, or moves it to another site. */
  async update(id: string, input: Static<typeof QrUpdateBody>, locale: Locale): Promise<Static<typeof QrCodeDetail>> {
    if (input.name === undefined && input.is_active === undefined && input.siteId === undefined) {
      throw new AppError(E.VALIDATION_ERROR, { detail: msg('timeclock.sites.sendAtLeastOne') });
    }
    if (input.siteId !== undefined) {
      const [site] = await this.db.orm.select({ id: sites.id }).from(sites).where(eq(sites.id, input.siteId));
      if (!site) throw unknownSite(input.siteId);
    }
    // deactivated_at: set when an active code is deactivated, cleared when it is activated (a
    // punch captured offline before the deactivation still counts the code as active).
    const deactivatedAt = input.is_active === undefined
      ? {}
      : { deactivatedAt: input.is_active ? null : sql`CASE WHEN ${qrCodes.isActive} THEN now() ELSE ${qrCodes.deactivatedAt} END` };
    const rows = await this.db.orm
      .update(qrCodes)
      // Fields absent from the request are undefined, which the builder leaves out of the SET.
      .set({
        name: input.name?.trim(),
        isActive: input.is_active,
        siteId: input.siteId,
        updatedAt: sql`now()`,
        ...deactivatedAt,
      })
      .where(eq(qrCodes.id, id))
      .returning({ id: qrCodes.id })
      .catch(foreignKeyToUnknownSite(input.siteId ?? 0));
    if (rows.length === 0) throw qrNotFound(id);
    return this.get(id, locale);
  }
}
