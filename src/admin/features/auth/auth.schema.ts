import { Type } from 'typebox';
import { Body, Envelope } from '../../http.ts';
import { MenuNodeSchema } from '../../kernel/rbac.schema.ts';
import { AdminIdentityFields, PASSWORD_RULE } from '../../kernel/admin-identity.schema.ts';
import { AUTHENTICATOR_CODE } from '../../kernel/second-factor.ts';

export const CaptchaReply = Envelope(
  Type.Object({
    captcha_id: Type.String(),
    captcha_image: Type.String({ description: 'data:image/png;base64,…' }),
    expires_in: Type.Integer({ description: 'seconds the answer stays valid' }),
    width: Type.Integer({ description: 'natural width of the picture in CSS pixels; show it at this size' }),
    height: Type.Integer({ description: 'natural height of the picture in CSS pixels' }),
    enabled: Type.Boolean({
      description: 'false when the server runs with CAPTCHA_ENABLED=false: login then ignores captcha_id and captcha_code, and a client need not ask for them',
    }),
  }),
);

export const LoginBody = Body({
  username: Type.String({ minLength: 1, maxLength: 64 }),
  password: Type.String({ minLength: 1, maxLength: 128 }),
  captcha_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'required unless the captcha is disabled' })),
  captcha_code: Type.Optional(Type.String({ minLength: 1, maxLength: 16, description: 'required unless the captcha is disabled; case-insensitive' })),
  google_code: Type.Optional(Type.String({
    ...AUTHENTICATOR_CODE,
    description: 'required when an authenticator is bound: its current 6-digit code (spaces ignored), or, in the same field, one of the account’s unused recovery codes ' +
      '(`xxxxx-xxxxx`; case, spaces and hyphens ignored), which is then used up. Missing, wrong, reused or malformed: 401, 10008 (counted towards the lockout)',
  })),
});

export const TokenReply = Envelope(
  Type.Object({
    token: Type.String(),
    expires_at: Type.String({ format: 'date-time', description: 'ISO 8601 UTC' }),
    must_bind_authenticator: Type.Boolean({
      description: 'true: a role of the administrator requires an authenticator and none is bound, so this token is good only for binding one ' +
        '(`GET /google-authenticator/status`, `GET /google-authenticator/qrcode`, `POST /google-authenticator/bind`, `POST /logout`, `POST /refresh-token`); ' +
        'every other route answers 403 10011. Binding makes it an ordinary token of the same session. With `must_change_password` too, the password comes first.',
    }),
    must_change_password: Type.Boolean({
      description: 'true: someone else set the password (an administrator creating the account or giving it a new password, the `reset-password` command, ' +
        'the generated password of the first administrator), or it is older than the policy’s `max_age_days`; this token is good only for choosing a new one ' +
        '(`PUT /password`, `GET /password/policy`, `POST /logout`, `POST /refresh-token`), every other route answering 403 10012. ' +
        'The change makes it an ordinary token of the same session (or one for binding an authenticator, with `must_bind_authenticator`): no new sign-in.',
    }),
  }),
);

export const PasswordRulesReply = Envelope(
  Type.Object({
    min_length: Type.Integer({ description: 'characters a new password has at least' }),
    min_classes: Type.Integer({ description: 'kinds of characters it mixes at least, of 4: lower-case letters, upper-case letters, digits, others' }),
    reject_common: Type.Boolean({ description: 'not one of the 10,000 most common passwords' }),
    reject_username: Type.Boolean({ description: 'not containing the username' }),
    history: Type.Integer({ description: 'it differs from the account’s last this many passwords (the current one included); 0: only from the current one' }),
    max_age_days: Type.Integer({ description: 'days before sign-in asks for a new one; 0: never' }),
  }),
);

export const NullReply = Envelope(Type.Null());

export const PasswordBody = Body({
  old_password: Type.String({ minLength: 1, maxLength: 128 }),
  password: Type.String({ ...PASSWORD_RULE, description: `${PASSWORD_RULE.description}, and what the password policy asks (GET /password/policy)` }),
  password_confirmation: Type.String({ minLength: 1, maxLength: 128 }),
});

export const ProfileReply = Envelope(
  Type.Object({
    ...AdminIdentityFields,
    permissions: Type.Array(Type.String()),
    menus: Type.Array(MenuNodeSchema),
    is_2fa_bound: Type.Boolean(),
    last_login_at: Type.Union([Type.String(), Type.Null()]),
  }),
);
