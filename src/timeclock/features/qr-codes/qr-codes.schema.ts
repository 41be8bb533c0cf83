import { Type } from 'typebox';
import { Body, Id, SiteName } from '../../http.ts';

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
