// HS256 JSON Web Tokens. Each service signs with its own key derived from JWT_SECRET, so a
// token of one service is never accepted by the other. Only HS256 is accepted: `alg: none`,
// other algorithms, edited payloads and bad signatures all fail verification.
import { hkdfSync } from 'node:crypto';
import { createSigner, createVerifier, TokenError } from 'fast-jwt';

export function deriveKey(secret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'fieldops-jwt', purpose, 32));
}

export type JwtFailure = 'expired' | 'invalid';

export interface JwtCodec<P extends object> {
  sign(payload: P, ttlSeconds: number): string;
  /** The verified payload, or why it was refused. */
  verify(token: string): { ok: true; payload: P & { iat: number; exp: number } } | { ok: false; reason: JwtFailure };
}

export function jwtCodec<P extends object>(key: Buffer): JwtCodec<P> {
  const signers = new Map<number, (payload: P) => string>();
  const verifier = createVerifier({ key, algorithms: ['HS256'], cache: 10_000, requiredClaims: ['iat', 'exp'] });
  return {
    sign(payload, ttlSeconds) {
      let signer = signers.get(ttlSeconds);
      if (!signer) {
        signer = createSigner<P>({ key, algorithm: 'HS256', expiresIn: ttlSeconds * 1000 });
        signers.set(ttlSeconds, signer);
      }
      return signer(payload);
    },
    verify(token) {
      try {
        return { ok: true, payload: verifier(token) as P & { iat: number; exp: number } };
      } catch (err) {
        if (err instanceof TokenError && err.code === TokenError.codes.expired) return { ok: false, reason: 'expired' };
        return { ok: false, reason: 'invalid' };
      }
    },
  };
}
