// Sites and their geofences. One default site (created by the migration) receives QR codes
// created without a site; it cannot be deleted, and it has no fence until a manager sets one.
// Its seeded name is shown in the reader's language until a manager renames it (seeds.ts).
import { asc, count, desc, eq, sql } from 'drizzle-orm';
import type { Static } from 'typebox';
import type { Database } from '../../../platform/db/database.ts';
import { FOREIGN_KEY_VIOLATION, pgErrorCode } from '../../../platform/db/errors.ts';
import { p } from '../../../platform/db/statements.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { qrCodes, sites } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import { fenceProblem, type Fence } from '../../kernel/geofence.ts';
import type { Site, SiteCreateBody, SiteUpdateBody } from './sites.schema.ts';
import { msg, type Locale } from '../../../platform/i18n.ts';
import { canonicalTimeZone } from '../../../platform/time.ts';
import { siteName, siteNameWrite } from '../../seeds.ts';

type SiteRow = typeof sites.$inferSelect;

const view = (r: SiteRow, qrCodeCount: number, locale: Locale, defaultTz: string): Static<typeof Site> => ({
  id: r.id,
  name: siteName(r.name, r.isDefault, locale),
  fence: r.fence,
  has_fence: r.fence !== null,
  usable: r.fence !== null,
  is_default: r.isDefault,
  timezone: r.timezone ?? defaultTz,
  closesAt: r.closesAt,
  qr_code_count: qrCodeCount,
  created_at: r.createdAt.toISOString(),
  updated_at: r.updatedAt.toISOString(),
});

const notFound = (id: number) => new AppError(E.NOT_FOUND, { detail: msg('timeclock.sites.siteNotFound', { id }), details: { siteId: id } });

function checkFence(fence: Fence | null | undefined): void {
  const problem = fence ? fenceProblem(fence) : null;
  if (problem) throw new AppError(E.VALIDATION_ERROR, { detail: problem, details: { field: 'fence' } });
}

/** The zone as stored (the runtime's spelling); 400 naming `timezone` when it is not one. */
function checkTimezone(tz: string | undefined): string | undefined {
  if (tz === undefined) return undefined;
  const canonical = canonicalTimeZone(tz.trim());
  if (!canonical) throw new AppError(E.VALIDATION_ERROR, { detail: msg('timeclock.hours.timezoneUnknown', { value: tz }), details: { field: 'timezone' } });
  return canonical;
}

export class SitesService {
  private readonly db: Database;
  private readonly defaultTz: string;
  private readonly all;
  private readonly one;
  constructor({ db, defaultTimezone }: { db: Database; defaultTimezone: string }) {
    this.db = db;
    this.defaultTz = defaultTimezone;
    this.all = this.select().orderBy(desc(sites.isDefault), asc(sites.id)).prepare('tc_sites');
    this.one = this.select().where(eq(sites.id, p('id'))).prepare('tc_site');
  }

  private select() {
    return this.db.orm.select({ site: sites, qrCodeCount: this.db.orm.$count(qrCodes, eq(qrCodes.siteId, sites.id)) }).from(sites);
  }

  async list(locale: Locale): Promise<Static<typeof Site>[]> {
    const rows = await this.all.execute();
    return rows.map((r) => view(r.site, r.qrCodeCount, locale, this.defaultTz));
  }

  async get(id: number, locale: Locale): Promise<Static<typeof Site>> {
    const [row] = await this.one.execute({ id });
    if (!row) throw notFound(id);
    return view(row.site, row.qrCodeCount, locale, this.defaultTz);
  }

  async create(input: Static<typeof SiteCreateBody>, locale: Locale): Promise<Static<typeof Site>> {
    checkFence(input.fence);
    const timezone = checkTimezone(input.timezone) ?? this.defaultTz;
    const [row] = await this.db.orm.insert(sites).values({ name: input.name.trim(), fence: input.fence, timezone, closesAt: input.closesAt ?? null }).returning({ id: sites.id });
    return this.get(row!.id, locale);
  }

  /**
   * Renames a site or replaces its fence. `name` is in the writer's language (`locale`): the
   * default site's seeded name sent back as they see it (an editor saved for its fence) keeps
   * it seeded; any other name is the site's own in every language.
   */
  async update(id: number, input: Static<typeof SiteUpdateBody>, locale: Locale): Promise<Static<typeof Site>> {
    if (input.name === undefined && input.fence === undefined && input.timezone === undefined && input.closesAt === undefined) {
      throw new AppError(E.VALIDATION_ERROR, { detail: msg('timeclock.sites.sendAtLeastOne') });
    }
    checkFence(input.fence);
    const timezone = checkTimezone(input.timezone);
    await this.db.transaction(async (tx) => {
      const [current] = await tx.orm.select({ name: sites.name, isDefault: sites.isDefault }).from(sites).where(eq(sites.id, id)).for('update');
      if (!current) throw notFound(id);
      await tx.orm
        .update(sites)
        // Fields absent from the request are undefined, which the builder leaves out of the SET.
        .set({
          name: input.name === undefined ? undefined : siteNameWrite(current, input.name.trim(), locale),
          fence: input.fence,
          timezone,
          closesAt: input.closesAt,
          updatedAt: sql`now()`,
        })
        .where(eq(sites.id, id));
    });
    return this.get(id, locale);
  }

  /** Deletes a site that holds no QR code and is not the default one. */
  async remove(id: number): Promise<void> {
    // The refusals name the site (never the default one, whose name may be the seeded one: it is refused first).
    let name = '';
    await this.db.transaction(async (tx) => {
      const [site] = await tx.orm.select({ isDefault: sites.isDefault, name: sites.name }).from(sites).where(eq(sites.id, id)).for('update');
      if (!site) throw notFound(id);
      if (site.isDefault) throw new AppError(E.CONFLICT, { detail: msg('timeclock.sites.defaultSiteCannotDeleted'), details: { siteId: id } });
      name = site.name;
      const [used] = await tx.orm.select({ n: count() }).from(qrCodes).where(eq(qrCodes.siteId, id));
      if ((used?.n ?? 0) > 0) {
        throw new AppError(E.CONFLICT, { detail: msg('timeclock.sites.siteStillHasQrCount', { name, value: used!.n }), details: { siteId: id } });
      }
      await tx.orm.delete(sites).where(eq(sites.id, id));
    }).catch((err: unknown) => {
      // A QR code added to the site meanwhile.
      if (pgErrorCode(err) === FOREIGN_KEY_VIOLATION) throw new AppError(E.CONFLICT, { detail: msg('timeclock.sites.siteStillHasQrCodes', { name }), details: { siteId: id } });
      throw err;
    });
  }
}
