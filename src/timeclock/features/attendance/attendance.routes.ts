// Attendance exceptions: the forgotten clock-out sweep (started and stopped with the service), the
// automatic clock-outs managers review and the sessions open too long the sweep has not closed.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { localeOf } from '../../../platform/http/conventions.ts';
import type { FeatureOptions } from '../../context.ts';
import { errors, IdParam } from '../../http.ts';
import { readWorkRules } from '../../kernel/work-rules.ts';
import { AutoClockOut, AutoClockOutsQuery, AutoClockOutsReply, ExceptionsSummary, OpenSessionsQuery, OpenSessionsReply } from './attendance.schema.ts';

const tags = ['Attendance'];

export const FORGOTTEN_DOC = [
  '**Forgotten clock-outs.** A session still open past its limit — the earlier of the clock-in plus the work rules’ `autoClockOutAfterMinutes` (default 720; null: never) and the site’s next `closesAt` — is closed automatically (a punch of origin `auto`, flagged `auto` in timesheets):',
  'at the last position inside the site’s fence when the trail shows the worker leaving before the limit, otherwise at the limit. Managers get a `missed_clock_out` alert (it does not count toward the risk score), the worker a notification, integrations a `worker.clock_out` webhook with `auto: true`.',
  'Before that, a worker outside the fence for `leftFenceMinutes` (default 30) while clocked in, or still clocked in when the site closed, is reminded once (a notification, a `clock.reminder` webhook). Each instance sweeps every `ATTENDANCE_SWEEP_MS`; each reminder and clock-out happens once across instances.',
].join(' ');

export const attendanceRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const { attendance, attendanceSweep } = ctx;
  app.addHook('onReady', async () => attendanceSweep.start());
  app.addHook('onClose', async () => attendanceSweep.stop());

  app.get('/managers/exceptions/summary', {
    config: { access: 'manager' },
    schema: {
      tags, summary: 'What waits in the exceptions inbox, counted',
      description: 'Correction requests to decide (`GET /api/managers/corrections`), automatic clock-outs to review (`GET /api/managers/auto-clock-outs`), sessions open suspiciously long (`GET /api/managers/open-sessions`), open `short_rest` alerts (`GET /api/managers/security/alerts?type=short_rest`); the compliance report of a period is `GET /api/managers/compliance`.',
      response: { 200: ExceptionsSummary },
    },
  }, async () => attendance.summary((await readWorkRules(ctx.platform.db)).rules.longSessionMinutes));

  app.get('/managers/auto-clock-outs', {
    config: { access: 'manager' },
    schema: { tags, summary: 'Automatic clock-outs of forgotten sessions', description: `Newest first; \`reviewed\`, \`page\`, \`limit\`. ${FORGOTTEN_DOC}`, querystring: AutoClockOutsQuery, response: { 200: AutoClockOutsReply } },
  }, async (request) => attendance.page(request.query, localeOf(request)));

  app.get('/managers/open-sessions', {
    config: { access: 'manager' },
    schema: {
      tags, summary: 'Sessions open past their limit',
      description: 'The workers clocked in by a clock-in older than the work rules’ `longSessionMinutes` (default 960): the summary’s `longOpenSessions`, listed by the same rule, oldest first; `page`, `limit`. '
        + 'Each with the clock-in, its site, the minutes open so far and the newest position known against the site’s fence. '
        + 'These are sessions the sweep has not closed (`autoClockOutAfterMinutes` null or later than the threshold, or no closing time); add the missing clock-out with `POST /api/managers/corrections` (`add`, `clock_out`).',
      querystring: OpenSessionsQuery, response: { 200: OpenSessionsReply },
    },
  }, async (request) => attendance.openSessions(request.query, (await readWorkRules(ctx.platform.db)).rules.longSessionMinutes, localeOf(request)));

  app.post('/managers/auto-clock-outs/:id/review', {
    config: { access: 'manager' },
    schema: {
      tags, summary: 'Mark an automatic clock-out reviewed',
      description: 'Records the calling manager and the time (the first review is kept; again: 200, unchanged). To change its time, correct it (`POST /api/managers/corrections`, `move`). 404 for a punch that is not an automatic clock-out.',
      params: IdParam, response: { 200: AutoClockOut, ...errors(404) },
    },
  }, async (request) => attendance.review(request.params.id, request.user!.userId, localeOf(request)));
};
