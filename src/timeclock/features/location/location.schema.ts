import { Type } from 'typebox';
import { Nullable } from '../../../platform/http/schemas.ts';
import { LOCATION_SOURCES } from '../../db/schema.ts';
import { Body, Id, Latitude, Longitude } from '../../http.ts';

export type LocationSource = (typeof LOCATION_SOURCES)[number];

/** How far ahead of the server clock a sample's timestamp may be (device clock skew). */
export const MAX_FUTURE_SKEW_MS = 5 * 60_000;
/** How old a sample may be (a device buffering while offline sends it late). */
export const MAX_SAMPLE_AGE_MS = 7 * 86_400_000;

export const LocationUpdateBody = Body({
  userId: Id('the caller’s own user id'),
  latitude: Latitude,
  longitude: Longitude,
  timestamp: Type.Optional(Type.String({
    format: 'date-time',
    description: 'when the device took the position, ISO 8601 with a zone (`2026-05-04T08:15:00Z`); default: the server’s time of receipt. More than 5 minutes ahead of the server clock or more than 7 days old is a 400.',
  })),
  accuracy: Type.Optional(Type.Number({ minimum: 0, maximum: 1_000_000, description: 'horizontal accuracy radius in metres, as the device reports it' })),
  source: Type.Enum(LOCATION_SOURCES, { description: 'what produced the sample' }),
});

export const LocationUpdateReply = Type.Object({
  message: Type.String(),
  timestamp: Type.String({ description: 'when the server stored the sample, ISO 8601 UTC' }),
});

export const LocationStatusReply = Type.Object({
  isTracking: Type.Boolean({
    description: 'the newest position was taken within TRACKING_WINDOW_SECONDS (default 300), by its own device time (never later than its receipt): a phone that re-sends an old position is not tracking',
  }),
  lastUpdate: Nullable(Type.String({ description: 'when the newest position was taken (its device time, “last seen”), ISO 8601 UTC; null when none is known' })),
  currentLocation: Nullable(Type.Object({
    latitude: Type.Number(),
    longitude: Type.Number(),
    accuracy: Nullable(Type.Number({ description: 'metres, as reported' })),
    timestamp: Type.String({ description: 'when the device took this position, ISO 8601 UTC' }),
    receivedAt: Type.String({ description: 'when this position arrived, ISO 8601 UTC' }),
    source: Type.String(),
  }, { description: 'the newest position by device time (location updates and clock events alike); null when none is known' })),
  withinGeofence: Nullable(Type.Boolean({ description: 'whether the current location is inside the fence of the worker’s current site; null when there is no position or no current site with a fence' })),
});
