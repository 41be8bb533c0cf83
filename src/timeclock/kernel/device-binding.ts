// Device binding as sign-in sees it (DESIGN §7.5): a worker's login binds their device or is
// refused another one. The devices feature implements it (DevicesService); the sign-in feature
// is handed it at construction (app.ts), so neither imports the other.
import { Type, type Static } from 'typebox';

/** A binding in replies. */
export const DeviceInfo = Type.Object({
  registeredAt: Type.String({ description: 'ISO 8601' }),
  lastSeen: Type.String({ description: 'ISO 8601' }),
});

export type BindOutcome =
  | { ok: true; device: Static<typeof DeviceInfo>; newlyBound: boolean }
  | { ok: false; reason: 'bound_to_another_device' | 'device_of_another_user' };

export interface DeviceMismatch {
  userId: number;
  deviceUuid: string;
  reason: string;
  source: 'login' | 'register' | 'validate';
}

export interface DeviceBinding {
  /** Binds the device when the worker has none and nobody holds it, or accepts their own. */
  bindOrCheck(userId: number, deviceUuid: string): Promise<BindOutcome>;
  /** Records a refused device as a security event; a failure to record does not change the answer. */
  recordMismatch(mismatch: DeviceMismatch): Promise<void>;
}
