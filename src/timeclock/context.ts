// What every time-clock feature plugin receives.
import type { JwtCodec } from '../platform/auth/jwt.ts';
import type { Platform } from '../platform/platform.ts';
import type { TimeclockAuth, TimeclockClaims } from './auth.ts';

export interface TimeclockContext {
  platform: Platform;
  /** Signs and verifies the service's tokens (payload exactly userId, role, iat, exp). */
  jwt: JwtCodec<TimeclockClaims>;
  auth: TimeclockAuth;
}

export interface FeatureOptions {
  ctx: TimeclockContext;
}
