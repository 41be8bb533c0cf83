import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FeatureOptions } from '../../context.ts';
import { Body, Envelope, ok } from '../../http.ts';
import { AUTHENTICATOR_CODE } from '../../kernel/second-factor.ts';

const tags = ['Authenticator (2FA)'];

const Code = Type.String(AUTHENTICATOR_CODE);

const StatusReply = Envelope(Type.Object({ is_bound: Type.Boolean() }));
const QrReply = Envelope(
  Type.Object({
    secret: Type.String({ description: 'base32 secret, pending until bound; never shown again after binding' }),
    otpauth_url: Type.String({ description: 'otpauth://totp/… URI' }),
    qrcode: Type.String({ description: 'the URI as a QR code, data:image/png;base64,…' }),
    expires_in: Type.Integer({ description: 'seconds the pending secret stays valid' }),
  }),
);
const BindBody = Body({
  secret: Type.String({ minLength: 16, maxLength: 64, description: 'the secret from GET /google-authenticator/qrcode' }),
  code: Code,
});
const UnbindBody = Body({ code: Code });
const NullReply = Envelope(Type.Null());

export const authenticatorRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const { authenticator } = ctx;

  app.get('/google-authenticator/status', {
    config: { auth: 'self' },
    schema: { tags, summary: 'Whether the caller has an authenticator bound', response: { 200: StatusReply } },
  }, async (request) => ok(request, await authenticator.status(request.admin!)));

  app.get('/google-authenticator/qrcode', {
    config: { auth: 'self' },
    schema: {
      tags,
      summary: 'New authenticator secret, pending for 10 minutes until bound',
      description: 'Refused (400, 30002) while an authenticator is bound. Each call replaces the pending secret.',
      response: { 200: QrReply },
    },
  }, async (request) => ok(request, await authenticator.newSecret(request.admin!)));

  app.post('/google-authenticator/bind', {
    config: { auth: 'self', secretFields: ['code'] },
    schema: {
      tags,
      summary: 'Bind the pending secret with a current code',
      description: 'The secret must be the pending one (400, 30001 otherwise); a wrong, reused or malformed code is 400, 10010 (a plain message, no validation prefix). The caller’s other sessions end.',
      body: BindBody,
      response: { 200: NullReply },
    },
  }, async (request) => {
    await authenticator.bind(request.admin!, request.body);
    return ok(request, null);
  });

  app.post('/google-authenticator/unbind', {
    config: { auth: 'self', secretFields: ['code'] },
    schema: {
      tags,
      summary: 'Remove the own authenticator with a current code',
      description: 'Wrong, reused or malformed code: 400, 10010. Missing code or no authenticator bound: 400, 30001. The caller’s other sessions end.',
      body: UnbindBody,
      response: { 200: NullReply },
    },
  }, async (request) => {
    await authenticator.unbind(request.admin!, request.body.code);
    return ok(request, null);
  });
};
