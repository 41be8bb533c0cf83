import { Type } from 'typebox';
import { Nullable } from '../../../platform/http/schemas.ts';
import { Body, Id } from '../../http.ts';
import { DeviceInfo } from '../../kernel/device-binding.ts';

export const LIST_LIMIT_MAX = 100;

const Username = Type.String({
  minLength: 3, maxLength: 64, pattern: '^[A-Za-z0-9._@-]+$',
  description: '3..64 of letters, digits, `.`, `_`, `@`, `-`; unique regardless of case',
});
const Password = Type.String({ minLength: 8, maxLength: 128, description: '8..128 characters' });
const FullName = Type.String({ minLength: 1, maxLength: 128, pattern: '\\S', description: 'not blank' });
const TagIds = Type.Array(Id('tag id'), { maxItems: 100, uniqueItems: true, description: 'the worker’s tags (replaces the set)' });
const Status = Type.Union([Type.Literal('active'), Type.Literal('disabled')], {
  description: '`disabled` refuses sign-in and ends the worker’s tokens within a second',
});

export const WorkerListQuery = Type.Object({
  search: Type.Optional(Type.String({ maxLength: 128, description: 'case-insensitive substring of the username or full name' })),
  tags: Type.Optional(Type.String({
    pattern: '^\\s*\\d{1,15}\\s*(,\\s*\\d{1,15}\\s*)*$', maxLength: 2000,
    description: 'comma-separated tag ids; a worker must have all of them',
  })),
  status: Type.Optional(Status),
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'from 1' }),
  limit: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 20, description: `workers per page; values above ${LIST_LIMIT_MAX} are capped at ${LIST_LIMIT_MAX}` }),
});

export const WorkerItem = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  full_name: Type.String(),
  created_at: Type.String({ description: 'ISO 8601' }),
  tags: Type.String({ description: 'comma-separated tag names, in alphabetical order; empty when none' }),
  lockedUntil: Nullable(Type.String({ description: 'ISO 8601 UTC' }), {
    description: 'an extension of the contract: until when failed sign-ins lock the worker (the password policy’s lockout; `POST /api/managers/workers/{id}/unlock` ends it); null: not locked',
  }),
});

export const WorkerList = Type.Object({
  workers: Type.Array(WorkerItem),
  totalCount: Type.Integer(),
  currentPage: Type.Integer(),
  totalPages: Type.Integer(),
});

export const WorkerDetail = Type.Object({
  ...WorkerItem.properties,
  tag_ids: Type.Array(Type.Integer()),
  status: Status,
  clock_state: Type.Union([Type.Literal('clock_in'), Type.Literal('clock_out')], { description: 'the last recorded event type; clock_out when none' }),
  device: Type.Union([Type.Object({ deviceUuid: Type.String(), ...DeviceInfo.properties }), Type.Null()], {
    description: 'the bound device; null when none. Its `lastSeen` is its latest sign-in, registration or validation, not the worker’s latest position (see `lastSeenAt`)',
  }),
  lastSeenAt: Nullable(Type.String({
    description: '“Last seen”: when the worker’s newest position was taken, by the device’s own timestamp (location updates and clock events), ISO 8601 UTC; null when none is known',
  })),
  isTracking: Type.Boolean({
    description: 'the newest position was taken within TRACKING_WINDOW_SECONDS, by its own device time (never later than its receipt): a phone that re-sends an old position is not tracking',
  }),
  lastPosition: Nullable(Type.Object({
    latitude: Type.Number(),
    longitude: Type.Number(),
    accuracy: Nullable(Type.Number({ description: 'metres' })),
    timestamp: Type.String({ description: 'when the device took it, ISO 8601 UTC' }),
    receivedAt: Type.String({ description: 'when it arrived, ISO 8601 UTC' }),
    source: Type.String({ description: '`background`, `manual` or `clock_event`' }),
  }, { description: 'the newest position known (by device time); null when none' })),
});

export const WorkerCreateBody = Body({
  username: Username,
  password: Password,
  fullName: FullName,
  tagIds: Type.Optional(TagIds),
});

export const WorkerUpdateBody = Body({
  username: Type.Optional(Username),
  password: Type.Optional(Password),
  fullName: Type.Optional(FullName),
  tagIds: Type.Optional(TagIds),
  status: Type.Optional(Status),
});

export const PublicWorker = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  full_name: Type.String(),
  role: Type.Union([Type.Literal('worker'), Type.Literal('manager')]),
  created_at: Type.String({ description: 'ISO 8601' }),
  tags: Type.String({ description: 'comma-separated tag names' }),
});

const TagName = Type.String({ minLength: 1, maxLength: 64, pattern: '^[^,]*[^,\\s][^,]*$', description: 'not blank, no comma; unique regardless of case' });

export const Tag = Type.Object({ id: Type.Integer(), name: Type.String(), worker_count: Type.Integer(), created_at: Type.String() });
export const TagBody = Body({ name: TagName });
