import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { FeatureOptions } from '../../context.ts';
import { audited } from '../../kernel/audit.ts';
import type { PaymentMethodRow } from '../../db/schema.ts';
import { ErrorEnvelope, IdParam, ok, okList } from '../../http.ts';
import {
  CreatePaymentMethodBody, PaymentMethodDeletedReply, PaymentMethodList, PaymentMethodQuery, PaymentMethodReply, UpdatePaymentMethodBody,
} from './payment-methods.schema.ts';
import { maskConfig } from './payment-methods.secrets.ts';
import { renderPaymentMethod } from './payment-methods.view.ts';

const tags = ['Payment methods'];
const withNotFound = { 404: ErrorEnvelope };

/**
 * The config a client sent, kept aside before validation while `request.body.config` is
 * replaced by its masked copy: whatever logs the request body afterwards (the operation log,
 * error logs) never sees a secret.
 */
const sentConfigs = new WeakMap<FastifyRequest, unknown>();

async function maskBodyConfig(request: FastifyRequest): Promise<void> {
  const body = request.body as Record<string, unknown> | null | undefined;
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !('config' in body)) return;
  sentConfigs.set(request, body.config);
  request.body = { ...body, config: maskConfig(body.config) };
}

const sentConfig = (request: FastifyRequest) => sentConfigs.get(request) as Record<string, unknown>;

export const paymentMethodsRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const tz = ctx.platform.config.DISPLAY_TIMEZONE;
  const service = ctx.paymentMethods;

  const record = (r: PaymentMethodRow) => renderPaymentMethod(r, tz);
  const audit = audited('payment_method', async (id) => record(await service.get(id)));

  app.get('/payment-methods', {
    config: { permission: 'payment-method.list' },
    schema: {
      tags,
      summary: 'List payment methods',
      description: '`name` is fuzzy (ignoring case), `code` exact ignoring case, `type` exact; `is_active` "1"/"0". Secrets in `config` are masked.',
      querystring: PaymentMethodQuery,
      response: { 200: PaymentMethodList },
    },
  }, async (request) => {
    const { rows, total } = await service.list(request.query);
    return okList(request, rows.map(record), request.query, total);
  });

  app.get('/payment-methods/:id', {
    config: { permission: 'payment-method.view' },
    schema: { tags, summary: 'One payment method', params: IdParam, response: { 200: PaymentMethodReply, ...withNotFound } },
  }, async (request) => ok(request, record(await service.get(request.params.id))));

  app.post('/payment-methods', {
    config: { permission: 'payment-method.create', audit },
    preValidation: maskBodyConfig,
    schema: {
      tags,
      summary: 'Create a payment method',
      description: [
        '`code` is unique ignoring case (duplicate: 400 30002). `config` is any JSON object; values under secret-looking keys are stored as sent and masked as `******` in replies and logs.',
        'Defaults: `is_active` true, `sort` 0, `description` empty.',
      ].join(' '),
      body: CreatePaymentMethodBody,
      response: { 200: PaymentMethodReply },
    },
  }, async (request) => ok(request, record(await service.create({ ...request.body, config: sentConfig(request) }))));

  app.put('/payment-methods/:id', {
    config: { permission: 'payment-method.update', audit },
    preValidation: maskBodyConfig,
    schema: {
      tags,
      summary: 'Update a payment method',
      description: [
        '`name` is required (as in the contract); every other field changes only when sent (`code` and `type` included, `code` staying unique ignoring case).',
        '`config` replaces the stored object; a secret-looking key sent with the mask `******` keeps its stored value, so a config read from this API can be edited and sent back.',
      ].join(' '),
      params: IdParam,
      body: UpdatePaymentMethodBody,
      response: { 200: PaymentMethodReply, ...withNotFound },
    },
  }, async (request) => {
    const config = request.body.config === undefined ? undefined : sentConfig(request);
    return ok(request, record(await service.update(request.params.id, { ...request.body, config })));
  });

  app.delete('/payment-methods/:id', {
    config: { permission: 'payment-method.delete', audit },
    schema: {
      tags,
      summary: 'Delete a payment method',
      description: 'A method that payment records refer to is not deleted: 400 40002 (deactivate it instead with `is_active: false`).',
      params: IdParam,
      response: { 200: PaymentMethodDeletedReply, ...withNotFound },
    },
  }, async (request) => {
    await service.remove(request.params.id);
    return ok(request, null);
  });
};
