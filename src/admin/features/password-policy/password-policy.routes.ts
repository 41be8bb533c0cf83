import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FeatureOptions } from '../../context.ts';
import { ok } from '../../http.ts';
import { PolicyBody, PolicyReply } from './password-policy.schema.ts';

const tags = ['Password policy'];

const APPLIES =
  'One policy for administrators and for the time clock’s workers and managers (a time clock running in a process without the back office applies the defaults: docs/API.md). ' +
  'A new password is checked when it is set (created, reset, changed); sign-in asks for a new one when someone else set it or it is older than `max_age_days`. ' +
  'The lockout applies to administrators’ sign-ins (the time clock limits sign-ins per client address instead).';

export const passwordPolicyRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const { passwordPolicy } = ctx;

  app.get('/password-policy', {
    config: { permission: 'password_policy.view' },
    schema: { tags, summary: 'The password and account policy in force', description: APPLIES, response: { 200: PolicyReply } },
  }, async (request) => ok(request, await passwordPolicy.get()));

  app.put('/password-policy', {
    config: { permission: 'password_policy.update', audit: { entity: 'password_policy', ids: () => [1], load: () => passwordPolicy.get() } },
    schema: {
      tags,
      summary: 'Set the password and account policy (every setting)',
      description: `${APPLIES} It applies on every instance within a second: to passwords set from then on, and to the next sign-in; passwords already set are not checked again.`,
      body: PolicyBody,
      response: { 200: PolicyReply },
    },
  }, async (request) => ok(request, await passwordPolicy.update(request.admin!, request.body)));
};
