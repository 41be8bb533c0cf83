// Sites with their geofences (manager endpoints).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { localeOf } from '../../../platform/http/conventions.ts';
import type { FeatureOptions } from '../../context.ts';
import { errors } from '../../http.ts';
import { Site, SiteCreateBody, SiteIdParam, SiteUpdateBody } from './sites.schema.ts';

const siteTags = ['Sites (managers)'];
const manager = { access: 'manager' } as const;
const FENCE_DOC =
  'A fence is `{ "type": "circle", "center": { "latitude", "longitude" }, "radiusMetres" }` or ' +
  '`{ "type": "polygon", "points": [{ "latitude", "longitude" }, …] }` (3+ vertices, any winding, not crossing the antimeridian); ' +
  'the boundary counts as inside. `null` means not configured: clock events with the site’s QR codes are refused (409 `GEOFENCE_NOT_CONFIGURED`).';

export const sitesRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const { sites } = ctx;

  app.get('/managers/sites', {
    config: manager,
    schema: {
      tags: siteTags, summary: 'All sites, the default one first',
      description: 'Each site says whether it has a fence (`has_fence`) and whether its QR codes can be used for clocking (`usable`: a site without a fence cannot be used until a manager draws one).',
      response: { 200: Type.Array(Site) },
    },
  }, async (request) => sites.list(localeOf(request)));

  app.post('/managers/sites', {
    config: manager,
    schema: {
      tags: siteTags, summary: 'Create a site with its geofence', description: FENCE_DOC,
      body: SiteCreateBody, response: { 201: Site },
    },
  }, async (request, reply) => reply.status(201).send(await sites.create(request.body, localeOf(request))));

  app.get('/managers/sites/:id', {
    config: manager,
    schema: { tags: siteTags, summary: 'One site', params: SiteIdParam, response: { 200: Site, ...errors(404) } },
  }, async (request) => sites.get(request.params.id, localeOf(request)));

  app.patch('/managers/sites/:id', {
    config: manager,
    schema: {
      tags: siteTags, summary: 'Rename a site or replace its geofence (only the fields sent change)', description: FENCE_DOC,
      params: SiteIdParam, body: SiteUpdateBody, response: { 200: Site, ...errors(404) },
    },
  }, async (request) => sites.update(request.params.id, request.body, localeOf(request)));

  app.delete('/managers/sites/:id', {
    config: manager,
    schema: {
      tags: siteTags, summary: 'Delete a site without QR codes',
      description: 'The default site, and a site that still has QR codes, are refused (409 `CONFLICT`). Past clock events keep their QR code.',
      params: SiteIdParam, response: { 204: Type.Null(), ...errors(404, 409) },
    },
  }, async (request, reply) => {
    await sites.remove(request.params.id);
    return reply.status(204).send(null);
  });
};
