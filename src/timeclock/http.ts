// Schema pieces shared by the time-clock routes: the error body, strict request bodies, ids,
// device UUIDs, coordinates and a route's own error responses.
import { Type, type TSchema } from 'typebox';

export const ErrorBody = Type.Object(
  { message: Type.String(), code: Type.String(), details: Type.Object({}, { additionalProperties: true }) },
  { description: 'error' },
);

/** Strict object for request bodies: unknown fields are refused by name. */
export const Body = <P extends Record<string, TSchema>>(props: P, options: { description?: string } = {}) =>
  Type.Object(props, { additionalProperties: false, ...options });

export const Id = (description = 'id') => Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description });
export const IdParam = Type.Object({ id: Id() });
export const UserIdParam = Type.Object({ userId: Id('the worker’s user id') });
export const UuidParam = Type.Object({ id: Type.String({ format: 'uuid', description: 'QR code UUID' }) });

/** `<ios|android|web>-<RFC 4122 UUID>` (DESIGN §7.5). */
export const DEVICE_UUID_PATTERN = '^(ios|android|web)-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$';
export const DeviceUuid = Type.String({
  pattern: DEVICE_UUID_PATTERN,
  description: 'platform prefix and RFC 4122 UUID, e.g. `android-0b8e7c1e-6a57-4c8e-9d1b-2f9f3f6b9c10` (compared case-insensitively)',
  examples: ['android-0b8e7c1e-6a57-4c8e-9d1b-2f9f3f6b9c10'],
});

/** A site's name in a reply (sites and QR codes). */
export const SiteName = Type.String({
  description: 'the site’s name; the default site’s seeded name (“Default site”) is in the reader’s language (Accept-Language) until a manager renames it, and a given name is shown as written in every language',
});

export const Latitude = Type.Number({ minimum: -90, maximum: 90, description: 'WGS 84 degrees' });
export const Longitude = Type.Number({ minimum: -180, maximum: 180, description: 'WGS 84 degrees' });
export const Location = Type.Object({ latitude: Type.Number(), longitude: Type.Number() });

/** The error responses particular to a route, by status (those its access implies are added by app.ts). */
export const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, ErrorBody])) as Record<number, typeof ErrorBody>;

/** Device UUIDs are stored and compared in lower case. */
export const normaliseDevice = (uuid: string) => uuid.toLowerCase();
