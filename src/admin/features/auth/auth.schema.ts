import { Type } from 'typebox';
import { Body, Envelope } from '../../http.ts';
import { MenuNodeSchema } from '../../kernel/rbac.schema.ts';

export const PASSWORD_RULE = { minLength: 8, maxLength: 128, description: '8 to 128 characters' };

export const CaptchaReply = Envelope(
  Type.Object({
    captcha_id: Type.String(),
    captcha_image: Type.String({ description: 'data:image/png;base64,…' }),
    expires_in: Type.Integer({ description: 'seconds the answer stays valid' }),
  }),
);

export const LoginBody = Body({
  username: Type.String({ minLength: 1, maxLength: 64 }),
  password: Type.String({ minLength: 1, maxLength: 128 }),
  captcha_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'required unless the captcha is disabled' })),
  captcha_code: Type.Optional(Type.String({ minLength: 1, maxLength: 16, description: 'required unless the captcha is disabled; case-insensitive' })),
  google_code: Type.Optional(Type.String({ pattern: '^\\d{6}$', description: 'current authenticator code; required when one is bound' })),
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

/** Who an administrator is: shared by the administrator record and the profile (/info). */
export const AdminIdentityFields = {
  id: Type.Integer(),
  username: Type.String(),
  nickname: Type.String(),
  email: Type.String(),
  phone: Type.String(),
  avatar: Type.String(),
  department_id: Type.Union([Type.Integer(), Type.Null()]),
  department: Type.Union([Type.Object({ id: Type.Integer(), name: Type.String({ description: 'in the reader’s language (Accept-Language)' }) }), Type.Null()]),
  roles: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String({ description: 'in the reader’s language (Accept-Language)' }), slug: Type.String() })),
};

export const ProfileReply = Envelope(
  Type.Object({
    ...AdminIdentityFields,
    permissions: Type.Array(Type.String()),
    menus: Type.Array(MenuNodeSchema),
    is_2fa_bound: Type.Boolean(),
    last_login_at: Type.Union([Type.String(), Type.Null()]),
  }),
);
