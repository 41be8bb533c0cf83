import { Type } from 'typebox';
import { Body, DeviceUuid, Id } from '../../http.ts';
import { DeviceInfo } from '../../kernel/device-binding.ts';

export const DeviceBody = Body({ userId: Id('the user the device is for'), deviceUuid: DeviceUuid });

export const RegisterReply = Type.Object({
  message: Type.String(),
  deviceUuid: Type.String({ description: 'as stored: lower case' }),
  registeredAt: Type.String({ description: 'ISO 8601: when the binding was made' }),
});

export const ValidateReply = Type.Object({
  valid: Type.Boolean(),
  message: Type.String(),
  deviceInfo: Type.Union([DeviceInfo, Type.Null()], { description: 'null for managers and for a worker without a device' }),
});
