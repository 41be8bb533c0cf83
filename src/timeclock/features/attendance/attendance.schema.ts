import { Type } from 'typebox';
import { Nullable } from '../../../platform/http/schemas.ts';

export const AutoClockOutsQuery = Type.Object({
  reviewed: Type.Optional(Type.Boolean({ description: '`false` (the default view of the inbox): only those awaiting review; `true`: only reviewed ones; default both' })),
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
});

export const AutoClockOut = Type.Object({
  id: Type.Integer({ description: 'the automatic clock-out punch' }),
  userId: Type.Integer(),
  username: Type.String(),
  fullName: Type.String(),
  sessionStart: Nullable(Type.String({ description: 'the clock-in it closed, ISO 8601 UTC' })),
  at: Type.String({ description: 'the time it was closed at, ISO 8601 UTC' }),
  basis: Type.Enum(['left_fence', 'limit'] as const, { description: '`left_fence`: at the last position inside the fence before the worker left; `limit`: at the limit (work rules or the site’s closing time)' }),
  siteName: Nullable(Type.String()),
  voided: Type.Boolean({ description: 'a correction replaced or voided it since' }),
  reviewedAt: Nullable(Type.String()),
  reviewedBy: Nullable(Type.Object({ id: Type.Integer(), username: Type.String() })),
});

export const AutoClockOutsReply = Type.Object({
  autoClockOuts: Type.Array(AutoClockOut),
  totalCount: Type.Integer(),
  currentPage: Type.Integer(),
  totalPages: Type.Integer(),
});

export const ExceptionsSummary = Type.Object({
  pendingCorrections: Type.Integer({ description: 'correction requests waiting for a decision' }),
  autoClockOutsToReview: Type.Integer({ description: 'automatic clock-outs not reviewed yet' }),
  longOpenSessions: Type.Integer({ description: 'sessions open longer than the work rules’ `longSessionMinutes` (a forgotten clock-out the sweep has not closed: `autoClockOutAfterMinutes` is null or later)' }),
  shortRestAlerts: Type.Integer({ description: 'open `short_rest` alerts (a day started before the minimum rest)' }),
});

export const OpenSessionsQuery = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
});

export const OpenSession = Type.Object({
  userId: Type.Integer(),
  username: Type.String(),
  fullName: Type.String(),
  clockInEventId: Type.Integer({ description: 'the clock-in still open; a missing clock-out is added after it (`POST /api/managers/corrections`, `add`)' }),
  since: Type.String({ description: 'time of the clock-in (its capture time), ISO 8601 UTC' }),
  site: Nullable(Type.Object({ id: Type.Integer(), name: Type.String() }, { description: 'the site of the clock-in' })),
  minutesOpen: Type.Integer({ description: 'whole minutes from the clock-in to the server’s time of the answer' }),
  lastPositionAt: Nullable(Type.String({ description: 'when the device took the worker’s newest position, ISO 8601 UTC; null when none' })),
  withinGeofence: Nullable(Type.Boolean({ description: 'that position against the fence of the clock-in’s site; null when no position or no fence' })),
});

export const OpenSessionsReply = Type.Object({
  openSessions: Type.Array(OpenSession),
  totalCount: Type.Integer({ description: 'equals the summary’s `longOpenSessions` at the same moment' }),
  currentPage: Type.Integer(),
  totalPages: Type.Integer(),
  longSessionMinutes: Type.Integer({ description: 'the threshold applied: the work rules’ `longSessionMinutes`' }),
});
