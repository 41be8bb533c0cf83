// Schema pieces shared by the time-clock routes: the error body, strict request bodies, ids,
// device UUIDs, coordinates and the error responses each kind of route documents.
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

export const Latitude = Type.Number({ minimum: -90, maximum: 90, description: 'WGS 84 degrees' });
export const Longitude = Type.Number({ minimum: -180, maximum: 180, description: 'WGS 84 degrees' });
export const Location = Type.Object({ latitude: Type.Number(), longitude: Type.Number() });

export const security = [{ bearer: [] }];

/** The error responses of a route, by status. */
export const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, ErrorBody])) as Record<number, typeof ErrorBody>;

/** Errors every signed-in route may answer: bad input, token, rate limit, internal. */
export const userErrors = errors(400, 401, 429, 500);
/** Errors every manager route may answer. */
export const managerErrors = errors(400, 401, 403, 429, 500);

/** Device UUIDs are stored and compared in lower case. */
export const normaliseDevice = (uuid: string) => uuid.toLowerCase();

/** bigint ids come back as numbers from PGlite and as strings from postgres.js. */
export const num = (v: unknown) => Number(v);
export const iso = (v: Date | string) => new Date(v).toISOString();
