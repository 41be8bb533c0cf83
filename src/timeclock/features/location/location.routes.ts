// Location tracking: workers post their position; the tracking status is readable by the
// worker and by managers. Samples are purged after LOCATION_RETENTION_DAYS (see the service).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError } from '../../../platform/http/errors.ts';
import { assertSelfOrManager } from '../../kernel/auth.ts';
import type { FeatureOptions } from '../../context.ts';
import { E } from '../../errors.ts';
import { errors, UserIdParam } from '../../http.ts';
import { LocationStatusReply, LocationUpdateBody, LocationUpdateReply } from './location.schema.ts';
import { msg } from '../../../platform/i18n.ts';

const tags = ['Location'];

export const locationRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const service = ctx.location;
  app.addHook('onReady', async () => service.start());
  app.addHook('onClose', async () => service.stop());

  app.post('/location/update', {
    config: { access: 'user', limit: 'location' },
    schema: {
      tags,
      summary: 'Report the caller’s current position',
      description: [
        'Only for the caller’s own `userId` (a position is a fact of the device that sends it: managers cannot post for a worker, 403 `FORBIDDEN`).',
        'Every sample is stored; the worker’s current location is the newest by device timestamp. The server compares it with the previous position and raises',
        '`impossible_travel` (implied speed above `IMPOSSIBLE_TRAVEL_KMH`, default 300 km/h, beyond both accuracy radii and over 1 km) and',
        '`implausible_accuracy` (under 1 m, or over 5 km) security alerts, at most one of each type per worker every 10 minutes.',
        'Limited to 60 updates per minute per user.',
      ].join(' '),
      body: LocationUpdateBody,
      response: { 200: LocationUpdateReply, ...errors(403) },
    },
  }, async (request) => {
    const body = request.body;
    const caller = assertSelfOrManager(request, body.userId);
    if (caller.userId !== body.userId) throw new AppError(E.FORBIDDEN, { detail: msg('timeclock.location.ownDeviceOnly') });
    return service.update(body);
  });

  app.get('/location/status/:userId', {
    config: { access: 'user' },
    schema: {
      tags,
      summary: 'Tracking status of a worker',
      description: 'The worker themself or a manager. `isTracking` is true while the newest position was taken within `TRACKING_WINDOW_SECONDS` (default 300) by its own device time ' +
        '(capped at its receipt), and `lastUpdate` is that time: a phone that re-sends an old position is neither tracking nor seen again. '
        + '`withinGeofence` tests the current location against the fence of the worker’s current site; it is null when no position is known or the worker has no current site with a fence.',
      params: UserIdParam,
      response: { 200: LocationStatusReply, ...errors(403, 404) },
    },
  }, async (request) => {
    const { userId } = request.params;
    assertSelfOrManager(request, userId);
    return service.status(userId);
  });
};
