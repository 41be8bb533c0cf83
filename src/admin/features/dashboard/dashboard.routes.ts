import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FeatureOptions } from '../../context.ts';
import { localeOf } from '../../../platform/http/conventions.ts';
import { Envelope, ok } from '../../http.ts';
import { LoginLogRecord, OperationLogRecord } from '../../kernel/log-records.ts';
import { ACTIVITY_SERIES, RECENT_ROWS } from './dashboard.service.ts';

const DashboardStats = Envelope(
  Type.Object({
    admin_count: Type.Integer(),
    role_count: Type.Integer(),
    menu_count: Type.Integer(),
    login_count_today: Type.Integer({ description: 'successful logins since midnight in the display time zone' }),
    operation_count_today: Type.Integer({ description: 'operation log rows since midnight in the display time zone' }),
    activity_today: Type.Object({
      date: Type.String({ description: 'today, YYYY-MM-DD in the display time zone' }),
      time_zone: Type.String({ description: 'the display time zone the hours are in (IANA name)' }),
      hours: Type.Array(Type.String(), { minItems: 24, maxItems: 24, description: 'the x axis: `00:00` to `23:00`, one per hour of the day' }),
      series: Type.Array(
        Type.Object({
          key: Type.String({ enum: ACTIVITY_SERIES.map((s) => s.key), description: ACTIVITY_SERIES.map((s) => s.key).join(', ') }),
          name: Type.String({ description: 'the legend’s name of the series, in the reader’s language (Accept-Language)' }),
          total: Type.Integer({ description: 'the sum of `data`; equal to operation_count_today / login_count_today' }),
          data: Type.Array(Type.Integer(), { minItems: 24, maxItems: 24, description: 'count per hour, index 0 = 00:00–00:59; hours without activity are 0' }),
        }),
        { description: 'operations (every operation log row) and logins (successful sign-ins), each counted over the whole day' },
      ),
    }, { description: 'today’s activity per hour of the display time zone, aggregated over the whole day (not from the newest rows), for a chart with a legend' }),
    recent_logins: Type.Array(LoginLogRecord, { description: `the newest ${RECENT_ROWS} login log rows` }),
    recent_operations: Type.Array(OperationLogRecord, { description: `the newest ${RECENT_ROWS} operation log rows` }),
  }),
);

export const dashboardRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const { dashboard } = ctx;

  app.get('/dashboard/stats', {
    config: { permission: 'dashboard.view' },
    schema: {
      tags: ['Dashboard'],
      summary: 'Counts of administrators, roles and menus, today’s logins and operations (with their hourly chart), and the newest log rows',
      response: { 200: DashboardStats },
    },
  }, async (request) => ok(request, await dashboard.stats(request.admin!.scope, localeOf(request))));
};
