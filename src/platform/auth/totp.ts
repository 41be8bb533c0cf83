// RFC 6238 authenticator codes (30-second steps, 6 digits, SHA-1 as authenticator apps expect).
import { Secret, TOTP } from 'otpauth';

export const TOTP_PERIOD = 30;

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

export function totpUri(secret: string, issuer: string, account: string): string {
  return new TOTP({ issuer, label: account, secret: Secret.fromBase32(secret), period: TOTP_PERIOD, digits: 6, algorithm: 'SHA1' }).toString();
}

/**
 * The time step a code belongs to (current step ±1), or null when it matches none.
 * Callers store the step and refuse any code whose step is not newer than the last one used.
 */
export function matchTotpStep(secret: string, code: string, now = Date.now()): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const totp = new TOTP({ secret: Secret.fromBase32(secret), period: TOTP_PERIOD, digits: 6, algorithm: 'SHA1' });
  const delta = totp.validate({ token: code, timestamp: now, window: 1 });
  if (delta === null) return null;
  return Math.floor(now / 1000 / TOTP_PERIOD) + delta;
}

export function totpCode(secret: string, now = Date.now()): string {
  return new TOTP({ secret: Secret.fromBase32(secret), period: TOTP_PERIOD, digits: 6, algorithm: 'SHA1' }).generate({ timestamp: now });
}
