// Clock events and clock history.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { assertSelfOrManager } from '../../auth.ts';
import type { FeatureOptions } from '../../context.ts';
import { errors, security, UserIdParam, userErrors } from '../../http.ts';
import { ClockBody, ClockReply, HistoryItem, HistoryQuery } from './clock.schema.ts';
import { ClockService, type EventType } from './clock.service.ts';

const tags = ['Clock'];

export const clockRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const clock = new ClockService(ctx.platform.db, ctx.platform.logger, ctx.platform.config);

  app.post('/clock', {
    config: { access: 'user', limit: 'clock' },
    schema: {
      tags,
      summary: 'Clock in or out by scanning a QR code',
      description: [
        'Recorded when the QR code exists and is active (404 `QR_CODE_INACTIVE` otherwise), the position is inside the geofence of the QR code’s site ' +
          '(403 `OUTSIDE_GEOFENCE` with `details.distanceMetres`, the distance to the fence’s edge; 409 `GEOFENCE_NOT_CONFIGURED` when the site has no fence), ' +
          'and the event differs from the worker’s current state (409 `DUPLICATE_EVENT`; a worker with no events is clocked out). ' +
          'Of concurrent identical events exactly one is recorded. The timestamp is the server’s. Every refused attempt is recorded as a security event.',
        '`qrCodeValue: "FORCE_CLOCK_OUT"` (when `FORCE_CLOCK_OUT_ENABLED`) records a clock-out from any state without QR or fence checks; only the worker themself may send it, ' +
          'only with `eventType: "clock_out"`; it is stored as forced and raises a `forced_clock_out` security alert. With the setting off, it is refused like an unknown QR code.',
        'A worker clocks only for themself (403); a manager may clock for a worker. 10 requests per minute per user.',
      ].join('\n\n'),
      security,
      body: ClockBody,
      response: { 200: ClockReply, ...userErrors, ...errors(403, 404, 409) },
    },
  }, async (request) => {
    const caller = assertSelfOrManager(request, request.body.userId);
    return clock.clock(caller, { ...request.body, eventType: request.body.eventType as EventType });
  });

  app.get('/worker/clock-history/:userId', {
    config: { access: 'user' },
    schema: {
      tags,
      summary: 'A worker’s clock events, newest first',
      description:
        'Optionally within `from`..`to` (ISO 8601, inclusive), paged with `page` (from 1) and `limit` (default 50, at most 500); the `X-Total-Count` header gives the number of events in the range. ' +
        'The worker themself or a manager. 404 for an unknown or deleted worker.',
      security,
      params: UserIdParam,
      querystring: HistoryQuery,
      response: { 200: Type.Array(HistoryItem), ...userErrors, ...errors(403, 404) },
    },
  }, async (request, reply) => {
    assertSelfOrManager(request, request.params.userId);
    const { total, events } = await clock.history(request.params.userId, request.query);
    reply.header('X-Total-Count', total);
    return events;
  });
};
