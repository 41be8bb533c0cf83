// Password hashing with argon2id at the OWASP parameters (m=19 MiB, t=2, p=1).
import { availableParallelism } from 'node:os';
import { hash, verify, type Options } from '@node-rs/argon2';

export const ARGON2_OPTIONS: Options = {
  algorithm: 2, // Argon2id (the binding's enum is a const enum)
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
};

/**
 * Runs at most `slots` of the given tasks at once; the others wait, first come first served.
 * A finishing task (resolved or rejected) hands its slot to the next waiting one.
 */
export function concurrencyLimit(slots: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running < slots) running += 1;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running -= 1;
    }
  };
}

// Hashes run in libuv's thread pool (UV_THREADPOOL_SIZE, 4 by default). More hashes at once
// than there are cores only time-slice each other, and each touches 19 MiB, so they evict each
// other's caches: on 2 cores, 2 at a time verify about 10 % more per second than 4, and leave
// two pool threads to file and DNS work during a burst of logins. Where there are more cores
// than pool threads, the pool is the limit (raise UV_THREADPOOL_SIZE there).
const poolSize = Number.parseInt(process.env.UV_THREADPOOL_SIZE ?? '', 10) || 4;
const hashing = concurrencyLimit(Math.max(1, Math.min(availableParallelism(), poolSize)));

export function hashPassword(password: string): Promise<string> {
  return hashing(() => hash(password, ARGON2_OPTIONS));
}

export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await hashing(() => verify(stored, password, ARGON2_OPTIONS));
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
