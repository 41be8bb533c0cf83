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
  google_code: Type.Optional(Type.String({ ...AUTHENTICATOR_CODE, description: 'current 6-digit authenticator code (spaces ignored); required when one is bound. Missing, wrong, reused or malformed: 401, 10008' })),
});

export const TokenReply = Envelope(
  Type.Object({
    token: Type.String(),
    expires_at: Type.String({ format: 'date-time', description: 'ISO 8601 UTC' }),
  }),
);

export const NullReply = Envelope(Type.Null());

export const PasswordBody = Body({
  old_password: Type.String({ minLength: 1, maxLength: 128 }),
  password: Type.String(PASSWORD_RULE),
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
