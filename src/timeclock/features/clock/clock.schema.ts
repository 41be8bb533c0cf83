import { Type } from 'typebox';
import { Body, Id, Latitude, Location, Longitude } from '../../http.ts';

export const HISTORY_LIMIT_MAX = 500;

const EventType = Type.Union([Type.Literal('clock_in'), Type.Literal('clock_out')]);

export const ClockBody = Body({
  userId: Id('the worker clocking'),
  eventType: Type.String({ enum: ['clock_in', 'clock_out'], description: '`clock_in` or `clock_out`' }),
  qrCodeValue: Type.String({ minLength: 1, maxLength: 256, description: 'the scanned QR code’s UUID, or `FORCE_CLOCK_OUT`' }),
  latitude: Latitude,
  longitude: Longitude,
  notes: Type.Optional(Type.String({ maxLength: 500 })),
});

export const ClockReply = Type.Object({
  message: Type.String(),
  timestamp: Type.String({ description: 'server time of the event, ISO 8601 UTC' }),
  eventType: EventType,
  location: Location,
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
  timestamp: Type.String({ description: 'ISO 8601 UTC' }),
  qrCodeUsedName: Type.String({ description: 'name of the QR code used; `FORCE_CLOCK_OUT` for a forced clock-out' }),
  forced: Type.Boolean({ description: 'a FORCE_CLOCK_OUT event (no QR or fence check)' }),
  notes: Type.Union([Type.String(), Type.Null()]),
});
