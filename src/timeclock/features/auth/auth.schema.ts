import { Type } from 'typebox';
import { Nullable } from '../../../platform/http/schemas.ts';
import { ROLES } from '../../db/schema.ts';
import { Body, DeviceUuid } from '../../http.ts';

export const LoginBody = Body({
  username: Type.String({ minLength: 1, maxLength: 64 }),
  password: Type.String({ minLength: 1, maxLength: 128 }),
  deviceUuid: DeviceUuid,
});

const Role = Type.Enum(ROLES, { description: '`worker` or `manager`' });

const MustChangePassword = Type.Boolean({
  description: 'true: someone else set the account’s password (a manager, the `reset-password` command, the first manager’s generated one), or it is older than the password policy allows; ' +
    'the token is good only for `PUT /api/me/password` (which answers a new, ordinary token), `GET /api/me/password-policy`, `GET /api/me` and refresh, every other route answering 403 `PASSWORD_CHANGE_REQUIRED`. ' +
    'An extension of the contract: clients that ignore it keep working until they call another route.',
});

export const LoginReply = Type.Object({
  token: Type.String({
    description: 'JWT (HS256); payload `userId`, `role`, `tokenVersion` (the account’s token version: a password change, disabling or deleting the account revokes every earlier token), `iat`, `exp`',
  }),
  fullName: Type.String(),
  userId: Type.Integer({ description: 'the signed-in account’s id (the `userId` of the other routes); an extension of the contract' }),
  role: Type.Enum(ROLES, { description: 'the signed-in account’s role, `worker` or `manager`; an extension of the contract' }),
  mustChangePassword: MustChangePassword,
});

export const RefreshReply = Type.Object({ token: Type.String(), mustChangePassword: MustChangePassword });

export const PasswordChangeBody = Body({
  currentPassword: Type.String({ minLength: 1, maxLength: 128, description: 'the password the account signs in with now' }),
  newPassword: Type.String({ minLength: 8, maxLength: 128, description: 'the new one: what the password policy asks (`GET /api/me/password-policy`), and not the current one' }),
});

export const PasswordRulesReply = Type.Object({
  minLength: Type.Integer({ description: 'characters a new password has at least' }),
  minClasses: Type.Integer({ description: 'kinds of characters it mixes at least, of 4: lower-case letters, upper-case letters, digits, others' }),
  rejectCommon: Type.Boolean({ description: 'not one of the 10,000 most common passwords' }),
  rejectUsername: Type.Boolean({ description: 'not containing the username' }),
  history: Type.Integer({ description: 'it differs from the account’s last this many passwords (the current one included); 0: only from the current one' }),
  maxAgeDays: Type.Integer({ description: 'days before sign-in asks for a new one; 0: never' }),
});

export const MeReply = Type.Object({
  userId: Type.Integer({ description: 'the account’s id' }),
  username: Type.String(),
  fullName: Type.String(),
  role: Role,
  createdAt: Type.String({ description: 'ISO 8601 UTC' }),
  deviceBinding: Type.Union([Type.Literal('bound'), Type.Literal('unbound'), Type.Literal('not_required')], {
    description: '`bound`: a worker whose device is bound (only it may sign in); `unbound`: a worker with no device bound (the next sign-in binds the device it presents); `not_required`: managers are not bound to a device',
  }),
  device: Nullable(Type.Object({
    deviceUuid: Type.String(),
    registeredAt: Type.String({ description: 'when it was bound, ISO 8601 UTC' }),
    lastSeen: Type.String({ description: 'its latest sign-in, registration or validation, ISO 8601 UTC' }),
  }, { description: 'the bound device; null when none (always null for managers)' })),
  tags: Type.Array(Type.String(), { description: 'a worker’s tag names, alphabetical; empty for managers' }),
});
