import { Type } from 'typebox';
import { Nullable } from '../../../platform/http/schemas.ts';
import { EVENT_TYPES, PUNCH_ORIGINS } from '../../db/schema.ts';
import { Body, Id, Latitude, Location, Longitude } from '../../http.ts';

export const HISTORY_LIMIT_MAX = 500;
export const LATE_LIMIT_MAX = 100;

const EventType = Type.Enum(EVENT_TYPES);

/** An RFC 4122 UUID (versions 1 to 8, variant 10xx), any case. */
export const CLIENT_EVENT_ID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$';

export const ClockBody = Body({
  userId: Id('the worker clocking'),
  eventType: Type.Enum(EVENT_TYPES, { description: '`clock_in` or `clock_out`' }),
  qrCodeValue: Type.String({ minLength: 1, maxLength: 256, description: 'the scanned QR code’s UUID, or `FORCE_CLOCK_OUT`' }),
  latitude: Latitude,
  longitude: Longitude,
  notes: Type.Optional(Type.String({ maxLength: 500 })),
  clientEventId: Type.Optional(Type.String({
    pattern: CLIENT_EVENT_ID_PATTERN,
    description: 'the client’s id of this punch, an RFC 4122 UUID (any case; stored in lower case): a replay with the same id answers the original result and records nothing new',
    examples: ['0b8e7c1e-6a57-4c8e-9d1b-2f9f3f6b9c10'],
  })),
  capturedAt: Type.Optional(Type.String({
    format: 'date-time',
    description: 'when the punch was made on the device, ISO 8601 with an offset; default: the time of receipt',
    examples: ['2026-03-02T07:58:12.345+01:00'],
  })),
});

export const ClockReply = Type.Object({
  message: Type.String(),
  timestamp: Type.String({ description: 'time of the event, ISO 8601 UTC: the capture time when one was sent, else the server’s time of receipt' }),
  eventType: EventType,
  location: Location,
  receivedAt: Type.Optional(Type.String({ description: 'only when the request had `clientEventId` or `capturedAt`: when the server recorded the event, ISO 8601 UTC' })),
  late: Type.Optional(Type.Boolean({ description: 'only when the request had `clientEventId` or `capturedAt`: received more than CLOCK_LATE_AFTER_SECONDS after its capture' })),
  clientEventId: Type.Optional(Nullable(Type.String({ description: 'only when the request had `clientEventId` or `capturedAt`: the client event id, lower case, or null' }))),
  warning: Type.Optional(Type.Object({
    code: Type.Literal('short_rest'),
    restMinutes: Type.Integer({ description: 'the rest since the previous day’s last clock-out' }),
    minRestMinutes: Type.Integer({ description: 'the work rules’ minimum rest' }),
  }, { description: 'only on a clock-in that starts a day less than the work rules’ `minRestMinutes` after the previous day’s clock-out: the clock-in is recorded, the worker told, managers alerted (`short_rest`)' })),
});

export const HistoryQuery = Type.Object({
  from: Type.Optional(Type.String({ format: 'date-time', description: 'ISO 8601 with offset; events at or after' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'ISO 8601 with offset; events at or before' })),
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: HISTORY_LIMIT_MAX, default: 50, description: `events per page, 1..${HISTORY_LIMIT_MAX}` }),
});

export const HistoryItem = Type.Object({
  id: Type.Integer(),
  event_type: EventType,
  timestamp: Type.String({ description: 'time of the event, ISO 8601 UTC (the capture time of a punch sent with one)' }),
  qrCodeUsedName: Type.String({ description: 'name of the QR code used; `FORCE_CLOCK_OUT` for a forced clock-out, `CORRECTION` for a punch a correction added or moved without its QR code' }),
  siteName: Nullable(Type.String({ description: 'name of the site the event was recorded at (the QR code’s site); null for a forced clock-out. An extension for the worker app.' })),
  forced: Type.Boolean({ description: 'a FORCE_CLOCK_OUT event (no QR or fence check)' }),
  notes: Type.Union([Type.String(), Type.Null()]),
  capturedAt: Nullable(Type.String({ description: 'the capture time the device sent, ISO 8601 UTC; null when it sent none (captured when received)' })),
  receivedAt: Type.String({ description: 'when the server recorded the event, ISO 8601 UTC' }),
  late: Type.Boolean({ description: 'received more than CLOCK_LATE_AFTER_SECONDS after its capture (an offline punch); managers review these' }),
  clientEventId: Nullable(Type.String({ description: 'the client event id it was sent with, lower case' })),
  origin: Type.Enum(PUNCH_ORIGINS, { description: '`punch` (the clock), `correction` (added by a correction, or the replacement of a moved punch) or `auto` (the automatic clock-out)' }),
  voided: Type.Boolean({ description: 'a correction voided or replaced it: shown, out of every total' }),
  correctionId: Nullable(Type.Integer({ description: 'the correction that added it, or that voided it' })),
});

export const LatePunchQuery = Type.Object({
  reviewed: Type.Optional(Type.Boolean({ description: '`false`: only those awaiting review; `true`: only reviewed ones; default both' })),
  userId: Type.Optional(Id('only this worker')),
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: LATE_LIMIT_MAX, default: 20, description: `punches per page, 1..${LATE_LIMIT_MAX}` }),
});

export const LatePunch = Type.Object({
  id: Type.Integer({ description: 'the clock event’s id' }),
  user_id: Type.Integer(),
  username: Type.String(),
  full_name: Type.String(),
  event_type: EventType,
  timestamp: Type.String({ description: 'time of the event (its capture), ISO 8601 UTC' }),
  capturedAt: Nullable(Type.String({ description: 'the capture time the device sent, ISO 8601 UTC' })),
  receivedAt: Type.String({ description: 'when the server recorded it, ISO 8601 UTC' }),
  delaySeconds: Type.Integer({ description: 'receipt minus event time, whole seconds' }),
  qrCodeUsedName: Type.String(),
  forced: Type.Boolean(),
  notes: Nullable(Type.String()),
  location: Location,
  clientEventId: Nullable(Type.String()),
  implausibleGap: Type.Boolean({ description: 'it raised a `late_punch` security alert (gap too long, or the worker was heard from meanwhile)' }),
  reviewedAt: Nullable(Type.String({ description: 'when a manager marked it reviewed, ISO 8601 UTC; null while awaiting review' })),
  reviewedBy: Nullable(Type.Object({ id: Type.Integer(), username: Type.String() }, { description: 'the manager who reviewed it' })),
});

export const LatePunchList = Type.Object({
  punches: Type.Array(LatePunch),
  totalCount: Type.Integer(),
  currentPage: Type.Integer(),
  totalPages: Type.Integer(),
});
