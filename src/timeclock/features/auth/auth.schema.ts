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

export const LoginReply = Type.Object({
  token: Type.String({
    description: 'JWT (HS256); payload `userId`, `role`, `tokenVersion` (the account’s token version: a password change, disabling or deleting the account revokes every earlier token), `iat`, `exp`',
  }),
  fullName: Type.String(),
  userId: Type.Integer({ description: 'the signed-in account’s id (the `userId` of the other routes); an extension of the contract' }),
  role: Type.Enum(ROLES, { description: 'the signed-in account’s role, `worker` or `manager`; an extension of the contract' }),
});

export const RefreshReply = Type.Object({ token: Type.String() });

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
