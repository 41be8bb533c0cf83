// QR codes (manager endpoints).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { localeOf } from '../../../platform/http/conventions.ts';
import type { FeatureOptions } from '../../context.ts';
import { errors, UuidParam } from '../../http.ts';
import { QrCodeCreated, QrCodeDetail, QrCreateBody, QrListQuery, QrUpdateBody } from './qr-codes.schema.ts';

const qrTags = ['QR codes (managers)'];
const manager = { access: 'manager' } as const;

export const qrCodesRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const { qrCodes } = ctx;

  app.get('/managers/qr-codes', {
    config: manager,
    schema: {
      tags: qrTags, summary: 'QR codes with their site, newest first',
      description:
        'Each code with the contract’s fields, its site (`siteId`, `siteName`) and whether workers can clock with it (`usable`; when not, `unusable_reason`: ' +
        '`INACTIVE` or `GEOFENCE_NOT_CONFIGURED`, a code whose site has no fence); extensions of the contract. Optionally only those of one site, or only active or inactive ones.',
      querystring: QrListQuery, response: { 200: Type.Array(QrCodeDetail) },
    },
  }, async (request) => qrCodes.list(request.query, localeOf(request)));

  app.post('/managers/qr-codes', {
    config: manager,
    schema: {
      tags: qrTags, summary: 'Create an active QR code',
      description:
        'Its `id` (a UUID) is the value to print in the QR code and that workers scan. Without `siteId` it belongs to the default site. ' +
        'A code is created (201) even on a site without a fence, but such a code cannot be used for clocking: the reply says so with `usable: false` and ' +
        '`unusable_reason: "GEOFENCE_NOT_CONFIGURED"` (draw the site’s fence with `PATCH /api/managers/sites/{id}` and it becomes usable). ' +
        'The reply also names the site (`siteId`, `siteName`, `site_has_fence`).',
      body: QrCreateBody, response: { 201: QrCodeCreated },
    },
  }, async (request, reply) => reply.status(201).send(await qrCodes.create(request.body, localeOf(request))));

  app.get('/managers/qr-codes/:id', {
    config: manager,
    schema: { tags: qrTags, summary: 'One QR code with its site', params: UuidParam, response: { 200: QrCodeDetail, ...errors(404) } },
  }, async (request) => qrCodes.get(request.params.id, localeOf(request)));

  app.patch('/managers/qr-codes/:id', {
    config: manager,
    schema: {
      tags: qrTags, summary: 'Rename, activate or deactivate a QR code, or move it to another site (only the fields sent change)',
      description: 'QR codes are never deleted (clock history names them): deactivate them instead.',
      params: UuidParam, body: QrUpdateBody, response: { 200: QrCodeDetail, ...errors(404) },
    },
  }, async (request) => qrCodes.update(request.params.id, request.body, localeOf(request)));
};
