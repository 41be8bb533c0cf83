import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { FeatureOptions } from '../../context.ts';
import type { AuditSpec } from '../../kernel/audit.ts';
import { Body, Envelope, ok } from '../../http.ts';
import { AUTHENTICATOR_CODE, RECOVERY_CODE_COUNT, RECOVERY_CODE_PATTERN } from '../../kernel/second-factor.ts';

const tags = ['Authenticator (2FA)'];

const Code = Type.String(AUTHENTICATOR_CODE);

const RECOVERY_NOTE =
  `Recovery codes: ${RECOVERY_CODE_COUNT} one-time codes (\`xxxxx-xxxxx\`, digits and lower-case letters without 0, 1, i, l and o), each accepted once in place of a 6-digit code ` +
  '(sign-in’s `google_code`, unbinding, new recovery codes), for when the authenticator app is out of reach. They are shown in this reply only: ' +
  'the server keeps their argon2id hashes, never the codes, and no log holds them. Using one is written to the login log (a sign-in, reason `recovery_code`) ' +
  'and the system log (warning), and the account gets a notification (kind `security`).';

const RecoveryCodes = Type.Object({
  recovery_codes: Type.Array(Type.String({ pattern: RECOVERY_CODE_PATTERN }), {
    minItems: RECOVERY_CODE_COUNT,
    maxItems: RECOVERY_CODE_COUNT,
    description: 'the new recovery codes, shown this once: the client should offer to save them (download, print) before going on',
  }),
});

const StatusReply = Envelope(Type.Object({
  is_bound: Type.Boolean(),
  recovery_codes_left: Type.Integer({ minimum: 0, maximum: RECOVERY_CODE_COUNT, description: 'unused recovery codes of the bound authenticator (0 when none is bound)' }),
}));
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
  code: Type.String({ ...AUTHENTICATOR_CODE, description: 'the current 6-digit code of the pending secret (spaces ignored)' }),
});
const UnbindBody = Body({ code: Code });
const RegenerateBody = Body({
  code: Type.Optional(Type.String({ ...AUTHENTICATOR_CODE, description: 'the current 6-digit authenticator code, or an unused recovery code (used up); give this or `password`' })),
  password: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'the account’s password, instead of `code` (for someone without the app at hand)' })),
});
const RecoveryCodesReply = Envelope(RecoveryCodes);
const NullReply = Envelope(Type.Null());

const callerOf = (request: FastifyRequest) => ({ ip: request.ip, traceId: request.id });

export const authenticatorRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const { authenticator } = ctx;
  // The operation log's before and after of the caller's authenticator: bound or not, and the recovery codes left.
  const audit: AuditSpec = { entity: 'admin', after: 'load', ids: (request) => [request.admin!.adminId], load: (_id, request) => authenticator.status(request.admin!) };

  app.get('/google-authenticator/status', {
    config: { auth: 'self', steps: ['bind_authenticator'] },
    schema: {
      tags,
      summary: 'Whether the caller has an authenticator bound, and how many recovery codes are left',
      description: 'Open to a session good only for binding an authenticator.',
      response: { 200: StatusReply },
    },
  }, async (request) => ok(request, await authenticator.status(request.admin!)));

  app.get('/google-authenticator/qrcode', {
    config: { auth: 'self', steps: ['bind_authenticator'] },
    schema: {
      tags,
      summary: 'New authenticator secret, pending for 10 minutes until bound',
      description: 'Refused (400, 30002) while an authenticator is bound. Each call replaces the pending secret. Open to a session good only for binding an authenticator.',
      response: { 200: QrReply },
    },
  }, async (request) => ok(request, await authenticator.newSecret(request.admin!)));

  app.post('/google-authenticator/bind', {
    config: { auth: 'self', steps: ['bind_authenticator'], secretFields: ['code'], audit },
    schema: {
      tags,
      summary: 'Bind the pending secret with a current code; the reply holds the recovery codes',
      description:
        'The secret must be the pending one (400, 30001 otherwise); a wrong, reused or malformed code is 400, 10010 (a plain message, no validation prefix). ' +
        'The caller’s other sessions end. A session good only for binding (`must_bind_authenticator` at sign-in) becomes an ordinary one: the same token then opens every route its roles grant. ' +
        RECOVERY_NOTE,
      body: BindBody,
      response: { 200: RecoveryCodesReply },
    },
  }, async (request) => ok(request, await authenticator.bind(request.admin!, request.body)));

  app.post('/google-authenticator/recovery-codes', {
    config: { auth: 'self', secretFields: ['code'], audit },
    schema: {
      tags,
      summary: 'New recovery codes for the bound authenticator; the previous ones stop working',
      description:
        'Proven by `code` (the current 6-digit code, or an unused recovery code) or by `password`, one of them: neither or both is 400, 30001; ' +
        'a wrong, reused or malformed code 400, 10010; a wrong password 400, 30001 (field `password`); no authenticator bound 400, 30001. ' +
        RECOVERY_NOTE,
      body: RegenerateBody,
      response: { 200: RecoveryCodesReply },
    },
  }, async (request) => ok(request, await authenticator.regenerate(request.admin!, request.body, callerOf(request))));

  app.post('/google-authenticator/unbind', {
    config: { auth: 'self', secretFields: ['code'], audit },
    schema: {
      tags,
      summary: 'Remove the own authenticator with a current code (or a recovery code)',
      description:
        'Wrong, reused or malformed code: 400, 10010. Missing code or no authenticator bound: 400, 30001. The caller’s other sessions end and the recovery codes are deleted. ' +
        'A recovery code stands in for the 6-digit code (for someone who lost the app, before binding a new one); its use is logged and notified. ' +
        'An administrator whose role requires an authenticator must bind one again at the next sign-in.',
      body: UnbindBody,
      response: { 200: NullReply },
    },
  }, async (request) => {
    await authenticator.unbind(request.admin!, request.body.code, callerOf(request));
    return ok(request, null);
  });
};
