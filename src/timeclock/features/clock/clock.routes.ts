// Clock events, clock history, and the late (offline) punches managers review.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { assertSelfOrManager } from '../../auth.ts';
import type { FeatureOptions } from '../../context.ts';
import { errors, IdParam, UserIdParam } from '../../http.ts';
import { ClockBody, ClockReply, HistoryItem, HistoryQuery, LatePunch, LatePunchList, LatePunchQuery } from './clock.schema.ts';

const tags = ['Clock'];
const lateTags = ['Late punches (managers)'];

export const clockRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const { clock, platform: { config } } = ctx;

  app.post('/clock', {
    config: { access: 'user', limit: 'clock' },
    schema: {
      tags,
      summary: 'Clock in or out by scanning a QR code',
      description: [
        'Recorded when the QR code exists and is active (404 `QR_CODE_INACTIVE` otherwise), the position is inside the geofence of the QR code’s site ' +
          '(403 `OUTSIDE_GEOFENCE` with `details.distanceMetres`, the distance to the fence’s edge; 409 `GEOFENCE_NOT_CONFIGURED` when the site has no fence), ' +
          'and the event differs from the worker’s current state (409 `DUPLICATE_EVENT`; a worker with no events is clocked out). ' +
          'Of concurrent identical events exactly one is recorded. Without `capturedAt` the timestamp is the server’s. Every refused attempt is recorded as a security event.',
        '`qrCodeValue: "FORCE_CLOCK_OUT"` (when `FORCE_CLOCK_OUT_ENABLED`) records a clock-out from any state without QR or fence checks; only the worker themself may send it, ' +
          'only with `eventType: "clock_out"`; it is stored as forced and raises a `forced_clock_out` security alert. With the setting off, it is refused like an unknown QR code.',
        'A worker clocks only for themself (403); a manager may clock for a worker. 10 requests per minute per user.',
        '**Offline punches.** `capturedAt` (optional, ISO 8601 with an offset) is when the phone captured the punch; it becomes the event’s time (`timestamp` of the reply, ' +
          'of the history and of the webhook, and the order of the worker’s events); the server also stores when it received it. ' +
          `It may be at most CLOCK_CAPTURE_FUTURE_SECONDS (now ${config.CLOCK_CAPTURE_FUTURE_SECONDS} s) ahead of the server clock, and such a punch is recorded at its receipt; ` +
          `and at most CLOCK_CAPTURE_WINDOW_HOURS (now ${config.CLOCK_CAPTURE_WINDOW_HOURS} h) old. Otherwise 400 \`VALIDATION_ERROR\` with \`details.field: "capturedAt"\` and \`details.reason\` ` +
          '(`in the future` or `too old`). The state rule applies as of the capture time: when the worker already has an event recorded later than it, the punch would rewrite ' +
          'their history and is refused with 409 `LATER_EVENT_RECORDED` (`details.latestEventAt`; recorded as an `out_of_order_event` security event); so the state as of the capture ' +
          'time is the current state. A QR code deactivated after the capture time is still accepted (only its latest deactivation is known); the fence checked is the site’s current one. ' +
          `A punch received more than CLOCK_LATE_AFTER_SECONDS (now ${config.CLOCK_LATE_AFTER_SECONDS} s) after its capture is \`late\`: listed for managers under ` +
          '`/api/managers/late-punches` until reviewed. A late punch with an implausible gap also raises a `late_punch` security alert: ' +
          `received more than CLOCK_LATE_ALERT_HOURS (now ${config.CLOCK_LATE_ALERT_HOURS} h; 0: off) after its capture (medium), and/or, with CLOCK_LATE_ONLINE_ALERT ` +
          `(now ${String(config.CLOCK_LATE_ONLINE_ALERT)}), the server heard from the worker between its capture and its receipt — a location update, a clock request of their own, ` +
          `a device check — other than within CLOCK_LATE_ONLINE_GRACE_SECONDS (now ${config.CLOCK_LATE_ONLINE_GRACE_SECONDS} s) of either end (high).`,
        '**Client event id.** `clientEventId` (optional, an RFC 4122 UUID in any case, stored in lower case) identifies one punch of the worker named by `userId`. ' +
          'The first request with it decides the answer; every later one with the same id and the same body (`eventType`, `qrCodeValue`, `latitude`, `longitude`, `notes`, ' +
          'and `capturedAt` as an instant) answers exactly that: the same 200 body, or the same refusal status, code and details, and records nothing new (no event, security event, ' +
          'webhook or position). This holds under any concurrency and across instances (a unique key in the database, not a lock in the process). ' +
          'The same id with a different body is 409 `CLIENT_EVENT_ID_REUSED` (`details.fields` names what differs). Stored answers: 200 and the refusals of the rules above ' +
          '(400 for `capturedAt` out of range, 404 `QR_CODE_INACTIVE`, 403 `OUTSIDE_GEOFENCE`, 409 `GEOFENCE_NOT_CONFIGURED`, `DUPLICATE_EVENT`, `LATER_EVENT_RECORDED`); ' +
          'not stored, so a later try is judged again: malformed bodies, 401, 403 `FORBIDDEN`, 404 for an unknown or disabled worker, 429 and 5xx. ' +
          'When the request has `clientEventId` or `capturedAt`, the reply also has `receivedAt`, `late` and `clientEventId`, and the webhook’s data `receivedAt` and `late`.',
      ].join('\n\n'),
      body: ClockBody,
      response: { 200: ClockReply, ...errors(403, 404, 409) },
    },
  }, async (request) => {
    const caller = assertSelfOrManager(request, request.body.userId);
    return clock.clock(caller, request.body);
  });

  app.get('/worker/clock-history/:userId', {
    config: { access: 'user' },
    schema: {
      tags,
      summary: 'A worker’s clock events, newest first',
      description:
        'Ordered by the events’ time (the capture time of a punch sent with one), newest first; ' +
        'optionally within `from`..`to` (ISO 8601, inclusive, on the same time), paged with `page` (from 1) and `limit` (default 50, at most 500); the `X-Total-Count` header gives the number of events in the range. ' +
        'Each event also says `siteName` (the site it was recorded at, null for a forced clock-out; an extension for the worker app), `capturedAt` (the capture time the device sent, or null), `receivedAt`, `late` and `clientEventId`. ' +
        'The worker themself or a manager. 404 for an unknown or deleted worker.',
      params: UserIdParam,
      querystring: HistoryQuery,
      response: { 200: Type.Array(HistoryItem), ...errors(403, 404) },
    },
  }, async (request, reply) => {
    assertSelfOrManager(request, request.params.userId);
    const { total, events } = await clock.history(request.params.userId, request.query);
    reply.header('X-Total-Count', total);
    return events;
  });

  app.get('/managers/late-punches', {
    config: { access: 'manager' },
    schema: {
      tags: lateTags,
      summary: 'Late (offline) punches, newest receipt first',
      description:
        `Clock events received more than CLOCK_LATE_AFTER_SECONDS (now ${config.CLOCK_LATE_AFTER_SECONDS} s) after their capture time. ` +
        'Filters: `reviewed` (`false`: awaiting review; `true`: reviewed; default both) and `userId`; paging `page` (from 1) and `limit` (1..100, default 20). ' +
        '`implausibleGap` marks those that raised a `late_punch` security alert (see `POST /api/clock`); the alert’s details say why. Deleted workers’ punches stay listed.',
      querystring: LatePunchQuery,
      response: { 200: LatePunchList },
    },
  }, async (request) => clock.latePunches(request.query));

  app.post('/managers/late-punches/:id/review', {
    config: { access: 'manager' },
    schema: {
      tags: lateTags,
      summary: 'Mark a late punch reviewed',
      description:
        '`:id` is the clock event’s id. Records the calling manager and the time; the punch itself is unchanged. ' +
        'Idempotent: a punch already reviewed keeps its first review and is answered as it is. 404 `NOT_FOUND` when the event does not exist or is not late. No body.',
      params: IdParam,
      response: { 200: LatePunch, ...errors(404) },
    },
  }, async (request) => clock.review(request.params.id, request.user!.userId));
};
