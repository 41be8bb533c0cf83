// Password hashing with argon2id at the OWASP parameters (m=19 MiB, t=2, p=1).
import { hash, verify, type Options } from '@node-rs/argon2';

export const ARGON2_OPTIONS: Options = {
  algorithm: 2, // Argon2id (the binding's enum is a const enum)
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
};

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_OPTIONS);
}

export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password, ARGON2_OPTIONS);
  } catch {
    return false;
  }
}

let dummy: Promise<string> | undefined;
/**
 * Spends the same time as a real verification, for unknown usernames, so that response
 * times do not reveal which accounts exist.
 */
export async function verifyAgainstDummy(password: string): Promise<false> {
  dummy ??= hashPassword('not-a-real-password-' + Math.random());
  await verifyPassword(await dummy, password);
  return false;
}
