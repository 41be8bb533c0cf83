// Sign-in and token refresh, both limited per client IP (tier `auth`; sign-in also per account
// name, by the password policy's lockout, whose expired counts are purged hourly), the web app's sign-out,
// and the account's own new password (also the step an account must take first when someone
// else set its password). Sign-in and refresh also set the web app's refresh cookie: the app keeps its token in
// memory only, and a reloaded (or reopened) app gets a token back from the refresh route with it.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { localeOf } from '../../../platform/http/conventions.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { clearRefreshCookie, readRefreshCookie, setRefreshCookie, type RefreshCookie } from '../../../platform/http/refresh-cookie.ts';
import { msg } from '../../../platform/i18n.ts';
import type { FeatureOptions } from '../../context.ts';
import { E } from '../../errors.ts';
import { errors } from '../../http.ts';
import { LoginBody, LoginReply, MeReply, PasswordChangeBody, PasswordRulesReply, RefreshReply } from './auth.schema.ts';

const tags = ['Authentication'];

export const TIMECLOCK_REFRESH_COOKIE: RefreshCookie = { name: 'fieldops_clock_refresh', path: '/api/auth/refresh' };

export const authRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const auth = ctx.signIn;
  const ttl = ctx.platform.config.TIMECLOCK_REFRESH_TTL;
  app.addHook('onReady', async () => auth.start());
  app.addHook('onClose', async () => auth.stop());
  const cookieNote =
    'The reply also sets the web app’s refresh cookie (`fieldops_clock_refresh`: HttpOnly, SameSite=Strict, Secure over HTTPS, Path `/api/auth/refresh`), ' +
    'valid `TIMECLOCK_REFRESH_TTL` seconds (30 days by default) and renewed at every refresh; API clients may ignore it.';

  app.post('/auth/login', {
    config: { access: 'public', limit: 'auth' },
    schema: {
      tags,
      summary: 'Sign in with username, password and device UUID',
      description:
        'Usernames are case-insensitive. Unknown username and wrong password both answer 401 `INVALID_CREDENTIALS`; a disabled account is told (403 `ACCOUNT_DISABLED`) only after the right password. ' +
        '**Lockout:** wrong passwords and unknown usernames are counted per username (existing or not, so the lock reveals no account); the failure that reaches the password policy’s `lock_max_failures` ' +
        'within `lock_seconds` (defaults `LOGIN_MAX_FAILURES`, 5, and `LOGIN_LOCK_SECONDS`, 900) locks the name for `lock_seconds`: until then every sign-in of it, even with the right password, ' +
        'is refused before the password is checked with 429 `ACCOUNT_LOCKED`, `Retry-After` and `details.retryAfterSeconds` (seconds left), and does not extend the lock. ' +
        'A successful sign-in forgets the failures; a manager ends a worker’s lock (`POST /api/managers/workers/{id}/unlock`), the `reset-password` command any account’s. ' +
        'A worker’s first successful login binds the device; another device is refused with 403 `DEVICE_NOT_AUTHORIZED` (recorded as a security event) until a manager resets the binding; ' +
        'a device registered to another worker is refused the same way. Managers are not bound to a device. ' +
        'The reply has the contract’s `token` and `fullName`, and also the account’s `userId` and `role` (so a client needs not decode the token), and `mustChangePassword`: ' +
        'when someone else set the password (a manager creating the worker or giving a new password, the `reset-password` command, the first manager’s generated one) or it is older than the password policy allows, ' +
        'the token is good only for choosing a new one (`PUT /api/me/password`; other routes answer 403 `PASSWORD_CHANGE_REQUIRED`). ' +
        'The token lives `TIMECLOCK_TOKEN_TTL` seconds (12 h by default); a password change, disabling or deleting the account revokes it at once (re-enabling does not bring it back). 5 requests per minute per client IP. ' + cookieNote,
      body: LoginBody,
      response: { 200: LoginReply, ...errors(400, 401, 403) },
    },
  }, async (request, reply) => {
    const { refresh, ...body } = await auth.login(request.body, localeOf(request));
    setRefreshCookie(request, reply, TIMECLOCK_REFRESH_COOKIE, refresh, ttl);
    return body;
  });

  app.post('/auth/refresh', {
    config: { access: 'public', limit: 'auth' },
    schema: {
      tags,
      summary: 'A new token from the current one',
      description:
        'Needs a valid, unexpired, unrevoked token of an enabled account (401 otherwise: `TOKEN_EXPIRED` or `TOKEN_INVALID`; a token revoked by a password change or by disabling the account cannot be refreshed, even once the account is enabled again). The current token stays valid until it expires. 5 requests per minute per client IP. ' +
        '`mustChangePassword` as at sign-in: an account that must choose a new password gets tokens good only for that. ' +
        'Without an `Authorization` header, the web app’s refresh cookie set at sign-in is accepted instead, under the same checks (an enabled account, not revoked since the cookie was issued). ' +
        cookieNote,
      security: [{ bearer: [] }, {}],
      response: { 200: RefreshReply, ...errors(401) },
    },
  }, async (request, reply) => {
    const cookie = request.headers.authorization === undefined ? readRefreshCookie(request, TIMECLOCK_REFRESH_COOKIE) : undefined;
    if (request.headers.authorization === undefined && !cookie) throw new AppError(E.TOKEN_INVALID, { detail: msg('timeclock.auth.missingBearerToken') });
    const caller = cookie ? await ctx.auth.authenticateRefresh(cookie) : await ctx.auth.authenticate(request);
    const { refresh, ...body } = auth.refresh(caller);
    setRefreshCookie(request, reply, TIMECLOCK_REFRESH_COOKIE, refresh, ttl);
    return body;
  });

  app.post('/auth/logout', {
    config: { access: 'public' },
    schema: {
      tags,
      summary: 'Sign the web app out: clears its refresh cookie',
      description:
        'Answers 204 and clears the refresh cookie, so that a reload no longer signs in. Tokens already issued stay valid until they expire (a manager revokes them by disabling the account or setting a new password).',
      response: { 204: Type.Null() },
    },
  }, async (request, reply) => {
    clearRefreshCookie(request, reply, TIMECLOCK_REFRESH_COOKIE);
    return reply.status(204).send(null);
  });

  app.put('/me/password', {
    config: { access: 'user', limit: 'auth', passwordStep: true },
    schema: {
      tags,
      summary: 'Change the own password; answers a new token',
      description:
        'Proven by `currentPassword` (400 `VALIDATION_ERROR`, `details.field` `currentPassword`, when wrong). `newPassword` must satisfy the password policy (`GET /api/me/password-policy`) ' +
        'and differ from the account’s last passwords: a refusal is 400 `VALIDATION_ERROR` whose message names the rule (`details.rule`: `min_length`, `char_classes`, `username`, `common`, `history`). ' +
        'Every earlier token of the account is revoked (other phones sign in again); the reply is a new, ordinary token (`mustChangePassword: false`) and a new refresh cookie. ' +
        'Open to an account that must choose a new password. 5 requests per minute per client IP. ' + cookieNote,
      body: PasswordChangeBody,
      response: { 200: RefreshReply, ...errors(400) },
    },
  }, async (request, reply) => {
    const { refresh, ...body } = await auth.changePassword(request.user!, request.body);
    setRefreshCookie(request, reply, TIMECLOCK_REFRESH_COOKIE, refresh, ttl);
    return body;
  });

  app.get('/me/password-policy', {
    config: { access: 'user', passwordStep: true },
    schema: {
      tags,
      summary: 'What a new password must be (the password policy’s rules), for the change step',
      description: 'One policy for administrators, managers and workers, set in the administration console (defaults when the time clock runs without it). Open to an account that must choose a new password.',
      response: { 200: PasswordRulesReply },
    },
  }, async () => auth.passwordRules());

  app.get('/me', {
    config: { access: 'user', passwordStep: true },
    schema: {
      tags,
      summary: 'The signed-in account',
      description:
        'An extension of the contract, for integrators: who the token belongs to. `userId`, `username`, `fullName`, `role`, `createdAt`; ' +
        '`deviceBinding` (`bound`, `unbound` or, for managers, `not_required`) with the bound `device`; a worker’s `tags` (names; empty for managers).',
      response: { 200: MeReply },
    },
  }, async (request) => auth.me(request.user!, localeOf(request)));
};
