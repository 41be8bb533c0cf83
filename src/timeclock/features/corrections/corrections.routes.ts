// Corrections of punches: workers request them for their own punches, managers decide them or
// make them directly, and anyone a punch concerns reads its history. See ./corrections.service.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { localeOf } from '../../../platform/http/conventions.ts';
import type { FeatureOptions } from '../../context.ts';
import { errors, IdParam } from '../../http.ts';
import {
  Correction, CorrectionDetail, CorrectionsReply, DecisionBody, ManagerCorrectionBody, ManagerCorrectionsQuery, PunchHistory, WorkerCorrectionBody, WorkerCorrectionsQuery,
} from './corrections.schema.ts';

const tags = ['Corrections'];

export const CORRECTIONS_DOC = [
  '**Corrections.** A recorded punch is never overwritten. `add` inserts a missing punch; `move` voids a punch and inserts its replacement at a new time or site; `void` voids a punch, or a whole session with `pairEventId` (the other punch of the session). A voided punch stays in the history, marked, and is out of every total; timesheets flag the sessions a correction touched `edited`.',
  'Every correction records its reason, who asked, who decided and when, and the punches before and after (`before`, `after`).',
  'The punches must still alternate: a correction after which a worker would have two clock-ins or two clock-outs in a row (or a clock-out with no clock-in before it) is refused with 409 `CORRECTION_BREAKS_ORDER`; `details.reason` is `two_in_a_row` or `no_clock_in_before`, and `details.conflictingEventId` names the punch it conflicts with. ' +
    'A punch a correction already voided cannot be corrected again (409 `PUNCH_ALREADY_CORRECTED`; correct its replacement). Times may not be in the future.',
  'Fields by kind — `add`: `eventType`, `at`, optional `endAt` (a whole session: clock-in at `at`, clock-out at `endAt`) and `siteId` (default: the site of the session the punch belongs to); `move`: `eventId` and `at` and/or `siteId`; `void`: `eventId`, optional `pairEventId`. A field another kind uses is refused, naming it; every bad field is listed at once.',
].join('\n\n');

export const correctionsRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const { corrections } = ctx;

  app.get('/worker/corrections', {
    config: { access: 'user' },
    schema: { tags, summary: 'The signed-in worker’s correction requests', description: 'Newest first; `status` (default `all`), `page`, `limit`.', querystring: WorkerCorrectionsQuery, response: { 200: CorrectionsReply } },
  }, async (request) => corrections.page({ ...request.query, userId: request.user!.userId }, localeOf(request)));

  app.post('/worker/corrections', {
    config: { access: 'user' },
    schema: {
      tags, summary: 'Request a correction of one’s own punches',
      description: 'Workers only (403 for a manager). The request is checked now (and again when a manager approves it) and waits as `pending`; managers are notified, and a `correction.requested` webhook is queued. ' +
        'One pending request per punch (409 `CONFLICT` naming the pending one).\n\n' + CORRECTIONS_DOC,
      body: WorkerCorrectionBody, response: { 201: Correction, ...errors(403, 404, 409) },
    },
  }, async (request, reply) => reply.status(201).send(await corrections.request(request.user!, request.body, localeOf(request))));

  app.get('/worker/corrections/:id', {
    config: { access: 'user' },
    schema: { tags, summary: 'One of the signed-in worker’s corrections', description: '404 for another worker’s.', params: IdParam, response: { 200: Correction, ...errors(404) } },
  }, async (request) => corrections.one(request.params.id, localeOf(request), request.user!.userId));

  app.post('/worker/corrections/:id/cancel', {
    config: { access: 'user' },
    schema: {
      tags, summary: 'Withdraw a pending request',
      description: '404 for another worker’s; 409 `CORRECTION_ALREADY_DECIDED` once a manager decided it.', params: IdParam, response: { 200: Correction, ...errors(404, 409) },
    },
  }, async (request) => corrections.cancel(request.params.id, request.user!, localeOf(request)));

  app.get('/managers/corrections', {
    config: { access: 'manager' },
    schema: {
      tags, summary: 'Corrections across workers',
      description: 'Newest first; `status` (default `pending`: the requests waiting for a decision; `all` for every one), `userId`, `kind`, `page`, `limit`.',
      querystring: ManagerCorrectionsQuery, response: { 200: CorrectionsReply },
    },
  }, async (request) => corrections.page(request.query, localeOf(request)));

  app.post('/managers/corrections', {
    config: { access: 'manager' },
    schema: {
      tags, summary: 'Correct a worker’s punches directly',
      description: 'Applied at once (`approved`, decided by the caller); the worker is notified and a `correction.decided` webhook is queued. 404 for an unknown worker or punch.\n\n' + CORRECTIONS_DOC,
      body: ManagerCorrectionBody, response: { 201: Correction, ...errors(404, 409) },
    },
  }, async (request, reply) => reply.status(201).send(await corrections.make(request.user!, request.body, localeOf(request))));

  app.get('/managers/corrections/:id', {
    config: { access: 'manager' },
    schema: {
      tags, summary: 'A correction with its evidence',
      description: '`evidence`: the worker’s positions around the corrected time (each judged inside the site’s fence or not), their punches and refused scans, their device, and `suggestedAt`, the time the trail supports (see `suggestedBasis`).',
      params: IdParam, response: { 200: CorrectionDetail, ...errors(404) },
    },
  }, async (request) => corrections.detail(request.params.id, localeOf(request)));

  for (const [path, decision] of [['approve', 'approved'], ['reject', 'rejected']] as const) {
    app.post(`/managers/corrections/:id/${path}`, {
      config: { access: 'manager' },
      schema: {
        tags, summary: decision === 'approved' ? 'Approve (apply) a pending request' : 'Reject a pending request',
        description: `Body \`{ "note": "…" }\` (optional), \`{}\` or none. ${decision === 'approved' ? 'The request is checked again against the punches as they are now, then applied. ' : ''}` +
          'The worker is notified and a `correction.decided` webhook is queued. 409 `CORRECTION_ALREADY_DECIDED` once it was decided or cancelled (of two concurrent decisions, one wins).',
        params: IdParam, body: DecisionBody, response: { 200: Correction, ...errors(404, 409) },
      },
    }, async (request) => corrections.decide(request.params.id, decision, request.user!, request.body?.note, localeOf(request)));
  }

  app.get('/managers/punches/:id/history', {
    config: { access: 'manager' },
    schema: {
      tags, summary: 'The history of a punch',
      description: 'The punch, the chain of punches it replaced or that replaced it (moves), and every correction of any of them, requests included, oldest first.',
      params: IdParam, response: { 200: PunchHistory, ...errors(404) },
    },
  }, async (request) => corrections.history(request.params.id, localeOf(request)));
};
