// Clock events, clock history, and the late (offline) punches managers review.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { localeOf } from '../../../platform/http/conventions.ts';
import { assertSelfOrManager } from '../../kernel/auth.ts';
import type { FeatureOptions } from '../../context.ts';
import { errors, IdParam, UserIdParam } from '../../http.ts';
import { ClockBody, ClockReply, HistoryItem, HistoryQuery, LatePunch, LatePunchList, LatePunchQuery } from './clock.schema.ts';

const tags = ['Clock'];
const lateTags = ['Late punches (managers)'];

export const clockRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const { clock, clockHistory, platform: { config } } = ctx;

  app.post('/clock', {
    config: { access: 'user', limit: 'clock' },
    schema: {
      tags,
      summary: 'Clock in or out by scanning a QR code',
      description: [
        'Recorded when the QR code exists and is active (404 `QR_CODE_INACTIVE` otherwise), the position is inside the geofence of the QR code’s site ' +
          '(403 `OUTSIDE_GEOFENCE` with `details.distanceMetres`, the distance to the fence’s edge; 409 `GEOFENCE_NOT_CONFIGURED` when the site has no fence), ' +
          'and the event differs from the worker’s current state (409 `DUPLICATE_EVENT`; a worker with no events is clocked out). ' +
          'Of concurrent identical events exactly one is recorded. Without `capturedAt` the timestamp is the server’s. Every refused attempt but `PUNCH_TOO_SOON` is recorded as a security event.',
        `**Duplicate-punch window.** A punch less than CLOCK_MIN_INTERVAL_SECONDS (now ${config.CLOCK_MIN_INTERVAL_SECONDS} s; 0: off) after the worker’s latest event is refused with 409 \`PUNCH_TOO_SOON\` ` +
          '(a double tap, or an old copy of the app sending again), forced clock-outs included; the same-state rule (409 `DUPLICATE_EVENT`) is checked first and is unchanged. ' +
          'The times compared are the events’ times: the capture time of a punch sent with `capturedAt` (an offline punch replayed later is judged by when it was made, not when it arrived; ' +
          'punches queued offline and sent together are not refused for arriving together), else the time of receipt. `details`: `lastEventType` (`clock_in` or `clock_out`), ' +
          '`lastEventAt` (ISO 8601 UTC), `secondsSinceLastEvent` (whole seconds, rounded down), `minIntervalSeconds` and `retryAfterSeconds` (how long until a new punch would be accepted; ' +
          'a replay of the same offline punch gets the same answer). The message says it plainly (“you clocked out 5 s ago …”). Not recorded as a security event.',
        '**FORCE_CLOCK_OUT is on by default** (`FORCE_CLOCK_OUT_ENABLED=true`; ' + (config.FORCE_CLOCK_OUT_ENABLED ? 'on on this server' : 'off on this server') + '). ' +
          '`qrCodeValue: "FORCE_CLOCK_OUT"` lets a worker record a clock-out from any state (even when already clocked out) without a QR code and without the geofence check ' +
          '(the coordinates are still validated and stored): for a worker who left without scanning. Only the worker themself may send it (a manager’s token: 403), ' +
          'only with `eventType: "clock_out"` (else 400); it is stored as forced (`forced: true` in the history), raises a `forced_clock_out` security alert (medium) that managers see, ' +
          'and is subject to the duplicate-punch window. With `FORCE_CLOCK_OUT_ENABLED=false` it is refused like an unknown QR code (404 `QR_CODE_INACTIVE`).',
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
          '(400 for `capturedAt` out of range, 404 `QR_CODE_INACTIVE`, 403 `OUTSIDE_GEOFENCE`, 409 `GEOFENCE_NOT_CONFIGURED`, `DUPLICATE_EVENT`, `PUNCH_TOO_SOON`, `LATER_EVENT_RECORDED`); ' +
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
    const { total, events } = await clockHistory.history(request.params.userId, request.query, localeOf(request));
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
  }, async (request) => clockHistory.latePunches(request.query));

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
  }, async (request) => clockHistory.review(request.params.id, request.user!.userId));
};
