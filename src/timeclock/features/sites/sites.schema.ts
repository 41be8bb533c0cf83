import { Type } from 'typebox';
import { Body, Id, Latitude, Longitude, SiteName } from '../../http.ts';

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

const Timezone = Type.String({
  minLength: 1, maxLength: 64,
  description: 'IANA time zone of the site (for example `Europe/Berlin`): a work session belongs to the local date of its clock-in in this zone. Default: the server’s DISPLAY_TIMEZONE',
});

const ClosesAt = Type.Union([Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'HH:MM' }), Type.Null()], {
  description: 'local time (the site’s zone) the site closes, `HH:MM`; a session still open after it is a forgotten clock-out: the worker is reminded and the session closed automatically (null: no closing time, only the work rules’ `autoClockOutAfterMinutes`)',
});

export const SiteCreateBody = Body({ name: Name, fence: Type.Union([FenceSchema, Type.Null()]), timezone: Type.Optional(Timezone), closesAt: Type.Optional(ClosesAt) });
export const SiteUpdateBody = Body({
  name: Type.Optional(NewName), fence: Type.Optional(Type.Union([FenceSchema, Type.Null()])), timezone: Type.Optional(Timezone), closesAt: Type.Optional(ClosesAt),
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
  timezone: Type.String({ description: 'IANA time zone of the site’s days (timesheets)' }),
  closesAt: ClosesAt,
  qr_code_count: Type.Integer(),
  created_at: Type.String({ description: 'ISO 8601' }),
  updated_at: Type.String({ description: 'ISO 8601' }),
});

export const SiteIdParam = Type.Object({ id: Id('site id') });
