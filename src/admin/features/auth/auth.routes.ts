import { localeOf } from '../../../platform/http/conventions.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { clearRefreshCookie, readRefreshCookie, setRefreshCookie } from '../../../platform/http/refresh-cookie.ts';
import type { FeatureOptions } from '../../context.ts';
import { ErrorEnvelope, ok } from '../../http.ts';
import { ADMIN_REFRESH_COOKIE, type IssuedToken } from '../../kernel/sessions.ts';
import { CaptchaReply, LoginBody, NullReply, PasswordBody, PasswordRulesReply, ProfileReply, TokenReply } from './auth.schema.ts';

const tags = ['Authentication and profile'];

const COOKIE_NOTE =
  'The reply also sets the console\'s refresh cookie (`fieldops_admin_refresh`: HttpOnly, SameSite=Strict, Secure over HTTPS, Path `/api/admin/refresh-token`), ' +
  'good for this session until it ends or expires; API clients may ignore it.';

/** The token reply, with the refresh cookie of the same session set beside it. */
function issued(request: FastifyRequest, reply: FastifyReply, t: IssuedToken) {
  setRefreshCookie(request, reply, ADMIN_REFRESH_COOKIE, t.refresh, (t.expiresAt.getTime() - Date.now()) / 1000);
  return ok(request, {
    token: t.token, expires_at: t.expiresAt.toISOString(), must_bind_authenticator: t.bindingOnly, must_change_password: t.mustChangePassword,
  });
}

export const authRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const { auth, guard } = ctx;
  app.get('/captcha', {
    config: { auth: 'public', limitPerIp: true },
    schema: { tags, summary: 'New captcha (PNG data URI, shown at its natural width x height); its answer is single use, valid for 2 minutes and compared without case. `enabled: false` when the server does not check captchas', response: { 200: CaptchaReply, 429: ErrorEnvelope } },
  }, async (request) => ok(request, await auth.newCaptcha()));

  app.post('/login', {
    config: { auth: 'public', limitPerIp: true },
    schema: {
      tags,
      summary: 'Sign in with username, password and captcha (and google_code when an authenticator is bound)',
      description:
        'Failures of one account name lock it as the password policy says (by default five within 15 minutes lock it for 15 minutes: 10006, with Retry-After); ' +
        '`POST /admins/{id}/unlock` ends a lock. Wrong username and wrong password answer alike (10001). ' +
        'With an authenticator bound, `google_code` is its current 6-digit code or one of the recovery codes given when it was bound (each works once: ' +
        'of concurrent sign-ins with one code, one succeeds); a recovery code’s use is in the login log (reason `recovery_code`) and the system log, and the account is notified. ' +
        'An administrator holding an enabled role that requires an authenticator (`require_authenticator`) and having none bound gets a token good only for binding one ' +
        '(`must_bind_authenticator: true`; other routes answer 403 10011 until `POST /google-authenticator/bind`). ' +
        'An administrator whose password someone else set, or whose password is older than the policy allows, gets a token good only for choosing a new one ' +
        '(`must_change_password: true`; other routes answer 403 10012 until `PUT /password`). ' + COOKIE_NOTE,
      body: LoginBody,
      response: { 200: TokenReply, 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope, 429: ErrorEnvelope },
    },
  }, async (request, reply) => {
    const session = await auth.login(request.body, { ip: request.ip, userAgent: request.headers['user-agent'] ?? '', traceId: request.id });
    return issued(request, reply, session);
  });

  app.post('/logout', {
    config: { auth: 'self', steps: ['change_password', 'bind_authenticator'] },
    schema: { tags, summary: 'End the current session', description: 'Also clears the console\'s refresh cookie.', response: { 200: NullReply } },
  }, async (request, reply) => {
    await auth.logout(request.admin!);
    clearRefreshCookie(request, reply, ADMIN_REFRESH_COOKIE);
    return ok(request, null);
  });

  // Either credential: the bearer token (the contract), or the console's refresh cookie, which
  // is how a reloaded page, whose token lived in memory only, gets its session back.
  app.post('/refresh-token', {
    config: { auth: 'public' },
    schema: {
      tags,
      summary: 'New token for the current session; the old token stops working',
      description:
        'Authenticated by the bearer token, or, without an `Authorization` header, by the console\'s refresh cookie set at sign-in (refused with 401 10004 once its session has ended ' +
        '(sign-out, kick-out, password change, a disabled account) or once a newer token was issued, 10003 past the session\'s expiry). ' +
        'A session good only for binding an authenticator stays so (`must_bind_authenticator`) until it is bound, one good only for a new password (`must_change_password`) until it is changed. ' +
        COOKIE_NOTE.replace('good for', 'rotated with the token, good for'),
      security: [{ bearer: [] }, {}],
      response: { 200: TokenReply, 401: ErrorEnvelope },
    },
  }, async (request, reply) => {
    const cookie = request.headers.authorization === undefined ? readRefreshCookie(request, ADMIN_REFRESH_COOKIE) : undefined;
    return issued(request, reply, await auth.refresh(cookie ? { cookie } : await guard.authenticate(request.headers.authorization)));
  });

  app.get('/info', {
    config: { auth: 'self' },
    schema: { tags, summary: 'Profile, permission slugs and the menu tree the roles grant', response: { 200: ProfileReply } },
  }, async (request) => ok(request, await auth.profile(request.admin!, localeOf(request))));

  app.get('/password/policy', {
    config: { auth: 'self', steps: ['change_password'] },
    schema: {
      tags,
      summary: 'What a new password must be (the password policy’s rules), for the change form',
      description: 'Open to a session good only for changing the password.',
      response: { 200: PasswordRulesReply },
    },
  }, async (request) => ok(request, await auth.passwordRules()));

  app.put('/password', {
    config: { auth: 'self', steps: ['change_password'], audit: { entity: 'admin', after: 'load', ids: (request) => [request.admin!.adminId], load: (id) => auth.passwordState(Number(id)) } },
    schema: {
      tags,
      summary: 'Change the own password; other sessions end',
      description:
        'The new password must satisfy the password policy (`GET /password/policy`): a refusal is 400, 30007, its message naming the rule it breaks (length, kinds of characters, ' +
        'the username, the 10,000 most common passwords, the account’s last passwords). The current session stays; a session good only for this change ' +
        '(`must_change_password` at sign-in) becomes an ordinary one at once, with the same token: the client goes on without signing in again.',
      body: PasswordBody,
      response: { 200: NullReply },
    },
  }, async (request) => {
    await auth.changePassword(request.admin!, request.body);
    return ok(request, null);
  });
};
