// The manager console's server side: the live board (GET /api/managers/board: who is clocked
// in now, where) and the console's settings (GET /api/managers/console-settings: the map tile
// server, so a deployment without internet access still draws fences on a plain grid).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { localeOf } from '../../../platform/http/conventions.ts';
import type { FeatureOptions } from '../../context.ts';
import { BOARD_LIMIT_MAX, BoardQuery, BoardReply, ConsoleSettings } from './board.schema.ts';

const tags = ['Manager console'];

export const boardRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const { board, platform: { config } } = ctx;

  app.get('/managers/board', {
    config: { access: 'manager' },
    schema: {
      tags,
      summary: 'Live board: the workers clocked in now',
      description:
        'Extension of the contract (which has no “who is clocked in” view). Every worker whose current state is `clock_in`, most recently clocked in first: ' +
        '`since` (time of the clock-in), `site` and `qrCodeName` of that clock-in, `lastPosition` (the newest position known, from location updates or clock events), ' +
        '`withinGeofence` (that position against the fence of the clock-in’s site; null when no position or no fence) and `isTracking` ' +
        `(the newest position was taken within TRACKING_WINDOW_SECONDS, now ${config.TRACKING_WINDOW_SECONDS} s, by its own device time capped at its receipt: a phone re-sending an old position is not tracking). ` +
        '`openAlerts` and `unresolvedAlerts` count the security alerts awaiting a manager (status `open`; `open` or `acknowledged`). ' +
        `Filters: \`siteId\`, \`search\` (username or full name); \`limit\` 1..${BOARD_LIMIT_MAX} (default 1000), \`total\` counts every match. ` +
        'One database statement whatever the number of workers: suitable for polling every few seconds.',
      querystring: BoardQuery,
      response: { 200: BoardReply },
    },
  }, async (request) => board.board(request.query, localeOf(request)));

  app.get('/managers/console-settings', {
    config: { access: 'manager' },
    schema: {
      tags,
      summary: 'Settings of the manager console',
      description:
        'Extension of the contract. `mapTileUrl` is CLOCK_MAP_TILE_URL (a Leaflet tile URL template such as `https://tile.openstreetmap.org/{z}/{x}/{y}.png`), ' +
        'null when unset: the console then draws fences on a plain grid, which also works without internet access. `mapAttribution` is CLOCK_MAP_ATTRIBUTION. ' +
        '`trackingWindowSeconds`, `lateAfterSeconds` and `minIntervalSeconds` are TRACKING_WINDOW_SECONDS, CLOCK_LATE_AFTER_SECONDS and CLOCK_MIN_INTERVAL_SECONDS. ' +
        '`setup` says what a first manager must do before workers can clock: `needed` is true while no site has a fence (a fresh installation: the default site has none, ' +
        'so every QR code is refused with `GEOFENCE_NOT_CONFIGURED`); the console then leads the manager to draw the fence of `defaultSite` ' +
        '(`PATCH /api/managers/sites/{id}` with `fence`).',
      response: { 200: ConsoleSettings },
    },
  }, async (request) => board.consoleSettings(localeOf(request)));
};
