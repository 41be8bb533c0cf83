import { localeOf } from '../../../platform/http/conventions.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FeatureOptions } from '../../context.ts';
import { ErrorEnvelope, ok } from '../../http.ts';
import { CaptchaReply, LoginBody, NullReply, PasswordBody, ProfileReply, TokenReply } from './auth.schema.ts';

const tags = ['Authentication and profile'];

export const authRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const { auth } = ctx;
  app.get('/captcha', {
    config: { auth: 'public', limitPerIp: true },
    schema: { tags, summary: 'New captcha (PNG data URI); its answer is single use and valid for 2 minutes', response: { 200: CaptchaReply, 429: ErrorEnvelope } },
  }, async (request) => ok(request, await auth.newCaptcha()));

  app.post('/login', {
    config: { auth: 'public', limitPerIp: true },
    schema: {
      tags,
      summary: 'Sign in with username, password and captcha (and google_code when an authenticator is bound)',
      description: 'Five failures of one account within 15 minutes lock it for 15 minutes (10006, with Retry-After). Wrong username and wrong password answer alike (10001).',
      body: LoginBody,
      response: { 200: TokenReply, 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope, 429: ErrorEnvelope },
    },
  }, async (request) => {
    const data = await auth.login(request.body, { ip: request.ip, userAgent: request.headers['user-agent'] ?? '' });
    return ok(request, data);
  });

  app.post('/logout', {
    config: { auth: 'self' },
    schema: { tags, summary: 'End the current session', response: { 200: NullReply } },
  }, async (request) => {
    await auth.logout(request.admin!);
    return ok(request, null);
  });

  app.post('/refresh-token', {
    config: { auth: 'self' },
    schema: { tags, summary: 'New token for the current session; the old token stops working', response: { 200: TokenReply } },
  }, async (request) => ok(request, await auth.refresh(request.admin!)));

  app.get('/info', {
    config: { auth: 'self' },
    schema: { tags, summary: 'Profile, permission slugs and the menu tree the roles grant', response: { 200: ProfileReply } },
  }, async (request) => ok(request, await auth.profile(request.admin!, localeOf(request))));

  app.put('/password', {
    config: { auth: 'self' },
    schema: {
      tags,
      summary: 'Change the own password; other sessions end',
      body: PasswordBody,
      response: { 200: NullReply },
    },
  }, async (request) => {
    await auth.changePassword(request.admin!, request.body);
    return ok(request, null);
  });
};
