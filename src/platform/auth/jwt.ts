// HS256 JSON Web Tokens. Each service signs with its own key derived from JWT_SECRET, so a
// token of one service is never accepted by the other. Only HS256 is accepted: `alg: none`,
// other algorithms, edited payloads and bad signatures all fail verification.
import { hkdfSync } from 'node:crypto';
import { createSigner, createVerifier, TokenError } from 'fast-jwt';

export function deriveKey(secret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'fieldops-jwt', purpose, 32));
}

/** A token expiry `ttlSeconds` from now, in whole seconds as JWT `exp` carries it. */
export function expiryIn(ttlSeconds: number): Date {
  return new Date((Math.floor(Date.now() / 1000) + ttlSeconds) * 1000);
}

export type JwtFailure = 'expired' | 'invalid';

export interface JwtCodec<P extends object> {
  /** Signs `payload` plus `iat` (now) and `exp` (`expiresAt`, whole seconds). */
  sign(payload: P, expiresAt: Date): string;
  /** The verified payload, or why it was refused. */
  verify(token: string): { ok: true; payload: P & { iat: number; exp: number } } | { ok: false; reason: JwtFailure };
}

const VERIFIED_CACHE_MAX = 10_000;

export function jwtCodec<P extends object>(key: Buffer): JwtCodec<P> {
  const signer = createSigner<P & { exp: number }>({ key, algorithm: 'HS256' });
  const verifier = createVerifier({ key, algorithms: ['HS256'], requiredClaims: ['iat', 'exp'] });
  // Tokens already verified, by their exact text: a repeat costs one map lookup instead of
  // an HMAC. Expiry is still checked on every use.
  const verified = new Map<string, P & { iat: number; exp: number }>();
  return {
    sign(payload, expiresAt) {
      return signer({ ...payload, exp: Math.floor(expiresAt.getTime() / 1000) });
    },
    verify(token) {
      const known = verified.get(token);
      if (known) {
        if (known.exp * 1000 > Date.now()) return { ok: true, payload: known };
        verified.delete(token);
        return { ok: false, reason: 'expired' };
      }
      try {
        const payload = Object.freeze(verifier(token)) as P & { iat: number; exp: number };
        if (verified.size >= VERIFIED_CACHE_MAX) verified.delete(verified.keys().next().value!);
        verified.set(token, payload);
        return { ok: true, payload };
      } catch (err) {
        if (err instanceof TokenError && err.code === TokenError.codes.expired) return { ok: false, reason: 'expired' };
        return { ok: false, reason: 'invalid' };
      }
    },
  };
}
