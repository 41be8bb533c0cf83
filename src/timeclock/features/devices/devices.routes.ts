// Device registration and validation (DESIGN §7.5).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { assertSelfOrManager } from '../../kernel/auth.ts';
import type { FeatureOptions } from '../../context.ts';
import { errors } from '../../http.ts';
import { DeviceBody, RegisterReply, ValidateReply } from './devices.schema.ts';

const tags = ['Devices'];

export const devicesRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const { devices } = ctx;

  app.post('/device/register', {
    config: { access: 'user' },
    schema: {
      tags,
      summary: 'Register a device for a worker',
      description:
        'A worker registers for themself: when no device is bound it is bound now; their own bound device again is a 200 (`Device already registered`, lastSeen updated); ' +
        'another device is refused with 403 `DEVICE_NOT_AUTHORIZED` until a manager resets the binding (`DELETE /api/managers/workers/{id}/device`). ' +
        'A manager may register a device for any worker, replacing the worker’s binding. A device registered to another user is a 409 `DEVICE_ALREADY_REGISTERED`. ' +
        'Managers themselves are not bound (400). Device UUIDs are `<ios|android|web>-<RFC 4122 UUID>` (400 `VALIDATION_ERROR` otherwise). Refusals are recorded as security events.',
      body: DeviceBody,
      response: { 200: RegisterReply, ...errors(403, 404, 409) },
    },
  }, async (request) => {
    const caller = assertSelfOrManager(request, request.body.userId);
    return devices.register(caller, request.body.userId, request.body.deviceUuid);
  });

  app.post('/device/validate', {
    config: { access: 'user' },
    schema: {
      tags,
      summary: 'Check that a device is the one registered to a user',
      description:
        '`valid: true` with `deviceInfo` when the device is the user’s bound device (lastSeen is updated). Managers are not bound: always `valid: true`, `deviceInfo: null`. ' +
        'A worker with no device bound: `valid: false`, `deviceInfo: null`. A device that is not the user’s: 403 `DEVICE_NOT_AUTHORIZED` (recorded as a security event). Unknown user: 404.',
      body: DeviceBody,
      response: { 200: ValidateReply, ...errors(403, 404) },
    },
  }, async (request) => {
    assertSelfOrManager(request, request.body.userId);
    return devices.validate(request.body.userId, request.body.deviceUuid);
  });
};
