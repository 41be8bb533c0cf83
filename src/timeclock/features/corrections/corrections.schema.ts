import { Type, type Static } from 'typebox';
import { Nullable } from '../../../platform/http/schemas.ts';
import { CORRECTION_KINDS, CORRECTION_STATUSES, EVENT_TYPES, LOCATION_SOURCES, PUNCH_ORIGINS } from '../../db/schema.ts';
import { Body, Id } from '../../http.ts';

const Instant = (description: string) => Type.String({ description: `${description}, ISO 8601 UTC` });
const Kind = Type.Enum(CORRECTION_KINDS, {
  description: '`add` a missing punch, `move` a punch to another time or site, or `void` a punch (kept, marked, out of every total)',
});
const Status = Type.Enum(CORRECTION_STATUSES, {
  description: '`pending` (a worker’s request waiting for a manager), `approved` (applied), `rejected`, or `cancelled` (withdrawn by the worker)',
});
const EventType = Type.Enum(EVENT_TYPES);

const Person = Nullable(Type.Object({ id: Type.Integer(), username: Type.String(), fullName: Type.String() }), {
  description: 'null when that account was removed, or for a step not taken yet',
});

export const PunchValues = Type.Object({
  eventId: Nullable(Type.Integer({ description: 'the punch’s id; null for a punch a request would add, until it is approved' })),
  eventType: EventType,
  at: Instant('the punch’s time'),
  siteId: Nullable(Type.Integer()),
  siteName: Nullable(Type.String({ description: 'the site’s name; the default site’s seeded name is in the reader’s language' })),
});

export const Correction = Type.Object({
  id: Type.Integer(),
  userId: Type.Integer({ description: 'the worker whose punches it corrects' }),
  username: Type.String(),
  fullName: Type.String(),
  kind: Kind,
  status: Status,
  eventId: Nullable(Type.Integer({ description: 'the punch moved or voided; null for `add`' })),
  before: Type.Array(PunchValues, { description: 'the punches as they were: none for `add`, the punch for `move`, the punch (and its pair when voided together) for `void`' }),
  after: Type.Array(PunchValues, { description: 'the punches as they become: the new punch for `add` and `move`, none for `void`' }),
  reason: Type.String(),
  requestedAt: Instant('when it was made or requested'),
  requestedBy: Person,
  decidedAt: Nullable(Instant('when a manager approved or rejected it, or the worker cancelled it')),
  decidedBy: Person,
  decisionNote: Nullable(Type.String()),
});
export type CorrectionT = Static<typeof Correction>;

export const Evidence = Type.Object({
  from: Instant('start of the window the evidence covers'),
  to: Instant('end of the window'),
  site: Nullable(Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    fence: Nullable(Type.Object({}, { additionalProperties: true, description: 'the site’s fence, as on `/api/managers/sites`' })),
  }), { description: 'the site whose fence the positions are judged against: the corrected punch’s, else its session’s' }),
  positions: Type.Array(Type.Object({
    at: Instant('when the phone recorded it'),
    latitude: Type.Number(),
    longitude: Type.Number(),
    accuracy: Nullable(Type.Number({ description: 'metres' })),
    source: Type.Enum(LOCATION_SOURCES),
    insideFence: Nullable(Type.Boolean({ description: 'null when the site has no fence' })),
  }), { description: 'the worker’s positions in the window, in time order (at most 1,000, the newest kept)' }),
  punches: Type.Array(Type.Object({
    id: Type.Integer(),
    eventType: EventType,
    at: Instant('the punch’s time'),
    siteName: Nullable(Type.String()),
    qrCodeName: Nullable(Type.String({ description: 'the QR code scanned; null for a forced clock-out or a corrected punch' })),
    origin: Type.Enum(PUNCH_ORIGINS),
    voided: Type.Boolean(),
  }), { description: 'the worker’s punches in the window (QR scans and corrections), voided ones included' }),
  refusedScans: Type.Array(Type.Object({
    at: Instant('when it was refused'),
    alertType: Type.String({ description: 'why: `geofence_violation`, `qr_invalid`, `duplicate_event`, `out_of_order_event`' }),
    details: Type.Object({}, { additionalProperties: true }),
  }), { description: 'clock attempts the server refused in the window' }),
  device: Nullable(Type.Object({ deviceUuid: Type.String(), registeredAt: Instant('registered'), lastSeen: Instant('last seen') }), {
    description: 'the device the worker is bound to now',
  }),
  suggestedAt: Nullable(Instant('the time the trail supports for the punch')),
  suggestedBasis: Nullable(Type.Enum(['left_fence', 'last_inside', 'arrived'] as const, {
    description: '`left_fence`: the last position inside the fence before the worker left it for good (a clock-out); `last_inside`: the trail never leaves, its last position inside; `arrived`: the first position inside after coming from outside (a clock-in)',
  })),
});

export const CorrectionDetail = Type.Intersect([Correction, Type.Object({ evidence: Evidence })]);

const CorrectionFields = {
  kind: Kind,
  eventId: Type.Optional(Id('`move` and `void`: the punch to correct')),
  pairEventId: Type.Optional(Id('`void` only: the other punch of the same session, voided with it (voiding one punch of a session alone would leave two clock-ins or two clock-outs in a row)')),
  eventType: Type.Optional(Type.Enum(EVENT_TYPES, { description: '`add` only: the punch’s type' })),
  at: Type.Optional(Type.String({ format: 'date-time', description: '`add`: the punch’s time (required); `move`: the new time. ISO 8601 with a zone, not in the future' })),
  endAt: Type.Optional(Type.String({ format: 'date-time', description: '`add` only: adds a whole session, the clock-in at `at` and the clock-out at `endAt` (later than `at`, not in the future); `eventType` must then be `clock_in`' })),
  siteId: Type.Optional(Id('`add`: the site (default: the session’s); `move`: the new site')),
  reason: Type.String({ minLength: 1, maxLength: 500, description: 'why, in words (required, up to 500 characters)' }),
};

export const WorkerCorrectionBody = Body(CorrectionFields);
export const ManagerCorrectionBody = Body({ userId: Id('the worker whose punches it corrects'), ...CorrectionFields });
export type CorrectionInput = Static<typeof WorkerCorrectionBody>;

export const DecisionBody = Type.Union([
  Body({ note: Type.Optional(Type.String({ maxLength: 500, description: 'optional note to the worker, up to 500 characters (trimmed; blank: none)' })) }),
  Type.Null(),
], { description: '`{ "note": "…" }`, `{}`, or no body' });

const Paging = {
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
};

export const CORRECTION_STATUS_FILTERS = [...CORRECTION_STATUSES, 'all'] as const;

export const ManagerCorrectionsQuery = Type.Object({
  status: Type.Enum(CORRECTION_STATUS_FILTERS, { default: 'pending', description: 'default `pending` (the requests waiting for a decision); `all` for every status' }),
  userId: Type.Optional(Id('only this worker')),
  kind: Type.Optional(Kind),
  ...Paging,
});

export const WorkerCorrectionsQuery = Type.Object({
  status: Type.Enum(CORRECTION_STATUS_FILTERS, { default: 'all' }),
  ...Paging,
});

export const CorrectionsReply = Type.Object({
  corrections: Type.Array(Correction),
  totalCount: Type.Integer(),
  currentPage: Type.Integer(),
  totalPages: Type.Integer(),
});

export const PunchHistory = Type.Object({
  eventId: Type.Integer(),
  userId: Type.Integer(),
  punch: Type.Object({
    eventType: EventType,
    at: Instant('the punch’s time'),
    siteName: Nullable(Type.String()),
    origin: Type.Enum(PUNCH_ORIGINS),
    recordedAt: Instant('when it was recorded (received, or the correction applied)'),
    voidedAt: Nullable(Instant('when a correction voided or replaced it')),
  }),
  chain: Type.Array(Type.Object({ eventId: Type.Integer(), eventType: EventType, at: Instant('time'), voided: Type.Boolean() }), {
    description: 'the punch and the punches that replaced it or that it replaced, oldest first (a punch moved twice has three)',
  }),
  corrections: Type.Array(Correction, { description: 'every correction of any punch of the chain, requests included, oldest first' }),
});
