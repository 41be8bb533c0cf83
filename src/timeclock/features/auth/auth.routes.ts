// Sign-in and token refresh, both limited per client IP (tier `auth`).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FeatureOptions } from '../../context.ts';
import { errors } from '../../http.ts';
import { LoginBody, LoginReply, MeReply, RefreshReply } from './auth.schema.ts';

const tags = ['Authentication'];

export const authRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const auth = ctx.signIn;

  app.post('/auth/login', {
    config: { access: 'public', limit: 'auth' },
    schema: {
      tags,
      summary: 'Sign in with username, password and device UUID',
      description:
        'Usernames are case-insensitive. Unknown username and wrong password both answer 401 `INVALID_CREDENTIALS`; a disabled account is told (403 `ACCOUNT_DISABLED`) only after the right password. ' +
        'A worker’s first successful login binds the device; another device is refused with 403 `DEVICE_NOT_AUTHORIZED` (recorded as a security event) until a manager resets the binding; ' +
        'a device registered to another worker is refused the same way. Managers are not bound to a device. ' +
        'The reply has the contract’s `token` and `fullName`, and also the account’s `userId` and `role` (so a client needs not decode the token). ' +
        'The token lives `TIMECLOCK_TOKEN_TTL` seconds (12 h by default); a password change, disabling or deleting the account revokes it at once (re-enabling does not bring it back). 5 requests per minute per client IP.',
      body: LoginBody,
      response: { 200: LoginReply, ...errors(400, 401, 403) },
    },
  }, async (request) => auth.login(request.body));

  app.post('/auth/refresh', {
    config: { access: 'user', limit: 'auth' },
    schema: {
      tags,
      summary: 'A new token from the current one',
      description: 'Needs a valid, unexpired, unrevoked token of an enabled account (401 otherwise: `TOKEN_EXPIRED` or `TOKEN_INVALID`; a token revoked by a password change or by disabling the account cannot be refreshed, even once the account is enabled again). The current token stays valid until it expires. 5 requests per minute per client IP.',
      response: { 200: RefreshReply },
    },
  }, async (request) => auth.refresh(request.user!));

  app.get('/me', {
    config: { access: 'user' },
    schema: {
      tags,
      summary: 'The signed-in account',
      description:
        'An extension of the contract, for integrators: who the token belongs to. `userId`, `username`, `fullName`, `role`, `createdAt`; ' +
        '`deviceBinding` (`bound`, `unbound` or, for managers, `not_required`) with the bound `device`; a worker’s `tags` (names; empty for managers).',
      response: { 200: MeReply },
    },
  }, async (request) => auth.me(request.user!));
};
