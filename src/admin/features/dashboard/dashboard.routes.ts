import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FeatureOptions } from '../../context.ts';
import { Envelope, ok } from '../../http.ts';
import { LoginLogRecord, OperationLogRecord } from '../logs/logs.schema.ts';
import { RECENT_ROWS } from './dashboard.service.ts';

const DashboardStats = Envelope(
  Type.Object({
    admin_count: Type.Integer(),
    role_count: Type.Integer(),
    menu_count: Type.Integer(),
    login_count_today: Type.Integer({ description: 'successful logins since midnight in the display time zone' }),
    operation_count_today: Type.Integer({ description: 'operation log rows since midnight in the display time zone' }),
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
      summary: 'Counts of administrators, roles and menus, today’s logins and operations, and the newest log rows',
      response: { 200: DashboardStats },
    },
  }, async (request) => ok(request, await dashboard.stats()));
};
