// One readable line for a failed start-up (configuration, database or Redis unreachable),
// instead of a stack trace; the stack is kept for errors nobody anticipated.
import { ConfigError } from './config.ts';

/** A dependency this process needs is unusable; the message says which and why. */
export class StartupError extends Error {
  override name = 'StartupError';
}

/** `host:port` of a connection string, without credentials. */
export function endpointOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}${u.port ? `:${u.port}` : ''}`;
  } catch {
    return '(unparseable URL)';
  }
}

export function describeStartupError(err: unknown): string {
  if (err instanceof ConfigError || err instanceof StartupError) return err.message;
  const e = err as NodeJS.ErrnoException & { address?: string; port?: number };
  if (e?.code && ['ECONNREFUSED', 'ENOTFOUND', 'ETIMEDOUT', 'EAI_AGAIN', 'ECONNRESET', 'EHOSTUNREACH'].includes(e.code)) {
    const where = e.address ? ` ${e.address}${e.port ? `:${e.port}` : ''}` : '';
    return `cannot reach${where} (${e.code}): check DATABASE_URL / REDIS_URL and that the server is running`;
  }
  if (e?.code === '28P01' || e?.code === '3D000' || e?.code === '28000') {
    return `the database refused the connection: ${e.message} (check DATABASE_URL)`;
  }
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

/** Prints the failure and exits with status 1 (2 for configuration errors). */
export function exitOnStartupError(err: unknown): never {
  process.stderr.write(`failed to start: ${describeStartupError(err)}\n`);
  process.exit(err instanceof ConfigError ? 2 : 1);
}
