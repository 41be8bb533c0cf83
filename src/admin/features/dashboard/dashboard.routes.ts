import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FeatureOptions } from '../../context.ts';
import { localeOf } from '../../../platform/http/conventions.ts';
import { Envelope, ok } from '../../http.ts';
import { LoginLogRecord, OperationLogRecord } from '../../kernel/log-records.ts';
import { ACTIVITY_SERIES, BUSINESS_MAX_DAYS, RECENT_ROWS, TOP_PRODUCTS } from './dashboard.service.ts';

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

const MoneyOut = (description: string) => Type.Number({ description: `${description}; money, a number with at most 2 decimals (summed in SQL as numeric)` });
const Day = (description: string) => Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: `${description}, YYYY-MM-DD in the display time zone` });
const figures = {
  orders: Type.Integer({ description: 'orders created, whatever their status (= paid + pending + cancelled)' }),
  revenue: MoneyOut('the amount of the paid orders among them'),
  paid: Type.Integer({ description: 'orders now paid' }),
  pending: Type.Integer({ description: 'orders now pending' }),
  cancelled: Type.Integer({ description: 'orders now cancelled' }),
  average_order_value: MoneyOut('revenue / paid, rounded half up to the cent; 0 without paid orders'),
};

const BusinessQuery = Type.Object({
  days: Type.Integer({ minimum: 1, maximum: BUSINESS_MAX_DAYS, default: 30, description: `the period: the last \`days\` days, today included (1 to ${BUSINESS_MAX_DAYS}, default 30)` }),
}, { additionalProperties: false });

const BusinessFigures = Envelope(
  Type.Object({
    time_zone: Type.String({ description: 'the display time zone the days are in (IANA name)' }),
    today: Type.Object({ date: Day('today'), ...figures }, { description: 'the orders created today' }),
    period: Type.Object({
      days: Type.Integer(),
      from: Day('the first day of the period'),
      to: Day('the last day of the period (today)'),
      ...figures,
    }, { description: 'the orders created in the period: the sums of `by_day`' }),
    by_day: Type.Array(Type.Object({
      date: Day('the day'),
      orders: Type.Integer({ description: 'orders created that day' }),
      paid: Type.Integer({ description: 'of which paid' }),
      revenue: MoneyOut('the amount of the paid ones'),
    }), { description: 'every day of the period, oldest first, zero-filled; the last is today' }),
    payments_by_method: Type.Array(Type.Object({
      method_id: Type.Integer(),
      name: Type.String({ description: 'the payment method’s name' }),
      count: Type.Integer({ description: 'paid payment records written in the period' }),
      amount: MoneyOut('their amount'),
    }), { description: 'paid payment records written in the period, by method, largest amount first; methods without any are absent' }),
    top_products: Type.Array(Type.Object({
      product_id: Type.Integer(),
      product_name: Type.String({ description: 'of the names it was sold under in the period, the last in sort order' }),
      quantity: Type.Integer({ description: 'units sold in the period’s paid orders' }),
      revenue: MoneyOut('sum of price × quantity of those units'),
    }), { maxItems: TOP_PRODUCTS, description: `the ${TOP_PRODUCTS} products with the most units in the period’s paid orders (then by id)` }),
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

  app.get('/dashboard/business', {
    config: { permission: 'dashboard.view' },
    schema: {
      tags: ['Dashboard'],
      summary: 'Orders, revenue, payments by method and top products, today and over the last days, day by day',
      description: [
        'Every figure is in the caller’s data scope (orders and payments by their creator’s department then and their creator).',
        'Days are those of the display time zone; an order counts on the day it was created, with its status now;',
        '`revenue` is the amount of the paid ones. `period` is the sum of `by_day` and `today` is its last day, so the figures and the chart agree.',
        '`payments_by_method` counts the paid payment records written in the period; `top_products` the units of the period’s paid orders.',
        'Money is summed in SQL (numeric) and added in integer cents, returned as a number with at most 2 decimals.',
        'Read from a daily rollup: sums per day of the display time zone and per department, kept in the transaction of every write of orders, their details and payments; the caller’s own orders outside the departments of their scope are read from the orders (see docs/BENCHMARKS.md).',
      ].join(' '),
      querystring: BusinessQuery,
      response: { 200: BusinessFigures },
    },
  }, async (request) => ok(request, await dashboard.businessFigures(request.admin!.scope, request.query.days)));
};
