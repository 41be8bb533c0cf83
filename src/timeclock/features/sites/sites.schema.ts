import { Type } from 'typebox';
import { Body, Id, Latitude, Longitude } from '../../http.ts';

const Point = Type.Object({ latitude: Latitude, longitude: Longitude }, { additionalProperties: false });

export const CircleFence = Type.Object(
  {
    type: Type.Literal('circle'),
    center: Point,
    radiusMetres: Type.Number({ minimum: 1, maximum: 100_000, description: 'metres, 1..100000' }),
  },
  { additionalProperties: false, description: 'a circle: centre and radius in metres' },
);

export const PolygonFence = Type.Object(
  {
    type: Type.Literal('polygon'),
    points: Type.Array(Point, { minItems: 3, maxItems: 1000, description: 'vertices in order (3..1000, not closed; must not cross the antimeridian)' }),
  },
  { additionalProperties: false, description: 'a polygon: its vertices' },
);

export const FenceSchema = Type.Union([CircleFence, PolygonFence], {
  description: 'the geofence: a circle or a polygon; `null` = not configured (clock events on the site are refused)',
});

const NAME = { minLength: 1, maxLength: 128, pattern: '\\S' };
const Name = Type.String({ ...NAME, description: 'not blank' });
const NewName = Type.String({
  ...NAME,
  description: 'not blank; the default site’s seeded name sent back as the writer sees it (in their Accept-Language) leaves it unchanged, any other name renames it',
});

export const SiteCreateBody = Body({ name: Name, fence: Type.Union([FenceSchema, Type.Null()]) });
export const SiteUpdateBody = Body({ name: Type.Optional(NewName), fence: Type.Optional(Type.Union([FenceSchema, Type.Null()])) });

/** A site's name in a reply. */
export const SiteName = Type.String({
  description: 'the site’s name; the default site’s seeded name (“Default site”) is in the reader’s language (Accept-Language) until a manager renames it, and a given name is shown as written in every language',
});

export const Site = Type.Object({
  id: Type.Integer(),
  name: SiteName,
  fence: Type.Union([FenceSchema, Type.Null()]),
  has_fence: Type.Boolean({ description: 'whether the site has a fence (`fence` is not null)' }),
  usable: Type.Boolean({
    description: 'whether workers can clock with the site’s QR codes: a site without a fence cannot be used for clocking (every punch there is refused with 409 `GEOFENCE_NOT_CONFIGURED`) until a manager draws one',
  }),
  is_default: Type.Boolean({ description: 'QR codes created without `siteId` go to the default site' }),
  qr_code_count: Type.Integer(),
  created_at: Type.String({ description: 'ISO 8601' }),
  updated_at: Type.String({ description: 'ISO 8601' }),
});

export const SiteIdParam = Type.Object({ id: Id('site id') });

const QrName = Type.String({ minLength: 1, maxLength: 128, pattern: '\\S', description: 'not blank' });

export const QrCode = Type.Object({
  id: Type.String({ format: 'uuid', description: 'the value a worker scans' }),
  name: Type.String(),
  is_active: Type.Boolean(),
  created_at: Type.String({ description: 'ISO 8601' }),
});

const Usability = {
  site_has_fence: Type.Boolean({ description: 'whether the code’s site has a fence' }),
  usable: Type.Boolean({ description: 'whether workers can clock with this code now: it is active and its site has a fence' }),
  unusable_reason: Type.Union([Type.Literal('INACTIVE'), Type.Literal('GEOFENCE_NOT_CONFIGURED'), Type.Null()], {
    description:
      'why the code cannot be used, null when it can: `INACTIVE` (deactivated: scans are refused with 404 `QR_CODE_INACTIVE`), ' +
      'else `GEOFENCE_NOT_CONFIGURED` (its site has no fence: scans are refused with 409 `GEOFENCE_NOT_CONFIGURED` until a manager draws the site’s fence)',
  }),
};

export const QrCodeDetail = Type.Object({
  ...QrCode.properties,
  siteId: Type.Integer({ description: 'the site the code belongs to' }),
  siteName: SiteName,
  ...Usability,
});

export const QrCodeCreated = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  is_active: Type.Boolean(),
  siteId: Type.Integer({ description: 'the site the code was created on (the default site when `siteId` was not sent); an extension of the contract' }),
  siteName: SiteName,
  ...Usability,
});

export const QrCreateBody = Body({
  name: QrName,
  siteId: Type.Optional(Id('the site of the code; default: the default site')),
});

export const QrUpdateBody = Body({
  name: Type.Optional(QrName),
  is_active: Type.Optional(Type.Boolean({ description: 'false deactivates: scans are refused with 404 QR_CODE_INACTIVE' })),
  siteId: Type.Optional(Id('move the code to this site')),
});

export const QrListQuery = Type.Object({
  siteId: Type.Optional(Id('only the codes of this site')),
  active: Type.Optional(Type.Boolean({ description: 'only active (true) or inactive (false) codes' })),
});
