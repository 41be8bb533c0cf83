// Schemas of the manager console's live board (who is clocked in now, where) and of the
// console's settings (the map tile server).
import { Type } from 'typebox';
import { Nullable } from '../../../platform/http/schemas.ts';
import { Id } from '../../http.ts';

export const BOARD_LIMIT_MAX = 5000;

export const BoardQuery = Type.Object({
  siteId: Type.Optional(Id('only workers clocked in on this site')),
  search: Type.Optional(Type.String({ maxLength: 128, description: 'case-insensitive substring of the username or full name' })),
  limit: Type.Integer({
    minimum: 1, maximum: BOARD_LIMIT_MAX, default: 1000,
    description: `workers returned, 1..${BOARD_LIMIT_MAX} (most recently clocked in first); \`total\` counts them all`,
  }),
});

export const BoardWorker = Type.Object({
  userId: Type.Integer(),
  username: Type.String(),
  full_name: Type.String(),
  since: Nullable(Type.String({ description: 'time of the clock-in (its capture time), ISO 8601 UTC' })),
  site: Nullable(Type.Object({ id: Type.Integer(), name: Type.String() }, { description: 'the site of the clock-in' })),
  qrCodeName: Nullable(Type.String({ description: 'the QR code scanned to clock in' })),
  lastPosition: Nullable(Type.Object({
    latitude: Type.Number(),
    longitude: Type.Number(),
    accuracy: Nullable(Type.Number({ description: 'metres' })),
    timestamp: Type.String({ description: 'when the device took it, ISO 8601 UTC (“last seen”)' }),
    receivedAt: Type.String({ description: 'when it arrived, ISO 8601 UTC' }),
    source: Type.String(),
  }, { description: 'the newest position known; null when none' })),
  withinGeofence: Nullable(Type.Boolean({ description: 'the last position against the fence of the clock-in’s site; null when no position or no fence' })),
  isTracking: Type.Boolean({
    description: 'the last position was taken (its own device time, never later than its receipt) within TRACKING_WINDOW_SECONDS: a phone that re-sends an old position does not count as tracking',
  }),
});

export const BoardReply = Type.Object({
  workers: Type.Array(BoardWorker),
  total: Type.Integer({ description: 'workers clocked in that match the filters (may exceed the list’s length)' }),
  trackingWindowSeconds: Type.Integer(),
  openAlerts: Type.Integer({ description: 'security alerts nobody has acknowledged or resolved yet (status `open`), across all workers' }),
  unresolvedAlerts: Type.Integer({ description: 'security alerts not resolved yet (status `open` or `acknowledged`)' }),
  generatedAt: Type.String({ description: 'server time of the answer, ISO 8601 UTC' }),
});

export const ConsoleSettings = Type.Object({
  mapTileUrl: Nullable(Type.String({ description: 'Leaflet tile URL template (`{z}`, `{x}`, `{y}`, optional `{s}`); null: no tiles, maps are drawn on a plain grid' })),
  mapAttribution: Type.String({ description: 'attribution shown on maps (may be empty)' }),
  trackingWindowSeconds: Type.Integer(),
  lateAfterSeconds: Type.Integer({ description: 'a punch received this long after its capture is late' }),
  displayTimezone: Type.String({ description: 'DISPLAY_TIMEZONE: the time zone of new sites unless another is chosen' }),
  minIntervalSeconds: Type.Integer({ description: 'CLOCK_MIN_INTERVAL_SECONDS: the duplicate-punch window (0: off)' }),
  setup: Type.Object({
    needed: Type.Boolean({
      description: 'true while no site has a fence: no QR code can be used for clocking yet. The console then leads the manager to draw the default site’s fence (a fresh installation starts so)',
    }),
    defaultSite: Type.Object({
      id: Type.Integer(),
      name: Type.String(),
      has_fence: Type.Boolean({ description: 'QR codes created without a site go to the default site; they cannot be used until it has a fence' }),
    }, { description: 'the default site' }),
    fencedSites: Type.Integer({ description: 'sites that have a fence' }),
  }, { description: 'what a first manager must do before workers can clock' }),
});
