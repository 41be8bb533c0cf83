import { Type } from 'typebox';
import { Body, DeviceUuid } from '../../http.ts';

export const LoginBody = Body({
  username: Type.String({ minLength: 1, maxLength: 64 }),
  password: Type.String({ minLength: 1, maxLength: 128 }),
  deviceUuid: DeviceUuid,
});

export const LoginReply = Type.Object({
  token: Type.String({ description: 'JWT (HS256); payload exactly `userId`, `role`, `iat`, `exp`' }),
  fullName: Type.String(),
});

export const RefreshReply = Type.Object({ token: Type.String() });
