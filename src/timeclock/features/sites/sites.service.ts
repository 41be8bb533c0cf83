// Sites and their geofences. One default site (created by the migration) receives QR codes
// created without a site; it cannot be deleted, and it has no fence until a manager sets one.
// Its seeded name is shown in the reader's language until a manager renames it (seeds.ts).
import { randomUUID } from 'node:crypto';
import { and, asc, count, desc, eq, sql } from 'drizzle-orm';
import type { Static } from 'typebox';
import type { Database, Orm } from '../../../platform/db/database.ts';
import { FOREIGN_KEY_VIOLATION, pgErrorCode } from '../../../platform/db/errors.ts';
import { p, Params, Statements } from '../../../platform/db/statements.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { clockEvents, qrCodes, sites } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import { fenceProblem, type Fence } from './geofence.ts';
import type { QrCode, QrCodeCreated, QrCodeDetail, QrCreateBody, QrListQuery, QrUpdateBody, Site, SiteCreateBody, SiteUpdateBody } from './sites.schema.ts';
import { msg, type Locale } from '../../../platform/i18n.ts';
import { siteName, siteNameWrite } from '../../seeds.ts';

type SiteRow = typeof sites.$inferSelect;
type QrRow = typeof qrCodes.$inferSelect;

const view = (r: SiteRow, qrCodeCount: number, locale: Locale): Static<typeof Site> => ({
  id: r.id,
  name: siteName(r.name, r.isDefault, locale),
  fence: r.fence,
  has_fence: r.fence !== null,
  usable: r.fence !== null,
  is_default: r.isDefault,
  qr_code_count: qrCodeCount,
  created_at: r.createdAt.toISOString(),
  updated_at: r.updatedAt.toISOString(),
});

const notFound = (id: number) => new AppError(E.NOT_FOUND, { detail: msg('timeclock.sites.siteNotFound', { id }), details: { siteId: id } });

function checkFence(fence: Fence | null | undefined): void {
  const problem = fence ? fenceProblem(fence) : null;
  if (problem) throw new AppError(E.VALIDATION_ERROR, { detail: problem, details: { field: 'fence' } });
}

/**
 * The statement of the fence of the site of the QR code the worker `user_id` (a placeholder)
 * used for their latest clock-in: no row when they never clocked in with a QR code, a null
 * fence when that site has none. Built once by its user (see `currentSiteFence`).
 */
export const currentSiteFenceOf = (orm: Orm) =>
  orm
    .select({ fence: sites.fence })
    .from(clockEvents)
    .innerJoin(sites, eq(sites.id, clockEvents.siteId))
    .where(and(eq(clockEvents.userId, p('user_id')), eq(clockEvents.eventType, 'clock_in')))
    .orderBy(desc(clockEvents.createdAt), desc(clockEvents.id))
    .limit(1)
    .prepare('tc_current_site_fence');

/**
 * The fence of the site of the QR code the worker used for their latest clock-in; null when
 * they never clocked in with a QR code or that site has no fence.
 */
export async function currentSiteFence(statement: ReturnType<typeof currentSiteFenceOf>, userId: number): Promise<Fence | null> {
  const [row] = await statement.execute({ user_id: userId });
  return row?.fence ?? null;
}

export class SitesService {
  private readonly db: Database;
  private readonly all;
  private readonly one;
  constructor({ db }: { db: Database }) {
    this.db = db;
    this.all = this.select().orderBy(desc(sites.isDefault), asc(sites.id)).prepare('tc_sites');
    this.one = this.select().where(eq(sites.id, p('id'))).prepare('tc_site');
  }

  private select() {
    return this.db.orm.select({ site: sites, qrCodeCount: this.db.orm.$count(qrCodes, eq(qrCodes.siteId, sites.id)) }).from(sites);
  }

  async list(locale: Locale): Promise<Static<typeof Site>[]> {
    const rows = await this.all.execute();
    return rows.map((r) => view(r.site, r.qrCodeCount, locale));
  }

  async get(id: number, locale: Locale): Promise<Static<typeof Site>> {
    const [row] = await this.one.execute({ id });
    if (!row) throw notFound(id);
    return view(row.site, row.qrCodeCount, locale);
  }

  async create(input: Static<typeof SiteCreateBody>, locale: Locale): Promise<Static<typeof Site>> {
    checkFence(input.fence);
    const [row] = await this.db.orm.insert(sites).values({ name: input.name.trim(), fence: input.fence }).returning({ id: sites.id });
    return this.get(row!.id, locale);
  }

  /**
   * Renames a site or replaces its fence. `name` is in the writer's language (`locale`): the
   * default site's seeded name sent back as they see it (an editor saved for its fence) keeps
   * it seeded; any other name is the site's own in every language.
   */
  async update(id: number, input: Static<typeof SiteUpdateBody>, locale: Locale): Promise<Static<typeof Site>> {
    if (input.name === undefined && input.fence === undefined) {
      throw new AppError(E.VALIDATION_ERROR, { detail: msg('timeclock.sites.sendAtLeastOne') });
    }
    checkFence(input.fence);
    await this.db.transaction(async (tx) => {
      const [current] = await tx.orm.select({ name: sites.name, isDefault: sites.isDefault }).from(sites).where(eq(sites.id, id)).for('update');
      if (!current) throw notFound(id);
      await tx.orm
        .update(sites)
        // Fields absent from the request are undefined, which the builder leaves out of the SET.
        .set({
          name: input.name === undefined ? undefined : siteNameWrite(current, input.name.trim(), locale),
          fence: input.fence,
          updatedAt: sql`now()`,
        })
        .where(eq(sites.id, id));
    });
    return this.get(id, locale);
  }

  /** Deletes a site that holds no QR code and is not the default one. */
  async remove(id: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      const [site] = await tx.orm.select({ isDefault: sites.isDefault }).from(sites).where(eq(sites.id, id)).for('update');
      if (!site) throw notFound(id);
      if (site.isDefault) throw new AppError(E.CONFLICT, { detail: msg('timeclock.sites.defaultSiteCannotDeleted'), details: { siteId: id } });
      const [used] = await tx.orm.select({ n: count() }).from(qrCodes).where(eq(qrCodes.siteId, id));
      if ((used?.n ?? 0) > 0) {
        throw new AppError(E.CONFLICT, { detail: msg('timeclock.sites.siteStillHasQrCount', { id, value: used!.n }), details: { siteId: id } });
      }
      await tx.orm.delete(sites).where(eq(sites.id, id));
    }).catch((err: unknown) => {
      // A QR code added to the site meanwhile.
      if (pgErrorCode(err) === FOREIGN_KEY_VIOLATION) throw new AppError(E.CONFLICT, { detail: msg('timeclock.sites.siteStillHasQrCodes', { id }), details: { siteId: id } });
      throw err;
    });
  }
}

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
  private readonly lists = new Statements<ReturnType<QrCodesService['listStatement']>>();
  private readonly one;
  constructor({ db }: { db: Database }) {
    this.db = db;
    this.one = this.select().where(eq(qrCodes.id, p('id'))).prepare('tc_qr_code');
  }

  private select() {
    return this.db.orm.select({ qr: qrCodes, site: { name: sites.name, isDefault: sites.isDefault, fence: sites.fence } }).from(qrCodes).innerJoin(sites, eq(sites.id, qrCodes.siteId));
  }

  private listStatement(params: Params) {
    return this.select()
      .where(and(
        params.has('site_id') ? eq(qrCodes.siteId, p('site_id')) : undefined,
        params.has('active') ? eq(qrCodes.isActive, p('active')) : undefined,
      ))
      .orderBy(desc(qrCodes.createdAt), asc(qrCodes.id))
      .prepare('tc_qr_codes');
  }

  async list(q: Static<typeof QrListQuery>, locale: Locale): Promise<Static<typeof QrCodeDetail>[]> {
    const params = new Params().set('site_id', q.siteId).set('active', q.active);
    const rows = await this.lists.get(params.key, () => this.listStatement(params)).execute(params.values);
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
